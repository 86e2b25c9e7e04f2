/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#if !defined (MP_EXEC_COMPILATION)
#error "this header is internal to the executor (exec/): include memplan-exec.h"
#endif

/* The CUDA side of the executor, behind a plain C interface so that the
 * rest of the executor needs neither nvcc nor the CUDA headers. Every function
 * returns 0 on success, else -1 (or MP_CUDA_NO_MEMORY) with a message
 * naming the CUDA call and CUDA's own words written into err. */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MP_CUDA_NO_MEMORY (-2)

typedef struct MpCuda MpCuda;

typedef struct
{
  uint32_t buffer;
  uint32_t tag;
  uint64_t base;
  uint64_t lo;
  uint64_t hi;
} MpCudaRegion;

typedef struct
{
  uint64_t bad;
  uint8_t  window[16];
} MpCudaCheck;

/* One event of a replay: allocate (alloc set) or free a tensor, on the
 * stream (dense index) of the op that makes it. */
typedef struct
{
  uint32_t tensor;
  uint32_t alloc;
  uint64_t bytes;
  uint32_t stream;
} MpCudaReplay;

/* device: -1 for the current one. Without a driver the message is "no
 * CUDA driver", without a device "no CUDA device (driver X.Y)". */
int         mp_cuda_open        (MpCuda **out, int device, char *err, size_t len);
void        mp_cuda_close       (MpCuda *cu);
/* The L2 cache of a device (-1: the current one), without opening it. */
int         mp_cuda_l2_bytes    (int device, uint64_t *bytes, char *err, size_t len);
/* Frees the plan's buffers, so that the baselines have the memory. */
void        mp_cuda_release     (MpCuda *cu);
const char *mp_cuda_device_name (const MpCuda *cu);
/* Bytes per second the device memory can move, 0 when unknown. */
uint64_t    mp_cuda_peak        (const MpCuda *cu);
/* Kernels launched since the last mp_cuda_reset_checks. */
uint32_t    mp_cuda_launches    (const MpCuda *cu);
/* Allocates the arena (arena + workspace) and the other buffers; arena_taken
 * is the device memory that really went away (cudaMemGetInfo before/after). */
int         mp_cuda_setup       (MpCuda *cu, const uint64_t sizes[3], const MpCudaRegion *regions,
                                 uint32_t n_regions, uint32_t n_streams, uint32_t n_steps,
                                 uint64_t *arena_taken, uint64_t *all_taken, char *err,
                                 size_t len);
int         mp_cuda_reset_checks (MpCuda *cu, char *err, size_t len);
/* One iteration is captured from stream 0 into a CUDA graph (begin), the
 * other streams fork from stream 0 (fan out) and join it again (join);
 * run instantiates the graph and launches it between two CUDA events, so
 * the time is the kernels' alone, with no host launch gaps, then samples
 * the device memory in use (peak_taken: the most since mp_cuda_open,
 * cudaMemGetInfo). abort ends a capture that failed half-way. */
int         mp_cuda_capture_begin (MpCuda *cu, char *err, size_t len);
int         mp_cuda_fan_out     (MpCuda *cu, char *err, size_t len);
int         mp_cuda_join        (MpCuda *cu, char *err, size_t len);
int         mp_cuda_capture_run (MpCuda *cu, double *seconds, char *err, size_t len);
void        mp_cuda_capture_abort (MpCuda *cu);
uint64_t    mp_cuda_peak_taken  (const MpCuda *cu);
/* tag: the region's pattern tag in this iteration */
int         mp_cuda_fill        (MpCuda *cu, uint32_t stream, uint32_t region, uint32_t tag,
                                 char *err, size_t len);
int         mp_cuda_check       (MpCuda *cu, uint32_t stream, uint32_t region, uint32_t tag,
                                 char *err, size_t len);
int         mp_cuda_wait        (MpCuda *cu, uint32_t stream, uint32_t step, char *err,
                                 size_t len);
int         mp_cuda_record      (MpCuda *cu, uint32_t stream, uint32_t step, char *err,
                                 size_t len);
int         mp_cuda_delay       (MpCuda *cu, uint32_t stream, uint32_t us, char *err, size_t len);
int         mp_cuda_sync        (MpCuda *cu, char *err, size_t len);
int         mp_cuda_read_checks (MpCuda *cu, MpCudaCheck *out, char *err, size_t len);
/* Replays allocations: pool = 0 with cudaMalloc/cudaFree (peak_a: the most
 * device memory in use, from cudaMemGetInfo), pool = 1 with
 * cudaMallocFromPoolAsync on a pool that keeps its memory, on the program's
 * streams (peak_a: reserved high-water mark, peak_b: used high-water mark).
 * failed_at: the event that failed (MP_CUDA_NO_MEMORY: out of memory). */
int         mp_cuda_replay      (MpCuda *cu, int pool, const MpCudaReplay *events,
                                 uint32_t n_events, uint32_t n_tensors, uint64_t *peak_a,
                                 uint64_t *peak_b, uint32_t *failed_at, char *err, size_t len);

#ifdef __cplusplus
}
#endif
