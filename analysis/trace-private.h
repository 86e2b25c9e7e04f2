/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

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
  char       *frames;   /* owned, or NULL */
} TraceEvent;

typedef struct
{
  char   *name;     /* "cuda:0" */
  GArray *events;   /* TraceEvent, in time order */
  GArray *segments; /* MpTraceRange: segments listed in a snapshot (state at its end) */
} TraceDevice;

TraceDevice *mp_trace_device_new   (const char *name);
void         mp_trace_device_free  (TraceDevice *device);
/* The device of that name in devices, creating it when absent. */
TraceDevice *mp_trace_device_get   (GPtrArray *devices, const char *name);

/* Each returns a GPtrArray of TraceDevice. */
GPtrArray   *mp_trace_parse_chrome   (const char *data, gsize length, const char *path,
                                      GError **error);
GPtrArray   *mp_trace_parse_snapshot (const char *data, gsize length, const char *path,
                                      GError **error);

G_END_DECLS
