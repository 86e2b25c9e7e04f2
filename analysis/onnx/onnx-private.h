/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-internal.h"

#include <glib.h>

G_BEGIN_DECLS

/* Runs ONNX's own shape inference (libonnx, C++) over a serialized model
 * and returns the model serialized again with its value_info filled in.
 * NULL with *message set when libonnx cannot parse or infer it. */
GBytes *mp_onnx_infer_shapes (const char *data,
                              gsize       length,
                              char      **message);

G_END_DECLS
