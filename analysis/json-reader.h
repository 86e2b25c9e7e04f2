/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-internal.h"

#include <glib.h>

G_BEGIN_DECLS

/* A pull reader over a JSON document in memory, for files too large for a
 * DOM: json-c builds an object per value, which for a graph of a million
 * tensors costs gigabytes and seconds. The caller walks the document;
 * strings are decoded into a reused buffer; errors carry line and column.
 * Small documents (plans, reports) still go through json-c. */

typedef enum
{
  MP_JSON_END,    /* nothing left (or an error) */
  MP_JSON_OBJECT,
  MP_JSON_ARRAY,
  MP_JSON_STRING,
  MP_JSON_NUMBER,
  MP_JSON_TRUE,
  MP_JSON_FALSE,
  MP_JSON_NULL,
} MpJsonType;

typedef struct
{
  const char *data;
  const char *p;
  const char *end;
  const char *path;
  GString    *text;     /* the last string read, decoded */
  const char *raw;      /* the last scalar as written in the file */
  gsize       raw_len;
  guint       depth;
  guint8      fresh[65]; /* per open container: no element read yet */
  GError     *error;    /* the first error; once set, every call fails */
  gboolean    truncated; /* the error is the data's end: more may follow */
  gboolean    windowed;  /* the data is a window on a stream: errors name no place */
} MpJsonReader;

void       mp_json_reader_init        (MpJsonReader *r, const char *data, gsize length,
                                       const char *path);
void       mp_json_reader_clear       (MpJsonReader *r);

/* The type of the next value, without consuming it. */
MpJsonType mp_json_reader_peek        (MpJsonReader *r);

gboolean   mp_json_reader_begin_object (MpJsonReader *r);
/* Moves to the next member: TRUE with its key in r->text, FALSE at the end
 * of the object (or on error). */
gboolean   mp_json_reader_next_member (MpJsonReader *r);
gboolean   mp_json_reader_begin_array (MpJsonReader *r);
/* TRUE when another element follows, FALSE at the end of the array. */
gboolean   mp_json_reader_next_element (MpJsonReader *r);

/* Scalars. A number that is not an integer >= 0 below 2^63 sets *ok FALSE
 * (no error is raised: the caller names the field); r->raw holds its text. */
gboolean   mp_json_reader_string      (MpJsonReader *r);
gboolean   mp_json_reader_u64         (MpJsonReader *r, guint64 *value, gboolean *ok);
gboolean   mp_json_reader_skip        (MpJsonReader *r);

/* After the document: only whitespace may follow. */
gboolean   mp_json_reader_finish      (MpJsonReader *r);

/* The last scalar as written ("1.5", "-4", "\"12\""), or "an object"/"a list". */
char      *mp_json_reader_describe    (MpJsonReader *r);

/* Bookmarks, to come back to a value later. */
gsize      mp_json_reader_tell        (MpJsonReader *r);
void       mp_json_reader_seek        (MpJsonReader *r, gsize offset);

G_END_DECLS
