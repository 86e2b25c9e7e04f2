/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <string.h>

#include "graph-private.h"

/* MiniMalloc's usage records: id,lower,upper,size[,offset], half-open
 * lifetimes [lower, upper), alignment 1. */

#define MAX_TIME (G_GINT64_CONSTANT (1) << 53)

static gboolean
parse_u64 (const char *s, gsize len, guint64 *value)
{
  guint64 v = 0;

  while (len > 0 && (*s == ' ' || *s == '\t'))
    s++, len--;
  while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
    len--;
  if (len == 0)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    {
      if (s[i] < '0' || s[i] > '9')
        return FALSE;
      if (!g_uint64_checked_mul (&v, v, 10) || !g_uint64_checked_add (&v, v, s[i] - '0'))
        return FALSE;
    }
  *value = v;
  return TRUE;
}

static char *
field_text (const char *s, gsize len)
{
  return g_strndup (s, MIN (len, 40));
}

MpGraph *
mp_graph_parse_csv (const char *data, gsize length, const char *path, guint64 **offsets_out,
                    GError **error)
{
  /* "op": the column import adds; read past, not used */
  static const char *names[] = { "id", "lower", "upper", "size", "offset", "op" };
  g_autoptr (MpGraph) graph = NULL;
  g_autoptr (GArray) offsets = NULL;
  g_autofree char *base = NULL;
  const char *p = data, *end = data + length;
  guint       line_no = 0, n_columns = 0;
  gint64      max_upper = 0;
  gboolean    header_done = FALSE;

  base = path ? g_path_get_basename (path) : g_strdup ("records");
  if (strchr (base, '.'))
    *strrchr (base, '.') = '\0';
  graph = mp_graph_new (base);
  graph->path = g_strdup (path);
  graph->alignment = 1;
  graph->has_ops = FALSE;
  offsets = g_array_new (FALSE, FALSE, sizeof (guint64));
  /* "CSV UTF-8" from a spreadsheet starts with a byte-order mark */
  if (length >= 3 && memcmp (p, "\xef\xbb\xbf", 3) == 0)
    p += 3;

  while (p < end)
    {
      const char *eol = memchr (p, '\n', end - p);
      const char *line = p, *line_end = eol ? eol : end;
      const char *field[6];
      gsize       flen[6];
      guint       nf = 0;

      p = eol ? eol + 1 : end;
      line_no++;
      if (line_end > line && line_end[-1] == '\r')
        line_end--;
      if (line_end == line)
        continue;

      /* split on commas */
      for (const char *f = line; nf < 6;)
        {
          const char *comma = memchr (f, ',', line_end - f);

          field[nf] = f;
          flen[nf++] = (comma ? comma : line_end) - f;
          if (!comma)
            break;
          f = comma + 1;
        }

      if (!header_done)
        {
          gboolean ok = nf >= 4 && nf <= 6;

          for (guint i = 0; ok && i < nf; i++)
            {
              g_autofree char *f = g_strstrip (g_strndup (field[i], flen[i]));
              ok = g_str_equal (f, names[i]);
            }
          if (!ok)
            {
              g_autofree char *text = g_strndup (line, MIN (line_end - line, 60));
              mp_set_file_error (error, MP_ANALYSIS_ERROR_PARSE, path,
                                 "line %u: expected the header 'id,lower,upper,size' or "
                                 "'id,lower,upper,size,offset', got '%s'",
                                 line_no, text);
              return NULL;
            }
          n_columns = nf;
          header_done = TRUE;
          continue;
        }

      {
        g_autofree char *id = NULL;
        guint64          v[5] = { 0 };
        gint             t;

        if (nf != n_columns)
          {
            mp_set_file_error (error, MP_ANALYSIS_ERROR_PARSE, path,
                               "line %u: expected %u fields, found %u%s", line_no, n_columns, nf,
                               nf > n_columns ? " or more" : "");
            return NULL;
          }
        id = g_strstrip (g_strndup (field[0], flen[0]));
        if (*id == '\0')
          {
            mp_set_file_error (error, MP_ANALYSIS_ERROR_PARSE, path, "line %u: empty id",
                               line_no);
            return NULL;
          }
        for (guint i = 1; i < MIN (nf, 5); i++)
          if (!parse_u64 (field[i], flen[i], &v[i]))
            {
              g_autofree char *text = field_text (field[i], flen[i]);
              mp_set_file_error (error, MP_ANALYSIS_ERROR_PARSE, path,
                                 "line %u (buffer '%s'): %s '%s' is not a non-negative integer",
                                 line_no, id, names[i], text);
              return NULL;
            }
        if (v[1] >= (guint64) MAX_TIME || v[2] >= (guint64) MAX_TIME)
          {
            mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                               "line %u (buffer '%s'): lower and upper must be below 2^53",
                               line_no, id);
            return NULL;
          }
        if (v[2] <= v[1])
          {
            mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                               "line %u (buffer '%s'): upper %" G_GUINT64_FORMAT
                               " must be greater than lower %" G_GUINT64_FORMAT,
                               line_no, id, v[2], v[1]);
            return NULL;
          }
        if (v[3] == 0 || v[3] > MP_MAX_TENSOR_SIZE)
          {
            mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                               "line %u (buffer '%s'): size must be from 1 to 2^48 bytes, got %"
                               G_GUINT64_FORMAT,
                               line_no, id, v[3]);
            return NULL;
          }
        if ((t = mp_graph_add_tensor (graph, id, NULL)) < 0)
          {
            mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                               "line %u: buffer '%s' is declared twice", line_no, id);
            return NULL;
          }
        graph->tensors[t].size = v[3];
        graph->tensors[t].first = v[1];
        graph->tensors[t].last = v[2] - 1;
        max_upper = MAX (max_upper, (gint64) v[2]);
        if (n_columns >= 5)
          g_array_append_val (offsets, v[4]);
      }
    }

  if (!header_done)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_PARSE, path,
                         "empty file: expected the header 'id,lower,upper,size'");
      return NULL;
    }
  if (!mp_graph_check (graph, error))
    return NULL;
  if (offsets_out)
    *offsets_out = n_columns >= 5 ? (guint64 *) g_array_free (g_steal_pointer (&offsets), FALSE)
                                  : NULL;
  return g_steal_pointer (&graph);
}

MpGraph *
mp_graph_load_csv (const char *path, guint64 **offsets_out, GError **error)
{
  g_autofree char *data = NULL;
  gsize            length;

  if (offsets_out)
    *offsets_out = NULL;
  if (!mp_read_file (path, &data, &length, error))
    return NULL;
  return mp_graph_parse_csv (data, length, path, offsets_out, error);
}
