/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* memplan-cli bench-order: the order stage's figures (README, "The order is
 * a lever"): per graph the peak of live bytes of each method, whether the
 * search proved its order, the times, and the two promises checked: best
 * is no worse than any heuristic, optimal no worse than best. */

static char *
peak_text (guint64 peak)
{
  return peak == G_MAXUINT64 ? g_strdup ("-") : mp_format_bytes (peak);
}

static gboolean
bench_graph (const char *name, const MpGraph *graph, gdouble budget, gboolean optimal,
             gboolean *all_ok, GError **error)
{
  MpOrderOptions opts = { .time_budget = budget };
  g_autoptr (MpOrderResult) best = NULL, opt = NULL;
  const MpOrderResult *r;
  guint64              heuristic_min = G_MAXUINT64;
  gboolean             ok;
  g_autofree char     *saved = NULL;

  if (!(best = mp_order_compute (graph, MP_ORDER_BEST, &opts, error)) ||
      (optimal && !(opt = mp_order_compute (graph, MP_ORDER_OPTIMAL, &opts, error))))
    return FALSE;
  r = opt ? opt : best;
  for (guint m = MP_ORDER_LIST; m <= MP_ORDER_POST_ORDER; m++)
    heuristic_min = MIN (heuristic_min, best->peaks[m]);
  ok = best->peak <= heuristic_min && (!opt || opt->peak <= best->peak);
  *all_ok &= ok;
  saved = g_strdup_printf ("%.2f%%", r->given_peak
                                       ? 100.0 * (r->given_peak - r->peak) / r->given_peak : 0);
  printf ("%-26s %7u", name, graph->n_ops);
  for (guint m = MP_ORDER_GIVEN; m <= MP_ORDER_BEST; m++)
    {
      g_autofree char *p = peak_text (best->peaks[m]);

      printf (" %10s", p);
    }
  {
    g_autofree char *p = opt ? peak_text (opt->peak) : g_strdup ("-");
    g_autofree char *lb = opt && !opt->proved ? mp_format_bytes (opt->lower_bound) : NULL;
    g_autofree char *result = !opt ? g_strdup ("-")
                              : opt->proved ? g_strdup ("proved")
                                            : g_strdup_printf ("LB %s", lb);

    printf (" %10s %-14s %8s %9.3f %9.3f  %s\n", p, result, saved, best->seconds,
            opt ? opt->seconds : 0.0, ok ? "ok" : "FAIL");
  }
  return TRUE;
}

int
mp_cli_bench_order (int argc, char **argv)
{
  gdouble   budget = 0;
  gint      random_ops = 0;
  gboolean  all_ok = TRUE;
  g_auto (GStrv) dims = NULL;
  g_autoptr (GOptionContext) ctx = NULL;
  GOptionEntry entries[] = {
    { "order-budget", 0, 0, G_OPTION_ARG_DOUBLE, &budget, "Seconds of the exact search per "
      "graph (default 10)", "S" },
    { "dim", 0, 0, G_OPTION_ARG_STRING_ARRAY, &dims, "ONNX: bind a symbolic dimension "
      "(repeatable)", "NAME=VALUE" },
    { "random", 0, 0, G_OPTION_ARG_INT, &random_ops, "Also time --order best on a random graph "
      "of N ops (gen random)", "N" },
    { NULL }
  };

  ctx = g_option_context_new ("[FILE…] — the peak of live bytes of every op order method");
  g_option_context_set_summary (ctx, "For each graph FILE (JSON, ONNX) prints the peak of live "
                                     "bytes in the given order and in the order of each method "
                                     "(list, dfs, post-order, tree where the graph is a tree, "
                                     "best, optimal), whether the search proved its order, the "
                                     "saving over the given order, the seconds of best and of "
                                     "optimal, and 'ok' when best is no worse than list, dfs "
                                     "and post-order and optimal no worse than best. Exit "
                                     "status 1 when a check fails.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!mp_cli_parse (ctx, &argc, &argv, 0, -1))
    return MP_EXIT_BAD_INPUT;
  if (!mp_cli_check_double ("--order-budget", budget, 0, MP_OPTIMAL_MAX_BUDGET) ||
      !mp_cli_check_int ("--random", random_ops, 0, MP_CLI_MAX_TENSORS))
    return MP_EXIT_BAD_INPUT;
  if (argc < 2 && random_ops == 0)
    {
      mp_cli_error ("which graphs? give FILEs or --random N (see --help)");
      return MP_EXIT_BAD_INPUT;
    }

  printf ("%-26s %7s %10s %10s %10s %10s %10s %10s %10s %-14s %8s %9s %9s  %s\n", "graph",
          "ops", "given", "list", "dfs", "post-order", "tree", "best", "optimal", "search",
          "saved", "best s", "opt s", "check");
  for (int i = 1; i < argc; i++)
    {
      g_autoptr (GError) error = NULL;
      MpWorkloadOptions  wopts = { .input.onnx.dims = (const char *const *) dims };
      g_autoptr (MpWorkload) w = mp_workload_open (argv[i], &wopts, &error);
      g_autofree char   *base = g_path_get_basename (argv[i]);

      if (w == NULL || !bench_graph (base, w->graph, budget, TRUE, &all_ok, &error))
        {
          mp_cli_error ("%s", error->message);
          return MP_EXIT_BAD_INPUT;
        }
      if (!mp_cli_flush_stdout ())
        return MP_EXIT_BAD_INPUT;
    }
  if (random_ops > 0)
    {
      g_autoptr (GError) error = NULL;
      MpGenRandomOptions ropts = { .n_tensors = (guint) random_ops, .n_streams = 1, .seed = 1 };
      gsize              length;
      g_autofree char   *json = mp_gen_random (&ropts, FALSE, &length);
      g_autoptr (MpGraph) graph = mp_graph_parse_json (json, length, "random", &error);
      g_autofree char   *name = g_strdup_printf ("random (gen, %d ops)", random_ops);

      if (graph == NULL || !bench_graph (name, graph, budget, FALSE, &all_ok, &error))
        {
          mp_cli_error ("%s", error->message);
          return MP_EXIT_BAD_INPUT;
        }
    }
  return all_ok ? MP_EXIT_OK : MP_EXIT_FAILED;
}
