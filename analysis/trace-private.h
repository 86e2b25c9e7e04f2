/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-internal.h"

#include <stdio.h>

#include "file-util.h"
#include "trace.h"

G_BEGIN_DECLS

/* The two importers reduce their files to per-device event lists; one
 * builder (trace.c) turns a device's events into usage records. */

typedef enum
{
  TRACE_ALLOC,
  TRACE_FREE,           /* the block may be reused from here on */
  TRACE_FREE_REQUESTED, /* snapshot: freed, but still in use by a stream */
  TRACE_SEGMENT_ALLOC,
  TRACE_SEGMENT_FREE,
  TRACE_OOM,
  TRACE_OTHER,
} TraceAction;

typedef struct
{
  TraceAction action;
  guint64     addr;
  guint64     size;
  gint64      reserved; /* the allocator's reserved total after the event, or -1 */
  MpTraceSite site;     /* texts interned in the TraceFile */
} TraceEvent;

typedef struct
{
  char   *name;     /* "cuda:0" */
  GArray *events;   /* TraceEvent, in time order */
  GArray *segments; /* MpTraceRange: segments listed in a snapshot (state at its end) */
  GArray *blocks;   /* MpTraceRange: their allocated blocks at its end */
  gboolean converted; /* made from a profile (torch.cuda._memory_viz): its
                       * "segment" is the span of the addresses, not memory */
} TraceDevice;

/* What an importer read: the devices, and the texts their events share. */
typedef struct
{
  GPtrArray  *devices;   /* TraceDevice, in the order they appear */
  GHashTable *by_name;   /* name -> TraceDevice, borrowed: no scan per event */
  GHashTable *strings;   /* interned texts, owned */
  guint64     text_limit;
  guint64     text_used; /* bytes of distinct text made so far */
  const char *path;
} TraceFile;

/* Texts a file may make: 64 MiB plus 64 bytes per byte of input, far above
 * what any real trace needs and a bound on what memo references can grow. */
#define TRACE_TEXT_LIMIT(length) ((guint64) 64 * 1024 * 1024 + (guint64) (length) * 64)

TraceFile   *mp_trace_file_new     (const char *path, gsize length);
void         mp_trace_file_free    (TraceFile *file);
/* The device of that name, created when absent. */
TraceDevice *mp_trace_file_device  (TraceFile *file, const char *name);
/* Takes text; *out is the one shared copy (NULL for NULL text). Fails past
 * the file's text limit. */
gboolean     mp_trace_file_intern  (TraceFile *file, char *text, const char **out,
                                    GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TraceFile, mp_trace_file_free)

/* max_memory: MpTraceOptions' */
TraceFile   *mp_trace_parse_chrome   (const char *data, gsize length, const char *path,
                                      guint64 max_memory, GError **error);
TraceFile   *mp_trace_parse_snapshot (const char *data, gsize length, const char *path,
                                      GError **error);
/* The same read from in as it goes (length: the file's size), so a
 * snapshot of gigabytes is never held whole. */
TraceFile   *mp_trace_read_snapshot  (FILE *in, gsize length, const char *path, GError **error);
/* The same from a gzip file as it inflates (length: the inflated size its
 * trailer announces, which the reader holds it to). */
TraceFile   *mp_trace_read_snapshot_gzip (MpGzipReader *in, gsize length, const char *path,
                                          GError **error);
/* A Chrome trace the same way: read as it goes (as it inflates), never
 * held whole unless it is not plain JSON, and then only once its cost is
 * checked against max_memory (MpTraceOptions'). */
TraceFile   *mp_trace_read_chrome      (FILE *in, gsize length, const char *path,
                                        guint64 max_memory, GError **error);
TraceFile   *mp_trace_read_chrome_gzip (MpGzipReader *in, gsize length, const char *path,
                                        guint64 max_memory, GError **error);
/* For tests: the Chrome reader without its fast path (on FALSE), or with
 * a window of that many bytes (0: the usual 4 MiB). */
void         mp_trace_chrome_set_fast_path (gboolean on, gsize window);
/* Whether mp_trace_load_full reads path as it goes: a snapshot or a
 * Chrome trace in a regular file. */
gboolean     mp_trace_streams        (const char *path);

G_END_DECLS
