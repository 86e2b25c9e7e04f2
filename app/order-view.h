/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>
#include "plan-set.h"
#include "view-state.h"

G_BEGIN_DECLS

/* The Order page: a choice of op order (given, best, optimal) and the
 * memory-over-time curves of the given order and of the chosen one on the
 * same axes, with the saving. Choosing another order sets "order", which
 * the window answers by planning the file again in that order. */

#define MP_TYPE_ORDER_VIEW (mp_order_view_get_type ())
G_DECLARE_FINAL_TYPE (MpOrderView, mp_order_view, MP, ORDER_VIEW, GtkWidget)

GtkWidget     *mp_order_view_new          (MpViewState *state);
void           mp_order_view_set_plan_set (MpOrderView *self, MpPlanSet *set);
MpOrderMethod  mp_order_view_get_order    (MpOrderView *self);
void           mp_order_view_set_order    (MpOrderView *self, MpOrderMethod order);
/* "Order best saved 256 KiB (20.0%) of the peak of live bytes", or NULL
 * when the set keeps the given order. */
char          *mp_order_view_headline     (MpPlanSet *set);

G_END_DECLS
