/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <gio/gio.h>

#include "file-util.h"
#include "graph-private.h"

#define CHUNK (64 * 1024)

gboolean
mp_file_is_gzip (const char *path)
{
  guint8   magic[2];
  FILE    *f = fopen (path, "rb");
  gboolean gzip;

  if (f == NULL)
    return FALSE;
  gzip = fread (magic, 1, 2, f) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  fclose (f);
  return gzip;
}

gboolean
mp_file_has_suffix (const char *path, const char *suffix)
{
  gsize n = strlen (path), k = strlen (suffix);

  if (n > 3 && g_ascii_strcasecmp (path + n - 3, ".gz") == 0)
    n -= 3;
  return n >= k && g_ascii_strncasecmp (path + n - k, suffix, k) == 0;
}

/* Fills in[] from f after keeping its unread bytes; FALSE on a read error. */
static gboolean
refill (FILE *f, guint8 *in, gsize *pos, gsize *n_in, gboolean *eof)
{
  memmove (in, in + *pos, *n_in - *pos);
  *n_in -= *pos;
  *pos = 0;
  *n_in += fread (in + *n_in, 1, CHUNK - *n_in, f);
  if (ferror (f))
    return FALSE;
  *eof = feof (f) != 0;
  return TRUE;
}

/* Streams f through the gzip decompressor into one growing buffer (every
 * member of a concatenated file). With cut, inflation stops at max bytes
 * (sniffing); without, more than max is refused. */
static gboolean
inflate_file (FILE *f, const char *path, gsize max, gboolean cut, char **contents, gsize *length,
              GError **error)
{
  g_autoptr (GZlibDecompressor) z = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
  g_autoptr (GByteArray) out = g_byte_array_new ();
  g_autofree guint8     *in = g_malloc (CHUNK);
  gsize                  pos = 0, n_in = 0;
  gboolean               eof = FALSE, finished = FALSE;

  for (;;)
    {
      g_autoptr (GError) local = NULL;
      gsize            used = 0, written = 0, old = out->len;
      GConverterResult res;

      if (pos == n_in && !eof && !refill (f, in, &pos, &n_in, &eof))
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_IO, path, "cannot read the file: %s",
                             g_strerror (errno));
          return FALSE;
        }
      if (finished)
        {
          if (pos == n_in)
            break;
          /* another gzip member follows (cat a.gz b.gz) */
          g_converter_reset (G_CONVERTER (z));
          finished = FALSE;
        }
      g_byte_array_set_size (out, old + CHUNK);
      res = g_converter_convert (G_CONVERTER (z), in + pos, n_in - pos, out->data + old, CHUNK,
                                 eof ? G_CONVERTER_INPUT_AT_END : G_CONVERTER_NO_FLAGS, &used,
                                 &written, &local);
      g_byte_array_set_size (out, old + (res == G_CONVERTER_ERROR ? 0 : written));
      if (res == G_CONVERTER_ERROR)
        {
          if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT) && !eof &&
              n_in - pos < CHUNK)
            {
              if (!refill (f, in, &pos, &n_in, &eof))
                {
                  mp_set_file_error (error, MP_ANALYSIS_ERROR_IO, path,
                                     "cannot read the file: %s", g_strerror (errno));
                  return FALSE;
                }
              continue;
            }
          if (cut)
            break; /* a sniff takes what inflated before the damage */
          if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT))
            mp_set_file_error (error, MP_ANALYSIS_ERROR_PARSE, path,
                               "the gzip data is truncated: the file ends inside the compressed "
                               "stream, after %u bytes inflated", out->len);
          else
            mp_set_file_error (error, MP_ANALYSIS_ERROR_PARSE, path,
                               "the gzip data is corrupt (%s) after %u bytes inflated",
                               local->message, out->len);
          return FALSE;
        }
      pos += used;
      finished = res == G_CONVERTER_FINISHED;
      if (out->len > max)
        {
          if (cut)
            {
              g_byte_array_set_size (out, max);
              break;
            }
          mp_set_file_error (error, MP_ANALYSIS_ERROR_PARSE, path,
                             "the gzip data inflates to more than %" G_GSIZE_FORMAT
                             " bytes, the most memplan reads from one file", max);
          return FALSE;
        }
    }
  *length = out->len;
  g_byte_array_append (out, (const guint8 *) "", 1);
  *contents = (char *) g_byte_array_free (g_steal_pointer (&out), FALSE);
  return TRUE;
}

static gboolean
read_gzip (const char *path, gsize max, gboolean cut, char **contents, gsize *length,
           GError **error)
{
  FILE    *f = fopen (path, "rb");
  gboolean ok;

  if (f == NULL)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_IO, path, "cannot read the file: %s",
                         g_strerror (errno));
      return FALSE;
    }
  ok = inflate_file (f, path, max, cut, contents, length, error);
  fclose (f);
  return ok;
}

gboolean
mp_read_file (const char *path, char **contents, gsize *length, GError **error)
{
  g_autoptr (GError) local = NULL;

  if (mp_file_is_gzip (path))
    return read_gzip (path, MP_MAX_INFLATED_SIZE, FALSE, contents, length, error);
  if (!g_file_get_contents (path, contents, length, &local))
    {
      const char *why = local->code == G_FILE_ERROR_NOENT   ? "no such file"
                        : local->code == G_FILE_ERROR_ISDIR ? "it is a directory"
                        : local->code == G_FILE_ERROR_ACCES ? "permission denied"
                                                            : local->message;

      mp_set_file_error (error, MP_ANALYSIS_ERROR_IO, path, "cannot read the file: %s", why);
      return FALSE;
    }
  return TRUE;
}

gboolean
mp_read_file_head (const char *path, gsize max, char **contents, gsize *length)
{
  FILE *f;

  if (mp_file_is_gzip (path))
    return read_gzip (path, max, TRUE, contents, length, NULL);
  if ((f = fopen (path, "rb")) == NULL)
    return FALSE;
  *contents = g_malloc (max + 1);
  *length = fread (*contents, 1, max, f);
  (*contents)[*length] = '\0';
  fclose (f);
  return TRUE;
}

gboolean
mp_write_file_atomic (const char *path, const char *contents, gssize length, GError **error)
{
  g_autoptr (GError) local = NULL;

  if (length < 0)
    length = strlen (contents);
  if (!g_file_set_contents_full (path, contents, length, G_FILE_SET_CONTENTS_CONSISTENT, 0644,
                                 &local))
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_IO, path, "cannot write the file: %s",
                         local->message);
      return FALSE;
    }
  return TRUE;
}

char *
mp_format_bytes (guint64 bytes)
{
  static const char *units[] = { "KiB", "MiB", "GiB", "TiB", "PiB" };
  gdouble            v = bytes;
  guint              u = 0;

  if (bytes < 1024)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " B", bytes);
  v /= 1024.0;
  while (v >= 1024.0 && u + 1 < G_N_ELEMENTS (units))
    {
      v /= 1024.0;
      u++;
    }
  return g_strdup_printf (v >= 100 ? "%.0f %s" : v >= 10 ? "%.1f %s" : "%.2f %s", v, units[u]);
}

char *
mp_format_seconds (gdouble seconds)
{
  if (seconds < 1e-3)
    return g_strdup_printf ("%.0f µs", seconds * 1e6);
  if (seconds < 1.0)
    return g_strdup_printf ("%.1f ms", seconds * 1e3);
  return g_strdup_printf ("%.2f s", seconds);
}
