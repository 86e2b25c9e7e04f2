/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-internal.h"

#include <glib.h>

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
} MpPickleType;

typedef struct _MpPickleValue MpPickleValue;

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
    GPtrArray *items; /* LIST, TUPLE; DICT: key, value, key, value, … */
  };
  GHashTable  *index; /* DICT: key -> value, made on the first lookup of a big dict */
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

/* Dict lookup by string key; NULL when absent or when dict is not a dict. */
const MpPickleValue *mp_pickle_get        (const MpPickleValue *dict, const char *key);
/* LIST or TUPLE items; 0 for anything else. */
guint                mp_pickle_len        (const MpPickleValue *seq);
const MpPickleValue *mp_pickle_item       (const MpPickleValue *seq, guint index);
const char          *mp_pickle_type_name  (const MpPickleValue *value);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MpPickle, mp_pickle_free)

G_END_DECLS
