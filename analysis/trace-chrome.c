/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <errno.h>
#include <math.h>
#include <string.h>

#include <json-c/json.h>

#include "graph-private.h"
#include "pickle.h"
#include "json-reader.h"
#include "json-util.h"
#include "memory-estimate.h"
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
  /* the fast path's memory of what it met last */
  GString    *key;
  gint64      last_pid, last_tid;
  guint       last_thread;
  GHashTable *names[3];  /* per SliceKind: name as written -> interned */
  const char *device;
  gint64      device_type, device_id;
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

  /* a profiler writes them mostly in time order: no sort when they are */
  for (guint i = 1; i < r->stamped->len; i++)
    if (compare_stamped (&g_array_index (r->stamped, Stamped, i - 1),
                         &g_array_index (r->stamped, Stamped, i)) > 0)
      {
        g_array_sort (r->stamped, compare_stamped);
        break;
      }
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

/* The fast path: each event's fields read straight from the text, nothing
 * built but what the importer keeps, the file read through a window as it
 * inflates. It takes only plain well-formed JSON whose fields have the
 * types the importer wants; anything else (a syntax error, a bad event,
 * "traceEvents" twice, a "pid" that is an object) and it gives up, and
 * the readers above read the whole document as they always did: they
 * say what is wrong, in the words they always used. */

typedef enum
{
  V_ABSENT,
  V_INT,
  V_DOUBLE,
  V_STRING,
  V_TRUE,
  V_FALSE,
  V_NULL,
  V_OTHER, /* an object or a list */
} ValueType;

typedef struct
{
  ValueType type;
  gboolean  big; /* a number too long to read as json-c does: give up if used */
  gint64    i;
  gdouble   d;
} Value;

typedef enum
{
  CAT_NONE,
  CAT_OP,
  CAT_PYTHON,
} Category;

/* One event as read; committed only once it is whole in the window. */
typedef struct
{
  gboolean  named;      /* the (last) "name" is a string */
  GString  *name;
  gboolean  complete;   /* "ph" is "X" */
  gboolean  has_cat;    /* "cat" is a string */
  Category  cat;
  Value     ts, dur;
  Value     pid, tid;
  GString  *pid_text, *tid_text; /* for strings and doubles */
  ValueType args;       /* the type of the (last) "args" */
  Value     addr, bytes, device_type, device_id, reserved;
} Event;

typedef struct
{
  MpPickleRead read; /* NULL: the whole document is in buf */
  gpointer     source;
  GError      *error; /* the source's */
  char        *buf;
  gsize        cap, len;
  gboolean     eof;
} Window;

typedef gboolean (*UnitFunc) (MpJsonReader *jr, gpointer data);

/* Tests turn the fast path off, or shrink its window to a few bytes so
 * that every unit is cut somewhere. */
static gboolean fast_path = TRUE;
static gsize    window_size = 4 << 20;

void
mp_trace_chrome_set_fast_path (gboolean on, gsize window)
{
  fast_path = on;
  window_size = window ? window : 4 << 20;
}

static void
read_number (MpJsonReader *jr, Value *v)
{
  const char *raw = jr->raw;
  gsize       n = jr->raw_len, neg = raw[0] == '-', k = neg;
  char        text[64];
  gint64      i = 0;

  v->big = FALSE;
  v->type = V_INT;
  /* 18 digits always fit; past that json-c clamps or keeps a uint64 */
  for (; k < n && g_ascii_isdigit (raw[k]); k++)
    i = k - neg < 18 ? i * 10 + (raw[k] - '0') : i;
  if (k == n)
    {
      v->big = n - neg > 18;
      v->i = neg ? -i : i;
      v->d = (gdouble) v->i;
      return;
    }
  v->type = V_DOUBLE;
  if (n >= sizeof text)
    {
      v->big = TRUE;
      return;
    }
  memcpy (text, raw, n);
  text[n] = '\0';
  v->d = g_ascii_strtod (text, NULL);
}

/* Any value; a string's text into text when given. */
static gboolean
read_value (MpJsonReader *jr, Value *v, GString *text)
{
  MpJsonType t = mp_json_reader_peek (jr);

  v->big = FALSE;
  switch (t)
    {
    case MP_JSON_NUMBER:
      if (!mp_json_reader_skip (jr))
        return FALSE;
      read_number (jr, v);
      return TRUE;
    case MP_JSON_STRING:
      v->type = V_STRING;
      if (!mp_json_reader_string (jr))
        return FALSE;
      if (text)
        g_string_assign (text, jr->text->str);
      return TRUE;
    case MP_JSON_TRUE: v->type = V_TRUE; break;
    case MP_JSON_FALSE: v->type = V_FALSE; break;
    case MP_JSON_NULL: v->type = V_NULL; break;
    default: v->type = V_OTHER; break;
    }
  return mp_json_reader_skip (jr);
}

static inline gboolean
key_is (MpJsonReader *jr, const char *key, gsize n)
{
  return jr->text->len == n && memcmp (jr->text->str, key, n) == 0;
}

static gboolean
read_args (MpJsonReader *jr, Event *e)
{
  static const Value absent = { V_ABSENT, FALSE, 0, 0 };

  e->addr = e->bytes = e->device_type = e->device_id = e->reserved = absent;
  if (!mp_json_reader_begin_object (jr))
    return FALSE;
  while (mp_json_reader_next_member (jr))
    {
      Value *v = key_is (jr, "Addr", 4)             ? &e->addr
                 : key_is (jr, "Bytes", 5)          ? &e->bytes
                 : key_is (jr, "Device Type", 11)   ? &e->device_type
                 : key_is (jr, "Device Id", 9)      ? &e->device_id
                 : key_is (jr, "Total Reserved", 14) ? &e->reserved
                                                    : NULL;

      if (!(v ? read_value (jr, v, NULL) : mp_json_reader_skip (jr)))
        return FALSE;
    }
  return jr->error == NULL;
}

/* One event object at jr->p, its fields into e (the last of a name twice,
 * as json-c keeps it). */
static gboolean
read_fields (MpJsonReader *jr, Event *e)
{
  static const Value absent = { V_ABSENT, FALSE, 0, 0 };

  e->named = e->complete = e->has_cat = FALSE;
  e->cat = CAT_NONE;
  e->ts = e->dur = e->pid = e->tid = absent;
  e->args = V_ABSENT;
  if (!mp_json_reader_begin_object (jr))
    return FALSE;
  while (mp_json_reader_next_member (jr))
    {
      gboolean ok;
      Value    v;

      switch (jr->text->len)
        {
        case 2:
          if (key_is (jr, "ph", 2))
            {
              ok = read_value (jr, &v, NULL);
              e->complete = v.type == V_STRING && g_str_equal (jr->text->str, "X");
            }
          else if (key_is (jr, "ts", 2))
            ok = read_value (jr, &e->ts, NULL);
          else
            ok = mp_json_reader_skip (jr);
          break;
        case 3:
          if (key_is (jr, "cat", 3))
            {
              ok = read_value (jr, &v, NULL);
              e->has_cat = v.type == V_STRING;
              e->cat = !e->has_cat                                   ? CAT_NONE
                       : g_str_equal (jr->text->str, "cpu_op") ||
                           g_str_equal (jr->text->str, "Operator")   ? CAT_OP
                       : g_str_equal (jr->text->str, "python_function") ? CAT_PYTHON
                                                                      : CAT_NONE;
            }
          else if (key_is (jr, "dur", 3))
            ok = read_value (jr, &e->dur, NULL);
          else if (key_is (jr, "pid", 3))
            ok = read_value (jr, &e->pid, e->pid_text);
          else if (key_is (jr, "tid", 3))
            ok = read_value (jr, &e->tid, e->tid_text);
          else
            ok = mp_json_reader_skip (jr);
          break;
        case 4:
          if (key_is (jr, "name", 4))
            {
              ok = read_value (jr, &v, e->name);
              e->named = v.type == V_STRING;
            }
          else if (key_is (jr, "args", 4))
            {
              if (mp_json_reader_peek (jr) == MP_JSON_OBJECT)
                {
                  e->args = V_OTHER;
                  ok = read_args (jr, e);
                }
              else
                {
                  e->args = V_ABSENT; /* not an object: as if absent */
                  ok = mp_json_reader_skip (jr);
                }
            }
          else
            ok = mp_json_reader_skip (jr);
          break;
        default:
          ok = mp_json_reader_skip (jr);
          break;
        }
      if (!ok)
        return FALSE;
    }
  if (jr->error)
    return FALSE;
  /* the raw texts of doubles live in the window: keep them now */
  if (e->pid.type == V_DOUBLE || e->tid.type == V_DOUBLE)
    return FALSE; /* rare: json-c's text of a double is the reader above's */
  return TRUE;
}

/* json-c's text of a pid or tid; FALSE for the kinds left to the reader
 * above. */
static gboolean
id_text (const Value *v, const GString *text, GString *out)
{
  switch (v->type)
    {
    case V_INT:
      if (v->big)
        return FALSE;
      g_string_append_printf (out, "%" G_GINT64_FORMAT, v->i);
      return TRUE;
    case V_STRING: g_string_append (out, text->str); return TRUE;
    case V_TRUE: g_string_append (out, "true"); return TRUE;
    case V_FALSE: g_string_append (out, "false"); return TRUE;
    case V_ABSENT:
    case V_NULL: return TRUE;
    default: return FALSE;
    }
}

/* thread_of for a read event; the last thread's ids are remembered. */
static gboolean
fast_thread (Reader *r, const Event *e, guint *thread)
{
  gpointer index;

  if (e->pid.type == V_INT && e->tid.type == V_INT && !e->pid.big && !e->tid.big &&
      r->last_thread != G_MAXUINT && e->pid.i == r->last_pid && e->tid.i == r->last_tid)
    {
      *thread = r->last_thread;
      return TRUE;
    }
  g_string_truncate (r->key, 0);
  if (!id_text (&e->pid, e->pid_text, r->key))
    return FALSE;
  g_string_append_c (r->key, '/');
  if (!id_text (&e->tid, e->tid_text, r->key))
    return FALSE;
  if ((index = g_hash_table_lookup (r->threads, r->key->str)) == NULL)
    {
      index = GUINT_TO_POINTER (g_hash_table_size (r->threads) + 1);
      g_hash_table_insert (r->threads, g_strdup (r->key->str), index);
    }
  *thread = GPOINTER_TO_UINT (index) - 1;
  r->last_thread = G_MAXUINT;
  if (e->pid.type == V_INT && e->tid.type == V_INT && !e->pid.big && !e->tid.big)
    {
      r->last_pid = e->pid.i;
      r->last_tid = e->tid.i;
      r->last_thread = *thread;
    }
  return TRUE;
}

/* A slice's name as read_slice keeps it, interned once per distinct name. */
static gboolean
fast_slice_name (Reader *r, SliceKind kind, const char *name, const char **out, GError **error)
{
  GHashTable *seen = r->names[kind];
  char       *made;

  if ((*out = g_hash_table_lookup (seen, name)))
    return TRUE;
  made = kind == SLICE_FRAME    ? frame_name (name)
         : kind == SLICE_MODULE ? g_strndup (name + 11, MAX_NAME)
                                : g_strndup (name, MAX_NAME);
  if (!mp_trace_file_intern (r->file, made, out, error))
    return FALSE;
  g_hash_table_insert (seen, g_strdup (name), (gpointer) *out);
  return TRUE;
}

static gboolean
fast_slice (Reader *r, const Event *e, GError **error)
{
  Slice s = { 0 };

  if (!e->has_cat || e->cat == CAT_NONE)
    return TRUE;
  s.kind = e->cat == CAT_OP                            ? SLICE_OP
           : g_str_has_prefix (e->name->str, "nn.Module: ") ? SLICE_MODULE
                                                        : SLICE_FRAME;
  if (e->ts.type == V_ABSENT || e->dur.type == V_ABSENT)
    return TRUE;
  /* json_object_get_double of a string, a boolean or null: the reader above */
  if ((e->ts.type != V_INT && e->ts.type != V_DOUBLE) || e->ts.big ||
      (e->dur.type != V_INT && e->dur.type != V_DOUBLE) || e->dur.big)
    return FALSE;
  s.ts = e->ts.d;
  s.end = s.ts + e->dur.d;
  if (!isfinite (s.ts) || !isfinite (s.end))
    return TRUE;
  if (!fast_thread (r, e, &s.thread) || !fast_slice_name (r, s.kind, e->name->str, &s.name, error))
    return FALSE;
  g_array_append_val (r->slices, s);
  return TRUE;
}

static inline gboolean
plain_int (const Value *v, gboolean required)
{
  return v->type == V_INT ? !v->big : v->type == V_ABSENT && !required;
}

static gboolean
fast_memory (Reader *r, const Event *e, guint index, GError **error)
{
  Stamped s = { 0 };
  gint64  type, id;

  /* anything read_memory refuses: the reader above says so */
  if (e->args == V_ABSENT || (e->ts.type != V_INT && e->ts.type != V_DOUBLE) || e->ts.big ||
      !isfinite (e->ts.d) || !plain_int (&e->addr, TRUE) || e->addr.i < 0 ||
      !plain_int (&e->bytes, TRUE) || !plain_int (&e->device_type, FALSE) ||
      !plain_int (&e->device_id, FALSE) || !plain_int (&e->reserved, FALSE))
    return FALSE;
  type = e->device_type.type == V_ABSENT ? 1 : e->device_type.i;
  id = e->device_id.type == V_ABSENT ? 0 : e->device_id.i;
  s.ts = e->ts.d;
  s.index = index;
  if (!fast_thread (r, e, &s.thread))
    return FALSE;
  if (r->device == NULL || type != r->device_type || id != r->device_id)
    {
      char *device = type == 0   ? g_strdup ("cpu")
                     : type == 1 ? g_strdup_printf ("cuda:%" G_GINT64_FORMAT, id)
                                 : g_strdup_printf ("device%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT,
                                                    type, id);

      if (!mp_trace_file_intern (r->file, device, &r->device, error))
        return FALSE;
      r->device_type = type;
      r->device_id = id;
    }
  s.device = r->device;
  s.event.action = e->bytes.i >= 0 ? TRACE_ALLOC : TRACE_FREE;
  s.event.addr = e->addr.i;
  s.event.size = e->bytes.i >= 0 ? e->bytes.i : -e->bytes.i;
  s.event.reserved = e->reserved.type == V_ABSENT ? -1 : e->reserved.i;
  g_array_append_val (r->stamped, s);
  return TRUE;
}

static gboolean
fast_event (Reader *r, const Event *e, guint index, GError **error)
{
  if (!e->named)
    return TRUE;
  if (g_str_equal (e->name->str, "[memory]"))
    return fast_memory (r, e, index, error);
  if (e->complete)
    return fast_slice (r, e, error);
  return TRUE;
}

/* Moves what is left of the window (from jr->p) to its front and reads
 * more after it; a window full of one unit doubles. */
static gboolean
refill (Window *w, MpJsonReader *jr)
{
  gsize keep = jr->p - w->buf;

  if (w->read == NULL || w->eof)
    return FALSE;
  if (keep == 0 && w->len == w->cap)
    {
      if (w->cap >= G_MAXINT)
        return FALSE;
      w->cap *= 2;
      w->buf = g_realloc (w->buf, w->cap);
    }
  else
    {
      memmove (w->buf, w->buf + keep, w->len - keep);
      w->len -= keep;
    }
  while (w->len < w->cap)
    {
      gssize n = w->read (w->source, (guint8 *) w->buf + w->len, w->cap - w->len, &w->error);

      if (n < 0)
        return FALSE;
      if (n == 0)
        {
          w->eof = TRUE;
          break;
        }
      w->len += n;
    }
  jr->data = jr->p = w->buf;
  jr->end = w->buf + w->len;
  return TRUE;
}

/* Runs f from jr->p until it has read its unit whole with a byte after it
 * (a number may go on in the next read), refilling the window between
 * tries; f starts afresh each try, so it changes nothing outside. */
static gboolean
run_unit (Window *w, MpJsonReader *jr, guint depth, UnitFunc f, gpointer data)
{
  for (;;)
    {
      const char *start = jr->p;
      gboolean    truncated;

      jr->depth = depth;
      if (f (jr, data))
        {
          mp_json_reader_peek (jr);
          if (jr->p < jr->end || w->eof)
            return TRUE;
          truncated = TRUE;
        }
      else
        truncated = jr->truncated;
      /* at the end of the file, or a fault with the unit already at the
       * window's front: no more to read would change it */
      if (w->eof || (!truncated && start == w->buf))
        return FALSE;
      /* cut by the window's end (or maybe so, as "\u12" is): once more
       * with the unit at the window's front and more after it */
      g_clear_error (&jr->error);
      jr->truncated = FALSE;
      jr->p = start;
      if (!refill (w, jr))
        return FALSE;
    }
}

typedef enum
{
  ITEM_FIRST,  /* before the first item */
  ITEM_NEXT,   /* after one */
  ITEM_CLOSED, /* the container ended */
} ItemState;

/* The separator before an item, or the container's end (*state CLOSED). */
static gboolean
item_start (MpJsonReader *jr, ItemState *state, char close)
{
  mp_json_reader_peek (jr);
  if (jr->p >= jr->end)
    {
      jr->truncated = TRUE;
      return FALSE;
    }
  if (*jr->p == close)
    {
      jr->p++;
      *state = ITEM_CLOSED;
      return TRUE;
    }
  if (*state == ITEM_NEXT)
    {
      if (*jr->p != ',')
        return FALSE;
      jr->p++;
    }
  return TRUE;
}

typedef struct
{
  ItemState state;
  gboolean  object; /* the element is an object: its fields in event */
  Event    *event;
} Element;

static gboolean
unit_element (MpJsonReader *jr, gpointer data)
{
  Element *el = data;

  if (!item_start (jr, &el->state, ']') || el->state == ITEM_CLOSED)
    return el->state == ITEM_CLOSED;
  el->object = mp_json_reader_peek (jr) == MP_JSON_OBJECT;
  return el->object ? read_fields (jr, el->event) : mp_json_reader_skip (jr);
}

typedef struct
{
  ItemState state;
  gboolean  events; /* the key is "traceEvents" */
} Member;

static gboolean
unit_member (MpJsonReader *jr, gpointer data)
{
  Member *m = data;

  if (!item_start (jr, &m->state, '}') || m->state == ITEM_CLOSED)
    return m->state == ITEM_CLOSED;
  if (mp_json_reader_peek (jr) != MP_JSON_STRING || !mp_json_reader_string (jr))
    return FALSE;
  m->events = g_str_equal (jr->text->str, "traceEvents");
  mp_json_reader_peek (jr);
  if (jr->p >= jr->end)
    {
      jr->truncated = TRUE;
      return FALSE;
    }
  if (*jr->p != ':')
    return FALSE;
  jr->p++;
  return TRUE;
}

static gboolean
unit_skip (MpJsonReader *jr, gpointer data)
{
  return mp_json_reader_skip (jr);
}

/* An object or a list opens here: its bracket in *open. */
static gboolean
unit_open (MpJsonReader *jr, gpointer data)
{
  char *open = data;

  mp_json_reader_peek (jr);
  if (jr->p >= jr->end)
    {
      jr->truncated = TRUE;
      return FALSE;
    }
  if (*jr->p != '{' && *jr->p != '[')
    return FALSE;
  *open = *jr->p++;
  return TRUE;
}

/* The events of the list just opened, its elements at depth. */
static gboolean
fast_events (Reader *r, Window *w, MpJsonReader *jr, guint depth, GError **error)
{
  g_autoptr (GString) name = g_string_sized_new (128);
  g_autoptr (GString) pid = g_string_new (NULL);
  g_autoptr (GString) tid = g_string_new (NULL);
  Event               event = { .name = name, .pid_text = pid, .tid_text = tid };
  Element             el = { ITEM_FIRST, FALSE, &event };
  guint               index = 0;

  for (;;)
    {
      if (!run_unit (w, jr, depth, unit_element, &el))
        return FALSE;
      if (el.state == ITEM_CLOSED)
        return TRUE;
      el.state = ITEM_NEXT;
      if (el.object && !fast_event (r, &event, index, error))
        return FALSE;
      if (index++ == G_MAXUINT)
        return FALSE;
    }
}

/* The document in w, read by the fast path: FALSE when it gave up. */
static gboolean
fast_read (Reader *r, Window *w, GError **error)
{
  MpJsonReader jr;
  Member       m = { ITEM_FIRST, FALSE };
  gboolean     ok = FALSE, seen = FALSE;
  char         open;

  mp_json_reader_init (&jr, w->buf, w->len, r->path);
  jr.windowed = TRUE;
  if (!run_unit (w, &jr, 0, unit_open, &open))
    ;
  else if (open == '[') /* the JSON Array Format: the list is the document */
    ok = fast_events (r, w, &jr, 1, error);
  else
    for (;;)
      {
        if (!run_unit (w, &jr, 1, unit_member, &m))
          break;
        if (m.state == ITEM_CLOSED)
          {
            ok = seen;
            break;
          }
        m.state = ITEM_NEXT;
        if (!m.events)
          {
            if (!run_unit (w, &jr, 1, unit_skip, NULL))
              break;
            continue;
          }
        /* the last "traceEvents" counts, in json-c's tree: twice is rare */
        if (seen || !run_unit (w, &jr, 1, unit_open, &open) || open != '[' ||
            !fast_events (r, w, &jr, 2, error))
          break;
        seen = TRUE;
      }
  /* only white space after the document */
  while (ok)
    {
      mp_json_reader_peek (&jr);
      if (jr.p < jr.end)
        ok = FALSE;
      else if (w->eof)
        break;
      else if (!refill (w, &jr))
        ok = FALSE;
    }
  mp_json_reader_clear (&jr);
  return ok;
}

/* The fallbacks cost more than the fast path the load estimate counted
 * on (memory-estimate.c): each is checked again before it starts, in the
 * words of that check. */
static gboolean
check_fallback (const char *path, gsize length, gboolean tree, guint64 limit, GError **error)
{
  g_autofree char *what = NULL;

  if (limit == G_MAXUINT64)
    return TRUE;
  what = g_strdup_printf ("%s: loading %s", path ? path : "<input>",
                          tree ? "it as one json-c tree (it is not well-formed JSON)"
                               : "it whole (the streaming reader does not take it)");
  return mp_memory_check (what, mp_memory_estimate_chrome_fallback (length, tree), limit, error);
}

/* The reader above the fast path: events one at a time through json-c,
 * or the whole tree when the document is not plain. */
static TraceFile *
read_slow (const char *data, gsize length, const char *path, guint64 limit, GError **error)
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
  /* json-c refuses what is too large or not UTF-8 before any tree */
  if (length <= G_MAXINT && g_utf8_validate_len (data, length, NULL) &&
      !check_fallback (path, length, TRUE, limit, error))
    return NULL;
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

/* NULL with *gave_up when the fast path does not take the document, with
 * error set (and *gave_up FALSE) when the source could not be read. */
static TraceFile *
read_fast (Window *w, gsize length, const char *path, gboolean *gave_up, GError **error)
{
  g_autoptr (TraceFile) file = mp_trace_file_new (path, length);
  g_autoptr (GHashTable) threads = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GArray) stamped = g_array_new (FALSE, FALSE, sizeof (Stamped));
  g_autoptr (GArray) slices = g_array_new (FALSE, FALSE, sizeof (Slice));
  g_autoptr (GString) key = g_string_sized_new (32);
  Reader             r = { file, path, threads, stamped, slices, key, 0, 0, G_MAXUINT };
  g_autoptr (GError) local = NULL;
  gboolean           ok;

  for (guint k = 0; k < G_N_ELEMENTS (r.names); k++)
    r.names[k] = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  ok = fast_read (&r, w, &local) && attribute (&r, &local);
  for (guint k = 0; k < G_N_ELEMENTS (r.names); k++)
    g_hash_table_unref (r.names[k]);
  *gave_up = !ok && w->error == NULL;
  if (w->error)
    {
      g_propagate_error (error, g_steal_pointer (&w->error));
      return NULL;
    }
  if (!ok)
    return NULL;
  distribute (&r);
  return g_steal_pointer (&file);
}

TraceFile *
mp_trace_parse_chrome (const char *data, gsize length, const char *path, guint64 max_memory,
                       GError **error)
{
  Window     w = { NULL, NULL, NULL, (char *) data, length, length, TRUE };
  TraceFile *file;
  gboolean   gave_up = TRUE;

  if (fast_path && length <= G_MAXINT && (file = read_fast (&w, length, path, &gave_up, error)))
    return file;
  return gave_up ? read_slow (data, length, path, max_memory, error) : NULL;
}

typedef struct
{
  FILE       *in;
  const char *path;
} FileSource;

static gssize
read_from_file (gpointer data, guint8 *buf, gsize n, GError **error)
{
  FileSource *f = data;
  gsize       k = fread (buf, 1, n, f->in);

  if (k == 0 && ferror (f->in))
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_IO, f->path, "cannot read the file: %s",
                         g_strerror (errno));
      return -1;
    }
  return k;
}

/* Reads through a window (4 MiB); when the fast path gives up the file is
 * read whole, as before, for the reader above and its messages. */
static TraceFile *
read_stream (MpPickleRead read, gpointer source, gsize length, const char *path,
             guint64 max_memory, GError **error)
{
  g_autofree char *data = NULL;
  Window           w = { read, source, NULL, NULL, window_size, 0, FALSE };
  TraceFile       *file = NULL;
  gboolean         gave_up = TRUE;

  if (fast_path)
    {
      w.buf = g_malloc (w.cap);
      file = read_fast (&w, length, path, &gave_up, error);
      g_free (w.buf);
    }
  if (file || !gave_up)
    return file;
  if (!check_fallback (path, length, FALSE, max_memory, error) ||
      !mp_read_file (path, &data, &length, error))
    return NULL;
  return read_slow (data, length, path, max_memory, error);
}

TraceFile *
mp_trace_read_chrome (FILE *in, gsize length, const char *path, guint64 max_memory,
                      GError **error)
{
  FileSource source = { in, path };

  return read_stream (read_from_file, &source, length, path, max_memory, error);
}

TraceFile *
mp_trace_read_chrome_gzip (MpGzipReader *in, gsize length, const char *path,
                           guint64 max_memory, GError **error)
{
  return read_stream (mp_gzip_reader_read, in, length, path, max_memory, error);
}
