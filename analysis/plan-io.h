/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-version.h"

#include "file-util.h"
#include "plan.h"

G_BEGIN_DECLS

MP_AVAILABLE_IN_1_0
char    *mp_plan_to_json     (const MpGraph *graph, MpPlan **plans, guint n_plans);
/* The same, listing the planners that did not apply and why. */
MP_AVAILABLE_IN_1_0
char    *mp_plan_to_json_skipping (const MpGraph *graph, MpPlan **plans, guint n_plans,
                                   const char *const *skipped, const char *const *reasons,
                                   guint n_skipped);
/* The same written to path as it is produced (atomically; NULL or "-":
 * standard output), for plans too large to hold as text. */
MP_AVAILABLE_IN_1_0
gboolean mp_plan_write_json  (const char *path, const MpGraph *graph, MpPlan **plans,
                              guint n_plans, const char *const *skipped,
                              const char *const *reasons, guint n_skipped, GError **error);
MP_AVAILABLE_IN_1_0
char    *mp_plan_to_csv      (const MpGraph *graph, const MpPlan *plan);

/* Reads offsets for a graph's records from a plan file (our JSON, or a
 * MiniMalloc-style CSV with an offset column): one MpPlan over the graph's
 * lifetimes per plan in the file. */
MP_AVAILABLE_IN_1_0
GPtrArray *mp_plan_load      (const char        *path,
                              const MpGraph     *graph,
                              const MpLifetimes *lifetimes,
                              GError           **error);

/* The same from memory; path names the input in errors. */
MP_AVAILABLE_IN_1_0
GPtrArray *mp_plan_parse     (const char        *data,
                              gsize              length,
                              const char        *path,
                              const MpGraph     *graph,
                              const MpLifetimes *lifetimes,
                              GError           **error);
G_END_DECLS
