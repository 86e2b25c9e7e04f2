/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-version.h"

#include <glib.h>
#include <json-c/json.h>

G_BEGIN_DECLS

/* How every JSON file memplan writes is formatted (the executor's report
 * too), so that files diff cleanly whatever wrote them. */

/* A double written with nine significant digits ("1e-06", not
 * "9.9999999999999995e-07"), with a '.' whatever the locale; JSON null
 * (NULL) for what JSON cannot hold: NaN, infinities, G_MAXDOUBLE. */
MP_AVAILABLE_IN_1_0
json_object *mp_json_new_short_double (gdouble value);
/* The document as indented text with a final newline; releases root. */
MP_AVAILABLE_IN_1_0
char        *mp_json_to_text_free     (json_object *root);

G_END_DECLS
