/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-version.h"

#include "lifetimes.h"

G_BEGIN_DECLS

/* When the ops of a graph run: a sequence of groups, each a set of ops that
 * may run at the same time. The sequential schedule has one op per group, in
 * op order. The parallel schedule is AITemplate's simple multi-stream: an op's
 * level is the length of the longest dependency path to it (producer to
 * consumer of a tensor, and each op after the previous op of its stream);
 * ops of one level run together, at most max_parallel_ops per group (a larger
 * level is split, in op order), and the groups run one after the other. */
typedef struct
{
  gboolean parallel;
  guint    max_parallel_ops; /* 0: unlimited */
  guint    n_ops;
  guint    n_levels;
  guint    n_groups;
  guint   *level;       /* per op */
  guint   *group;       /* per op */
  guint   *group_start; /* n_groups + 1 entries into group_ops */
  guint   *group_ops;   /* ops of each group, in op order */
} MpSchedule;

MP_AVAILABLE_IN_1_0
MpSchedule *mp_schedule_sequential (const MpGraph *graph);
MP_AVAILABLE_IN_1_0
MpSchedule *mp_schedule_parallel   (const MpGraph *graph, guint max_parallel_ops);
MP_AVAILABLE_IN_1_0
void        mp_schedule_free       (MpSchedule *schedule);

/* The lifetimes of records' tensors measured in the schedule's groups: a new
 * array, same order and sizes, first and last replaced (inputs live from the
 * first group, outputs to the last, views extend their root). */
MP_AVAILABLE_IN_1_0
MpUsage    *mp_schedule_usage      (const MpSchedule *schedule,
                                    const MpGraph    *graph,
                                    const MpUsage    *records,
                                    guint             n_records);

/* The same as lifetimes: records, live bytes and lower bound over the
 * schedule's groups (n_steps = groups). Every planner that plans for the
 * concurrent schedule plans on these (multistream, and the others under
 * --schedule concurrent). */
MP_AVAILABLE_IN_1_0
MpLifetimes *mp_schedule_lifetimes (const MpSchedule  *schedule,
                                    const MpGraph     *graph,
                                    const MpLifetimes *lifetimes);

/* What planners plan for on a graph whose streams may run side by side:
 * AUTO is the concurrent schedule there (the graph's real execution);
 * SEQUENTIAL plans for op order. A graph with one stream has op order only. */
typedef enum
{
  MP_PLAN_SCHEDULE_AUTO,
  MP_PLAN_SCHEDULE_CONCURRENT,
  MP_PLAN_SCHEDULE_SEQUENTIAL,
} MpPlanSchedule;

MP_AVAILABLE_IN_1_0
const char *mp_plan_schedule_name  (MpPlanSchedule schedule);
/* "concurrent" or "sequential"; FALSE for anything else. */
MP_AVAILABLE_IN_1_0
gboolean    mp_plan_schedule_parse (const char *name, MpPlanSchedule *schedule);

/* "ops 'a', 'b' and 3 more" for the ops of a group, for messages. */
MP_AVAILABLE_IN_1_0
char       *mp_schedule_describe_group (const MpSchedule *schedule,
                                        const MpGraph    *graph,
                                        guint             group);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MpSchedule, mp_schedule_free)

G_END_DECLS
