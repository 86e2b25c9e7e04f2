/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-render"

/* Pictures to files: rendered in memory, then written atomically, so a
 * failed write never leaves a half file or replaces a good one. */

#include <cairo-pdf.h>
#include <cairo-svg.h>
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
      const MpRenderOptions *options, gint width, gint height)
{
  if (n_indices == 1)
    mp_render_plan (cr, indices[0], options, width, height);
  else
    mp_render_compare (cr, indices, n_indices, options, width, height);
}

gboolean
mp_render_write_file (const char *path, MpRenderFormat format, MpRenderIndex * const *indices,
                      guint n_indices, const MpRenderOptions *options, gint width, gint height,
                      GError **error)
{
  g_autoptr (GByteArray) bytes = g_byte_array_new ();
  g_autoptr (GError) local = NULL;
  g_autofree char *dir = NULL;
  cairo_surface_t *surface = NULL;
  cairo_status_t   status;
  cairo_t         *cr;

  g_return_val_if_fail (path != NULL && indices != NULL && n_indices > 0, FALSE);
  if (width < 1 || height < 1 || width > MAX_SIDE || height > MAX_SIDE)
    {
      g_set_error (error, MP_RENDER_ERROR, MP_RENDER_ERROR_SIZE,
                   "%s: picture size %d×%d is out of range (1 to %d on each side)", path, width,
                   height, MAX_SIDE);
      return FALSE;
    }

  switch (format)
    {
    case MP_RENDER_FORMAT_PNG:
      surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
      break;
    case MP_RENDER_FORMAT_SVG:
      surface = cairo_svg_surface_create_for_stream (append_bytes, bytes, width, height);
      break;
    case MP_RENDER_FORMAT_PDF:
    default:
      surface = cairo_pdf_surface_create_for_stream (append_bytes, bytes, width, height);
      /* same input, same bytes: no time stamp in the file */
      cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_CREATOR, "memplan");
      cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_CREATE_DATE, "");
      break;
    }
  cr = cairo_create (surface);
  draw (cr, indices, n_indices, options, width, height);
  status = cairo_status (cr);
  cairo_destroy (cr);
  if (status == CAIRO_STATUS_SUCCESS && format == MP_RENDER_FORMAT_PNG)
    status = cairo_surface_write_to_png_stream (surface, append_bytes, bytes);
  cairo_surface_finish (surface);
  if (status == CAIRO_STATUS_SUCCESS)
    status = cairo_surface_status (surface);
  cairo_surface_destroy (surface);
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
