/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-version.h"

#include "plan.h"

G_BEGIN_DECLS

/* What a real allocator did, imported from PyTorch: the profiler's Chrome
 * trace (memory profiling on) or a memory snapshot pickle
 * (torch.cuda.memory._dump_snapshot). The result is usage records (one per
 * allocation, time = event order) that every planner can plan, and the
 * allocator's own layout: the "observed" plan. */

typedef enum
{
  MP_TRACE_FORMAT_NONE,
  MP_TRACE_FORMAT_CHROME,   /* PyTorch profiler, Chrome trace JSON */
  MP_TRACE_FORMAT_SNAPSHOT, /* torch.cuda.memory snapshot pickle */
} MpTraceFormat;

/* An address range the allocator touched (a segment, or merged blocks);
 * observed offsets lay these ranges end to end in address order. */
typedef struct
{
  guint64 address;
  guint64 size;
  guint64 offset; /* where the range starts in the observed layout */
} MpTraceRange;

/* Where an allocation was made; the texts are shared between allocations
 * (they live as long as the MpTrace), NULL when the file does not say. */
typedef struct
{
  const char *op;     /* innermost op running on its thread ("aten::convolution") */
  const char *ops;    /* the op stack, innermost first, one per line */
  const char *module; /* "ResNet.layer1.0.conv1" (with_modules), or NULL */
  const char *frames; /* "forward (model.py:42)" per line, innermost first */
} MpTraceSite;

typedef enum
{
  MP_TRACE_BLOCK_TRACED,       /* allocated during the trace */
  MP_TRACE_BLOCK_PRE_EXISTING, /* allocated before it began: live from its start */
} MpTraceOrigin;

typedef struct
{
  const char *device;            /* NULL: the first CUDA device with events, else the CPU */
  gboolean    drop_pre_existing; /* leave out blocks allocated before the trace began */
  /* a Chrome trace the streaming reader does not take is read whole, at a
   * higher cost (mp_memory_estimate_chrome_fallback), refused first when
   * that is over this (--max-memory); 0: the memory available,
   * G_MAXUINT64: no check */
  guint64     max_memory;
} MpTraceOptions;

typedef struct
{
  MpTraceFormat format;
  char         *device;          /* "cuda:0", "cpu" */
  char        **devices;         /* every device with memory events in the file */
  MpGraph      *graph;           /* usage records: has_ops FALSE, tensors with first/last;
                                  * may be stolen, the arrays below stay indexed alike */
  guint         n_allocations;   /* tensors of graph: one per allocation */
  guint64      *addresses;       /* per tensor: the allocator's address */
  guint64      *observed;        /* per tensor: offset in the compacted layout */
  MpTraceSite  *sites;           /* per tensor: who allocated it */
  guint8       *origins;         /* per tensor: an MpTraceOrigin */
  GHashTable   *strings;         /* owns the texts of sites */
  guint64       text_limit;      /* the most site text an output may expand to */
  MpTraceRange *ranges;
  guint         n_ranges;
  guint64       observed_arena;  /* span of the observed layout */
  guint64       touched;         /* sum of the range sizes */
  guint64       reserved_peak;   /* peak reserved bytes (Total Reserved, or live segments) */
  gboolean      has_arena;       /* FALSE for the CPU: malloc'd blocks, no reserved pool */
  guint64       live_peak;       /* peak of the live bytes (the records' lower bound) */
  gint64        peak_step;       /* the first event step where live_peak is reached */
  guint         n_pre_existing;  /* blocks allocated before the trace, live from its start */
  guint         n_shared;        /* DataLoader shared-memory blocks, device "cpu-shm" */
  guint         n_events;        /* memory events of the device */
  guint         n_unmatched_frees;
  guint         n_never_freed;
  guint         n_ooms;
} MpTrace;

/* Recognises a trace or snapshot by its first bytes (not its name). */

/* device: "cuda:N" or "cpu"; NULL picks the first CUDA device with events,
 * else the CPU. */
MP_AVAILABLE_IN_1_0
MpTrace      *mp_trace_parse          (const char *data, gsize length, const char *path,
                                       const char *device, GError **error);
MP_AVAILABLE_IN_1_0
MpTrace      *mp_trace_load           (const char *path, const char *device, GError **error);
MP_AVAILABLE_IN_1_0
MpTrace      *mp_trace_load_full      (const char *path, const MpTraceOptions *options,
                                       GError **error);
MP_AVAILABLE_IN_1_0
MpTrace      *mp_trace_parse_full     (const char *data, gsize length, const char *path,
                                       const MpTraceOptions *options, GError **error);
/* Refuses output that would expand the texts the file shares between
 * allocations past trace->text_limit (a few KB of pickle memo references
 * must not become gigabytes of JSON). */
MP_AVAILABLE_IN_1_0
gboolean      mp_trace_check_expansion (const MpTrace *trace, GError **error);
/* Bytes (and, where lines is not NULL, lines) of the ops, modules and stack
 * frames that writing every allocation out expands to; counting stops once
 * past cap. */
MP_AVAILABLE_IN_1_0
guint64       mp_trace_site_text      (const MpTrace *trace, guint64 cap, guint64 *lines);
MP_AVAILABLE_IN_1_0
void          mp_trace_free           (MpTrace *trace);

/* Where the memory went, per op (innermost op of each allocation; in a
 * snapshot the innermost frame), heaviest at the peak first. */
typedef struct
{
  char       *op;          /* "(before the trace)", "(no op)" for the unattributed */
  guint64     allocated;   /* bytes of all its allocations */
  guint64     at_peak;     /* bytes of those live at peak_step */
  guint       n_allocations;
} MpTraceOpUse;

/* An array of MpTraceOpUse (it frees their names). */
MP_AVAILABLE_IN_1_0
GArray       *mp_trace_by_op          (const MpTrace *trace);
/* The same per module path (with_modules), "(no module)" where the trace
 * has none; MpTraceOpUse.op holds the module. */
MP_AVAILABLE_IN_1_0
GArray       *mp_trace_by_module      (const MpTrace *trace);
MP_AVAILABLE_IN_1_0
gboolean      mp_trace_has_modules    (const MpTrace *trace);

/* Who allocated a tensor of a graph imported from a trace, for a tooltip:
 * "aten::addmm in MLP_0.Linear_0 at 0x1000" then the op stack and the
 * Python frames, one per line (at most max_lines of them); NULL for a tensor
 * of any other graph. */
MP_AVAILABLE_IN_1_0
char         *mp_trace_describe_origin (const MpGraph *graph, guint tensor, guint max_lines);

/* The allocator's layout as a plan named "observed" over lifetimes of
 * trace->graph; its note gives the reserved peak. */
MP_AVAILABLE_IN_1_0
MpPlan       *mp_trace_observed_plan  (const MpTrace *trace, const MpLifetimes *lifetimes);

/* What `import` writes (trace-write.c): memplan.trace/1 JSON with every
 * allocation's address, lifetime, observed offset, op and frames; or
 * MiniMalloc CSV records whose offset column is the allocator's layout. */
MP_AVAILABLE_IN_1_0
char         *mp_trace_to_json        (const MpTrace *trace, const MpGraph *graph,
                                       const MpLifetimes *lifetimes);
MP_AVAILABLE_IN_1_0
char         *mp_trace_to_csv         (const MpTrace *trace, const MpGraph *graph);
/* The same written to path as it is produced, never held whole (a 564 MB
 * snapshot's records are 906 MB of JSON): mp_write_file_stream's rule, a
 * file replaced only once all of it is written, NULL or "-" standard
 * output; errors name path. */
MP_AVAILABLE_IN_1_0
gboolean      mp_trace_write_json     (const char *path, const MpTrace *trace,
                                       const MpGraph *graph, const MpLifetimes *lifetimes,
                                       GError **error);
MP_AVAILABLE_IN_1_0
gboolean      mp_trace_write_csv      (const char *path, const MpTrace *trace,
                                       const MpGraph *graph, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MpTrace, mp_trace_free)

G_END_DECLS
