/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>
#include <json-c/json.h>

G_BEGIN_DECLS

/* Parses a whole document; a syntax error, a truncated file or a number
 * JSON does not have (NaN, Infinity, 1e999) names the line and column. The caller owns the result (json_object_put). */
json_object *mp_json_parse   (const char *data, gsize length, const char *path, GError **error);
/* A JSON integer >= 0 that fits in 64 bits; FALSE for anything else. */
gboolean     mp_json_get_u64 (json_object *obj, guint64 *value);
/* A double written with nine significant digits ("1e-06", not
 * "9.9999999999999995e-07"), with a '.' whatever the locale; JSON null
 * (NULL) for what JSON cannot hold: NaN, infinities, G_MAXDOUBLE. */
json_object *mp_json_new_short_double (gdouble value);
/* The document as indented text with a final newline; releases root. */
char        *mp_json_to_text_free     (json_object *root);

G_END_DECLS
