/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-render"

#include "render-private.h"

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
  /* names come from files, which a reader may let through as they are */
  if (g_utf8_validate (str, -1, NULL))
    pango_layout_set_text (text->layout, str, -1);
  else
    {
      g_autofree char *valid = g_utf8_make_valid (str, -1);

      pango_layout_set_text (text->layout, valid, -1);
    }
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

char *
mp_format_address (guint64 value, guint64 tick_step)
{
  static const char *units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
  guint              u = 0;
  guint64            unit = 1;

  if (value == 0)
    return g_strdup ("0");
  /* the unit of the tick step, so every label of an axis is a whole number */
  while (u + 1 < G_N_ELEMENTS (units) && tick_step >= unit * 1024 && value % (unit * 1024) == 0)
    {
      unit *= 1024;
      u++;
    }
  return g_strdup_printf ("%" G_GUINT64_FORMAT " %s", value / unit, units[u]);
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
