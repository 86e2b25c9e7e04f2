/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include "graph.h"
#include "json-util.h"

/* Any loaded graph as memplan.graph/1, so graphs from other formats (ONNX)
 * join suites and reports; mp_graph_load_json reads it back unchanged.
 * json-c escapes the names, which foreign formats do not restrict. */

static json_object *
name_list (const MpGraph *graph, const guint *ids, guint n)
{
  json_object *list = json_object_new_array_ext (n);

  for (guint i = 0; i < n; i++)
    json_object_array_add (list, json_object_new_string (graph->tensors[ids[i]].name));
  return list;
}

static json_object *
tensor_to_json (const MpGraph *graph, const MpTensor *t)
{
  json_object *obj = json_object_new_object ();

  json_object_object_add (obj, "name", json_object_new_string (t->name));
  if (t->dtype != MP_DTYPE_NONE)
    {
      json_object *shape = json_object_new_array_ext (t->n_dims);

      for (guint d = 0; d < t->n_dims; d++)
        json_object_array_add (shape, json_object_new_int64 (t->shape[d]));
      json_object_object_add (obj, "dtype", json_object_new_string (mp_dtype_to_string (t->dtype)));
      json_object_object_add (obj, "shape", shape);
    }
  else
    json_object_object_add (obj, "size", json_object_new_uint64 (t->size));
  if (t->kind != MP_TENSOR_ACTIVATION)
    json_object_object_add (obj, "kind", json_object_new_string (mp_tensor_kind_to_string (t->kind)));
  if (t->view_of >= 0)
    {
      json_object_object_add (obj, "view_of",
                              json_object_new_string (graph->tensors[t->view_of].name));
      json_object_object_add (obj, "offset", json_object_new_uint64 (t->view_offset));
    }
  if (t->alignment > 0)
    json_object_object_add (obj, "alignment", json_object_new_uint64 (t->alignment));
  if (t->has_fixed)
    json_object_object_add (obj, "fixed_offset", json_object_new_uint64 (t->fixed_offset));
  if (t->has_preferred)
    json_object_object_add (obj, "preferred_offset",
                            json_object_new_uint64 (t->preferred_offset));
  if (t->n_gaps)
    {
      json_object *gaps = json_object_new_array_ext (t->n_gaps);

      for (guint k = 0; k < t->n_gaps; k++)
        {
          const MpGap *g = &g_array_index (graph->gaps, MpGap, t->gap_first + k);
          json_object *gap = json_object_new_object ();

          json_object_object_add (gap, "from", json_object_new_int64 (g->first));
          json_object_object_add (gap, "to", json_object_new_int64 (g->last + 1));
          if (g->windowed)
            {
              json_object *window = json_object_new_array_ext (2);

              json_object_array_add (window, json_object_new_uint64 (g->lo));
              json_object_array_add (window, json_object_new_uint64 (g->hi));
              json_object_object_add (gap, "window", window);
            }
          json_object_array_add (gaps, gap);
        }
      json_object_object_add (obj, "gaps", gaps);
    }
  if (t->memory)
    json_object_object_add (obj, "memory",
                            json_object_new_string (graph->memories[t->memory - 1].name));
  return obj;
}

char *
mp_graph_to_json (const MpGraph *graph)
{
  json_object *root = json_object_new_object ();
  json_object *tensors = json_object_new_array_ext (graph->n_tensors);
  json_object *ops = json_object_new_array_ext (graph->n_ops);

  g_return_val_if_fail (graph->has_ops, NULL);

  json_object_object_add (root, "format", json_object_new_string ("memplan.graph/1"));
  json_object_object_add (root, "name", json_object_new_string (graph->name));
  json_object_object_add (root, "alignment", json_object_new_uint64 (graph->alignment));
  if (graph->n_memories)
    {
      json_object *memories = json_object_new_array_ext (graph->n_memories);

      for (guint k = 0; k < graph->n_memories; k++)
        {
          json_object *m = json_object_new_object ();

          json_object_object_add (m, "name", json_object_new_string (graph->memories[k].name));
          if (graph->memories[k].capacity)
            json_object_object_add (m, "capacity",
                                    json_object_new_uint64 (graph->memories[k].capacity));
          json_object_array_add (memories, m);
        }
      json_object_object_add (root, "memories", memories);
    }
  for (guint i = 0; i < graph->n_tensors; i++)
    json_object_array_add (tensors, tensor_to_json (graph, &graph->tensors[i]));
  json_object_object_add (root, "tensors", tensors);
  for (guint o = 0; o < graph->n_ops; o++)
    {
      const MpOp  *op = &graph->ops[o];
      json_object *obj = json_object_new_object ();

      json_object_object_add (obj, "name", json_object_new_string (op->name));
      json_object_object_add (obj, "inputs", name_list (graph, op->inputs, op->n_inputs));
      json_object_object_add (obj, "outputs", name_list (graph, op->outputs, op->n_outputs));
      if (op->stream)
        json_object_object_add (obj, "stream", json_object_new_int64 (op->stream));
      if (op->workspace)
        json_object_object_add (obj, "workspace", json_object_new_uint64 (op->workspace));
      json_object_array_add (ops, obj);
    }
  json_object_object_add (root, "ops", ops);
  return mp_json_to_text_free (root);
}
