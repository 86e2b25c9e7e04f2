/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>
#include "live-model.h"
#include "plan-set.h"
#include "view-state.h"

G_BEGIN_DECLS

/* The buffers live at the step cursor in one plan, by address: the memory
 * map at that instant. Selecting a row selects the tensor in every pane. */
#define MP_TYPE_LIVE_LIST (mp_live_list_get_type ())
G_DECLARE_FINAL_TYPE (MpLiveList, mp_live_list, MP, LIVE_LIST, GtkWidget)

GtkWidget  *mp_live_list_new      (MpViewState *state);
/* Shows the buffers of plan live at the state's cursor step. */
void        mp_live_list_set_plan (MpLiveList *self, MpPlanSet *set, const MpPlan *plan);
GListModel *mp_live_list_get_model (MpLiveList *self);
/* The line above the rows: the step in words, the plan, the live bytes. */
const char *mp_live_list_get_heading (MpLiveList *self);
/* Orders the rows (the "Sort by" menu does it too). */
void        mp_live_list_set_sort    (MpLiveList *self, MpLiveSort sort);
const MpPlan *mp_live_list_get_plan (MpLiveList *self);

G_END_DECLS
