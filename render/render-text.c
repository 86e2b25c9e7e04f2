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
  /* names come from files: one line each, a U+202E or an escape shown as
   * \u202e or \x1b, not obeyed (the terminal's rule, mp_escape_name) */
  if (mp_text_has_control (str, FALSE))
    {
      g_autofree char *shown = mp_escape_name (str);

      pango_layout_set_text (text->layout, shown, -1);
    }
  else
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

static const cairo_user_data_key_t svg_text_key;

void
mp_text_collect_svg (cairo_surface_t *surface, GString *sink)
{
  cairo_surface_set_user_data (surface, &svg_text_key, sink, NULL);
}

/* What a line ellipsized at its end shows: the longest start of its text
 * that fits the layout's width with "…" after it (one text measurement per
 * halving). */
static char *
shown_text (PangoLayout *layout)
{
  const char            *str = pango_layout_get_text (layout);
  gint                   width = pango_layout_get_width (layout);
  g_autoptr (PangoLayout) probe = pango_layout_copy (layout);
  glong                  lo = 0, hi = g_utf8_strlen (str, -1);

  pango_layout_set_ellipsize (probe, PANGO_ELLIPSIZE_NONE);
  pango_layout_set_width (probe, -1);
  while (lo < hi)
    {
      glong            mid = (lo + hi + 1) / 2;
      g_autofree char *start = g_utf8_substring (str, 0, mid);
      g_autofree char *line = g_strconcat (start, "…", NULL);
      PangoRectangle   logical;

      pango_layout_set_text (probe, line, -1);
      pango_layout_get_extents (probe, NULL, &logical);
      if (logical.width <= width)
        lo = mid;
      else
        hi = mid - 1;
    }
  {
    g_autofree char *start = g_utf8_substring (str, 0, lo);

    return g_strconcat (start, "…", NULL);
  }
}

/* Text as an SVG <text> element at its baseline, in device units, so a
 * slide can select and edit it (cairo's SVG writes glyph outlines). */
static gboolean
svg_text (MpText *text, cairo_t *cr, gdouble x, gdouble y)
{
  GString         *sink = cairo_surface_get_user_data (cairo_get_target (cr), &svg_text_key);
  const PangoFontDescription *font = pango_layout_get_font_description (text->layout);
  g_autofree char *escaped = NULL;
  gdouble          bx = x, by = y + pango_layout_get_baseline (text->layout) / (gdouble) PANGO_SCALE;
  gdouble          size = text->px, zero = 0, r = 0, g = 0, b = 0, a = 1;
  char             num[4][G_ASCII_DTOSTR_BUF_SIZE];

  if (sink == NULL)
    return FALSE;
  cairo_user_to_device (cr, &bx, &by);
  cairo_user_to_device_distance (cr, &size, &zero);
  cairo_pattern_get_rgba (cairo_get_source (cr), &r, &g, &b, &a);
  /* an ellipsized line shows other text than it holds: what it shows */
  if (pango_layout_is_ellipsized (text->layout))
    {
      g_autofree char *shown = shown_text (text->layout);
      g_autofree char *valid = mp_xml_valid_text (shown);

      escaped = g_markup_escape_text (valid, -1);
    }
  else
    {
      /* XML 1.0 has no &#x1b;: a parser would refuse the whole file */
      g_autofree char *valid = mp_xml_valid_text (pango_layout_get_text (text->layout));

      escaped = g_markup_escape_text (valid, -1);
    }
  g_string_append_printf (sink,
                          "<text x=\"%s\" y=\"%s\" font-family=\"sans-serif\" "
                          "font-size=\"%s\"%s fill=\"rgb(%d,%d,%d)\" fill-opacity=\"%s\" "
                          "xml:space=\"preserve\">%s</text>\n",
                          g_ascii_formatd (num[0], sizeof num[0], "%.2f", bx),
                          g_ascii_formatd (num[1], sizeof num[1], "%.2f", by),
                          g_ascii_formatd (num[2], sizeof num[2], "%.2f", fabs (size)),
                          font && pango_font_description_get_weight (font) >= PANGO_WEIGHT_BOLD
                            ? " font-weight=\"bold\"" : "",
                          (int) lround (r * 255), (int) lround (g * 255), (int) lround (b * 255),
                          g_ascii_formatd (num[3], sizeof num[3], "%.2f", a), escaped);
  return TRUE;
}

void
mp_text_draw (MpText *text, cairo_t *cr, gdouble x, gdouble y)
{
  if (svg_text (text, cr, x, y))
    return;
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
