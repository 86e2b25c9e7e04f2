/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-render"

/* Memory over time of two orders of one graph on the same axes: the given
 * order's live bytes as a line, the chosen order's as an area, each peak
 * marked, the saving in the legend. Both have one step per op, so the step
 * axis is shared. */

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <math.h>

#include "render-private.h"

static void
curve_path (cairo_t *cr, const MpRenderRect *p, const guint64 *live, guint n, gdouble top,
            gboolean fill)
{
  gdouble sx = p->width / MAX (n, 1), sy = p->height / top, bottom = p->y + p->height;

  cairo_move_to (cr, p->x, fill ? bottom : bottom - live[0] * sy);
  for (guint s = 0; s < n; s++)
    {
      cairo_line_to (cr, p->x + s * sx, bottom - live[s] * sy);
      cairo_line_to (cr, p->x + (s + 1) * sx, bottom - live[s] * sy);
    }
  if (fill)
    {
      cairo_line_to (cr, p->x + n * sx, bottom);
      cairo_close_path (cr);
    }
}

static void
mark_peak (cairo_t *cr, const MpRenderRect *p, const guint64 *live, guint n, gdouble top,
           MpRgb color, MpRgb background, const char *label, gboolean below, MpText *text)
{
  guint   peak = 0;
  gdouble x, y, w, h;

  for (guint s = 1; s < n; s++)
    if (live[s] > live[peak])
      peak = s;
  x = p->x + (peak + 0.5) * p->width / MAX (n, 1);
  y = p->y + p->height - live[peak] * p->height / top;
  mp_cairo_set_rgb (cr, color);
  cairo_arc (cr, x, y, 4, 0, 2 * G_PI);
  cairo_fill (cr);
  mp_text_set (text, label, TRUE);
  mp_text_size (text, &w, &h);
  x = CLAMP (x - w / 2, p->x, p->x + p->width - w);
  y = below ? y + 6 : y - h - 6;
  mp_cairo_set_rgba (cr, background, 0.85);
  cairo_rectangle (cr, x - 3, y, w + 6, h);
  cairo_fill (cr);
  mp_cairo_set_rgb (cr, color);
  mp_text_draw (text, cr, x, y);
}

void
mp_render_order_curves (cairo_t *cr, const guint64 *given, const guint64 *chosen, guint n_steps,
                        const char *chosen_name, const MpRenderOptions *options, gdouble width,
                        gdouble height)
{
  static const MpRenderOptions defaults = { 0 };
  const MpPalette             *palette;
  MpText                       text;
  guint64                      peak_given = 0, peak_chosen = 0;
  gdouble                      f, pad, top;
  MpRenderRect                 p;
  g_autofree char             *gb = NULL, *cb = NULL, *sb = NULL, *label = NULL;
  MpTick                       ticks[MP_MAX_TICKS];
  guint                        n_ticks;
  MpRgb                        given_color;

  g_return_if_fail (cr != NULL);
  if (options == NULL)
    options = &defaults;
  palette = mp_palette_get (options->theme);
  given_color = palette->keys[5];
  f = mp_render_font_px (options);
  pad = ceil (f * 0.6);
  for (guint s = 0; s < n_steps; s++)
    {
      peak_given = MAX (peak_given, given[s]);
      peak_chosen = MAX (peak_chosen, chosen[s]);
    }
  top = MAX (MAX (peak_given, peak_chosen), 1) * 1.15;
  p = (MpRenderRect) { pad + f * 6.5, pad + f * 2, MAX (width - 2 * pad - f * 7, 1),
                       MAX (height - 2 * pad - f * 4, 1) };

  cairo_save (cr);
  mp_cairo_set_rgb (cr, palette->background);
  cairo_rectangle (cr, 0, 0, width, height);
  cairo_fill (cr);
  mp_text_init (&text, cr, f);

  /* byte grid and labels */
  n_ticks = mp_render_value_ticks (0, top, p.height, f * 2.5, ticks);
  cairo_set_line_width (cr, 1);
  for (guint i = 0; i < n_ticks; i++)
    {
      gdouble y = round (p.y + p.height - ticks[i].value * p.height / top) + 0.5, w, h;

      mp_cairo_set_rgb (cr, palette->grid);
      cairo_move_to (cr, p.x, y);
      cairo_line_to (cr, p.x + p.width, y);
      cairo_stroke (cr);
      mp_text_set (&text, ticks[i].label, FALSE);
      mp_text_size (&text, &w, &h);
      mp_cairo_set_rgb (cr, palette->foreground);
      mp_text_draw (&text, cr, p.x - w - f * 0.4, y - h / 2);
    }
  /* step labels: first, middle, last */
  for (guint k = 0; k < 3 && n_steps; k++)
    {
      guint            s = k == 0 ? 0 : k == 1 ? n_steps / 2 : n_steps - 1;
      g_autofree char *str = g_strdup_printf (k == 2 ? "step %u" : "%u", s);
      gdouble          w, h, x = p.x + (s + 0.5) * p.width / n_steps;

      mp_text_set (&text, str, FALSE);
      mp_text_size (&text, &w, &h);
      mp_cairo_set_rgb (cr, palette->foreground);
      mp_text_draw (&text, cr, CLAMP (x - w / 2, p.x, p.x + p.width - w), p.y + p.height + 3);
    }

  if (n_steps)
    {
      cairo_save (cr);
      cairo_rectangle (cr, p.x, p.y - 4, p.width, p.height + 4);
      cairo_clip (cr);
      curve_path (cr, &p, chosen, n_steps, top, TRUE);
      mp_cairo_set_rgba (cr, palette->curve, 0.45);
      cairo_fill (cr);
      curve_path (cr, &p, chosen, n_steps, top, FALSE);
      mp_cairo_set_rgb (cr, palette->curve);
      cairo_set_line_width (cr, 1.5);
      cairo_stroke (cr);
      curve_path (cr, &p, given, n_steps, top, FALSE);
      mp_cairo_set_rgb (cr, given_color);
      cairo_set_line_width (cr, 2);
      cairo_stroke (cr);
      cairo_restore (cr);
      gb = mp_format_bytes (peak_given);
      cb = mp_format_bytes (peak_chosen);
      label = g_strdup_printf ("given peak %s", gb);
      mark_peak (cr, &p, given, n_steps, top, given_color, palette->background, label, FALSE,
                 &text);
      g_clear_pointer (&label, g_free);
      label = g_strdup_printf ("%s peak %s", chosen_name, cb);
      mark_peak (cr, &p, chosen, n_steps, top, palette->peak, palette->background, label, TRUE,
                 &text);
    }

  /* legend: the two curves and the saving */
  {
    gdouble x = p.x, y = pad, w, h, s = round (f * 0.9);

    sb = mp_format_bytes (peak_given > peak_chosen ? peak_given - peak_chosen : 0);
    for (guint i = 0; i < 3; i++)
      {
        g_autofree char *str = NULL;

        if (i == 0)
          str = g_strdup_printf ("live bytes, given order (peak %s)", gb ? gb : "0 B");
        else if (i == 1)
          str = g_strdup_printf ("live bytes, %s order (peak %s)", chosen_name, cb ? cb : "0 B");
        else
          str = peak_given > peak_chosen
                  ? g_strdup_printf ("saved %s (%.1f%%)", sb,
                                     100.0 * (peak_given - peak_chosen) / peak_given)
                  : g_strdup ("no saving");
        if (i < 2)
          {
            if (i == 0)
              mp_cairo_set_rgb (cr, given_color);
            else
              mp_cairo_set_rgba (cr, palette->curve, 0.7);
            cairo_rectangle (cr, x, y + (f * 1.3 - s) / 2, s, s);
            cairo_fill (cr);
            x += s + 4;
          }
        mp_text_set (&text, str, i == 2);
        mp_text_size (&text, &w, &h);
        mp_cairo_set_rgb (cr, palette->foreground);
        mp_text_draw (&text, cr, x, y);
        x += w + f * 1.5;
      }
  }
  mp_text_clear (&text);
  cairo_restore (cr);
}

static cairo_status_t
append_bytes (void *closure, const unsigned char *data, unsigned int length)
{
  g_byte_array_append (closure, data, length);
  return CAIRO_STATUS_SUCCESS;
}

gboolean
mp_render_order_write (const char *path, MpRenderFormat format, const guint64 *given,
                       const guint64 *chosen, guint n_steps, const char *chosen_name,
                       const MpRenderOptions *options, gint width, gint height, GError **error)
{
  g_autoptr (GByteArray) bytes = g_byte_array_new ();
  g_autoptr (GError) local = NULL;
  cairo_surface_t *surface;
  cairo_status_t   status;
  cairo_t         *cr;

  if (width < 1 || height < 1 || width > 20000 || height > 20000)
    {
      g_set_error (error, MP_RENDER_ERROR, MP_RENDER_ERROR_SIZE,
                   "%s: picture size %d×%d is out of range (1 to 20000 on each side)", path,
                   width, height);
      return FALSE;
    }
  if (format == MP_RENDER_FORMAT_PNG)
    surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
  else if (format == MP_RENDER_FORMAT_SVG)
    surface = cairo_svg_surface_create_for_stream (append_bytes, bytes, width, height);
  else
    {
      surface = cairo_pdf_surface_create_for_stream (append_bytes, bytes, width, height);
      cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_CREATOR, "memplan");
      cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_CREATE_DATE, "");
    }
  cr = cairo_create (surface);
  mp_render_order_curves (cr, given, chosen, n_steps, chosen_name, options, width, height);
  cairo_destroy (cr);
  if (format == MP_RENDER_FORMAT_PNG)
    status = cairo_surface_write_to_png_stream (surface, append_bytes, bytes);
  else
    {
      cairo_surface_finish (surface);
      status = cairo_surface_status (surface);
    }
  cairo_surface_destroy (surface);
  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, MP_RENDER_ERROR, MP_RENDER_ERROR_IO, "%s: cannot draw: %s", path,
                   cairo_status_to_string (status));
      return FALSE;
    }
  if (!g_file_set_contents (path, (const char *) bytes->data, bytes->len, &local))
    {
      g_set_error (error, MP_RENDER_ERROR, MP_RENDER_ERROR_IO, "%s", local->message);
      return FALSE;
    }
  return TRUE;
}
