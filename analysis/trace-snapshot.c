/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <string.h>

#include "graph-private.h"
#include "pickle.h"
#include "trace-private.h"

/* torch.cuda.memory._dump_snapshot(): a pickled dict whose "device_traces"
 * holds one list of entries per device (action, addr, size, stream,
 * time_us, frames) and whose "segments" lists the segments alive when the
 * snapshot was taken. */

#define MAX_FRAMES 32

static const struct
{
  const char *name;
  TraceAction action;
} actions[] = {
  { "alloc", TRACE_ALLOC },
  { "free_completed", TRACE_FREE },
  { "free_requested", TRACE_FREE_REQUESTED },
  { "segment_alloc", TRACE_SEGMENT_ALLOC },
  { "segment_map", TRACE_SEGMENT_ALLOC },
  { "segment_free", TRACE_SEGMENT_FREE },
  { "segment_unmap", TRACE_SEGMENT_FREE },
  { "oom", TRACE_OOM },
};

static gboolean
get_u64 (const MpPickleValue *dict, const char *key, guint64 *value)
{
  const MpPickleValue *v = mp_pickle_get (dict, key);

  if (v == NULL || v->type != MP_PICKLE_INT || v->i < 0)
    return FALSE;
  *value = v->i;
  return TRUE;
}

static const char *
found (const MpPickleValue *dict, const char *key)
{
  const MpPickleValue *v = mp_pickle_get (dict, key);

  if (v && v->type == MP_PICKLE_INT)
    return "a negative int";
  if (v && v->type == MP_PICKLE_BIGINT)
    return "an int beyond 64 bits";
  return v ? mp_pickle_type_name (v) : "nothing";
}

/* "name (file:line)" per frame, innermost first, as the snapshot lists them */
static char *
format_frames (const MpPickleValue *frames)
{
  GString *s;
  guint    n = MIN (mp_pickle_len (frames), MAX_FRAMES);

  if (n == 0)
    return NULL;
  s = g_string_new (NULL);
  for (guint i = 0; i < n; i++)
    {
      const MpPickleValue *f = mp_pickle_item (frames, i);
      const MpPickleValue *name = mp_pickle_get (f, "name");
      const MpPickleValue *file = mp_pickle_get (f, "filename");
      const MpPickleValue *line = mp_pickle_get (f, "line");

      g_string_append_printf (s, "%s%s (%s:%" G_GINT64_FORMAT ")", i ? "\n" : "",
                              name && name->type == MP_PICKLE_STRING ? name->str : "?",
                              file && file->type == MP_PICKLE_STRING ? file->str : "?",
                              line && line->type == MP_PICKLE_INT ? line->i : 0);
    }
  return g_string_free (s, FALSE);
}

static gboolean
parse_entry (const MpPickleValue *e, guint dev, guint index, const char *path, TraceDevice *d,
             GError **error)
{
  const MpPickleValue *action = mp_pickle_get (e, "action");
  TraceEvent           ev = { TRACE_OTHER, 0, 0, -1, NULL };

  if (e->type != MP_PICKLE_DICT)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                         "device_traces[%u][%u] is a %s, not a dict", dev, index,
                         mp_pickle_type_name (e));
      return FALSE;
    }
  if (action == NULL || action->type != MP_PICKLE_STRING)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                         "device_traces[%u][%u]: \"action\" must be a str, found %s", dev, index,
                         found (e, "action"));
      return FALSE;
    }
  for (guint i = 0; i < G_N_ELEMENTS (actions); i++)
    if (g_str_equal (action->str, actions[i].name))
      ev.action = actions[i].action;
  if (ev.action == TRACE_OTHER) /* "snapshot" markers and actions of newer versions */
    return TRUE;
  if (!get_u64 (e, "addr", &ev.addr) && ev.action != TRACE_OOM)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                         "device_traces[%u][%u] (%s): \"addr\" must be a non-negative int, "
                         "found %s",
                         dev, index, action->str, found (e, "addr"));
      return FALSE;
    }
  if (!get_u64 (e, "size", &ev.size))
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                         "device_traces[%u][%u] (%s): \"size\" must be a non-negative int, "
                         "found %s",
                         dev, index, action->str, found (e, "size"));
      return FALSE;
    }
  if (ev.action == TRACE_ALLOC)
    ev.frames = format_frames (mp_pickle_get (e, "frames"));
  g_array_append_val (d->events, ev);
  return TRUE;
}

static gboolean
parse_segments (const MpPickleValue *segments, const char *path, GPtrArray *devices,
                GError **error)
{
  for (guint i = 0; i < mp_pickle_len (segments); i++)
    {
      const MpPickleValue *s = mp_pickle_item (segments, i);
      MpTraceRange         r = { 0 };
      guint64              device;
      g_autofree char     *name = NULL;
      const char          *bad = NULL;

      if (!get_u64 (s, "device", &device))
        bad = "device";
      else if (!get_u64 (s, "address", &r.address))
        bad = "address";
      else if (!get_u64 (s, "total_size", &r.size))
        bad = "total_size";
      if (bad)
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                             "segments[%u]: \"%s\" must be a non-negative int, found %s", i, bad,
                             found (s, bad));
          return FALSE;
        }
      name = g_strdup_printf ("cuda:%" G_GUINT64_FORMAT, device);
      g_array_append_val (mp_trace_device_get (devices, name)->segments, r);
    }
  return TRUE;
}

GPtrArray *
mp_trace_parse_snapshot (const char *data, gsize length, const char *path, GError **error)
{
  g_autoptr (MpPickle)  pickle = mp_pickle_parse (data, length, path, error);
  g_autoptr (GPtrArray) devices = NULL;
  const MpPickleValue  *root, *traces, *segments;

  if (pickle == NULL)
    return NULL;
  root = mp_pickle_root (pickle);
  if (root->type != MP_PICKLE_DICT)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_FORMAT, path,
                         "the pickle holds a %s, not a memory snapshot (a dict with "
                         "\"device_traces\" and \"segments\")",
                         mp_pickle_type_name (root));
      return NULL;
    }
  traces = mp_pickle_get (root, "device_traces");
  segments = mp_pickle_get (root, "segments");
  if (traces == NULL || traces->type != MP_PICKLE_LIST)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_FORMAT, path,
                         "not a memory snapshot: \"device_traces\" must be a list, found %s",
                         found (root, "device_traces"));
      return NULL;
    }
  if (segments && segments->type != MP_PICKLE_LIST)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_FORMAT, path,
                         "not a memory snapshot: \"segments\" must be a list, found %s",
                         mp_pickle_type_name (segments));
      return NULL;
    }

  devices = g_ptr_array_new_with_free_func ((GDestroyNotify) mp_trace_device_free);
  for (guint dev = 0; dev < mp_pickle_len (traces); dev++)
    {
      const MpPickleValue *list = mp_pickle_item (traces, dev);
      g_autofree char     *name = g_strdup_printf ("cuda:%u", dev);
      TraceDevice         *d = mp_trace_device_get (devices, name);

      if (list->type != MP_PICKLE_LIST)
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                             "device_traces[%u] must be a list of entries, found %s", dev,
                             mp_pickle_type_name (list));
          return NULL;
        }
      for (guint i = 0; i < mp_pickle_len (list); i++)
        if (!parse_entry (mp_pickle_item (list, i), dev, i, path, d, error))
          return NULL;
    }
  if (segments && !parse_segments (segments, path, devices, error))
    return NULL;
  return g_steal_pointer (&devices);
}
