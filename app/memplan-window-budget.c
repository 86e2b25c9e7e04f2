/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

/* The exact search's time budget: the time-budget property behind the
 * Optimal Search Time menu (win.time-budget) and the optimal-time-budget
 * key (memplan-window-settings.c). */

#include "memplan-window-private.h"

void
mp_window_set_time_budget (MpWindow *self, guint seconds)
{
  if (self->time_budget == seconds)
    return;
  self->time_budget = seconds;
  g_object_notify (G_OBJECT (self), "time-budget");
  /* the exact search runs again with its new budget; the others stay */
  if (self->set && mp_plan_set_find_plan (self->set, "optimal"))
    {
      self->replan = "optimal";
      mp_window_start_build (self, FALSE);
    }
}
