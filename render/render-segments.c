/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-render"

#include <math.h>

#include "render-private.h"

/* The caching allocator's segments behind the blocks of an observed plan,
 * as PyTorch's memory_viz segment view shows them: each segment an
 * outlined band over the whole trace, its blocks inside. */

void
mp_render_index_set_segments (MpRenderIndex *index, const MpTrace *trace)
{
  g_return_if_fail (index != NULL && trace != NULL);

  g_clear_pointer (&index->segments, g_free);
  index->n_segments = 0;
  /* malloc'd CPU blocks (and a snapshot converted from a profiler trace)
   * have no segments: their ranges are only where blocks happened to lie */
  if (!trace->has_arena || trace->n_ranges == 0)
    return;
  index->segments = g_memdup2 (trace->ranges, trace->n_ranges * sizeof (MpTraceRange));
  index->n_segments = trace->n_ranges;
}

guint
mp_render_index_n_segments (const MpRenderIndex *index)
{
  return index->n_segments;
}

void
mp_render_draw_segments (cairo_t *cr, const MpRenderIndex *index,
                         const MpRenderOptions *options, const MpRenderLayout *layout)
{
  const MpPalette    *palette = mp_palette_get (options->theme);
  const MpRenderRect *p = &layout->plot;
  const MpViewport   *v = &layout->viewport;
  gdouble             x0, x1;

  if (index->n_segments == 0)
    return;
  mp_render_layout_to_device (layout, 0, 0, &x0, NULL);
  mp_render_layout_to_device (layout, index->n_steps, 0, &x1, NULL);
  cairo_save (cr);
  cairo_rectangle (cr, p->x, p->y, p->width, p->height);
  cairo_clip (cr);
  cairo_set_line_width (cr, 1.5);
  for (guint i = 0; i < index->n_segments; i++)
    {
      const MpTraceRange *s = &index->segments[i];
      gdouble             top, bottom;

      if ((gdouble) s->offset >= v->addr_max || (gdouble) (s->offset + s->size) <= v->addr_min)
        continue;
      mp_render_layout_to_device (layout, 0, s->offset + s->size, NULL, &top);
      mp_render_layout_to_device (layout, 0, s->offset, NULL, &bottom);
      top = round (top) + 0.75;
      bottom = MAX (round (bottom) - 0.75, top);
      mp_cairo_set_rgba (cr, palette->foreground, 0.06);
      cairo_rectangle (cr, round (x0) + 0.75, top, round (x1) - round (x0) - 1.5, bottom - top);
      cairo_fill_preserve (cr);
      mp_cairo_set_rgba (cr, palette->foreground, 0.6);
      cairo_stroke (cr);
    }
  cairo_restore (cr);
}
