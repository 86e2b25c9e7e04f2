/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-render"

#include <math.h>

#include "render-private.h"

/* Ticks a step gives from first up to top. */
#define MAX_TICKS_GUARD(first, step, top) ((top) < (first) ? 0 : ((top) - (first)) / (step) + 1)

void
mp_text_init (MpText *text, cairo_t *cr, gdouble px)
{
  cairo_font_options_t *fo = cairo_font_options_create ();

  text->px = px;
  text->layout = pango_cairo_create_layout (cr);
  /* The same glyph positions on screen, PNG, SVG and PDF: no hinting. */
  cairo_font_options_set_hint_metrics (fo, CAIRO_HINT_METRICS_OFF);
  cairo_font_options_set_hint_style (fo, CAIRO_HINT_STYLE_NONE);
  pango_cairo_context_set_font_options (pango_layout_get_context (text->layout), fo);
  pango_layout_context_changed (text->layout);
  cairo_font_options_destroy (fo);
  text->normal = pango_font_description_from_string ("Sans");
  pango_font_description_set_absolute_size (text->normal, px * PANGO_SCALE);
  text->bold = pango_font_description_copy (text->normal);
  pango_font_description_set_weight (text->bold, PANGO_WEIGHT_BOLD);
}

void
mp_text_clear (MpText *text)
{
  g_clear_object (&text->layout);
  g_clear_pointer (&text->normal, pango_font_description_free);
  g_clear_pointer (&text->bold, pango_font_description_free);
}

void
mp_text_set (MpText *text, const char *str, gboolean bold)
{
  pango_layout_set_font_description (text->layout, bold ? text->bold : text->normal);
  pango_layout_set_width (text->layout, -1);
  pango_layout_set_text (text->layout, str, -1);
}

void
mp_text_size (MpText *text, gdouble *width, gdouble *height)
{
  PangoRectangle logical;

  pango_layout_get_extents (text->layout, NULL, &logical);
  if (width)
    *width = (gdouble) logical.width / PANGO_SCALE;
  if (height)
    *height = (gdouble) logical.height / PANGO_SCALE;
}

void
mp_text_draw (MpText *text, cairo_t *cr, gdouble x, gdouble y)
{
  cairo_move_to (cr, x, y);
  pango_cairo_show_layout (cr, text->layout);
}

gdouble
mp_render_font_px (const MpRenderOptions *options)
{
  return options && options->font_px > 0 ? options->font_px : 12.0;
}

guint
mp_render_value_ticks (gdouble lo, gdouble top, gdouble pixels, gdouble min_gap,
                       MpTick ticks[MP_MAX_TICKS])
{
  static const char *units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
  guint64            step, first, unit = 1;
  guint              u = 0, n = 0;

  lo = MAX (lo, 0);
  if (!(top > lo))
    return 0;
  step = mp_nice_step_binary (top - lo, pixels, min_gap);
  /* at least two labelled ticks at or below the top, even on a short axis */
  while (step > 1 && (guint64) ceil (lo / step) * step + step > top)
    step >>= 1;
  first = (guint64) ceil (lo / step) * step;
  while (MAX_TICKS_GUARD (first, step, top) > MP_MAX_TICKS)
    step <<= 1, first = (guint64) ceil (lo / step) * step;
  /* one unit for the whole axis: the largest the top tick reaches */
  for (guint64 last = first + step * (guint64) floor ((top - first) / step);
       u + 1 < G_N_ELEMENTS (units) && last >= unit * 1024; unit *= 1024)
    u++;
  for (guint64 v = first; v <= top && n < MP_MAX_TICKS; v += step, n++)
    {
      gdouble x = (gdouble) v / unit;
      /* as many decimals as the step needs, no more */
      gint    digits = 0;

      while (digits < 3 && fabs (x * pow (10, digits) - round (x * pow (10, digits))) > 1e-9)
        digits++;
      ticks[n].value = v;
      if (v == 0)
        g_strlcpy (ticks[n].label, "0", sizeof ticks[n].label);
      else
        g_snprintf (ticks[n].label, sizeof ticks[n].label, "%.*f %s", digits, x, units[u]);
    }
  return n;
}

gdouble
mp_nice_step_decimal (gdouble range, gdouble pixels, gdouble min_gap)
{
  gdouble raw = range * min_gap / MAX (pixels, 1.0);
  gdouble mag = 1.0;

  if (raw <= 1.0)
    return 1.0;
  while (mag * 10 <= raw)
    mag *= 10;
  if (mag >= raw)
    return mag;
  if (2 * mag >= raw)
    return 2 * mag;
  if (5 * mag >= raw)
    return 5 * mag;
  return 10 * mag;
}

guint64
mp_nice_step_binary (gdouble range, gdouble pixels, gdouble min_gap)
{
  gdouble raw = range * min_gap / MAX (pixels, 1.0);
  guint64 step = 1;

  while ((gdouble) step < raw && step < (G_GUINT64_CONSTANT (1) << 62))
    step <<= 1;
  return step;
}
