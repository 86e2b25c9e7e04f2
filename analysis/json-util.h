/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-internal.h"

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

G_END_DECLS
