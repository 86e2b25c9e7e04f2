/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-internal.h"

#include <json-c/json.h>

#include "memories.h"

G_BEGIN_DECLS

/* A plan's "spill" member in memplan.plan/1 (plan-io-memories.c): written
 * after its "tensors", read back as one plan per memory. */
void     mp_spill_append_json (GString *buf, const MpGraph *graph, const MpLifetimes *lifetimes,
                               const MpSpill *spill);
gboolean mp_spill_load_json   (const char *path, const MpGraph *graph, const MpLifetimes *lt,
                               const char *planner, json_object *spill, GPtrArray *plans,
                               GError **error);

G_END_DECLS
