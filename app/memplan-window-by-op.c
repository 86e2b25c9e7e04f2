/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

/* The "By op" tab beside "Live at step": where each plan's memory went, per
 * op; shown only when the input has ops to charge. */

#include "by-op-view.h"
#include "memplan-window-private.h"

void
mp_window_by_op_init (MpWindow *self)
{
  self->by_op_view = mp_by_op_view_new ();
  gtk_notebook_append_page (self->notebook, self->by_op_view, gtk_label_new ("By op"));
}

void
mp_window_by_op_update (MpWindow *self, MpPlanSet *set)
{
  /* usage records without ops or a trace have no op to charge: no tab */
  gtk_widget_set_visible (self->by_op_view,
                          mp_by_op_view_set_plan_set (MP_BY_OP_VIEW (self->by_op_view), set));
}

void
mp_window_show_by_op (MpWindow *self)
{
  g_return_if_fail (MP_IS_WINDOW (self));
  gtk_notebook_set_current_page (self->notebook,
                                 gtk_notebook_page_num (self->notebook, self->by_op_view));
}

GtkWidget *
mp_window_get_by_op_view (MpWindow *self)
{
  g_return_val_if_fail (MP_IS_WINDOW (self), NULL);
  return self->by_op_view;
}
