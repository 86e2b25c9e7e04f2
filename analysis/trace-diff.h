/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-version.h"

#include "input.h"

G_BEGIN_DECLS

/* Two runs of the same program compared (`memplan-cli diff A B`): each
 * side's peak of live bytes, when it happens, and the allocations that
 * account for the difference. Allocations are matched by op + stack + size,
 * never by address (addresses change from run to run). Any input
 * mp_input_load reads works: traces and snapshots, graphs (the live bytes
 * of their tensors over the op order) and plans (CSV with offsets). */

/* One side's figures. */
typedef struct
{
  MpInputFormat format;
  char         *name;          /* the graph's name (the file's base name) */
  guint64       live_peak;     /* the most bytes live at once */
  gint64        peak_step;     /* the first step (event, op) where it is reached */
  guint         n_steps;       /* the steps of the run: the peak's "when" out of these */
  gboolean      has_reserved;  /* the input has a second figure: */
  guint64       reserved;      /* the allocator's reserved peak (CUDA), or a plan's arena */
  guint         n_allocations;
  guint64       allocated;     /* bytes of all allocations */
} MpTraceDiffSide;

/* What happened to one group of allocations between A and B. */
typedef enum
{
  MP_TRACE_DIFF_SAME,  /* as many, as large */
  MP_TRACE_DIFF_MORE,  /* more of them in B */
  MP_TRACE_DIFF_FEWER, /* fewer of them in B */
  MP_TRACE_DIFF_NEW,   /* only in B: a new op or call site */
  MP_TRACE_DIFF_GONE,  /* only in A */
  MP_TRACE_DIFF_GROWN, /* the same op and stack allocates more bytes each in B */
  MP_TRACE_DIFF_SHRUNK,
} MpTraceDiffChange;

/* Allocations of one (op, stack, size), or of one (op, stack) whose size
 * changed (GROWN / SHRUNK: size_a != size_b). The at-peak bytes are those
 * live at each side's own peak, so the rows' delta_at_peak add up to
 * b.live_peak - a.live_peak exactly: a grown tensor, a new op and a peak
 * that moved to another moment are each charged to the rows that make it. */
typedef struct
{
  char             *op;        /* innermost op ("aten::mm"), a snapshot's innermost frame,
                                * a graph's producing op; "(no op)", "(before the trace)",
                                * "(graph input)" */
  char             *stack;     /* the Python frames (else the op stack), innermost first,
                                * one per line; NULL when the input has none */
  MpTraceDiffChange change;
  guint64           size_a;    /* bytes of one allocation in A (0: none in A) */
  guint64           size_b;
  guint             count_a;   /* allocations in A */
  guint             count_b;
  guint             live_a;    /* of those, live at A's peak */
  guint             live_b;    /* of B's, live at B's peak */
  guint64           at_peak_a; /* bytes live at A's peak */
  guint64           at_peak_b;
  gint64            delta_at_peak; /* at_peak_b - at_peak_a */
  gint64            delta;         /* bytes allocated in B minus in A */
} MpTraceDiffRow;

typedef struct
{
  guint   max_rows;   /* keep the first rows only (0: all); rest_at_peak sums the others */
  guint64 max_memory; /* mp_trace_diff_files: refuse a file estimated to need more to load
                       * (as MpWorkloadOptions.max_memory: 0, the memory available;
                       * G_MAXUINT64, no check) */
} MpTraceDiffOptions;

typedef struct
{
  MpTraceDiffSide a;
  MpTraceDiffSide b;
  gint64          peak_delta;     /* b.live_peak - a.live_peak */
  gboolean        has_reserved;   /* both sides have a reserved figure */
  gint64          reserved_delta; /* b.reserved - a.reserved, when both have one */
  GArray         *rows;           /* MpTraceDiffRow, largest |delta_at_peak| first, then
                                   * largest |delta|; unchanged rows last */
  guint           n_rows;         /* rows before max_rows cut them */
  gint64          rest_at_peak;   /* delta_at_peak of the rows cut off */
  GPtrArray      *notes;          /* what the reader should know ("A is a graph, B a trace") */
} MpTraceDiff;

/* Compares two loaded inputs; options NULL: the defaults. Fails (naming
 * the input) only for an input it cannot measure, such as a graph whose
 * lifetimes do not compute. */
MP_AVAILABLE_IN_1_0
MpTraceDiff *mp_trace_diff       (const MpInput *a, const MpInput *b,
                                  const MpTraceDiffOptions *options, GError **error);
/* The same from two files, holding one loaded input at a time (a side is
 * reduced to its groups before the other is read). */
MP_AVAILABLE_IN_1_0
MpTraceDiff *mp_trace_diff_files (const char *path_a, const char *path_b,
                                  const MpInputOptions *input_options,
                                  const MpTraceDiffOptions *options, GError **error);
MP_AVAILABLE_IN_1_0
void         mp_trace_diff_free  (MpTraceDiff *diff);

/* "same", "more", "fewer", "new", "gone", "grown", "shrunk". */
MP_AVAILABLE_IN_1_0
const char  *mp_trace_diff_change_name (MpTraceDiffChange change);

/* Whether B's live peak exceeds A's by more than the tolerance: bytes,
 * or (percent TRUE) a percentage of A's peak. */
MP_AVAILABLE_IN_1_0
gboolean     mp_trace_diff_exceeds (const MpTraceDiff *diff, gdouble tolerance,
                                    gboolean percent);

/* The report as a table for a terminal, or as memplan.diff/1 JSON. */
MP_AVAILABLE_IN_1_0
char        *mp_trace_diff_to_table (const MpTraceDiff *diff, const char *path_a,
                                     const char *path_b);
MP_AVAILABLE_IN_1_0
char        *mp_trace_diff_to_json  (const MpTraceDiff *diff, const char *path_a,
                                     const char *path_b);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MpTraceDiff, mp_trace_diff_free)

G_END_DECLS
