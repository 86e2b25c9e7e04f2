/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-exec"

#include <json-c/json.h>

#include "json-write.h"
#include "exec-private.h"

#define EXEC_FORMAT "memplan.exec/1"

static json_object *
result_to_json (const MpGraph *graph, const MpExecResult *r)
{
  json_object *obj = json_object_new_object ();
  json_object *base = json_object_new_array ();

  json_object_object_add (obj, "planner", json_object_new_string (r->planner));
  json_object_object_add (obj, "backend", json_object_new_string (r->backend));
  json_object_object_add (obj, "device", json_object_new_string (r->device ? r->device : ""));
  if (r->note)
    json_object_object_add (obj, "note", json_object_new_string (r->note));
  json_object_object_add (obj, "concurrent", json_object_new_boolean (r->concurrent));
  json_object_object_add (obj, "group_order", json_object_new_boolean (r->group_order));
  json_object_object_add (obj, "streams", json_object_new_int (r->n_streams));
  json_object_object_add (obj, "groups", json_object_new_int (r->n_groups));
  json_object_object_add (obj, "iterations", json_object_new_int (r->iterations));
  json_object_object_add (obj, "timed_iterations", json_object_new_int (r->timed_iterations));
  json_object_object_add (obj, "clean", json_object_new_boolean (r->n_corrupted == 0));
  json_object_object_add (obj, "corrupted", json_object_new_int (r->n_corrupted));
  if (r->first_corruption)
    {
      json_object_object_add (obj, "first_corruption",
                              json_object_new_string (r->first_corruption));
      if (r->first_tensor >= 0)
        json_object_object_add (obj, "first_tensor",
                                json_object_new_string (graph->tensors[r->first_tensor].name));
      if (r->first_op >= 0)
        json_object_object_add (obj, "found_by",
                                json_object_new_string (graph->ops[r->first_op].name));
      if (r->first_overwriter >= 0)
        json_object_object_add (obj, "overwritten_by",
                                json_object_new_string (graph->tensors[r->first_overwriter].name));
    }
  json_object_object_add (obj, "bytes_moved", json_object_new_int64 (r->bytes_moved));
  json_object_object_add (obj, "seconds", json_object_new_double (r->seconds));
  json_object_object_add (obj, "bandwidth", json_object_new_double (
                            r->seconds > 0 ? r->bytes_moved / r->seconds : 0));
  json_object_object_add (obj, "peak_bandwidth", json_object_new_int64 (r->peak_bandwidth));
  json_object_object_add (obj, "launches_per_iteration", json_object_new_int (r->launches));
  json_object_object_add (obj, "planned", json_object_new_int64 (r->planned));
  json_object_object_add (obj, "arena", json_object_new_int64 (r->arena));
  json_object_object_add (obj, "workspace_slot", json_object_new_int64 (r->workspace));
  json_object_object_add (obj, "workspace_slots", json_object_new_int (r->n_ws_slots));
  json_object_object_add (obj, "measured", json_object_new_int64 (r->measured));
  json_object_object_add (obj, "process_peak", json_object_new_int64 (r->process_peak));
  for (guint i = 0; r->baselines && i < r->baselines->len; i++)
    {
      const MpExecFigure *f = &g_array_index (r->baselines, MpExecFigure, i);
      json_object        *b = json_object_new_object ();

      json_object_object_add (b, "allocator", json_object_new_string (f->label));
      json_object_object_add (b, "bytes", json_object_new_int64 (f->bytes));
      if (f->error)
        json_object_object_add (b, "error", json_object_new_string (f->error));
      json_object_array_add (base, b);
    }
  json_object_object_add (obj, "baselines", base);
  return obj;
}

char *
mp_exec_result_to_json (const MpGraph *graph, MpExecResult **results, guint n)
{
  json_object *root = json_object_new_object ();
  json_object *list = json_object_new_array ();

  json_object_object_add (root, "format", json_object_new_string (EXEC_FORMAT));
  json_object_object_add (root, "graph", json_object_new_string (graph->name));
  json_object_object_add (root, "memplan_version", json_object_new_string (MEMPLAN_VERSION));
  for (guint i = 0; i < n; i++)
    json_object_array_add (list, result_to_json (graph, results[i]));
  json_object_object_add (root, "runs", list);
  return mp_json_to_text_free (root);
}
