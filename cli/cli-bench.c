/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>

#include "cli.h"

/* CPU time of this process: on a shared machine it moves far less than
 * the wall clock, which is printed beside it. */
static gdouble
cpu_now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static gdouble
now (void)
{
  return g_get_monotonic_time () / 1e6;
}

static gdouble
peak_rss_mib (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_maxrss / 1024.0;
}

int
mp_cli_bench (int argc, char **argv)
{
  gint      n_tensors = 1000000, streams = 1;
  gint64    seed = 1;
  gboolean  csv = FALSE;
  guint64   estimate = 0;
  g_auto (MpCliPlanning) planning = { .default_planners = "naive,greedy-by-size" };
  g_autoptr (GError) error = NULL;
  g_autoptr (GOptionContext) ctx = NULL;
  GPtrArray *infos;
  g_autoptr (MpInput) input = NULL;
  g_autoptr (MpWorkload) w = NULL;
  const MpLifetimes *lt;
  g_autofree char *text = NULL;
  g_autofree char *lb = NULL;
  g_autofree char *shape = NULL;
  MpGenRandomOptions gopts = { 0 };
  gsize              length;
  gdouble            t0, c0, t_load, t_life, c_load, c_life;
  GOptionEntry       entries[] = {
    { "tensors", 'n', 0, G_OPTION_ARG_INT, &n_tensors, "Tensors (and ops) in the generated "
      "graph (default 1000000)", "N" },
    { "streams", 's', 0, G_OPTION_ARG_INT, &streams, "Streams (default 1)", "S" },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &seed, "Random seed (default 1)", "K" },
    { "csv", 0, 0, G_OPTION_ARG_NONE, &csv, "Load usage records (CSV) instead of a graph (JSON)",
      NULL },
    { "lifetimes", 0, 0, G_OPTION_ARG_STRING, &shape, "Lifetime shape: random (default), long, "
      "staircase (as in gen random)", "SHAPE" },
    { NULL }
  };

  ctx = g_option_context_new ("— time loading, lifetimes and planners on a generated graph");
  g_option_context_add_main_entries (ctx, entries, NULL);
  mp_cli_add_planning (ctx, &planning, MP_CLI_PLANNERS);
  if (!mp_cli_parse (ctx, &argc, &argv, 0, 0) || !mp_cli_planning_check (&planning))
    return MP_EXIT_BAD_INPUT;
  infos = planning.infos;
  if (!mp_cli_check_int ("--tensors", n_tensors, 1, MP_CLI_MAX_TENSORS) ||
      !mp_cli_check_int ("--streams", streams, 1, MP_MAX_STREAMS))
    return MP_EXIT_BAD_INPUT;
  if (shape && !mp_gen_lifetimes_from_string (shape, &gopts.lifetimes))
    {
      mp_cli_error ("unknown lifetime shape '%s' (known: random, long, staircase)", shape);
      return MP_EXIT_BAD_INPUT;
    }

  /* the text, and loading it (three times the text), then the costliest planner */
  for (guint i = 0; i < infos->len; i++)
    estimate = MAX (estimate, mp_memory_estimate_plan (
                                ((const MpPlannerInfo *) infos->pdata[i])->name, n_tensors));
  if (!mp_cli_check_memory ("bench", 3 * mp_memory_estimate_generate (n_tensors) + estimate,
                            planning.max_memory))
    return MP_EXIT_BAD_INPUT;
  gopts.n_tensors = n_tensors;
  gopts.n_streams = streams;
  gopts.seed = seed;
  text = mp_gen_random (&gopts, csv, &length);
  printf ("generated %s of %d tensors, %s lifetimes: %.1f MiB\n",
          csv ? "usage records (CSV)" : "graph (JSON)", n_tensors, shape ? shape : "random",
          length / 1048576.0);

  t0 = now ();
  c0 = cpu_now ();
  if (!(input = mp_input_parse (text, length, "<generated>", NULL, &error)))
    {
      mp_cli_error ("%s", error->message);
      return MP_EXIT_FAILED;
    }
  t_load = now () - t0;
  c_load = cpu_now () - c0;
  g_clear_pointer (&text, g_free);
  t0 = now ();
  c0 = cpu_now ();
  if (!(w = mp_workload_new (g_steal_pointer (&input->graph), NULL, &error)))
    {
      mp_cli_error ("%s", error->message);
      return MP_EXIT_FAILED;
    }
  lt = w->lifetimes;
  t_life = now () - t0;
  c_life = cpu_now () - c0;
  lb = mp_format_bytes (lt->lower_bound);
  {
    guint64 live_max_count = 0;
    g_autofree gint *delta = g_new0 (gint, lt->n_steps + 1);
    gint64           cur = 0;

    for (guint i = 0; i < lt->n_records; i++)
      {
        delta[lt->records[i].first]++;
        delta[lt->records[i].last + 1]--;
      }
    for (guint s = 0; s < lt->n_steps; s++)
      {
        cur += delta[s];
        live_max_count = MAX (live_max_count, (guint64) cur);
      }
    printf ("load %.3f s, lifetimes + lower bound %.3f s, together %.3f s "
            "(CPU %.3f + %.3f = %.3f s)\n",
            t_load, t_life, t_load + t_life, c_load, c_life, c_load + c_life);
    printf ("%u records over %u steps, at most %" G_GUINT64_FORMAT " live at once, lower bound %s\n",
            lt->n_records, lt->n_steps, live_max_count, lb);
  }

  printf ("\n%-18s %9s %9s %9s %12s %10s %9s  %s\n", "planner", "tensors", "time", "CPU",
          "arena", "arena / LB", "validate", "verdict");
  for (guint i = 0; i < infos->len; i++)
    {
      gdouble            c_plan = cpu_now ();
      g_autoptr (MpPlan) plan = mp_planner_run (infos->pdata[i], w->graph, lt, NULL, NULL, &error);
      g_autofree char   *arena = NULL;
      gdouble            t_valid;

      c_plan = cpu_now () - c_plan;
      if (!plan)
        {
          printf ("%-18s skipped: %s\n", ((MpPlannerInfo *) infos->pdata[i])->name,
                  error->message);
          g_clear_error (&error);
          continue;
        }
      t0 = now ();
      mp_workload_judge (w, plan);
      t_valid = now () - t0;
      arena = mp_format_bytes (plan->arena);
      printf ("%-18s %9u %7.3f s %7.3f s %12s %10.4f %7.3f s  %s\n", plan->planner,
              plan->n_records, plan->seconds, c_plan, arena, mp_plan_ratio (plan), t_valid,
              plan->valid ? "valid" : plan->problem);
    }
  printf ("peak memory (max RSS) %.0f MiB, %.0f bytes per tensor\n", peak_rss_mib (),
          peak_rss_mib () * 1048576.0 / n_tensors);
  return MP_EXIT_OK;
}
