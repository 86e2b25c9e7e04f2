/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <math.h>
#include <string.h>

#include <json-c/json.h>

#include "graph-private.h"
#include "json-reader.h"
#include "json-util.h"
#include "trace-private.h"

/* The PyTorch profiler's Chrome trace with profile_memory=True: instant
 * events named "[memory]" whose args carry Addr, Bytes (negative for a
 * free), Total Allocated, Total Reserved, Device Type (0 CPU, 1 CUDA) and
 * Device Id; ts in microseconds. Each allocation is attributed to the
 * slices ("ph": "X") open on its thread when it was made: cpu_op slices
 * are the ops, python_function slices the Python frames (with_stack) and
 * the modules ("nn.Module: Conv2d_0", with_modules). */

#define MAX_LEVELS 32     /* ops, frames and modules kept per allocation */
#define MAX_SCAN   256    /* stack levels looked through for them */
#define MAX_NAME   256    /* bytes of one op or frame name kept */

typedef enum
{
  SLICE_OP,
  SLICE_FRAME,
  SLICE_MODULE,
} SliceKind;

typedef struct
{
  gdouble     ts, end;
  guint       thread;
  SliceKind   kind;
  const char *name; /* interned */
} Slice;

typedef struct
{
  gdouble     ts;
  guint       index;  /* position in the file: ties keep file order */
  guint       thread;
  const char *device; /* interned */
  TraceEvent  event;
} Stamped;

typedef struct
{
  TraceFile  *file;
  const char *path;
  GHashTable *threads; /* "pid/tid" -> index + 1 */
  GArray     *stamped;
  GArray     *slices;
} Reader;

/* NaN and Infinity are not JSON, though json-c reads them: a "ts" of NaN
 * would reorder the events silently. */
static gboolean
refuse_non_finite (const char *data, gsize length, const char *path, GError **error)
{
  gboolean in_string = FALSE;
  guint    line = 1, column = 0;

  for (gsize i = 0; i < length; i++)
    {
      char c = data[i];

      column++;
      if (c == '\n')
        {
          line++;
          column = 0;
        }
      else if (in_string)
        {
          if (c == '\\' && i + 1 < length && data[i + 1] != '\n')
            {
              i++;
              column++;
            }
          else if (c == '"')
            in_string = FALSE;
        }
      else if (c == '"')
        in_string = TRUE;
      else if (g_ascii_isalpha (c))
        {
          gsize n = 0;

          while (i + n < length && g_ascii_isalpha (data[i + n]))
            n++;
          if ((n == 3 && g_ascii_strncasecmp (data + i, "nan", 3) == 0) ||
              (n == 8 && g_ascii_strncasecmp (data + i, "infinity", 8) == 0))
            {
              mp_set_file_error (error, MP_ANALYSIS_ERROR_PARSE, path,
                                 "not valid JSON: %.*s at line %u, column %u (NaN and Infinity "
                                 "are not JSON numbers)",
                                 (int) n, data + i, line, column);
              return FALSE;
            }
          i += n - 1;
          column += n - 1;
        }
    }
  return TRUE;
}

static gint
compare_stamped (gconstpointer a, gconstpointer b)
{
  const Stamped *x = a, *y = b;

  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

/* Thread first, then start; an enclosing slice before what it encloses. */
static gint
compare_slices (gconstpointer a, gconstpointer b)
{
  const Slice *x = a, *y = b;

  if (x->thread != y->thread)
    return x->thread < y->thread ? -1 : 1;
  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  return x->end > y->end ? -1 : x->end < y->end;
}

static gint
compare_by_thread (gconstpointer a, gconstpointer b, gpointer data)
{
  const Stamped *s = data;
  const Stamped *x = &s[*(const guint *) a], *y = &s[*(const guint *) b];

  if (x->thread != y->thread)
    return x->thread < y->thread ? -1 : 1;
  return compare_stamped (x, y);
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
  /* json-c clamps what does not fit in 64 bits to the extremes */
  return *value != G_MAXINT64 && *value != G_MININT64;
}

static guint
thread_of (Reader *r, json_object *ev)
{
  json_object     *pid = NULL, *tid = NULL;
  g_autofree char *key = NULL;
  gpointer         index;

  json_object_object_get_ex (ev, "pid", &pid);
  json_object_object_get_ex (ev, "tid", &tid);
  key = g_strdup_printf ("%s/%s", pid ? json_object_get_string (pid) : "",
                         tid ? json_object_get_string (tid) : "");
  if ((index = g_hash_table_lookup (r->threads, key)) == NULL)
    {
      index = GUINT_TO_POINTER (g_hash_table_size (r->threads) + 1);
      g_hash_table_insert (r->threads, g_steal_pointer (&key), index);
    }
  return GPOINTER_TO_UINT (index) - 1;
}

/* "model.py(42): forward" as the snapshot writes frames, "forward
 * (model.py:42)"; other names as they are, cut at MAX_NAME bytes. */
static char *
frame_name (const char *name)
{
  const char *close = strstr (name, "): ");
  const char *open = close ? g_strrstr_len (name, close - name, "(") : NULL;

  if (open && open > name && close - open > 1 &&
      strspn (open + 1, "0123456789") == (gsize) (close - open - 1))
    return g_strdup_printf ("%.*s (%.*s:%.*s)", MAX_NAME, close + 3, (int) MIN (open - name, MAX_NAME),
                            name, (int) (close - open - 1), open + 1);
  return g_strndup (name, MAX_NAME);
}

static gboolean
read_slice (Reader *r, json_object *ev, const char *name, GError **error)
{
  json_object *cat, *ts, *dur;
  Slice        s = { 0 };
  const char  *c;

  if (!json_object_object_get_ex (ev, "cat", &cat) || !json_object_is_type (cat, json_type_string))
    return TRUE;
  c = json_object_get_string (cat);
  if (g_str_equal (c, "cpu_op") || g_str_equal (c, "Operator"))
    s.kind = SLICE_OP;
  else if (g_str_equal (c, "python_function"))
    s.kind = g_str_has_prefix (name, "nn.Module: ") ? SLICE_MODULE : SLICE_FRAME;
  else
    return TRUE;
  if (!json_object_object_get_ex (ev, "ts", &ts) || !json_object_object_get_ex (ev, "dur", &dur))
    return TRUE;
  s.ts = json_object_get_double (ts);
  s.end = s.ts + json_object_get_double (dur);
  if (!isfinite (s.ts) || !isfinite (s.end))
    return TRUE;
  s.thread = thread_of (r, ev);
  if (!mp_trace_file_intern (r->file,
                             s.kind == SLICE_FRAME    ? frame_name (name)
                             : s.kind == SLICE_MODULE ? g_strndup (name + 11, MAX_NAME)
                                                      : g_strndup (name, MAX_NAME),
                             &s.name, error))
    return FALSE;
  g_array_append_val (r->slices, s);
  return TRUE;
}

static gboolean
read_memory (Reader *r, json_object *ev, guint index, GError **error)
{
  json_object     *args, *ts;
  Stamped          s = { 0 };
  gint64           bytes = 0, type = 1, id = 0, reserved = -1;
  guint64          addr = 0;
  const char      *bad = NULL, *want = "an integer";
  g_autofree char *device = NULL;

  if (!json_object_object_get_ex (ev, "args", &args) ||
      !json_object_is_type (args, json_type_object))
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, r->path,
                         "traceEvents[%u]: a [memory] event without \"args\"", index);
      return FALSE;
    }
  if (!json_object_object_get_ex (ev, "ts", &ts) ||
      !(json_object_is_type (ts, json_type_int) || json_object_is_type (ts, json_type_double)) ||
      !isfinite (json_object_get_double (ts)))
    bad = "ts", want = "a finite number";
  else if (!json_object_object_get_ex (args, "Addr", NULL) ||
           !mp_json_get_u64 (json_object_object_get (args, "Addr"), &addr))
    bad = "Addr", want = "a non-negative integer below 2^63";
  else if (!get_int (args, "Bytes", TRUE, &bytes))
    bad = "Bytes", want = "an integer within 64 bits";
  else if (!get_int (args, "Device Type", FALSE, &type))
    bad = "Device Type";
  else if (!get_int (args, "Device Id", FALSE, &id))
    bad = "Device Id";
  else if (!get_int (args, "Total Reserved", FALSE, &reserved))
    bad = "Total Reserved";
  if (bad)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, r->path,
                         "traceEvents[%u]: [memory] event: \"%s\" must be %s", index, bad, want);
      return FALSE;
    }
  s.ts = json_object_get_double (ts);
  s.index = index;
  s.thread = thread_of (r, ev);
  device = type == 0   ? g_strdup ("cpu")
           : type == 1 ? g_strdup_printf ("cuda:%" G_GINT64_FORMAT, id)
                       : g_strdup_printf ("device%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT, type, id);
  if (!mp_trace_file_intern (r->file, g_steal_pointer (&device), &s.device, error))
    return FALSE;
  s.event.action = bytes >= 0 ? TRACE_ALLOC : TRACE_FREE;
  s.event.addr = addr;
  s.event.size = bytes >= 0 ? bytes : -bytes;
  s.event.reserved = reserved;
  g_array_append_val (r->stamped, s);
  return TRUE;
}

static gboolean
read_event (Reader *r, json_object *ev, guint index, GError **error)
{
  json_object *name, *ph;
  const char  *n;

  if (!json_object_is_type (ev, json_type_object) ||
      !json_object_object_get_ex (ev, "name", &name) ||
      !json_object_is_type (name, json_type_string))
    return TRUE;
  n = json_object_get_string (name);
  if (g_str_equal (n, "[memory]"))
    return read_memory (r, ev, index, error);
  if (json_object_object_get_ex (ev, "ph", &ph) && json_object_is_type (ph, json_type_string) &&
      g_str_equal (json_object_get_string (ph), "X"))
    return read_slice (r, ev, n, error);
  return TRUE;
}

/* One line per name of that kind, from the innermost slice outwards
 * (modules outermost first, joined by dots). */
static char *
join_levels (GPtrArray *stack, SliceKind kind)
{
  const char *names[MAX_LEVELS];
  guint       n = 0;
  GString    *s;

  for (guint i = stack->len; i-- > 0 && stack->len - i <= MAX_SCAN && n < MAX_LEVELS;)
    if (((Slice *) stack->pdata[i])->kind == kind)
      names[n++] = ((Slice *) stack->pdata[i])->name;
  if (n == 0)
    return NULL;
  s = g_string_new (NULL);
  for (guint i = 0; i < n; i++)
    {
      if (i)
        g_string_append_c (s, kind == SLICE_MODULE ? '.' : '\n');
      g_string_append (s, names[kind == SLICE_MODULE ? n - 1 - i : i]);
    }
  return g_string_free (s, FALSE);
}

static gboolean
site_of (Reader *r, GPtrArray *stack, MpTraceSite *site, GError **error)
{
  memset (site, 0, sizeof *site);
  if (!mp_trace_file_intern (r->file, join_levels (stack, SLICE_OP), &site->ops, error) ||
      !mp_trace_file_intern (r->file, join_levels (stack, SLICE_FRAME), &site->frames, error) ||
      !mp_trace_file_intern (r->file, join_levels (stack, SLICE_MODULE), &site->module, error))
    return FALSE;
  if (site->ops)
    {
      g_autofree char *op = g_strndup (site->ops, strcspn (site->ops, "\n"));

      return mp_trace_file_intern (r->file, g_steal_pointer (&op), &site->op, error);
    }
  return TRUE;
}

/* Sweeps each thread's allocations and slices in time order, keeping the
 * stack of slices open at each allocation. */
static gboolean
attribute (Reader *r, GError **error)
{
  Stamped              *stamped = (Stamped *) (void *) r->stamped->data;
  g_autoptr (GArray)    order = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GPtrArray) stack = g_ptr_array_new ();
  guint                 j = 0, thread = G_MAXUINT, last_top = G_MAXUINT, last_depth = 0;
  MpTraceSite           last = { 0 };

  if (r->slices->len == 0)
    return TRUE;
  for (guint i = 0; i < r->stamped->len; i++)
    if (stamped[i].event.action == TRACE_ALLOC)
      g_array_append_val (order, i);
  g_array_sort (r->slices, compare_slices);
  g_array_sort_with_data (order, compare_by_thread, stamped);
  for (guint k = 0; k < order->len; k++)
    {
      Stamped *e = &stamped[g_array_index (order, guint, k)];
      Slice   *slices = (Slice *) (void *) r->slices->data;

      if (e->thread != thread)
        {
          thread = e->thread;
          g_ptr_array_set_size (stack, 0);
          last_top = G_MAXUINT;
          while (j < r->slices->len && slices[j].thread < thread)
            j++;
        }
      for (; j < r->slices->len && slices[j].thread == thread && slices[j].ts <= e->ts; j++)
        {
          while (stack->len && ((Slice *) stack->pdata[stack->len - 1])->end < slices[j].ts)
            g_ptr_array_set_size (stack, stack->len - 1);
          g_ptr_array_add (stack, &slices[j]);
        }
      while (stack->len && ((Slice *) stack->pdata[stack->len - 1])->end < e->ts)
        g_ptr_array_set_size (stack, stack->len - 1);
      if (stack->len == 0)
        continue;
      /* allocations in one op share one stack: build its texts once */
      if (stack->len != last_depth ||
          (Slice *) stack->pdata[stack->len - 1] - slices != (gssize) last_top)
        {
          if (!site_of (r, stack, &last, error))
            return FALSE;
          last_depth = stack->len;
          last_top = (Slice *) stack->pdata[stack->len - 1] - slices;
        }
      e->event.site = last;
    }
  return TRUE;
}

/* torch.multiprocessing moves DataLoader batches through shared memory:
 * such blocks are not the CPU allocator's. */
static gboolean
is_shared_memory (const MpTraceSite *site)
{
  static const char *markers[] = { "_share_filename_", "_share_fd_", "_new_shared",
                                   "share_memory_", "rebuild_storage_fd",
                                   "rebuild_storage_filename" };

  for (guint i = 0; i < G_N_ELEMENTS (markers); i++)
    if ((site->ops && strstr (site->ops, markers[i])) ||
        (site->frames && strstr (site->frames, markers[i])))
      return TRUE;
  return FALSE;
}

/* Events in time order into their devices; shared-memory blocks of the
 * CPU into a device of their own, "cpu-shm", their frees with them. */
static void
distribute (Reader *r)
{
  g_autoptr (GHashTable) shared = g_hash_table_new (g_int64_hash, g_int64_equal);

  g_array_sort (r->stamped, compare_stamped);
  for (guint i = 0; i < r->stamped->len; i++)
    {
      Stamped    *s = &g_array_index (r->stamped, Stamped, i);
      const char *device = s->device;

      if (g_str_equal (device, "cpu"))
        {
          if (s->event.action == TRACE_ALLOC && is_shared_memory (&s->event.site))
            g_hash_table_add (shared, &s->event.addr);
          if (g_hash_table_contains (shared, &s->event.addr))
            device = "cpu-shm";
          if (s->event.action == TRACE_FREE)
            g_hash_table_remove (shared, &s->event.addr);
        }
      g_array_append_val (mp_trace_file_device (r->file, device)->events, s->event);
    }
}

/* The events read one at a time: the pull reader finds each event's bytes
 * and json-c builds that event alone, so a trace of a million events never
 * exists as one tree (about 20 bytes of memory per byte of file). FALSE
 * with *whole set when the document is not plain well-formed JSON: the
 * whole-document reader then says what is wrong, as it always did. */
static gboolean
read_events (Reader *r, const char *data, gsize length, gboolean *whole, GError **error)
{
  MpJsonReader         jr;
  gsize                at = G_MAXSIZE;
  guint                index = 0;
  json_tokener        *tok;
  gboolean             ok = TRUE;

  *whole = TRUE;
  if (length > G_MAXINT || !g_utf8_validate_len (data, length, NULL))
    return FALSE;
  mp_json_reader_init (&jr, data, length, r->path);
  /* the last "traceEvents" counts, as in json-c's tree */
  if (mp_json_reader_peek (&jr) == MP_JSON_ARRAY)
    at = mp_json_reader_tell (&jr);
  else if (mp_json_reader_begin_object (&jr))
    while (mp_json_reader_next_member (&jr))
      {
        if (g_str_equal (jr.text->str, "traceEvents"))
          at = mp_json_reader_tell (&jr);
        mp_json_reader_skip (&jr);
      }
  if (at == G_MAXSIZE)
    mp_json_reader_skip (&jr);
  if (!mp_json_reader_finish (&jr) || jr.error)
    {
      mp_json_reader_clear (&jr);
      return FALSE;
    }
  mp_json_reader_seek (&jr, at);
  if (at == G_MAXSIZE || mp_json_reader_peek (&jr) != MP_JSON_ARRAY)
    {
      mp_json_reader_clear (&jr);
      *whole = FALSE;
      mp_set_file_error (error, MP_ANALYSIS_ERROR_FORMAT, r->path,
                         "\"traceEvents\" must be a list of events");
      return FALSE;
    }
  tok = json_tokener_new_ex (64);
  mp_json_reader_begin_array (&jr);
  while (ok && mp_json_reader_next_element (&jr))
    {
      gsize        start = mp_json_reader_tell (&jr);
      json_object *ev = NULL;

      while (start < length && g_ascii_isspace (data[start]))
        start++;
      mp_json_reader_skip (&jr);
      if (jr.error)
        break;
      if (data[start] == '{')
        {
          json_tokener_reset (tok);
          ev = json_tokener_parse_ex (tok, data + start, mp_json_reader_tell (&jr) - start);
          if (ev == NULL)
            break;
        }
      ok = ev == NULL || read_event (r, ev, index, error);
      *whole = ok; /* an event's own error is the answer */
      index++;
      json_object_put (ev);
    }
  json_tokener_free (tok);
  if (ok && jr.error)
    ok = FALSE;
  else if (ok)
    *whole = FALSE;
  mp_json_reader_clear (&jr);
  return ok;
}

TraceFile *
mp_trace_parse_chrome (const char *data, gsize length, const char *path, GError **error)
{
  g_autoptr (TraceFile) file = mp_trace_file_new (path, length);
  g_autoptr (GHashTable) threads = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GArray) stamped = g_array_new (FALSE, FALSE, sizeof (Stamped));
  g_autoptr (GArray) slices = g_array_new (FALSE, FALSE, sizeof (Slice));
  Reader             r = { file, path, threads, stamped, slices };
  json_object       *root, *events;
  gboolean           ok = TRUE, whole;

  if (!refuse_non_finite (data, length, path, error))
    return NULL;
  if (read_events (&r, data, length, &whole, error))
    {
      if (!attribute (&r, error))
        return NULL;
      distribute (&r);
      return g_steal_pointer (&file);
    }
  if (!whole)
    return NULL;
  /* what the events read so far made goes: the tree reads them again */
  g_array_set_size (stamped, 0);
  g_array_set_size (slices, 0);
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
    ok = read_event (&r, json_object_array_get_idx (events, i), i, error);
  json_object_put (root);
  if (!ok || !attribute (&r, error))
    return NULL;
  distribute (&r);
  return g_steal_pointer (&file);
}
