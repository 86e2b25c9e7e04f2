/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-render"

/* Several plans of one graph stacked, one step axis, optionally one address
 * scale, so that plans compare at a glance. */

#include <math.h>

#include "render-private.h"

static void
panel_options (const MpRenderOptions *options, MpRenderOptions *out)
{
  static const MpRenderOptions defaults = { 0 };

  *out = options ? *options : defaults;
  out->flags |= MP_RENDER_HIDE_LEGEND | MP_RENDER_HIDE_CURVE;
}

/* The memory strip over the panels: its top and height (0 when hidden),
 * as tall as a panel up to 20 lines of text. */
static void
strip_rect (guint n_indices, const MpRenderOptions *options, gdouble height, gdouble *y,
            gdouble *h)
{
  gdouble f = mp_render_font_px (options);
  gdouble top = 0, axis_h;

  if (options == NULL || !(options->flags & MP_RENDER_HIDE_LEGEND))
    top = ceil (f * 2.3);
  axis_h = options && (options->flags & MP_RENDER_HIDE_AXES) ? 0 : f * 3.0;
  *y = top;
  *h = 0;
  if (options == NULL || !(options->flags & MP_RENDER_HIDE_CURVE))
    *h = round (MIN ((height - top - axis_h) / (n_indices + 1), f * 20));
  /* too little room for its axis and legend: leave it out */
  if (*h < f * 6)
    *h = 0;
}

void
mp_render_compare_layout (MpRenderIndex * const *indices, guint n_indices,
                          const MpRenderOptions *options, gdouble width, gdouble height,
                          MpRenderLayout *layouts)
{
  MpRenderOptions po;
  gdouble         f = mp_render_font_px (options);
  gdouble         top, strip_h, axis_h, panel_h;
  MpViewport      shared = { 0 };

  g_return_if_fail (indices != NULL && n_indices > 0 && layouts != NULL);
  panel_options (options, &po);
  strip_rect (n_indices, options, height, &top, &strip_h);
  top += strip_h;
  axis_h = (po.flags & MP_RENDER_HIDE_AXES) ? 0 : f * 3.0;
  panel_h = MAX ((height - top - axis_h) / n_indices, 1);

  /* one step range for all; one address range too when asked */
  for (guint i = 0; i < n_indices; i++)
    {
      MpViewport v;

      mp_render_resolve_viewport (indices[i], &po.viewport, &v);
      shared.step_min = i == 0 ? v.step_min : MIN (shared.step_min, v.step_min);
      shared.step_max = MAX (shared.step_max, v.step_max);
      shared.addr_min = i == 0 ? v.addr_min : MIN (shared.addr_min, v.addr_min);
      shared.addr_max = MAX (shared.addr_max, v.addr_max);
    }
  for (guint i = 0; i < n_indices; i++)
    {
      gboolean last = i + 1 == n_indices;
      mp_render_layout_frame (indices[i], &po, 0, top + i * panel_h, width,
                              panel_h + (last ? axis_h : 0), last, &layouts[i]);
      layouts[i].viewport.step_min = shared.step_min;
      layouts[i].viewport.step_max = shared.step_max;
      if (po.shared_scale)
        {
          layouts[i].viewport.addr_min = shared.addr_min;
          layouts[i].viewport.addr_max = shared.addr_max;
        }
      else
        {
          MpViewport full;

          mp_render_full_viewport (indices[i], &full);
          layouts[i].viewport.addr_min = full.addr_min;
          layouts[i].viewport.addr_max = full.addr_max;
        }
    }
  /* the legend row spans the figure above the first panel */
  if (top > 0)
    {
      gdouble pad = ceil (f * 0.6);

      layouts[0].legend.x = pad;
      layouts[0].legend.y = pad;
      layouts[0].legend.width = width - 2 * pad;
      layouts[0].legend.height = round (f * 1.5);
    }
}

void
mp_render_compare (cairo_t *cr, MpRenderIndex * const *indices, guint n_indices,
                   const MpRenderOptions *options, gdouble width, gdouble height)
{
  g_autofree MpRenderLayout *layouts = NULL;
  MpRenderOptions            po;
  const MpPalette           *palette;
  MpText                     text;
  gdouble                    strip_y, strip_h;

  g_return_if_fail (cr != NULL && indices != NULL && n_indices > 0);
  panel_options (options, &po);
  palette = mp_palette_get (po.theme);
  layouts = g_new0 (MpRenderLayout, n_indices);
  mp_render_compare_layout (indices, n_indices, options, width, height, layouts);

  cairo_save (cr);
  mp_cairo_set_rgb (cr, palette->background);
  cairo_rectangle (cr, 0, 0, width, height);
  cairo_fill (cr);
  strip_rect (n_indices, options, height, &strip_y, &strip_h);
  if (strip_h > 0)
    {
      /* memory over time first, as the app shows it: who holds how much when */
      cairo_save (cr);
      cairo_translate (cr, 0, strip_y);
      mp_render_memory (cr, indices, n_indices, options, width, strip_h);
      cairo_restore (cr);
    }
  mp_text_init (&text, cr, mp_render_font_px (options));
  for (guint i = 0; i < n_indices; i++)
    mp_render_frame (cr, indices[i], &po, &layouts[i], i + 1 == n_indices, &text);
  if (options == NULL || !(options->flags & MP_RENDER_HIDE_LEGEND))
    mp_render_draw_legend (cr, indices[0], &po, &layouts[0].legend, &text);
  mp_text_clear (&text);
  cairo_restore (cr);
}

gint
mp_render_compare_hit_test (MpRenderIndex * const *indices, guint n_indices,
                            const MpRenderOptions *options, gdouble width, gdouble height,
                            gdouble x, gdouble y, guint *panel)
{
  g_autofree MpRenderLayout *layouts = NULL;

  g_return_val_if_fail (indices != NULL && n_indices > 0, -1);
  layouts = g_new0 (MpRenderLayout, n_indices);
  mp_render_compare_layout (indices, n_indices, options, width, height, layouts);
  for (guint i = 0; i < n_indices; i++)
    {
      const MpRenderRect *p = &layouts[i].plot;

      if (y >= p->y && y < p->y + p->height)
        {
          if (panel)
            *panel = i;
          return mp_render_layout_hit (indices[i], &layouts[i], x, y);
        }
    }
  return -1;
}
