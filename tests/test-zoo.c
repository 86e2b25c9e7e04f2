/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <string.h>
#include <sys/wait.h>
#include <glib/gstdio.h>

#include "memplan-analysis.h"
#include "test-util.h"

/* The model zoo: parameter counts against the published figures, output and
 * hand-computed intermediate shapes, the training graph's autodiff pattern,
 * and every graph loading and planning validly. */

static MpGraph *
gen (const char *model, const MpGenZooOptions *o)
{
  MpGenZooOptions  def = { 0 };
  GError          *error = NULL;
  gsize            length;
  g_autofree char *json = mp_gen_zoo (model, o ? o : &def, &length, &error);
  MpGraph         *graph;

  g_assert_no_error (error);
  graph = mp_graph_parse_json (json, length, model, &error);
  g_assert_no_error (error);
  return graph;
}

/* BatchNorm running statistics are buffers, not parameters. */
static guint64
n_params (const MpGraph *graph)
{
  guint64 n = 0;

  for (guint i = 0; i < graph->n_tensors; i++)
    {
      const MpTensor *t = &graph->tensors[i];

      if (t->kind == MP_TENSOR_PARAM && !g_str_has_suffix (t->name, ".running_mean") &&
          !g_str_has_suffix (t->name, ".running_var"))
        n += t->size / mp_dtype_size (t->dtype);
    }
  return n;
}

static void
assert_shape (const MpGraph *graph, const char *name, guint n_dims, const gint64 *shape)
{
  gint            id = mp_graph_find_tensor (graph, name);
  const MpTensor *t;

  if (id < 0)
    g_error ("%s: no tensor '%s'", graph->name, name);
  t = &graph->tensors[id];
  g_assert_cmpuint (t->n_dims, ==, n_dims);
  for (guint d = 0; d < n_dims; d++)
    g_assert_cmpint (t->shape[d], ==, shape[d]);
}

#define ASSERT_SHAPE(graph, name, ...) \
  assert_shape (graph, name, sizeof ((gint64[]){ __VA_ARGS__ }) / sizeof (gint64), \
                (gint64[]){ __VA_ARGS__ })

/* Exact counts are those of the reference implementations (torchvision,
 * Hugging Face); the papers round them: 25.6 M, 3.5 M, 110 M, 124 M. */
static void
test_params (void)
{
  static const struct
  {
    const char *model;
    guint64     exact;
    gdouble     published; /* millions */
  } cases[] = {
    { "resnet50", 25557032, 25.6 },
    { "mobilenet-v2", 3504872, 3.5 },
    { "bert-base", 109482240, 110 }, /* embeddings and pooler included */
    { "gpt2", 124439808, 124 },      /* the LM head is tied to wte */
    { "inception", 23834568, 23.8 }, /* torchvision's 27,161,264 less the aux head's 3,326,696 */
    { "unet", 31030658, 31.0 },      /* sum of the 23 conv layers of the paper's figure 1 */
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (MpGraph) graph = gen (cases[i].model, NULL);
      guint64 n = n_params (graph);

      g_test_message ("%s: %" G_GUINT64_FORMAT " parameters", cases[i].model, n);
      g_assert_cmpuint (n, ==, cases[i].exact);
      /* within 1 % of the published rounded figure */
      g_assert_cmpfloat (G_APPROX_VALUE (n / 1e6, cases[i].published, cases[i].published / 100),
                         ==, TRUE);
    }
}

static void
test_cnn_shapes (void)
{
  MpGenZooOptions o = { .batch = 8 };
  g_autoptr (MpGraph) r = gen ("resnet50", &o);
  g_autoptr (MpGraph) m = gen ("mobilenet-v2", &o);
  g_autoptr (MpGraph) inc = gen ("inception", &o);
  g_autoptr (MpGraph) u = gen ("unet", &o);

  /* 224 -> conv 7x7/2 pad 3 -> 112 -> maxpool 3/2 pad 1 -> 56 */
  ASSERT_SHAPE (r, "image", 8, 3, 224, 224);
  ASSERT_SHAPE (r, "conv1.out", 8, 64, 112, 112);
  ASSERT_SHAPE (r, "maxpool.out", 8, 64, 56, 56);
  ASSERT_SHAPE (r, "layer1.0.conv3.out", 8, 256, 56, 56);
  ASSERT_SHAPE (r, "layer2.0.conv2.out", 8, 128, 28, 28); /* v1.5: stride on the 3x3 */
  ASSERT_SHAPE (r, "layer2.0.conv1.out", 8, 128, 56, 56);
  ASSERT_SHAPE (r, "layer4.2.conv3.out", 8, 2048, 7, 7);
  ASSERT_SHAPE (r, "flatten.out", 8, 2048);
  ASSERT_SHAPE (r, "logits", 8, 1000);
  g_assert_cmpint (r->tensors[mp_graph_find_tensor (r, "logits")].kind, ==, MP_TENSOR_OUTPUT);
  /* flatten and in-place ReLU are views */
  g_assert_cmpint (r->tensors[mp_graph_find_tensor (r, "flatten.out")].view_of, ==,
                   mp_graph_find_tensor (r, "avgpool.out"));
  g_assert_cmpint (r->tensors[mp_graph_find_tensor (r, "layer1.0.relu3.out")].view_of, ==,
                   mp_graph_find_tensor (r, "layer1.0.add.out"));

  /* expansion 6 of 16 channels at 112 -> 96; depthwise stride 2 -> 56 */
  ASSERT_SHAPE (m, "features.2.conv.0.0.out", 8, 96, 112, 112);
  ASSERT_SHAPE (m, "features.2.conv.1.0.out", 8, 96, 56, 56);
  ASSERT_SHAPE (m, "features.2.conv.1.0.weight", 96, 1, 3, 3);
  ASSERT_SHAPE (m, "features.17.conv.2.out", 8, 320, 7, 7);
  ASSERT_SHAPE (m, "features.18.0.out", 8, 1280, 7, 7);
  ASSERT_SHAPE (m, "logits", 8, 1000);
  g_assert_cmpint (mp_graph_find_op (m, "features.3.add"), >=, 0);  /* 24 -> 24, stride 1 */
  g_assert_cmpint (mp_graph_find_op (m, "features.4.add"), <, 0);   /* stride 2 */

  /* 299 -> 149 -> 147 -> 147 -> 73 -> 73 -> 71 -> 35 */
  ASSERT_SHAPE (inc, "maxpool2.out", 8, 192, 35, 35);
  ASSERT_SHAPE (inc, "Mixed_5b.cat.out", 8, 256, 35, 35);
  ASSERT_SHAPE (inc, "Mixed_6a.cat.out", 8, 768, 17, 17);
  ASSERT_SHAPE (inc, "Mixed_7a.cat.out", 8, 1280, 8, 8);
  ASSERT_SHAPE (inc, "Mixed_7c.cat.out", 8, 2048, 8, 8);
  ASSERT_SHAPE (inc, "logits", 8, 1000);
  g_assert_cmpuint (mp_graph_n_streams (inc), ==, 4);
  g_assert_cmpuint (inc->ops[mp_graph_find_op (inc, "Mixed_5b.branch5x5_2.conv")].stream, ==, 1);
  g_assert_cmpuint (inc->ops[mp_graph_find_op (inc, "Mixed_5b.cat")].stream, ==, 0);

  /* 572 -> 570 -> 568 (skip 1) ... 32 -> 30 -> 28 at the bottom */
  ASSERT_SHAPE (u, "down1.relu2.out", 8, 64, 568, 568);
  ASSERT_SHAPE (u, "bottom.conv2.out", 8, 1024, 28, 28);
  ASSERT_SHAPE (u, "up4.upconv.out", 8, 512, 56, 56);
  ASSERT_SHAPE (u, "up1.crop", 8, 64, 392, 392);
  ASSERT_SHAPE (u, "segmentation", 8, 2, 388, 388);
  /* the crop starts 88 rows and 88 columns into the 568x568 skip */
  g_assert_cmpuint (u->tensors[mp_graph_find_tensor (u, "up1.crop")].view_offset, ==,
                    (88 * 568 + 88) * 4);
}

static void
test_transformer_shapes (void)
{
  MpGenZooOptions ob = { .batch = 2, .seq = 64 };
  MpGenZooOptions og = { .batch = 2, .seq = 32, .layers = 2, .dtype = MP_DTYPE_F16 };
  g_autoptr (MpGraph) b = gen ("bert-base", &ob);
  g_autoptr (MpGraph) g = gen ("gpt2", &og);
  const MpTensor *k;

  ASSERT_SHAPE (b, "embeddings.LayerNorm.out", 2, 64, 768);
  ASSERT_SHAPE (b, "encoder.layer.0.attention.self.query.permute", 2, 12, 64, 64);
  ASSERT_SHAPE (b, "encoder.layer.0.attention.self.scores.out", 2, 12, 64, 64);
  ASSERT_SHAPE (b, "encoder.layer.11.intermediate.gelu.out", 2, 64, 3072);
  ASSERT_SHAPE (b, "encoder.layer.11.output.LayerNorm.out", 2, 64, 768);
  ASSERT_SHAPE (b, "pooler.activation.out", 2, 768);
  g_assert_cmpint (b->tensors[mp_graph_find_tensor (b, "encoder.layer.11.output.LayerNorm.out")]
                     .kind, ==, MP_TENSOR_OUTPUT);

  ASSERT_SHAPE (g, "transformer.h.1.attn.c_attn.out", 2, 32, 2304);
  ASSERT_SHAPE (g, "transformer.h.1.attn.softmax.out", 2, 12, 32, 32);
  ASSERT_SHAPE (g, "lm_head.out", 2, 32, 50257);
  g_assert_cmpint (mp_graph_find_tensor (g, "transformer.h.2.ln_1.out"), <, 0); /* 2 layers */
  /* k is the middle third of c_attn's output: a view 768 f16 columns in */
  k = &g->tensors[mp_graph_find_tensor (g, "transformer.h.0.attn.key.view")];
  g_assert_cmpuint (k->view_offset, ==, 768 * 2);
  g_assert_cmpint (k->dtype, ==, MP_DTYPE_F16);
  g_assert_cmpuint (g->tensors[mp_graph_find_tensor (g, "lm_head.out")].size, ==,
                    2ull * 32 * 50257 * 2);
  /* layer-norm statistics stay f32 */
  g_assert_cmpint (g->tensors[mp_graph_find_tensor (g, "transformer.ln_f.mean")].dtype, ==,
                   MP_DTYPE_F32);
}

static gint
op_index (const MpGraph *graph, const char *name)
{
  gint o = mp_graph_find_op (graph, name);

  if (o < 0)
    g_error ("no op '%s'", name);
  return o;
}

static void
test_training (void)
{
  MpGenZooOptions    o = { .seq = 128, .training = TRUE };
  g_autoptr (MpGraph) g = gen ("gpt2", &o);
  MpLifetimeOptions  lo = { 0 };
  GError            *error = NULL;
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (g, &lo, &error);
  guint64            grad_elems = 0;
  guint              n_grads = 0;
  gint               fc_out = mp_graph_find_tensor (g, "transformer.h.5.mlp.c_fc.out");
  gint               softmax = mp_graph_find_tensor (g, "transformer.h.5.attn.softmax.out");

  g_assert_no_error (error);
  /* forward, then the loss, then backward in reverse layer order */
  g_assert_cmpint (op_index (g, "lm_head"), <, op_index (g, "loss.nll"));
  g_assert_cmpint (op_index (g, "loss.nll"), <, op_index (g, "backward.seed"));
  g_assert_cmpint (op_index (g, "transformer.h.11.mlp.c_fc.backward"), <,
                   op_index (g, "transformer.h.10.mlp.c_fc.backward"));
  g_assert_cmpint (op_index (g, "transformer.h.1.ln_1.backward"), <,
                   op_index (g, "transformer.h.0.mlp.c_proj.backward"));
  g_assert_cmpint (op_index (g, "transformer.wpe.backward"), <,
                   op_index (g, "transformer.wte.backward"));

  /* a saved activation lives exactly until the backward op that needs it */
  g_assert_cmpuint (lt->records[lt->record_of[fc_out]].last, ==,
                    op_index (g, "transformer.h.5.mlp.gelu.backward"));
  g_assert_cmpuint (lt->records[lt->record_of[softmax]].last, ==,
                    op_index (g, "transformer.h.5.attn.softmax.backward"));
  g_assert_cmpuint (lt->records[lt->record_of[fc_out]].first, ==,
                    op_index (g, "transformer.h.5.mlp.c_fc"));

  /* one .grad per parameter, kept to the end; the tied wte gets two
   * contributions accumulated in place */
  for (guint i = 0; i < g->n_tensors; i++)
    if (g->tensors[i].kind == MP_TENSOR_OUTPUT && g->tensors[i].view_of < 0 &&
        !g_str_equal (g->tensors[i].name, "loss"))
      {
        grad_elems += g->tensors[i].size / 4;
        n_grads++;
        g_assert_cmpuint (lt->records[lt->record_of[i]].last, ==, g->n_ops - 1);
      }
  g_assert_cmpuint (grad_elems, ==, 124439808);
  g_assert_cmpuint (n_grads, ==, 2 + 12 * 12 + 2);
  g_assert_cmpint (mp_graph_find_op (g, "transformer.wte.weight.accumulate_grad1"), >, 0);
  /* the q, k, v slices' gradients are concatenated into one buffer */
  ASSERT_SHAPE (g, "transformer.h.3.attn.c_attn.out.grad", 1, 128, 2304);
}

/* every model at default options and a variant plans validly with every planner */
static void
test_all_plan (void)
{
  guint                n_models;
  const MpGenZooModel *models = mp_gen_zoo_models (&n_models);
  guint                n_planners;
  const MpPlannerInfo *planners = mp_planners (&n_planners);

  g_assert_cmpuint (n_models, ==, 7);
  for (guint m = 0; m < n_models; m++)
    for (guint v = 0; v < 2; v++)
      {
        MpGenZooOptions o = { .batch = v ? 3 : 0, .dtype = v ? MP_DTYPE_BF16 : 0 };
        g_autoptr (MpGraph) graph = NULL;
        g_autoptr (MpLifetimes) lt = NULL;
        MpLifetimeOptions lo = { 0 };
        GError *error = NULL;

        if (g_str_equal (models[m].name, "gpt2") || g_str_equal (models[m].name, "bert-base"))
          {
            o.seq = 64;
            o.layers = 2;
            o.training = v && g_str_equal (models[m].name, "gpt2");
          }
        o.random.n_tensors = 500;
        o.random.n_streams = 2;
        graph = gen (models[m].name, &o);
        lt = mp_lifetimes_compute (graph, &lo, &error);
        g_assert_no_error (error);
        g_assert_cmpuint (lt->lower_bound, >, 0);
        for (guint p = 0; p < n_planners; p++)
          {
            g_autoptr (MpPlan) plan = test_run_planner (planners[p].name, graph, lt);

            g_assert_cmpuint (plan->arena, >=, lt->lower_bound);
          }
      }
}

static void
test_dtype_batch (void)
{
  MpGenZooOptions o16 = { .batch = 4, .dtype = MP_DTYPE_F16 }, o32 = { .batch = 4 };
  MpGenZooOptions o1 = { 0 };
  g_autoptr (MpGraph) a = gen ("resnet50", &o16);
  g_autoptr (MpGraph) b = gen ("resnet50", &o32);
  g_autoptr (MpGraph) c = gen ("resnet50", &o1);

  g_assert_cmpuint (a->n_tensors, ==, b->n_tensors);
  for (guint i = 0; i < a->n_tensors; i++)
    {
      g_assert_cmpuint (2 * a->tensors[i].size, ==, b->tensors[i].size);
      if (a->tensors[i].kind == MP_TENSOR_PARAM)
        g_assert_cmpuint (c->tensors[i].size, ==, b->tensors[i].size);
      else
        g_assert_cmpuint (4 * c->tensors[i].size, ==, b->tensors[i].size);
    }
  g_assert_cmpstr (a->name, ==, "resnet50-b4-f16");
}

static void
test_errors (void)
{
  MpGenZooOptions o = { 0 };
  GError         *error = NULL;
  gsize           length;

  g_assert_null (mp_gen_zoo ("alexnet", &o, &length, &error));
  g_assert_cmpstr (error->message, ==, "unknown model 'alexnet' (known: resnet50, mobilenet-v2, "
                                       "bert-base, gpt2, unet, inception, random)");
  g_clear_error (&error);
  o.seq = 128;
  g_assert_null (mp_gen_zoo ("resnet50", &o, &length, &error));
  g_assert_cmpstr (error->message, ==, "model 'resnet50' takes no --seq option");
  g_clear_error (&error);
  o.seq = 2048;
  g_assert_null (mp_gen_zoo ("gpt2", &o, &length, &error));
  g_assert_cmpstr (error->message, ==, "--seq 2048 is longer than the gpt2 position table (1024)");
  g_clear_error (&error);
  o.seq = 0;
  o.training = TRUE;
  g_assert_null (mp_gen_zoo ("bert-base", &o, &length, &error));
  g_assert_cmpstr (error->message, ==, "model 'bert-base' takes no --training option");
  g_clear_error (&error);
}

/* The graphs shipped in data/zoo are what the generator writes today. */
static void
test_shipped (void)
{
  static const struct
  {
    const char     *file;
    const char     *model;
    MpGenZooOptions o;
  } files[] = {
    { "zoo/resnet50.json", "resnet50", { 0 } },
    { "zoo/mobilenet-v2.json", "mobilenet-v2", { 0 } },
    { "zoo/bert-base.json", "bert-base", { 0 } },
    { "zoo/gpt2.json", "gpt2", { 0 } },
    { "zoo/gpt2-training.json", "gpt2", { .training = TRUE } },
    { "zoo/unet.json", "unet", { 0 } },
    { "zoo/inception.json", "inception", { 0 } },
    { "zoo/random-2000.json", "random", { .random = { .n_tensors = 2000, .n_streams = 2,
                                                      .seed = 7 } } },
  };

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *path = test_data_path (files[i].file);
      g_autofree char *shipped = NULL;
      g_autofree char *fresh = NULL;
      gsize            n_shipped, n_fresh;
      GError          *error = NULL;
      g_autoptr (MpGraph) graph = NULL;

      g_assert_true (g_file_get_contents (path, &shipped, &n_shipped, NULL));
      fresh = mp_gen_zoo (files[i].model, &files[i].o, &n_fresh, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (shipped, ==, fresh);
      graph = test_graph_load (path, &error);
      g_assert_no_error (error);
    }
}

/* The "Done when" line: gen resnet50 --batch 8 && plan --planner all */
static void
test_cli (void)
{
  g_autofree char *dir = g_dir_make_tmp ("memplan-zoo-XXXXXX", NULL);
  g_autofree char *out = g_build_filename (dir, "r.json", NULL);
  g_autofree char *std_out = NULL, *std_err = NULL;
  GError          *error = NULL;
  const char      *gen_argv[] = { "gen", "resnet50", "--batch", "8", "-o", out, NULL };
  const char      *plan_argv[] = { "plan", out, "--planner", "all", NULL };
  const char      *bad_argv[] = { "gen", "vgg", "-o", out, NULL };

  g_assert_cmpint (test_run_cli_argv (gen_argv, &std_out, &std_err), ==, 0);
  g_clear_pointer (&std_out, g_free);
  g_clear_pointer (&std_err, g_free);
  g_assert_cmpint (test_run_cli_argv (plan_argv, &std_out, &std_err), ==, 0);
  g_assert_nonnull (strstr (std_out, "resnet50-b8:"));
  g_assert_nonnull (strstr (std_out, "greedy-by-size"));
  g_assert_null (strstr (std_out, " NO"));
  g_clear_pointer (&std_out, g_free);
  g_clear_pointer (&std_err, g_free);
  /* a bad model: exit 2, the existing file left as it was */
  g_assert_cmpint (test_run_cli_argv (bad_argv, &std_out, &std_err), ==, 2);
  g_assert_nonnull (strstr (std_err, "unknown model 'vgg'"));
  {
    g_autoptr (MpGraph) graph = test_graph_load (out, &error);

    g_assert_no_error (error);
    g_assert_cmpstr (graph->name, ==, "resnet50-b8");
  }
  g_unlink (out);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analysis/zoo/params", test_params);
  g_test_add_func ("/analysis/zoo/cnn-shapes", test_cnn_shapes);
  g_test_add_func ("/analysis/zoo/transformer-shapes", test_transformer_shapes);
  g_test_add_func ("/analysis/zoo/training", test_training);
  g_test_add_func ("/analysis/zoo/dtype-batch", test_dtype_batch);
  g_test_add_func ("/analysis/zoo/all-plan", test_all_plan);
  g_test_add_func ("/analysis/zoo/errors", test_errors);
  g_test_add_func ("/analysis/zoo/shipped", test_shipped);
  g_test_add_func ("/analysis/zoo/cli", test_cli);
  return g_test_run ();
}
