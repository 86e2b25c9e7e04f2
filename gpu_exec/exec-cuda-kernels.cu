/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec-cuda-kernels.h"
#include "exec-pattern.h"

#define THREADS 256
#define MAX_BLOCKS 8192

struct MpCuda
{
  int           device;
  char          name[256];
  int           n_sms;
  uint64_t      free_at_open;
  uint8_t      *buf[3];
  MpCudaCheck  *checks;       /* device, one per region */
  MpCudaRegion *regions;      /* host copy */
  uint32_t      n_regions;
  cudaStream_t *streams;
  uint32_t      n_streams;
  cudaEvent_t  *events;       /* one per step, recorded when it completes */
  uint32_t      n_steps;
};

#define CK(call)                                                                         \
  do                                                                                     \
    {                                                                                    \
      cudaError_t e_ = (call);                                                           \
      if (e_ != cudaSuccess)                                                             \
        {                                                                                \
          snprintf (err, len, "%s: %s", #call, cudaGetErrorString (e_));                 \
          return -1;                                                                     \
        }                                                                                \
    }                                                                                    \
  while (0)

#define CK_LAUNCH(what)                                                                  \
  do                                                                                     \
    {                                                                                    \
      cudaError_t e_ = cudaGetLastError ();                                              \
      if (e_ != cudaSuccess)                                                             \
        {                                                                                \
          snprintf (err, len, "launching %s: %s", what, cudaGetErrorString (e_));        \
          return -1;                                                                     \
        }                                                                                \
    }                                                                                    \
  while (0)

/* Each thread owns 16-byte chunks (mp_pattern_*_chunk), grid-stride. */
__global__ void
k_fill (uint8_t *root, uint32_t tag, uint64_t lo, uint64_t hi, int aligned)
{
  uint64_t stride = (uint64_t) gridDim.x * blockDim.x;

  for (uint64_t c = (lo >> 4) + (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;
       c < (hi + 15) >> 4; c += stride)
    mp_pattern_fill_chunk (root, tag, lo, hi, aligned, c);
}

__global__ void
k_check (const uint8_t *root, uint32_t tag, uint64_t lo, uint64_t hi, int aligned,
         MpCudaCheck *check)
{
  uint64_t stride = (uint64_t) gridDim.x * blockDim.x;

  for (uint64_t c = (lo >> 4) + (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;
       c < (hi + 15) >> 4; c += stride)
    {
      uint64_t bad = mp_pattern_check_chunk (root, tag, lo, hi, aligned, c);

      if (bad != UINT64_MAX)
        atomicMin ((unsigned long long *) &check->bad, (unsigned long long) bad);
    }
}

/* Keeps the word found at the first bad byte, so the host can tell whose
 * data it is. Runs right after k_check on the same stream. */
__global__ void
k_capture (const uint8_t *root, uint64_t lo, uint64_t hi, MpCudaCheck *check)
{
  if (check->bad != UINT64_MAX)
    check->value = mp_pattern_capture (root, lo, hi, check->bad);
}

__global__ void
k_delay (uint32_t us)
{
  for (uint32_t i = 0; i < us; i++)
    __nanosleep (1000);
}

static unsigned
blocks_for (const MpCuda *cu, uint64_t lo, uint64_t hi)
{
  uint64_t chunks = ((hi + 15) >> 4) - (lo >> 4);
  uint64_t blocks = (chunks + THREADS - 1) / THREADS;
  uint64_t cap = cu->n_sms > 0 ? (uint64_t) cu->n_sms * 16 : MAX_BLOCKS;

  if (blocks > cap)
    blocks = cap;
  return blocks ? (unsigned) blocks : 1;
}

extern "C" int
mp_cuda_open (MpCuda **out, char *err, size_t len)
{
  int     count = 0;
  MpCuda *cu;
  cudaDeviceProp prop;
  size_t  free_b = 0, total = 0;

  *out = NULL;
  CK (cudaGetDeviceCount (&count));
  if (count == 0)
    {
      snprintf (err, len, "cudaGetDeviceCount: no CUDA-capable device is detected");
      return -1;
    }
  CK (cudaSetDevice (0));
  CK (cudaGetDeviceProperties (&prop, 0));
  CK (cudaFree (0)); /* creates the context, so memory figures exclude it */
  CK (cudaMemGetInfo (&free_b, &total));
  cu = (MpCuda *) calloc (1, sizeof (MpCuda));
  if (cu == NULL)
    {
      snprintf (err, len, "out of host memory");
      return -1;
    }
  snprintf (cu->name, sizeof cu->name, "%.200s (sm_%d%d, %zu MiB)", prop.name, prop.major,
            prop.minor, total >> 20);
  cu->n_sms = prop.multiProcessorCount;
  cu->free_at_open = free_b;
  *out = cu;
  return 0;
}

extern "C" void
mp_cuda_close (MpCuda *cu)
{
  if (cu == NULL)
    return;
  for (uint32_t i = 0; i < cu->n_steps; i++)
    cudaEventDestroy (cu->events[i]);
  for (uint32_t s = 0; s < cu->n_streams; s++)
    cudaStreamDestroy (cu->streams[s]);
  cudaFree (cu->buf[0]); /* buf[2], the workspace, lies inside it */
  cudaFree (cu->buf[1]);
  cudaFree (cu->checks);
  free (cu->events);
  free (cu->streams);
  free (cu->regions);
  free (cu);
}

extern "C" const char *
mp_cuda_device_name (const MpCuda *cu)
{
  return cu->name;
}

extern "C" int
mp_cuda_setup (MpCuda *cu, const uint64_t sizes[3], const MpCudaRegion *regions,
               uint32_t n_regions, uint32_t n_streams, uint32_t n_steps, uint64_t *arena_taken,
               uint64_t *all_taken, char *err, size_t len)
{
  size_t   free0 = 0, free1 = 0, free2 = 0, total = 0;
  uint64_t ws_at = (sizes[0] + 255) / 256 * 256;
  uint64_t planned = ws_at + sizes[2];

  CK (cudaMemGetInfo (&free0, &total));
  if (planned + sizes[1] > free0)
    {
      snprintf (err, len, "the plan needs %llu bytes of device memory (arena and workspace %llu, "
                "inputs and params %llu) but only %zu bytes are free",
                (unsigned long long) (planned + sizes[1]), (unsigned long long) planned,
                (unsigned long long) sizes[1], free0);
      return MP_CUDA_NO_MEMORY;
    }
  /* the arena (and the workspace after it) is one allocation, as a runtime would make it */
  CK (cudaMalloc ((void **) &cu->buf[0], planned ? planned : 1));
  CK (cudaMemGetInfo (&free1, &total));
  /* zeros are no tensor's data: nothing left by an earlier run passes a check */
  CK (cudaMemset (cu->buf[0], 0, planned ? planned : 1));
  cu->buf[2] = cu->buf[0] + ws_at;
  CK (cudaMalloc ((void **) &cu->buf[1], sizes[1] ? sizes[1] : 1));
  CK (cudaMalloc ((void **) &cu->checks, sizeof (MpCudaCheck) * (n_regions ? n_regions : 1)));
  CK (cudaMemGetInfo (&free2, &total));
  *arena_taken = free0 - free1;
  *all_taken = cu->free_at_open - free2;

  cu->regions = (MpCudaRegion *) malloc (sizeof (MpCudaRegion) * (n_regions ? n_regions : 1));
  cu->streams = (cudaStream_t *) calloc (n_streams ? n_streams : 1, sizeof (cudaStream_t));
  cu->events = (cudaEvent_t *) calloc (n_steps ? n_steps : 1, sizeof (cudaEvent_t));
  if (!cu->regions || !cu->streams || !cu->events)
    {
      snprintf (err, len, "out of host memory");
      return -1;
    }
  memcpy (cu->regions, regions, sizeof (MpCudaRegion) * n_regions);
  cu->n_regions = n_regions;
  for (; cu->n_streams < n_streams; cu->n_streams++)
    CK (cudaStreamCreateWithFlags (&cu->streams[cu->n_streams], cudaStreamNonBlocking));
  for (; cu->n_steps < n_steps; cu->n_steps++)
    CK (cudaEventCreateWithFlags (&cu->events[cu->n_steps], cudaEventDisableTiming));
  return 0;
}

extern "C" int
mp_cuda_reset_checks (MpCuda *cu, char *err, size_t len)
{
  CK (cudaMemset (cu->checks, 0xff, sizeof (MpCudaCheck) * cu->n_regions));
  CK (cudaDeviceSynchronize ());
  return 0;
}

static uint8_t *
root_of (MpCuda *cu, const MpCudaRegion *r)
{
  return cu->buf[r->buffer] + r->base;
}

extern "C" int
mp_cuda_fill (MpCuda *cu, uint32_t stream, uint32_t region, char *err, size_t len)
{
  const MpCudaRegion *r = &cu->regions[region];
  uint8_t            *root = root_of (cu, r);

  if (r->hi <= r->lo)
    return 0;
  k_fill<<<blocks_for (cu, r->lo, r->hi), THREADS, 0, cu->streams[stream]>>> (
    root, r->tag, r->lo, r->hi, ((uintptr_t) root & 15) == 0);
  CK_LAUNCH ("k_fill");
  return 0;
}

extern "C" int
mp_cuda_check (MpCuda *cu, uint32_t stream, uint32_t region, char *err, size_t len)
{
  const MpCudaRegion *r = &cu->regions[region];
  uint8_t            *root = root_of (cu, r);

  if (r->hi <= r->lo)
    return 0;
  k_check<<<blocks_for (cu, r->lo, r->hi), THREADS, 0, cu->streams[stream]>>> (
    root, r->tag, r->lo, r->hi, ((uintptr_t) root & 15) == 0, &cu->checks[region]);
  CK_LAUNCH ("k_check");
  k_capture<<<1, 1, 0, cu->streams[stream]>>> (root, r->lo, r->hi, &cu->checks[region]);
  CK_LAUNCH ("k_capture");
  return 0;
}

extern "C" int
mp_cuda_wait (MpCuda *cu, uint32_t stream, uint32_t step, char *err, size_t len)
{
  CK (cudaStreamWaitEvent (cu->streams[stream], cu->events[step], 0));
  return 0;
}

extern "C" int
mp_cuda_record (MpCuda *cu, uint32_t stream, uint32_t step, char *err, size_t len)
{
  CK (cudaEventRecord (cu->events[step], cu->streams[stream]));
  return 0;
}

extern "C" int
mp_cuda_delay (MpCuda *cu, uint32_t stream, uint32_t us, char *err, size_t len)
{
  k_delay<<<1, 1, 0, cu->streams[stream]>>> (us);
  CK_LAUNCH ("k_delay");
  return 0;
}

extern "C" int
mp_cuda_sync (MpCuda *cu, char *err, size_t len)
{
  (void) cu;
  CK (cudaDeviceSynchronize ());
  return 0;
}

extern "C" int
mp_cuda_read_checks (MpCuda *cu, MpCudaCheck *out, char *err, size_t len)
{
  CK (cudaMemcpy (out, cu->checks, sizeof (MpCudaCheck) * cu->n_regions,
                  cudaMemcpyDeviceToHost));
  return 0;
}

static int
replay_malloc (const MpCudaReplay *ev, uint32_t n, void **ptr, uint64_t *peak, char *err,
               size_t len)
{
  size_t free0 = 0, free_now = 0, total = 0;

  CK (cudaMemGetInfo (&free0, &total));
  *peak = 0;
  for (uint32_t i = 0; i < n; i++)
    {
      if (ev[i].alloc)
        {
          CK (cudaMalloc (&ptr[ev[i].tensor], ev[i].bytes ? ev[i].bytes : 1));
          /* sample after the last allocation of a run of allocations */
          if (i + 1 == n || !ev[i + 1].alloc)
            {
              CK (cudaMemGetInfo (&free_now, &total));
              if (free0 > free_now && free0 - free_now > *peak)
                *peak = free0 - free_now;
            }
        }
      else
        {
          CK (cudaFree (ptr[ev[i].tensor]));
          ptr[ev[i].tensor] = NULL;
        }
    }
  return 0;
}

static int
replay_pool (MpCuda *cu, const MpCudaReplay *ev, uint32_t n, void **ptr, uint64_t *reserved,
             uint64_t *used, char *err, size_t len)
{
  cudaMemPoolProps props;
  cudaMemPool_t    pool;
  cudaStream_t     stream;
  uint64_t         keep = UINT64_MAX, zero = 0;
  int              ok = 0;

  memset (&props, 0, sizeof props);
  props.allocType = cudaMemAllocationTypePinned;
  props.handleTypes = cudaMemHandleTypeNone;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = cu->device;
  CK (cudaMemPoolCreate (&pool, &props));
  CK (cudaMemPoolSetAttribute (pool, cudaMemPoolAttrReleaseThreshold, &keep));
  CK (cudaMemPoolSetAttribute (pool, cudaMemPoolAttrReservedMemHigh, &zero));
  CK (cudaMemPoolSetAttribute (pool, cudaMemPoolAttrUsedMemHigh, &zero));
  CK (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  for (uint32_t i = 0; i < n && ok == 0; i++)
    {
      cudaError_t e = ev[i].alloc
                        ? cudaMallocFromPoolAsync (&ptr[ev[i].tensor],
                                                   ev[i].bytes ? ev[i].bytes : 1, pool, stream)
                        : cudaFreeAsync (ptr[ev[i].tensor], stream);
      if (e != cudaSuccess)
        {
          snprintf (err, len, "%s: %s",
                    ev[i].alloc ? "cudaMallocFromPoolAsync" : "cudaFreeAsync",
                    cudaGetErrorString (e));
          ok = -1;
        }
    }
  CK (cudaStreamSynchronize (stream));
  CK (cudaMemPoolGetAttribute (pool, cudaMemPoolAttrReservedMemHigh, reserved));
  CK (cudaMemPoolGetAttribute (pool, cudaMemPoolAttrUsedMemHigh, used));
  CK (cudaStreamDestroy (stream));
  CK (cudaMemPoolDestroy (pool));
  return ok;
}

extern "C" int
mp_cuda_replay (MpCuda *cu, int pool, const MpCudaReplay *events, uint32_t n_events,
                uint32_t n_tensors, uint64_t *peak_a, uint64_t *peak_b, char *err, size_t len)
{
  void **ptr = (void **) calloc (n_tensors ? n_tensors : 1, sizeof (void *));
  int    rc;

  if (ptr == NULL)
    {
      snprintf (err, len, "out of host memory");
      return -1;
    }
  *peak_a = *peak_b = 0;
  rc = pool ? replay_pool (cu, events, n_events, ptr, peak_a, peak_b, err, len)
            : replay_malloc (events, n_events, ptr, peak_a, err, len);
  if (!pool)
    for (uint32_t t = 0; t < n_tensors; t++)
      if (ptr[t])
        cudaFree (ptr[t]);
  free (ptr);
  return rc;
}
