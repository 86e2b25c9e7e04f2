/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>
#include "plan-set.h"

G_BEGIN_DECLS

/* Two runs on one axis: the live bytes of A and of B over each run (the
 * runs' lengths differ, so the axis is the share of each run done), one
 * byte scale for both, A and B labelled, and a line with both peaks and the
 * difference. */
#define MP_TYPE_COMPARE_STRIP (mp_compare_strip_get_type ())
G_DECLARE_FINAL_TYPE (MpCompareStrip, mp_compare_strip, MP, COMPARE_STRIP, GtkWidget)

GtkWidget  *mp_compare_strip_new      (void);
/* b NULL: nothing to compare (the strip hides). */
void        mp_compare_strip_set_sets (MpCompareStrip *self, MpPlanSet *a, MpPlanSet *b);
void        mp_compare_strip_set_dark (MpCompareStrip *self, gboolean dark);
/* "A: x.json, peak 12.0 MiB · B: y.json, peak 14.0 MiB · B − A: +2.00 MiB (+16.7%)" */
const char *mp_compare_strip_get_text (MpCompareStrip *self);

G_END_DECLS
