/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

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
  char        **frames;          /* per tensor: "name (file:line)" lines, or NULL */
  MpTraceRange *ranges;
  guint         n_ranges;
  guint64       observed_arena;  /* sum of the range sizes */
  guint64       reserved_peak;   /* peak reserved bytes (Total Reserved, or live segments) */
  guint         n_events;        /* memory events of the device */
  guint         n_unmatched_frees;
  guint         n_never_freed;
  guint         n_ooms;
} MpTrace;

/* Recognises a trace or snapshot by its first bytes (not its name). */
MpTraceFormat mp_trace_sniff          (const char *data, gsize length);
MpTraceFormat mp_trace_sniff_file     (const char *path);

/* device: "cuda:N" or "cpu"; NULL picks the first CUDA device with events,
 * else the CPU. */
MpTrace      *mp_trace_parse          (const char *data, gsize length, const char *path,
                                       const char *device, GError **error);
MpTrace      *mp_trace_load           (const char *path, const char *device, GError **error);
void          mp_trace_free           (MpTrace *trace);
/* For mp_graph_load: the usage records alone. */
MpGraph      *mp_trace_load_graph     (const char *path, GError **error);

/* The allocator's layout as a plan named "observed" over lifetimes of
 * trace->graph; its note gives the reserved peak. */
MpPlan       *mp_trace_observed_plan  (const MpTrace *trace, const MpLifetimes *lifetimes);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MpTrace, mp_trace_free)

G_END_DECLS
