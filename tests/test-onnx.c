/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <string.h>
#include <glib/gstdio.h>

#include "test-util.h"

/* ONNX models (data/onnx/, made by build-aux/make-onnx-samples.py with the
 * onnx Python package). The expected figures are the script's, computed from
 * the model with onnx's own API, not by memplan. */

/* resnet-mini: the sum of the element counts of its initializers. */
#define CNN_PARAMS 96074
/* The script's lower bound from the model's value_info (alignment 64). */
#define CNN_LOWER_BOUND 12582912
/* encoder-2x256 at batch=8, seq=128, the same way. */
#define ENCODER_LOWER_BOUND 9437184

static MpGraph *
load_ok (const char *relative, const MpOnnxOptions *options)
{
  g_autofree char *path = test_data_path (relative);
  g_autoptr (GError) error = NULL;
  MpGraph *graph = mp_onnx_load (path, options, &error);

  g_assert_no_error (error);
  g_assert_nonnull (graph);
  return graph;
}

static guint64
lower_bound (const MpGraph *graph)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, &error);

  g_assert_no_error (error);
  return lt->lower_bound;
}

/* The message of loading name from tests/data through the one "open a
 * file" path, after the path and ": ". */
static void
assert_refused (const char *name, const char *message)
{
  g_autofree char *path = test_fixture_path (name);
  g_autofree char *expected = g_strdup_printf ("%s: %s", path, message);
  g_autoptr (GError) error = NULL;
  g_autoptr (MpGraph) graph = test_graph_load (path, &error);

  g_assert_null (graph);
  g_assert_nonnull (error);
  g_assert_cmpstr (error->message, ==, expected);
}

static void
test_cnn (void)
{
  g_autoptr (MpGraph) graph = load_ok ("onnx/resnet-mini.onnx", NULL);
  gint                flat, pool, logits, image, fc;
  guint64             bytes;

  g_assert_cmpstr (graph->name, ==, "resnet-mini");
  g_assert_cmpuint (graph->n_ops, ==, 21);
  g_assert_cmpstr (graph->ops[0].name, ==, "/stem/Conv (Conv)");
  g_assert_cmpuint (mp_graph_count_params (graph, &bytes), ==, CNN_PARAMS);
  g_assert_cmpuint (bytes, ==, 4 * CNN_PARAMS);
  g_assert_cmpuint (lower_bound (graph), ==, CNN_LOWER_BOUND);

  image = mp_graph_find_tensor (graph, "image");
  g_assert_cmpint (graph->tensors[image].kind, ==, MP_TENSOR_INPUT);
  g_assert_cmpuint (graph->tensors[image].size, ==, 8 * 3 * 64 * 64 * 4);
  fc = mp_graph_find_tensor (graph, "fc.weight");
  g_assert_cmpint (graph->tensors[fc].kind, ==, MP_TENSOR_PARAM);
  g_assert_cmpuint (graph->tensors[fc].n_dims, ==, 2);
  g_assert_cmpint (graph->tensors[fc].shape[0], ==, 10);
  g_assert_cmpint (graph->tensors[fc].shape[1], ==, 64);
  logits = mp_graph_find_tensor (graph, "logits");
  g_assert_cmpint (graph->tensors[logits].kind, ==, MP_TENSOR_OUTPUT);
  g_assert_cmpuint (graph->tensors[logits].size, ==, 8 * 10 * 4);
  /* Flatten is a view of the pooled tensor, as in ONNX Runtime */
  flat = mp_graph_find_tensor (graph, "/Flatten_output_0");
  pool = mp_graph_find_tensor (graph, "/pool/GlobalAveragePool_output_0");
  g_assert_cmpint (graph->tensors[flat].view_of, ==, pool);
  g_assert_cmpuint (graph->tensors[flat].size, ==, 8 * 64 * 4);
}

static void
test_views_as_copies (void)
{
  MpOnnxOptions options = { NULL, TRUE };
  g_autoptr (MpGraph) graph = load_ok ("onnx/resnet-mini.onnx", &options);
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, NULL);

  for (guint i = 0; i < graph->n_tensors; i++)
    g_assert_cmpint (graph->tensors[i].view_of, ==, -1);
  /* the Flatten copy is one more planned tensor (20 with the view); it is
   * small and lives where the convolutions' peak is long past */
  g_assert_cmpuint (lt->n_records, ==, 21);
  g_assert_cmpuint (lt->lower_bound, ==, CNN_LOWER_BOUND);
}

static void
test_cnn_cli (void)
{
  g_autofree char *path = test_data_path ("onnx/resnet-mini.onnx");
  g_autofree char *out = NULL, *err = NULL;

  g_assert_cmpint (test_run_cli (&out, &err, "plan", path, "--planner", "all", NULL), ==, 0);
  g_assert_true (g_str_has_prefix (out, "resnet-mini: 20 tensors planned over 21 steps, lower "
                                        "bound 12.0 MiB\n"));
  g_assert_nonnull (strstr (out, "\nresnet-mini: 96074 parameters (375 KiB) in the model's "
                                 "initializers, outside the arena\n"));
  g_assert_cmpstr (err, ==, "");
}

static void
test_unbound_dimension (void)
{
  g_autofree char *path = test_data_path ("onnx/encoder-2x256.onnx");
  g_autofree char *expected = NULL;
  g_autofree char *out = NULL, *err = NULL;
  const char      *only_seq[] = { "seq=128", NULL };
  MpOnnxOptions    options = { only_seq, FALSE };
  g_autoptr (GError) error = NULL;
  g_autoptr (MpGraph) graph = mp_onnx_load (path, &options, &error);

  g_assert_null (graph);
  expected = g_strdup_printf ("%s: tensor 'hidden' (graph input): dimension 0 is the symbolic "
                              "'batch', which is not bound to a value (--dim batch=N)", path);
  g_assert_cmpstr (error->message, ==, expected);
  /* the CLI says the same and fails */
  g_assert_cmpint (test_run_cli (&out, &err, "plan", path, NULL), ==, 2);
  g_assert_cmpstr (out, ==, "");
  g_assert_nonnull (strstr (err, expected));
}

/* What the app's form asks for: the encoder's two names, in file order; a
 * model with numbers only has none; a non-model is refused by name. */
static void
test_symbolic_dims (void)
{
  g_autofree char *encoder = test_data_path ("onnx/encoder-2x256.onnx");
  g_autofree char *cnn = test_data_path ("onnx/resnet-mini.onnx");
  g_autofree char *json = test_data_path ("teaching.json");
  g_autofree char *expected = NULL;
  g_auto (GStrv) names = NULL;
  g_autoptr (GError) error = NULL;

  names = mp_onnx_symbolic_dims (encoder, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (names), ==, 2);
  g_assert_cmpstr (names[0], ==, "batch");
  g_assert_cmpstr (names[1], ==, "seq");
  g_clear_pointer (&names, g_strfreev);
  names = mp_onnx_symbolic_dims (cnn, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (names), ==, 0);
  g_clear_pointer (&names, g_strfreev);
  g_assert_null (mp_onnx_symbolic_dims (json, &error));
  expected = g_strdup_printf ("%s: not an ONNX model (it does not start like a serialized ONNX "
                              "ModelProto)", json);
  g_assert_cmpstr (error->message, ==, expected);
}

static void
test_bad_binding (void)
{
  g_autofree char *path = test_data_path ("onnx/encoder-2x256.onnx");
  const char      *dims[] = { "batch", NULL };
  MpOnnxOptions    options = { dims, FALSE };
  g_autoptr (GError) error = NULL;
  g_autoptr (MpGraph) graph = mp_onnx_load (path, &options, &error);

  g_assert_null (graph);
  g_assert_cmpstr (error->message, ==,
                   "dimension binding 'batch': expected NAME=VALUE with VALUE a positive integer");
}

static void
test_encoder_with_dims (void)
{
  const char       *dims[] = { "batch=8", "seq=128", NULL };
  MpOnnxOptions     options = { dims, FALSE };
  g_autoptr (MpGraph) graph = load_ok ("onnx/encoder-2x256.onnx", &options);
  g_autofree char  *path = test_data_path ("onnx/encoder-2x256.onnx");
  g_autofree char  *out = NULL, *err = NULL;
  const MpTensor   *hidden = &graph->tensors[mp_graph_find_tensor (graph, "hidden")];
  gint              reshape = mp_graph_find_tensor (graph, "/layers.0/attn/q/Reshape_output_0");
  gint              q = mp_graph_find_tensor (graph, "/layers/0/attn/q_proj/Add_output_0");

  g_assert_cmpuint (hidden->n_dims, ==, 3);
  g_assert_cmpint (hidden->shape[0], ==, 8);
  g_assert_cmpint (hidden->shape[1], ==, 128);
  g_assert_cmpint (hidden->shape[2], ==, 256);
  g_assert_cmpint (graph->tensors[reshape].view_of, ==, q);
  g_assert_cmpuint (lower_bound (graph), ==, ENCODER_LOWER_BOUND);
  g_assert_cmpint (test_run_cli (&out, &err, "plan", path, "--dim", "batch=8", "--dim",
                                 "seq=128", NULL), ==, 0);
  g_assert_true (g_str_has_prefix (out, "encoder-2x256: 51 tensors planned over 60 steps, lower "
                                        "bound 9.00 MiB\n"));
}

/* mlp-no-shapes has no value_info: ONNX's shape inference sizes it. By hand:
 * Gemm/Relu outputs [32,512] (64 KiB each) then [32,256] and [32,10] f32;
 * at the first Relu its input and output are both live: 128 KiB. */
static void
test_shape_inference (void)
{
#ifdef MP_HAVE_ONNX_INFER
  g_autoptr (MpGraph) graph = load_ok ("onnx/mlp-no-shapes.onnx", NULL);
  const MpTensor     *probs = &graph->tensors[mp_graph_find_tensor (graph, "probs")];

  g_assert_cmpint (probs->kind, ==, MP_TENSOR_OUTPUT);
  g_assert_cmpuint (probs->n_dims, ==, 2);
  g_assert_cmpint (probs->shape[0], ==, 32);
  g_assert_cmpint (probs->shape[1], ==, 10);
  g_assert_cmpuint (lower_bound (graph), ==, 131072);
#else
  g_test_skip ("built without libonnx shape inference");
#endif
}

static void
test_refusals (void)
{
  assert_refused ("onnx-if.onnx", "node '/branch (If)' is control flow with subgraphs: memplan "
                                  "plans straight-line graphs and does not flatten If, Loop or "
                                  "Scan");
  assert_refused ("onnx-function.onnx", "node '/double (DoubleRelu)' calls the model-local "
                                        "function 'local:DoubleRelu': memplan does not expand "
                                        "ONNX functions");
  assert_refused ("onnx-unsorted.onnx", "node '/neg (Neg)' reads 'h' before node '/relu (Relu)' "
                                        "writes it: the nodes are not in topological order, as "
                                        "ONNX requires");
  assert_refused ("onnx-empty-input-name.onnx",
                  "not a valid ONNX model: graph input #0 has an empty name");
  assert_refused ("onnx-truncated.onnx",
                  "not a valid ONNX model: the protobuf data is truncated or corrupt");
  assert_refused ("onnx-not-a-model.onnx", "not an ONNX model (it does not start like a "
                                           "serialized ONNX ModelProto)");
}

static void
test_sniff (void)
{
  g_autofree char *path = test_data_path ("onnx/resnet-mini.onnx");
  g_autofree char *copy = NULL;
  g_autofree char *dir = g_dir_make_tmp ("memplan-onnx-XXXXXX", NULL);
  g_autofree char *data = NULL;
  gsize            length;
  g_autoptr (GError) error = NULL;
  g_autoptr (MpGraph) graph = NULL;

  g_assert_true (g_file_get_contents (path, &data, &length, NULL));
  g_assert_true (mp_onnx_sniff (data, length));
  g_assert_false (mp_onnx_sniff ("{\"format\": \"memplan.graph/1\"}", 29));
  g_assert_false (mp_onnx_sniff ("id,lower,upper,size\n", 20));
  g_assert_false (mp_onnx_sniff ("\x80\x04\x95\x10\x00", 5));
  g_assert_false (mp_onnx_sniff ("", 0));
  g_assert_false (mp_onnx_sniff ("\x08\x08", 2));

  /* recognised by content whatever its name */
  copy = g_build_filename (dir, "model.bin", NULL);
  g_assert_true (g_file_set_contents (copy, data, length, NULL));
  graph = test_graph_load (copy, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (graph->n_ops, ==, 21);
  g_unlink (copy);
  g_rmdir (dir);
}

/* import writes memplan.graph/1, which loads back as the same graph. */
static void
test_import (void)
{
  g_autofree char *path = test_data_path ("onnx/encoder-2x256.onnx");
  g_autofree char *dir = g_dir_make_tmp ("memplan-onnx-XXXXXX", NULL);
  g_autofree char *json = g_build_filename (dir, "encoder.json", NULL);
  g_autofree char *out = NULL, *err = NULL;
  const char      *dims[] = { "batch=8", "seq=128", NULL };
  MpOnnxOptions    options = { dims, FALSE };
  g_autoptr (MpGraph) model = load_ok ("onnx/encoder-2x256.onnx", &options);
  g_autoptr (MpGraph) graph = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (test_run_cli (&out, &err, "import", path, "--dim", "batch=8", "--dim",
                                 "seq=128", "-o", json, NULL), ==, 0);
  g_assert_cmpstr (err, ==, "");
  graph = mp_graph_load_json (json, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (graph->name, ==, "encoder-2x256");
  g_assert_cmpuint (graph->n_tensors, ==, model->n_tensors);
  g_assert_cmpuint (graph->n_ops, ==, model->n_ops);
  for (guint i = 0; i < graph->n_tensors; i++)
    {
      g_assert_cmpstr (graph->tensors[i].name, ==, model->tensors[i].name);
      g_assert_cmpuint (graph->tensors[i].size, ==, model->tensors[i].size);
      g_assert_cmpint (graph->tensors[i].kind, ==, model->tensors[i].kind);
      g_assert_cmpint (graph->tensors[i].view_of, ==, model->tensors[i].view_of);
    }
  for (guint o = 0; o < graph->n_ops; o++)
    g_assert_cmpstr (graph->ops[o].name, ==, model->ops[o].name);
  g_assert_cmpuint (lower_bound (graph), ==, ENCODER_LOWER_BOUND);
  g_unlink (json);
  g_rmdir (dir);
}

/* Every prefix of a model either loads or is refused with a message that
 * names the file: the reader never crashes on a cut file. */
static void
test_prefixes (void)
{
  g_autofree char *path = test_data_path ("onnx/resnet-mini.onnx");
  g_autofree char *data = NULL;
  gsize            length;
  guint            loaded = 0;

  g_assert_true (g_file_get_contents (path, &data, &length, NULL));
  for (gsize n = 0; n < length; n += 13)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (MpGraph) graph = mp_onnx_parse (data, n, "cut.onnx", NULL, &error);

      if (graph)
        loaded++;
      else
        g_assert_true (g_str_has_prefix (error->message, "cut.onnx: "));
    }
  /* a cut in the middle of the graph field can never load */
  g_assert_cmpuint (loaded, <, length / 13);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analysis/onnx/cnn", test_cnn);
  g_test_add_func ("/analysis/onnx/cnn/views-as-copies", test_views_as_copies);
  g_test_add_func ("/analysis/onnx/cnn/cli", test_cnn_cli);
  g_test_add_func ("/analysis/onnx/encoder/unbound-dimension", test_unbound_dimension);
  g_test_add_func ("/analysis/onnx/encoder/bad-binding", test_bad_binding);
  g_test_add_func ("/analysis/onnx/encoder/symbolic-dims", test_symbolic_dims);
  g_test_add_func ("/analysis/onnx/encoder/dims", test_encoder_with_dims);
  g_test_add_func ("/analysis/onnx/shape-inference", test_shape_inference);
  g_test_add_func ("/analysis/onnx/refusals", test_refusals);
  g_test_add_func ("/analysis/onnx/sniff", test_sniff);
  g_test_add_func ("/analysis/onnx/import", test_import);
  g_test_add_func ("/analysis/onnx/prefixes", test_prefixes);
  return g_test_run ();
}
