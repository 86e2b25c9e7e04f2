/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-render"

/* Everything around the rectangles: free space, grid, axes, the arena and
 * lower-bound lines, the live-bytes strip, the title line and the legend. */

#include <math.h>
#include <string.h>

#include "render-private.h"

static gdouble
x_of (const MpRenderLayout *l, gdouble step)
{
  gdouble x;

  mp_render_layout_to_device (l, step, 0, &x, NULL);
  return x;
}

static gdouble
y_of (const MpRenderLayout *l, gdouble address)
{
  gdouble y;

  mp_render_layout_to_device (l, 0, address, NULL, &y);
  return y;
}

/* The labelled ticks of the address axis: none above the arena (top), the
 * room left above it for its label has none. */
static guint
y_ticks (const MpRenderLayout *l, gdouble top, gdouble f, MpTick ticks[MP_MAX_TICKS])
{
  const MpViewport *v = &l->viewport;
  gdouble           hi = top > v->addr_min ? MIN (top, v->addr_max) : v->addr_max;
  gdouble           pixels = (hi - v->addr_min) * l->plot.height / (v->addr_max - v->addr_min);

  return mp_render_value_ticks (v->addr_min, hi, pixels, f * 2.8, ticks);
}

static gdouble
x_tick_step (const MpRenderLayout *l, gdouble f)
{
  return mp_nice_step_decimal (l->viewport.step_max - l->viewport.step_min, l->plot.width, f * 5.5);
}

/* A label on a translucent plate so it reads over rectangles. */
static void
plate_text (cairo_t *cr, MpText *text, const MpPalette *palette, MpRgb ink, gdouble x, gdouble y)
{
  gdouble w, h;

  mp_text_size (text, &w, &h);
  mp_cairo_set_rgba (cr, palette->background, 0.85);
  cairo_rectangle (cr, x - 3, y, w + 6, h);
  cairo_fill (cr);
  mp_cairo_set_rgb (cr, ink);
  mp_text_draw (text, cr, x, y);
}

void
mp_render_draw_free (cairo_t *cr, const MpRenderIndex *index, const MpRenderOptions *options,
                     const MpRenderLayout *layout)
{
  const MpPalette    *palette = mp_palette_get (options->theme);
  const MpRenderRect *p = &layout->plot;
  gdouble             x0 = MAX (x_of (layout, 0), p->x);
  gdouble             x1 = MIN (x_of (layout, index->n_steps), p->x + p->width);
  gdouble             y0 = MAX (y_of (layout, index->plan->arena), p->y);
  gdouble             y1 = MIN (y_of (layout, 0), p->y + p->height);
  cairo_surface_t    *tile;
  cairo_t            *tc;
  cairo_pattern_t    *hatch;

  if (x1 <= x0 || y1 <= y0)
    return;
  x0 = round (x0);
  x1 = round (x1);
  y0 = round (y0);
  y1 = round (y1);
  mp_cairo_set_rgb (cr, palette->free);
  cairo_rectangle (cr, x0, y0, x1 - x0, y1 - y0);
  cairo_fill (cr);

  /* diagonal hatching: free space inside the arena is the waste to hunt */
  tile = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 8, 8);
  tc = cairo_create (tile);
  mp_cairo_set_rgb (tc, palette->free_hatch);
  cairo_set_line_width (tc, 1.2);
  cairo_move_to (tc, -1, 9);
  cairo_line_to (tc, 9, -1);
  cairo_move_to (tc, -1, 1);
  cairo_line_to (tc, 1, -1);
  cairo_move_to (tc, 7, 9);
  cairo_line_to (tc, 9, 7);
  cairo_stroke (tc);
  cairo_destroy (tc);
  hatch = cairo_pattern_create_for_surface (tile);
  cairo_pattern_set_extend (hatch, CAIRO_EXTEND_REPEAT);
  cairo_set_source (cr, hatch);
  cairo_rectangle (cr, x0, y0, x1 - x0, y1 - y0);
  cairo_fill (cr);
  cairo_pattern_destroy (hatch);
  cairo_surface_destroy (tile);
}

void
mp_render_draw_grid (cairo_t *cr, const MpRenderOptions *options, const MpRenderLayout *layout,
                     gdouble top, gboolean x_ticks)
{
  const MpPalette    *palette = mp_palette_get (options->theme);
  const MpRenderRect *p = &layout->plot;
  const MpViewport   *v = &layout->viewport;
  gdouble             f = mp_render_font_px (options);
  MpTick              ticks[MP_MAX_TICKS];
  guint               n = y_ticks (layout, top, f, ticks);
  gdouble             xstep = x_tick_step (layout, f);

  cairo_save (cr);
  cairo_set_line_width (cr, 1);
  mp_cairo_set_rgba (cr, palette->grid, 0.9);
  for (guint i = 0; i < n; i++)
    {
      gdouble y = round (y_of (layout, ticks[i].value)) + 0.5;

      if (y < p->y || y > p->y + p->height)
        continue;
      cairo_move_to (cr, p->x, y);
      cairo_line_to (cr, p->x + p->width, y);
    }
  for (gdouble s = ceil (MAX (v->step_min, 0) / xstep) * xstep; x_ticks && s < v->step_max;
       s += xstep)
    {
      gdouble x = round (x_of (layout, s + 0.5)) + 0.5;

      if (x < p->x || x > p->x + p->width)
        continue;
      cairo_move_to (cr, x, p->y);
      cairo_line_to (cr, x, p->y + p->height);
    }
  cairo_stroke (cr);
  cairo_restore (cr);
}

void
mp_render_draw_lines (cairo_t *cr, const MpRenderIndex *index, const MpRenderOptions *options,
                      const MpRenderLayout *layout, MpText *text)
{
  const MpPalette    *palette = mp_palette_get (options->theme);
  const MpRenderRect *p = &layout->plot;
  const MpPlan       *plan = index->plan;
  gdouble             ya = round (y_of (layout, plan->arena));
  gdouble             yl = round (y_of (layout, plan->lower_bound));
  gdouble             right = p->x + p->width - 4, w, h;
  static const double dash[] = { 6, 4 };

  if (index->n == 0)
    return;
  cairo_save (cr);
  cairo_rectangle (cr, p->x, p->y, p->width, p->height);
  cairo_clip (cr);
  gdouble ax = 0, ay = 0, aw = 0, ah = 0; /* the arena label's box, when drawn */

  if (ya >= p->y && ya <= p->y + p->height)
    {
      g_autofree char *b = mp_format_bytes (plan->arena);
      g_autofree char *s = g_strdup_printf ("%s %s", plan->no_arena ? "footprint" : "arena", b);

      cairo_set_line_width (cr, 1.5);
      mp_cairo_set_rgb (cr, palette->arena);
      cairo_move_to (cr, p->x, ya);
      cairo_line_to (cr, p->x + p->width, ya);
      cairo_stroke (cr);
      mp_text_set (text, s, TRUE);
      mp_text_size (text, &aw, &ah);
      ax = right - aw;
      /* above its line; below it when the line is the top of the plot */
      ay = ya - ah - 2 >= p->y ? ya - ah - 2 : ya + 2;
      plate_text (cr, text, palette, palette->arena, ax, ay);
    }
  if (yl >= p->y && yl <= p->y + p->height)
    {
      g_autofree char *b = mp_format_bytes (plan->lower_bound);
      g_autofree char *s = g_strdup_printf ("lower bound %s", b);
      gdouble          lx, ly;

      cairo_set_line_width (cr, 1.5);
      cairo_set_dash (cr, dash, G_N_ELEMENTS (dash), 0);
      mp_cairo_set_rgb (cr, palette->lower_bound);
      cairo_move_to (cr, p->x, yl);
      cairo_line_to (cr, p->x + p->width, yl);
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
      mp_text_set (text, s, TRUE);
      mp_text_size (text, &w, &h);
      /* below its line (above it when the line is near the bottom of a
       * short plot); left of the arena label when the two would meet (an
       * arena at or near the lower bound) */
      lx = right - w;
      ly = yl + 2 + h <= p->y + p->height ? yl + 2 : yl - h - 2;
      if (aw > 0 && ly < ay + ah && ly + h > ay)
        lx = ax - w - 8;
      plate_text (cr, text, palette, palette->lower_bound, lx, ly);
    }
  cairo_restore (cr);
}

void
mp_render_draw_curve (cairo_t *cr, const MpRenderIndex *index, const MpRenderOptions *options,
                      const MpRenderLayout *layout, MpText *text)
{
  const MpPalette    *palette = mp_palette_get (options->theme);
  const MpRenderRect *c = &layout->curve;
  const MpViewport   *v = &layout->viewport;
  gdouble             spp = (v->step_max - v->step_min) / MAX (layout->plot.width, 1);
  gdouble             top = MAX (index->live_max, 1), bottom = c->y + c->height;
  gdouble             peak_x, f = text->px, w, h;
  gint                cols = (gint) c->width;
  gboolean            started = FALSE;

  cairo_save (cr);
  mp_cairo_set_rgb (cr, palette->free);
  cairo_rectangle (cr, c->x, c->y, c->width, c->height);
  cairo_fill (cr);
  cairo_rectangle (cr, c->x, c->y, c->width, c->height);
  cairo_clip (cr);

  /* one column per pixel, its height the most live bytes of its steps */
  cairo_move_to (cr, c->x, bottom);
  for (gint col = 0; col < cols && index->n_steps > 0; col++)
    {
      gdouble sa = v->step_min + col * spp, sb = sa + spp;
      gint64  a = (gint64) floor (sa), b = (gint64) ceil (sb);
      guint64 m = 0;

      a = MAX (a, 0);
      b = MIN (b, (gint64) index->n_steps);
      for (gint64 s = a; s < b; s++)
        m = MAX (m, index->live[s]);
      if (a >= b)
        continue;
      if (!started)
        cairo_line_to (cr, c->x + col, bottom);
      started = TRUE;
      cairo_line_to (cr, c->x + col, bottom - m / top * (c->height - 2));
      cairo_line_to (cr, c->x + col + 1, bottom - m / top * (c->height - 2));
    }
  cairo_get_current_point (cr, &w, &h);
  cairo_line_to (cr, w, bottom);
  cairo_close_path (cr);
  mp_cairo_set_rgba (cr, palette->curve, 0.55);
  cairo_fill (cr);

  peak_x = x_of (layout, index->peak_step + 0.5);
  if (index->n > 0 && peak_x >= c->x && peak_x <= c->x + c->width)
    {
      static const double dash[] = { 3, 3 };
      g_autofree char    *b = mp_format_bytes (index->live_max);
      g_autofree char    *s = NULL;

      g_autofree char    *where = mp_render_step_words (index, index->peak_step);

      s = g_strdup_printf ("peak %s at %s", b, where);
      cairo_set_line_width (cr, 1.5);
      cairo_set_dash (cr, dash, 2, 0);
      mp_cairo_set_rgb (cr, palette->peak);
      cairo_move_to (cr, round (peak_x) + 0.5, c->y);
      cairo_line_to (cr, round (peak_x) + 0.5, bottom);
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
      mp_text_set (text, s, TRUE);
      mp_text_size (text, &w, &h);
      plate_text (cr, text, palette, palette->peak,
                  peak_x + f * 0.5 + w <= c->x + c->width ? peak_x + f * 0.5
                                                          : MAX (peak_x - f * 0.5 - w, c->x + 3),
                  c->y + 1);
    }
  cairo_restore (cr);

  if (!(options->flags & MP_RENDER_HIDE_AXES))
    {
      mp_text_set (text, "live bytes", FALSE);
      mp_text_size (text, &w, &h);
      mp_cairo_set_rgb (cr, palette->foreground);
      mp_text_draw (text, cr, c->x - f * 0.5 - w, c->y + (c->height - h) / 2);
    }
}

void
mp_render_draw_y_axis (cairo_t *cr, const MpRenderOptions *options, const MpRenderLayout *layout,
                       gdouble top, MpText *text)
{
  const MpPalette    *palette = mp_palette_get (options->theme);
  const MpRenderRect *p = &layout->plot;
  gdouble             f = mp_render_font_px (options);
  MpTick              ticks[MP_MAX_TICKS];
  guint               n = y_ticks (layout, top, f, ticks);

  cairo_save (cr);
  cairo_set_line_width (cr, 1);
  mp_cairo_set_rgba (cr, palette->foreground, 0.7);
  cairo_move_to (cr, p->x - 0.5, p->y);
  cairo_line_to (cr, p->x - 0.5, p->y + p->height + 0.5);
  cairo_line_to (cr, p->x + p->width, p->y + p->height + 0.5);
  cairo_stroke (cr);
  for (guint i = 0; i < n; i++)
    {
      const char *s = ticks[i].label;
      gdouble     y = round (y_of (layout, ticks[i].value)) + 0.5, w, h;

      if (y < p->y || y > p->y + p->height + 1)
        continue;
      mp_cairo_set_rgba (cr, palette->foreground, 0.7);
      cairo_move_to (cr, p->x - 5, y);
      cairo_line_to (cr, p->x, y);
      cairo_stroke (cr);
      mp_text_set (text, s, FALSE);
      mp_text_size (text, &w, &h);
      mp_cairo_set_rgb (cr, palette->foreground);
      mp_text_draw (text, cr, p->x - 7 - w, CLAMP (y - h / 2, p->y - h / 2, p->y + p->height - h / 2));
    }
  cairo_restore (cr);
}

void
mp_render_draw_x_axis (cairo_t *cr, const MpRenderIndex *index, const MpRenderOptions *options,
                       const MpRenderLayout *layout, MpText *text)
{
  const MpPalette    *palette = mp_palette_get (options->theme);
  const MpRenderRect *x_axis = &layout->x_axis;
  const MpRenderRect *p = &layout->plot;
  const MpViewport   *v = &layout->viewport;
  const MpGraph      *graph = index->graph;
  gdouble             f = mp_render_font_px (options);
  gdouble             xstep = x_tick_step (layout, f);
  gdouble             pps = p->width / (v->step_max - v->step_min), w, h;
  gdouble             y = x_axis->y + 3;
  /* a multistream plan counts parallel groups, not ops */
  gboolean            groups = index->plan->parallel;
  gboolean            ops = graph->has_ops && !groups && pps >= f * 3;

  cairo_save (cr);
  for (gdouble s = ceil (MAX (v->step_min, 0) / xstep) * xstep; s < v->step_max; s += xstep)
    {
      g_autofree char *str = mp_render_step_label (index, (guint) s);
      gdouble          x = round (x_of (layout, s + 0.5)) + 0.5;

      if (x < p->x || x > p->x + p->width)
        continue;
      mp_cairo_set_rgba (cr, palette->foreground, 0.7);
      cairo_set_line_width (cr, 1);
      cairo_move_to (cr, x, x_axis->y - 2);
      cairo_line_to (cr, x, x_axis->y + 2);
      cairo_stroke (cr);
      mp_text_set (text, str, FALSE);
      mp_text_size (text, &w, &h);
      mp_cairo_set_rgb (cr, palette->foreground);
      /* never under the axis title, left of the plot */
      mp_text_draw (text, cr, CLAMP (x - w / 2, p->x - f * 0.2, p->x + p->width + f * 0.4 - w), y);
    }
  /* zoomed in: the op of every step, shortened to its column */
  if (ops)
    {
      gint64 a = (gint64) MAX (floor (v->step_min), 0);
      gint64 b = (gint64) MIN (ceil (v->step_max), graph->n_ops);

      pango_layout_set_ellipsize (text->layout, PANGO_ELLIPSIZE_END);
      for (gint64 s = a; s < b; s++)
        {
          gdouble x = x_of (layout, s + 0.5);

          mp_text_set (text, graph->ops[s].name, FALSE);
          pango_layout_set_width (text->layout, (int) ((pps - 4) * PANGO_SCALE));
          mp_text_size (text, &w, &h);
          if (x - w / 2 < p->x - 2 || x + w / 2 > p->x + p->width + 2)
            continue;
          mp_cairo_set_rgba (cr, palette->foreground, 0.8);
          mp_text_draw (text, cr, x - w / 2, y + f * 1.35);
        }
      pango_layout_set_ellipsize (text->layout, PANGO_ELLIPSIZE_NONE);
    }
  mp_cairo_set_rgb (cr, palette->foreground);
  mp_text_set (text, groups ? "group" : "step", TRUE);
  mp_text_size (text, &w, &h);
  mp_text_draw (text, cr, p->x - f * 0.5 - w, y);
  if (ops)
    {
      mp_text_set (text, "op", TRUE);
      mp_text_size (text, &w, &h);
      mp_text_draw (text, cr, p->x - f * 0.5 - w, y + f * 1.35);
    }
  cairo_restore (cr);
}

void
mp_render_draw_title (cairo_t *cr, const MpRenderIndex *index, const MpRenderOptions *options,
                      const MpRenderRect *rect, MpText *text)
{
  const MpPalette *palette = mp_palette_get (options->theme);
  const MpPlan    *plan = index->plan;
  const char      *graph_name = plan->graph_name ? plan->graph_name : index->graph->name;
  g_autofree char *rank = index->rank == 0 ? g_strdup ("")
                          : g_strdup_printf ("%s%u. ", index->rank == 1 ? "★ " : "", index->rank);
  g_autofree char *head = g_strdup_printf ("%s%s · %s", rank, graph_name ? graph_name : "graph",
                                           plan->planner ? plan->planner : "plan");
  g_autofree char *arena = mp_format_bytes (plan->arena);
  g_autofree char *lb = mp_format_bytes (plan->lower_bound);
  g_autofree char *rest = NULL;
  gdouble          w, h;
  /* a plan valid in op order may still clash when the streams run together */
  gboolean         clash = mp_plan_races (plan);
  gboolean         bad = (plan->checked && !plan->valid) || clash;
  const char      *problem = clash ? plan->concurrent_problem : plan->problem;

  if (index->memory_name)
    {
      g_autofree char *memory = mp_render_memory_head (index);

      g_free (head);
      head = g_strdup_printf ("%s%s · %s · %s", rank, graph_name ? graph_name : "graph",
                              plan->planner ? plan->planner : "plan", memory);
      rest = mp_render_memory_rest (index);
    }
  else if (options->flags & MP_RENDER_PARTIAL)
    rest = g_strdup_printf ("arena so far %s · lower bound %s", arena, lb);
  else
    rest = g_strdup_printf ("%s %s · lower bound %s · ratio %.3f · fragmentation %.1f%% · "
                            "%u tensors%s%s",
                            /* malloc'd blocks: no allocator arena to name */
                            plan->no_arena ? "footprint (no arena)" : "arena", arena, lb,
                            mp_plan_ratio (plan),
                            100.0 * mp_plan_fragmentation (plan), plan->n_records,
                            !bad ? "" : clash ? " · races when streams run concurrently: "
                                              : " · INVALID: ",
                            bad && problem ? problem : "");
  cairo_save (cr);
  mp_cairo_set_rgb (cr, palette->foreground);
  mp_text_set (text, head, TRUE);
  mp_text_size (text, &w, &h);
  mp_text_draw (text, cr, rect->x, rect->y + (rect->height - h) / 2);
  if (rect->width - w - text->px > text->px * 3)
    {
      mp_text_set (text, rest, FALSE);
      pango_layout_set_ellipsize (text->layout, PANGO_ELLIPSIZE_END);
      pango_layout_set_width (text->layout, (int) ((rect->width - w - text->px) * PANGO_SCALE));
      if (bad)
        mp_cairo_set_rgb (cr, palette->lower_bound);
      mp_text_draw (text, cr, rect->x + w + text->px, rect->y + (rect->height - h) / 2);
      pango_layout_set_ellipsize (text->layout, PANGO_ELLIPSIZE_NONE);
    }
  cairo_restore (cr);
}

typedef struct
{
  cairo_t         *cr;
  MpText          *text;
  const MpPalette *palette;
  gdouble          x, y, right, h;
  gboolean         full;
} Legend;

/* Room for a swatch and its label? Later items are left out, never overlapped. */
static gboolean
legend_room (Legend *l, const char *label, gdouble swatch_w)
{
  gdouble w;

  if (l->full)
    return FALSE;
  mp_text_set (l->text, label, FALSE);
  mp_text_size (l->text, &w, NULL);
  if (l->x + swatch_w + 4 + w > l->right)
    {
      l->full = TRUE;
      return FALSE;
    }
  return TRUE;
}

static void
legend_label (Legend *l, gdouble swatch_w)
{
  gdouble w, h;

  mp_text_size (l->text, &w, &h);
  mp_cairo_set_rgb (l->cr, l->palette->foreground);
  mp_text_draw (l->text, l->cr, l->x + swatch_w + 4, l->y + (l->h - h) / 2);
  l->x += swatch_w + 4 + w + l->text->px * 1.2;
}

static void
legend_swatch (Legend *l, MpRgb color, const char *label)
{
  gdouble s = round (l->text->px * 0.9), y = round (l->y + (l->h - s) / 2);

  if (!legend_room (l, label, s))
    return;
  mp_cairo_set_rgb (l->cr, color);
  cairo_rectangle (l->cr, round (l->x), y, s, s);
  cairo_fill (l->cr);
  legend_label (l, s);
}

void
mp_render_draw_legend (cairo_t *cr, const MpRenderIndex *index, const MpRenderOptions *options,
                       const MpRenderRect *rect, MpText *text)
{
  const MpPalette    *palette = mp_palette_get (options->theme);
  Legend              l = { cr, text, palette, rect->x, rect->y, rect->x + rect->width,
                            rect->height, FALSE };
  gdouble             s = round (text->px * 0.9), my = round (rect->y + rect->height / 2) + 0.5;
  static const double dash[] = { 6, 4 };
  static const MpTensorKind kinds[] = { MP_TENSOR_ACTIVATION, MP_TENSOR_OUTPUT, MP_TENSOR_INPUT,
                                        MP_TENSOR_PARAM };

  cairo_save (cr);
  switch (options->color_by)
    {
    case MP_COLOR_BY_KIND:
      for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
        if (index->kinds_seen & (1u << kinds[i]))
          legend_swatch (&l, palette->keys[mp_kind_color (kinds[i])], mp_tensor_kind_to_string (kinds[i]));
      break;
    case MP_COLOR_BY_OP:
      for (guint k = 0; k + 1 < MP_PALETTE_N_KEYS; k++)
        {
          mp_cairo_set_rgb (cr, palette->keys[k]);
          cairo_rectangle (cr, round (l.x), round (l.y + (l.h - s) / 2), s / 2, s);
          cairo_fill (cr);
          l.x += s / 2;
        }
      legend_swatch (&l, palette->keys[MP_PALETTE_N_KEYS - 1],
                     index->graph->has_ops ? "producing op (colours repeat every 8 ops)"
                                           : "start step (colours repeat every 8 steps)");
      break;
    case MP_COLOR_BY_STREAM:
      for (guint k = 0; k < MIN (index->n_streams, MP_PALETTE_N_KEYS); k++)
        {
          g_autofree char *label = g_strdup_printf ("stream %u", k);

          legend_swatch (&l, palette->keys[k], label);
        }
      if (index->n_streams > MP_PALETTE_N_KEYS && legend_room (&l, "(colours repeat)", 0))
        legend_label (&l, 0);
      break;
    case MP_COLOR_BY_SIZE:
    default:
      for (guint c = 0; c < 6; c++)
        if (index->sizes_seen & (1u << c))
          legend_swatch (&l, palette->sizes[c], mp_size_class_label (c));
      break;
    }

  /* the lines and the free space */
  l.x += text->px;
  if (!(options->flags & MP_RENDER_HIDE_LINES) && legend_room (&l, "arena", s * 2))
    {
      cairo_set_line_width (cr, 1.5);
      mp_cairo_set_rgb (cr, palette->arena);
      cairo_move_to (cr, l.x, my);
      cairo_line_to (cr, l.x + 2 * s, my);
      cairo_stroke (cr);
      legend_label (&l, 2 * s);
    }
  if (legend_room (&l, "sets the arena", s * 2))
    {
      /* the bar on the top edge of the buffers that reach the arena */
      mp_cairo_set_rgb (cr, palette->arena);
      cairo_rectangle (cr, round (l.x), round (my - 2), 2 * s, 4);
      cairo_fill (cr);
      legend_label (&l, 2 * s);
    }
  if (!(options->flags & MP_RENDER_HIDE_LINES) && legend_room (&l, "lower bound", s * 2))
    {
      cairo_set_line_width (cr, 1.5);
      cairo_set_dash (cr, dash, 2, 0);
      mp_cairo_set_rgb (cr, palette->lower_bound);
      cairo_move_to (cr, l.x, my);
      cairo_line_to (cr, l.x + 2 * s, my);
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
      legend_label (&l, 2 * s);
    }
  for (guint c = 0; index->memory_name && c < 2; c++)
    /* "spilled" on every memory's pane: the legend is the figure's, drawn
     * with the first pane, and what spilled is in the others */
    if ((c == 1 || index->capacity != 0) &&
        legend_room (&l, c == 0 ? "capacity" : "spilled", c == 0 ? 2 * s : s))
      {
        mp_render_spill_legend_swatch (cr, options, c == 0, round (l.x),
                                       round (l.y + (l.h - s) / 2), c == 0 ? 2 * s : s, s);
        legend_label (&l, c == 0 ? 2 * s : s);
      }
  if (!(options->flags & MP_RENDER_HIDE_FREE) && legend_room (&l, "free space", s))
    {
      gdouble y = round (l.y + (l.h - s) / 2);

      mp_cairo_set_rgb (cr, palette->free);
      cairo_rectangle (cr, round (l.x), y, s, s);
      cairo_fill (cr);
      mp_cairo_set_rgb (cr, palette->free_hatch);
      cairo_set_line_width (cr, 1.2);
      cairo_move_to (cr, round (l.x), y + s);
      cairo_line_to (cr, round (l.x) + s, y);
      cairo_stroke (cr);
      mp_cairo_set_rgba (cr, palette->foreground, 0.4);
      cairo_set_line_width (cr, 1);
      cairo_rectangle (cr, round (l.x) + 0.5, y + 0.5, s - 1, s - 1);
      cairo_stroke (cr);
      legend_label (&l, s);
    }
  if (index->n_segments > 0 && legend_room (&l, "segment", s * 2))
    {
      gdouble y = round (l.y + (l.h - s) / 2);

      mp_cairo_set_rgba (cr, palette->foreground, 0.06);
      cairo_rectangle (cr, round (l.x) + 0.75, y + 0.75, 2 * s - 1.5, s - 1.5);
      cairo_fill_preserve (cr);
      mp_cairo_set_rgba (cr, palette->foreground, 0.6);
      cairo_set_line_width (cr, 1.5);
      cairo_stroke (cr);
      legend_label (&l, 2 * s);
    }
  if (options->n_highlight > 0 && legend_room (&l, "followed tensor", s))
    {
      gdouble y = round (l.y + (l.h - s) / 2);

      mp_cairo_set_rgb (cr, palette->highlight);
      cairo_set_line_width (cr, 2);
      cairo_rectangle (cr, round (l.x) + 1, y + 1, s - 2, s - 2);
      cairo_stroke (cr);
      legend_label (&l, s);
    }
  cairo_restore (cr);
}

void
mp_render_draw_note (cairo_t *cr, const MpRenderOptions *options, const MpRenderRect *rect,
                     const char *note, MpText *text)
{
  const MpPalette *palette = mp_palette_get (options->theme);
  gdouble          w, h;

  mp_text_set (text, note, FALSE);
  mp_text_size (text, &w, &h);
  mp_cairo_set_rgba (cr, palette->foreground, 0.75);
  mp_text_draw (text, cr, rect->x + (rect->width - w) / 2, rect->y + (rect->height - h) / 2);
}
