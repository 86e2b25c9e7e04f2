/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "memplan-render.h"

G_BEGIN_DECLS

/* memplan-cli render --bench: drawing time of a generated plan. */
/* Writes the last whole-plan frame to output (PNG) when given. */
int mp_cli_render_bench (gint n_tensors, gint width, gint height, const MpRenderOptions *options,
                         const char *output);

G_END_DECLS
