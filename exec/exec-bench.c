/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-exec"

#include <unistd.h>

#include "exec-private.h"

#define MAX_SCALED (G_GUINT64_CONSTANT (1) << 50)
#define CPU_CACHE_GUESS (G_GUINT64_CONSTANT (32) << 20)

static int
cmp_u64 (const void *a, const void *b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

  return (x > y) - (x < y);
}

guint64
mp_exec_cache_bytes (MpExecBackendKind kind, gint device, char **what)
{
  guint64 bytes = kind == MP_EXEC_BACKEND_CPU ? 0 : mp_exec_cuda_cache_bytes (device);
  long    l3;

  if (bytes)
    {
      *what = g_strdup ("the GPU's L2");
      return bytes;
    }
  l3 = sysconf (_SC_LEVEL3_CACHE_SIZE);
  *what = g_strdup (l3 > 0 ? "the CPU's L3" : "a CPU cache (32 MiB assumed)");
  return l3 > 0 ? (guint64) l3 : CPU_CACHE_GUESS;
}

static gboolean
host_side (const MpGraph *graph, guint t)
{
  MpTensorKind kind = graph->tensors[mp_graph_view_root (graph, t, NULL)].kind;

  return kind == MP_TENSOR_INPUT || kind == MP_TENSOR_PARAM;
}

guint64
mp_exec_bench_scale (MpGraph *graph, guint64 min_bytes, GError **error)
{
  g_autoptr (GArray) sizes = g_array_new (FALSE, FALSE, sizeof (guint64));
  guint64            median, factor = 1, largest = 0;

  g_return_val_if_fail (graph != NULL, 0);
  for (guint t = 0; t < graph->n_tensors; t++)
    {
      const MpTensor *x = &graph->tensors[t];

      if (host_side (graph, t))
        continue;
      largest = MAX (largest, x->size);
      if (x->view_of < 0 && x->size > 0)
        g_array_append_val (sizes, x->size);
    }
  if (sizes->len == 0)
    {
      g_set_error (error, MP_EXEC_ERROR, MP_EXEC_ERROR_INVALID,
                   "%s: no tensor in the arena to size for a benchmark",
                   graph->path ? graph->path : graph->name);
      return 0;
    }
  qsort (sizes->data, sizes->len, sizeof (guint64), cmp_u64);
  median = g_array_index (sizes, guint64, sizes->len / 2);
  /* past 2^50 the check below refuses, so the doubling cannot wrap */
  for (guint64 scaled = median; scaled < min_bytes && factor <= MAX_SCALED; scaled *= 2)
    factor *= 2;
  for (guint o = 0; o < graph->n_ops; o++)
    largest = MAX (largest, graph->ops[o].workspace);
  if (largest > MAX_SCALED / factor)
    {
      g_set_error (error, MP_EXEC_ERROR, MP_EXEC_ERROR_INVALID,
                   "%s: scaling the tensors ×%" G_GUINT64_FORMAT " for a benchmark would make "
                   "one larger than 2^50 bytes", graph->path ? graph->path : graph->name,
                   factor);
      return 0;
    }
  /* a view keeps its place inside its base, both scaled alike; inputs and
   * params (and their views) live outside the arena and keep their size, or
   * a model's weights would ask for the factor times their memory */
  for (guint t = 0; t < graph->n_tensors; t++)
    {
      if (host_side (graph, t))
        continue;
      graph->tensors[t].size *= factor;
      graph->tensors[t].view_offset *= factor;
      graph->tensors[t].root_offset *= factor;
    }
  for (guint o = 0; o < graph->n_ops; o++)
    graph->ops[o].workspace *= factor;
  return factor;
}
