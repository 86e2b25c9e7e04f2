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

/* Whether the tree holds a number that JSON has not: json-c reads NaN,
 * Infinity and 1e999 (as infinity) where the standard allows none. */
static gboolean
has_non_finite (json_object *obj)
{
  switch (json_object_get_type (obj))
    {
    case json_type_double:
      return !isfinite (json_object_get_double (obj));
    case json_type_array:
      for (gsize i = 0, n = json_object_array_length (obj); i < n; i++)
        if (has_non_finite (json_object_array_get_idx (obj, i)))
          return TRUE;
      return FALSE;
    case json_type_object:
      {
        json_object_object_foreach (obj, key, value)
          {
            (void) key;
            if (has_non_finite (value))
              return TRUE;
          }
        return FALSE;
      }
    default:
      return FALSE;
    }
}

/* Where the first such number is written: the first word outside strings
 * that is neither a literal nor a finite number. */
static gsize
find_non_finite (const char *data, gsize length, char **word)
{
  gboolean in_string = FALSE;

  for (gsize i = 0; i < length; i++)
    {
      g_autofree char *token = NULL;
      char            *end;
      gdouble          v;
      gsize            j = i;

      if (in_string)
        {
          if (data[i] == '\\')
            i++;
          else if (data[i] == '"')
            in_string = FALSE;
          continue;
        }
      if (data[i] == '"')
        {
          in_string = TRUE;
          continue;
        }
      if (data[i] != '-' && !g_ascii_isalnum (data[i]))
        continue;
      while (j < length && (g_ascii_isalnum (data[j]) || data[j] == '+' || data[j] == '-' ||
                            data[j] == '.'))
        j++;
      token = g_strndup (data + i, MIN (j - i, 24));
      v = g_ascii_strtod (token, &end);
      if (!g_str_equal (token, "true") && !g_str_equal (token, "false") &&
          !g_str_equal (token, "null") && (*end != '\0' || !isfinite (v)))
        {
          *word = g_steal_pointer (&token);
          return i;
        }
      i = j - 1;
    }
  *word = g_strdup ("?");
  return length;
}

static gboolean
check_finite (json_object *root, const char *data, gsize length, const char *path,
              GError **error)
{
  g_autofree char *word = NULL;
  guint            line, column;

  if (!has_non_finite (root))
    return TRUE;
  position (data, find_non_finite (data, length, &word), &line, &column);
  mp_set_file_error (error, MP_ANALYSIS_ERROR_PARSE, path,
                     "not valid JSON: %s at line %u, column %u (JSON numbers are finite: no "
                     "NaN or Infinity)", word, line, column);
  return FALSE;
}

json_object *
mp_json_parse (const char *data, gsize length, const char *path, GError **error)
{
  json_tokener         *tok;
  json_object          *root;
  enum json_tokener_error jerr;
  gsize                 end;
  guint                 line, column;
  const char           *bad;

  if (length > G_MAXINT)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_PARSE, path, "file is larger than 2 GiB");
      return NULL;
    }
  /* JSON is UTF-8 (RFC 8259); names that are not would reach pango and
   * terminals as they are */
  if (!g_utf8_validate_len (data, length, &bad))
    {
      position (data, bad - data, &line, &column);
      mp_set_file_error (error, MP_ANALYSIS_ERROR_PARSE, path,
                         "not valid JSON: a byte that is not UTF-8 at line %u, column %u",
                         line, column);
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
  if (!check_finite (root, data, length, path, error))
    {
      json_object_put (root);
      return NULL;
    }
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
