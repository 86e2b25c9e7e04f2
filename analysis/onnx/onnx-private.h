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

/* Reads the protobuf varint at *pos, moving *pos past it; FALSE when the
 * data ends inside it or it runs past 64 bits. */
gboolean mp_onnx_read_varint (const guchar *p, gsize length, gsize *pos, guint64 *value);

G_END_DECLS
