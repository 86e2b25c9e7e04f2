/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>
#include "plan-set.h"
#include "memplan-render.h"
#include "view-state.h"

G_BEGIN_DECLS

/* One plan's timeline pane, drawn by render/. Zoom, pan, hover, selection
 * and the step cursor live in the shared MpViewState, so every pane of the
 * window moves together. */
#define MP_TYPE_PLAN_VIEW (mp_plan_view_get_type ())
G_DECLARE_FINAL_TYPE (MpPlanView, mp_plan_view, MP, PLAN_VIEW, GtkWidget)

GtkWidget     *mp_plan_view_new            (MpPlanSet *set, guint plan, MpViewState *state);
/* A memory's pane (mp_plan_set_get_n_memories): its share of the spill,
 * with the capacity line and the spilled tensors marked. */
GtkWidget     *mp_plan_view_new_memory     (MpPlanSet *set, guint memory, MpViewState *state);
MpPlan        *mp_plan_view_get_plan       (MpPlanView *self);
/* Moves the pane to a newer plan set holding the same plan at plan, keeping
 * its drawing index (a replan that kept this plan). */
void           mp_plan_view_rebind         (MpPlanView *self, MpPlanSet *set, guint plan);
MpRenderIndex *mp_plan_view_get_index      (MpPlanView *self);
/* The options the pane draws with now (viewport, colour key, theme, highlight). */
void           mp_plan_view_get_options    (MpPlanView *self, MpRenderOptions *options);
/* The graph tensor drawn at (x, y) in widget coordinates, or -1. */
gint           mp_plan_view_tensor_at      (MpPlanView *self, gdouble x, gdouble y);
/* Where a tensor's rectangle is drawn, in widget coordinates. */
gboolean       mp_plan_view_tensor_bounds  (MpPlanView      *self,
                                            guint            tensor,
                                            graphene_rect_t *bounds);
/* What a click at (x, y) does: select the tensor there (or clear the
 * selection), or on the step axis move the step cursor. */
void           mp_plan_view_click          (MpPlanView *self, gdouble x, gdouble y);
/* Draws the plan again now (a pan or zoom otherwise stretches the last
 * picture until the motion pauses). */
void           mp_plan_view_redraw         (MpPlanView *self);
/* The tooltip markup for a tensor ("name, kind, dtype, shape, size, …"). */
char          *mp_plan_view_describe       (MpPlanView *self, guint tensor);

G_END_DECLS
