/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph-private.h"
#include "plan-io.h"
#include "trace-private.h"

/* ---- devices ------------------------------------------------------------ */

static void
event_clear (gpointer data)
{
  g_free (((TraceEvent *) data)->frames);
}

TraceDevice *
mp_trace_device_new (const char *name)
{
  TraceDevice *d = g_new0 (TraceDevice, 1);

  d->name = g_strdup (name);
  d->events = g_array_new (FALSE, FALSE, sizeof (TraceEvent));
  g_array_set_clear_func (d->events, event_clear);
  d->segments = g_array_new (FALSE, FALSE, sizeof (MpTraceRange));
  return d;
}

void
mp_trace_device_free (TraceDevice *device)
{
  if (device == NULL)
    return;
  g_free (device->name);
  g_array_unref (device->events);
  g_array_unref (device->segments);
  g_free (device);
}

TraceDevice *
mp_trace_device_get (GPtrArray *devices, const char *name)
{
  for (guint i = 0; i < devices->len; i++)
    if (g_str_equal (((TraceDevice *) devices->pdata[i])->name, name))
      return devices->pdata[i];
  g_ptr_array_add (devices, mp_trace_device_new (name));
  return devices->pdata[devices->len - 1];
}

/* ---- sniffing ----------------------------------------------------------- */

/* the profiler writes deviceProperties and other keys before traceEvents */
#define SNIFF_BYTES (256 * 1024)

MpTraceFormat
mp_trace_sniff (const char *data, gsize length)
{
  gsize i = 0;

  length = MIN (length, SNIFF_BYTES);
  if (length >= 2 && (guint8) data[0] == 0x80 && data[1] >= 2 && data[1] <= 5)
    return MP_TRACE_FORMAT_SNAPSHOT;
  while (i < length && g_ascii_isspace (data[i]))
    i++;
  if (i < length && data[i] == '[')
    return MP_TRACE_FORMAT_CHROME; /* the Trace Event Format's bare array */
  if (i < length && data[i] == '{' && g_strstr_len (data, length, "\"traceEvents\"") != NULL &&
      g_strstr_len (data, length, "\"memplan.graph/1\"") == NULL)
    return MP_TRACE_FORMAT_CHROME;
  return MP_TRACE_FORMAT_NONE;
}

MpTraceFormat
mp_trace_sniff_file (const char *path)
{
  g_autofree char *head = NULL;
  gsize            n;

  if (!mp_read_file_head (path, SNIFF_BYTES, &head, &n))
    return MP_TRACE_FORMAT_NONE;
  return mp_trace_sniff (head, n);
}

/* ---- building the records ----------------------------------------------- */

void
mp_trace_free (MpTrace *trace)
{
  if (trace == NULL)
    return;
  for (guint i = 0; trace->frames && i < trace->n_allocations; i++)
    g_free (trace->frames[i]);
  g_free (trace->frames);
  mp_graph_free (trace->graph);
  g_free (trace->device);
  g_strfreev (trace->devices);
  g_free (trace->addresses);
  g_free (trace->observed);
  g_free (trace->ranges);
  g_free (trace);
}

static gint
compare_ranges (gconstpointer a, gconstpointer b)
{
  const MpTraceRange *x = a, *y = b;

  return x->address < y->address ? -1 : x->address > y->address;
}

/* Merges overlapping and touching ranges, then lays them end to end. */
static void
compact_ranges (MpTrace *trace, GArray *ranges)
{
  guint   n = 0;
  guint64 offset = 0;

  g_array_sort (ranges, compare_ranges);
  for (guint i = 0; i < ranges->len; i++)
    {
      MpTraceRange r = g_array_index (ranges, MpTraceRange, i);
      MpTraceRange *last = n ? &g_array_index (ranges, MpTraceRange, n - 1) : NULL;

      if (last && r.address <= last->address + last->size)
        last->size = MAX (last->size, r.address + r.size - last->address);
      else
        g_array_index (ranges, MpTraceRange, n++) = r;
    }
  g_array_set_size (ranges, n);
  for (guint i = 0; i < n; i++)
    {
      g_array_index (ranges, MpTraceRange, i).offset = offset;
      offset += g_array_index (ranges, MpTraceRange, i).size;
    }
  trace->observed_arena = offset;
  trace->n_ranges = n;
  trace->ranges = (MpTraceRange *) g_array_free (ranges, FALSE);
}

static guint64
observed_offset (const MpTrace *trace, guint64 address)
{
  guint lo = 0, hi = trace->n_ranges;

  /* the last range starting at or below the address */
  while (hi - lo > 1)
    {
      guint mid = (lo + hi) / 2;

      if (trace->ranges[mid].address <= address)
        lo = mid;
      else
        hi = mid;
    }
  return trace->ranges[lo].offset + (address - trace->ranges[lo].address);
}

/* Peak of the reserved bytes: the allocator's own figure when the trace has
 * it, else live segments (those the trace never saw allocated were there
 * from the start). */
static guint64
reserved_peak (const TraceDevice *d)
{
  g_autoptr (GHashTable) allocated = g_hash_table_new (g_int64_hash, g_int64_equal);
  gint64  peak = 0, live = 0;
  gboolean reported = FALSE;

  for (guint i = 0; i < d->events->len; i++)
    {
      const TraceEvent *e = &g_array_index (d->events, TraceEvent, i);

      if (e->reserved >= 0)
        {
          reported = TRUE;
          peak = MAX (peak, e->reserved);
        }
    }
  if (reported)
    return peak;

  for (guint i = 0; i < d->events->len; i++)
    {
      const TraceEvent *e = &g_array_index (d->events, TraceEvent, i);

      if (e->action == TRACE_SEGMENT_ALLOC)
        g_hash_table_add (allocated, (gpointer) &e->addr);
      else if (e->action == TRACE_SEGMENT_FREE && !g_hash_table_contains (allocated, &e->addr))
        live += e->size;
    }
  for (guint i = 0; i < d->segments->len; i++)
    {
      const MpTraceRange *s = &g_array_index (d->segments, MpTraceRange, i);

      if (!g_hash_table_contains (allocated, &s->address))
        live += s->size;
    }
  peak = live;
  for (guint i = 0; i < d->events->len; i++)
    {
      const TraceEvent *e = &g_array_index (d->events, TraceEvent, i);

      if (e->action == TRACE_SEGMENT_ALLOC)
        live += e->size;
      else if (e->action == TRACE_SEGMENT_FREE)
        live -= e->size;
      peak = MAX (peak, live);
    }
  return peak;
}

static MpTrace *
build (const char *path, MpTraceFormat format, GPtrArray *devices, const char *device,
       GError **error)
{
  g_autoptr (MpTrace) trace = g_new0 (MpTrace, 1);
  g_autoptr (GHashTable) open = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autoptr (GArray) addresses = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr (GPtrArray) frames = g_ptr_array_new_with_free_func (g_free);
  GArray          *ranges = g_array_new (FALSE, FALSE, sizeof (MpTraceRange));
  g_autofree char *base = path ? g_path_get_basename (path) : g_strdup ("trace");
  g_autofree char *name = NULL;
  TraceDevice     *d = NULL;
  GStrvBuilder    *names = g_strv_builder_new ();
  MpGraph         *graph;
  guint            n;

  for (guint i = 0; i < devices->len; i++)
    {
      TraceDevice *t = devices->pdata[i];

      if (t->events->len == 0)
        continue;
      g_strv_builder_add (names, t->name);
      if (device ? g_str_equal (device, t->name)
                 : d == NULL || (g_str_has_prefix (t->name, "cuda") &&
                                 !g_str_has_prefix (d->name, "cuda")))
        d = t;
    }
  trace->devices = g_strv_builder_end (names);
  g_strv_builder_unref (names);
  if (trace->devices[0] == NULL)
    {
      g_array_unref (ranges);
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path, "%s",
                         format == MP_TRACE_FORMAT_SNAPSHOT
                           ? "the snapshot has no trace entries: record it after "
                             "torch.cuda.memory._record_memory_history()"
                           : "the trace has no [memory] events: record it with "
                             "profile_memory=True");
      return NULL;
    }
  if (d == NULL)
    {
      g_autofree char *known = g_strjoinv (", ", trace->devices);

      g_array_unref (ranges);
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                         "no memory events for device '%s' (devices in the file: %s)", device,
                         known);
      return NULL;
    }

  trace->format = format;
  trace->device = g_strdup (d->name);
  if (g_str_has_suffix (base, ".gz"))
    base[strlen (base) - 3] = '\0';
  if (strchr (base, '.'))
    *strrchr (base, '.') = '\0';
  name = g_strdup_printf ("%s-%s", base, d->name);
  graph = trace->graph = mp_graph_new (name);
  graph->path = g_strdup (path);
  graph->alignment = 1;
  graph->has_ops = FALSE;
  n = trace->n_events = d->events->len;

  for (guint i = 0; i < n; i++)
    {
      TraceEvent *e = &g_array_index (d->events, TraceEvent, i);
      gpointer    value;
      gboolean    is_open = g_hash_table_lookup_extended (open, &e->addr, NULL, &value);
      guint       t;

      switch (e->action)
        {
        case TRACE_ALLOC:
          if (e->size == 0)
            break;
          if (e->size > MP_MAX_TENSOR_SIZE)
            {
              g_array_unref (ranges);
              mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                                 "%s event %u: an allocation of %" G_GUINT64_FORMAT
                                 " bytes is over the limit of 2^48 bytes (256 TiB)",
                                 d->name, i, e->size);
              return NULL;
            }
          if (is_open)
            /* reused before its free was seen: it ended just before */
            graph->tensors[GPOINTER_TO_UINT (value)].last = i - 1;
          {
            g_autofree char *tname = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x@%u", e->addr, i);

            t = mp_graph_add_tensor (graph, tname, NULL);
          }
          graph->tensors[t].size = e->size;
          graph->tensors[t].first = i;
          graph->tensors[t].last = -1;
          g_array_append_val (addresses, e->addr);
          g_ptr_array_add (frames, g_steal_pointer (&e->frames));
          g_hash_table_insert (open, &e->addr, GUINT_TO_POINTER (t));
          {
            MpTraceRange r = { e->addr, graph->tensors[t].size, 0 };
            g_array_append_val (ranges, r);
          }
          break;
        case TRACE_FREE:
          if (!is_open)
            {
              trace->n_unmatched_frees++;
              break;
            }
          /* an event is one step: the block was live up to the one before */
          graph->tensors[GPOINTER_TO_UINT (value)].last = i - 1;
          g_hash_table_remove (open, &e->addr);
          break;
        case TRACE_SEGMENT_ALLOC:
        case TRACE_SEGMENT_FREE:
          {
            MpTraceRange r = { e->addr, e->size, 0 };

            if (e->size > 0)
              g_array_append_val (ranges, r);
            break;
          }
        case TRACE_OOM:
          trace->n_ooms++;
          break;
        default:
          break;
        }
    }
  for (guint t = 0; t < graph->n_tensors; t++)
    if (graph->tensors[t].last < 0)
      {
        graph->tensors[t].last = n - 1;
        trace->n_never_freed++;
      }
  if (graph->n_tensors == 0)
    {
      g_array_unref (ranges);
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                         "device '%s' has %u memory events but no allocation", d->name, n);
      return NULL;
    }
  for (guint i = 0; i < d->segments->len; i++)
    g_array_append_val (ranges, g_array_index (d->segments, MpTraceRange, i));

  trace->n_allocations = graph->n_tensors;
  trace->reserved_peak = reserved_peak (d);
  trace->addresses = (guint64 *) g_array_free (g_steal_pointer (&addresses), FALSE);
  trace->frames = (char **) g_ptr_array_free (g_steal_pointer (&frames), FALSE);
  compact_ranges (trace, ranges);
  trace->observed = g_new (guint64, graph->n_tensors);
  for (guint t = 0; t < graph->n_tensors; t++)
    trace->observed[t] = observed_offset (trace, trace->addresses[t]);
  if (!mp_graph_check (graph, error))
    return NULL;
  return g_steal_pointer (&trace);
}

MpTrace *
mp_trace_parse (const char *data, gsize length, const char *path, const char *device,
                GError **error)
{
  MpTraceFormat          format = mp_trace_sniff (data, length);
  g_autoptr (GPtrArray)  devices = NULL;

  if (format == MP_TRACE_FORMAT_SNAPSHOT)
    devices = mp_trace_parse_snapshot (data, length, path, error);
  else if (format == MP_TRACE_FORMAT_CHROME)
    devices = mp_trace_parse_chrome (data, length, path, error);
  else
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_FORMAT, path,
                         "neither a PyTorch profiler trace (JSON with \"traceEvents\") nor a "
                         "memory snapshot (a pickle)");
      return NULL;
    }
  if (devices == NULL)
    return NULL;
  return build (path, format, devices, device, error);
}

MpTrace *
mp_trace_load (const char *path, const char *device, GError **error)
{
  g_autofree char *data = NULL;
  gsize            length;

  if (!mp_read_file (path, &data, &length, error))
    return NULL;
  return mp_trace_parse (data, length, path, device, error);
}

MpGraph *
mp_trace_load_graph (const char *path, GError **error)
{
  g_autoptr (MpTrace) trace = mp_trace_load (path, NULL, error);

  if (trace == NULL)
    return NULL;
  return g_steal_pointer (&trace->graph);
}

MpPlan *
mp_trace_observed_plan (const MpTrace *trace, const MpLifetimes *lifetimes)
{
  MpPlan          *plan = mp_plan_new ("observed", lifetimes);
  g_autofree char *reserved = mp_format_bytes (trace->reserved_peak);
  g_autofree char *span = mp_format_bytes (trace->observed_arena);
  GString         *note = g_string_new (NULL);

  for (guint r = 0; r < plan->n_records; r++)
    plan->offsets[r] = trace->observed[plan->records[r].tensor];
  mp_plan_finish (plan);
  if (trace->reserved_peak)
    g_string_append_printf (note, "the %s allocator reserved %s at its peak; ",
                            trace->device, reserved);
  g_string_append_printf (note, "its blocks touched %s in %u address range%s", span,
                          trace->n_ranges, trace->n_ranges == 1 ? "" : "s");
  if (trace->n_unmatched_frees)
    g_string_append_printf (note, "; %u free%s without an allocation skipped",
                            trace->n_unmatched_frees, trace->n_unmatched_frees == 1 ? "" : "s");
  if (trace->n_never_freed)
    g_string_append_printf (note, "; %u allocation%s never freed (live to the end)",
                            trace->n_never_freed, trace->n_never_freed == 1 ? "" : "s");
  if (trace->n_ooms)
    g_string_append_printf (note, "; %u out-of-memory event%s", trace->n_ooms,
                            trace->n_ooms == 1 ? "" : "s");
  plan->note = g_string_free (note, FALSE);
  return plan;
}
