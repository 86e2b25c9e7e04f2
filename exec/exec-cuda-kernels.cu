/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec-cuda-figures.h"
#include "exec-cuda-kernels.h"
#include "exec-pattern.h"

#define THREADS 256
#define MAX_BLOCKS 8192

struct MpCuda
{
  int           device;
  char          name[320];
  int           n_sms;
  uint64_t      peak_bandwidth;
  uint64_t      free_at_open;
  uint8_t      *buf[3];
  uint64_t      size[3];
  uint64_t      peak_taken;   /* most device memory in use since open, cudaMemGetInfo */
  cudaGraph_t   graph;        /* the iteration being captured */
  uint8_t      *scratch;      /* the warm-up's region */
  MpCudaCheck  *checks;       /* device, one per region, plus the warm-up's */
  unsigned     *done;         /* device, blocks of a check that finished, per region */
  uint32_t      launches;     /* since the last mp_cuda_reset_checks */
  cudaEvent_t   t_start, t_stop;  /* around the graph launch */
  cudaEvent_t  *joins;        /* per stream, for the timed span */
  MpCudaRegion *regions;      /* host copy */
  uint32_t      n_regions;
  cudaStream_t *streams;
  uint32_t      n_streams;
  cudaEvent_t  *events;       /* one per step, recorded when it completes */
  uint32_t      n_steps;
};

/* Every call is checked where it is made, named without its arguments; a
 * failure also clears CUDA's last-error state, so that no later launch is
 * blamed for it. */
#define CK_AS(call, oom)                                                                 \
  do                                                                                     \
    {                                                                                    \
      cudaError_t e_ = (call);                                                           \
      if (e_ != cudaSuccess)                                                             \
        {                                                                                \
          (void) cudaGetLastError ();                                                    \
          snprintf (err, len, "%.*s: %s", mp_cuda_call_name_length (#call), #call,       \
                    cudaGetErrorString (e_));                                            \
          return (oom) && e_ == cudaErrorMemoryAllocation ? MP_CUDA_NO_MEMORY : -1;      \
        }                                                                                \
    }                                                                                    \
  while (0)
#define CK(call)       CK_AS (call, 0)
/* an allocation that fails for lack of memory means "does not fit" */
#define CK_ALLOC(call) CK_AS (call, 1)

/* Checked before a launch (an earlier failure is named as such) and after
 * it (the launch's own). */
#define CK_BEFORE(what)                                                                  \
  do                                                                                     \
    {                                                                                    \
      cudaError_t e_ = cudaGetLastError ();                                              \
      if (e_ != cudaSuccess)                                                             \
        {                                                                                \
          snprintf (err, len, "before launching %s, an earlier CUDA call failed: %s",    \
                    what, cudaGetErrorString (e_));                                      \
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
      cu->launches++;                                                                    \
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

/* The check, with the capture of the bytes around the first bad byte
 * folded in: the last block to finish reads the minimum all blocks agreed
 * on (the usual threadfence reduction), so a clean check costs one launch.
 * The window is read from the buffer (buf, size bytes), not the root, so
 * the host can name an overwriter at any offset. */
__global__ void
k_check (const uint8_t *buf, uint64_t size, uint64_t base, uint32_t tag, uint64_t lo,
         uint64_t hi, int aligned, MpCudaCheck *check, unsigned *done)
{
  const uint8_t *root = buf + base;
  uint64_t       stride = (uint64_t) gridDim.x * blockDim.x;
  __shared__ bool last;

  for (uint64_t c = (lo >> 4) + (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;
       c < (hi + 15) >> 4; c += stride)
    {
      uint64_t bad = mp_pattern_check_chunk (root, tag, lo, hi, aligned, c);

      if (bad != UINT64_MAX)
        atomicMin ((unsigned long long *) &check->bad, (unsigned long long) bad);
    }
  __threadfence ();
  __syncthreads ();
  if (threadIdx.x == 0)
    last = atomicAdd (done, 1u) == gridDim.x - 1;
  __syncthreads ();
  if (last && threadIdx.x == 0)
    {
      uint64_t bad = *(volatile uint64_t *) &check->bad;

      if (bad != UINT64_MAX)
        mp_pattern_window (buf, size, base + bad, check->window);
      *done = 0;
    }
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
mp_cuda_open (MpCuda **out, int device, char *err, size_t len)
{
  int            count = 0, driver = 0, clock_khz = 0, bus_bits = 0;
  MpCuda        *cu;
  cudaDeviceProp prop;
  size_t         free_b = 0, total = 0;
  cudaError_t    e;

  *out = NULL;
  /* with no driver the runtime only says its version is "insufficient" */
  if (cudaDriverGetVersion (&driver) != cudaSuccess || driver == 0)
    {
      (void) cudaGetLastError ();
      snprintf (err, len, "%s", mp_cuda_unavailable_words (0, 0));
      return -1;
    }
  e = cudaGetDeviceCount (&count);
  if (e != cudaSuccess || count == 0)
    {
      (void) cudaGetLastError ();
      snprintf (err, len, "%s (driver %d.%d%s%s)", mp_cuda_unavailable_words (driver, 0),
                driver / 1000, driver % 1000 / 10, e != cudaSuccess ? ": " : "",
                e != cudaSuccess ? cudaGetErrorString (e) : "");
      return -1;
    }
  if (device < 0)
    CK (cudaGetDevice (&device));
  if (device >= count)
    {
      snprintf (err, len, "no CUDA device %d: this machine has %d (0 to %d)", device, count,
                count - 1);
      return -1;
    }
  CK (cudaSetDevice (device));
  CK (cudaGetDeviceProperties (&prop, device));
  CK (cudaDeviceGetAttribute (&clock_khz, cudaDevAttrMemoryClockRate, device));
  CK (cudaDeviceGetAttribute (&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device));
  CK (cudaFree (0)); /* creates the context, so memory figures exclude it */
  CK (cudaMemGetInfo (&free_b, &total));
  cu = (MpCuda *) calloc (1, sizeof (MpCuda));
  if (cu == NULL)
    {
      snprintf (err, len, "out of host memory");
      return -1;
    }
  snprintf (cu->name, sizeof cu->name, "%.200s (device %d, sm_%d%d, %zu MiB, driver %d.%d)",
            prop.name, device, prop.major, prop.minor, total >> 20, driver / 1000,
            driver % 1000 / 10);
  cu->device = device;
  cu->n_sms = prop.multiProcessorCount;
  cu->peak_bandwidth = mp_cuda_peak_bandwidth (clock_khz, bus_bits);
  cu->free_at_open = free_b;
  *out = cu;
  return 0;
}

extern "C" int
mp_cuda_l2_bytes (int device, uint64_t *bytes, char *err, size_t len)
{
  int driver = 0, l2 = 0;

  *bytes = 0;
  if (cudaDriverGetVersion (&driver) != cudaSuccess || driver == 0)
    {
      (void) cudaGetLastError ();
      snprintf (err, len, "%s", mp_cuda_unavailable_words (0, 0));
      return -1;
    }
  if (device < 0)
    CK (cudaGetDevice (&device));
  CK (cudaDeviceGetAttribute (&l2, cudaDevAttrL2CacheSize, device));
  *bytes = l2 > 0 ? (uint64_t) l2 : 0;
  return 0;
}

/* Gives back the plan's buffers (the streams and events stay). */
extern "C" void
mp_cuda_release (MpCuda *cu)
{
  cudaFree (cu->buf[0]); /* buf[2], the workspace, lies inside it */
  cudaFree (cu->buf[1]);
  if (cu->graph)
    cudaGraphDestroy (cu->graph);
  cu->graph = NULL;
  cudaFree (cu->scratch);
  cudaFree (cu->checks);
  cudaFree (cu->done);
  (void) cudaGetLastError ();
  cu->buf[0] = cu->buf[1] = cu->buf[2] = cu->scratch = NULL;
  cu->checks = NULL;
  cu->done = NULL;
}

extern "C" void
mp_cuda_close (MpCuda *cu)
{
  if (cu == NULL)
    return;
  mp_cuda_release (cu);
  for (uint32_t i = 0; i < cu->n_steps; i++)
    cudaEventDestroy (cu->events[i]);
  for (uint32_t s = 0; s < cu->n_streams; s++)
    {
      cudaEventDestroy (cu->joins[s]);
      cudaStreamDestroy (cu->streams[s]);
    }
  if (cu->t_start)
    cudaEventDestroy (cu->t_start);
  if (cu->t_stop)
    cudaEventDestroy (cu->t_stop);
  (void) cudaGetLastError ();
  free (cu->events);
  free (cu->joins);
  free (cu->streams);
  free (cu->regions);
  free (cu);
}

extern "C" uint64_t
mp_cuda_peak (const MpCuda *cu)
{
  return cu->peak_bandwidth;
}

extern "C" uint32_t
mp_cuda_launches (const MpCuda *cu)
{
  return cu->launches;
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
  CK_ALLOC (cudaMalloc ((void **) &cu->buf[0], planned ? planned : 1));
  CK (cudaMemGetInfo (&free1, &total));
  /* zeros are no tensor's data: nothing left by an earlier run passes a check */
  CK (cudaMemset (cu->buf[0], 0, planned ? planned : 1));
  cu->buf[2] = cu->buf[0] + ws_at;
  CK_ALLOC (cudaMalloc ((void **) &cu->buf[1], sizes[1] ? sizes[1] : 1));
  CK_ALLOC (cudaMalloc ((void **) &cu->checks, sizeof (MpCudaCheck) * (n_regions + 1)));
  /* every slot clean, the warm-up's too: k_check reads its slot's minimum */
  CK (cudaMemset (cu->checks, 0xff, sizeof (MpCudaCheck) * (n_regions + 1)));
  CK_ALLOC (cudaMalloc ((void **) &cu->done, sizeof (unsigned) * (n_regions + 1)));
  CK (cudaMemset (cu->done, 0, sizeof (unsigned) * (n_regions + 1)));
  CK_ALLOC (cudaMalloc ((void **) &cu->scratch, 64));
  CK (cudaMemGetInfo (&free2, &total));
  *arena_taken = mp_cuda_taken (free0, free1);
  *all_taken = mp_cuda_taken (cu->free_at_open, free2);
  cu->peak_taken = *all_taken;
  cu->size[0] = sizes[0];
  cu->size[1] = sizes[1];
  cu->size[2] = sizes[2];

  cu->regions = (MpCudaRegion *) malloc (sizeof (MpCudaRegion) * (n_regions ? n_regions : 1));
  cu->streams = (cudaStream_t *) calloc (n_streams ? n_streams : 1, sizeof (cudaStream_t));
  cu->joins = (cudaEvent_t *) calloc (n_streams ? n_streams : 1, sizeof (cudaEvent_t));
  cu->events = (cudaEvent_t *) calloc (n_steps ? n_steps : 1, sizeof (cudaEvent_t));
  if (!cu->regions || !cu->streams || !cu->joins || !cu->events)
    {
      snprintf (err, len, "out of host memory");
      return -1;
    }
  memcpy (cu->regions, regions, sizeof (MpCudaRegion) * n_regions);
  cu->n_regions = n_regions;
  for (; cu->n_streams < n_streams; cu->n_streams++)
    {
      CK (cudaStreamCreateWithFlags (&cu->streams[cu->n_streams], cudaStreamNonBlocking));
      CK (cudaEventCreateWithFlags (&cu->joins[cu->n_streams], cudaEventDisableTiming));
    }
  for (; cu->n_steps < n_steps; cu->n_steps++)
    CK (cudaEventCreateWithFlags (&cu->events[cu->n_steps], cudaEventDisableTiming));
  CK (cudaEventCreate (&cu->t_start));
  CK (cudaEventCreate (&cu->t_stop));

  /* warm-up: the first launch of each kernel loads the module; keep that
   * out of the timed iterations */
  CK_BEFORE ("the warm-up");
  k_fill<<<1, 4, 0, cu->streams[0]>>> (cu->scratch, 1, 0, 64, 1);
  CK_LAUNCH ("k_fill (warm-up)");
  k_check<<<1, 4, 0, cu->streams[0]>>> (cu->scratch, 64, 0, 1, 0, 64, 1,
                                        &cu->checks[n_regions], &cu->done[n_regions]);
  CK_LAUNCH ("k_check (warm-up)");
  k_delay<<<1, 1, 0, cu->streams[0]>>> (0);
  CK_LAUNCH ("k_delay (warm-up)");
  CK (cudaDeviceSynchronize ());
  return 0;
}

extern "C" int
mp_cuda_reset_checks (MpCuda *cu, char *err, size_t len)
{
  CK (cudaMemset (cu->checks, 0xff, sizeof (MpCudaCheck) * (cu->n_regions + 1)));
  CK (cudaDeviceSynchronize ());
  cu->launches = 0;
  return 0;
}

/* The iteration's work is captured, never run, until mp_cuda_capture_run:
 * the other streams fork from stream 0 and join it again through events,
 * which the capture turns into the graph's edges. */
extern "C" int
mp_cuda_capture_begin (MpCuda *cu, char *err, size_t len)
{
  CK (cudaStreamBeginCapture (cu->streams[0], cudaStreamCaptureModeThreadLocal));
  return 0;
}

extern "C" int
mp_cuda_fan_out (MpCuda *cu, char *err, size_t len)
{
  CK (cudaEventRecord (cu->joins[0], cu->streams[0]));
  for (uint32_t s = 1; s < cu->n_streams; s++)
    CK (cudaStreamWaitEvent (cu->streams[s], cu->joins[0], 0));
  return 0;
}

extern "C" int
mp_cuda_join (MpCuda *cu, char *err, size_t len)
{
  for (uint32_t s = 1; s < cu->n_streams; s++)
    {
      CK (cudaEventRecord (cu->joins[s], cu->streams[s]));
      CK (cudaStreamWaitEvent (cu->streams[0], cu->joins[s], 0));
    }
  return 0;
}

extern "C" void
mp_cuda_capture_abort (MpCuda *cu)
{
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;

  if (cudaStreamIsCapturing (cu->streams[0], &status) == cudaSuccess &&
      status != cudaStreamCaptureStatusNone)
    {
      cudaGraph_t g = NULL;

      if (cudaStreamEndCapture (cu->streams[0], &g) == cudaSuccess && g)
        cudaGraphDestroy (g);
    }
  (void) cudaGetLastError ();
}

static int
launch_timed (MpCuda *cu, cudaGraphExec_t exec, double *seconds, char *err, size_t len)
{
  float  ms = 0;
  size_t free_b = 0, total = 0;

  CK (cudaEventRecord (cu->t_start, cu->streams[0]));
  CK (cudaGraphLaunch (exec, cu->streams[0]));
  CK (cudaEventRecord (cu->t_stop, cu->streams[0]));
  CK (cudaEventSynchronize (cu->t_stop));
  CK (cudaEventElapsedTime (&ms, cu->t_start, cu->t_stop));
  *seconds = ms / 1e3;
  /* the graph is still instantiated: the memory it holds counts */
  CK (cudaMemGetInfo (&free_b, &total));
  if (mp_cuda_taken (cu->free_at_open, free_b) > cu->peak_taken)
    cu->peak_taken = mp_cuda_taken (cu->free_at_open, free_b);
  return 0;
}

extern "C" int
mp_cuda_capture_run (MpCuda *cu, double *seconds, char *err, size_t len)
{
  cudaGraphExec_t exec = NULL;
  int             rc;

  CK (cudaStreamEndCapture (cu->streams[0], &cu->graph));
  CK (cudaGraphInstantiate (&exec, cu->graph, 0));
  rc = launch_timed (cu, exec, seconds, err, len);
  cudaGraphExecDestroy (exec);
  cudaGraphDestroy (cu->graph);
  cu->graph = NULL;
  return rc;
}

extern "C" uint64_t
mp_cuda_peak_taken (const MpCuda *cu)
{
  return cu->peak_taken;
}

static uint8_t *
root_of (MpCuda *cu, const MpCudaRegion *r)
{
  return cu->buf[r->buffer] + r->base;
}

extern "C" int
mp_cuda_fill (MpCuda *cu, uint32_t stream, uint32_t region, uint32_t tag, char *err, size_t len)
{
  const MpCudaRegion *r = &cu->regions[region];
  uint8_t            *root = root_of (cu, r);

  if (r->hi <= r->lo)
    return 0;
  CK_BEFORE ("k_fill");
  k_fill<<<blocks_for (cu, r->lo, r->hi), THREADS, 0, cu->streams[stream]>>> (
    root, tag, r->lo, r->hi, ((uintptr_t) root & 15) == 0);
  CK_LAUNCH ("k_fill");
  return 0;
}

extern "C" int
mp_cuda_check (MpCuda *cu, uint32_t stream, uint32_t region, uint32_t tag, char *err,
               size_t len)
{
  const MpCudaRegion *r = &cu->regions[region];
  uint8_t            *root = root_of (cu, r);

  if (r->hi <= r->lo)
    return 0;
  CK_BEFORE ("k_check");
  k_check<<<blocks_for (cu, r->lo, r->hi), THREADS, 0, cu->streams[stream]>>> (
    cu->buf[r->buffer], cu->size[r->buffer], r->base, tag, r->lo, r->hi,
    ((uintptr_t) root & 15) == 0, &cu->checks[region], &cu->done[region]);
  CK_LAUNCH ("k_check");
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
  CK_BEFORE ("k_delay");
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

/* cudaMalloc/cudaFree in replay order; peak: the most device memory in
 * use (cudaMemGetInfo, clamped). *at: the event that failed. */
static int
replay_malloc (const MpCudaReplay *ev, uint32_t n, void **ptr, uint64_t *peak, uint32_t *at,
               char *err, size_t len)
{
  size_t free0 = 0, free_now = 0, total = 0;

  CK (cudaMemGetInfo (&free0, &total));
  *peak = 0;
  for (*at = 0; *at < n; (*at)++)
    {
      const MpCudaReplay *e = &ev[*at];

      if (e->alloc)
        {
          CK_ALLOC (cudaMalloc (&ptr[e->tensor], e->bytes ? e->bytes : 1));
          /* sample after the last allocation of a run of allocations */
          if (*at + 1 == n || !ev[*at + 1].alloc)
            {
              CK (cudaMemGetInfo (&free_now, &total));
              if (mp_cuda_taken (free0, free_now) > *peak)
                *peak = mp_cuda_taken (free0, free_now);
            }
        }
      else
        {
          CK (cudaFree (ptr[e->tensor]));
          ptr[e->tensor] = NULL;
        }
    }
  return 0;
}

/* cudaMallocFromPoolAsync/cudaFreeAsync, each on the stream of the op that
 * makes the tensor, on a pool that keeps its memory: memory freed on one
 * stream is not handed to another without an event between them, as in a
 * real multi-stream program. */
static int
replay_pool_events (const MpCudaReplay *ev, uint32_t n, void **ptr, cudaMemPool_t pool,
                    cudaStream_t *streams, uint32_t *at, char *err, size_t len)
{
  for (*at = 0; *at < n; (*at)++)
    {
      const MpCudaReplay *e = &ev[*at];

      if (e->alloc)
        CK_ALLOC (cudaMallocFromPoolAsync (&ptr[e->tensor], e->bytes ? e->bytes : 1, pool,
                                           streams[e->stream]));
      else
        {
          CK (cudaFreeAsync (ptr[e->tensor], streams[e->stream]));
          ptr[e->tensor] = NULL;
        }
    }
  return 0;
}

static int
replay_pool (MpCuda *cu, const MpCudaReplay *ev, uint32_t n, void **ptr, uint64_t *reserved,
             uint64_t *used, uint32_t *at, char *err, size_t len)
{
  cudaMemPoolProps props;
  cudaMemPool_t    pool;
  uint64_t         keep = UINT64_MAX, zero = 0;
  int              rc;

  memset (&props, 0, sizeof props);
  props.allocType = cudaMemAllocationTypePinned;
  props.handleTypes = cudaMemHandleTypeNone;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = cu->device;
  CK (cudaMemPoolCreate (&pool, &props));
  CK (cudaMemPoolSetAttribute (pool, cudaMemPoolAttrReleaseThreshold, &keep));
  CK (cudaMemPoolSetAttribute (pool, cudaMemPoolAttrReservedMemHigh, &zero));
  CK (cudaMemPoolSetAttribute (pool, cudaMemPoolAttrUsedMemHigh, &zero));
  rc = replay_pool_events (ev, n, ptr, pool, cu->streams, at, err, len);
  /* what is still allocated after a failure goes back before the pool */
  for (uint32_t i = 0; rc != 0 && i < n; i++)
    if (ev[i].alloc && ptr[ev[i].tensor])
      {
        cudaFreeAsync (ptr[ev[i].tensor], cu->streams[ev[i].stream]);
        ptr[ev[i].tensor] = NULL;
      }
  CK (cudaDeviceSynchronize ());
  CK (cudaMemPoolGetAttribute (pool, cudaMemPoolAttrReservedMemHigh, reserved));
  CK (cudaMemPoolGetAttribute (pool, cudaMemPoolAttrUsedMemHigh, used));
  CK (cudaMemPoolDestroy (pool));
  return rc;
}

extern "C" int
mp_cuda_replay (MpCuda *cu, int pool, const MpCudaReplay *events, uint32_t n_events,
                uint32_t n_tensors, uint64_t *peak_a, uint64_t *peak_b, uint32_t *failed_at,
                char *err, size_t len)
{
  void **ptr = (void **) calloc (n_tensors ? n_tensors : 1, sizeof (void *));
  int    rc;

  if (ptr == NULL)
    {
      snprintf (err, len, "out of host memory");
      return -1;
    }
  *peak_a = *peak_b = 0;
  rc = pool ? replay_pool (cu, events, n_events, ptr, peak_a, peak_b, failed_at, err, len)
            : replay_malloc (events, n_events, ptr, peak_a, failed_at, err, len);
  if (!pool)
    for (uint32_t t = 0; t < n_tensors; t++)
      if (ptr[t])
        cudaFree (ptr[t]);
  (void) cudaGetLastError ();
  free (ptr);
  return rc;
}
