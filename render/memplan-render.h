/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-version.h"

/* Drawing plans onto any cairo_t: a window (gtk_snapshot_append_cairo), a
 * PNG, an SVG or a PDF. x = execution step, y = address; every planned
 * buffer is a rectangle from its first to its last step at its offset.
 *
 * Usage: build one MpRenderIndex per plan when the plan changes (it sorts
 * the records and indexes them by step, O(n log n)); then every frame call
 * mp_render_plan (or mp_render_compare for several plans) with the size of
 * the area and the options (viewport, colour key, theme, highlight). The
 * graph and plan must outlive their index. Nothing here touches GTK. */

#include <cairo.h>
#include "memplan-analysis.h"

G_BEGIN_DECLS

#define MP_RENDER_ERROR (mp_render_error_quark ())

typedef enum
{
  MP_RENDER_ERROR_FORMAT, /* unknown output file extension */
  MP_RENDER_ERROR_IO,     /* cannot write the output */
  MP_RENDER_ERROR_SIZE,   /* width or height out of range */
} MpRenderError;

MP_AVAILABLE_IN_1_0
GQuark mp_render_error_quark (void);

typedef enum
{
  MP_COLOR_BY_KIND,   /* activation / input / param / output */
  MP_COLOR_BY_OP,     /* producing op, cycled over the palette */
  MP_COLOR_BY_STREAM, /* stream of the producing op */
  MP_COLOR_BY_SIZE,   /* size class: < 4 KiB, < 64 KiB, < 1 MiB, < 16 MiB, < 256 MiB, larger */
  MP_COLOR_BY_N
} MpColorBy;

typedef enum
{
  MP_THEME_LIGHT,
  MP_THEME_DARK,
  MP_THEME_N
} MpTheme;

/* Parts that can be left out; 0 draws everything. */
typedef enum
{
  MP_RENDER_HIDE_TITLE  = 1 << 0,
  MP_RENDER_HIDE_LEGEND = 1 << 1,
  MP_RENDER_HIDE_CURVE  = 1 << 2, /* the live-bytes strip */
  MP_RENDER_HIDE_LABELS = 1 << 3, /* tensor names inside rectangles */
  MP_RENDER_HIDE_FREE   = 1 << 4, /* free-space tint and hatching */
  MP_RENDER_HIDE_LINES  = 1 << 5, /* arena and lower-bound lines */
  MP_RENDER_HIDE_AXES   = 1 << 6,
  /* a plan still being built (teaching mode): the title gives the arena so
   * far, not the ratio or fragmentation a partial plan cannot have */
  MP_RENDER_PARTIAL     = 1 << 7,
} MpRenderFlags;

/* The visible part of the plan. Steps are a continuous axis where step i
 * covers [i, i + 1); addresses are bytes. An empty range (max <= min) means
 * "all of it": steps [0, n_steps), addresses [0, arena + headroom). */
typedef struct
{
  gdouble step_min;
  gdouble step_max;
  gdouble addr_min;
  gdouble addr_max;
} MpViewport;

/* Zero-initialised options are the defaults: light theme, colour by kind,
 * whole plan, nothing highlighted, everything drawn. */
typedef struct
{
  MpColorBy     color_by;
  MpTheme       theme;
  MpRenderFlags flags;
  MpViewport    viewport;
  /* Graph tensor indices drawn emphasised; every other tensor is dimmed.
   * Tensor indices (not record indices) so one tensor can be followed
   * across the plans of a graph. NULL or 0: nothing highlighted. */
  const guint  *highlight;
  guint         n_highlight;
  /* mp_render_compare: one address scale for every plan (the largest arena). */
  gboolean      shared_scale;
  /* Text size in device pixels (0: 12). */
  gdouble       font_px;
} MpRenderOptions;

typedef struct
{
  gdouble r, g, b;
} MpRgb;

#define MP_PALETTE_N_KEYS 8
#define MP_PALETTE_N_PLANNERS 10

/* Colour-blind safe (Okabe–Ito hues for categories, a viridis-like ramp for
 * size classes), tuned for a light or a dark background. */
typedef struct
{
  MpRgb background;
  MpRgb foreground;   /* text, axes */
  MpRgb grid;
  MpRgb free;         /* tint of free space inside the arena */
  MpRgb free_hatch;   /* hatching lines over the tint */
  MpRgb outline;      /* thin outline of large rectangles */
  MpRgb arena;        /* arena line */
  MpRgb lower_bound;  /* lower-bound line */
  MpRgb curve;        /* live-bytes area */
  MpRgb peak;         /* peak marker */
  MpRgb highlight;    /* outline of highlighted tensors */
  MpRgb keys[MP_PALETTE_N_KEYS];  /* categories: kind, op, stream (cycled) */
  MpRgb sizes[6];     /* size classes, small to large */
  /* one colour per planner, in mp_planners' order, then a trace's observed
   * plan: fixed, so a planner has its colour on every graph */
  MpRgb planners[MP_PALETTE_N_PLANNERS];
  gdouble dim;        /* share of background mixed into dimmed tensors */
} MpPalette;

MP_AVAILABLE_IN_1_0
const MpPalette *mp_palette_get (MpTheme theme);
/* The colour of the planner that made plan, the same in every picture and
 * on every graph (a plan file's unknown planner: the foreground). */
MP_AVAILABLE_IN_1_0
MpRgb            mp_planner_color (const MpPalette *palette, const MpPlan *plan);

/* A rectangle in device units (the cairo_t's user space at identity). */
typedef struct
{
  gdouble x, y, width, height;
} MpRenderRect;

/* Where the parts of one plan's picture are, for a given size and options.
 * The app uses plot and viewport to turn pointer positions into steps and
 * addresses (zoom around the pointer, pan by dragging). */
typedef struct
{
  MpRenderRect title;
  MpRenderRect legend;
  MpRenderRect plot;     /* the timeline */
  MpRenderRect curve;    /* the live-bytes strip (height 0 when hidden) */
  MpRenderRect x_axis;
  MpRenderRect y_axis;
  MpViewport   viewport; /* resolved: never empty */
} MpRenderLayout;

/* Per-plan drawing index: records sorted by first step, a step index for
 * O(log n) queries, the live-bytes curve of the plan's own records. */
typedef struct _MpRenderIndex MpRenderIndex;

MP_AVAILABLE_IN_1_0
MpRenderIndex *mp_render_index_new   (const MpGraph *graph, const MpPlan *plan);
MP_AVAILABLE_IN_1_0
void           mp_render_index_free  (MpRenderIndex *index);
MP_AVAILABLE_IN_1_0
const MpPlan  *mp_render_index_plan  (const MpRenderIndex *index);
MP_AVAILABLE_IN_1_0
const MpGraph *mp_render_index_graph (const MpRenderIndex *index);
/* The first step where the plan's records are the most bytes live. */
MP_AVAILABLE_IN_1_0
guint          mp_render_index_peak_step (const MpRenderIndex *index);

/* For the observed plan of a trace (mp_trace_observed_plan): the caching
 * allocator's segments, drawn as outlined bands behind the blocks (as
 * PyTorch's memory_viz segment view) with "segment" in the legend. A trace
 * without an arena (CPU blocks from malloc) has none. The ranges are
 * copied. */
MP_AVAILABLE_IN_1_0
void  mp_render_index_set_segments (MpRenderIndex *index, const MpTrace *trace);
MP_AVAILABLE_IN_1_0
guint mp_render_index_n_segments   (const MpRenderIndex *index);

/* Lets the timeline draw a large plan from a level-of-detail summary: the
 * coverage of every step at the scale drawn (pixels per step, the address
 * range and the plot's height), made once per scale and painted into an
 * image that a pan only shifts (by whole pixels), so a frame at that scale
 * costs its pixels, not its buffers. Every buffer that covers a pixel still
 * shows; only views with many buffers in sight use it, never a PDF, SVG or
 * PostScript surface. Off by default (the exact drawing); the app turns it
 * on. */
MP_AVAILABLE_IN_1_0
void  mp_render_index_set_summary  (MpRenderIndex *index, gboolean summary);
/* With the summary on, a view at a new scale is drawn from the summary
 * made for the last one, stretched to the new scale, while the new one is
 * made on a thread of its own; mp_render_index_summary_pending says when
 * it is still being made, so an interactive caller draws again once it is
 * not (then the view is drawn from it, pixel-equal to the exact drawing).
 * Only a change of the pixels per step is stretched; a first view, another
 * address range, plot height, colour key or theme still make the summary
 * in the frame that needs it. Off by default. */
MP_AVAILABLE_IN_1_0
void     mp_render_index_set_summary_async (MpRenderIndex *index, gboolean async);
MP_AVAILABLE_IN_1_0
gboolean mp_render_index_summary_pending   (MpRenderIndex *index);

/* The plan's place in a figure that ranks plans (mp_plans_rank): its title
 * starts "1.", "2.", …, the winner's with a star; 0 (the default): none. */
MP_AVAILABLE_IN_1_0
void  mp_render_index_set_rank     (MpRenderIndex *index, guint rank);

/* The plan is one memory's share of a spill (mp_spill_plan: spill->plans[k]):
 * its title reads "sram 200 KiB of 256 KiB", a dash-dotted line marks the
 * capacity (0: unbounded, no line; the full viewport reaches it) and the
 * given graph tensors, those the spill rule moved into this memory, are
 * outlined and tagged "spilled". name and the tensors are copied. */
MP_AVAILABLE_IN_1_0
void  mp_render_index_set_memory   (MpRenderIndex *index, const char *name, guint64 capacity,
                                    const guint *spilled, guint n_spilled);

/* The records live at step (index into plan->records), calling func for
 * each: O(log n + k) for k records, in no particular order. */
typedef void (*MpRecordFunc) (guint record, gpointer user_data);
MP_AVAILABLE_IN_1_0
void mp_render_index_foreach_at (const MpRenderIndex *index, guint step, MpRecordFunc func,
                                 gpointer user_data);

/* The full viewport of a plan: steps [0, n_steps), addresses [0, arena
 * plus room for the arena label). */
MP_AVAILABLE_IN_1_0
void mp_render_full_viewport (const MpRenderIndex *index, MpViewport *viewport);

/* One plan filling width × height device units at the cairo_t's current
 * origin. */
MP_AVAILABLE_IN_1_0
void mp_render_layout (const MpRenderIndex   *index,
                       const MpRenderOptions *options,
                       gdouble                width,
                       gdouble                height,
                       MpRenderLayout        *layout);
MP_AVAILABLE_IN_1_0
void mp_render_plan   (cairo_t               *cr,
                       const MpRenderIndex   *index,
                       const MpRenderOptions *options,
                       gdouble                width,
                       gdouble                height);

/* The record (index into plan->records; its tensor is
 * plan->records[r].tensor) drawn at (x, y), or -1 for free space, the
 * margins or the curve strip. O(log² n). */
MP_AVAILABLE_IN_1_0
gint mp_render_hit_test (const MpRenderIndex   *index,
                         const MpRenderOptions *options,
                         gdouble                width,
                         gdouble                height,
                         gdouble                x,
                         gdouble                y);
/* Same, in data coordinates (step, address). */
MP_AVAILABLE_IN_1_0
gint mp_render_index_lookup (const MpRenderIndex *index, guint step, guint64 address);

/* Pixel <-> data conversions for a layout's plot. */
MP_AVAILABLE_IN_1_0
void mp_render_layout_to_data   (const MpRenderLayout *layout, gdouble x, gdouble y,
                                 gdouble *step, gdouble *address);
MP_AVAILABLE_IN_1_0
void mp_render_layout_to_device (const MpRenderLayout *layout, gdouble step, gdouble address,
                                 gdouble *x, gdouble *y);

/* Several plans of one graph stacked top to bottom, one step axis at the
 * bottom, each with its own title line, under the memory-over-time strip of
 * all of them (mp_render_memory; MP_RENDER_HIDE_CURVE leaves it out);
 * options->shared_scale gives them the same address scale. The viewport's
 * step range applies to all; its address range only with shared_scale
 * (otherwise each plan shows its whole arena). The plans are drawn in the
 * order given: rank them first (mp_plans_rank, mp_render_index_set_rank). */
MP_AVAILABLE_IN_1_0
void mp_render_compare_layout (MpRenderIndex * const *indices,
                               guint                  n_indices,
                               const MpRenderOptions *options,
                               gdouble                width,
                               gdouble                height,
                               MpRenderLayout        *layouts /* n_indices */);
MP_AVAILABLE_IN_1_0
void mp_render_compare        (cairo_t               *cr,
                               MpRenderIndex * const *indices,
                               guint                  n_indices,
                               const MpRenderOptions *options,
                               gdouble                width,
                               gdouble                height);
/* The record at (x, y) and the plan it belongs to (*panel), or -1. */
MP_AVAILABLE_IN_1_0
gint mp_render_compare_hit_test (MpRenderIndex * const *indices,
                                 guint                  n_indices,
                                 const MpRenderOptions *options,
                                 gdouble                width,
                                 gdouble                height,
                                 gdouble                x,
                                 gdouble                y,
                                 guint                 *panel);

/* Memory over time for the plans of one graph, in one strip: the live
 * bytes as an area, each plan's footprint (the top of its highest live
 * buffer) as a line in its own colour, the live peak marked on the curve
 * and on the step axis, a dot where each plan first reaches its arena. The
 * viewport's step range applies; the byte scale is the largest arena but
 * naive's and an observed one over four times the rest. The layout gives the plot for pointer conversions. */
MP_AVAILABLE_IN_1_0
void mp_render_memory_layout (MpRenderIndex * const *indices,
                              guint                  n_indices,
                              const MpRenderOptions *options,
                              gdouble                width,
                              gdouble                height,
                              MpRenderLayout        *layout);
MP_AVAILABLE_IN_1_0
void mp_render_memory        (cairo_t               *cr,
                              MpRenderIndex * const *indices,
                              guint                  n_indices,
                              const MpRenderOptions *options,
                              gdouble                width,
                              gdouble                height);

/* Output files. */
typedef enum
{
  MP_RENDER_FORMAT_PNG,
  MP_RENDER_FORMAT_SVG,
  MP_RENDER_FORMAT_PDF,
} MpRenderFormat;

/* Paper for PDF and SVG, landscape. */
typedef enum
{
  MP_PAGE_NONE,   /* width × height points */
  MP_PAGE_A4,     /* 842 × 595 pt */
  MP_PAGE_LETTER, /* 792 × 612 pt */
} MpPageSize;

/* How a file is laid out, beyond the picture. */
typedef struct
{
  MpPageSize page;     /* PDF, SVG: the paper (SVG text is <text>, selectable) */
  gboolean   one_page; /* PDF: every plan on one page (default: one plan a page) */
  gdouble    dpi;      /* PNG: the picture's width × height at 96 dpi, in dpi/96
                        * times the pixels, marked with its resolution (0: 96) */
} MpRenderOutput;

/* The page's size in points; FALSE for MP_PAGE_NONE. */
MP_AVAILABLE_IN_1_0
gboolean mp_render_page_size        (MpPageSize page, gdouble *width, gdouble *height);
/* "a4", "letter" or "none", any case. */
MP_AVAILABLE_IN_1_0
gboolean mp_render_page_from_string (const char *str, MpPageSize *page);

/* From the extension (.png, .svg, .pdf, any case); error names the path. */
MP_AVAILABLE_IN_1_0
gboolean mp_render_format_from_path (const char *path, MpRenderFormat *format, GError **error);

/* Draws one plan (n_indices == 1) or the comparison figure into a file,
 * atomically: the picture is rendered in memory, then written to a
 * temporary file that is renamed over path, so a failure leaves no file.
 * width and height are pixels (PNG) or points (SVG, PDF). */
MP_AVAILABLE_IN_1_0
gboolean mp_render_write_file (const char            *path,
                               MpRenderFormat         format,
                               MpRenderIndex * const *indices,
                               guint                  n_indices,
                               const MpRenderOptions *options,
                               gint                   width,
                               gint                   height,
                               GError               **error);
/* The same with a page layout (NULL: as mp_render_write_file). */
MP_AVAILABLE_IN_1_0
gboolean mp_render_write_output (const char            *path,
                                 MpRenderFormat         format,
                                 MpRenderIndex * const *indices,
                                 guint                  n_indices,
                                 const MpRenderOptions *options,
                                 const MpRenderOutput  *out,
                                 gint                   width,
                                 gint                   height,
                                 GError               **error);

MP_AVAILABLE_IN_1_0
const char *mp_color_by_to_string   (MpColorBy color_by);
MP_AVAILABLE_IN_1_0
gboolean    mp_color_by_from_string (const char *str, MpColorBy *color_by);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MpRenderIndex, mp_render_index_free)

/* A labelled tick of a value (bytes) axis. */
#define MP_MAX_TICKS 64
typedef struct
{
  guint64 value;
  char    label[24];
} MpTick;

/* The ticks of a byte axis over [lo, top] drawn over pixels: at least two
 * (0 and one more) whenever top > lo, none above top (the arena, not the
 * room above it), at least min_gap pixels apart where there is room, and
 * every label in the one unit of the largest ("256 MiB", "512 MiB", or
 * "0.5 GiB", "1 GiB", never both). Returns how many. */
MP_AVAILABLE_IN_1_0
guint mp_render_value_ticks (gdouble lo, gdouble top, gdouble pixels, gdouble min_gap,
                             MpTick ticks[MP_MAX_TICKS]);

/* One step numbering everywhere: the plan's steps (op indices for a graph,
 * ranks of the start times for usage records, parallel groups for
 * multistream). The axis label of a step: its number. */
MP_AVAILABLE_IN_1_0
char          *mp_render_step_label (const MpRenderIndex *index, guint step);
/* A step in words for the slider, the status, the live list and tooltips:
 * "step 14 (op fc2)", "step 63 (time 966656 in the file)",
 * "parallel group 3". */
MP_AVAILABLE_IN_1_0
char          *mp_render_step_words (const MpRenderIndex *index, guint step);

/* Memory over time of two orders of one graph (--order) on the same axes:
 * the given order's live bytes (n_steps values, one per op) as a line, the
 * chosen order's as an area, both peaks marked and the saving in the
 * legend; and the same written to a PNG, SVG or PDF file. */
MP_AVAILABLE_IN_1_0
void     mp_render_order_curves (cairo_t *cr, const guint64 *given, const guint64 *chosen,
                                 guint n_steps, const char *chosen_name,
                                 const MpRenderOptions *options, gdouble width, gdouble height);
MP_AVAILABLE_IN_1_0
gboolean mp_render_order_write  (const char *path, MpRenderFormat format, const guint64 *given,
                                 const guint64 *chosen, guint n_steps, const char *chosen_name,
                                 const MpRenderOptions *options, gint width, gint height,
                                 GError **error);

G_END_DECLS
