/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <stdio.h>

#include "cli.h"

typedef struct
{
  gboolean snapshot;
  guint64  n;
  guint64  seed;
  gboolean gzip;
} TorchGen;

static gboolean
fill_torch (FILE *out, gpointer data)
{
  const TorchGen *g = data;

  return g->snapshot ? mp_gen_torch_snapshot (out, g->n, g->seed, g->gzip)
                     : mp_gen_torch_trace (out, g->n, g->seed, g->gzip);
}

/* gen torch-snapshot / torch-trace: PyTorch-shaped files streamed to the
 * output, gzip when its name ends in .gz. */
static int
gen_torch (const char *model, gint n, gint64 seed, const char *output)
{
  TorchGen         g = { g_str_equal (model, "torch-snapshot"), n, seed,
                         output && g_str_has_suffix (output, ".gz") };
  g_autoptr (GError) error = NULL;

  if (!mp_cli_check_output (output, &error) ||
      !mp_write_file_stream (output, fill_torch, &g, &error))
    {
      mp_cli_error ("%s", error->message);
      return MP_EXIT_BAD_INPUT;
    }
  return MP_EXIT_OK;
}

int
mp_cli_gen (int argc, char **argv)
{
  gint             batch = 1, seq = 0, layers = 0, tensors = 1000, streams = 1;
  gint64           seed = 1;
  gboolean         training = FALSE, csv = FALSE;
  g_autofree char *dtype_name = NULL;
  g_autofree char *shape = NULL;
  g_auto (MpCliOutput) out = { NULL };
  g_autofree char *max_memory = NULL;
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GOptionContext) ctx = NULL;
  MpGenZooOptions  o = { 0 };
  MpDType          dtype = MP_DTYPE_F32;
  gsize            length;
  guint            n_models;
  const MpGenZooModel *models = mp_gen_zoo_models (&n_models);
  GString         *summary = g_string_new ("Models:\n");
  g_autofree char *summary_text = NULL;
  GOptionEntry     entries[] = {
    { "batch", 'b', 0, G_OPTION_ARG_INT, &batch, "Batch size (default 1)", "N" },
    { "seq", 0, 0, G_OPTION_ARG_INT, &seq, "Sequence length (bert-base 128, gpt2 1024)", "N" },
    { "layers", 0, 0, G_OPTION_ARG_INT, &layers, "Transformer layers (default 12)", "N" },
    { "dtype", 0, 0, G_OPTION_ARG_STRING, &dtype_name, "Floating-point type: f32 (default), "
      "f16, bf16", "TYPE" },
    { "training", 0, 0, G_OPTION_ARG_NONE, &training, "gpt2: forward, loss and backward", NULL },
    { "tensors", 'n', 0, G_OPTION_ARG_INT, &tensors, "random: tensors (default 1000); "
      "torch-snapshot: trace entries; torch-trace: [memory] events", "N" },
    { "streams", 's', 0, G_OPTION_ARG_INT, &streams, "random: streams (default 1)", "S" },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &seed, "random: seed (default 1)", "K" },
    { "csv", 0, 0, G_OPTION_ARG_NONE, &csv, "random: write usage records (CSV)", NULL },
    { "lifetimes", 0, 0, G_OPTION_ARG_STRING, &shape, "random: lifetime shape: random "
      "(default; mostly short), long (uniform up to the whole run), staircase (each to the "
      "end)", "SHAPE" },
    { "max-memory", 0, 0, G_OPTION_ARG_STRING, &max_memory, "random: refuse a graph estimated to "
      "need more than SIZE (512M, 8G; default: the memory available)", "SIZE" },
    { NULL }
  };

  for (guint i = 0; i < n_models; i++)
    g_string_append_printf (summary, "  %-13s %s\n", models[i].name, models[i].description);
  g_string_append (summary, "  torch-snapshot a PyTorch memory snapshot pickle (-n entries; "
                   "-o F.pickle[.gz])\n  torch-trace    a PyTorch profiler Chrome trace (-n "
                   "[memory] events; -o F.json[.gz])\n");
  summary_text = g_string_free (summary, FALSE);
  ctx = g_option_context_new ("MODEL — write a model-zoo graph (memplan.graph/1 JSON)");
  g_option_context_set_summary (ctx, summary_text);
  g_option_context_add_main_entries (ctx, entries, NULL);
  mp_cli_add_output (ctx, &out, NULL);
  if (!mp_cli_parse (ctx, &argc, &argv, 1, 1))
    return MP_EXIT_BAD_INPUT;
  /* the zoo checks its own upper bounds; streams are the loader's */
  if (!mp_cli_check_int ("--batch", batch, 1, G_MAXINT) ||
      !mp_cli_check_int ("--seq", seq, 0, G_MAXINT) ||
      !mp_cli_check_int ("--layers", layers, 0, G_MAXINT) ||
      !mp_cli_check_int ("--tensors", tensors, 1, MP_CLI_MAX_TENSORS) ||
      !mp_cli_check_int ("--streams", streams, 1, MP_MAX_STREAMS) ||
      !mp_cli_check_memory (g_str_equal (argv[1], "random") ? "gen random" : NULL,
                            mp_memory_estimate_generate (tensors), max_memory))
    return MP_EXIT_BAD_INPUT;
  if (dtype_name && !mp_dtype_from_string (dtype_name, &dtype))
    {
      mp_cli_error ("unknown dtype '%s' (known: f32, f16, bf16)", dtype_name);
      return MP_EXIT_BAD_INPUT;
    }
  if ((csv || shape) && !g_str_equal (argv[1], "random"))
    {
      mp_cli_error ("--csv and --lifetimes are for the random model only");
      return MP_EXIT_BAD_INPUT;
    }
  if (shape && !mp_gen_lifetimes_from_string (shape, &o.random.lifetimes))
    {
      mp_cli_error ("unknown lifetime shape '%s' (known: random, long, staircase)", shape);
      return MP_EXIT_BAD_INPUT;
    }

  if (g_str_equal (argv[1], "torch-snapshot") || g_str_equal (argv[1], "torch-trace"))
    return gen_torch (argv[1], tensors, seed, out.output);
  o.batch = batch;
  o.seq = seq;
  o.layers = layers;
  o.dtype = dtype;
  o.training = training;
  o.random.n_tensors = tensors;
  o.random.n_streams = streams;
  o.random.seed = seed;
  if (csv)
    text = mp_gen_random (&o.random, TRUE, &length);
  else if (!(text = mp_gen_zoo (argv[1], &o, &length, &error)))
    {
      mp_cli_error ("%s", error->message);
      return MP_EXIT_BAD_INPUT;
    }
  if (!mp_cli_output (out.output, text, &error))
    {
      mp_cli_error ("%s", error->message);
      return MP_EXIT_BAD_INPUT;
    }
  return MP_EXIT_OK;
}
