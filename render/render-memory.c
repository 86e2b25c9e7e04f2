/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-render"

/* Memory over time for the plans of one graph in one strip, as allocator
 * viewers show it first: the live bytes (what every plan must hold) as an
 * area, each plan's footprint (the top of its highest live buffer) as a
 * line, the live peak marked on the curve and on the step axis, and a dot
 * where each plan first reaches its arena. */

#include <math.h>
#include <string.h>

#include "render-private.h"

static const MpRenderIndex *
area_index (MpRenderIndex * const *indices, guint n)
{
  /* a plan in op order: multistream's parallel groups count other steps */
  for (guint i = 0; i < n; i++)
    if (!indices[i]->plan->parallel)
      return indices[i];
  return n ? indices[0] : NULL;
}

/* An observed arena more than this many times the rest of the scale is an
 * allocator's reservation (a 2 MiB segment over a few KiB of blocks): it
 * would flatten the live bytes, so it is left off the scale and labelled. */
#define OBSERVED_SCALE_FACTOR 4

/* The scale's top: the largest arena but naive's (which would flatten the
 * rest) and an outsized observed one, and never below the live peak. */
static guint64
scale_top (MpRenderIndex * const *indices, guint n)
{
  guint64 top = 0, any = 0, observed = 0;

  for (guint i = 0; i < n; i++)
    {
      const MpPlan *plan = indices[i]->plan;

      any = MAX (any, plan->arena);
      if (plan->observed)
        observed = MAX (observed, plan->arena);
      else if (!(mp_plan_traits (plan) & MP_PLANNER_BASELINE))
        top = MAX (top, plan->arena);
      top = MAX (top, indices[i]->live_max);
    }
  if (observed && (top == 0 || observed / OBSERVED_SCALE_FACTOR <= top))
    top = MAX (top, observed);
  return top ? top : MAX (any, 1);
}

void
mp_render_memory_layout (MpRenderIndex * const *indices, guint n_indices,
                         const MpRenderOptions *options, gdouble width, gdouble height,
                         MpRenderLayout *layout)
{
  gdouble f = mp_render_font_px (options);
  gdouble pad = ceil (f * 0.6);
  gdouble top = pad + f * 1.6, bottom = height - pad - f * 1.5;
  gdouble left = pad + f * 6.5, right = width - pad - f * 0.5;

  memset (layout, 0, sizeof *layout);
  layout->legend = (MpRenderRect) { left, pad, MAX (right - left, 1), f * 1.5 };
  layout->plot = (MpRenderRect) { left, top, MAX (right - left, 1), MAX (bottom - top, 1) };
  layout->x_axis = (MpRenderRect) { left, bottom, layout->plot.width, f * 1.5 };
  layout->y_axis = (MpRenderRect) { pad, top, f * 6, layout->plot.height };
  if (n_indices == 0)
    {
      layout->viewport = (MpViewport) { 0, 1, 0, 1 };
      return;
    }
  mp_render_resolve_viewport (indices[0], options ? &options->viewport : NULL,
                              &layout->viewport);
  layout->viewport.addr_min = 0;
  layout->viewport.addr_max = scale_top (indices, n_indices) * 1.12;
}

/* Per pixel column, the most of values over its steps, as a stepped line
 * (closed down to the bottom when fill). */
static void
column_path (cairo_t *cr, const MpRenderLayout *l, const guint64 *values, guint n_steps,
             gboolean fill)
{
  const MpRenderRect *p = &l->plot;
  const MpViewport   *v = &l->viewport;
  gdouble             spp = (v->step_max - v->step_min) / MAX (p->width, 1);
  gdouble             sy = p->height / (v->addr_max - v->addr_min), bottom = p->y + p->height;
  gboolean            started = FALSE;
  gdouble             last_x = p->x;

  for (gint col = 0; col < (gint) p->width; col++)
    {
      gint64  a = MAX ((gint64) floor (v->step_min + col * spp), 0);
      gint64  b = MIN ((gint64) ceil (v->step_min + (col + 1) * spp), (gint64) n_steps);
      guint64 m = 0;
      gdouble y;

      if (a >= b)
        continue;
      for (gint64 s = a; s < b; s++)
        m = MAX (m, values[s]);
      y = MAX (bottom - m * sy, p->y - 2);
      if (!started)
        {
          if (fill)
            cairo_move_to (cr, p->x + col, bottom), cairo_line_to (cr, p->x + col, y);
          else
            cairo_move_to (cr, p->x + col, y);
          started = TRUE;
        }
      cairo_line_to (cr, p->x + col, y);
      cairo_line_to (cr, p->x + col + 1, y);
      last_x = p->x + col + 1;
    }
  if (started && fill)
    {
      cairo_line_to (cr, last_x, bottom);
      cairo_close_path (cr);
    }
}

static void
draw_peak (cairo_t *cr, const MpRenderIndex *index, const MpPalette *palette,
           const MpRenderLayout *l, MpText *text)
{
  const MpRenderRect *p = &l->plot;
  static const double dash[] = { 3, 3 };
  gdouble             x, y, w, h, f = text->px;
  g_autofree char    *bytes = mp_format_bytes (index->live_max);
  g_autofree char    *where = mp_render_step_words (index, index->peak_step);
  g_autofree char    *s = g_strdup_printf ("peak %s at %s", bytes, where);

  mp_render_layout_to_device (l, index->peak_step + 0.5, index->live_max, &x, &y);
  if (x < p->x || x > p->x + p->width)
    return;
  x = round (x) + 0.5;
  cairo_set_line_width (cr, 1.5);
  cairo_set_dash (cr, dash, 2, 0);
  mp_cairo_set_rgb (cr, palette->peak);
  cairo_move_to (cr, x, p->y);
  cairo_line_to (cr, x, p->y + p->height);
  cairo_stroke (cr);
  cairo_set_dash (cr, NULL, 0, 0);
  /* on the curve, and a mark on the step axis */
  cairo_arc (cr, x, y, 3.5, 0, 2 * G_PI);
  cairo_fill (cr);
  cairo_move_to (cr, x, p->y + p->height + 1);
  cairo_line_to (cr, x - 5, p->y + p->height + 8);
  cairo_line_to (cr, x + 5, p->y + p->height + 8);
  cairo_close_path (cr);
  cairo_fill (cr);
  mp_text_set (text, s, TRUE);
  mp_text_size (text, &w, &h);
  x = x + f * 0.5 + w <= p->x + p->width ? x + f * 0.5 : MAX (x - f * 0.5 - w, p->x + 3);
  mp_cairo_set_rgba (cr, palette->background, 0.85);
  cairo_rectangle (cr, x - 3, p->y + 1, w + 6, h);
  cairo_fill (cr);
  mp_cairo_set_rgb (cr, palette->peak);
  mp_text_draw (text, cr, x, p->y + 1);
}

/* A dot where the plan's footprint first reaches its arena. */
static void
draw_arena_dot (cairo_t *cr, const MpRenderIndex *index, const MpRenderLayout *l, MpRgb color)
{
  gdouble x, y;

  for (guint s = 0; s < index->n_steps; s++)
    if (index->top[s] == index->plan->arena && index->plan->arena > 0)
      {
        mp_render_layout_to_device (l, s + 0.5, index->plan->arena, &x, &y);
        if (x < l->plot.x || x > l->plot.x + l->plot.width || y < l->plot.y)
          return;
        mp_cairo_set_rgb (cr, color);
        cairo_arc (cr, x, y, 3, 0, 2 * G_PI);
        cairo_fill (cr);
        return;
      }
}

static void
draw_legend (cairo_t *cr, MpRenderIndex * const *indices, guint n, const MpPalette *palette,
             const MpRenderLayout *l, MpText *text)
{
  gdouble x = l->legend.x, right = l->legend.x + l->legend.width, w, h;
  gdouble s = round (text->px * 0.9), my = round (l->legend.y + l->legend.height / 2);

  for (guint i = 0; i <= n; i++)
    {
      g_autofree char *label = NULL;

      if (i == 0)
        label = g_strdup ("live bytes");
      else if (indices[i - 1]->plan->arena > l->viewport.addr_max)
        {
          g_autofree char *b = mp_format_bytes (indices[i - 1]->plan->arena);
          label = g_strdup_printf ("%s (%s, off the scale)", indices[i - 1]->plan->planner, b);
        }
      else
        label = g_strdup (indices[i - 1]->plan->planner);
      mp_text_set (text, label, FALSE);
      mp_text_size (text, &w, &h);
      if (x + 2 * s + 4 + w > right)
        break;
      if (i == 0)
        {
          mp_cairo_set_rgba (cr, palette->curve, 0.55);
          cairo_rectangle (cr, round (x), my - s / 2, 2 * s, s);
          cairo_fill (cr);
        }
      else
        {
          mp_cairo_set_rgb (cr, mp_planner_color (palette, indices[i - 1]->plan));
          cairo_set_line_width (cr, 2);
          cairo_move_to (cr, x, my + 0.5);
          cairo_line_to (cr, x + 2 * s, my + 0.5);
          cairo_stroke (cr);
        }
      mp_cairo_set_rgb (cr, palette->foreground);
      mp_text_draw (text, cr, x + 2 * s + 4, my - h / 2);
      x += 2 * s + 4 + w + text->px * 1.2;
    }
}

static void
draw_axes (cairo_t *cr, const MpRenderIndex *index, const MpPalette *palette,
           const MpRenderLayout *l, MpText *text)
{
  const MpRenderRect *p = &l->plot;
  const MpViewport   *v = &l->viewport;
  gdouble             f = text->px, w, h, title_right;
  MpTick              ticks[MP_MAX_TICKS];
  guint               n = mp_render_value_ticks (0, v->addr_max / 1.12,
                                                 p->height / 1.12, f * 2.2, ticks);
  gdouble             xstep = mp_nice_step_decimal (v->step_max - v->step_min, p->width, f * 5.5);

  cairo_set_line_width (cr, 1);
  for (guint i = 0; i < n; i++)
    {
      gdouble x, y;

      mp_render_layout_to_device (l, 0, ticks[i].value, &x, &y);
      y = round (y) + 0.5;
      mp_cairo_set_rgba (cr, palette->grid, 0.9);
      cairo_move_to (cr, p->x, y);
      cairo_line_to (cr, p->x + p->width, y);
      cairo_stroke (cr);
      mp_text_set (text, ticks[i].label, FALSE);
      mp_text_size (text, &w, &h);
      mp_cairo_set_rgb (cr, palette->foreground);
      mp_text_draw (text, cr, p->x - 7 - w, CLAMP (y - h / 2, p->y - h / 2, p->y + p->height - h));
    }
  mp_text_set (text, index->plan->parallel ? "group" : "step", TRUE);
  mp_text_size (text, &w, &h);
  title_right = p->x - f * 0.5;
  mp_text_draw (text, cr, title_right - w, l->x_axis.y + 2);
  for (gdouble s = ceil (MAX (v->step_min, 0) / xstep) * xstep; s < v->step_max; s += xstep)
    {
      g_autofree char *str = mp_render_step_label (index, (guint) s);
      gdouble          x, y;

      mp_render_layout_to_device (l, s + 0.5, 0, &x, &y);
      if (x < p->x || x > p->x + p->width)
        continue;
      mp_text_set (text, str, FALSE);
      mp_text_size (text, &w, &h);
      mp_cairo_set_rgb (cr, palette->foreground);
      mp_text_draw (text, cr, CLAMP (x - w / 2, p->x - f * 0.2, p->x + p->width - w),
                    l->x_axis.y + 2);
    }
}

void
mp_render_memory (cairo_t *cr, MpRenderIndex * const *indices, guint n_indices,
                  const MpRenderOptions *options, gdouble width, gdouble height)
{
  static const MpRenderOptions defaults = { 0 };
  const MpPalette             *palette;
  const MpRenderIndex         *area;
  MpRenderLayout               l;
  MpText                       text;

  g_return_if_fail (cr != NULL);
  if (options == NULL)
    options = &defaults;
  palette = mp_palette_get (options->theme);
  mp_render_memory_layout (indices, n_indices, options, width, height, &l);
  cairo_save (cr);
  mp_cairo_set_rgb (cr, palette->background);
  cairo_rectangle (cr, 0, 0, width, height);
  cairo_fill (cr);
  mp_text_init (&text, cr, mp_render_font_px (options));
  area = area_index (indices, n_indices);
  if (area == NULL)
    {
      mp_render_draw_note (cr, options, &l.plot, "no plans", &text);
      mp_text_clear (&text);
      cairo_restore (cr);
      return;
    }
  draw_axes (cr, area, palette, &l, &text);

  cairo_save (cr);
  cairo_rectangle (cr, l.plot.x, l.plot.y - 3, l.plot.width, l.plot.height + 3);
  cairo_clip (cr);
  column_path (cr, &l, area->live, area->n_steps, TRUE);
  mp_cairo_set_rgba (cr, palette->curve, 0.45);
  cairo_fill (cr);
  cairo_set_line_width (cr, 1.5);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_BEVEL);
  for (guint i = 0; i < n_indices; i++)
    {
      /* a multistream plan's steps are parallel groups: another axis */
      if (indices[i]->plan->parallel != area->plan->parallel)
        continue;
      column_path (cr, &l, indices[i]->top, indices[i]->n_steps, FALSE);
      mp_cairo_set_rgb (cr, mp_planner_color (palette, indices[i]->plan));
      cairo_stroke (cr);
      draw_arena_dot (cr, indices[i], &l, mp_planner_color (palette, indices[i]->plan));
    }
  cairo_restore (cr);
  draw_peak (cr, area, palette, &l, &text);
  draw_legend (cr, indices, n_indices, palette, &l, &text);
  mp_text_clear (&text);
  cairo_restore (cr);
}
