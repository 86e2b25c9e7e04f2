/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "mp-version.h"
#include "planner.h"

G_BEGIN_DECLS

/* Several memories, fastest first (TFLite Micro's SRAM + PSRAM, tt-mlir's
 * L1 + DRAM): the planner fills the first; while its arena is over the
 * capacity, the buffer with the most bytes × steps live moves to the next
 * memory (tt-mlir's and TFLM's rule: the biggest, longest-lived buffers are
 * the ones a small memory can least afford), and the memory is planned
 * again. Fixed buffers never move. */
typedef struct
{
  char   *name;
  guint64 capacity; /* bytes; 0: unbounded */
} MpMemory;

typedef struct
{
  guint     n_memories;
  MpMemory *memories;
  guint     n_records;
  guint    *memory_of;  /* per record of the lifetimes */
  guint64  *offsets;    /* per record, inside its memory */
  guint64  *arena;      /* per memory */
  guint     *count;     /* per memory: its records */
  guint64  *traffic;    /* per memory: bytes × accesses of its records */
  guint64  *accesses;   /* per record: the op inputs and outputs that touch it */
  gboolean  fits;       /* every arena within its capacity */
} MpSpill;

/* "NAME" or "NAME=SIZE" (SIZE as 256K, 8M, 1G or bytes) into memory. */
MP_AVAILABLE_IN_1_0
gboolean mp_memory_parse   (const char *spec, MpMemory *memory, GError **error);
MP_AVAILABLE_IN_1_0
MpSpill *mp_spill_plan     (const MpGraph *graph, const MpLifetimes *lifetimes,
                            const MpPlannerInfo *info, const MpMemory *memories, guint n_memories,
                            const MpPlannerOptions *options, GCancellable *cancellable,
                            GError **error);
MP_AVAILABLE_IN_1_0
void     mp_spill_free     (MpSpill *spill);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MpSpill, mp_spill_free)

G_END_DECLS
