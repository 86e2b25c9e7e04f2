/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-internal.h"

#include <string.h>
#include <glib.h>
#include <json-c/json.h>

#include "json-write.h"

G_BEGIN_DECLS

/* Parses a whole document; a syntax error, a truncated file or a number
 * JSON does not have (NaN, Infinity, 1e999) names the line and column. The
 * caller owns the result (json_object_put). */
json_object *mp_json_parse   (const char *data, gsize length, const char *path, GError **error);
/* A JSON integer >= 0 that fits in 64 bits; FALSE for anything else. */
gboolean     mp_json_get_u64 (json_object *obj, guint64 *value);

/* g_string_append_len without the call when it fits (GLib 2.74 has no
 * inline one): the readers' names and the writers' runs of text. */
static inline void
mp_string_append_run (GString *s, const char *text, gsize n)
{
  if (s->len + n < s->allocated_len)
    {
      memcpy (s->str + s->len, text, n);
      s->len += n;
      s->str[s->len] = '\0';
    }
  else
    g_string_append_len (s, text, n);
}

G_END_DECLS
