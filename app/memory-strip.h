/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>
#include "plan-set.h"
#include "view-state.h"

G_BEGIN_DECLS

/* Memory over time for every plan of the window, in one strip above the
 * panes (mp_render_memory): it follows the panes' step range, shows the
 * step cursor, and a click puts the cursor on a step. */
#define MP_TYPE_MEMORY_STRIP (mp_memory_strip_get_type ())
G_DECLARE_FINAL_TYPE (MpMemoryStrip, mp_memory_strip, MP, MEMORY_STRIP, GtkWidget)

GtkWidget *mp_memory_strip_new          (MpViewState *state);
void       mp_memory_strip_set_plan_set (MpMemoryStrip *self, MpPlanSet *set);

G_END_DECLS
