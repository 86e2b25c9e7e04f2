/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#if !defined (MP_EXEC_COMPILATION)
#error "this header is internal to the executor (exec/): include memplan-exec.h"
#endif

#include "memplan-exec.h"

G_BEGIN_DECLS

/* The buffers a program touches. Inputs and params live outside the arena. */
enum
{
  MP_EXEC_BUF_ARENA,
  MP_EXEC_BUF_HOST,      /* inputs and params, written once before the run */
  MP_EXEC_BUF_WORKSPACE, /* one slot of the shared workspace per concurrent stream */
  MP_EXEC_N_BUFS
};

#define MP_EXEC_SLOT_ALIGNMENT 256

/* A byte range [lo, hi) of one root tensor (or workspace) that starts at
 * byte base of a buffer; the pattern is the root's, so a view is checked and
 * written at its offset inside the root. */
typedef struct
{
  guint32 buffer;
  guint32 tag;
  guint64 base;
  guint64 lo;
  guint64 hi;
  guint   id;       /* pattern id: graph tensor + 1, or n_tensors + 1 + op for a workspace */
  guint   tensor;   /* the graph tensor named by the op (a view or a root) */
} MpExecRegion;

/* A backend fills one of these per check: the first bad byte (relative to
 * the root), or bad == G_MAXUINT64 when clean, and the buffer's bytes around
 * it (mp_pattern_window). */
typedef struct
{
  guint64 bad;
  guint8  window[16];
} MpExecCheck;

typedef struct
{
  guint stream;  /* dense stream index */
  guint count;   /* wait until that stream completed this many steps */
} MpExecWait;

/* A step that runs no op: with concurrent streams, the checks of the
 * tensors that die in a parallel group, run once every step of the group
 * completed and before any step of the next one starts. */
#define MP_EXEC_BARRIER G_MAXUINT

typedef struct
{
  guint op;           /* or MP_EXEC_BARRIER */
  guint stream;       /* dense index */
  guint group;        /* ordering key: the step's index when sequential; concurrent, 2 × the
                       * parallel group for its ops and 2 × group + 1 for its barrier */
  guint index_in_stream;
  guint first_check, n_checks;   /* inputs (and the ranges of views it writes), checked before
                                  * the op */
  guint first_write, n_writes;   /* outputs (and the workspace), written whole */
  guint first_post, n_post;      /* the workspace, checked after the op, and the tensors that
                                  * die here (one op at a time) or in the barrier's group */
  guint first_refill, n_refill;  /* after the posts: the bytes of tensors whose lifetime gap
                                  * ends here, written again (their space was another's) */
  guint first_wait, n_waits;     /* the other streams' earlier groups */
  guint first_yield, n_yield;    /* the other streams' steps of this group: a staggered
                                  * stream waits for them too */
} MpExecStep;

typedef struct
{
  const MpGraph *graph;
  guint64        size[MP_EXEC_N_BUFS];
  guint64        workspace;     /* one slot */
  guint          n_ws_slots;
  guint          n_streams;
  guint          n_groups;
  gboolean       concurrent;
  gboolean       group_order;   /* the plan's lifetimes are parallel groups: one at a time,
                                 * ops run group by group */
  MpExecStep    *steps;         /* in execution order: group, then program order */
  guint          n_steps;
  guint         *stream_steps;  /* per stream, its steps in order (offsets in stream_first) */
  guint         *stream_first;  /* n_streams + 1 */
  GArray        *regions;       /* MpExecRegion: checks, writes, posts, setup, final */
  GArray        *waits;         /* MpExecWait */
  guint          first_setup, n_setup;  /* written before the first op; those in the host
                                         * buffer only before the first iteration */
  guint          first_final, n_final;  /* outputs, checked after the last op */
  guint          n_ids;         /* pattern ids in use: 1 .. n_ids */
  guint64        bytes_per_iteration;   /* after the first, which also writes bytes_host */
  guint64        bytes_host;
} MpExecProgram;

MpExecProgram *mp_exec_program_new  (const MpGraph       *graph,
                                     const MpLifetimes   *lifetimes,
                                     const MpPlan        *plan,
                                     const MpExecOptions *options,
                                     GError             **error);
void           mp_exec_program_free (MpExecProgram *program);

/* Names the owner of a pattern id: a tensor or "workspace of op 'x'". */
char          *mp_exec_id_name      (const MpExecProgram *program, guint id);
/* The tag a region's data carries in iteration epoch (inputs and params in
 * the host buffer, written once, keep epoch 0's). */
guint32        mp_exec_tag          (const MpExecProgram *program, const MpExecRegion *region,
                                     guint epoch);
/* Whose data a failed check of region found: the pattern id of the region
 * written into the same buffer (any offset, any alignment) whose pattern
 * matches the most bytes of the window around the bad byte, in this
 * iteration or the one before; 0 when none matches. found_epoch tells
 * which. */
guint          mp_exec_identify     (const MpExecProgram *program, guint region,
                                     const MpExecCheck *check, guint epoch, guint *found_epoch);

/* CPU pattern routines (the CUDA kernels mirror them); size is the
 * buffer's, for the window around a bad byte. */
void           mp_exec_fill         (guint8 *buffer, const MpExecRegion *region);
void           mp_exec_verify       (const guint8 *buffer, guint64 size,
                                     const MpExecRegion *region, MpExecCheck *check);

/* What differs between backends: memory and launches. */
typedef struct _MpExecBackend MpExecBackend;
struct _MpExecBackend
{
  const char *name;
  /* Allocates the buffers; fills device, measured and process_peak. */
  gboolean (*prepare)   (MpExecBackend *self, const MpExecProgram *program,
                         MpExecResult *result, GError **error);
  /* One iteration (epoch, from 0): setup writes, every step on its
   * stream, final checks; checks[] has one slot per region (reset to clean
   * by the caller); inputs and params in the host buffer are written in the
   * first iteration only, since no op may write them. Before
   * each of its steps the stream slow (G_MAXUINT for none) waits for the
   * other streams' steps of the same group when stagger is set, then
   * delay_us more. */
  gboolean (*iterate)   (MpExecBackend *self, const MpExecProgram *program, guint epoch,
                         guint slow,
                         gboolean stagger, guint delay_us, MpExecCheck *checks,
                         gdouble *seconds, GError **error);
  /* After the iterations: measured, process_peak, launches, peak_bandwidth. */
  void     (*measure)   (MpExecBackend *self, const MpExecProgram *program, MpExecResult *result);
  /* Gives the plan's buffers back, so that the baselines have the memory. */
  void     (*release)   (MpExecBackend *self);
  /* Dynamic allocators replaying the program; appends MpExecFigures, a
   * failed replay as a row with its error. */
  void     (*baselines) (MpExecBackend *self, const MpExecProgram *program,
                         const MpLifetimes *lifetimes, GArray *figures);
  void     (*free)      (MpExecBackend *self);
};

MpExecBackend *mp_exec_cpu_backend_new  (GError **error);
MpExecBackend *mp_exec_cuda_backend_new (gint device, GError **error);
/* The device's L2 in bytes, 0 when no device is usable. */
guint64        mp_exec_cuda_cache_bytes (gint device);

/* The records in order of first (or last) step, for replays that allocate
 * at a tensor's first step and free after its last. */
MpUsage       *mp_exec_sorted_records (const MpLifetimes *lifetimes, gboolean by_first);
void           mp_exec_add_figure   (GArray *figures, const char *label, guint64 bytes);
void           mp_exec_add_failed   (GArray *figures, const char *label, const char *error);

G_END_DECLS
