/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-internal.h"

#include "graph.h"
#include "json-reader.h"

G_BEGIN_DECLS

/* A tensor's "gaps" key in graph JSON: MiniMalloc's gaps in op indices,
 * [{"from": 3, "to": 5}, {"from": 7, "to": 8, "window": [0, 1024]}], "to"
 * exclusive. Read into gaps (MpGap, last inclusive); the first thing wrong
 * goes to *problem. FALSE only on a syntax error. */
gboolean mp_graph_json_read_gaps (MpJsonReader *r, GArray *gaps, char **problem);

/* Checks gaps against tensor t (ascending, not overlapping, windows inside
 * its size) and appends them to graph->gaps; the error names the key and
 * the tensor. The lifetime is checked once known (mp_lifetimes_compute). */
gboolean mp_graph_json_add_gaps  (MpGraph *graph, MpTensor *t, const GArray *gaps,
                                  const char *problem, GError **error);

G_END_DECLS
