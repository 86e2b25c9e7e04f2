/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-render"

/* One pane per memory (analysis/memories.h): the title says "sram 200 KiB
 * of 256 KiB", a line marks the capacity, and the buffers the spill rule
 * moved into this memory are outlined and tagged "spilled". */

#include <math.h>

#include "render-private.h"

/* Okabe–Ito reddish purple: apart from the arena (black) and the lower
 * bound (orange) lines. */
static MpRgb
capacity_color (const MpRenderOptions *options)
{
  return options->theme == MP_THEME_DARK ? (MpRgb) { 0.91, 0.64, 0.80 }
                                         : (MpRgb) { 0.80, 0.47, 0.65 };
}

void
mp_render_index_set_memory (MpRenderIndex *index, const char *name, guint64 capacity,
                            const guint *spilled, guint n_spilled)
{
  g_autofree guint8 *is_spilled = NULL;

  g_return_if_fail (index != NULL && name != NULL);
  g_free (index->memory_name);
  index->memory_name = g_strdup (name);
  index->capacity = capacity;
  g_clear_pointer (&index->spilled, g_free);
  index->n_spilled = 0;
  index->spilled_bytes = 0;
  if (n_spilled == 0)
    return;
  is_spilled = g_new0 (guint8, index->graph->n_tensors);
  for (guint i = 0; i < n_spilled; i++)
    if (spilled[i] < index->graph->n_tensors)
      is_spilled[spilled[i]] = 1;
  index->spilled = g_new0 (guint8, MAX (index->n, 1));
  for (guint r = 0; r < index->n; r++)
    if (is_spilled[index->plan->records[r].tensor])
      {
        index->spilled[r] = 1;
        index->n_spilled++;
        index->spilled_bytes += index->plan->records[r].bytes;
      }
}

char *
mp_render_memory_head (const MpRenderIndex *index)
{
  g_autofree char *arena = mp_format_bytes (index->plan->arena);
  g_autofree char *capacity = index->capacity ? mp_format_bytes (index->capacity)
                                              : g_strdup ("unbounded");

  return g_strdup_printf ("%s %s of %s", index->memory_name, arena, capacity);
}

char *
mp_render_memory_rest (const MpRenderIndex *index)
{
  g_autofree char *lb = mp_format_bytes (index->plan->lower_bound);
  g_autofree char *moved = mp_format_bytes (index->spilled_bytes);

  return g_strdup_printf ("lower bound %s · %u tensors%s%s%s%s", lb, index->plan->n_records,
                          index->n_spilled ? " · spilled here: " : "",
                          index->n_spilled ? moved : "",
                          index->capacity && index->plan->arena > index->capacity
                            ? " · OVER CAPACITY" : "",
                          index->plan->checked && !index->plan->valid ? " · INVALID" : "");
}

/* The capacity line and the spilled buffers' marks, over the rectangles. */
void
mp_render_draw_spill (cairo_t *cr, const MpRenderIndex *index, const MpRenderOptions *options,
                      const MpRenderLayout *layout, MpText *text)
{
  const MpRenderRect *p = &layout->plot;
  const MpPlan       *plan = index->plan;
  MpRgb               ink = capacity_color (options);
  static const double dash[] = { 10, 3, 2, 3 };
  gdouble             x, y, w, h;

  if (index->memory_name == NULL)
    return;
  cairo_save (cr);
  cairo_rectangle (cr, p->x, p->y, p->width, p->height);
  cairo_clip (cr);
  for (guint r = 0; index->spilled && r < index->n; r++)
    {
      const MpUsage *rec = &plan->records[r];
      gdouble        x0, y0, x1, y1;

      if (!index->spilled[r])
        continue;
      mp_render_layout_to_device (layout, rec->first, plan->offsets[r] + rec->bytes, &x0, &y0);
      mp_render_layout_to_device (layout, rec->last + 1, plan->offsets[r], &x1, &y1);
      cairo_set_line_width (cr, 2.5);
      mp_cairo_set_rgb (cr, ink);
      cairo_rectangle (cr, round (x0) + 1.25, round (y0) + 1.25, MAX (round (x1 - x0) - 2.5, 1),
                       MAX (round (y1 - y0) - 2.5, 1));
      cairo_stroke (cr);
      mp_text_set (text, "spilled", TRUE);
      mp_text_size (text, &w, &h);
      if (x1 - x0 > w + 8 && y1 - y0 > 2 * h + 8)
        {
          mp_cairo_set_rgb (cr, ink);
          cairo_rectangle (cr, round (x0) + 3, round (y1) - h - 5, w + 4, h + 2);
          cairo_fill (cr);
          mp_cairo_set_rgb (cr, mp_palette_get (options->theme)->background);
          mp_text_draw (text, cr, round (x0) + 5, round (y1) - h - 4);
        }
    }
  if (index->capacity)
    {
      g_autofree char *b = mp_format_bytes (index->capacity);
      g_autofree char *s = g_strdup_printf ("%s capacity %s", index->memory_name, b);

      mp_render_layout_to_device (layout, 0, index->capacity, NULL, &y);
      y = round (y) + 0.5;
      if (y >= p->y && y <= p->y + p->height)
        {
          cairo_set_line_width (cr, 2);
          cairo_set_dash (cr, dash, G_N_ELEMENTS (dash), 0);
          mp_cairo_set_rgb (cr, ink);
          cairo_move_to (cr, p->x, y);
          cairo_line_to (cr, p->x + p->width, y);
          cairo_stroke (cr);
          cairo_set_dash (cr, NULL, 0, 0);
          mp_text_set (text, s, TRUE);
          mp_text_size (text, &w, &h);
          /* left, so it never meets the arena label on the right */
          x = p->x + 6;
          y = y - h - 3 >= p->y ? y - h - 3 : y + 3;
          mp_cairo_set_rgba (cr, mp_palette_get (options->theme)->background, 0.85);
          cairo_rectangle (cr, x - 2, y - 1, w + 4, h + 2);
          cairo_fill (cr);
          mp_cairo_set_rgb (cr, ink);
          mp_text_draw (text, cr, x, y);
        }
    }
  cairo_restore (cr);
}

/* The legend's capacity line (capacity TRUE) or spilled mark in the box. */
void
mp_render_spill_legend_swatch (cairo_t *cr, const MpRenderOptions *options, gboolean capacity,
                               gdouble x, gdouble y, gdouble w, gdouble h)
{
  static const double dash[] = { 10, 3, 2, 3 };

  cairo_save (cr);
  mp_cairo_set_rgb (cr, capacity_color (options));
  if (capacity)
    {
      cairo_set_line_width (cr, 2);
      cairo_set_dash (cr, dash, G_N_ELEMENTS (dash), 0);
      cairo_move_to (cr, x, round (y + h / 2) + 0.5);
      cairo_line_to (cr, x + w, round (y + h / 2) + 0.5);
    }
  else
    {
      cairo_set_line_width (cr, 2.5);
      cairo_rectangle (cr, x + 1.25, y + 1.25, w - 2.5, h - 2.5);
    }
  cairo_stroke (cr);
  cairo_restore (cr);
}
