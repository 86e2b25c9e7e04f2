/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "file-util.h"
#include "graph-private.h"
#include "pickle.h"
#include "trace-private.h"

/* torch.cuda.memory._dump_snapshot(): a pickled dict whose "device_traces"
 * holds one list of entries per device (action, addr, size, stream,
 * time_us, frames) and whose "segments" lists the segments alive when the
 * snapshot was taken. */

#define MAX_FRAMES 32
#define MAX_NAME   256 /* bytes of a frame's name or file kept */

/* The entries a list took in while it was read (the pickle VM hands them
 * over one by one and forgets them): the events, and the index of the
 * first item it kept, which can only be a bad entry. */
typedef struct
{
  GArray  *events;
  guint    first_kept;
  gboolean kept;
} ListEntries;

/* A frame by the name and file string values it names (held, so their
 * addresses stay theirs) and its line, with its interned "name
 * (file:line)": a frame dict of its own per stack, as PyTorch writes them,
 * is formatted once, and found in one cache line (a GHashTable's key,
 * hash and value arrays were three misses a frame). */
typedef struct
{
  const MpPickleValue *name, *file;
  gint64               line;
  const char          *text;
} FrameSlot;

typedef struct
{
  FrameSlot *slots; /* open addressing, text NULL when free */
  guint      mask, n;
} FrameTable;

static void
frame_table_free (FrameTable *t)
{
  g_free (t->slots);
  g_free (t);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (FrameTable, frame_table_free)

typedef struct
{
  TraceFile  *file;
  const char *path;
  MpPickle   *pickle;
  GHashTable *lists;  /* list value (held) -> ListEntries */
  FrameTable *frames;
  GHashTable *stacks; /* StackKey -> interned stack text */
  GString    *text;   /* scratch: a text before it is interned */
  MpPickleValue *last_list; /* the list of the last entry taken, and its events */
  ListEntries   *last_entries;
} Reader;

/* A stack by its interned frame texts: hashing a few pointers, not the
 * kilobyte of text they join to. */
typedef struct
{
  guint       n;
  const char *frames[];
} StackKey;

static guint64
frame_hash (const FrameSlot *k)
{
  guint64 h = ((guintptr) k->name * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15)) ^
              ((guintptr) k->file * G_GUINT64_CONSTANT (0xc2b2ae3d27d4eb4f)) ^
              ((guint64) k->line * G_GUINT64_CONSTANT (0x165667b19e3779f9));

  return h ^ (h >> 29);
}

/* The slot of k, or the free one where it goes. */
static FrameSlot *
frame_slot (Reader *r, const FrameSlot *k)
{
  for (guint64 i = frame_hash (k);; i++)
    {
      FrameSlot *s = &r->frames->slots[i & r->frames->mask];

      if (s->text == NULL ||
          (s->name == k->name && s->file == k->file && s->line == k->line))
        return s;
    }
}

/* k (with its text) into a free slot, the table at most half full */
static void
frame_add (Reader *r, FrameSlot *free_slot, const FrameSlot *k)
{
  FrameTable *t = r->frames;

  *free_slot = *k;
  if (++t->n * 2 <= t->mask + 1)
    return;
  {
    FrameSlot *old = t->slots;
    guint      n = t->mask + 1;

    t->slots = g_new0 (FrameSlot, n * 2);
    t->mask = n * 2 - 1;
    for (guint i = 0; i < n; i++)
      if (old[i].text)
        *frame_slot (r, &old[i]) = old[i];
    g_free (old);
  }
}

static guint
stack_key_hash (gconstpointer p)
{
  const StackKey *k = p;
  guint64         h = k->n;

  for (guint i = 0; i < k->n; i++)
    h = (h ^ (guintptr) k->frames[i]) * G_GUINT64_CONSTANT (0x100000001b3);
  return (guint) (h ^ (h >> 32));
}

static gboolean
stack_key_equal (gconstpointer a, gconstpointer b)
{
  const StackKey *x = a, *y = b;

  return x->n == y->n && memcmp (x->frames, y->frames, x->n * sizeof x->frames[0]) == 0;
}

/* text's interned copy, made only when it is new */
static gboolean
intern_copy (Reader *r, const GString *text, const char **out, GError **error)
{
  if ((*out = g_hash_table_lookup (r->file->strings, text->str)) != NULL)
    return TRUE;
  return mp_trace_file_intern (r->file, g_strndup (text->str, text->len), out, error);
}

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

static gboolean
key_is (const MpPickleValue *k, const char *key, gsize len)
{
  return k->type == MP_PICKLE_STRING && k->len == len && memcmp (k->str, key, len) == 0;
}

/* A frame dict's "name", "filename" and "line" in one pass over its keys
 * (the first of equal keys, as mp_pickle_get finds); a frame is a few
 * keys, a big dict goes through mp_pickle_get's index. */
static void
frame_fields (const MpPickleValue *f, const MpPickleValue **name, const MpPickleValue **file,
              const MpPickleValue **line)
{
  *name = *file = *line = NULL;
  if (f->type != MP_PICKLE_DICT || f->items.len / 2 >= 8)
    {
      *name = mp_pickle_get (f, "name");
      *file = mp_pickle_get (f, "filename");
      *line = mp_pickle_get (f, "line");
      return;
    }
  for (guint i = 0; i + 1 < f->items.len; i += 2)
    {
      const MpPickleValue *k = f->items.pdata[i], *v = f->items.pdata[i + 1];

      if (!*name && key_is (k, "name", 4))
        *name = v;
      else if (!*file && key_is (k, "filename", 8))
        *file = v;
      else if (!*line && key_is (k, "line", 4))
        *line = v;
    }
}

/* "name (file:line)", interned: a frame dict the memo shares between
 * stacks is read once and leaves its text behind */
static gboolean
frame_text (Reader *r, MpPickleValue *f, const char **out, GError **error)
{
  const MpPickleValue *name, *file, *line;
  FrameSlot            key = { NULL, NULL, 0, NULL }, *slot;
  GString             *s = r->text;

  if (f->type == MP_PICKLE_CONSUMED)
    {
      *out = f->str ? f->str : "? (?:0)";
      return TRUE;
    }
  frame_fields (f, &name, &file, &line);
  key.name = name && name->type == MP_PICKLE_STRING ? name : NULL;
  key.file = file && file->type == MP_PICKLE_STRING ? file : NULL;
  key.line = line && line->type == MP_PICKLE_INT ? line->i : 0;
  slot = frame_slot (r, &key);
  if (!(*out = slot->text))
    {
      g_string_truncate (s, 0);
      g_string_append_len (s, key.name ? key.name->str : "?",
                           key.name ? strnlen (key.name->str, MAX_NAME) : 1);
      g_string_append (s, " (");
      g_string_append_len (s, key.file ? key.file->str : "?",
                           key.file ? strnlen (key.file->str, MAX_NAME) : 1);
      g_string_append_printf (s, ":%" G_GINT64_FORMAT ")", key.line);
      if (!intern_copy (r, s, out, error))
        return FALSE;
      if (key.name)
        mp_pickle_hold ((MpPickleValue *) key.name);
      if (key.file)
        mp_pickle_hold ((MpPickleValue *) key.file);
      key.text = *out;
      frame_add (r, slot, &key);
    }
  mp_pickle_consume (r->pickle, f, *out);
  return TRUE;
}

/* The interned text of a frames list, "name (file:line)" per frame,
 * innermost first, as the snapshot lists them: one shared list (a memo
 * reference) is formatted once, however many entries name it, and a
 * stack seen before is found by its frames' texts. */
static gboolean
frames_text (Reader *r, MpPickleValue *frames, const char **out, GError **error)
{
  guint     n = MIN (mp_pickle_len (frames), MAX_FRAMES);
  StackKey *key;

  *out = NULL;
  if (frames && frames->type == MP_PICKLE_CONSUMED)
    {
      *out = frames->str;
      return TRUE;
    }
  if (n == 0)
    return TRUE;
  key = g_alloca (sizeof (StackKey) + n * sizeof (const char *));
  key->n = n;
  for (guint i = 0; i < n; i++)
    if (!frame_text (r, (MpPickleValue *) mp_pickle_item (frames, i), &key->frames[i], error))
      return FALSE;
  if (!(*out = g_hash_table_lookup (r->stacks, key)))
    {
      g_string_truncate (r->text, 0);
      for (guint i = 0; i < n; i++)
        {
          if (i)
            g_string_append_c (r->text, '\n');
          g_string_append (r->text, key->frames[i]);
        }
      if (!intern_copy (r, r->text, out, error))
        return FALSE;
      g_hash_table_insert (r->stacks,
                           g_memdup2 (key, sizeof (StackKey) + n * sizeof (const char *)),
                           (gpointer) *out);
    }
  mp_pickle_consume (r->pickle, frames, *out);
  return TRUE;
}

/* A free's stack is not shown: its memory goes now. (PyTorch records a
 * free's stack apart from its allocation's, so no allocation names it.) */
static void
drop_frames (Reader *r, MpPickleValue *frames)
{
  if (frames == NULL || frames->type == MP_PICKLE_CONSUMED)
    return;
  for (guint i = 0; i < mp_pickle_len (frames); i++)
    mp_pickle_consume (r->pickle, (MpPickleValue *) mp_pickle_item (frames, i), NULL);
  mp_pickle_consume (r->pickle, frames, NULL);
}

static gboolean
parse_entry (Reader *r, const MpPickleValue *e, guint dev, guint index, GArray *events,
             GError **error)
{
  const char          *path = r->path;
  const MpPickleValue *action = mp_pickle_get (e, "action");
  TraceEvent           ev = { TRACE_OTHER, 0, 0, -1, { NULL } };

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
  for (guint i = 0; i < G_N_ELEMENTS (actions) && ev.action == TRACE_OTHER; i++)
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
  if (ev.size > MP_MAX_TENSOR_SIZE && (ev.action == TRACE_SEGMENT_ALLOC ||
                                       ev.action == TRACE_SEGMENT_FREE))
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                         "device_traces[%u][%u] (%s): a segment of %" G_GUINT64_FORMAT
                         " bytes is over the limit of 2^48 bytes (256 TiB)",
                         dev, index, action->str, ev.size);
      return FALSE;
    }
  /* a segment is allocated in its first block's call: the stack may be shared */
  if ((ev.action == TRACE_ALLOC || ev.action == TRACE_SEGMENT_ALLOC) &&
      !frames_text (r, (MpPickleValue *) mp_pickle_get (e, "frames"), &ev.site.frames, error))
    return FALSE;
  if (ev.action != TRACE_ALLOC && ev.action != TRACE_SEGMENT_ALLOC)
    drop_frames (r, (MpPickleValue *) mp_pickle_get (e, "frames"));
  g_array_append_val (events, ev);
  return TRUE;
}

static void
list_entries_free (gpointer data)
{
  ListEntries *l = data;

  g_array_unref (l->events);
  g_free (l);
}

/* The events of the list an entry is in, made at its first entry. */
static ListEntries *
list_entries (Reader *r, MpPickleValue *list)
{
  ListEntries *l;

  if (list == r->last_list)
    return r->last_entries;
  l = g_hash_table_lookup (r->lists, list);
  if (l == NULL)
    {
      l = g_new0 (ListEntries, 1);
      l->events = g_array_new (FALSE, FALSE, sizeof (TraceEvent));
      g_hash_table_insert (r->lists, mp_pickle_hold (list), l);
    }
  r->last_list = list;
  r->last_entries = l;
  return l;
}

/* The pickle VM's sink: entries (dicts with an "action") become events as
 * they are read, in whichever list they are (the device lists are known
 * only once the whole dict is). */
static MpPickleSinkResult
take_entry (MpPickle *pickle, MpPickleValue *list, guint index, MpPickleValue *item,
            gpointer data, GError **error)
{
  Reader      *r = data;
  ListEntries *l;

  r->pickle = pickle;
  if (item->type == MP_PICKLE_TAKEN_ITEM)
    {
      const ListEntries *from = item->took.owner;

      /* an entry named again (a memo reference): its event again */
      if (from == NULL)
        return MP_PICKLE_KEEP;
      if (item->took.id < from->events->len)
        {
          /* a copy: from may be l, whose array may move */
          TraceEvent ev = g_array_index (from->events, TraceEvent, item->took.id);

          g_array_append_val (list_entries (r, list)->events, ev);
        }
      return MP_PICKLE_TAKEN;
    }
  if (item->type != MP_PICKLE_DICT || !mp_pickle_get (item, "action"))
    {
      /* before any entry was taken, the item's place in the list is its index;
       * a list no entry was taken from has no events */
      if (list->taken > 0 && (l = g_hash_table_lookup (r->lists, list)) && !l->kept)
        {
          l->first_kept = index;
          l->kept = TRUE;
        }
      return MP_PICKLE_KEEP;
    }
  l = list_entries (r, list);
  /* the device's number is its list's place in device_traces, known at
   * the end; an error here names the lists in the order they began */
  if (!parse_entry (r, item, g_hash_table_size (r->lists) - 1, index, l->events, error))
    return MP_PICKLE_FAILED;
  mp_pickle_take (pickle, item, l, l->events->len - 1);
  return MP_PICKLE_TAKEN;
}

static gint
compare_ranges (gconstpointer a, gconstpointer b)
{
  const MpTraceRange *x = a, *y = b;

  return x->address < y->address ? -1 : x->address > y->address;
}

/* Blocks the segment holds at the snapshot's end (live ones only). Blocks
 * without an address follow each other from the segment's start, as
 * PyTorch's profile-to-snapshot conversion writes them. */
static gboolean
parse_blocks (const MpPickleValue *s, guint i, const MpTraceRange *segment, const char *path,
              TraceDevice *d, GError **error)
{
  const MpPickleValue *blocks = mp_pickle_get (s, "blocks");
  guint64              next = segment->address;

  for (guint b = 0; b < mp_pickle_len (blocks); b++)
    {
      const MpPickleValue *block = mp_pickle_item (blocks, b);
      const MpPickleValue *state = mp_pickle_get (block, "state");
      MpTraceRange         r = { next, 0, 0 };

      if (mp_pickle_get (block, "address") == NULL)
        d->converted = TRUE;
      if ((!d->converted && !get_u64 (block, "address", &r.address)) ||
          !get_u64 (block, "size", &r.size) ||
          r.address < segment->address || r.size > segment->size ||
          r.address - segment->address > segment->size - r.size)
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                             "segments[%u].blocks[%u] is not a block inside its segment (an "
                             "\"address\" and a \"size\" within [0x%" G_GINT64_MODIFIER "x, +%"
                             G_GUINT64_FORMAT "))",
                             i, b, segment->address, segment->size);
          return FALSE;
        }
      next = r.address + r.size;
      if (state && state->type == MP_PICKLE_STRING &&
          (g_str_equal (state->str, "active_allocated") ||
           g_str_equal (state->str, "active_pending_free")))
        g_array_append_val (d->blocks, r);
    }
  return TRUE;
}

/* The segments alive at the end: each within the limits, none
 * overlapping another of its device. */
static gboolean
parse_segments (const MpPickleValue *segments, const char *path, TraceFile *file,
                GError **error)
{
  for (guint i = 0; i < mp_pickle_len (segments); i++)
    {
      const MpPickleValue *s = mp_pickle_item (segments, i);
      MpTraceRange         r = { 0 };
      guint64              device;
      g_autofree char     *name = NULL;
      const char          *bad = NULL;
      TraceDevice         *d;

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
      if (r.size > MP_MAX_TENSOR_SIZE)
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                             "segments[%u]: a segment of %" G_GUINT64_FORMAT " bytes is over "
                             "the limit of 2^48 bytes (256 TiB)",
                             i, r.size);
          return FALSE;
        }
      name = g_strdup_printf ("cuda:%" G_GUINT64_FORMAT, device);
      d = mp_trace_file_device (file, name);
      if (!parse_blocks (s, i, &r, path, d, error))
        return FALSE;
      if (!d->converted)
        g_array_append_val (d->segments, r);
    }
  for (guint k = 0; k < file->devices->len; k++)
    {
      TraceDevice *d = file->devices->pdata[k];

      g_array_sort (d->segments, compare_ranges);
      for (guint i = 1; i < d->segments->len; i++)
        {
          const MpTraceRange *a = &g_array_index (d->segments, MpTraceRange, i - 1);
          const MpTraceRange *b = &g_array_index (d->segments, MpTraceRange, i);

          if (b->address - a->address < a->size)
            {
              mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                                 "%s: the segments at 0x%" G_GINT64_MODIFIER "x (%"
                                 G_GUINT64_FORMAT " bytes) and 0x%" G_GINT64_MODIFIER "x "
                                 "overlap; a snapshot's segments never do",
                                 d->name, a->address, a->size, b->address);
              return FALSE;
            }
        }
    }
  return TRUE;
}

typedef struct
{
  const char  *data; /* the whole input, or NULL: read from in or by read */
  gsize        length;
  FILE        *in;
  const char  *path;
  MpPickleRead read; /* NULL: read_input */
  gpointer     read_data;
} Input;

static gssize
read_input (gpointer data, guint8 *buf, gsize n, GError **error)
{
  Input *input = data;
  gsize  got = fread (buf, 1, n, input->in);

  if (got == 0 && ferror (input->in))
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_IO, input->path, "cannot read the file: %s",
                         g_strerror (errno));
      return -1;
    }
  return got;
}

static TraceFile *
read_snapshot (Input *input, const char *path, GError **error)
{
  g_autoptr (MpPickle)   pickle = NULL;
  g_autoptr (TraceFile)  file = mp_trace_file_new (path, input->length);
  g_autoptr (GHashTable) lists = g_hash_table_new_full (NULL, NULL, NULL, list_entries_free);
  g_autoptr (FrameTable) frames = g_new0 (FrameTable, 1);
  g_autoptr (GHashTable) stacks = g_hash_table_new_full (stack_key_hash, stack_key_equal, g_free,
                                                         NULL);
  g_autoptr (GString)    text = g_string_new (NULL);
  Reader                 r = { file, path, NULL, lists, frames, stacks, text };
  const MpPickleValue  *root, *traces, *segments;

  frames->slots = g_new0 (FrameSlot, 256);
  frames->mask = 255;
  if (input->data)
    pickle = mp_pickle_parse_stream (input->data, input->length, path, take_entry, &r, error);
  else
    pickle = mp_pickle_parse_source (input->read ? input->read : read_input,
                                     input->read ? input->read_data : input, input->length, path,
                                     take_entry, &r, error);
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

  for (guint dev = 0; dev < mp_pickle_len (traces); dev++)
    {
      const MpPickleValue *list = mp_pickle_item (traces, dev);
      g_autofree char     *name = g_strdup_printf ("cuda:%u", dev);
      TraceDevice         *d = mp_trace_file_device (file, name);
      ListEntries         *l = g_hash_table_lookup (lists, list);

      if (list->type != MP_PICKLE_LIST)
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                             "device_traces[%u] must be a list of entries, found %s", dev,
                             mp_pickle_type_name (list));
          return NULL;
        }
      if (l)
        g_array_append_vals (d->events, l->events->data, l->events->len);
      /* what the sink left: only bad entries */
      for (guint i = 0; i < mp_pickle_len (list); i++)
        if (!parse_entry (&r, mp_pickle_item (list, i), dev, l && l->kept ? l->first_kept : i,
                          d->events, error))
          return NULL;
    }
  if (segments && !parse_segments (segments, path, file, error))
    return NULL;
  return g_steal_pointer (&file);
}

TraceFile *
mp_trace_parse_snapshot (const char *data, gsize length, const char *path, GError **error)
{
  Input input = { data, length, NULL, path, NULL, NULL };

  return read_snapshot (&input, path, error);
}

TraceFile *
mp_trace_read_snapshot (FILE *in, gsize length, const char *path, GError **error)
{
  Input input = { NULL, length, in, path, NULL, NULL };

  return read_snapshot (&input, path, error);
}

TraceFile *
mp_trace_read_snapshot_gzip (MpGzipReader *in, gsize length, const char *path, GError **error)
{
  Input input = { NULL, length, NULL, path, mp_gzip_reader_read, in };

  return read_snapshot (&input, path, error);
}
