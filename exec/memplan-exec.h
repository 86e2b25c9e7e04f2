/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>
#include "memplan-analysis.h"

G_BEGIN_DECLS

#define MP_EXEC_ERROR (mp_exec_error_quark ())

typedef enum
{
  MP_EXEC_ERROR_UNAVAILABLE, /* the backend cannot run here (no driver, no device) */
  MP_EXEC_ERROR_NO_MEMORY,   /* the plan does not fit in the memory that is free */
  MP_EXEC_ERROR_INVALID,     /* the plan does not fit the graph */
  MP_EXEC_ERROR_FAILED,      /* a backend call failed; the message names it */
  MP_EXEC_ERROR_CANCELLED,
} MpExecError;

typedef enum
{
  MP_EXEC_BACKEND_AUTO,
  MP_EXEC_BACKEND_CPU,
  MP_EXEC_BACKEND_CUDA,
} MpExecBackendKind;

typedef struct
{
  MpExecBackendKind backend;
  gboolean sequential;       /* one stream in program order, even for a multi-stream graph */
  /* 0: one run, or with concurrent streams one free run plus one staggered
   * run per stream (each stream in turn lets the others finish every
   * parallel group first), which exposes every race between two streams */
  guint    iterations;
  gboolean no_stagger;       /* every iteration free-running */
  guint    max_parallel_ops; /* ops per parallel group of the concurrent schedule, 0 = unlimited */
  guint    delay_us;         /* extra delay before each op of the staggered (or, without
                              * staggering, a rotating) stream, to widen races */
  gboolean baselines;        /* also replay the program with dynamic allocators, after the
                              * plan's run and with its arena freed */
  gboolean pick_device;      /* run on CUDA device number device, else on the current one */
  guint    device;
} MpExecOptions;

/* One memory figure of a dynamic allocator replaying the same program;
 * a replay that failed (out of memory, say) keeps its row, with why. */
typedef struct
{
  char   *label;
  guint64 bytes;
  char   *error;
} MpExecFigure;

typedef struct
{
  char    *backend;       /* "cpu" or "cuda" */
  char    *device;        /* e.g. "CPU, 2 threads" or the GPU's name */
  char    *note;          /* why auto fell back to the CPU, or NULL */
  char    *planner;
  gboolean concurrent;    /* streams ran concurrently */
  gboolean group_order;   /* the plan is for the parallel schedule: run one op at a time,
                           * ops went group by group */
  guint    n_streams;
  guint    n_workers;     /* CPU threads (or CUDA streams) that ran ops */
  guint    n_groups;      /* parallel groups of the concurrent schedule */
  guint    iterations;

  /* corruption */
  guint    n_corrupted;   /* distinct tensors (and workspaces) found corrupted */
  char    *first_corruption; /* one line naming tensor, op and overwriter, or NULL */
  gint     first_tensor;  /* graph tensor, -1 for none or a workspace */
  gint     first_op;      /* the op that found it, -1 for the final check */
  gint     first_overwriter; /* graph tensor whose data was found, -1 when unknown */

  /* traffic, over the free-running iterations (no stream held back or delayed) */
  guint64  bytes_moved;   /* read + written */
  gdouble  seconds;       /* CUDA events around the launch of the iteration's CUDA graph
                           * (kernels only, after a warm-up), or the CPU's wall clock */
  guint    timed_iterations;
  guint64  peak_bandwidth; /* bytes/s the device can move (memory clock × bus), 0 unknown */
  guint    launches;      /* kernel launches per iteration (CUDA), 0 on the CPU */

  /* memory */
  guint64  planned;       /* arena + workspace (one per concurrently running stream) */
  guint64  arena;         /* the plan's arena */
  guint64  workspace;     /* one workspace slot */
  guint    n_ws_slots;
  guint64  measured;      /* what the arena really took: resident pages / device memory */
  guint64  process_peak;  /* the process's high-water mark during the run (0 if unknown) */
  GArray  *baselines;     /* MpExecFigure, dynamic allocators on the same program */
} MpExecResult;

GQuark        mp_exec_error_quark       (void);
gboolean      mp_exec_backend_from_string (const char *str, MpExecBackendKind *kind);

/* Runs the graph's ops inside one arena laid out by plan, checking every
 * input before each op and writing every output whole, so that any overlap
 * of live tensors shows as corruption. A corrupted run is a result, not an
 * error; errors are for plans that do not fit the graph or the machine and
 * for backend failures. */
MpExecResult *mp_exec_run               (const MpGraph       *graph,
                                         const MpLifetimes   *lifetimes,
                                         const MpPlan        *plan,
                                         const MpExecOptions *options,
                                         GCancellable        *cancellable,
                                         GError             **error);
void          mp_exec_result_free       (MpExecResult *result);

/* Whether the CUDA backend can run here; reason says why not ("no CUDA
 * driver", "no CUDA device", ...). */
gboolean      mp_exec_cuda_available    (char **reason);

/* The note of a run that fell back to the CPU, printed once. */
#define MP_EXEC_NO_DEVICE_NOTE "no CUDA device: running on the CPU backend"

/* Breaks a plan on purpose: moves tensor name (or, when NULL, the first
 * tensor that is written while another is still to be read) onto a live
 * tensor, so that running it shows detection at work. victim_out names the
 * tensor it now overlaps. */
gboolean      mp_exec_corrupt_plan      (const MpGraph *graph,
                                         MpPlan        *plan,
                                         const char    *name,
                                         char         **moved_out,
                                         char         **victim_out,
                                         GError       **error);

/* The memory figures of PyTorch's CUDA caching allocator (block rounding,
 * 2 MiB / 20 MiB segments, best fit with splitting, per-stream pools, no
 * release) replaying the records in step order; one_stream: every tensor
 * on one stream, as a run one op at a time makes them, else on its
 * producer's. */
void          mp_exec_caching_sim       (const MpGraph     *graph,
                                         const MpLifetimes *lifetimes,
                                         gboolean           one_stream,
                                         guint64           *reserved_peak,
                                         guint64           *allocated_peak);

/* Benchmark mode: the last-level cache the data goes through (the GPU's
 * L2 for auto or cuda when a device is usable, else the CPU's L3; what
 * names it), and the graph's tensors, view offsets and workspaces scaled in
 * place by the smallest power of two that makes its median arena tensor at
 * least min_bytes, so that the bandwidth measured is memory's, not a
 * cache's. Returns the factor, 0 on error. */
guint64       mp_exec_cache_bytes       (MpExecBackendKind kind, gint device, char **what);
guint64       mp_exec_bench_scale       (MpGraph *graph, guint64 min_bytes, GError **error);

char         *mp_exec_result_to_json    (const MpGraph *graph, MpExecResult **results, guint n);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MpExecResult, mp_exec_result_free)

G_END_DECLS
