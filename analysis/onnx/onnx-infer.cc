// SPDX-License-Identifier: GPL-3.0-or-later
#include <climits>
#include <exception>
#include <string>

#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

extern "C" {
#include "onnx-private.h"
}

// ONNX's own shape inference, the same code onnx.shape_inference runs in
// Python: memplan never guesses an operator's output shape itself.
GBytes *
mp_onnx_infer_shapes (const char *data, gsize length, char **message)
{
  onnx::ModelProto model;
  std::string      out;

  if (length > INT_MAX || !model.ParseFromArray (data, static_cast<int> (length)))
    {
      *message = g_strdup ("libonnx cannot parse the model");
      return NULL;
    }
  try
    {
      // strict: a node whose inference fails names itself instead of
      // leaving its outputs silently unknown. No data propagation: 1.12's
      // treats every tensor as a list and refuses exported GPT-2 ("Invalid
      // rank for Add broadcasting"); memplan's folding pass does that work
      onnx::ShapeInferenceOptions options (false, 1, false);

      onnx::shape_inference::InferShapes (model, onnx::OpSchemaRegistry::Instance (), options);
    }
  catch (const std::exception &e)
    {
      *message = g_strdup (e.what ());
      return NULL;
    }
  if (!model.SerializeToString (&out))
    {
      *message = g_strdup ("libonnx cannot serialize the inferred model");
      return NULL;
    }
  return g_bytes_new (out.data (), out.size ());
}
