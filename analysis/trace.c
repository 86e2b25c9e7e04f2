/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>
#include <sys/stat.h>

#include "file-util.h"
#include "graph-private.h"
#include "plan-io.h"
#include "planner.h"
#include "input.h"
#include "trace-private.h"

/* ---- devices and shared texts ------------------------------------------ */

static TraceDevice *
device_new (const char *name)
{
  TraceDevice *d = g_new0 (TraceDevice, 1);

  d->name = g_strdup (name);
  d->events = g_array_new (FALSE, FALSE, sizeof (TraceEvent));
  d->segments = g_array_new (FALSE, FALSE, sizeof (MpTraceRange));
  d->blocks = g_array_new (FALSE, FALSE, sizeof (MpTraceRange));
  return d;
}

static void
device_free (gpointer data)
{
  TraceDevice *d = data;

  g_free (d->name);
  g_array_unref (d->events);
  g_array_unref (d->segments);
  g_array_unref (d->blocks);
  g_free (d);
}

TraceFile *
mp_trace_file_new (const char *path, gsize length)
{
  TraceFile *f = g_new0 (TraceFile, 1);

  f->devices = g_ptr_array_new_with_free_func (device_free);
  f->by_name = g_hash_table_new (g_str_hash, g_str_equal);
  f->strings = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  f->text_limit = TRACE_TEXT_LIMIT (length);
  f->path = path;
  return f;
}

void
mp_trace_file_free (TraceFile *file)
{
  if (file == NULL)
    return;
  g_hash_table_unref (file->by_name);
  g_ptr_array_unref (file->devices);
  g_clear_pointer (&file->strings, g_hash_table_unref);
  g_free (file);
}

TraceDevice *
mp_trace_file_device (TraceFile *file, const char *name)
{
  TraceDevice *d = g_hash_table_lookup (file->by_name, name);

  if (d == NULL)
    {
      d = device_new (name);
      g_ptr_array_add (file->devices, d);
      g_hash_table_insert (file->by_name, d->name, d);
    }
  return d;
}

gboolean
mp_trace_file_intern (TraceFile *file, char *text, const char **out, GError **error)
{
  const char *known;

  *out = NULL;
  if (text == NULL)
    return TRUE;
  if ((known = g_hash_table_lookup (file->strings, text)) != NULL)
    {
      g_free (text);
      *out = known;
      return TRUE;
    }
  file->text_used += strlen (text) + 1;
  if (file->text_used > file->text_limit)
    {
      g_free (text);
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, file->path,
                         "the ops and stack frames of the allocations make more than %"
                         G_GUINT64_FORMAT " bytes of text, the most memplan reads from a file "
                         "of this size (64 MiB plus 64 bytes per byte of input)",
                         file->text_limit);
      return FALSE;
    }
  g_hash_table_add (file->strings, text);
  *out = text;
  return TRUE;
}

/* ---- building the records ----------------------------------------------- */

void
mp_trace_free (MpTrace *trace)
{
  if (trace == NULL)
    return;
  g_free (trace->sites);
  g_free (trace->origins);
  mp_graph_free (trace->graph);
  g_free (trace->device);
  g_strfreev (trace->devices);
  g_free (trace->addresses);
  g_free (trace->observed);
  g_free (trace->ranges);
  g_clear_pointer (&trace->strings, g_hash_table_unref);
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

/* The last range starting at or below the address. */
static guint
range_of (const MpTrace *trace, guint64 address)
{
  guint lo = 0, hi = trace->n_ranges;

  while (hi - lo > 1)
    {
      guint mid = (lo + hi) / 2;

      if (trace->ranges[mid].address <= address)
        lo = mid;
      else
        hi = mid;
    }
  return lo;
}

static guint64
observed_offset (const MpTrace *trace, guint64 address)
{
  const MpTraceRange *range = &trace->ranges[range_of (trace, address)];

  return range->offset + (address - range->address);
}

/* Without an arena (malloc'd blocks) the trace shows what was live, not
 * what malloc held: its addresses are virtual, and laying the ranges they
 * touched end to end (even reusing a range's space between its busy
 * periods) grows with the trace's length, as later steps' blocks land
 * beside earlier ones. So the observed row is the blocks packed as tightly
 * as their lifetimes allow (greedy by size, which reaches the peak of live
 * bytes on every trace we have seen): one step and ten read alike. A range
 * nothing was allocated in (a converted snapshot's segment) spans the run. */
static void
pack_blocks (MpTrace *trace)
{
  const MpGraph      *graph = trace->graph;
  guint               n_steps = MAX (trace->n_events, 1);
  g_autoptr (GArray)  spans = g_array_sized_new (FALSE, TRUE, sizeof (MpUsage), graph->n_tensors);
  g_autofree guint64 *offsets = NULL;
  g_autofree gboolean *used = g_new0 (gboolean, trace->n_ranges);

  for (guint t = 0; t < graph->n_tensors; t++)
    {
      MpUsage v = { 0 };

      v.tensor = t;
      v.first = graph->tensors[t].first;
      v.last = graph->tensors[t].last;
      v.size = v.bytes = graph->tensors[t].size;
      g_array_append_val (spans, v);
      used[range_of (trace, trace->addresses[t])] = TRUE;
    }
  for (guint r = 0; r < trace->n_ranges; r++)
    if (!used[r])
      {
        MpUsage v = { 0 };

        v.tensor = G_MAXUINT;
        v.last = n_steps - 1;
        v.size = v.bytes = trace->ranges[r].size;
        g_array_append_val (spans, v);
      }
  offsets = g_new0 (guint64, MAX (spans->len, 1));
  trace->observed_arena = mp_place_greedy_by_size ((MpUsage *) (void *) spans->data, spans->len,
                                                   n_steps, offsets);
  memcpy (trace->observed, offsets, graph->n_tensors * sizeof (guint64));
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

/* ---- who allocated each tensor, kept with the graph ---------------------- */

typedef struct
{
  GHashTable  *strings; /* a reference to the trace's texts */
  MpTraceSite *sites;
  guint64     *addresses;
  guint8      *origins;
  guint        n;
  gboolean     ops_known; /* a profiler trace: no op means outside any op */
} GraphOrigins;

static void
graph_origins_free (gpointer data)
{
  GraphOrigins *o = data;

  g_hash_table_unref (o->strings);
  g_free (o->sites);
  g_free (o->addresses);
  g_free (o->origins);
  g_free (o);
}

static void
attach_origins (const MpTrace *trace)
{
  GraphOrigins *o = g_new0 (GraphOrigins, 1);
  guint         n = trace->n_allocations;

  o->strings = g_hash_table_ref (trace->strings);
  o->sites = g_memdup2 (trace->sites, n * sizeof (MpTraceSite));
  o->addresses = g_memdup2 (trace->addresses, n * sizeof (guint64));
  o->origins = g_memdup2 (trace->origins, n);
  o->n = n;
  o->ops_known = trace->format == MP_TRACE_FORMAT_CHROME;
  trace->graph->origins = o;
  trace->graph->origins_free = graph_origins_free;
}

static void
append_lines (GString *s, const char *text, guint *budget)
{
  for (const char *p = text; p && *p && *budget > 0; (*budget)--)
    {
      gsize n = strcspn (p, "\n");

      g_string_append_printf (s, "\n%.*s", (int) n, p);
      p += n + (p[n] == '\n');
    }
}

char *
mp_trace_describe_origin (const MpGraph *graph, guint tensor, guint max_lines)
{
  const GraphOrigins *o;
  const MpTraceSite  *site;
  GString            *s;
  guint               budget = max_lines;

  g_return_val_if_fail (graph != NULL, NULL);
  if (graph->origins_free != graph_origins_free || tensor >= ((GraphOrigins *) graph->origins)->n)
    return NULL;
  o = graph->origins;
  site = &o->sites[tensor];
  s = g_string_new (o->origins[tensor] == MP_TRACE_BLOCK_PRE_EXISTING
                      ? "allocated before the trace began"
                      : site->op       ? site->op
                      : o->ops_known   ? "allocated outside any op"
                                       : "allocated");
  if (site->module)
    g_string_append_printf (s, " in %s", site->module);
  g_string_append_printf (s, " at 0x%" G_GINT64_MODIFIER "x", o->addresses[tensor]);
  /* the op stack above the innermost op, then the Python frames */
  if (site->ops && strchr (site->ops, '\n'))
    append_lines (s, strchr (site->ops, '\n') + 1, &budget);
  append_lines (s, site->frames, &budget);
  return g_string_free (s, FALSE);
}

/* The device to import: the one asked for, else the first CUDA device
 * with events, else the first with events. */
static TraceDevice *
pick_device (MpTrace *trace, TraceFile *file, MpTraceFormat format, const char *device,
             GError **error)
{
  GStrvBuilder *names = g_strv_builder_new ();
  TraceDevice  *d = NULL;

  for (guint i = 0; i < file->devices->len; i++)
    {
      TraceDevice *t = file->devices->pdata[i];

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
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, file->path, "%s",
                         format == MP_TRACE_FORMAT_SNAPSHOT
                           ? "the snapshot has no trace entries: record it after "
                             "torch.cuda.memory._record_memory_history()"
                           : "the trace has no [memory] events: record it with "
                             "torch.profiler.profile(profile_memory=True); a trace recorded "
                             "with profile_all_threads=True has none (PyTorch writes no memory "
                             "events then)");
      return NULL;
    }
  if (d == NULL)
    {
      g_autofree char *known = g_strjoinv (", ", trace->devices);

      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, file->path,
                         "no memory events for device '%s' (devices in the file: %s)", device,
                         known);
    }
  return d;
}

/* The function of a frame line "forward (model.py:42)": "forward". */
static char *
frame_function (const char *frames)
{
  const char *end = frames + strcspn (frames, " \n");

  return g_strndup (frames, end - frames);
}

/* A readable, unique name: the op (or, in a snapshot, the innermost
 * frame's function) and its allocation count, "aten::convolution#17"; the
 * address when the file says nothing about who allocated. */
static gint
add_tensor (MpGraph *graph, GHashTable *counts, const TraceEvent *e, guint index,
            MpTraceOrigin origin)
{
  g_autofree char *base = NULL, *name = NULL;
  gint             t = -1;

  if (origin == MP_TRACE_BLOCK_PRE_EXISTING)
    base = g_strdup ("pre-existing");
  else if (e->site.op)
    base = g_strdup (e->site.op);
  else if (e->site.frames)
    base = frame_function (e->site.frames);
  if (base)
    {
      guint n = GPOINTER_TO_UINT (g_hash_table_lookup (counts, base)) + 1;

      name = g_strdup_printf ("%s#%u", base, n);
      g_hash_table_insert (counts, g_strdup (base), GUINT_TO_POINTER (n));
      t = mp_graph_add_tensor (graph, name, NULL);
    }
  if (t < 0)
    {
      g_autofree char *at = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x@%u", e->addr, index);

      t = mp_graph_add_tensor (graph, at, NULL);
    }
  return t;
}

typedef struct
{
  MpGraph    *graph;
  GHashTable *counts;  /* name base -> allocations so far */
  GArray     *addresses;
  GArray     *sites;
  GByteArray *origins;
  GArray     *ranges;
} Records;

static gint
add_record (Records *rec, const TraceEvent *e, guint index, MpTraceOrigin origin, gint64 first,
            gint64 last)
{
  gint         t = add_tensor (rec->graph, rec->counts, e, index, origin);
  guint8       o = origin;
  MpTraceRange r = { e->addr, e->size, 0 };

  if (t < 0)
    return -1;
  rec->graph->tensors[t].size = e->size;
  rec->graph->tensors[t].first = first;
  rec->graph->tensors[t].last = last;
  g_array_append_val (rec->addresses, e->addr);
  g_array_append_val (rec->sites, e->site);
  g_byte_array_append (rec->origins, &o, 1);
  g_array_append_val (rec->ranges, r);
  return t;
}

static void
records_clear (Records *rec)
{
  g_clear_pointer (&rec->counts, g_hash_table_unref);
  g_clear_pointer (&rec->addresses, g_array_unref);
  g_clear_pointer (&rec->sites, g_array_unref);
  g_clear_pointer (&rec->origins, g_byte_array_unref);
  g_clear_pointer (&rec->ranges, g_array_unref);
}

/* Peak of the bytes live at one step, the figure a CPU trace (no arena)
 * is compared against. */
static guint64
live_peak (const MpGraph *graph, guint n_steps, gint64 *peak_step)
{
  g_autofree gint64 *delta = g_new0 (gint64, n_steps + 1);
  gint64             live = 0, peak = 0;

  for (guint t = 0; t < graph->n_tensors; t++)
    {
      delta[graph->tensors[t].first] += graph->tensors[t].size;
      delta[graph->tensors[t].last + 1] -= graph->tensors[t].size;
    }
  for (guint i = 0; i <= n_steps; i++)
    {
      live += delta[i];
      if (live > peak)
        {
          peak = live;
          *peak_step = i;
        }
    }
  return peak;
}

static gboolean
build_records (MpTrace *trace, const TraceDevice *d, const MpTraceOptions *options, Records *rec,
               GError **error)
{
  g_autoptr (GHashTable) open = g_hash_table_new (g_int64_hash, g_int64_equal);
  MpGraph *graph = rec->graph;
  guint    n = d->events->len;

  for (guint i = 0; i < n; i++)
    {
      const TraceEvent *e = &g_array_index (d->events, TraceEvent, i);
      gpointer          value;
      gboolean          is_open = g_hash_table_lookup_extended (open, &e->addr, NULL, &value);
      gint              t;

      switch (e->action)
        {
        case TRACE_ALLOC:
          if (e->size == 0)
            break;
          if (e->size > MP_MAX_TENSOR_SIZE)
            {
              mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, graph->path,
                                 "%s event %u: an allocation of %" G_GUINT64_FORMAT
                                 " bytes is over the limit of 2^48 bytes (256 TiB)",
                                 d->name, i, e->size);
              return FALSE;
            }
          if (is_open)
            /* reused before its free was seen: it ended just before */
            graph->tensors[GPOINTER_TO_UINT (value)].last = i - 1;
          if ((t = add_record (rec, e, i, MP_TRACE_BLOCK_TRACED, i, -1)) < 0)
            break;
          g_hash_table_insert (open, (gpointer) &e->addr, GUINT_TO_POINTER (t));
          break;
        case TRACE_FREE:
          if (is_open)
            {
              /* an event is one step: the block was live up to the one before */
              graph->tensors[GPOINTER_TO_UINT (value)].last = i - 1;
              g_hash_table_remove (open, &e->addr);
              break;
            }
          trace->n_unmatched_frees++;
          /* allocated before the trace began: live from its start, as
           * PyTorch's memory viewer counts it */
          if (!options->drop_pre_existing && e->size > 0 && e->size <= MP_MAX_TENSOR_SIZE &&
              add_record (rec, e, i, MP_TRACE_BLOCK_PRE_EXISTING, 0, MAX (i, 1) - 1) >= 0)
            trace->n_pre_existing++;
          break;
        case TRACE_SEGMENT_ALLOC:
        case TRACE_SEGMENT_FREE:
          {
            MpTraceRange r = { e->addr, e->size, 0 };

            if (e->size > 0)
              g_array_append_val (rec->ranges, r);
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
  /* blocks of the snapshot's segments that the trace never allocated */
  for (guint b = 0; b < d->blocks->len && !options->drop_pre_existing; b++)
    {
      const MpTraceRange *block = &g_array_index (d->blocks, MpTraceRange, b);
      TraceEvent          e = { TRACE_ALLOC, block->address, block->size, -1, { NULL } };

      if (!g_hash_table_contains (open, &block->address) && block->size > 0 &&
          add_record (rec, &e, n, MP_TRACE_BLOCK_PRE_EXISTING, 0, MAX (n, 1) - 1) >= 0)
        trace->n_pre_existing++;
    }
  return TRUE;
}

static MpTrace *
build (TraceFile *file, MpTraceFormat format, const MpTraceOptions *options, GError **error)
{
  g_autoptr (MpTrace) trace = g_new0 (MpTrace, 1);
  g_autofree char *base = file->path ? g_path_get_basename (file->path) : g_strdup ("trace");
  g_autofree char *name = NULL;
  TraceDevice     *d, *shm;
  Records          rec = { 0 };
  MpGraph         *graph;
  gboolean         ok;

  if (!(d = pick_device (trace, file, format, options->device, error)))
    return NULL;
  trace->format = format;
  trace->device = g_strdup (d->name);
  trace->has_arena = !g_str_has_prefix (d->name, "cpu") && !d->converted;
  if (g_str_has_suffix (base, ".gz"))
    base[strlen (base) - 3] = '\0';
  if (strchr (base, '.'))
    *strrchr (base, '.') = '\0';
  name = g_strdup_printf ("%s-%s", base, d->name);
  graph = trace->graph = mp_graph_new (name);
  graph->path = g_strdup (file->path);
  graph->alignment = 1;
  graph->has_ops = FALSE;
  trace->n_events = d->events->len;

  rec.graph = graph;
  rec.counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  rec.addresses = g_array_new (FALSE, FALSE, sizeof (guint64));
  rec.sites = g_array_new (FALSE, FALSE, sizeof (MpTraceSite));
  rec.origins = g_byte_array_new ();
  rec.ranges = g_array_new (FALSE, FALSE, sizeof (MpTraceRange));
  ok = build_records (trace, d, options, &rec, error);
  if (ok && graph->n_tensors == 0)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, file->path,
                         "device '%s' has %u memory events but no allocation", d->name,
                         trace->n_events);
      ok = FALSE;
    }
  if (!ok)
    {
      records_clear (&rec);
      return NULL;
    }
  g_array_append_vals (rec.ranges, d->segments->data, d->segments->len);

  trace->n_allocations = graph->n_tensors;
  trace->reserved_peak = trace->has_arena ? reserved_peak (d) : 0;
  trace->live_peak = live_peak (graph, MAX (trace->n_events, 1), &trace->peak_step);
  if ((shm = g_hash_table_lookup (file->by_name, "cpu-shm")) && g_str_equal (d->name, "cpu"))
    for (guint i = 0; i < shm->events->len; i++)
      trace->n_shared += g_array_index (shm->events, TraceEvent, i).action == TRACE_ALLOC;
  trace->addresses = (guint64 *) g_array_free (g_steal_pointer (&rec.addresses), FALSE);
  trace->sites = (MpTraceSite *) g_array_free (g_steal_pointer (&rec.sites), FALSE);
  trace->origins = g_byte_array_free (g_steal_pointer (&rec.origins), FALSE);
  trace->strings = g_steal_pointer (&file->strings);
  trace->text_limit = file->text_limit;
  attach_origins (trace);
  compact_ranges (trace, g_steal_pointer (&rec.ranges));
  records_clear (&rec);
  trace->observed = g_new (guint64, graph->n_tensors);
  for (guint t = 0; t < graph->n_tensors; t++)
    trace->observed[t] = observed_offset (trace, trace->addresses[t]);
  trace->touched = trace->observed_arena;
  if (!trace->has_arena)
    pack_blocks (trace);
  if (!mp_graph_check (graph, error))
    return NULL;
  return g_steal_pointer (&trace);
}

MpTrace *
mp_trace_parse_full (const char *data, gsize length, const char *path,
                     const MpTraceOptions *options, GError **error)
{
  static const MpTraceOptions defaults = { NULL, FALSE };
  MpInputFormat               input;
  MpTraceFormat               format = MP_TRACE_FORMAT_NONE;
  g_autoptr (TraceFile)       file = NULL;

  if (mp_input_sniff (data, length, path, &input, NULL))
    format = input == MP_INPUT_SNAPSHOT       ? MP_TRACE_FORMAT_SNAPSHOT
             : input == MP_INPUT_CHROME_TRACE ? MP_TRACE_FORMAT_CHROME
                                              : MP_TRACE_FORMAT_NONE;
  if (format == MP_TRACE_FORMAT_SNAPSHOT)
    file = mp_trace_parse_snapshot (data, length, path, error);
  else if (format == MP_TRACE_FORMAT_CHROME)
    file = mp_trace_parse_chrome (data, length, path, options ? options->max_memory : 0, error);
  else
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_FORMAT, path,
                         "neither a PyTorch profiler trace (JSON with \"traceEvents\") nor a "
                         "memory snapshot (a pickle)%s",
                         length >= 2 && (guint8) data[0] == 0x1f && (guint8) data[1] == 0x8b
                           ? ": it is gzip inside gzip"
                           : "");
      return NULL;
    }
  if (file == NULL)
    return NULL;
  return build (file, format, options ? options : &defaults, error);
}

MpTrace *
mp_trace_parse (const char *data, gsize length, const char *path, const char *device,
                GError **error)
{
  MpTraceOptions options = { device, FALSE };

  return mp_trace_parse_full (data, length, path, &options, error);
}

/* A snapshot or a Chrome trace is read as it goes, never held whole; a
 * gzip one as it inflates, held to the size its trailer announces. */
static MpTrace *
load_stream (const char *path, MpTraceFormat format, const MpTraceOptions *options,
             GError **error)
{
  static const MpTraceOptions defaults = { NULL, FALSE };
  g_autoptr (TraceFile)       file = NULL;
  FILE                       *in;
  GStatBuf                    st;
  guint64                     limit = options ? options->max_memory : 0;

  if (mp_file_is_gzip (path))
    {
      g_autoptr (MpGzipReader) gz = mp_gzip_reader_open (path, error);

      if (gz == NULL)
        return NULL;
      file = format == MP_TRACE_FORMAT_CHROME
               ? mp_trace_read_chrome_gzip (gz, mp_gzip_reader_announced (gz), path, limit, error)
               : mp_trace_read_snapshot_gzip (gz, mp_gzip_reader_announced (gz), path, error);
      if (file == NULL)
        return NULL;
      return build (file, format, options ? options : &defaults, error);
    }
  in = fopen (path, "rb");
  if (in == NULL || fstat (fileno (in), &st) != 0)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_IO, path, "cannot read the file: %s",
                         g_strerror (errno));
      if (in)
        fclose (in);
      return NULL;
    }
  file = format == MP_TRACE_FORMAT_CHROME
           ? mp_trace_read_chrome (in, st.st_size, path, limit, error)
           : mp_trace_read_snapshot (in, st.st_size, path, error);
  fclose (in);
  if (file == NULL)
    return NULL;
  return build (file, format, options ? options : &defaults, error);
}

/* The format a regular file is read as it goes in, or NONE. */
static MpTraceFormat
stream_format (const char *path)
{
  MpInputFormat format;
  GStatBuf      st;

  /* a pipe's first bytes, once sniffed, are gone: only regular files;
   * past 2 GiB the whole-file reader says it is too large */
  if (g_stat (path, &st) != 0 || !S_ISREG (st.st_mode) || !mp_input_sniff_file (path, &format))
    return MP_TRACE_FORMAT_NONE;
  if (format == MP_INPUT_SNAPSHOT)
    return MP_TRACE_FORMAT_SNAPSHOT;
  if (format == MP_INPUT_CHROME_TRACE && (guint64) st.st_size <= G_MAXINT)
    return MP_TRACE_FORMAT_CHROME;
  return MP_TRACE_FORMAT_NONE;
}

gboolean
mp_trace_streams (const char *path)
{
  return stream_format (path) != MP_TRACE_FORMAT_NONE;
}

MpTrace *
mp_trace_load_full (const char *path, const MpTraceOptions *options, GError **error)
{
  g_autofree char *data = NULL;
  gsize            length;
  MpTraceFormat    format = stream_format (path);

  if (format != MP_TRACE_FORMAT_NONE)
    return load_stream (path, format, options, error);

  if (!mp_read_file (path, &data, &length, error))
    return NULL;
  return mp_trace_parse_full (data, length, path, options, error);
}

MpTrace *
mp_trace_load (const char *path, const char *device, GError **error)
{
  MpTraceOptions options = { device, FALSE };

  return mp_trace_load_full (path, &options, error);
}

static void
count_text (const char *text, guint64 *bytes, guint64 *lines)
{
  gsize       n;
  const char *end;

  if (text == NULL)
    return;
  /* libc's strlen and memchr: a third of import's writing went here */
  n = strlen (text);
  end = text + n;
  *bytes += n;
  (*lines)++;
  while ((text = memchr (text, '\n', end - text)) != NULL)
    {
      (*lines)++;
      text++;
    }
}

guint64
mp_trace_site_text (const MpTrace *trace, guint64 cap, guint64 *lines)
{
  guint64 bytes = 0, n_lines = 0;

  /* one text may be shared by every allocation: stop once past cap */
  for (guint t = 0; t < trace->n_allocations && bytes <= cap; t++)
    {
      const MpTraceSite *s = &trace->sites[t];

      count_text (s->ops, &bytes, &n_lines);
      count_text (s->module, &bytes, &n_lines);
      count_text (s->frames, &bytes, &n_lines);
    }
  if (lines)
    *lines = n_lines;
  return bytes;
}

gboolean
mp_trace_check_expansion (const MpTrace *trace, GError **error)
{
  if (mp_trace_site_text (trace, trace->text_limit, NULL) > trace->text_limit)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, trace->graph ? trace->graph->path : NULL,
                         "the allocations share their ops and stack frames, and writing them out "
                         "would take more than %" G_GUINT64_FORMAT " bytes, the most memplan "
                         "writes for a file of this size (64 MiB plus 64 bytes per byte of "
                         "input)",
                         trace->text_limit);
      return FALSE;
    }
  return TRUE;
}

MpPlan *
mp_trace_observed_plan (const MpTrace *trace, const MpLifetimes *lifetimes)
{
  MpPlan          *plan = mp_plan_new ("observed", lifetimes);
  g_autofree char *reserved = mp_format_bytes (trace->reserved_peak);
  g_autofree char *live = mp_format_bytes (trace->live_peak);
  g_autofree char *span = mp_format_bytes (trace->touched);
  g_autofree char *footprint = NULL;
  GString         *note = g_string_new (NULL);

  plan->observed = TRUE;
  plan->no_arena = !trace->has_arena;
  for (guint r = 0; r < plan->n_records; r++)
    plan->offsets[r] = trace->observed[plan->records[r].tensor];
  mp_plan_finish (plan);
  /* what the allocator held, not what its blocks spanned */
  if (trace->has_arena)
    plan->arena = MAX (plan->arena, trace->reserved_peak);
  footprint = mp_format_bytes (plan->arena);
  if (g_str_equal (trace->device, "cpu-shm"))
    g_string_append_printf (note, "shared-memory blocks of DataLoader workers, kept apart from "
                                  "the CPU allocator's; at most %s live; ", live);
  else if (!trace->has_arena && trace->format == MP_TRACE_FORMAT_SNAPSHOT)
    g_string_append_printf (note, "converted from a profiler trace, the snapshot has no "
                                  "allocator segments: the row is its blocks packed as tight "
                                  "as their lifetimes allow, %s, against a peak of live bytes "
                                  "of %s; ", footprint, live);
  else if (!trace->has_arena)
    /* the row's figure is the blocks' footprint, not an allocator's arena */
    g_string_append_printf (note, "the CPU allocator has no arena (its blocks come from "
                                  "malloc, whose addresses do not say what it held): the row "
                                  "is its blocks packed as tight as their lifetimes allow, %s, "
                                  "against a peak of live bytes of %s; ", footprint, live);
  else if (trace->reserved_peak)
    g_string_append_printf (note, "the %s allocator reserved %s at its peak; ",
                            trace->device, reserved);
  g_string_append_printf (note, "its blocks touched %s in %u address range%s", span,
                          trace->n_ranges, trace->n_ranges == 1 ? "" : "s");
  if (trace->n_pre_existing)
    g_string_append_printf (note, "; %u block%s allocated before the trace began, live from "
                                  "its start",
                            trace->n_pre_existing, trace->n_pre_existing == 1 ? "" : "s");
  else if (trace->n_unmatched_frees)
    g_string_append_printf (note, "; %u free%s without an allocation skipped",
                            trace->n_unmatched_frees, trace->n_unmatched_frees == 1 ? "" : "s");
  if (trace->n_never_freed)
    g_string_append_printf (note, "; %u allocation%s never freed (live to the end)",
                            trace->n_never_freed, trace->n_never_freed == 1 ? "" : "s");
  if (trace->n_ooms)
    g_string_append_printf (note, "; %u out-of-memory event%s", trace->n_ooms,
                            trace->n_ooms == 1 ? "" : "s");
  if (trace->n_shared)
    g_string_append_printf (note, "; %u shared-memory block%s of DataLoader workers kept "
                                  "apart (--device cpu-shm)",
                            trace->n_shared, trace->n_shared == 1 ? "" : "s");
  plan->note = g_string_free (note, FALSE);
  return plan;
}
