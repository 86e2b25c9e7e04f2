/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include "graph-private.h"
#include "onnx.h"

/* Built instead of onnx-load.c when protobuf-c or libonnx is missing
 * (-Donnx=auto): a model is still recognised and refused with the reason. */

MpGraph *
mp_onnx_parse (const char *data, gsize length, const char *path, const MpOnnxOptions *options,
               GError **error)
{
  mp_set_file_error (error, MP_ANALYSIS_ERROR_UNSUPPORTED, path,
                     "this memplan was built without ONNX support (it needs protobuf-c and "
                     "libonnx: packages protobuf-c-compiler, libprotobuf-c-dev, libonnx-dev)");
  return NULL;
}

MpGraph *
mp_onnx_load (const char *path, const MpOnnxOptions *options, GError **error)
{
  return mp_onnx_parse (NULL, 0, path, options, error);
}

char **
mp_onnx_symbolic_dims (const char *path, GError **error)
{
  mp_onnx_parse (NULL, 0, path, NULL, error);
  return NULL;
}
