/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "graph-private.h"
#include "json-util.h"

/* Deep enough for any graph, shallow enough that hostile nesting is refused. */
#define MAX_DEPTH 64

static void
position (const char *data, gsize offset, guint *line, guint *column)
{
  *line = 1;
  *column = 1;
  for (gsize i = 0; i < offset; i++)
    {
      if (data[i] == '\n')
        {
          (*line)++;
          *column = 1;
        }
      else
        (*column)++;
    }
}

json_object *
mp_json_parse (const char *data, gsize length, const char *path, GError **error)
{
  json_tokener         *tok;
  json_object          *root;
  enum json_tokener_error jerr;
  gsize                 end;
  guint                 line, column;

  if (length > G_MAXINT)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_PARSE, path, "file is larger than 2 GiB");
      return NULL;
    }
  tok = json_tokener_new_ex (MAX_DEPTH);
  root = json_tokener_parse_ex (tok, data, length);
  jerr = json_tokener_get_error (tok);
  end = json_tokener_get_parse_end (tok);

  if (jerr == json_tokener_continue || (jerr == json_tokener_success && root == NULL))
    {
      position (data, length, &line, &column);
      mp_set_file_error (error, MP_ANALYSIS_ERROR_PARSE, path,
                         "truncated JSON: the file ends at line %u, column %u before the "
                         "document is complete",
                         line, column);
      json_tokener_free (tok);
      return NULL;
    }
  if (jerr != json_tokener_success)
    {
      position (data, MIN (end, length), &line, &column);
      /* the same words as the graph reader's for the same limit */
      if (jerr == json_tokener_error_depth)
        mp_set_file_error (error, MP_ANALYSIS_ERROR_PARSE, path,
                           "not valid JSON: nesting deeper than %d levels at line %u, column %u",
                           MAX_DEPTH, line, column);
      else
        mp_set_file_error (error, MP_ANALYSIS_ERROR_PARSE, path,
                           "not valid JSON: %s at line %u, column %u",
                           json_tokener_error_desc (jerr), line, column);
      json_tokener_free (tok);
      return NULL;
    }
  /* Only whitespace may follow the document. */
  for (gsize i = end; i < length; i++)
    if (!g_ascii_isspace (data[i]))
      {
        position (data, i, &line, &column);
        mp_set_file_error (error, MP_ANALYSIS_ERROR_PARSE, path,
                           "not valid JSON: unexpected text after the document at line %u, "
                           "column %u",
                           line, column);
        json_object_put (root);
        json_tokener_free (tok);
        return NULL;
      }
  json_tokener_free (tok);
  return root;
}

gboolean
mp_json_get_u64 (json_object *obj, guint64 *value)
{
  gint64 v;

  if (obj == NULL || !json_object_is_type (obj, json_type_int))
    return FALSE;
  /* json-c keeps integers above INT64_MAX as uint64 and clamps beyond that;
   * the clamped values read back as the extremes, which we refuse. */
  errno = 0;
  v = json_object_get_int64 (obj);
  if (v < 0)
    return FALSE;
  if (v == G_MAXINT64)
    {
      guint64 u = json_object_get_uint64 (obj);

      if (u >= (guint64) G_MAXINT64)
        return FALSE;
    }
  *value = (guint64) v;
  return TRUE;
}

json_object *
mp_json_new_short_double (gdouble value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (!isfinite (value) || value >= G_MAXDOUBLE)
    return NULL;
  g_ascii_formatd (buf, sizeof buf, "%.9g", value);
  return json_object_new_double_s (value, buf);
}

char *
mp_json_to_text_free (json_object *root)
{
  char *out = g_strconcat (json_object_to_json_string_ext (root, JSON_C_TO_STRING_PRETTY |
                                                                   JSON_C_TO_STRING_SPACED |
                                                                   JSON_C_TO_STRING_NOSLASHESCAPE),
                           "\n", NULL);

  json_object_put (root);
  return out;
}
