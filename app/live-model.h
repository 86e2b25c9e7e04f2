/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>
#include "memplan-analysis.h"

G_BEGIN_DECLS

typedef enum
{
  MP_LIVE_SORT_OFFSET,   /* lowest address first */
  MP_LIVE_SORT_SIZE,     /* largest first */
  MP_LIVE_SORT_LIFETIME, /* longest first */
  MP_LIVE_SORT_OP,       /* by the step that made it (its producing op) */
  MP_LIVE_SORT_N
} MpLiveSort;

/* The buffers live at one step of one plan as a list model of MpLiveRow.
 * It holds only their record numbers, sorted, and makes a row when the
 * view asks for one, so a step with 30,000 live buffers costs a sort of
 * integers, not 30,000 objects. */
#define MP_TYPE_LIVE_MODEL (mp_live_model_get_type ())
G_DECLARE_FINAL_TYPE (MpLiveModel, mp_live_model, MP, LIVE_MODEL, GObject)

MpLiveModel *mp_live_model_new      (void);
/* Shows these records of plan (taken), in the model's order; graph and
 * plan must outlive the model's use of them (NULL: empty). */
void         mp_live_model_set      (MpLiveModel *self, const MpGraph *graph, const MpPlan *plan,
                                     GArray *records);
void         mp_live_model_set_sort (MpLiveModel *self, MpLiveSort sort);

G_END_DECLS
