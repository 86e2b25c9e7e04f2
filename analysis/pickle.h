/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-internal.h"

#include <glib.h>
#include <string.h>

G_BEGIN_DECLS

/* A reader for the data subset of Python's pickle format (protocols 2 to 5):
 * dicts, lists, tuples, sets, strings, bytes, ints of any length, floats,
 * bools, None and the memo. It builds values and never runs anything: an
 * opcode outside that subset, or a global other than the plain containers,
 * is an error. */

typedef enum
{
  MP_PICKLE_NONE,
  MP_PICKLE_BOOL,
  MP_PICKLE_INT,
  MP_PICKLE_BIGINT, /* an int that does not fit in 64 bits */
  MP_PICKLE_FLOAT,
  MP_PICKLE_STRING, /* str or bytes */
  MP_PICKLE_LIST,   /* list, set, frozenset */
  MP_PICKLE_TUPLE,
  MP_PICKLE_DICT,
  MP_PICKLE_MARK,   /* internal */
  MP_PICKLE_GLOBAL, /* internal: an allowed container type before REDUCE */
  MP_PICKLE_CONSUMED, /* a memo reference to a value a sink took: str is the
                       * text the sink left for it (mp_pickle_consume), or NULL */
  MP_PICKLE_TAKEN_ITEM, /* an item a sink took (mp_pickle_take): took says as what */
  MP_PICKLE_FREE,     /* internal: a slot of the value slabs not in use */
} MpPickleType;

typedef struct _MpPickleValue MpPickleValue;

/* A container's items, kept in the value (no allocation of its own). */
typedef struct
{
  MpPickleValue **pdata;
  guint           len;
  guint           cap;
} MpPickleItems;

struct _MpPickleValue
{
  MpPickleType type;
  union
  {
    gint64     i;     /* BOOL, INT */
    gdouble    f;
    struct
    {
      char    *str;   /* NUL-terminated copy */
      gsize    len;
    };
    MpPickleItems items; /* LIST, TUPLE; DICT: key, value, key, value, … */
    struct
    {
      gconstpointer owner;
      guint64       id;
    } took;               /* TAKEN */
  };
  GHashTable  *index; /* DICT: key -> value, made on the first lookup of a big dict */
  /* internal: references held (stack, containers, memo), the memo slot + 1
   * holding it, items a sink took from this list */
  guint          ref_count;
  guint          memo_slot;
  guint          taken;   /* LIST; TAKEN: places on the stack it holds for its APPENDS */
  gboolean       offered : 1; /* a list item the sink saw before its APPENDS */
};

typedef struct _MpPickle MpPickle;

/* The values live as long as the MpPickle; error messages start with path.
 * Memory stays proportional to the input: values the memo shares are
 * shared, not copied, and the copies REDUCE makes (list(x), dict(pairs))
 * are refused past MP_PICKLE_COPIES_PER_BYTE items per byte of input. */
#define MP_PICKLE_COPIES_PER_BYTE 4

MpPickle            *mp_pickle_parse      (const char *data, gsize length, const char *path,
                                           GError **error);
void                 mp_pickle_free       (MpPickle *pickle);
const MpPickleValue *mp_pickle_root       (const MpPickle *pickle);

/* Streaming: sink sees each item appended to a list, at its index in the
 * list, as the list is built. MP_PICKLE_TAKEN: the sink is done with it and
 * the list does not keep it, so a trace of a million entries never exists
 * whole in memory. */
typedef enum
{
  MP_PICKLE_KEEP,
  MP_PICKLE_TAKEN,
  MP_PICKLE_FAILED, /* error set */
} MpPickleSinkResult;

typedef MpPickleSinkResult (*MpPickleSink) (MpPickle *pickle, MpPickleValue *list, guint index,
                                            MpPickleValue *item, gpointer data,
                                            GError **error);

MpPickle            *mp_pickle_parse_stream (const char *data, gsize length, const char *path,
                                             MpPickleSink sink, gpointer sink_data,
                                             GError **error);
/* The same from a source read in pieces (a file, a gzip stream): only a
 * window of it is held. read returns the bytes it put in buf (at most n),
 * 0 at the end, -1 with error set. total is the input's size as far as
 * known (the file's), for the limits that scale with it. */
typedef gssize (*MpPickleRead) (gpointer read_data, guint8 *buf, gsize n, GError **error);

MpPickle            *mp_pickle_parse_source (MpPickleRead read, gpointer read_data, gsize total,
                                             const char *path, MpPickleSink sink,
                                             gpointer sink_data, GError **error);
/* During a sink's call: value is done with; later memo references to it
 * read as MP_PICKLE_CONSUMED carrying text (which must outlive the
 * MpPickle), and its memory goes once nothing else holds it. */
void                 mp_pickle_consume      (MpPickle *pickle, MpPickleValue *value,
                                             const char *text);
/* During a sink's call, before it returns MP_PICKLE_TAKEN: item becomes
 * MP_PICKLE_TAKEN_ITEM with owner and id, its contents freed now. The sink may be
 * shown it again, when the pickle names it twice (a memo reference), and
 * can then repeat what it made of it. */
void                 mp_pickle_take         (MpPickle *pickle, MpPickleValue *item,
                                             gconstpointer owner, guint64 id);
/* Keeps value alive until mp_pickle_free, though its container drops it. */
MpPickleValue       *mp_pickle_hold         (MpPickleValue *value);

/* Dict lookup by string key; NULL when absent or when dict is not a dict.
 * Inline so that a literal key's length is known when compiling. */
const MpPickleValue *mp_pickle_get_len    (const MpPickleValue *dict, const char *key,
                                           gsize len);
static inline const MpPickleValue *
mp_pickle_get (const MpPickleValue *dict, const char *key)
{
  return mp_pickle_get_len (dict, key, strlen (key));
}
/* LIST or TUPLE items; 0 for anything else. */
guint                mp_pickle_len        (const MpPickleValue *seq);
const MpPickleValue *mp_pickle_item       (const MpPickleValue *seq, guint index);
const char          *mp_pickle_type_name  (const MpPickleValue *value);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MpPickle, mp_pickle_free)

G_END_DECLS
