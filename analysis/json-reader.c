/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <string.h>

#include "graph-private.h"
#include "json-reader.h"
#include "json-util.h"

/* Deep enough for any graph, shallow enough that hostile nesting is refused. */
#define MAX_DEPTH 64

void
mp_json_reader_init (MpJsonReader *r, const char *data, gsize length, const char *path)
{
  memset (r, 0, sizeof *r);
  r->data = r->p = data;
  r->end = data + length;
  r->path = path;
  r->text = g_string_sized_new (64);
}

void
mp_json_reader_clear (MpJsonReader *r)
{
  g_string_free (r->text, TRUE);
  g_clear_error (&r->error);
}

static void
fail_at (MpJsonReader *r, const char *at, const char *what)
{
  guint line = 1, column = 1;

  if (r->error)
    return;
  r->truncated = at >= r->end;
  /* a window's caller refills it or reads the file again for the message:
   * no count of lines through megabytes */
  if (r->windowed)
    {
      g_set_error_literal (&r->error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_PARSE, "not valid JSON");
      return;
    }
  for (const char *q = r->data; q < at && q < r->end; q++)
    {
      if (*q == '\n')
        line++, column = 1;
      else if (((guchar) *q & 0xc0) != 0x80) /* count characters, not UTF-8 bytes */
        column++;
    }
  if (at >= r->end)
    mp_set_file_error (&r->error, MP_ANALYSIS_ERROR_PARSE, r->path,
                       "truncated JSON: the file ends at line %u, column %u before the document "
                       "is complete",
                       line, column);
  else
    mp_set_file_error (&r->error, MP_ANALYSIS_ERROR_PARSE, r->path,
                       "not valid JSON: %s at line %u, column %u", what, line, column);
}

static inline void
skip_ws (MpJsonReader *r)
{
  while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\t' || *r->p == '\r'))
    r->p++;
}

MpJsonType
mp_json_reader_peek (MpJsonReader *r)
{
  if (r->error)
    return MP_JSON_END;
  skip_ws (r);
  if (r->p >= r->end)
    return MP_JSON_END;
  switch (*r->p)
    {
    case '{': return MP_JSON_OBJECT;
    case '[': return MP_JSON_ARRAY;
    case '"': return MP_JSON_STRING;
    case 't': return MP_JSON_TRUE;
    case 'f': return MP_JSON_FALSE;
    case 'n': return MP_JSON_NULL;
    default:
      if (*r->p == '-' || g_ascii_isdigit (*r->p))
        return MP_JSON_NUMBER;
      return MP_JSON_END;
    }
}

static gboolean
expect_char (MpJsonReader *r, char c, const char *what)
{
  skip_ws (r);
  if (r->p < r->end && *r->p == c)
    {
      r->p++;
      return TRUE;
    }
  fail_at (r, r->p, what);
  return FALSE;
}

/* Opens an object or a list: one more level, its first item still to come. */
static gboolean
begin_container (MpJsonReader *r, char open, const char *what)
{
  if (r->error)
    return FALSE;
  if (r->depth >= MAX_DEPTH)
    {
      fail_at (r, r->p, "nesting deeper than 64 levels");
      return FALSE;
    }
  if (!expect_char (r, open, what))
    return FALSE;
  r->fresh[++r->depth] = TRUE;
  return TRUE;
}

gboolean
mp_json_reader_begin_object (MpJsonReader *r)
{
  return begin_container (r, '{', "expected an object");
}

static gboolean scan_string (MpJsonReader *r, gboolean decode);

static inline gboolean
read_string_token (MpJsonReader *r)
{
  return scan_string (r, TRUE);
}

/* Skipped strings are checked, not decoded: the layout pass skips the whole
 * document, a million names and keys, before the reading pass. */
static inline gboolean
skip_string_token (MpJsonReader *r)
{
  return scan_string (r, FALSE);
}

/* Steps to the next item of the open container: FALSE at its end (closed)
 * or on an error; after the first item a comma is required. */
static gboolean
next_item (MpJsonReader *r, char close, const char *what)
{
  if (r->error)
    return FALSE;
  skip_ws (r);
  if (r->p < r->end && *r->p == close)
    {
      r->p++;
      r->depth--;
      return FALSE;
    }
  if (!r->fresh[r->depth] && !expect_char (r, ',', what))
    return FALSE;
  r->fresh[r->depth] = FALSE;
  skip_ws (r);
  return TRUE;
}

gboolean
mp_json_reader_next_member (MpJsonReader *r)
{
  if (!next_item (r, '}', "expected ',' or '}' after an object member"))
    return FALSE;
  if (r->p >= r->end || *r->p != '"')
    {
      fail_at (r, r->p, "expected a string as the member name");
      return FALSE;
    }
  if (!read_string_token (r))
    return FALSE;
  return expect_char (r, ':', "expected ':' after the member name");
}

gboolean
mp_json_reader_begin_array (MpJsonReader *r)
{
  return begin_container (r, '[', "expected a list");
}

gboolean
mp_json_reader_next_element (MpJsonReader *r)
{
  return next_item (r, ']', "expected ',' or ']' after a list element");
}

static int
hex4 (const char *p)
{
  int v = 0;

  for (int i = 0; i < 4; i++)
    {
      int d = g_ascii_xdigit_value (p[i]);
      if (d < 0)
        return -1;
      v = v * 16 + d;
    }
  return v;
}

/* Reads a string token at r->p, into r->text when decode is TRUE. */
static gboolean
scan_string (MpJsonReader *r, gboolean decode)
{
  const char *p = r->p + 1, *start;
  guchar      high = 0; /* any byte >= 0x80 seen: then the UTF-8 must be checked */
  GString    *text = decode ? r->text : NULL;
  char        c;

  if (text)
    g_string_truncate (text, 0);
  r->raw = r->p;
  for (;;)
    {
      start = p;
      while (p < r->end && *p != '"' && *p != '\\' && (guchar) *p >= 0x20)
        high |= (guchar) *p++;
      if (text)
        mp_string_append_run (text, start, p - start);
      if (p >= r->end)
        {
          fail_at (r, r->end, NULL);
          return FALSE;
        }
      if (*p == '"')
        break;
      if ((guchar) *p < 0x20)
        {
          fail_at (r, p, "control character in a string");
          return FALSE;
        }
      /* escape */
      if (p + 1 >= r->end)
        {
          fail_at (r, r->end, NULL);
          return FALSE;
        }
      switch (p[1])
        {
        case '"': case '\\': case '/': c = p[1]; break;
        case 'b': c = '\b'; break;
        case 'f': c = '\f'; break;
        case 'n': c = '\n'; break;
        case 'r': c = '\r'; break;
        case 't': c = '\t'; break;
        case 'u':
          {
            const char *esc = p;
            int         cp = r->end - p >= 6 ? hex4 (p + 2) : -1;

            if (cp < 0)
              {
                fail_at (r, p, "bad \\u escape in a string");
                return FALSE;
              }
            p += 4;
            if (cp >= 0xd800 && cp < 0xdc00)
              {
                int lo = r->end - p >= 8 && p[2] == '\\' && p[3] == 'u' ? hex4 (p + 4) : -1;

                if (lo < 0xdc00 || lo >= 0xe000)
                  {
                    fail_at (r, esc, "unpaired surrogate in a string");
                    return FALSE;
                  }
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                p += 6;
              }
            else if (cp >= 0xdc00 && cp < 0xe000)
              {
                fail_at (r, esc, "unpaired surrogate in a string");
                return FALSE;
              }
            if (cp == 0)
              {
                fail_at (r, esc, "NUL character in a string");
                return FALSE;
              }
            if (text)
              g_string_append_unichar (text, cp);
            p += 2;
            continue;
          }
        default:
          fail_at (r, p, "bad escape in a string");
          return FALSE;
        }
      if (text)
        g_string_append_c (text, c);
      p += 2;
    }
  r->p = p + 1;
  r->raw_len = r->p - r->raw;
  /* escapes decode to valid UTF-8 and are written in ASCII, so the text as
   * written is valid exactly when the decoded one is; plain ASCII needs no
   * check */
  if ((high & 0x80) && !g_utf8_validate (r->raw + 1, r->raw_len - 2, NULL))
    {
      fail_at (r, r->raw, "invalid UTF-8 in a string");
      return FALSE;
    }
  return TRUE;
}

gboolean
mp_json_reader_string (MpJsonReader *r)
{
  if (mp_json_reader_peek (r) != MP_JSON_STRING)
    {
      if (!r->error)
        fail_at (r, r->p, "expected a string");
      return FALSE;
    }
  return read_string_token (r);
}

/* Scans a number token; returns FALSE on a syntax error. */
static gboolean
scan_number (MpJsonReader *r, gboolean *is_int, gboolean *negative)
{
  const char *p = r->p;

  *negative = *is_int = FALSE;
  r->raw = p;
  if (p < r->end && *p == '-')
    *negative = TRUE, p++;
  if (p >= r->end || !g_ascii_isdigit (*p))
    {
      fail_at (r, p, "bad number");
      return FALSE;
    }
  if (*p == '0')
    p++;
  else
    while (p < r->end && g_ascii_isdigit (*p))
      p++;
  *is_int = TRUE;
  if (p < r->end && *p == '.')
    {
      *is_int = FALSE;
      p++;
      if (p >= r->end || !g_ascii_isdigit (*p))
        {
          fail_at (r, p, "bad number");
          return FALSE;
        }
      while (p < r->end && g_ascii_isdigit (*p))
        p++;
    }
  if (p < r->end && (*p == 'e' || *p == 'E'))
    {
      *is_int = FALSE;
      p++;
      if (p < r->end && (*p == '+' || *p == '-'))
        p++;
      if (p >= r->end || !g_ascii_isdigit (*p))
        {
          fail_at (r, p, "bad number");
          return FALSE;
        }
      while (p < r->end && g_ascii_isdigit (*p))
        p++;
    }
  r->p = p;
  r->raw_len = p - r->raw;
  return TRUE;
}

static gboolean
literal (MpJsonReader *r, const char *word)
{
  gsize n = strlen (word);

  if ((gsize) (r->end - r->p) < n || memcmp (r->p, word, n) != 0)
    {
      fail_at (r, (gsize) (r->end - r->p) < n && memcmp (r->p, word, r->end - r->p) == 0
                    ? r->end : r->p,
               "unexpected character");
      return FALSE;
    }
  r->raw = r->p;
  r->raw_len = n;
  r->p += n;
  return TRUE;
}

gboolean
mp_json_reader_u64 (MpJsonReader *r, guint64 *value, gboolean *ok)
{
  MpJsonType type = mp_json_reader_peek (r);
  gboolean   is_int, negative;

  *ok = FALSE;
  if (type != MP_JSON_NUMBER)
    return mp_json_reader_skip (r);
  if (!scan_number (r, &is_int, &negative))
    return FALSE;
  if (is_int && !negative)
    {
      guint64 v = 0;

      for (gsize i = 0; i < r->raw_len; i++)
        if (!g_uint64_checked_mul (&v, v, 10) || !g_uint64_checked_add (&v, v, r->raw[i] - '0'))
          return TRUE; /* overflow: *ok stays FALSE */
      if (v > (guint64) G_MAXINT64)
        return TRUE;
      *value = v;
      *ok = TRUE;
    }
  return TRUE;
}

/* Consumes one scalar; FALSE on a syntax error. */
static gboolean
skip_scalar (MpJsonReader *r)
{
  gboolean is_int, negative;

  switch (mp_json_reader_peek (r))
    {
    case MP_JSON_STRING: return skip_string_token (r);
    case MP_JSON_NUMBER: return scan_number (r, &is_int, &negative);
    case MP_JSON_TRUE: return literal (r, "true");
    case MP_JSON_FALSE: return literal (r, "false");
    case MP_JSON_NULL: return literal (r, "null");
    default:
      fail_at (r, r->p, "unexpected character");
      return FALSE;
    }
}

/* Skips one whole value, checking its syntax, with a stack of the
 * containers it opens. */
gboolean
mp_json_reader_skip (MpJsonReader *r)
{
  char  stack[MAX_DEPTH];
  guint n = 0;

  if (r->error)
    return FALSE;
  for (;;)
    {
      /* a value starts here */
      MpJsonType t = mp_json_reader_peek (r);

      if (t == MP_JSON_OBJECT || t == MP_JSON_ARRAY)
        {
          if (r->depth + n >= MAX_DEPTH)
            {
              fail_at (r, r->p, "nesting deeper than 64 levels");
              return FALSE;
            }
          stack[n++] = *r->p++;
          skip_ws (r);
          if (r->p < r->end && *r->p == (t == MP_JSON_OBJECT ? '}' : ']'))
            {
              r->p++;
              n--;
            }
          else if (t == MP_JSON_OBJECT)
            {
              if (r->p >= r->end || *r->p != '"')
                {
                  fail_at (r, r->p, "expected a string as the member name");
                  return FALSE;
                }
              if (!skip_string_token (r) ||
                  !expect_char (r, ':', "expected ':' after the member name"))
                return FALSE;
              continue;
            }
          else
            continue;
        }
      else if (t == MP_JSON_END)
        {
          fail_at (r, r->p, "unexpected character");
          return FALSE;
        }
      else if (!skip_scalar (r))
        return FALSE;

      /* after a value: close containers or move to the next item */
      for (;;)
        {
          if (n == 0)
            return TRUE;
          skip_ws (r);
          if (r->p >= r->end)
            {
              fail_at (r, r->end, NULL);
              return FALSE;
            }
          if (*r->p == (stack[n - 1] == '{' ? '}' : ']'))
            {
              r->p++;
              n--;
              continue;
            }
          if (*r->p != ',')
            {
              fail_at (r, r->p, stack[n - 1] == '{' ? "expected ',' or '}' after an object member"
                                                    : "expected ',' or ']' after a list element");
              return FALSE;
            }
          r->p++;
          if (stack[n - 1] == '{')
            {
              skip_ws (r);
              if (r->p >= r->end || *r->p != '"')
                {
                  fail_at (r, r->p, "expected a string as the member name");
                  return FALSE;
                }
              if (!skip_string_token (r) ||
                  !expect_char (r, ':', "expected ':' after the member name"))
                return FALSE;
            }
          break;
        }
    }
}

gboolean
mp_json_reader_finish (MpJsonReader *r)
{
  if (r->error)
    return FALSE;
  skip_ws (r);
  if (r->p < r->end)
    {
      fail_at (r, r->p, "unexpected text after the document");
      return FALSE;
    }
  return TRUE;
}

char *
mp_json_reader_describe (MpJsonReader *r)
{
  return g_strndup (r->raw, MIN (r->raw_len, 60));
}

gsize
mp_json_reader_tell (MpJsonReader *r)
{
  return r->p - r->data;
}

void
mp_json_reader_seek (MpJsonReader *r, gsize offset)
{
  r->p = r->data + MIN (offset, (gsize) (r->end - r->data));
}
