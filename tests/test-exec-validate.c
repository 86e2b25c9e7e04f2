/* SPDX-License-Identifier: GPL-3.0-or-later */
/* exec is as strict as validate: on random graphs (views, several outputs
 * per op, tensors nobody reads, outputs, two streams) and random corrupted
 * plans, the CPU backend run one op at a time in the order the plan was
 * made for reports corruption exactly when the validator rejects the plan
 * under that order. */
#include <string.h>

#include "memplan-exec.h"
#include "test-util.h"

#define N_GRAPHS 40
#define N_PLANS  12

/* A graph of 3 to 10 ops, each reading up to two earlier tensors and
 * writing one or two new ones; a quarter of the outputs are views of an
 * earlier activation, made (as a view op is) by an op that reads that
 * activation; a few are graph outputs. */
static char *
random_graph_json (GRand *rand, gboolean two_streams)
{
  g_autoptr (GString) tensors = g_string_new (NULL);
  g_autoptr (GString) ops = g_string_new (NULL);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GArray) sizes = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GArray) roots = g_array_new (FALSE, FALSE, sizeof (gboolean));
  guint n_ops = g_rand_int_range (rand, 3, 11);
  guint x_size = 64;

  g_string_append_printf (tensors, "{\"name\": \"x\", \"size\": %u, \"kind\": \"input\"}", x_size);
  g_ptr_array_add (names, g_strdup ("x"));
  g_array_append_val (sizes, x_size);
  g_array_append_val (roots, (gboolean) { FALSE });
  for (guint o = 0; o < n_ops; o++)
    {
      guint n_in = g_rand_int_range (rand, 0, 3);
      guint n_out = g_rand_int_range (rand, 1, 3);
      g_autoptr (GString) viewed = g_string_new (NULL);
      GString *outs;
      guint    n_before = names->len;

      g_string_append_printf (ops, "%s{\"name\": \"op%u\", \"stream\": %u, \"inputs\": [",
                              o ? ", " : "", o, two_streams ? g_rand_int_range (rand, 0, 2) : 0);
      for (guint k = 0; k < n_in; k++)
        g_string_append_printf (ops, "%s\"%s\"", k ? ", " : "",
                                (char *) names->pdata[g_rand_int_range (rand, 0, names->len)]);
      outs = g_string_new (NULL);
      for (guint k = 0; k < n_out; k++)
        {
          g_autofree char *name = g_strdup_printf ("t%u_%u", o, k);
          guint            base = g_rand_int_range (rand, 0, n_before);
          guint            size;

          if (g_rand_int_range (rand, 0, 4) == 0 && g_array_index (roots, gboolean, base))
            {
              /* a view: 8-aligned offset, inside its base */
              guint base_size = g_array_index (sizes, guint, base);
              guint offset = 8 * g_rand_int_range (rand, 0, base_size / 8);

              size = g_rand_int_range (rand, 1, base_size - offset + 1);
              g_string_append_printf (tensors, ", {\"name\": \"%s\", \"view_of\": \"%s\", "
                                               "\"offset\": %u, \"size\": %u}", name,
                                      (char *) names->pdata[base], offset, size);
              g_array_append_val (roots, (gboolean) { FALSE });
              g_string_append_printf (viewed, "%s\"%s\"", n_in || viewed->len ? ", " : "",
                                      (char *) names->pdata[base]);
            }
          else
            {
              size = g_rand_int_range (rand, 8, 600);
              g_string_append_printf (tensors, ", {\"name\": \"%s\", \"size\": %u%s}", name, size,
                                      g_rand_int_range (rand, 0, 6) == 0
                                        ? ", \"kind\": \"output\"" : "");
              g_array_append_val (roots, (gboolean) { TRUE });
            }
          g_string_append_printf (outs, "%s\"%s\"", k ? ", " : "", name);
          g_ptr_array_add (names, g_steal_pointer (&name));
          g_array_append_val (sizes, size);
        }
      g_string_append_printf (ops, "%s], \"outputs\": [%s]}", viewed->str, outs->str);
      g_string_free (outs, TRUE);
    }
  return g_strdup_printf ("{\"format\": \"memplan.graph/1\", \"name\": \"random\", "
                          "\"alignment\": 16, \"tensors\": [%s], \"ops\": [%s]}",
                          tensors->str, ops->str);
}

/* Moves one record: onto another record (shifted by a few slots), or
 * anywhere below the arena, keeping the plan's alignment; or nowhere. */
static void
corrupt (GRand *rand, MpPlan *plan)
{
  guint   x, y;
  guint64 align = MAX (plan->alignment, 1), at;
  gint64  shift;

  if (plan->n_records < 2 || g_rand_int_range (rand, 0, 5) == 0)
    return;
  x = g_rand_int_range (rand, 0, plan->n_records);
  y = g_rand_int_range (rand, 0, plan->n_records);
  if (g_rand_boolean (rand))
    {
      shift = (gint64) g_rand_int_range (rand, -3, 4) * (gint64) align;
      at = (gint64) plan->offsets[y] + shift < 0 ? 0 : plan->offsets[y] + shift;
    }
  else
    at = align * g_rand_int_range (rand, 0, plan->arena / align + 1);
  plan->offsets[x] = at;
  mp_plan_finish (plan);
  plan->checked = FALSE;
}

static void
check_plan (const MpGraph *graph, const MpLifetimes *lt, MpPlan *plan, const char *json)
{
  MpExecOptions opts = { .backend = MP_EXEC_BACKEND_CPU, .sequential = TRUE, .iterations = 1 };
  g_autoptr (GError) error = NULL;
  g_autoptr (MpExecResult) r = NULL;
  gboolean valid = mp_plan_judge (graph, NULL, plan);

  r = mp_exec_run (graph, lt, plan, &opts, NULL, &error);
  g_assert_no_error (error);
  if (valid != (r->n_corrupted == 0))
    {
      g_autoptr (GString) offsets = g_string_new (NULL);

      for (guint i = 0; i < plan->n_records; i++)
        g_string_append_printf (offsets, " %s@%" G_GUINT64_FORMAT,
                                graph->tensors[plan->records[i].tensor].name, plan->offsets[i]);
      g_test_message ("graph %s\nplan %s:%s\nvalidate: %s\nexec: %s", json, plan->planner,
                      offsets->str, valid ? "valid" : plan->problem,
                      r->first_corruption ? r->first_corruption : "clean");
    }
  g_assert_cmpint (valid, ==, r->n_corrupted == 0);
}

static void
test_exec_iff_validate (gconstpointer data)
{
  gboolean          two_streams = GPOINTER_TO_INT (data);
  g_autoptr (GRand) rand = g_rand_new_with_seed (two_streams ? 2027 : 2026);
  const char       *planner = two_streams ? "multistream" : "greedy-by-size";
  guint             n_rejected = 0, n_accepted = 0;

  for (guint gi = 0; gi < N_GRAPHS; gi++)
    {
      g_autofree char *json = random_graph_json (rand, two_streams);
      g_autoptr (GError) error = NULL;
      g_autoptr (MpGraph) graph = mp_graph_parse_json (json, strlen (json), "random.json",
                                                       &error);
      g_autoptr (MpLifetimes) lt = NULL;

      g_assert_no_error (error);
      lt = mp_lifetimes_compute (graph, NULL, &error);
      g_assert_no_error (error);
      for (guint pi = 0; pi < N_PLANS; pi++)
        {
          MpPlannerOptions popts = { 0 };
          g_autoptr (MpPlan) plan = mp_planner_run (mp_planner_lookup (planner), graph, lt,
                                                    &popts, NULL, &error);

          g_assert_no_error (error);
          corrupt (rand, plan);
          check_plan (graph, lt, plan, json);
          if (plan->valid) /* as check_plan judged it */
            n_accepted++;
          else
            n_rejected++;
        }
    }
  /* the property is only worth something if both sides are exercised */
  g_test_message ("%u plans rejected, %u accepted", n_rejected, n_accepted);
  g_assert_cmpuint (n_rejected, >=, N_GRAPHS * N_PLANS / 4);
  g_assert_cmpuint (n_accepted, >=, N_GRAPHS * N_PLANS / 10);
}

/* The case of the issue: on the chain of data/teaching.json every tensor
 * is laid over the one its op reads; nothing else is ever live with it. */
static void
test_in_op_overlap (void)
{
  g_autofree char *path = test_data_path ("teaching.json");
  g_autoptr (GError) error = NULL;
  g_autoptr (MpGraph) graph = test_graph_load (path, &error);
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, &error);
  g_autoptr (MpPlan) plan = mp_plan_new ("by-hand", lt);
  g_autoptr (MpExecResult) r = NULL;
  MpExecOptions opts = { .backend = MP_EXEC_BACKEND_CPU };

  g_assert_no_error (error);
  for (guint i = 0; i < plan->n_records; i++)
    plan->offsets[i] = 0;
  mp_plan_finish (plan);
  g_assert_false (mp_plan_judge (graph, NULL, plan));
  r = mp_exec_run (graph, lt, plan, &opts, NULL, &error);
  g_assert_no_error (error);
  /* conv_out, relu_out, pool_out and logits, each by the next op's output */
  g_assert_cmpuint (r->n_corrupted, ==, 4);
  g_assert_cmpstr (r->first_corruption, ==, "after op 'relu' ran, tensor 'conv_out' was "
                                            "corrupted at byte 0: overwritten by tensor "
                                            "'relu_out'");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/exec/validate/in-op-overlap", test_in_op_overlap);
  g_test_add_data_func ("/exec/validate/random/op-order", GINT_TO_POINTER (FALSE),
                        test_exec_iff_validate);
  g_test_add_data_func ("/exec/validate/random/parallel-groups", GINT_TO_POINTER (TRUE),
                        test_exec_iff_validate);
  return g_test_run ();
}
