/* SPDX-License-Identifier: GPL-3.0-or-later */
/* One verdict everywhere: every sample input goes through memplan-cli plan
 * (JSON), validate, suite and exec, and through the app's plan set; each
 * planner's arena, lower bound and verdicts must be the same from all of
 * them, and exec must find corruption exactly where a plan is invalid under
 * the schedule it executes. */
#include <string.h>
#include <json-c/json.h>
#include <glib/gstdio.h>

#include "plan-set.h"
#include "test-util.h"

/* exec writes every byte of every arena: keep the test quick */
#define EXEC_MAX_ARENA (256u << 20)

typedef struct
{
  char    *planner;
  guint64  arena;
  guint64  lower_bound;
  gboolean valid;
  gboolean sequential_valid;
  gboolean concurrent_checked;
  gboolean concurrent_valid;
} Verdict;

static void
verdict_clear (gpointer data)
{
  g_free (((Verdict *) data)->planner);
}

static gboolean
get_bool (json_object *obj, const char *key, gboolean *value)
{
  json_object *v;

  if (!json_object_object_get_ex (obj, key, &v))
    return FALSE;
  *value = json_object_get_boolean (v);
  return TRUE;
}

static guint64
get_u64 (json_object *obj, const char *key)
{
  json_object *v;

  g_assert_true (json_object_object_get_ex (obj, key, &v));
  return (guint64) json_object_get_int64 (v);
}

static GArray *
verdicts_new (void)
{
  GArray *a = g_array_new (FALSE, TRUE, sizeof (Verdict));

  g_array_set_clear_func (a, verdict_clear);
  return a;
}

static const Verdict *
find (GArray *verdicts, const char *planner)
{
  for (guint i = 0; i < verdicts->len; i++)
    if (g_str_equal (g_array_index (verdicts, Verdict, i).planner, planner))
      return &g_array_index (verdicts, Verdict, i);
  return NULL;
}

/* Every planner but the exact one, whose result depends on its budget. */
static char *
heuristics (void)
{
  guint                n;
  const MpPlannerInfo *infos = mp_planners (&n);
  GString             *s = g_string_new (NULL);

  for (guint i = 0; i < n; i++)
    if (!g_str_equal (infos[i].name, "optimal"))
      g_string_append_printf (s, "%s%s", s->len ? "," : "", infos[i].name);
  return g_string_free (s, FALSE);
}

static GArray *
from_plan_json (const char *path)
{
  g_autofree char *text = NULL;
  json_object     *root, *plans;
  GArray          *out = verdicts_new ();

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  root = json_tokener_parse (text);
  g_assert_nonnull (root);
  g_assert_true (json_object_object_get_ex (root, "plans", &plans));
  for (gsize i = 0; i < json_object_array_length (plans); i++)
    {
      json_object *p = json_object_array_get_idx (plans, i), *name;
      Verdict      v = { 0 };

      g_assert_true (json_object_object_get_ex (p, "planner", &name));
      v.planner = g_strdup (json_object_get_string (name));
      v.arena = get_u64 (p, "arena");
      v.lower_bound = get_u64 (p, "lower_bound");
      g_assert_true (get_bool (p, "valid", &v.valid));
      g_assert_true (get_bool (p, "sequential_valid", &v.sequential_valid));
      v.concurrent_checked = get_bool (p, "concurrent_valid", &v.concurrent_valid);
      g_array_append_val (out, v);
    }
  json_object_put (root);
  return out;
}

static GArray *
from_report (const char *path)
{
  g_autofree char *text = NULL;
  json_object     *root, *graphs, *results;
  GArray          *out = verdicts_new ();

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  root = json_tokener_parse (text);
  g_assert_nonnull (root);
  g_assert_true (json_object_object_get_ex (root, "graphs", &graphs));
  g_assert_cmpuint (json_object_array_length (graphs), ==, 1);
  g_assert_true (json_object_object_get_ex (json_object_array_get_idx (graphs, 0), "results",
                                            &results));
  for (gsize i = 0; i < json_object_array_length (results); i++)
    {
      json_object *r = json_object_array_get_idx (results, i), *name;
      Verdict      v = { 0 };

      /* a planner that could not run on this input */
      if (!json_object_object_get_ex (r, "arena", NULL))
        continue;
      g_assert_true (json_object_object_get_ex (r, "planner", &name));
      v.planner = g_strdup (json_object_get_string (name));
      v.arena = get_u64 (r, "arena");
      v.lower_bound = get_u64 (r, "lower_bound");
      g_assert_true (get_bool (r, "valid", &v.valid));
      g_array_append_val (out, v);
    }
  json_object_put (root);
  return out;
}

static GArray *
from_plan_set (MpPlanSet *set)
{
  GArray *out = verdicts_new ();

  for (guint i = 0; i < mp_plan_set_get_n_plans (set); i++)
    {
      const MpPlan *p = mp_plan_set_get_plan (set, i);
      Verdict       v = { g_strdup (p->planner), p->arena, p->lower_bound, p->valid,
                          p->sequential_valid, p->concurrent_checked, p->concurrent_valid };

      g_array_append_val (out, v);
    }
  return out;
}

static void
check_exec (const char *path, const char *planners, GArray *want, gboolean concurrent)
{
  g_autofree char *out = NULL, *err = NULL;
  json_object     *root, *runs;
  int status = test_run_cli (&out, &err, "exec", path, "-p", planners, "--backend", "cpu",
                             "--no-baselines", "--format", "json", NULL);

  g_assert_cmpint (status, <=, 1);
  root = json_tokener_parse (out);
  g_assert_nonnull (root);
  g_assert_true (json_object_object_get_ex (root, "runs", &runs));
  for (gsize i = 0; i < json_object_array_length (runs); i++)
    {
      json_object   *r = json_object_array_get_idx (runs, i), *name;
      const Verdict *v;
      gboolean       clean = FALSE, valid;

      g_assert_true (json_object_object_get_ex (r, "planner", &name));
      g_assert_true (get_bool (r, "clean", &clean));
      v = find (want, json_object_get_string (name));
      g_assert_nonnull (v);
      valid = concurrent && v->concurrent_checked ? v->concurrent_valid : v->sequential_valid;
      if (clean != valid)
        g_error ("%s: %s: exec says %s, the plan is %s under the executed schedule", path,
                 v->planner, clean ? "clean" : "corrupt", valid ? "valid" : "invalid");
    }
  json_object_put (root);
}

static void
check_file (const char *path, const char *planners, const char *tmp)
{
  g_autofree char *plan_json = g_build_filename (tmp, "plans.json", NULL);
  g_autofree char *report = g_build_filename (tmp, "report.json", NULL);
  g_autofree char *out = NULL, *err = NULL;
  g_auto (GStrv) names = g_strsplit (planners, ",", -1);
  g_autoptr (GError) error = NULL;
  g_autoptr (MpPlanSet) set = NULL;
  g_autoptr (GArray) cli = NULL;
  g_autoptr (GArray) suite = NULL;
  g_autoptr (GArray) app = NULL;
  gboolean all_valid = TRUE;
  int      status;

  set = mp_plan_set_build (path, NULL, (const char * const *) names, NULL, NULL, &error);
  status = test_run_cli (&out, &err, "plan", path, "-p", planners, "--format", "json", "-o",
                         plan_json, NULL);
  if (set == NULL)
    {
      /* the same refusal, in the same words */
      g_autofree char *line = g_strdup_printf ("memplan-cli: %s\n", error->message);

      g_assert_cmpint (status, ==, 2);
      g_assert_cmpstr (err, ==, line);
      return;
    }
  g_assert_cmpint (status, <=, 1);
  cli = from_plan_json (plan_json);
  app = from_plan_set (set);
  g_assert_cmpuint (cli->len, ==, app->len);
  for (guint i = 0; i < cli->len; i++)
    {
      const Verdict *c = &g_array_index (cli, Verdict, i);
      const Verdict *a = find (app, c->planner);

      g_assert_nonnull (a);
      g_assert_cmpuint (c->arena, ==, a->arena);
      g_assert_cmpuint (c->lower_bound, ==, a->lower_bound);
      g_assert_cmpint (c->valid, ==, a->valid);
      g_assert_cmpint (c->sequential_valid, ==, a->sequential_valid);
      g_assert_cmpint (c->concurrent_checked, ==, a->concurrent_checked);
      if (c->concurrent_checked)
        g_assert_cmpint (c->concurrent_valid, ==, a->concurrent_valid);
      all_valid &= c->valid;
    }
  g_assert_cmpint (status, ==, all_valid ? 0 : 1);

  /* validate judges the written plans by the same rule */
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  status = test_run_cli (&out, &err, "validate", path, plan_json, NULL);
  g_assert_cmpint (status, ==, all_valid ? 0 : 1);
  for (guint i = 0; i < cli->len; i++)
    {
      const Verdict   *c = &g_array_index (cli, Verdict, i);
      g_autofree char *valid = g_strdup_printf ("%s: %s: valid", plan_json, c->planner);
      g_autofree char *invalid = g_strdup_printf ("%s: %s: INVALID", plan_json, c->planner);

      g_assert_true ((strstr (out, valid) != NULL) == c->valid);
      g_assert_true ((strstr (out, invalid) != NULL) == !c->valid);
    }

  /* a suite records the same figures (the observed plan is not a planner's) */
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  status = test_run_cli (&out, &err, "suite", path, "-p", planners, "-o", report, NULL);
  g_assert_cmpint (status, <=, 1);
  suite = from_report (report);
  for (guint i = 0; i < suite->len; i++)
    {
      const Verdict *s = &g_array_index (suite, Verdict, i);
      const Verdict *c = find (cli, s->planner);

      g_assert_nonnull (c);
      g_assert_cmpuint (s->arena, ==, c->arena);
      g_assert_cmpuint (s->lower_bound, ==, c->lower_bound);
      g_assert_cmpint (s->valid, ==, c->valid);
    }

  {
    const MpGraph *graph = mp_plan_set_get_graph (set);
    const Verdict *naive = find (cli, "naive");

    if (graph->has_ops && naive && naive->arena <= EXEC_MAX_ARENA)
      check_exec (path, planners, cli, mp_graph_n_streams (graph) > 1);
  }
  g_unlink (plan_json);
  g_unlink (report);
}

/* Every input under dir, as "label/relative/path" (the subtest's name) to
 * its full path. */
static void
collect (const char *dir, const char *label, GTree *out)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)))
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autofree char *sub = g_build_filename (label, name, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        {
          /* reports are not inputs; real/ holds benchmark instances of up to
           * 62,185 buffers (test-best-of loads them) */
          if (!g_str_equal (name, "reports") && !g_str_equal (sub, "tests/data/real"))
            collect (path, sub, out);
        }
      else if (g_str_has_suffix (name, ".json") || g_str_has_suffix (name, ".csv") ||
               g_str_has_suffix (name, ".pickle") || g_str_has_suffix (name, ".gz") ||
               g_str_has_suffix (name, ".onnx"))
        g_tree_insert (out, g_steal_pointer (&sub), g_steal_pointer (&path));
    }
}

/* set once in main, before the subtests run */
static char *planners;
static guint n_samples;

/* Each sample in a child, so that a failure is reported as this subtest's
 * (the file's name) and the other samples still run. */
static void
test_sample (gconstpointer path)
{
  if (g_test_subprocess ())
    {
      g_autofree char *tmp = g_dir_make_tmp ("memplan-consistency-XXXXXX", NULL);

      g_assert_nonnull (tmp);
      check_file (path, planners, tmp);
      g_rmdir (tmp);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

/* a guard against a moved data folder turning the test into nothing */
static void
test_samples_found (void)
{
  g_assert_cmpuint (n_samples, >=, 40);
}

static gboolean
add_sample (gpointer key, gpointer value, gpointer data)
{
  g_autofree char *name = g_strconcat ("/consistency/", (const char *) key, NULL);

  g_test_add_data_func (name, value, test_sample);
  n_samples++;
  return FALSE;
}

static gint
cmp_names (gconstpointer a, gconstpointer b, gpointer data)
{
  return strcmp (a, b);
}

/* One subtest per sample, named by its path, so a failure names the file. */
int
main (int argc, char **argv)
{
  g_autofree char *data = test_data_path ("");
  g_autofree char *tests = test_fixture_path ("");
  g_autoptr (GTree) files = g_tree_new_full (cmp_names, NULL, g_free, g_free);
  int status;

  g_test_init (&argc, &argv, NULL);
  if (!g_test_subprocess ())
    g_test_set_nonfatal_assertions ();
  collect (data, "data", files);
  collect (tests, "tests/data", files);
  planners = heuristics ();
  g_test_add_func ("/consistency/samples-found", test_samples_found);
  g_tree_foreach (files, add_sample, NULL);
  status = g_test_run ();
  g_free (planners);
  return status;
}
