/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Shared by the test programs: building small graphs from (size, first,
 * last) triples and finding the data folder. */

#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/wait.h>
#include "memplan-analysis.h"
/* the engine's internals, which the front-ends reach through workload.h */
#include "graph.h"
#include "input.h"
#include "lifetimes.h"
#include "schedule.h"
#include "time-index.h"
#include "trace.h"
#include "validate.h"
#include "pickle.h"

typedef struct
{
  guint64 size;
  guint   first; /* inclusive */
  guint   last;  /* inclusive */
} TestRecord;

/* Usage records as a MiniMalloc CSV graph named b0, b1, … */
static inline MpGraph *
test_graph_from_records (const TestRecord *recs, guint n)
{
  GString *csv = g_string_new ("id,lower,upper,size\n");
  MpGraph *graph;
  GError  *error = NULL;

  for (guint i = 0; i < n; i++)
    g_string_append_printf (csv, "b%u,%u,%u,%" G_GUINT64_FORMAT "\n", i, recs[i].first,
                            recs[i].last + 1, recs[i].size);
  graph = mp_graph_parse_csv (csv->str, csv->len, "test.csv", NULL, &error);
  g_assert_no_error (error);
  g_string_free (csv, TRUE);
  return graph;
}

/* n random buffers over n_steps: half live 1-3 steps, half anywhere up to
 * the end; sizes 1-4 times a power of two below 2^size_shift. */
static inline MpGraph *
test_random_records (GRand *rand, guint n, guint n_steps, guint size_shift)
{
  g_autofree TestRecord *recs = g_new (TestRecord, MAX (n, 1));

  for (guint i = 0; i < n; i++)
    {
      guint first = g_rand_int_range (rand, 0, n_steps);
      guint span = g_rand_boolean (rand) ? g_rand_int_range (rand, 0, 3)
                                         : g_rand_int_range (rand, 0, n_steps);
      guint shift = g_rand_int_range (rand, 0, size_shift);

      recs[i].first = first;
      recs[i].last = MIN (first + span, n_steps - 1);
      recs[i].size = g_rand_int_range (rand, 1, 5) * (1u << shift);
    }
  return test_graph_from_records (recs, n);
}

/* name in a new temporary directory; test_tmp_remove removes both. */
static inline char *
test_tmp_path (const char *name)
{
  g_autofree char *dir = g_dir_make_tmp ("memplan-test-XXXXXX", NULL);

  g_assert_nonnull (dir);
  return g_build_filename (dir, name, NULL);
}

static inline void
test_tmp_remove (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);

  g_assert_cmpint (g_remove (path), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* python3 -c script arg path: a file Python's own modules write. */
static inline void
test_run_python (const char *script, const char *arg, const char *path)
{
  const char         *argv[] = { "python3", "-c", script, arg, path, NULL };
  gint                status;
  g_autoptr (GError)  error = NULL;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL,
                               NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
}

static inline char *
test_data_path (const char *relative)
{
  const char *dir = g_getenv ("MEMPLAN_DATA_DIR");

  if (dir == NULL)
    dir = MEMPLAN_TEST_DATA_DIR;
  return g_build_filename (dir, relative, NULL);
}

/* Runs one planner by name on a graph and judges the result as the
 * front-ends do (mp_plan_judge, under the schedule it was made for). */
static inline MpPlan *
test_run_planner (const char *name, const MpGraph *graph, const MpLifetimes *lt)
{
  const MpPlannerInfo *info = mp_planner_lookup (name);
  GError              *error = NULL;
  MpPlan              *plan;

  g_assert_nonnull (info);
  plan = mp_planner_run (info, graph, lt, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (plan);
  mp_plan_judge (graph, NULL, plan);
  g_assert_cmpstr (plan->problem, ==, NULL);
  g_assert_true (plan->valid);
  return plan;
}

/* A path in the source tree ("tests/compare"). */
static inline char *
test_source_path (const char *relative)
{
  const char *src = g_getenv ("MEMPLAN_SOURCE_DIR");

  if (src == NULL)
    src = MEMPLAN_TEST_SOURCE_DIR;
  return g_build_filename (src, relative, NULL);
}

/* A fixture of tests/data, the test programs' own inputs (data/ holds the
 * users' examples: test_data_path). */
static inline char *
test_fixture_path (const char *name)
{
  g_autofree char *dir = test_source_path ("tests/data");

  return g_build_filename (dir, name, NULL);
}

/* The memplan-cli under test (meson sets $MEMPLAN_CLI). */
static inline const char *
test_cli_path (void)
{
  const char *cli = g_getenv ("MEMPLAN_CLI");

  g_assert_nonnull (cli);
  return cli;
}

/* How test_run_cli_full runs the CLI; zeroed: as test_run_cli does. */
typedef struct
{
  const char        *cwd;      /* NULL: the test's own folder */
  const char *const *env;      /* NAME=VALUE pairs set on top of the test's, NULL-terminated */
  const char        *redirect; /* shell redirections of the CLI's streams (">&-"), or NULL */
} TestCliOptions;

/* Runs $MEMPLAN_CLI with the NULL-terminated argument vector, standard
 * input from /dev/null; returns its exit status and, where out or err is
 * not NULL, what it wrote (else that stream goes to /dev/null). */
static inline int
test_run_cli_full (const TestCliOptions *options, const char *const *args, char **out,
                   char **err)
{
  static const TestCliOptions defaults = { 0 };
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *script = NULL;
  g_auto (GStrv) env = NULL;
  GSpawnFlags flags = G_SPAWN_STDIN_FROM_DEV_NULL;
  int         status;

  if (options == NULL)
    options = &defaults;
  if (options->redirect)
    {
      script = g_strdup_printf ("exec \"$0\" \"$@\" %s", options->redirect);
      g_ptr_array_add (argv, "/bin/sh");
      g_ptr_array_add (argv, "-c");
      g_ptr_array_add (argv, script);
    }
  g_ptr_array_add (argv, (gpointer) test_cli_path ());
  for (guint i = 0; args[i]; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  if (options->env)
    {
      env = g_get_environ ();
      for (guint i = 0; options->env[i]; i++)
        {
          const char      *eq = strchr (options->env[i], '=');
          g_autofree char *name = NULL;

          g_assert_nonnull (eq);
          name = g_strndup (options->env[i], eq - options->env[i]);
          env = g_environ_setenv (env, name, eq + 1, TRUE);
        }
    }
  if (out == NULL)
    flags |= G_SPAWN_STDOUT_TO_DEV_NULL;
  if (err == NULL)
    flags |= G_SPAWN_STDERR_TO_DEV_NULL;
  g_spawn_sync (options->cwd, (char **) argv->pdata, env, flags, NULL, NULL, out, err, &status,
                &error);
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (status));
  return WEXITSTATUS (status);
}

/* Runs $MEMPLAN_CLI with the NULL-terminated argument vector; returns its
 * exit status, stdout and stderr. */
static inline int
test_run_cli_argv (const char *const *args, char **out, char **err)
{
  return test_run_cli_full (NULL, args, out, err);
}

/* test_run_cli_full with the arguments from a va_list, NULL-terminated. */
static inline int
test_run_cli_va (const TestCliOptions *options, char **out, char **err, va_list ap)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  const char *arg;

  while ((arg = va_arg (ap, const char *)))
    g_ptr_array_add (args, (gpointer) arg);
  g_ptr_array_add (args, NULL);
  return test_run_cli_full (options, (const char *const *) args->pdata, out, err);
}

/* test_run_cli_argv with the arguments inline, NULL-terminated. */
static inline int
test_run_cli (char **out, char **err, ...)
{
  va_list ap;
  int     status;

  va_start (ap, err);
  status = test_run_cli_va (NULL, out, err, ap);
  va_end (ap);
  return status;
}

/* A valid, judged plan with just the figures the winner's words read
 * (planner, arena, lower bound); free its planner and itself. */
static inline MpPlan *
test_figures_plan (const char *planner, guint64 arena, guint64 lower_bound)
{
  MpPlan *plan = g_new0 (MpPlan, 1);

  plan->planner = g_strdup (planner);
  plan->arena = arena;
  plan->lower_bound = lower_bound;
  plan->checked = plan->valid = plan->sequential_valid = TRUE;
  plan->n_records = 1;
  return plan;
}

/* Any input by its content, as the workload opens it: the graph alone. */
static inline MpGraph *
test_graph_load (const char *path, GError **error)
{
  g_autoptr (MpInput) input = mp_input_load (path, NULL, error);

  if (input == NULL)
    return NULL;
  if (input->trace)
    {
      input->graph = NULL;
      return g_steal_pointer (&input->trace->graph);
    }
  return g_steal_pointer (&input->graph);
}


/* A graph from JSON text that must parse; name stands for its file. */
static inline MpGraph *
test_graph_load_string (const char *json, const char *name)
{
  GError  *error = NULL;
  MpGraph *graph = mp_graph_parse_json (json, strlen (json), name, &error);

  g_assert_no_error (error);
  return graph;
}
