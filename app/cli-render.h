/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "plan-render.h"

G_BEGIN_DECLS

/* memplan-cli render --bench: drawing time of a generated plan. */
int mp_cli_render_bench (gint n_tensors, gint width, gint height, const MpRenderOptions *options);

G_END_DECLS
