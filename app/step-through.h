/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>
#include "plan-set.h"

G_BEGIN_DECLS

/* Teaching mode: one planner's decisions replayed tensor by tensor. The
 * pane shows only the tensors placed so far, the current one's lifetime
 * band, the gaps (or partitions) it could go into and the one chosen, with
 * the decision in words; the order the planner takes the tensors in is a
 * list with the current one selected. Next / previous / play / pause /
 * speed / first / last as buttons and keys (Right, Left, space, +, -,
 * Home, End). */
#define MP_TYPE_STEP_THROUGH (mp_step_through_get_type ())
G_DECLARE_FINAL_TYPE (MpStepThrough, mp_step_through, MP, STEP_THROUGH, GtkWindow)

/* Graphs above this many planned tensors are refused: a trace keeps every
 * decision with its candidates. */
#define MP_STEP_THROUGH_MAX_TENSORS 20000

/* Runs planner on the set's graph with its decisions recorded. NULL and
 * error set when the planner cannot run there or the graph is too big. */
MpStepThrough     *mp_step_through_new          (GtkWindow   *parent,
                                                 MpPlanSet   *set,
                                                 const char  *planner,
                                                 GError     **error);
const MpDecisionTrace *mp_step_through_get_trace    (MpStepThrough *self);
const MpPlan      *mp_step_through_get_plan     (MpStepThrough *self);
/* The current decision, 0 to n_steps - 1: steps 0..position are placed. */
guint              mp_step_through_get_position (MpStepThrough *self);
void               mp_step_through_set_position (MpStepThrough *self, guint position);
guint              mp_step_through_get_n_steps  (MpStepThrough *self);
gboolean           mp_step_through_get_playing  (MpStepThrough *self);
void               mp_step_through_set_playing  (MpStepThrough *self, gboolean playing);
/* Steps per second while playing. */
gdouble            mp_step_through_get_speed    (MpStepThrough *self);
/* The explanation line shown now. */
const char        *mp_step_through_get_text     (MpStepThrough *self);
/* The item selected in the order list. */
guint              mp_step_through_get_selected (MpStepThrough *self);
/* The partial plan drawn now: the records placed so far. */
const MpPlan      *mp_step_through_get_shown    (MpStepThrough *self);

G_END_DECLS
