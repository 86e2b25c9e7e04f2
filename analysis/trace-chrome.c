/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <json-c/json.h>

#include "graph-private.h"
#include "json-util.h"
#include "trace-private.h"

/* The PyTorch profiler's Chrome trace with profile_memory=True: instant
 * events named "[memory]" whose args carry Addr, Bytes (negative for a
 * free), Total Allocated, Total Reserved, Device Type (0 CPU, 1 CUDA) and
 * Device Id; ts in microseconds. Other events are skipped. */

typedef struct
{
  gdouble    ts;
  guint      index; /* position in the file: ties keep file order */
  char      *device;
  TraceEvent event;
} Stamped;

static gint
compare_stamped (gconstpointer a, gconstpointer b)
{
  const Stamped *x = a, *y = b;

  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

static gboolean
get_int (json_object *args, const char *key, gboolean required, gint64 *value)
{
  json_object *v;

  if (!json_object_object_get_ex (args, key, &v))
    return !required;
  if (!json_object_is_type (v, json_type_int))
    return FALSE;
  *value = json_object_get_int64 (v);
  return TRUE;
}

static gboolean
parse_event (json_object *ev, guint index, const char *path, GArray *out, GError **error)
{
  json_object *name, *args, *ts;
  Stamped      s = { 0 };
  gint64       addr = 0, bytes = 0, type = 1, id = 0, reserved = -1;
  const char  *bad = NULL;

  if (!json_object_is_type (ev, json_type_object) ||
      !json_object_object_get_ex (ev, "name", &name) ||
      !json_object_is_type (name, json_type_string) ||
      !g_str_equal (json_object_get_string (name), "[memory]"))
    return TRUE;
  if (!json_object_object_get_ex (ev, "args", &args) ||
      !json_object_is_type (args, json_type_object))
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                         "traceEvents[%u]: a [memory] event without \"args\"", index);
      return FALSE;
    }
  if (!json_object_object_get_ex (ev, "ts", &ts) ||
      !(json_object_is_type (ts, json_type_int) || json_object_is_type (ts, json_type_double)))
    bad = "ts";
  else if (!get_int (args, "Addr", TRUE, &addr) || addr < 0)
    bad = "Addr";
  else if (!get_int (args, "Bytes", TRUE, &bytes) || bytes == G_MININT64)
    bad = "Bytes";
  else if (!get_int (args, "Device Type", FALSE, &type))
    bad = "Device Type";
  else if (!get_int (args, "Device Id", FALSE, &id))
    bad = "Device Id";
  else if (!get_int (args, "Total Reserved", FALSE, &reserved))
    bad = "Total Reserved";
  if (bad)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                         "traceEvents[%u]: [memory] event: \"%s\" must be %s", index, bad,
                         g_str_equal (bad, "ts") ? "a number"
                         : g_str_equal (bad, "Addr") ? "a non-negative integer" : "an integer");
      return FALSE;
    }
  s.ts = json_object_get_double (ts);
  s.index = index;
  s.device = type == 0 ? g_strdup ("cpu")
             : type == 1 ? g_strdup_printf ("cuda:%" G_GINT64_FORMAT, id)
                         : g_strdup_printf ("device%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT,
                                            type, id);
  s.event.action = bytes >= 0 ? TRACE_ALLOC : TRACE_FREE;
  s.event.addr = addr;
  s.event.size = bytes >= 0 ? bytes : -bytes;
  s.event.reserved = reserved;
  g_array_append_val (out, s);
  return TRUE;
}

GPtrArray *
mp_trace_parse_chrome (const char *data, gsize length, const char *path, GError **error)
{
  json_object           *root, *events;
  g_autoptr (GArray)     stamped = g_array_new (FALSE, FALSE, sizeof (Stamped));
  g_autoptr (GPtrArray)  devices = g_ptr_array_new_with_free_func ((GDestroyNotify)
                                                                   mp_trace_device_free);
  gboolean               ok = TRUE;

  if (!(root = mp_json_parse (data, length, path, error)))
    return NULL;
  events = root;
  if (json_object_is_type (root, json_type_object) &&
      !json_object_object_get_ex (root, "traceEvents", &events))
    events = NULL;
  if (events == NULL || !json_object_is_type (events, json_type_array))
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_FORMAT, path,
                         "\"traceEvents\" must be a list of events");
      json_object_put (root);
      return NULL;
    }
  for (gsize i = 0; ok && i < json_object_array_length (events); i++)
    ok = parse_event (json_object_array_get_idx (events, i), i, path, stamped, error);
  json_object_put (root);
  g_array_sort (stamped, compare_stamped);
  for (guint i = 0; i < stamped->len; i++)
    {
      Stamped *s = &g_array_index (stamped, Stamped, i);

      if (ok)
        g_array_append_val (mp_trace_device_get (devices, s->device)->events, s->event);
      g_free (s->device);
    }
  if (!ok)
    return NULL;
  return g_steal_pointer (&devices);
}
