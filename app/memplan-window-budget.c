/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

/* The exact search's time budget: the time-budget property behind the
 * Optimal Search Time menu (win.time-budget) and the optimal-time-budget
 * key (memplan-window-settings.c). */

#include "memplan-window-private.h"

/* Plan for op order instead of the parallel groups the streams run in (the
 * plan-for-op-order property behind win.plan-for-op-order): every plan of
 * a graph with several streams changes, so the file is planned again. */
void
mp_window_set_op_order (MpWindow *self, gboolean op_order)
{
  if (self->op_order == op_order)
    return;
  self->op_order = op_order;
  g_object_notify (G_OBJECT (self), "plan-for-op-order");
  mp_window_start_build (self, TRUE);
}

void
mp_window_set_time_budget (MpWindow *self, gdouble seconds)
{
  if (self->time_budget == seconds)
    return;
  self->time_budget = seconds;
  g_object_notify (G_OBJECT (self), "time-budget");
  /* the exact search runs again with its new budget; the others stay */
  for (guint i = 0; self->set && i < mp_plan_set_get_n_plans (self->set); i++)
    {
      MpPlan *plan = mp_plan_set_get_plan (self->set, i);

      if (mp_plan_traits (plan) & MP_PLANNER_SEARCHES)
        {
          self->replan = mp_planner_lookup (plan->planner)->name;
          mp_window_start_build (self, FALSE);
          break;
        }
    }
}
