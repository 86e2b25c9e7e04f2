/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-version.h"

#include "graph.h"

G_BEGIN_DECLS

/* Buffers a library caller holds as arrays (the Python module's plan() and
 * validate(), an ExecuTorch-style pass): buffer i is sizes[i] bytes, live
 * from step starts[i] up to but not including ends[i], as MiniMalloc's
 * lower and upper. The graph is what a CSV "id,lower,upper,size" with ids
 * 0, 1, 2, … reads as, so a plan of it matches the CLI's of that file. Bad
 * buffers fail with MP_ANALYSIS_ERROR_INVALID naming the buffer by its
 * index; name is the graph's name (NULL: "buffers"). */
MP_AVAILABLE_IN_1_0
MpGraph *mp_graph_new_buffers (const char    *name,
                               const guint64 *sizes,
                               const gint64  *starts,
                               const gint64  *ends,
                               guint          n_buffers,
                               GError       **error);

G_END_DECLS
