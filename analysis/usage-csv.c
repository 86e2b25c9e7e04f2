/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <string.h>

#include "graph-private.h"

/* MiniMalloc's usage records, read as MiniMalloc reads them: a header names
 * the columns, in any order. id (or buffer, buffer_id), lower (or start,
 * begin), upper (exclusive) or end (inclusive), size; optional offset,
 * alignment and gaps; any other column is ignored. Alignment 1 unless an
 * alignment column says more. */

#define MAX_TIME    (G_GINT64_CONSTANT (1) << 53)
#define MAX_COLUMNS 64

typedef enum
{
  COL_ID,
  COL_LOWER,
  COL_UPPER,
  COL_SIZE,
  COL_OFFSET,
  COL_ALIGNMENT,
  COL_GAPS,
  N_ROLES,
  COL_OTHER = N_ROLES,
} ColumnRole;

typedef struct
{
  gint      index[N_ROLES]; /* column of each role, or -1 */
  char     *name[N_ROLES];  /* the header's word for it, for messages */
  guint     n_columns;
  gboolean  inclusive_end;  /* an "end" column: MiniMalloc adds one */
  GString  *ignored;        /* names of columns with no role */
} Header;

static void
header_clear (Header *h)
{
  for (guint i = 0; i < N_ROLES; i++)
    g_free (h->name[i]);
  if (h->ignored)
    g_string_free (h->ignored, TRUE);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Header, header_clear)

static ColumnRole
column_role (const char *name, gboolean *inclusive)
{
  static const struct { const char *name; ColumnRole role; } words[] = {
    { "id", COL_ID },         { "buffer", COL_ID },       { "buffer_id", COL_ID },
    { "lower", COL_LOWER },   { "start", COL_LOWER },     { "begin", COL_LOWER },
    { "upper", COL_UPPER },   { "end", COL_UPPER },       { "size", COL_SIZE },
    { "offset", COL_OFFSET }, { "alignment", COL_ALIGNMENT }, { "gaps", COL_GAPS },
  };

  for (guint i = 0; i < G_N_ELEMENTS (words); i++)
    if (g_str_equal (name, words[i].name))
      {
        if (g_str_equal (name, "end"))
          *inclusive = TRUE;
        return words[i].role;
      }
  return COL_OTHER;
}

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

static gboolean
parse_header (Header *h, const char **field, const gsize *flen, guint nf, const char *line,
              gsize line_len, const char *path, GError **error)
{
  for (guint i = 0; i < N_ROLES; i++)
    h->index[i] = -1;
  h->n_columns = nf;
  for (guint i = 0; i < nf; i++)
    {
      g_autofree char *word = g_strstrip (g_strndup (field[i], flen[i]));
      ColumnRole       role = column_role (word, &h->inclusive_end);

      if (role == COL_OTHER)
        {
          if (!h->ignored)
            h->ignored = g_string_new (NULL);
          g_string_append_printf (h->ignored, "%s'%s'", h->ignored->len ? ", " : "", word);
          continue;
        }
      if (h->index[role] >= 0)
        {
          if (g_str_equal (h->name[role], word))
            mp_set_file_error (error, MP_ANALYSIS_ERROR_PARSE, path,
                               "line 1: column '%s' appears twice", word);
          else
            mp_set_file_error (error, MP_ANALYSIS_ERROR_PARSE, path,
                               "line 1: columns '%s' and '%s' name the same thing", h->name[role],
                               word);
          return FALSE;
        }
      h->index[role] = i;
      h->name[role] = g_steal_pointer (&word);
    }
  if (h->index[COL_ID] < 0 || h->index[COL_LOWER] < 0 || h->index[COL_UPPER] < 0 ||
      h->index[COL_SIZE] < 0)
    {
      g_autofree char *text = g_strndup (line, MIN (line_len, 60));
      mp_set_file_error (error, MP_ANALYSIS_ERROR_PARSE, path,
                         "line 1: expected a header naming the columns id, lower, upper and size "
                         "in any order (or start and an inclusive end), got '%s'",
                         text);
      return FALSE;
    }
  return TRUE;
}

/* One record from line on, as RFC 4180 has it: fields split on commas; a
 * field that starts with a double quote runs to the closing one, holding
 * commas, line breaks and doubled quotes (""), so a name such as
 * "real,0,5,1073741824,0\nfake" stays one field of one record. Plain fields
 * point into the data, quoted ones (unquoted) into buf; quoted[i] says
 * which. Sets *next past the record's line break, *record_end before it and
 * adds the line breaks inside quotes to *line_no. One field past the limit
 * shows a record is too long. */
static gboolean
split_record (const char *line, const char *end, const char **field, gsize *flen,
              gboolean *quoted, guint *nf_out, GString *buf, const char **record_end,
              const char **next, guint *line_no, const char *path, GError **error)
{
  gsize       at[MAX_COLUMNS + 1];
  const char *f = line;
  guint       nf = 0, first_line = *line_no;

  g_string_truncate (buf, 0);
  while (nf <= MAX_COLUMNS)
    {
      const char *stop;

      quoted[nf] = f < end && *f == '"';
      if (quoted[nf])
        {
          at[nf] = buf->len;
          for (f++;; f++)
            {
              if (f >= end)
                {
                  mp_set_file_error (error, MP_ANALYSIS_ERROR_PARSE, path,
                                     "line %u: a quoted field is never closed (a \" inside "
                                     "quotes is written \"\")", first_line);
                  return FALSE;
                }
              if (*f == '"' && f + 1 < end && f[1] == '"')
                g_string_append_c (buf, '"'), f++;
              else if (*f == '"')
                break;
              else
                {
                  *line_no += *f == '\n';
                  g_string_append_c (buf, *f);
                }
            }
          flen[nf] = buf->len - at[nf];
          f++;
          stop = f;
          if (stop < end && *stop == '\r' && (stop + 1 == end || stop[1] == '\n'))
            stop++;
          if (stop < end && *stop != ',' && *stop != '\n')
            {
              mp_set_file_error (error, MP_ANALYSIS_ERROR_PARSE, path,
                                 "line %u: text after a closing quote (a \" inside quotes is "
                                 "written \"\")", *line_no);
              return FALSE;
            }
          f = stop == f ? f : stop;
        }
      else
        {
          field[nf] = f;
          while (f < end && *f != ',' && *f != '\n')
            f++;
          flen[nf] = f - field[nf];
          /* CR LF: the CR is no part of the last field */
          if ((f == end || *f == '\n') && flen[nf] > 0 && field[nf][flen[nf] - 1] == '\r')
            flen[nf]--;
        }
      nf++;
      if (f >= end || *f == '\n')
        break;
      f++; /* the comma */
    }
  for (guint i = 0; i < nf; i++)
    if (quoted[i])
      field[i] = buf->str + at[i];
  *nf_out = nf;
  *record_end = f;
  if (f < end && *f == '\n')
    f++;
  else if (f < end)
    {
      /* past the column limit: the rest of the line is no field of ours */
      const char *eol = memchr (f, '\n', end - f);

      f = eol ? eol + 1 : end;
    }
  *next = f;
  return TRUE;
}

/* What the file says that the planners do not use, in a sentence or two. */
static char *
header_note (const Header *h, guint n_gapped, guint64 alignment, gboolean mixed_alignment)
{
  GString *note = g_string_new (NULL);

  if (n_gapped)
    g_string_append_printf (note, "column '%s' read: %u buffer%s lifetime gaps, which the "
                            "planners do not use (each buffer is planned as live from its "
                            "first to its last step)",
                            h->name[COL_GAPS], n_gapped, n_gapped == 1 ? " has" : "s have");
  if (mixed_alignment)
    g_string_append_printf (note, "%scolumn '%s' read: buffers differ in alignment; every buffer "
                            "is aligned to the largest, %" G_GUINT64_FORMAT " bytes",
                            note->len ? "; " : "", h->name[COL_ALIGNMENT], alignment);
  if (h->ignored)
    g_string_append_printf (note, "%scolumns ignored: %s", note->len ? "; " : "",
                            h->ignored->str);
  return g_string_free (note, note->len == 0);
}

MpGraph *
mp_graph_parse_csv (const char *data, gsize length, const char *path, guint64 **offsets_out,
                    GError **error)
{
  g_autoptr (MpGraph) graph = NULL;
  g_autoptr (GArray) offsets = NULL;
  g_autofree char *base = NULL;
  g_autofree const char **field = g_new (const char *, MAX_COLUMNS + 1);
  g_autofree gsize *flen = g_new (gsize, MAX_COLUMNS + 1);
  g_autofree gboolean *quoted = g_new (gboolean, MAX_COLUMNS + 1);
  g_autoptr (GString) buf = g_string_new (NULL);
  const char *p = data, *end = data + length;
  guint       line_no = 0, n_gapped = 0;
  gint64      max_upper = 0;
  guint64     alignment = 1, first_alignment = 0;
  gboolean    header_done = FALSE, mixed_alignment = FALSE;
  g_auto (Header) h = { 0 };

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
      const char *line = p, *line_end;
      guint       nf = 0;

      line_no++;
      if (!split_record (line, end, field, flen, quoted, &nf, buf, &line_end, &p, &line_no, path,
                         error))
        return NULL;
      if (line_end > line && line_end[-1] == '\r')
        line_end--;
      if (line_end == line)
        continue;

      if (!header_done)
        {
          if (nf > MAX_COLUMNS)
            {
              mp_set_file_error (error, MP_ANALYSIS_ERROR_PARSE, path,
                                 "line %u: more than %u columns", line_no, MAX_COLUMNS);
              return NULL;
            }
          if (!parse_header (&h, field, flen, nf, line, line_end - line, path, error))
            return NULL;
          header_done = TRUE;
          continue;
        }

      {
        static const ColumnRole numeric[] = { COL_LOWER, COL_UPPER, COL_SIZE, COL_OFFSET,
                                              COL_ALIGNMENT };
        g_autofree char *id = NULL;
        guint64          v[N_ROLES] = { 0 };
        gint             t;
        gint             ci = h.index[COL_ID];

        if (nf != h.n_columns)
          {
            mp_set_file_error (error, MP_ANALYSIS_ERROR_PARSE, path,
                               "line %u: expected %u fields, found %u%s", line_no, h.n_columns,
                               nf, nf > h.n_columns ? " or more" : "");
            return NULL;
          }
        id = g_strndup (field[ci], flen[ci]);
        /* spaces around a plain id are layout; inside quotes they are the name */
        if (!quoted[ci])
          g_strstrip (id);
        if (*id == '\0')
          {
            mp_set_file_error (error, MP_ANALYSIS_ERROR_PARSE, path, "line %u: empty id",
                               line_no);
            return NULL;
          }
        for (guint k = 0; k < G_N_ELEMENTS (numeric); k++)
          {
            gint c = h.index[numeric[k]];

            if (c >= 0 && !parse_u64 (field[c], flen[c], &v[numeric[k]]))
              {
                g_autofree char *text = field_text (field[c], flen[c]);
                mp_set_file_error (error, MP_ANALYSIS_ERROR_PARSE, path,
                                   "line %u (buffer '%s'): %s '%s' is not a non-negative integer",
                                   line_no, id, h.name[numeric[k]], text);
                return NULL;
              }
          }
        /* an inclusive end: [start, end + 1), as MiniMalloc reads it */
        if (h.inclusive_end && v[COL_UPPER] < (guint64) MAX_TIME)
          v[COL_UPPER]++;
        if (v[COL_LOWER] >= (guint64) MAX_TIME || v[COL_UPPER] >= (guint64) MAX_TIME)
          {
            mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                               "line %u (buffer '%s'): %s and %s must be below 2^53", line_no,
                               id, h.name[COL_LOWER], h.name[COL_UPPER]);
            return NULL;
          }
        if (v[COL_UPPER] <= v[COL_LOWER])
          {
            mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                               "line %u (buffer '%s'): %s %" G_GUINT64_FORMAT
                               " must be %s %s %" G_GUINT64_FORMAT,
                               line_no, id, h.name[COL_UPPER],
                               v[COL_UPPER] - (h.inclusive_end ? 1 : 0),
                               h.inclusive_end ? "at least" : "greater than", h.name[COL_LOWER],
                               v[COL_LOWER]);
            return NULL;
          }
        if (v[COL_SIZE] == 0 || v[COL_SIZE] > MP_MAX_TENSOR_SIZE)
          {
            mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                               "line %u (buffer '%s'): size must be from 1 to 2^48 bytes, got %"
                               G_GUINT64_FORMAT,
                               line_no, id, v[COL_SIZE]);
            return NULL;
          }
        if (h.index[COL_ALIGNMENT] >= 0)
          {
            guint64 a = v[COL_ALIGNMENT];

            if (!mp_alignment_valid (a))
              {
                g_autofree char *value = g_strdup_printf ("%" G_GUINT64_FORMAT, a);
                g_autofree char *message = mp_alignment_message (h.name[COL_ALIGNMENT], value);

                mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                                   "line %u (buffer '%s'): %s", line_no, id, message);
                return NULL;
              }
            if (first_alignment == 0)
              first_alignment = a;
            mixed_alignment |= a != first_alignment;
            alignment = MAX (alignment, a);
          }
        if (h.index[COL_GAPS] >= 0)
          {
            g_autofree char *gaps = g_strndup (field[h.index[COL_GAPS]], flen[h.index[COL_GAPS]]);

            if (*g_strstrip (gaps))
              n_gapped++;
          }
        if ((t = mp_graph_add_tensor (graph, id, NULL)) < 0)
          {
            mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                               "line %u: buffer '%s' is declared twice", line_no, id);
            return NULL;
          }
        graph->tensors[t].size = v[COL_SIZE];
        graph->tensors[t].first = v[COL_LOWER];
        graph->tensors[t].last = v[COL_UPPER] - 1;
        max_upper = MAX (max_upper, (gint64) v[COL_UPPER]);
        if (h.index[COL_OFFSET] >= 0)
          g_array_append_val (offsets, v[COL_OFFSET]);
      }
    }

  if (!header_done)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_PARSE, path,
                         "empty file: expected the header 'id,lower,upper,size'");
      return NULL;
    }
  graph->alignment = alignment;
  graph->note = header_note (&h, n_gapped, alignment, mixed_alignment);
  if (!mp_graph_check (graph, error))
    return NULL;
  if (offsets_out)
    *offsets_out = h.index[COL_OFFSET] >= 0
                     ? (guint64 *) g_array_free (g_steal_pointer (&offsets), FALSE)
                     : NULL;
  return g_steal_pointer (&graph);
}

