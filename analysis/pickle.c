/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <string.h>

#include "graph-private.h"
#include "pickle.h"

#define POOL_FIRST   4
#define POOL_CLASSES 7 /* 4 to 256 pointers */
#define POOL_MAX     (POOL_FIRST << (POOL_CLASSES - 1))

struct _MpPickle
{
  GPtrArray     *slabs;  /* arrays of values, slab_size (i) each: every value, what the
                          * memo shares even in cycles, freed with the pickle */
  /* slots of the slabs free for reuse, an array rather than a list through
   * them: taking one reads nothing of the value, whose memory may be cold */
  MpPickleValue **free_values;
  guint           n_free, free_cap;
  MpPickleValue *root;
  gpointer       reader; /* while parsing */
  MpPickleValue **work;  /* value_unref's, kept between calls */
  guint           work_cap;
  /* item arrays of POOL_FIRST << c pointers put back, linked through their
   * first pointer: a snapshot makes and drops one per frame dict, tens of
   * millions, and malloc's own bookkeeping was a tenth of the time */
  gpointer        pool[POOL_CLASSES];
};

/* A MARK: the stack's length when it was pushed, how many of the items
 * above it are stand-ins for entries a sink took before their APPENDS, and
 * the places below which the sink was shown them. */
typedef struct
{
  guint    from;
  guint    stand_ins;
  guint    offered_to;
  gboolean in_list; /* a list below it: only then is anything offered early (a
                     * value below a MARK stays until the MARK goes) */
} Mark;

typedef struct
{
  MpPickle      *pickle;
  const guint8  *data;   /* the bytes at hand: the whole input, or a window on a source */
  gsize          length; /* bytes at hand */
  gsize          pos;    /* in data */
  gsize          base;   /* the input's byte at data[0] */
  gsize          total;  /* the input's size, for limits and messages */
  MpPickleRead   read;   /* a source, or NULL when data is the whole input */
  gpointer       read_data;
  guint8        *window;
  gsize          window_size;
  gboolean       eof;
  gsize          op_pos; /* where the current opcode starts, in the input */
  guint8         op;
  const char    *path;
  MpPickleValue **stack; /* borrowed */
  guint          stack_len, stack_cap;
  Mark          *marks;
  guint          n_marks, marks_cap;
  gpointer      *memo;   /* index -> value, or a consumed value's text tagged (MEMO_TEXT) */
  guint          memo_len, memo_cap;
  GHashTable    *memo_far; /* index -> value, for indices past the array */
  guint64        memo_count; /* slots filled: MEMOIZE's next index */
  guint64        copies_left; /* items REDUCE may still copy */
  MpPickleSink   sink;
  gpointer       sink_data;
} Reader;

/* Memo slots of consumed values hold their text with the low bit set (the
 * texts are malloc'd, so the bit is free): one word, not a value. */
#define MEMO_TEXT(text)     ((gpointer) ((guintptr) (text) | 1))
#define MEMO_IS_TEXT(slot)  (((guintptr) (slot)) & 1)
#define MEMO_TEXT_OF(slot)  ((const char *) ((guintptr) (slot) & ~(guintptr) 1))
/* Indices Python writes count up from 0; others go to the hash table. */
#define MEMO_ARRAY_SLACK 4096

/* Values come from slabs, not one malloc each: a snapshot makes and drops
 * tens of millions of them. The first slabs are small (a fuzzer's input
 * of a few bytes should not pay for 4096 values), each twice the last. */
#define SLAB_FIRST 16
#define SLAB_MAX   4096

static guint
slab_size (guint index)
{
  return index >= 8 ? SLAB_MAX : SLAB_FIRST << index;
}

/* Dicts this big are looked up through a hash index, not a scan. */
#define INDEX_FROM 16

static gboolean
is_container (const MpPickleValue *v)
{
  return v->type == MP_PICKLE_LIST || v->type == MP_PICKLE_TUPLE || v->type == MP_PICKLE_DICT;
}

/* The class of an item array's capacity, a power of two up to POOL_MAX. */
static inline guint
pool_class (guint cap)
{
  return g_bit_storage (cap / POOL_FIRST) - 1; /* a builtin, unlike g_bit_nth_msf */
}

static void
items_release (MpPickle *pickle, MpPickleItems *items)
{
  if (items->cap > POOL_MAX || items->pdata == NULL)
    {
      g_free (items->pdata);
      return;
    }
  *(gpointer *) items->pdata = pickle->pool[pool_class (items->cap)];
  pickle->pool[pool_class (items->cap)] = items->pdata;
}

/* Room for need items in all: pooled arrays up to POOL_MAX, growing by
 * doubling past it. */
static void
items_reserve (MpPickle *pickle, MpPickleItems *items, guint need)
{
  MpPickleItems old = *items;
  guint         cap;

  if (need <= items->cap)
    return;
  if (need > POOL_MAX)
    {
      cap = MAX (need, items->cap * 2);
      if (old.cap > POOL_MAX)
        {
          items->pdata = g_renew (MpPickleValue *, items->pdata, cap);
          items->cap = cap;
          return;
        }
      items->pdata = g_new (MpPickleValue *, cap);
    }
  else
    {
      guint c;

      cap = MAX (need, POOL_FIRST);
      cap = 1u << g_bit_storage (cap - 1);
      c = pool_class (cap);
      if (pickle->pool[c])
        {
          items->pdata = pickle->pool[c];
          pickle->pool[c] = *(gpointer *) items->pdata;
        }
      else
        items->pdata = g_new (MpPickleValue *, cap);
    }
  items->cap = cap;
  if (old.len)
    memcpy (items->pdata, old.pdata, old.len * sizeof (MpPickleValue *));
  items_release (pickle, &old);
}

/* Frees what v holds, not its items (values of their own). */
static void
value_clear (MpPickle *pickle, MpPickleValue *v)
{
  if (v->type == MP_PICKLE_STRING || v->type == MP_PICKLE_GLOBAL)
    g_free (v->str);
  else if (is_container (v))
    items_release (pickle, &v->items);
  g_clear_pointer (&v->index, g_hash_table_unref);
}

/* Frees v alone, its slot back to the slabs' free list. */
static void
value_free (MpPickle *pickle, MpPickleValue *v)
{
  value_clear (pickle, v);
  v->type = MP_PICKLE_FREE;
  pickle->free_values[pickle->n_free++] = v;
}

static MpPickleValue *
value_ref (MpPickleValue *v)
{
  v->ref_count++;
  return v;
}

/* Drops a reference; what nothing holds any more goes, its items with it
 * (without recursion: a list may nest a million deep). */
static void
value_unref (MpPickle *pickle, MpPickleValue *v)
{
  guint n = 0;

  if (--v->ref_count > 0)
    return;
  if (!is_container (v) || v->items.len == 0)
    {
      value_free (pickle, v);
      return;
    }
  if (pickle->work == NULL)
    {
      pickle->work_cap = 64;
      pickle->work = g_new (MpPickleValue *, pickle->work_cap);
    }
  pickle->work[n++] = v;
  while (n)
    {
      MpPickleValue *w = pickle->work[--n];

      if (is_container (w))
        {
          /* a container is on the list once, so its items fit beside it */
          if (G_UNLIKELY (pickle->work_cap - n < w->items.len))
            {
              pickle->work_cap = MAX (pickle->work_cap * 2, n + w->items.len);
              pickle->work = g_renew (MpPickleValue *, pickle->work, pickle->work_cap);
            }
          for (guint i = 0; i < w->items.len; i++)
            {
              MpPickleValue *item = w->items.pdata[i];

              if (--item->ref_count == 0)
                pickle->work[n++] = item;
            }
        }
      value_free (pickle, w);
    }
}

void
mp_pickle_free (MpPickle *pickle)
{
  if (pickle == NULL)
    return;
  for (guint i = 0; pickle->slabs && i < pickle->slabs->len; i++)
    {
      MpPickleValue *slab = pickle->slabs->pdata[i];

      for (guint k = 0; k < slab_size (i); k++)
        if (slab[k].type != MP_PICKLE_FREE)
          value_clear (pickle, &slab[k]);
    }
  for (guint c = 0; c < POOL_CLASSES; c++)
    while (pickle->pool[c])
      {
        gpointer next = *(gpointer *) pickle->pool[c];

        g_free (pickle->pool[c]);
        pickle->pool[c] = next;
      }
  g_clear_pointer (&pickle->slabs, g_ptr_array_unref);
  g_free (pickle->work);
  g_free (pickle->free_values);
  g_free (pickle);
}

MpPickleValue *
mp_pickle_hold (MpPickleValue *value)
{
  return value_ref (value);
}

const MpPickleValue *
mp_pickle_root (const MpPickle *pickle)
{
  return pickle->root;
}

static inline void
items_add (MpPickle *pickle, MpPickleItems *items, MpPickleValue *item)
{
  if (G_UNLIKELY (items->len == items->cap))
    items_reserve (pickle, items, items->len + 1);
  items->pdata[items->len++] = item;
}

static MpPickleValue *
new_value (Reader *r, MpPickleType type)
{
  MpPickle      *pickle = r->pickle;
  MpPickleValue *v;

  if (G_UNLIKELY (pickle->n_free == 0))
    {
      guint          size;
      MpPickleValue *slab;

      if (pickle->slabs == NULL)
        pickle->slabs = g_ptr_array_new_with_free_func (g_free);
      size = slab_size (pickle->slabs->len);
      slab = g_new (MpPickleValue, size);
      g_ptr_array_add (pickle->slabs, slab);
      /* room for every slot to be free at once: value_free never grows it */
      pickle->free_cap += size;
      pickle->free_values = g_renew (MpPickleValue *, pickle->free_values, pickle->free_cap);
      for (guint i = size; i-- > 0;)
        {
          slab[i].type = MP_PICKLE_FREE;
          pickle->free_values[pickle->n_free++] = &slab[i];
        }
    }
  v = pickle->free_values[--pickle->n_free];
  memset (v, 0, sizeof *v);
  v->type = type;
  v->ref_count = 1;
  return v;
}

static gboolean
fail (Reader *r, GError **error, const char *format, ...) G_GNUC_PRINTF (3, 4);

static gboolean
fail (Reader *r, GError **error, const char *format, ...)
{
  va_list          args;
  g_autofree char *msg = NULL;

  va_start (args, format);
  msg = g_strdup_vprintf (format, args);
  va_end (args);
  mp_set_file_error (error, MP_ANALYSIS_ERROR_PARSE, r->path, "pickle: %s", msg);
  return FALSE;
}

/* Reads from the source until n bytes are at hand or it ends; the window
 * grows only as bytes arrive, so a length field cannot reserve memory. */
static gboolean
fill_window (Reader *r, gsize n, GError **error)
{
  while (r->read && !r->eof && n > r->length - r->pos)
    {
      gssize got;

      if (r->pos > 0)
        {
          memmove (r->window, r->window + r->pos, r->length - r->pos);
          r->base += r->pos;
          r->length -= r->pos;
          r->pos = 0;
        }
      if (r->length == r->window_size)
        {
          r->window_size = MAX (r->window_size * 2, 1 << 20);
          r->window = g_realloc (r->window, r->window_size);
        }
      got = r->read (r->read_data, r->window + r->length, r->window_size - r->length, error);
      if (got < 0)
        return FALSE;
      r->eof = got == 0;
      r->length += got;
      r->data = r->window;
    }
  return TRUE;
}

/* the common case, bytes at hand, without a call */
static inline gboolean
fill (Reader *r, gsize n, GError **error)
{
  return G_LIKELY (n <= r->length - r->pos) || fill_window (r, n, error);
}

static gboolean
take_slow (Reader *r, gsize n, const guint8 **out, GError **error)
{
  if (!fill_window (r, n, error))
    return FALSE;
  if (n > r->length - r->pos)
    {
      if (n > 16)
        return fail (r, error,
                     "opcode 0x%02x at byte %" G_GSIZE_FORMAT " asks for %" G_GSIZE_FORMAT
                     " bytes but only %" G_GSIZE_FORMAT " remain",
                     r->op, r->op_pos, n, r->length - r->pos);
      return fail (r, error, "the file is truncated inside opcode 0x%02x at byte %"
                   G_GSIZE_FORMAT, r->op, r->op_pos);
    }
  *out = r->data + r->pos;
  r->pos += n;
  return TRUE;
}

/* n bytes of the input, at hand without a call in the common case */
static inline gboolean
take (Reader *r, gsize n, const guint8 **out, GError **error)
{
  if (G_LIKELY (n <= r->length - r->pos))
    {
      *out = r->data + r->pos;
      r->pos += n;
      return TRUE;
    }
  return take_slow (r, n, out, error);
}

static const guint8 *
find_newline (Reader *r, GError **error)
{
  const guint8 *nl;

  while (!(nl = memchr (r->data + r->pos, '\n', r->length - r->pos)))
    if (!r->read || r->eof || !fill (r, r->length - r->pos + 1, error))
      return NULL;
  return nl;
}

static inline gboolean
take_uint (Reader *r, guint n, guint64 *value, GError **error)
{
  const guint8 *p;

  if (!take (r, n, &p, error))
    return FALSE;
  *value = 0;
  for (guint i = n; i-- > 0;)
    *value = (*value << 8) | p[i];
  return TRUE;
}

static gboolean
take_line (Reader *r, char **line, GError **error)
{
  const guint8 *nl = find_newline (r, error);

  if (nl == NULL && error && *error)
    return FALSE;
  if (nl == NULL)
    return fail (r, error, "the file is truncated inside opcode 0x%02x at byte %" G_GSIZE_FORMAT,
                 r->op, r->op_pos);
  *line = g_strndup ((const char *) r->data + r->pos, nl - (r->data + r->pos));
  r->pos = nl - r->data + 1;
  return TRUE;
}

static inline void
push (Reader *r, MpPickleValue *v)
{
  if (G_UNLIKELY (r->stack_len == r->stack_cap))
    {
      r->stack_cap = MAX (64, r->stack_cap * 2);
      r->stack = g_renew (MpPickleValue *, r->stack, r->stack_cap);
    }
  r->stack[r->stack_len++] = v;
}

static inline guint
mark_floor (const Reader *r)
{
  return r->n_marks ? r->marks[r->n_marks - 1].from : 0;
}
static MpPickleValue *
pop (Reader *r, GError **error)
{
  guint floor = mark_floor (r);

  if (r->stack_len <= floor)
    {
      fail (r, error, "opcode 0x%02x at byte %" G_GSIZE_FORMAT " pops an empty stack", r->op,
            r->op_pos);
      return NULL;
    }
  return r->stack[--r->stack_len];
}

static MpPickleValue *
top (Reader *r, GError **error)
{
  guint floor = mark_floor (r);

  if (r->stack_len <= floor)
    {
      fail (r, error, "opcode 0x%02x at byte %" G_GSIZE_FORMAT " needs a value on the stack",
            r->op, r->op_pos);
      return NULL;
    }
  return r->stack[r->stack_len - 1];
}

/* Items above the last MARK, removing them and the mark. */
static gboolean
pop_mark (Reader *r, guint *from, GError **error)
{
  if (r->n_marks == 0)
    return fail (r, error, "opcode 0x%02x at byte %" G_GSIZE_FORMAT " has no MARK before it",
                 r->op, r->op_pos);
  *from = r->marks[--r->n_marks].from;
  return TRUE;
}

static gboolean
expect (Reader *r, const MpPickleValue *v, MpPickleType type, const char *what, GError **error)
{
  if (v->type != type)
    return fail (r, error, "opcode 0x%02x at byte %" G_GSIZE_FORMAT " expects %s, found %s",
                 r->op, r->op_pos, what, mp_pickle_type_name (v));
  return TRUE;
}

static void
append_items (Reader *r, MpPickleValue *container, guint from)
{
  MpPickleItems *items = &container->items;
  guint          n = r->stack_len - from;

  items_reserve (r->pickle, items, items->len + n);
  if (n == 0) /* pdata may be NULL: memcpy's pointers must not be */
    return;
  memcpy (items->pdata + items->len, r->stack + from, n * sizeof (MpPickleValue *));
  items->len += n;
  r->stack_len = from;
}

/* An item appended to a list, which a sink may take instead. */
static gboolean
add_to_list (Reader *r, MpPickleValue *list, MpPickleValue *item, GError **error)
{
  if (r->sink)
    switch (r->sink (r->pickle, list, list->taken + list->items.len, item, r->sink_data,
                     error))
      {
      case MP_PICKLE_FAILED:
        return FALSE;
      case MP_PICKLE_TAKEN:
        list->taken++;
        mp_pickle_consume (r->pickle, item, NULL);
        value_unref (r->pickle, item);
        return TRUE;
      case MP_PICKLE_KEEP:
        break;
      }
  items_add (r->pickle, &list->items, item);
  return TRUE;
}

/* APPENDS: the items above the mark at from, in order, but for the
 * stand-ins of those the sink took already. */
static gboolean
append_to_list (Reader *r, MpPickleValue *list, guint from, GError **error)
{
  for (guint i = from; i < r->stack_len; i++)
    {
      MpPickleValue *item = r->stack[i];

      if (item->type == MP_PICKLE_TAKEN_ITEM && item->taken > 0)
        {
          /* its place, taken early: the memo forgets it now, as it would
           * have here */
          item->taken--;
          mp_pickle_consume (r->pickle, item, NULL);
          value_unref (r->pickle, item);
        }
      else if (item->offered && item->type == MP_PICKLE_DICT)
        items_add (r->pickle, &list->items, item); /* the sink kept it already */
      else if (!add_to_list (r, list, item, error))
        return FALSE;
    }
  r->stack_len = from;
  return TRUE;
}

/* A dict on the stack above a list's MARK, with another item begun above
 * it, is shown to the sink now rather than at the APPENDS up to 1000 items
 * later, while its values are still in the cache. An entry the sink takes
 * stays in its place as MP_PICKLE_TAKEN_ITEM, which APPENDS skips, so an opcode
 * that pops it (a tuple of two dicts in a list) still finds the stack
 * Python would, and the memo keeps it until then for references to it. */
static gboolean
offer_early (Reader *r, GError **error)
{
  Mark          *m = &r->marks[r->n_marks - 1];
  guint          p = r->stack_len - 2, before;
  MpPickleValue *list, *item;

  if (m->from == 0 || r->stack_len < m->from + 2 || p < m->offered_to)
    return TRUE;
  m->offered_to = p + 1;
  list = r->stack[m->from - 1];
  item = r->stack[p];
  /* a dict, or an entry taken already that the memo names again here */
  if (list->type != MP_PICKLE_LIST ||
      !((item->type == MP_PICKLE_DICT && !item->offered) || item->type == MP_PICKLE_TAKEN_ITEM))
    return TRUE;
  item->offered = TRUE;
  /* the items before it that the list will hold (a stand-in popped since
   * may leave the count high: then the index is only low) */
  before = p - m->from > m->stand_ins ? p - m->from - m->stand_ins : 0;
  switch (r->sink (r->pickle, list, list->taken + list->items.len + before, item, r->sink_data,
                   error))
    {
    case MP_PICKLE_FAILED:
      return FALSE;
    case MP_PICKLE_TAKEN:
      list->taken++;
      if (item->type != MP_PICKLE_TAKEN_ITEM)
        mp_pickle_take (r->pickle, item, NULL, 0);
      item->taken++;
      m->stand_ins++;
      break;
    case MP_PICKLE_KEEP: /* a dict kept is not asked again at APPENDS */
      break;
    }
  return TRUE;
}

/* Little-endian two's complement of n bytes (LONG1, LONG4). */
static MpPickleValue *
long_value (Reader *r, const guint8 *p, gsize n)
{
  MpPickleValue *v;
  gboolean       negative = n > 0 && (p[n - 1] & 0x80);
  guint64        u = 0;

  for (gsize i = n; i > 8; i--)
    if (p[i - 1] != (negative ? 0xff : 0x00))
      return new_value (r, MP_PICKLE_BIGINT);
  for (gsize i = MIN (n, 8); i-- > 0;)
    u = (u << 8) | p[i];
  if (n < 8 && negative)
    u |= G_MAXUINT64 << (8 * n);
  /* the sign must survive the truncation to 8 bytes */
  if (n >= 8 && ((u >> 63) != 0) != negative)
    return new_value (r, MP_PICKLE_BIGINT);
  v = new_value (r, MP_PICKLE_INT);
  v->i = (gint64) u;
  return v;
}

static MpPickleValue *
string_value (Reader *r, const guint8 *p, gsize n)
{
  MpPickleValue *v = new_value (r, MP_PICKLE_STRING);

  v->str = g_strndup ((const char *) p, n);
  v->len = n;
  return v;
}

/* GLOBAL / STACK_GLOBAL: only the plain container types. */
static gboolean
global (Reader *r, const char *module, const char *name, GError **error)
{
  static const char *allowed[][2] = {
    { "builtins", "dict" }, { "builtins", "list" }, { "builtins", "tuple" },
    { "builtins", "set" }, { "builtins", "frozenset" }, { "__builtin__", "dict" },
    { "__builtin__", "list" }, { "__builtin__", "set" }, { "__builtin__", "frozenset" },
    { "collections", "OrderedDict" },
  };
  MpPickleValue *v;

  for (guint i = 0; i < G_N_ELEMENTS (allowed); i++)
    if (g_str_equal (module, allowed[i][0]) && g_str_equal (name, allowed[i][1]))
      {
        v = new_value (r, MP_PICKLE_GLOBAL);
        v->str = g_strdup (name);
        push (r, v);
        return TRUE;
      }
  return fail (r, error, "global '%s.%s' at byte %" G_GSIZE_FORMAT " is not allowed: only plain "
               "containers (dict, list, tuple, set) are read and nothing in the file is run",
               module, name, r->op_pos);
}

/* REDUCE of an allowed container type: dict(), list(x), OrderedDict(), … */
static gboolean
reduce (Reader *r, GError **error)
{
  MpPickleValue *args = pop (r, error), *callable, *v;

  if (args == NULL || (callable = pop (r, error)) == NULL)
    return FALSE;
  if (callable->type != MP_PICKLE_GLOBAL)
    return fail (r, error, "REDUCE at byte %" G_GSIZE_FORMAT " calls a %s; only container "
                 "types may be called", r->op_pos, mp_pickle_type_name (callable));
  if (!expect (r, args, MP_PICKLE_TUPLE, "an argument tuple", error))
    return FALSE;
  if (g_str_equal (callable->str, "dict") || g_str_equal (callable->str, "OrderedDict"))
    v = new_value (r, MP_PICKLE_DICT);
  else
    v = new_value (r, g_str_equal (callable->str, "tuple") ? MP_PICKLE_TUPLE : MP_PICKLE_LIST);
  if (args->items.len > 1)
    return fail (r, error, "REDUCE at byte %" G_GSIZE_FORMAT " passes %u arguments to %s",
                 r->op_pos, args->items.len, callable->str);
  if (args->items.len == 1)
    {
      MpPickleValue *src = args->items.pdata[0];

      /* a list or set built from another copies its items: a few bytes
       * calling list(x) again and again would copy without end */
      if (src->type == MP_PICKLE_LIST || src->type == MP_PICKLE_TUPLE)
        {
          if (src->items.len > r->copies_left)
            return fail (r, error, "REDUCE at byte %" G_GSIZE_FORMAT " copies %u items, more than "
                         "a file of %" G_GSIZE_FORMAT " bytes may (%d per byte of input): the "
                         "file amplifies itself", r->op_pos, src->items.len, r->total,
                         MP_PICKLE_COPIES_PER_BYTE);
          r->copies_left -= src->items.len;
        }

      if (src->type != MP_PICKLE_LIST && src->type != MP_PICKLE_TUPLE)
        return fail (r, error, "REDUCE at byte %" G_GSIZE_FORMAT " builds %s from a %s",
                     r->op_pos, callable->str, mp_pickle_type_name (src));
      if (v->type == MP_PICKLE_DICT)
        {
          /* dict([(k, v), …]) */
          for (guint i = 0; i < src->items.len; i++)
            {
              MpPickleValue *pair = src->items.pdata[i];

              if (pair->type != MP_PICKLE_TUPLE || pair->items.len != 2)
                return fail (r, error, "REDUCE at byte %" G_GSIZE_FORMAT " builds a dict from "
                             "something other than pairs", r->op_pos);
              items_add (r->pickle, &v->items, value_ref (pair->items.pdata[0]));
              items_add (r->pickle, &v->items, value_ref (pair->items.pdata[1]));
            }
        }
      else
        for (guint i = 0; i < src->items.len; i++)
          items_add (r->pickle, &v->items, value_ref (src->items.pdata[i]));
    }
  push (r, v);
  value_unref (r->pickle, args);
  value_unref (r->pickle, callable);
  return TRUE;
}

static void
memo_slot_clear (Reader *r, gpointer old)
{
  if (old && !MEMO_IS_TEXT (old))
    {
      ((MpPickleValue *) old)->memo_slot = 0;
      value_unref (r->pickle, old);
    }
}

static gboolean
memo_put (Reader *r, guint64 index, GError **error)
{
  MpPickleValue *v = top (r, error);
  gpointer       old = NULL;

  if (v == NULL)
    return FALSE;
  if (index < r->memo_len)
    {
      old = r->memo[index];
      memo_slot_clear (r, old);
      r->memo[index] = value_ref (v);
      v->memo_slot = index + 1;
    }
  else if (index == r->memo_len)
    {
      if (G_UNLIKELY (r->memo_len == r->memo_cap))
        {
          r->memo_cap = MAX (1024, r->memo_cap * 2);
          r->memo = g_renew (gpointer, r->memo, r->memo_cap);
        }
      r->memo[r->memo_len++] = value_ref (v);
      v->memo_slot = index + 1;
    }
  else
    {
      old = g_hash_table_lookup (r->memo_far, GSIZE_TO_POINTER ((gsize) index));
      if (old)
        value_unref (r->pickle, old);
      g_hash_table_insert (r->memo_far, GSIZE_TO_POINTER ((gsize) index), value_ref (v));
    }
  if (old == NULL)
    r->memo_count++;
  return TRUE;
}

static gboolean
memo_get (Reader *r, guint64 index, GError **error)
{
  gpointer slot = index < r->memo_len ? r->memo[index]
                  : g_hash_table_lookup (r->memo_far, GSIZE_TO_POINTER ((gsize) index));
  MpPickleValue *v;

  if (slot == NULL)
    return fail (r, error, "memo entry %" G_GUINT64_FORMAT " read at byte %" G_GSIZE_FORMAT
                 " was never stored", index, r->op_pos);
  if (MEMO_IS_TEXT (slot))
    {
      v = new_value (r, MP_PICKLE_CONSUMED);
      v->str = (char *) MEMO_TEXT_OF (slot);
      push (r, v);
      return TRUE;
    }
  push (r, value_ref (slot));
  return TRUE;
}

void
mp_pickle_take (MpPickle *pickle, MpPickleValue *item, gconstpointer owner, guint64 id)
{
  g_return_if_fail (item->type != MP_PICKLE_FREE && item->type != MP_PICKLE_TAKEN_ITEM);
  if (is_container (item))
    for (guint i = 0; i < item->items.len; i++)
      value_unref (pickle, item->items.pdata[i]);
  value_clear (pickle, item);
  item->type = MP_PICKLE_TAKEN_ITEM;
  item->took.owner = owner;
  item->took.id = id;
}

void
mp_pickle_consume (MpPickle *pickle, MpPickleValue *value, const char *text)
{
  Reader *r = pickle->reader;

  g_return_if_fail (((guintptr) text & 1) == 0);
  if (r == NULL || value->memo_slot == 0 || r->memo[value->memo_slot - 1] != value)
    return;
  r->memo[value->memo_slot - 1] = MEMO_TEXT (text);
  value->memo_slot = 0;
  value_unref (pickle, value);
}

static gboolean
text_int (Reader *r, GError **error)
{
  g_autofree char *line = NULL;
  MpPickleValue   *v;
  char            *end;
  gint64           i;

  if (!take_line (r, &line, error))
    return FALSE;
  if (r->op == 'L' && g_str_has_suffix (line, "L"))
    line[strlen (line) - 1] = '\0';
  if (r->op == 'I' && (g_str_equal (line, "00") || g_str_equal (line, "01")))
    {
      v = new_value (r, MP_PICKLE_BOOL);
      v->i = line[1] == '1';
      push (r, v);
      return TRUE;
    }
  i = g_ascii_strtoll (line, &end, 10);
  if (*line == '\0' || *end != '\0')
    return fail (r, error, "bad integer '%.20s' at byte %" G_GSIZE_FORMAT, line, r->op_pos);
  v = new_value (r, MP_PICKLE_INT);
  v->i = i;
  push (r, v);
  return TRUE;
}

static inline gboolean
push_int (Reader *r, gint64 i)
{
  MpPickleValue *v = new_value (r, MP_PICKLE_INT);

  v->i = i;
  push (r, v);
  return TRUE;
}

static gboolean
step (Reader *r, gboolean *done, GError **error)
{
  const guint8  *p = NULL;
  guint64        n;
  MpPickleValue *v, *container;
  guint          from = 0;

  if (!fill (r, 1, error))
    return FALSE;
  r->op_pos = r->base + r->pos;
  if (r->pos >= r->length)
    return fail (r, error, "the file ends at byte %" G_GSIZE_FORMAT " before the STOP opcode",
                 r->op_pos);
  r->op = r->data[r->pos++];
  if (r->sink && r->n_marks && r->marks[r->n_marks - 1].in_list && !offer_early (r, error))
    return FALSE;
  switch (r->op)
    {
    case 0x80: /* PROTO */
      if (!take_uint (r, 1, &n, error))
        return FALSE;
      if (n < 2 || n > 5)
        return fail (r, error, "protocol %u is not supported (2 to 5 are)", (guint) n);
      return TRUE;
    case 0x95: /* FRAME: a length hint only */
      return take_uint (r, 8, &n, error);
    case '.': /* STOP */
      if ((v = pop (r, error)) == NULL)
        return FALSE;
      r->pickle->root = v;
      *done = TRUE;
      return TRUE;
    case '(':
      if (G_UNLIKELY (r->n_marks == r->marks_cap))
        {
          r->marks_cap = MAX (16, r->marks_cap * 2);
          r->marks = g_renew (Mark, r->marks, r->marks_cap);
        }
      r->marks[r->n_marks++] = (Mark) { r->stack_len, 0, r->stack_len,
                                        r->stack_len > 0 &&
                                          r->stack[r->stack_len - 1]->type == MP_PICKLE_LIST };
      return TRUE;
    case '0': /* POP */
      if ((v = pop (r, error)) == NULL)
        return FALSE;
      value_unref (r->pickle, v);
      return TRUE;
    case '1': /* POP_MARK */
      if (!pop_mark (r, &from, error))
        return FALSE;
      while (r->stack_len > from)
        value_unref (r->pickle, r->stack[--r->stack_len]);
      return TRUE;
    case '2': /* DUP */
      if ((v = top (r, error)) == NULL)
        return FALSE;
      push (r, value_ref (v));
      return TRUE;
    case 'N':
      push (r, new_value (r, MP_PICKLE_NONE));
      return TRUE;
    case 0x88: /* NEWTRUE */
    case 0x89: /* NEWFALSE */
      v = new_value (r, MP_PICKLE_BOOL);
      v->i = r->op == 0x88;
      push (r, v);
      return TRUE;
    case 'J': /* BININT */
      return take_uint (r, 4, &n, error) && push_int (r, (gint32) (guint32) n);
    case 'K': /* BININT1 */
      return take_uint (r, 1, &n, error) && push_int (r, n);
    case 'M': /* BININT2 */
      return take_uint (r, 2, &n, error) && push_int (r, n);
    case 0x8a: /* LONG1 */
    case 0x8b: /* LONG4 */
      if (!take_uint (r, r->op == 0x8a ? 1 : 4, &n, error) || !take (r, n, &p, error))
        return FALSE;
      push (r, long_value (r, p, n));
      return TRUE;
    case 'I':
    case 'L':
      return text_int (r, error);
    case 'G': /* BINFLOAT, big-endian */
      {
        guint64 bits = 0;

        if (!take (r, 8, &p, error))
          return FALSE;
        for (guint i = 0; i < 8; i++)
          bits = (bits << 8) | p[i];
        v = new_value (r, MP_PICKLE_FLOAT);
        memcpy (&v->f, &bits, sizeof bits);
        push (r, v);
        return TRUE;
      }
    case 0x8c: /* SHORT_BINUNICODE */
    case 'U':  /* SHORT_BINSTRING */
    case 'C':  /* SHORT_BINBYTES */
    case 'X':  /* BINUNICODE */
    case 'T':  /* BINSTRING */
    case 'B':  /* BINBYTES */
    case 0x8d: /* BINUNICODE8 */
    case 0x8e: /* BINBYTES8 */
    case 0x96: /* BYTEARRAY8 */
      {
        guint width = (r->op == 0x8c || r->op == 'U' || r->op == 'C')   ? 1
                      : (r->op == 'X' || r->op == 'T' || r->op == 'B') ? 4
                                                                       : 8;

        if (!take_uint (r, width, &n, error) || !take (r, n, &p, error))
          return FALSE;
        push (r, string_value (r, p, n));
        return TRUE;
      }
    case '}': /* EMPTY_DICT */
      push (r, new_value (r, MP_PICKLE_DICT));
      return TRUE;
    case ']': /* EMPTY_LIST */
    case 0x8f: /* EMPTY_SET */
      push (r, new_value (r, MP_PICKLE_LIST));
      return TRUE;
    case ')': /* EMPTY_TUPLE */
      push (r, new_value (r, MP_PICKLE_TUPLE));
      return TRUE;
    case 0x85: /* TUPLE1 */
    case 0x86: /* TUPLE2 */
    case 0x87: /* TUPLE3 */
      {
        guint          k = r->op - 0x84;
        MpPickleValue *items[3];

        for (guint i = k; i-- > 0;)
          if ((items[i] = pop (r, error)) == NULL)
            return FALSE;
        v = new_value (r, MP_PICKLE_TUPLE);
        for (guint i = 0; i < k; i++)
          items_add (r->pickle, &v->items, items[i]);
        push (r, v);
        return TRUE;
      }
    case 't': /* TUPLE */
    case 'l': /* LIST */
    case 0x91: /* FROZENSET */
    case 'd': /* DICT */
      if (!pop_mark (r, &from, error))
        return FALSE;
      if (r->op == 'd' && (r->stack_len - from) % 2 != 0)
        return fail (r, error, "DICT at byte %" G_GSIZE_FORMAT " has a key without a value",
                     r->op_pos);
      v = new_value (r, r->op == 't' ? MP_PICKLE_TUPLE
                        : r->op == 'd' ? MP_PICKLE_DICT : MP_PICKLE_LIST);
      append_items (r, v, from);
      push (r, v);
      return TRUE;
    case 'a': /* APPEND */
      if ((v = pop (r, error)) == NULL || (container = top (r, error)) == NULL ||
          !expect (r, container, MP_PICKLE_LIST, "a list", error))
        return FALSE;
      return add_to_list (r, container, v, error);
    case 'e':  /* APPENDS */
    case 0x90: /* ADDITEMS */
    case 'u':  /* SETITEMS */
      if (!pop_mark (r, &from, error))
        return FALSE;
      if (from == 0 || from > r->stack_len)
        return fail (r, error, "opcode 0x%02x at byte %" G_GSIZE_FORMAT " has no container "
                     "below its MARK", r->op, r->op_pos);
      container = r->stack[from - 1];
      if (!expect (r, container, r->op == 'u' ? MP_PICKLE_DICT : MP_PICKLE_LIST,
                   r->op == 'u' ? "a dict" : "a list or set", error))
        return FALSE;
      if (r->op == 'u' && (r->stack_len - from) % 2 != 0)
        return fail (r, error, "SETITEMS at byte %" G_GSIZE_FORMAT " has a key without a value",
                     r->op_pos);
      if (r->op != 'u')
        return append_to_list (r, container, from, error);
      append_items (r, container, from);
      return TRUE;
    case 's': /* SETITEM */
      {
        MpPickleValue *key, *value;

        if ((value = pop (r, error)) == NULL || (key = pop (r, error)) == NULL ||
            (container = top (r, error)) == NULL ||
            !expect (r, container, MP_PICKLE_DICT, "a dict", error))
          return FALSE;
        items_add (r->pickle, &container->items, key);
        items_add (r->pickle, &container->items, value);
        return TRUE;
      }
    case 0x94: /* MEMOIZE */
      return memo_put (r, r->memo_count, error);
    case 'q': /* BINPUT */
      return take_uint (r, 1, &n, error) && memo_put (r, n, error);
    case 'r': /* LONG_BINPUT */
      return take_uint (r, 4, &n, error) && memo_put (r, n, error);
    case 'h': /* BINGET */
      return take_uint (r, 1, &n, error) && memo_get (r, n, error);
    case 'j': /* LONG_BINGET */
      return take_uint (r, 4, &n, error) && memo_get (r, n, error);
    case 'c': /* GLOBAL module\nname\n */
      {
        g_autofree char *module = NULL, *name = NULL;

        return take_line (r, &module, error) && take_line (r, &name, error) &&
               global (r, module, name, error);
      }
    case 0x93: /* STACK_GLOBAL */
      {
        MpPickleValue *name = pop (r, error), *module;

        if (name == NULL || (module = pop (r, error)) == NULL ||
            !expect (r, name, MP_PICKLE_STRING, "a name", error) ||
            !expect (r, module, MP_PICKLE_STRING, "a module name", error) ||
            !global (r, module->str, name->str, error))
          return FALSE;
        value_unref (r->pickle, name);
        value_unref (r->pickle, module);
        return TRUE;
      }
    case 'R': /* REDUCE */
      return reduce (r, error);
    case 0x97: /* NEXT_BUFFER */
    case 0x98: /* READONLY_BUFFER */
      return fail (r, error, "opcode 0x%02x at byte %" G_GSIZE_FORMAT " refers to a protocol 5 "
                   "out-of-band buffer, which lives outside the file; save it again without "
                   "buffer_callback (pickle.dump's default)", r->op, r->op_pos);
    default:
      return fail (r, error, "unsupported opcode 0x%02x at byte %" G_GSIZE_FORMAT " (only "
                   "plain data is read: dicts, lists, tuples, strings, numbers)",
                   r->op, r->op_pos);
    }
}

static MpPickle *
parse (Reader *r, GError **error)
{
  g_autoptr (MpPickle) pickle = g_new0 (MpPickle, 1);
  gboolean done = FALSE, ok;

  pickle->reader = r;
  r->pickle = pickle;
  r->memo_far = g_hash_table_new (NULL, NULL);
  r->copies_left = (guint64) r->total * MP_PICKLE_COPIES_PER_BYTE;

  ok = fill (r, 2, error);
  if (ok && (r->length < 2 || r->data[0] != 0x80))
    ok = fail (r, error, "not a pickle of protocol 2 or later (it must start with byte 0x80)");
  while (ok && !done)
    ok = step (r, &done, error);
  g_free (r->stack);
  g_free (r->marks);
  /* what the stack and the memo still hold goes with the pickle */
  g_free (r->memo);
  g_hash_table_unref (r->memo_far);
  g_free (r->window);
  pickle->reader = NULL;
  if (!ok)
    return NULL;
  return g_steal_pointer (&pickle);
}

MpPickle *
mp_pickle_parse_stream (const char *data, gsize length, const char *path, MpPickleSink sink,
                        gpointer sink_data, GError **error)
{
  Reader r = { 0 };

  r.data = (const guint8 *) data;
  r.length = r.total = length;
  r.path = path;
  r.sink = sink;
  r.sink_data = sink_data;
  return parse (&r, error);
}

MpPickle *
mp_pickle_parse_source (MpPickleRead read, gpointer read_data, gsize total, const char *path,
                        MpPickleSink sink, gpointer sink_data, GError **error)
{
  Reader r = { 0 };

  r.read = read;
  r.read_data = read_data;
  r.data = (const guint8 *) "";
  r.total = total;
  r.path = path;
  r.sink = sink;
  r.sink_data = sink_data;
  return parse (&r, error);
}

MpPickle *
mp_pickle_parse (const char *data, gsize length, const char *path, GError **error)
{
  return mp_pickle_parse_stream (data, length, path, NULL, NULL, error);
}

const MpPickleValue *
mp_pickle_get_len (const MpPickleValue *dict, const char *key, gsize n)
{
  if (dict == NULL || dict->type != MP_PICKLE_DICT)
    return NULL;
  if (dict->items.len / 2 >= INDEX_FROM)
    {
      MpPickleValue *d = (MpPickleValue *) dict; /* the index is a cache */

      if (d->index == NULL)
        {
          d->index = g_hash_table_new (g_str_hash, g_str_equal);
          /* the first of equal keys wins, as in the scan below */
          for (guint i = 0; i + 1 < d->items.len; i += 2)
            {
              const MpPickleValue *k = d->items.pdata[i];

              if (k->type == MP_PICKLE_STRING && !g_hash_table_contains (d->index, k->str))
                g_hash_table_insert (d->index, k->str, d->items.pdata[i + 1]);
            }
        }
      return g_hash_table_lookup (d->index, key);
    }
  for (guint i = 0; i + 1 < dict->items.len; i += 2)
    {
      const MpPickleValue *k = dict->items.pdata[i];

      if (k->type == MP_PICKLE_STRING && k->len == n && k->str[0] == key[0] &&
          memcmp (k->str, key, n) == 0)
        return dict->items.pdata[i + 1];
    }
  return NULL;
}

guint
mp_pickle_len (const MpPickleValue *seq)
{
  if (seq == NULL || (seq->type != MP_PICKLE_LIST && seq->type != MP_PICKLE_TUPLE))
    return 0;
  return seq->items.len;
}

const MpPickleValue *
mp_pickle_item (const MpPickleValue *seq, guint index)
{
  g_return_val_if_fail (index < mp_pickle_len (seq), NULL);
  return seq->items.pdata[index];
}

const char *
mp_pickle_type_name (const MpPickleValue *value)
{
  static const char *names[] = { "None", "bool", "int", "int", "float", "str", "list", "tuple",
                                 "dict", "mark", "type", "value read already",
                                 "entry read already", "freed value" };

  return value == NULL ? "nothing" : names[value->type];
}
