/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-render"

/* Pictures to files: rendered in memory, then written atomically, so a
 * failed write never leaves a half file or replaces a good one. */

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <math.h>
#include <string.h>

#include "render-private.h"

/* Large enough for a poster, small enough that a typo cannot ask for gigabytes. */
#define MAX_SIDE 20000

gboolean
mp_render_format_from_path (const char *path, MpRenderFormat *format, GError **error)
{
  g_autofree char *lower = g_ascii_strdown (path, -1);

  if (g_str_has_suffix (lower, ".png"))
    *format = MP_RENDER_FORMAT_PNG;
  else if (g_str_has_suffix (lower, ".svg"))
    *format = MP_RENDER_FORMAT_SVG;
  else if (g_str_has_suffix (lower, ".pdf"))
    *format = MP_RENDER_FORMAT_PDF;
  else
    {
      g_set_error (error, MP_RENDER_ERROR, MP_RENDER_ERROR_FORMAT,
                   "%s: unknown picture format (the name must end in .png, .svg or .pdf)", path);
      return FALSE;
    }
  return TRUE;
}

static cairo_status_t
append_bytes (void *closure, const unsigned char *data, unsigned int length)
{
  g_byte_array_append (closure, data, length);
  return CAIRO_STATUS_SUCCESS;
}

static void
draw (cairo_t *cr, MpRenderIndex * const *indices, guint n_indices,
      const MpRenderOptions *options, gdouble width, gdouble height)
{
  if (n_indices == 1)
    mp_render_plan (cr, indices[0], options, width, height);
  else
    mp_render_compare (cr, indices, n_indices, options, width, height);
}

gboolean
mp_render_page_size (MpPageSize page, gdouble *width, gdouble *height)
{
  switch (page)
    {
    case MP_PAGE_A4: /* 297 × 210 mm, landscape */
      *width = 842;
      *height = 595;
      return TRUE;
    case MP_PAGE_LETTER: /* 11 × 8.5 in, landscape */
      *width = 792;
      *height = 612;
      return TRUE;
    case MP_PAGE_NONE:
    default:
      return FALSE;
    }
}

gboolean
mp_render_page_from_string (const char *str, MpPageSize *page)
{
  if (g_ascii_strcasecmp (str, "a4") == 0)
    *page = MP_PAGE_A4;
  else if (g_ascii_strcasecmp (str, "letter") == 0)
    *page = MP_PAGE_LETTER;
  else if (g_ascii_strcasecmp (str, "none") == 0)
    *page = MP_PAGE_NONE;
  else
    return FALSE;
  return TRUE;
}

/* Pages that print: every plan on a page of its own (PDF), or all of them
 * fitted onto one, inside a half-inch margin, in points. */
static void
draw_pages (cairo_t *cr, MpRenderIndex * const *indices, guint n_indices,
            const MpRenderOptions *options, const MpRenderOutput *out, gdouble pw, gdouble ph)
{
  const gdouble   margin = 36;
  MpRenderOptions o = *options;

  /* 10 pt reads on paper; stacked plans share a page, so a little smaller */
  if (o.font_px <= 0)
    o.font_px = n_indices > 1 && out->one_page ? 8 : 10;
  for (guint i = 0; i < (out->one_page ? 1 : n_indices); i++)
    {
      if (i > 0)
        cairo_show_page (cr);
      cairo_save (cr);
      cairo_translate (cr, margin, margin);
      if (out->one_page)
        draw (cr, indices, n_indices, &o, pw - 2 * margin, ph - 2 * margin);
      else
        draw (cr, &indices[i], 1, &o, pw - 2 * margin, ph - 2 * margin);
      cairo_restore (cr);
    }
}

static void
insert_bytes (GByteArray *array, gsize at, const guint8 *data, gsize length)
{
  gsize tail = array->len - at;

  g_byte_array_set_size (array, array->len + length);
  memmove (array->data + at + length, array->data + at, tail);
  memcpy (array->data + at, data, length);
}

/* The PNG's pixels per metre (a pHYs chunk after IHDR), so an image made
 * at 300 dpi prints at its size. */
static void
png_set_dpi (GByteArray *png, gdouble dpi)
{
  static guint32 table[256];
  guint32        ppm = (guint32) lround (dpi / 0.0254), crc = 0xffffffffu;
  guint8         chunk[21] = { 0, 0, 0, 9, 'p', 'H', 'Y', 's' };
  const gsize    ihdr_end = 8 + 8 + 13 + 4;

  if (table[1] == 0)
    for (guint32 n = 0; n < 256; n++)
      {
        guint32 c = n;

        for (guint k = 0; k < 8; k++)
          c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
        table[n] = c;
      }
  for (guint k = 0; k < 2; k++)
    {
      chunk[8 + 4 * k] = ppm >> 24;
      chunk[9 + 4 * k] = ppm >> 16;
      chunk[10 + 4 * k] = ppm >> 8;
      chunk[11 + 4 * k] = ppm;
    }
  chunk[16] = 1; /* the unit is the metre */
  for (guint k = 4; k < 17; k++)
    crc = table[(crc ^ chunk[k]) & 0xff] ^ (crc >> 8);
  crc ^= 0xffffffffu;
  chunk[17] = crc >> 24;
  chunk[18] = crc >> 16;
  chunk[19] = crc >> 8;
  chunk[20] = crc;
  if (png->len > ihdr_end)
    insert_bytes (png, ihdr_end, chunk, sizeof chunk);
}

/* Puts the collected <text> elements in, last so they sit on top. */
static void
svg_add_text (GByteArray *svg, const GString *text)
{
  const char *end = g_strrstr_len ((const char *) svg->data, svg->len, "</svg>");

  if (end && text->len)
    insert_bytes (svg, end - (const char *) svg->data, (const guint8 *) text->str, text->len);
}

gboolean
mp_render_write_file (const char *path, MpRenderFormat format, MpRenderIndex * const *indices,
                      guint n_indices, const MpRenderOptions *options, gint width, gint height,
                      GError **error)
{
  return mp_render_write_output (path, format, indices, n_indices, options, NULL, width, height,
                                 error);
}

gboolean
mp_render_write_output (const char *path, MpRenderFormat format, MpRenderIndex * const *indices,
                        guint n_indices, const MpRenderOptions *options,
                        const MpRenderOutput *out, gint width, gint height, GError **error)
{
  static const MpRenderOptions defaults = { 0 };
  static const MpRenderOutput  plain = { MP_PAGE_NONE, FALSE, 0 };
  g_autoptr (GByteArray) bytes = g_byte_array_new ();
  g_autoptr (GString) svg_text = g_string_new (NULL);
  g_autoptr (GError) local = NULL;
  g_autofree char *dir = NULL;
  g_autofree gboolean *async = NULL;
  cairo_surface_t *surface = NULL;
  cairo_status_t   status;
  cairo_t         *cr;
  gdouble          pw = width, ph = height, scale = 1;
  gboolean         paged;

  g_return_val_if_fail (path != NULL && indices != NULL && n_indices > 0, FALSE);
  if (options == NULL)
    options = &defaults;
  if (out == NULL)
    out = &plain;
  if (width < 1 || height < 1 || width > MAX_SIDE || height > MAX_SIDE)
    {
      g_set_error (error, MP_RENDER_ERROR, MP_RENDER_ERROR_SIZE,
                   "%s: picture size %d×%d is out of range (1 to %d on each side)", path, width,
                   height, MAX_SIDE);
      return FALSE;
    }
  if (format == MP_RENDER_FORMAT_PNG && out->dpi > 0)
    {
      /* the picture's layout at 96 dpi, in more pixels */
      scale = out->dpi / 96;
      if (width * scale > MAX_SIDE || height * scale > MAX_SIDE || width * scale < 1 ||
          height * scale < 1)
        {
          g_set_error (error, MP_RENDER_ERROR, MP_RENDER_ERROR_SIZE,
                       "%s: %d×%d at %g dpi is out of range (1 to %d pixels on each side)", path,
                       width, height, out->dpi, MAX_SIDE);
          return FALSE;
        }
    }
  paged = format != MP_RENDER_FORMAT_PNG && mp_render_page_size (out->page, &pw, &ph);

  switch (format)
    {
    case MP_RENDER_FORMAT_PNG:
      surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, (int) lround (width * scale),
                                            (int) lround (height * scale));
      break;
    case MP_RENDER_FORMAT_SVG:
      surface = cairo_svg_surface_create_for_stream (append_bytes, bytes, pw, ph);
      cairo_svg_surface_set_document_unit (surface, CAIRO_SVG_UNIT_PT);
      mp_text_collect_svg (surface, svg_text);
      break;
    case MP_RENDER_FORMAT_PDF:
    default:
      surface = cairo_pdf_surface_create_for_stream (append_bytes, bytes, pw, ph);
      /* same input, same bytes: no time stamp in the file */
      cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_CREATOR, "memplan");
      cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_CREATE_DATE, "");
      break;
    }
  /* a file shows the truth: no summary stretched while another is made */
  async = g_new (gboolean, n_indices);
  for (guint i = 0; i < n_indices; i++)
    {
      async[i] = indices[i]->lod_async;
      mp_render_index_set_summary_async (indices[i], FALSE);
    }
  cr = cairo_create (surface);
  if (paged)
    {
      /* an SVG is one page: every plan on it */
      MpRenderOutput o = *out;

      o.one_page = out->one_page || format == MP_RENDER_FORMAT_SVG;
      mp_cairo_set_rgb (cr, mp_palette_get (options->theme)->background);
      cairo_paint (cr);
      draw_pages (cr, indices, n_indices, options, &o, pw, ph);
    }
  else
    {
      cairo_scale (cr, scale, scale);
      draw (cr, indices, n_indices, options, width, height);
    }
  status = cairo_status (cr);
  cairo_destroy (cr);
  for (guint i = 0; i < n_indices; i++)
    mp_render_index_set_summary_async (indices[i], async[i]);
  if (status == CAIRO_STATUS_SUCCESS && format == MP_RENDER_FORMAT_PNG)
    status = cairo_surface_write_to_png_stream (surface, append_bytes, bytes);
  cairo_surface_finish (surface);
  if (status == CAIRO_STATUS_SUCCESS)
    status = cairo_surface_status (surface);
  cairo_surface_destroy (surface);
  if (format == MP_RENDER_FORMAT_PNG && out->dpi > 0)
    png_set_dpi (bytes, out->dpi);
  if (format == MP_RENDER_FORMAT_SVG)
    svg_add_text (bytes, svg_text);
  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, MP_RENDER_ERROR, MP_RENDER_ERROR_IO, "%s: cannot draw the picture: %s",
                   path, cairo_status_to_string (status));
      return FALSE;
    }

  /* the common mistake, said plainly rather than through a temporary name */
  dir = g_path_get_dirname (path);
  if (!g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, MP_RENDER_ERROR, MP_RENDER_ERROR_IO,
                   "%s: cannot write the picture: folder '%s' does not exist", path, dir);
      return FALSE;
    }
  if (!mp_write_file_atomic (path, (const char *) bytes->data, bytes->len, &local))
    {
      g_set_error_literal (error, MP_RENDER_ERROR, MP_RENDER_ERROR_IO, local->message);
      return FALSE;
    }
  return TRUE;
}
