/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include "buffers.h"
#include "graph-private.h"

/* The CSV reader's bound: times stay exact in a double. */
#define MAX_TIME (G_GINT64_CONSTANT (1) << 53)

MpGraph *
mp_graph_new_buffers (const char    *name,
                      const guint64 *sizes,
                      const gint64  *starts,
                      const gint64  *ends,
                      guint          n_buffers,
                      GError       **error)
{
  g_autoptr (MpGraph) graph = NULL;
  char id[24];

  g_return_val_if_fail (n_buffers == 0 || (sizes && starts && ends), NULL);

  if (n_buffers > MP_MAX_ITEMS)
    {
      g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_INVALID,
                   "%u buffers: at most %d", n_buffers, (gint) MP_MAX_ITEMS);
      return NULL;
    }
  graph = mp_graph_new (name ? name : "buffers");
  graph->alignment = 1;
  graph->has_ops = FALSE;
  for (guint i = 0; i < n_buffers; i++)
    {
      gint t;

      if (starts[i] < 0 || ends[i] > MAX_TIME)
        {
          g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_INVALID,
                       "buffer %u: start and end must be from 0 to 2^53, got %" G_GINT64_FORMAT
                       " and %" G_GINT64_FORMAT, i, starts[i], ends[i]);
          return NULL;
        }
      if (ends[i] <= starts[i])
        {
          g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_INVALID,
                       "buffer %u: end %" G_GINT64_FORMAT " must be greater than start %"
                       G_GINT64_FORMAT " (end is exclusive)", i, ends[i], starts[i]);
          return NULL;
        }
      if (sizes[i] == 0 || sizes[i] > MP_MAX_TENSOR_SIZE)
        {
          g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_INVALID,
                       "buffer %u: size must be from 1 to 2^48 bytes, got %" G_GUINT64_FORMAT,
                       i, sizes[i]);
          return NULL;
        }
      g_snprintf (id, sizeof id, "%u", i);
      t = mp_graph_add_tensor (graph, id, error);
      g_assert (t == (gint) i);
      graph->tensors[t].size = sizes[i];
      graph->tensors[t].first = starts[i];
      graph->tensors[t].last = ends[i] - 1;
    }
  if (!mp_graph_check (graph, error))
    return NULL;
  return g_steal_pointer (&graph);
}
