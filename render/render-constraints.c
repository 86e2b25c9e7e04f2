/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-render"

/* Per-buffer constraints over the timeline's rectangles (issue 28). The
 * timeline leaves a lifetime gap out of the buffer's rectangle (its window
 * stays as a thinner band); here the hole gets a dashed frame, so the
 * pieces read as one buffer, and a buffer pinned at a fixed offset a pin
 * mark on its top-right corner. */

#include <math.h>

#include "render-private.h"

typedef struct
{
  gdouble sx, sy, px0, py1;
  gdouble step_min, addr_min;
} Scale;

static gdouble
x_of (const Scale *s, gdouble step)
{
  return s->px0 + (step - s->step_min) * s->sx;
}

static gdouble
y_of (const Scale *s, gdouble addr)
{
  return s->py1 - (addr - s->addr_min) * s->sy;
}

static void
draw_gaps (cairo_t *cr, const Scale *s, const MpUsage *rec, guint64 offset, MpRgb fill,
           const MpPalette *palette)
{
  gdouble top = y_of (s, (gdouble) (offset + rec->bytes)), bottom = y_of (s, (gdouble) offset);

  for (guint k = 0; k < rec->n_gaps; k++)
    {
      const MpGap *g = &rec->gaps[k];
      gdouble      xa = round (x_of (s, (gdouble) g->first));
      gdouble      xb = round (x_of (s, (gdouble) g->last + 1));

      if (xb - xa < 1)
        continue;
      /* the rectangle leaves the hole out (render-timeline.c); a dashed
       * frame keeps it reading as one buffer */
      {
        static const double dash[] = { 3.0, 3.0 };

        cairo_save (cr);
        cairo_set_dash (cr, dash, G_N_ELEMENTS (dash), 0);
        cairo_set_line_width (cr, 1.0);
        mp_cairo_set_rgb (cr, mp_rgb_mix (fill, palette->outline, 0.45));
        cairo_rectangle (cr, xa + 0.5, round (top) + 0.5, xb - xa - 1,
                         round (bottom) - round (top) - 1);
        cairo_stroke (cr);
        cairo_restore (cr);
      }
    }
}

/* A drawing pin stuck into the top-right corner (x, y): a round head on a
 * short needle, clear of the label on the left. */
static void
draw_pin (cairo_t *cr, gdouble x, gdouble y, gdouble px, const MpPalette *palette)
{
  gdouble r = MAX (px * 0.45, 4.0);
  gdouble hx = x - 2 - 1.8 * r, hy = y + 2 + 1.8 * r;

  cairo_set_line_width (cr, MAX (px * 0.15, 1.5));
  mp_cairo_set_rgb (cr, palette->foreground);
  cairo_move_to (cr, x - 2, y + 2);
  cairo_line_to (cr, hx, hy);
  cairo_stroke (cr);
  cairo_arc (cr, hx, hy, r, 0, 2 * G_PI);
  mp_cairo_set_rgb (cr, palette->arena);
  cairo_fill_preserve (cr);
  mp_cairo_set_rgb (cr, palette->background);
  cairo_set_line_width (cr, 1.5);
  cairo_stroke (cr);
}

void
mp_render_draw_constraints (cairo_t *cr, const MpRenderIndex *index,
                            const MpRenderOptions *options, const MpRenderLayout *layout,
                            const guint *records, guint n, const guint8 *colors,
                            const guint8 *highlight)
{
  const MpPalette  *palette = mp_palette_get (options->theme);
  const MpViewport *v = &layout->viewport;
  const MpPlan     *plan = index->plan;
  Scale             s = {
    .sx = layout->plot.width / (v->step_max - v->step_min),
    .sy = layout->plot.height / (v->addr_max - v->addr_min),
    .px0 = layout->plot.x,
    .py1 = layout->plot.y + layout->plot.height,
    .step_min = v->step_min,
    .addr_min = v->addr_min,
  };
  gdouble px = mp_render_font_px (options);

  for (guint i = 0; i < n; i++)
    {
      const MpUsage *rec = &plan->records[records[i]];
      guint64        offset = plan->offsets[records[i]];
      MpRgb          fill = mp_palette_color (palette, colors[records[i]]);

      if (highlight && !highlight[rec->tensor])
        fill = mp_rgb_mix (fill, palette->background, palette->dim);
      draw_gaps (cr, &s, rec, offset, fill, palette);
      if (rec->flags & MP_USAGE_FIXED)
        draw_pin (cr, round (x_of (&s, rec->last + 1)), round (y_of (&s, offset + rec->bytes)),
                  px, palette);
    }
}
