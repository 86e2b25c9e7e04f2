/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-render"

#include <math.h>
#include <string.h>

#include "render-private.h"

G_DEFINE_QUARK (mp-render-error-quark, mp_render_error)

static MpRenderRect
rect_round (gdouble x, gdouble y, gdouble width, gdouble height)
{
  MpRenderRect r;

  /* whole pixels, so clips and rectangles stay on cairo's fast paths */
  r.x = round (x);
  r.y = round (y);
  r.width = MAX (round (x + width) - r.x, 0);
  r.height = MAX (round (y + height) - r.y, 0);
  return r;
}

void
mp_render_resolve_viewport (const MpRenderIndex *index, const MpViewport *in, MpViewport *out)
{
  MpViewport full;

  mp_render_full_viewport (index, &full);
  *out = full;
  if (in && in->step_max > in->step_min)
    {
      out->step_min = in->step_min;
      out->step_max = in->step_max;
    }
  if (in && in->addr_max > in->addr_min)
    {
      out->addr_min = in->addr_min;
      out->addr_max = in->addr_max;
    }
}

void
mp_render_layout_frame (const MpRenderIndex *index, const MpRenderOptions *options,
                        gdouble x, gdouble y, gdouble width, gdouble height,
                        gboolean x_labels, MpRenderLayout *layout)
{
  gdouble       f = mp_render_font_px (options);
  MpRenderFlags flags = options ? options->flags : 0;
  gdouble       pad = ceil (f * 0.6);
  gdouble       top = y + pad, bottom, left, right, avail, curve_h, gap, y_axis_w, x_axis_h;

  memset (layout, 0, sizeof *layout);
  if (!(flags & MP_RENDER_HIDE_TITLE))
    {
      layout->title = rect_round (x + pad, top, width - 2 * pad, f * 1.5);
      top += f * 1.6;
    }
  if (!(flags & MP_RENDER_HIDE_LEGEND))
    {
      layout->legend = rect_round (x + pad, top, width - 2 * pad, f * 1.5);
      top += f * 1.7;
    }
  y_axis_w = (flags & MP_RENDER_HIDE_AXES) ? 0 : f * 6.5;
  x_axis_h = (flags & MP_RENDER_HIDE_AXES) || !x_labels ? 0 : f * 3.0;
  bottom = y + height - pad - x_axis_h;
  left = x + pad + y_axis_w;
  right = x + width - pad - f * 0.5;
  avail = MAX (bottom - top, 0);
  curve_h = (flags & MP_RENDER_HIDE_CURVE) ? 0 : CLAMP (avail * 0.16, f * 3, f * 7);
  gap = curve_h > 0 ? f * 0.8 : 0;
  if (curve_h + gap > avail * 0.5)
    curve_h = gap = 0;
  layout->plot = rect_round (left, top, MAX (right - left, 1), MAX (avail - curve_h - gap, 1));
  layout->curve = rect_round (left, layout->plot.y + layout->plot.height + gap, layout->plot.width,
                              curve_h);
  layout->x_axis = rect_round (left, bottom, layout->plot.width, x_axis_h);
  layout->y_axis = rect_round (x + pad, top, MAX (y_axis_w - f * 0.5, 0), avail);
  mp_render_resolve_viewport (index, options ? &options->viewport : NULL, &layout->viewport);
}

void
mp_render_layout (const MpRenderIndex *index, const MpRenderOptions *options, gdouble width,
                  gdouble height, MpRenderLayout *layout)
{
  g_return_if_fail (index != NULL && layout != NULL);
  mp_render_layout_frame (index, options, 0, 0, width, height, TRUE, layout);
}

void
mp_render_layout_to_data (const MpRenderLayout *layout, gdouble x, gdouble y, gdouble *step,
                          gdouble *address)
{
  const MpViewport   *v = &layout->viewport;
  const MpRenderRect *p = &layout->plot;

  if (step)
    *step = v->step_min + (x - p->x) / MAX (p->width, 1) * (v->step_max - v->step_min);
  if (address)
    *address = v->addr_min + (p->y + p->height - y) / MAX (p->height, 1) *
                               (v->addr_max - v->addr_min);
}

void
mp_render_layout_to_device (const MpRenderLayout *layout, gdouble step, gdouble address,
                            gdouble *x, gdouble *y)
{
  const MpViewport   *v = &layout->viewport;
  const MpRenderRect *p = &layout->plot;

  if (x)
    *x = p->x + (step - v->step_min) / (v->step_max - v->step_min) * p->width;
  if (y)
    *y = p->y + p->height - (address - v->addr_min) / (v->addr_max - v->addr_min) * p->height;
}

gint
mp_render_layout_hit (const MpRenderIndex *index, const MpRenderLayout *layout, gdouble x,
                      gdouble y)
{
  const MpRenderRect *p = &layout->plot;
  gdouble             step, address;

  if (x < p->x || x >= p->x + p->width || y < p->y || y >= p->y + p->height)
    return -1;
  mp_render_layout_to_data (layout, x, y, &step, &address);
  if (step < 0 || address < 0)
    return -1;
  return mp_render_index_lookup (index, (guint) floor (step), (guint64) floor (address));
}

gint
mp_render_hit_test (const MpRenderIndex *index, const MpRenderOptions *options, gdouble width,
                    gdouble height, gdouble x, gdouble y)
{
  MpRenderLayout layout;

  g_return_val_if_fail (index != NULL, -1);
  mp_render_layout (index, options, width, height, &layout);
  return mp_render_layout_hit (index, &layout, x, y);
}

void
mp_render_frame (cairo_t *cr, const MpRenderIndex *index, const MpRenderOptions *options,
                 const MpRenderLayout *layout, gboolean x_labels, MpText *text)
{
  MpRenderFlags flags = options->flags;

  if (!(flags & MP_RENDER_HIDE_FREE))
    mp_render_draw_free (cr, index, options, layout);
  if (!(flags & MP_RENDER_HIDE_AXES))
    mp_render_draw_grid (cr, options, layout, index->plan->arena, TRUE);
  mp_render_draw_segments (cr, index, options, layout);
  mp_render_draw_timeline (cr, index, options, layout, text);
  if (!(flags & MP_RENDER_HIDE_LINES))
    mp_render_draw_lines (cr, index, options, layout, text);
  if (!(flags & MP_RENDER_HIDE_LINES))
    mp_render_draw_spill (cr, index, options, layout, text);
  if (layout->curve.height > 0)
    mp_render_draw_curve (cr, index, options, layout, text);
  if (!(flags & MP_RENDER_HIDE_AXES))
    {
      mp_render_draw_y_axis (cr, options, layout, index->plan->arena, text);
      if (x_labels)
        mp_render_draw_x_axis (cr, index, options, layout, text);
    }
  if (!(flags & MP_RENDER_HIDE_TITLE))
    mp_render_draw_title (cr, index, options, &layout->title, text);
  if (index->n == 0)
    mp_render_draw_note (cr, options, &layout->plot, "no tensors to plan", text);
}

void
mp_render_plan (cairo_t *cr, const MpRenderIndex *index, const MpRenderOptions *options,
                gdouble width, gdouble height)
{
  static const MpRenderOptions defaults = { 0 };
  MpRenderLayout               layout;
  MpText                       text;
  const MpPalette             *palette;

  g_return_if_fail (cr != NULL && index != NULL);
  if (options == NULL)
    options = &defaults;
  palette = mp_palette_get (options->theme);
  mp_render_layout (index, options, width, height, &layout);

  cairo_save (cr);
  mp_cairo_set_rgb (cr, palette->background);
  cairo_rectangle (cr, 0, 0, width, height);
  cairo_fill (cr);
  mp_text_init (&text, cr, mp_render_font_px (options));
  mp_render_frame (cr, index, options, &layout, TRUE, &text);
  if (!(options->flags & MP_RENDER_HIDE_LEGEND))
    mp_render_draw_legend (cr, index, options, &layout.legend, &text);
  mp_text_clear (&text);
  cairo_restore (cr);
}
