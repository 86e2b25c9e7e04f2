/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "memplan-window.h"

G_BEGIN_DECLS

/* Pans and zooms the window's panes for n_frames frames, then redraws every
 * pane from scratch for a few more, timing each frame's work on the frame
 * clock (from its update phase to after-paint); prints the figures on
 * stdout and calls done. */
void mp_frame_bench_run (MpWindow *window, guint n_frames, gdouble first_view_seconds,
                         gdouble first_view_cpu, gdouble heuristics_seconds,
                         gdouble heuristics_cpu, gdouble open_seconds, GCallback done, gpointer user_data);

G_END_DECLS
