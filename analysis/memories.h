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
 * again (optimal instead searches the fewest spilled bytes out of each
 * memory with a capacity exactly, fastest first: see exact and proved). Fixed buffers never move;
 * a tensor whose graph names its "memory" starts there (matched by name)
 * and never moves either.
 *
 * A front-end draws one pane per memory from plans[k]: an ordinary MpPlan
 * of that memory's records (offsets inside the memory, arena, capacity and
 * fits set), NULL when the memory holds nothing; its records' tensor
 * fields are graph tensor indices, so mp_render_index_new (graph,
 * plans[k]) draws it. */
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
  gboolean *spilled;    /* per record: moved by the spill rule (not pinned where it is) */
  guint64  *spilled_bytes; /* per memory: bytes of its records the rule moved there */
  MpPlan  **plans;      /* per memory: its plan, or NULL when it holds nothing */
  /* optimal only: each memory's spill was searched exactly, fastest first
   * (fewest spilled bytes, ties by traffic), and proved minimal */
  gboolean  exact;
  gboolean  proved;
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
/* The memory (index into spill->memories) that holds graph tensor t, or -1
 * when t has no storage of its own in the plan. */
MP_AVAILABLE_IN_1_0
gint     mp_spill_memory_of_tensor (const MpSpill *spill, const MpGraph *graph,
                                    const MpLifetimes *lifetimes, guint t);

/* mp_plan_write_json with each plan's spill (spills[i], NULL for none) as
 * its "spill" member: the memories (name, capacity, arena, tensors,
 * traffic, spilled_bytes, spilled) and each tensor's memory and offset in
 * it. mp_plan_load reads a spill back as one more plan per memory, named
 * "PLANNER in MEMORY", its memory and capacity set, so mp_plan_judge checks
 * each memory's placement and capacity. */
MP_AVAILABLE_IN_1_0
gboolean mp_plan_write_json_spills (const char *path, const MpGraph *graph,
                                    const MpLifetimes *lifetimes, MpPlan **plans,
                                    MpSpill *const *spills, guint n_plans,
                                    const char *const *skipped, const char *const *reasons,
                                    guint n_skipped, GError **error);

/* Why plan, one memory's share (plan->memory set), is over its capacity:
 * the tensor that ends highest, named. */
MP_AVAILABLE_IN_1_0
char    *mp_spill_capacity_problem (const MpGraph *graph, const MpPlan *plan);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MpSpill, mp_spill_free)

G_END_DECLS
