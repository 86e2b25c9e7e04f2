/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-version.h"

#include "report.h"

G_BEGIN_DECLS

/* Compares two reports (BASE, then NEW): graphs and planners matched by
 * name, the arena decides better or worse. */

typedef enum
{
  MP_CHANGE_UNCHANGED, /* same arena, same validity */
  MP_CHANGE_WITHIN,    /* arena changed by no more than the tolerance */
  MP_CHANGE_BETTER,    /* smaller arena beyond the tolerance */
  MP_CHANGE_WORSE,     /* larger arena beyond the tolerance: a regression */
  MP_CHANGE_INVALID,   /* NEW plan invalid, planner failed or graph did not load: a failure */
  MP_CHANGE_FIXED,     /* BASE was invalid or failed, NEW is valid */
  MP_CHANGE_ONLY_BASE, /* graph or planner missing from NEW */
  MP_CHANGE_ONLY_NEW,  /* graph or planner new in NEW */
  MP_CHANGE_N
} MpChange;

typedef enum
{
  MP_TIME_NONE,   /* no timing on one side */
  MP_TIME_SAME,   /* within the time tolerance, or below the noise floor */
  MP_TIME_FASTER,
  MP_TIME_SLOWER,
  MP_TIME_N
} MpTimeChange;

/* Cells whose value differs between BASE and NEW (for marking them). */
typedef enum
{
  MP_CELL_ARENA         = 1 << 0,
  MP_CELL_LOWER_BOUND   = 1 << 1,
  MP_CELL_RATIO         = 1 << 2,
  MP_CELL_FRAGMENTATION = 1 << 3,
  MP_CELL_VALID         = 1 << 4,
  MP_CELL_TIME          = 1 << 5, /* beyond the time tolerance */
} MpCells;

typedef struct
{
  gdouble  tolerance;      /* relative arena change still counted as unchanged (0.005) */
  gdouble  time_tolerance; /* relative time change still counted as the same (0.5) */
  gdouble  time_floor;     /* seconds: smaller time changes are noise (0.001) */
  gboolean fail_on_time;   /* a slower planner fails the comparison */
  gboolean allow_missing;  /* a graph or planner missing from NEW does not fail it */
} MpCompareOptions;

typedef struct
{
  const char           *graph;
  const char           *planner;    /* NULL: the row is about the whole graph */
  const MpReportGraph  *base_graph; /* NULL when only in NEW */
  const MpReportGraph  *new_graph;  /* NULL when only in BASE */
  const MpReportResult *base;       /* NULL when absent or a graph row */
  const MpReportResult *new;
  MpChange              change;
  gint64                arena_change;   /* NEW - BASE, bytes, when both planned */
  gdouble               arena_relative; /* arena_change / BASE arena; NAN when BASE is 0 */
  MpTimeChange          time;
  gdouble               time_change;    /* NEW - BASE, seconds */
  gdouble               time_relative;  /* NAN when BASE took no time */
  MpCells               cells;
  gboolean              failure;        /* counts toward failing the comparison */
  char                 *detail;         /* one line: why invalid, what is missing; or NULL */
} MpCompareRow;

typedef struct
{
  const MpReport  *base;  /* borrowed: keep the reports alive */
  const MpReport  *new;
  MpCompareOptions options;
  GPtrArray       *rows;  /* MpCompareRow: BASE's graphs and planners in order, then NEW's */
  guint            counts[MP_CHANGE_N];
  guint            time_counts[MP_TIME_N];
  guint            n_failures;
  GPtrArray       *notes; /* char *: e.g. "graph 'g': the input file changed" */
} MpComparison;

MP_AVAILABLE_IN_1_0
void          mp_compare_options_init (MpCompareOptions *options);
/* Whether the two reports can be compared at all: made with the same
 * options that change the figures (alignment, inputs planned, parallel
 * groups, ONNX dimensions, op order, the search's budget); FALSE with the
 * difference named otherwise. */
MP_AVAILABLE_IN_1_0
gboolean      mp_report_comparable    (const MpReport         *base,
                                       const MpReport         *new_report,
                                       GError                **error);
MP_AVAILABLE_IN_1_0
MpComparison *mp_report_compare       (const MpReport         *base,
                                       const MpReport         *new_report,
                                       const MpCompareOptions *options);
MP_AVAILABLE_IN_1_0
void          mp_comparison_free      (MpComparison *comparison);
MP_AVAILABLE_IN_1_0
gboolean      mp_comparison_failed    (const MpComparison *comparison);
/* Nothing but MP_CHANGE_UNCHANGED rows, and no time flagged. */
MP_AVAILABLE_IN_1_0
gboolean      mp_comparison_unchanged (const MpComparison *comparison);

MP_AVAILABLE_IN_1_0
const char   *mp_change_to_string      (MpChange change);
MP_AVAILABLE_IN_1_0
const char   *mp_time_change_to_string (MpTimeChange time);

/* "0.5%" (or "0.5") -> 0.005; FALSE for anything but a percentage >= 0. */
MP_AVAILABLE_IN_1_0
gboolean      mp_parse_percentage     (const char *text, gdouble *value);

/* Output; labels name BASE and NEW (usually their file names). */
MP_AVAILABLE_IN_1_0
char         *mp_comparison_to_table    (const MpComparison *comparison,
                                         const char         *base_label,
                                         const char         *new_label);
MP_AVAILABLE_IN_1_0
char         *mp_comparison_to_json     (const MpComparison *comparison,
                                         const char         *base_label,
                                         const char         *new_label);
MP_AVAILABLE_IN_1_0
char         *mp_comparison_to_markdown (const MpComparison *comparison,
                                         const char         *base_label,
                                         const char         *new_label);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MpComparison, mp_comparison_free)

G_END_DECLS
