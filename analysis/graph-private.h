/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-internal.h"

#include "graph.h"
#include "file-util.h"
#include "mp-error.h"

G_BEGIN_DECLS

/* Appends a tensor (name copied); fails on a duplicate name. */
gint     mp_graph_add_tensor (MpGraph *graph, const char *name, GError **error);
gint     mp_graph_add_op     (MpGraph *graph, const char *name, GError **error);
/* Room for n tensor indices (an op's inputs or outputs), owned by the graph:
 * carved from large blocks, as a million ops would otherwise cost two
 * mallocs each. */
guint   *mp_graph_alloc_ids  (MpGraph *graph, guint n);

/* Largest element count we accept from a file: guards allocations against
 * hostile lengths. */
#define MP_MAX_ITEMS (G_MAXINT / 2)

G_END_DECLS

G_BEGIN_DECLS
/* No real tensor comes near this; keeps sums of a million sizes far from overflow. */
#define MP_MAX_TENSOR_SIZE (G_GUINT64_CONSTANT (1) << 48)

G_END_DECLS
