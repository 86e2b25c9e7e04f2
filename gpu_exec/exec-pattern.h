/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* The data every tensor holds: 8-byte words whose high half is a tag derived
 * from the tensor's identity and whose low half is the word's index inside
 * the tensor, so neither a neighbour's data nor a shifted copy of the
 * tensor's own passes as its own. Shared by the C backends and the CUDA
 * kernels, hence plain C with no GLib. */

#include <stdint.h>

#ifdef __CUDACC__
#define MP_HD __host__ __device__ __forceinline__
#else
#define MP_HD static inline
#endif

#define MP_PATTERN_MULT 0x9E3779B1u

/* A bijection of 32-bit ids with mp_pattern_tag (0) == 0, so the zeros of
 * fresh memory never match a tensor (ids start at 1). */
MP_HD uint32_t
mp_pattern_tag (uint32_t id)
{
  uint32_t x = id * MP_PATTERN_MULT;

  return x ^ (x >> 16);
}

MP_HD uint64_t
mp_pattern_word (uint32_t tag, uint64_t index)
{
  return ((uint64_t) tag << 32) | (uint32_t) index;
}

/* Byte b of a tensor's pattern (b counted from the tensor's root). */
MP_HD uint8_t
mp_pattern_byte (uint32_t tag, uint64_t b)
{
  return (uint8_t) (mp_pattern_word (tag, b >> 3) >> (8 * (b & 7)));
}

#undef MP_HD
