/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib-object.h>
#include "memplan-analysis.h"

G_BEGIN_DECLS

/* One buffer live at the cursor step: where it sits in the arena then. The
 * graph and plan must outlive the row. */
#define MP_TYPE_LIVE_ROW (mp_live_row_get_type ())
G_DECLARE_FINAL_TYPE (MpLiveRow, mp_live_row, MP, LIVE_ROW, GObject)

MpLiveRow *mp_live_row_new        (const MpGraph *graph, const MpPlan *plan, guint record);
/* Makes the row another record's: the live model reuses the row of a
 * buffer that left for one that came, so the list keeps its widget. */
void       mp_live_row_set_record (MpLiveRow *self, const MpGraph *graph, const MpPlan *plan,
                                   guint record);
guint      mp_live_row_get_tensor (MpLiveRow *self);
guint64    mp_live_row_get_offset (MpLiveRow *self);
guint64    mp_live_row_get_size   (MpLiveRow *self);
/* Cell text: offset, end, size, tensor (marked when it reaches the arena's
 * top), lifetime (the plan's steps), op, kind. */
char      *mp_live_row_format     (MpLiveRow *self, const char *column);

G_END_DECLS
