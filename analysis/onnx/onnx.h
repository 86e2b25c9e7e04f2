/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-version.h"

#include "graph.h"

G_BEGIN_DECLS

/* How an ONNX model becomes a graph. */
typedef struct
{
  /* Bindings of symbolic dimensions, "NAME=VALUE" strings ("batch=8"),
   * NULL-terminated; NULL when there are none. */
  const char * const *dims;
  /* Plan Reshape, Flatten, Squeeze, Unsqueeze and Identity as copies
   * instead of views of their input (what ONNX Runtime does). */
  gboolean            views_as_copies;
  /* Reading a model estimated to need more memory is refused before it
   * starts (--max-memory); 0: the memory available, at most 8 GiB. */
  guint64             max_memory;
  /* Bindings of names the model lacks are ignored rather than refused
   * (the fuzz target binds the same names for every input). */
  gboolean            lenient_dims;
} MpOnnxOptions;

/* TRUE when data (the start of a file) looks like a serialized ONNX
 * ModelProto: recognised by content, whatever the file is called. */
MP_AVAILABLE_IN_1_0
gboolean  mp_onnx_sniff      (const char *data, gsize length);
MP_AVAILABLE_IN_1_0
gboolean  mp_onnx_sniff_file (const char *path);

/* Ops are the graph's nodes in file order; tensors are node outputs
 * (activations), graph inputs, initializers (params: only their dims are
 * read, never their data) and graph outputs. Sizes come from value_info,
 * from ONNX's own shape inference where it is missing. options may be NULL.
 * Built without protobuf-c (-Donnx), both refuse every model saying so. */
MP_AVAILABLE_IN_1_0
MpGraph  *mp_onnx_load       (const char          *path,
                              const MpOnnxOptions *options,
                              GError             **error);
MP_AVAILABLE_IN_1_0
MpGraph  *mp_onnx_parse      (const char          *data,
                              gsize                length,
                              const char          *path,
                              const MpOnnxOptions *options,
                              GError             **error);

/* The names of the symbolic dimensions of the model's graph inputs (the
 * names inside expressions such as "Min(512, seq)"), each once, in the
 * order the file first gives them: what a front-end asks the user to bind
 * before it loads the model. An empty list when every dimension is a
 * number. */
MP_AVAILABLE_IN_1_0
char    **mp_onnx_symbolic_dims (const char  *path,
                                 GError     **error);

G_END_DECLS
