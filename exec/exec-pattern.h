/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#if !defined (MP_EXEC_COMPILATION)
#error "this header is internal to the executor (exec/): include memplan-exec.h"
#endif

/* The data every tensor holds: 8-byte words whose high half is a tag derived
 * from the tensor's identity and whose low half is the word's index inside
 * the tensor masked by another hash of the tag, so neither a neighbour's
 * data nor a shifted copy of the tensor's own passes as its own, and every
 * byte depends on the tensor (two tensors agree on one byte by chance only,
 * 1 in 256, never on the zero bytes of small indices). The index's high 32 bits are mixed into
 * the tag, so the pattern does not repeat every 32 GiB. The tag also
 * carries the iteration (mp_exec_tag), so data left by an earlier one never
 * passes. Shared by the C backends and the CUDA kernels, hence plain C with
 * no GLib. */

#include <stdint.h>
#include <string.h>

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

/* Zero for the first 2^32 words, so small tensors decode from the tag alone. */
MP_HD uint32_t
mp_pattern_mix (uint64_t index)
{
  return (uint32_t) (index >> 32) * 0x85EBCA6Bu;
}

/* The low half's mask: a second bijection of the tag. */
MP_HD uint32_t
mp_pattern_low (uint32_t tag)
{
  uint32_t x = (tag ^ (tag >> 15)) * 0x2C1B3C6Du;

  return x ^ (x >> 12);
}

MP_HD uint64_t
mp_pattern_word (uint32_t tag, uint64_t index)
{
  return ((uint64_t) (tag ^ mp_pattern_mix (index)) << 32) |
         ((uint32_t) index ^ mp_pattern_low (tag));
}

/* The first differing byte of two little-endian words that differ. */
MP_HD uint64_t
mp_pattern_first_diff (uint64_t a, uint64_t b)
{
  uint64_t d = a ^ b, k = 0;

  while (k < 7 && ((d >> (8 * k)) & 0xff) == 0)
    k++;
  return k;
}

/* Byte b of a tensor's pattern (b counted from the tensor's root). */
MP_HD uint8_t
mp_pattern_byte (uint32_t tag, uint64_t b)
{
  return (uint8_t) (mp_pattern_word (tag, b >> 3) >> (8 * (b & 7)));
}

/* The CUDA kernels' unit of work: 16-byte chunk c of the byte range
 * [lo, hi) of a root. A whole chunk of an aligned root is one 16-byte
 * access; ragged ends (and unaligned roots) go byte by byte. Shared with the
 * host so that the tests run exactly the code the device runs. */
MP_HD void
mp_pattern_fill_chunk (uint8_t *root, uint32_t tag, uint64_t lo, uint64_t hi, int aligned,
                       uint64_t c)
{
  uint64_t b0 = c << 4, b1 = b0 + 16;

  if (aligned && b0 >= lo && b1 <= hi)
    {
#ifdef __CUDACC__
      ((ulonglong2 *) root)[c] = make_ulonglong2 (mp_pattern_word (tag, 2 * c),
                                                  mp_pattern_word (tag, 2 * c + 1));
#else
      uint64_t w[2] = { mp_pattern_word (tag, 2 * c), mp_pattern_word (tag, 2 * c + 1) };

      memcpy (root + b0, w, 16);
#endif
      return;
    }
  for (uint64_t b = b0 < lo ? lo : b0; b < (b1 < hi ? b1 : hi); b++)
    root[b] = mp_pattern_byte (tag, b);
}

/* The first byte of chunk c that is not the tensor's, or UINT64_MAX. */
MP_HD uint64_t
mp_pattern_check_chunk (const uint8_t *root, uint32_t tag, uint64_t lo, uint64_t hi, int aligned,
                        uint64_t c)
{
  uint64_t b0 = c << 4, b1 = b0 + 16;

  if (aligned && b0 >= lo && b1 <= hi)
    {
      uint64_t w[2];

#ifdef __CUDACC__
      ulonglong2 v = ((const ulonglong2 *) root)[c];

      w[0] = v.x;
      w[1] = v.y;
#else
      memcpy (w, root + b0, 16);
#endif
      if (w[0] != mp_pattern_word (tag, 2 * c))
        return b0 + mp_pattern_first_diff (w[0], mp_pattern_word (tag, 2 * c));
      if (w[1] != mp_pattern_word (tag, 2 * c + 1))
        return b0 + 8 + mp_pattern_first_diff (w[1], mp_pattern_word (tag, 2 * c + 1));
      return UINT64_MAX;
    }
  for (uint64_t b = b0 < lo ? lo : b0; b < (b1 < hi ? b1 : hi); b++)
    if (root[b] != mp_pattern_byte (tag, b))
      return b;
  return UINT64_MAX;
}

/* The bytes a check keeps around its first bad byte: the 16 bytes of the
 * buffer from bad - 7 (from 0 near the buffer's start), which hold every
 * 8-byte word that covers byte bad whatever its alignment, so the host can
 * tell whose data lies there even when the overwriter's root is not
 * 8-aligned with the victim's. */
#define MP_PATTERN_WINDOW 16

MP_HD uint64_t
mp_pattern_window_start (uint64_t at)
{
  return at >= 7 ? at - 7 : 0;
}

/* Copies the window around byte at of a buffer of size bytes; bytes past
 * its end read as zero (the host knows the size and skips them). */
MP_HD void
mp_pattern_window (const uint8_t *buffer, uint64_t size, uint64_t at, uint8_t *window)
{
  uint64_t start = mp_pattern_window_start (at);

  for (uint64_t k = 0; k < MP_PATTERN_WINDOW; k++)
    window[k] = start + k < size ? buffer[start + k] : 0;
}

#undef MP_HD
