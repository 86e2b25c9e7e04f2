/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <string.h>

#include "text-util.h"

/* Characters that reorder or break what follows them on a terminal or in a
 * label: the bidi embeddings, overrides and isolates (U+202E turns
 * "evil\u202Egnp.exe" into "evilexe.png"), the marks, and the Unicode line
 * and paragraph separators. */
static gboolean
is_bidi_or_break (gunichar u)
{
  return u == 0x061c || u == 0x200e || u == 0x200f || (u >= 0x2028 && u <= 0x202e) ||
         (u >= 0x2066 && u <= 0x2069);
}

/* The length of the character at p when it is printable (or a kept
 * newline or tab), 0 when it must be escaped. */
static gsize
printable_length (const char *p, gboolean keep_lines)
{
  guchar   c = (guchar) *p;
  gunichar u;

  if (c < 0x80)
    return (c >= 0x20 && c != 0x7f) || (keep_lines && (c == '\n' || c == '\t')) ? 1 : 0;
  u = g_utf8_get_char_validated (p, -1);
  if (u == (gunichar) -1 || u == (gunichar) -2 || (u >= 0x80 && u < 0xa0) ||
      is_bidi_or_break (u))
    return 0;
  return g_utf8_next_char (p) - p;
}

gboolean
mp_text_has_control (const char *text, gboolean keep_lines)
{
  for (const char *p = text; *p;)
    {
      gsize n = printable_length (p, keep_lines);

      if (n == 0)
        return TRUE;
      p += n;
    }
  return FALSE;
}

static char *
escape (const char *text, gboolean keep_lines)
{
  GString *s;

  if (text == NULL)
    return NULL;
  if (!mp_text_has_control (text, keep_lines))
    return g_strdup (text);
  s = g_string_sized_new (strlen (text) + 16);
  for (const char *p = text; *p;)
    {
      gsize    n = printable_length (p, keep_lines);
      gunichar u;

      if (n > 0)
        {
          g_string_append_len (s, p, n);
          p += n;
          continue;
        }
      u = g_utf8_get_char_validated (p, -1);
      if ((u >= 0x80 && u < 0xa0) || is_bidi_or_break (u))
        {
          g_string_append_printf (s, "\\u%04x", u);
          p = g_utf8_next_char (p);
        }
      else
        g_string_append_printf (s, "\\x%02x", (guchar) *p++);
    }
  return g_string_free (s, FALSE);
}

char *
mp_escape_name (const char *name)
{
  return escape (name, FALSE);
}

char *
mp_escape_text (const char *text)
{
  return escape (text, TRUE);
}

char *
mp_csv_field (const char *text)
{
  GString *s;

  if (text[strcspn (text, ",\"\r\n")] == '\0')
    return g_strdup (text);
  s = g_string_sized_new (strlen (text) + 8);
  g_string_append_c (s, '"');
  for (const char *p = text; *p; p++)
    {
      if (*p == '"')
        g_string_append_c (s, '"');
      g_string_append_c (s, *p);
    }
  g_string_append_c (s, '"');
  return g_string_free (s, FALSE);
}

char *
mp_xml_valid_text (const char *text)
{
  GString *s = g_string_sized_new (strlen (text));

  for (const char *p = text; *p;)
    {
      gunichar u = g_utf8_get_char_validated (p, -1);

      if (u == (gunichar) -1 || u == (gunichar) -2)
        {
          g_string_append (s, "\xef\xbf\xbd");
          p++;
          continue;
        }
      if ((u < 0x20 && u != '\t' && u != '\n' && u != '\r') || u == 0xfffe || u == 0xffff)
        g_string_append (s, "\xef\xbf\xbd");
      else
        g_string_append_unichar (s, u);
      p = g_utf8_next_char (p);
    }
  return g_string_free (s, FALSE);
}
