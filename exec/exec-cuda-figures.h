/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#if !defined (MP_EXEC_COMPILATION)
#error "this header is internal to the executor (exec/): include memplan-exec.h"
#endif

/* The arithmetic and words of the CUDA backend's host code, in plain C so
 * that the tests check them on machines without a GPU. */

#include <stdint.h>
#include <string.h>

/* Device memory that went away between two cudaMemGetInfo readings of free
 * memory: another process may free memory in between, so the difference is
 * clamped at zero instead of wrapping to ~16 EiB. */
static inline uint64_t
mp_cuda_taken (uint64_t free_before, uint64_t free_after)
{
  return free_before > free_after ? free_before - free_after : 0;
}

/* Peak bytes per second of device memory: the memory clock (kHz, from
 * cudaDevAttrMemoryClockRate) × 2 transfers per clock × the bus width in
 * bytes (cudaDevAttrGlobalMemoryBusWidth, in bits); 0 when unknown. */
static inline uint64_t
mp_cuda_peak_bandwidth (int clock_khz, int bus_bits)
{
  if (clock_khz <= 0 || bus_bits <= 0)
    return 0;
  return (uint64_t) clock_khz * 1000 * 2 * (uint64_t) (bus_bits / 8);
}

/* The name of the CUDA call in a stringised expression: "cudaMalloc" for
 * "cudaMalloc ((void **) &p, n)". */
static inline int
mp_cuda_call_name_length (const char *expression)
{
  return (int) strcspn (expression, " (");
}

/* Why the CUDA backend cannot run, in words: cudaDriverGetVersion reports 0
 * when no driver is installed, whatever the runtime then says. */
static inline const char *
mp_cuda_unavailable_words (int driver_version, int device_count)
{
  if (driver_version == 0)
    return "no CUDA driver";
  if (device_count == 0)
    return "no CUDA device";
  return NULL;
}
