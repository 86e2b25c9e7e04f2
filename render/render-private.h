/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#if !defined (MP_RENDER_COMPILATION)
#error "this header is internal to render/: include memplan-render.h"
#endif

#include <pango/pangocairo.h>
#include "memplan-render.h"

G_BEGIN_DECLS

/* Colours of one frame: 8 category keys then 6 size classes, each plain or
 * dimmed (when a highlight set is active). */
#define MP_N_COLORS (MP_PALETTE_N_KEYS + 6)
#define MP_N_SLOTS  (2 * MP_N_COLORS)

typedef struct _MpRenderLod MpRenderLod;
typedef struct _MpRenderLodJob MpRenderLodJob;

struct _MpRenderIndex
{
  const MpGraph *graph;
  const MpPlan  *plan;
  guint          n;          /* records */
  guint          n_steps;
  guint         *by_first;   /* record indices sorted by first step */
  guint         *firsts;     /* firsts[i] = records[by_first[i]].first, for binary search */
  /* Step tree: a segment tree over steps; node k holds the records whose
   * lifetime covers all of its step range and not its parent's, sorted by
   * offset (CSR in node_start / node_items). */
  guint          n_leaves;
  guint         *node_start;
  guint         *node_items;
  guint64       *live;       /* live bytes per step (the plan's own records) */
  guint64        live_max;
  guint          peak_step;
  guint64       *top;        /* per step, the top of the highest live buffer (footprint) */
  guint8        *color;      /* colour index per record and key: MP_COLOR_BY_N × n */
  guint          kinds_seen; /* bit per MpTensorKind */
  guint          n_streams;
  guint          sizes_seen; /* bit per size class */
  /* Usage records count steps as ranks of their start times: the file's own
   * time of each step, for the axis (NULL for a graph with ops). */
  gint64        *step_time;
  /* an observed plan's allocator segments (mp_render_index_set_segments) */
  MpTraceRange  *segments;
  guint          n_segments;
  guint          rank;       /* mp_render_index_set_rank; 0: not ranked */
  /* one memory's pane (mp_render_index_set_memory), memory_name NULL when not */
  char          *memory_name;
  guint64        capacity;   /* 0: unbounded */
  guint8        *spilled;    /* per record: moved here by the spill rule, or NULL */
  guint          n_spilled;
  guint64        spilled_bytes;
  /* mp_render_index_set_summary: the timeline's level-of-detail summary at
   * the last scale drawn (render-timeline.c), made and used under lod_lock */
  gboolean       summary;
  guint          lod_min_records; /* views with fewer in sight are drawn exactly */
  GMutex         lod_lock;
  MpRenderLod   *lod;
  /* mp_render_index_set_summary_async: a summary for a new scale is made
   * on lod_thread (lod_busy while it runs) from lod_want, the last asked
   * for (lod_asked, its copy, so a frame at that scale does not ask again) */
  gboolean       lod_async;
  gboolean       lod_busy;
  GThread       *lod_thread;
  MpRenderLodJob *lod_want;
  MpRenderLodJob *lod_asked;
};

void     mp_render_lod_free (MpRenderLod *lod);
/* Waits for the summary's thread and drops what it was asked for. */
void     mp_render_lod_stop (MpRenderIndex *index);


/* Range of by_first entries whose first step lies in [lo, hi). */
void     mp_render_index_first_range (const MpRenderIndex *index, guint lo, guint hi,
                                      guint *begin, guint *end);

guint    mp_size_class     (guint64 bytes);
const char *mp_size_class_label (guint size_class);
/* Category key of a tensor kind. */
guint    mp_kind_color     (MpTensorKind kind);
/* Colour of index c (category key or size class) in a palette. */
MpRgb    mp_palette_color  (const MpPalette *palette, guint c);
MpRgb    mp_rgb_mix        (MpRgb a, MpRgb b, gdouble t);
gdouble  mp_rgb_luminance  (MpRgb c);
void     mp_cairo_set_rgb  (cairo_t *cr, MpRgb c);
void     mp_cairo_set_rgba (cairo_t *cr, MpRgb c, gdouble alpha);

/* Text of one frame. */
typedef struct
{
  PangoLayout          *layout;
  PangoFontDescription *normal;
  PangoFontDescription *bold;
  gdouble               px;
} MpText;

void     mp_text_init      (MpText *text, cairo_t *cr, gdouble px);
void     mp_text_clear     (MpText *text);
void     mp_text_set       (MpText *text, const char *str, gboolean bold);
void     mp_text_size      (MpText *text, gdouble *width, gdouble *height);
/* Text drawn onto surface's cairo_t from now on goes into sink as SVG
 * <text> elements (device units) instead of glyph outlines. */
void     mp_text_collect_svg (cairo_surface_t *surface, GString *sink);
/* Draws the current text with its top-left corner at x, y. */
void     mp_text_draw      (MpText *text, cairo_t *cr, gdouble x, gdouble y);

gdouble  mp_render_font_px (const MpRenderOptions *options);

/* The parts of the figure, in device units of the given layout. */
void     mp_render_draw_timeline (cairo_t *cr, const MpRenderIndex *index,
                                  const MpRenderOptions *options, const MpRenderLayout *layout,
                                  MpText *text);
/* Gaps as holes and pin marks (render-constraints.c), over the rectangles
 * of the n given records; colors per record, highlight per tensor or NULL. */
void     mp_render_draw_constraints (cairo_t *cr, const MpRenderIndex *index,
                                     const MpRenderOptions *options,
                                     const MpRenderLayout *layout, const guint *records,
                                     guint n, const guint8 *colors, const guint8 *highlight);
void     mp_render_draw_free     (cairo_t *cr, const MpRenderIndex *index,
                                  const MpRenderOptions *options, const MpRenderLayout *layout);
/* top: the arena, the highest labelled address (0: the viewport's top) */
/* The allocator's segments, outlined bands behind the blocks. */
void     mp_render_draw_segments (cairo_t *cr, const MpRenderIndex *index,
                                  const MpRenderOptions *options, const MpRenderLayout *layout);
void     mp_render_draw_grid     (cairo_t *cr, const MpRenderOptions *options,
                                  const MpRenderLayout *layout, gdouble top, gboolean x_ticks);
void     mp_render_draw_lines    (cairo_t *cr, const MpRenderIndex *index,
                                  const MpRenderOptions *options, const MpRenderLayout *layout,
                                  MpText *text);
void     mp_render_draw_curve    (cairo_t *cr, const MpRenderIndex *index,
                                  const MpRenderOptions *options, const MpRenderLayout *layout,
                                  MpText *text);
void     mp_render_draw_y_axis   (cairo_t *cr, const MpRenderOptions *options,
                                  const MpRenderLayout *layout, gdouble top, MpText *text);
void     mp_render_draw_x_axis   (cairo_t *cr, const MpRenderIndex *index,
                                  const MpRenderOptions *options, const MpRenderLayout *layout,
                                  MpText *text);
void     mp_render_draw_title    (cairo_t *cr, const MpRenderIndex *index,
                                  const MpRenderOptions *options, const MpRenderRect *rect,
                                  MpText *text);
void     mp_render_draw_legend   (cairo_t *cr, const MpRenderIndex *index,
                                  const MpRenderOptions *options, const MpRenderRect *rect,
                                  MpText *text);
void     mp_render_draw_note     (cairo_t *cr, const MpRenderOptions *options,
                                  const MpRenderRect *rect, const char *note, MpText *text);

/* One memory's pane (render-spill.c): the title's parts, the capacity
 * line and spilled marks, a legend swatch (capacity line or spilled mark). */
char    *mp_render_memory_head (const MpRenderIndex *index);
char    *mp_render_memory_rest (const MpRenderIndex *index);
void     mp_render_draw_spill  (cairo_t *cr, const MpRenderIndex *index,
                                const MpRenderOptions *options, const MpRenderLayout *layout,
                                MpText *text);
void     mp_render_spill_legend_swatch (cairo_t *cr, const MpRenderOptions *options,
                                        gboolean capacity, gdouble x, gdouble y, gdouble w,
                                        gdouble h);

/* Ticks: a "nice" step for a range so labels are at least min_gap apart. */
gdouble  mp_nice_step_decimal (gdouble range, gdouble pixels, gdouble min_gap);
guint64  mp_nice_step_binary  (gdouble range, gdouble pixels, gdouble min_gap);

G_END_DECLS

G_BEGIN_DECLS
void mp_render_resolve_viewport (const MpRenderIndex *index, const MpViewport *in,
                                 MpViewport *out);
/* Layout of one plan's frame inside (x, y, width, height); x_labels FALSE
 * leaves out the step labels (stacked plans share the bottom one's). */
void mp_render_layout_frame     (const MpRenderIndex *index, const MpRenderOptions *options,
                                 gdouble x, gdouble y, gdouble width, gdouble height,
                                 gboolean x_labels, MpRenderLayout *layout);
gint mp_render_layout_hit       (const MpRenderIndex *index, const MpRenderLayout *layout,
                                 gdouble x, gdouble y);
/* Everything of one plan but the background and the legend. */
void mp_render_frame            (cairo_t *cr, const MpRenderIndex *index,
                                 const MpRenderOptions *options, const MpRenderLayout *layout,
                                 gboolean x_labels, MpText *text);
G_END_DECLS
