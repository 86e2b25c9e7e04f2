/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-internal.h"

#include "graph.h"
#include "json-reader.h"

G_BEGIN_DECLS

/* graph JSON's top-level "memories": [{"name": …, "capacity": …}], fastest
 * first, into graph->memories. */
gboolean mp_graph_json_parse_memories (MpJsonReader *r, MpGraph *graph, GError **error);
/* A tensor's "memory": the declared memory it must live in, by name. */
gboolean mp_graph_json_tensor_memory  (MpGraph *graph, MpTensor *t, const char *name,
                                       GError **error);

G_END_DECLS
