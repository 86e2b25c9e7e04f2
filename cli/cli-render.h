/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "cli.h"
#include "memplan-render.h"

G_BEGIN_DECLS

/* memplan-cli render --bench: drawing time of a generated plan. */
/* Writes the last whole-plan frame to output (PNG) when given. */
int mp_cli_render_bench (gint n_tensors, gint width, gint height, const MpRenderOptions *options,
                         const char *output);

/* render --curves: the live bytes of the given order and of --order's on
 * one axis, written to path; prints the error. */
gboolean mp_cli_order_curves (MpWorkload *w, MpCliPlanning *p, const char *path,
                              MpRenderFormat format, const MpRenderOptions *options, gint width,
                              gint height);

G_END_DECLS
