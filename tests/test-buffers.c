/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mp_graph_new_buffers: buffers given as arrays (the library's and the
 * Python module's way in) read as the CSV of them reads, so they plan the
 * same; bad buffers fail naming the buffer. */
#include "buffers.h"
#include "graph-private.h"
#include "memplan-analysis.h"

static MpPlan *
plan_graph (MpGraph *graph, const char *planner)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MpWorkload) w = mp_workload_new (graph, NULL, &error);
  MpPlan *plan;

  g_assert_no_error (error);
  plan = mp_workload_plan (w, mp_planner_lookup (planner), NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (plan->valid);
  return plan;
}

static void
test_hand_worked (void)
{
  static const guint64 sizes[] = { 10, 20, 5 };
  static const gint64  starts[] = { 0, 1, 2 }, ends[] = { 2, 3, 4 };
  g_autoptr (GError) error = NULL;
  MpGraph *graph = mp_graph_new_buffers (NULL, sizes, starts, ends, 3, &error);
  g_autoptr (MpPlan) plan = NULL;

  g_assert_no_error (error);
  g_assert_cmpstr (graph->name, ==, "buffers");
  g_assert_false (graph->has_ops);
  g_assert_cmpstr (graph->tensors[1].name, ==, "1");
  g_assert_cmpint (graph->tensors[1].first, ==, 1);
  g_assert_cmpint (graph->tensors[1].last, ==, 2); /* end is exclusive */
  plan = plan_graph (graph, "greedy-by-size");
  g_assert_cmpuint (plan->offsets[0], ==, 20);
  g_assert_cmpuint (plan->offsets[1], ==, 0);
  g_assert_cmpuint (plan->offsets[2], ==, 20);
  g_assert_cmpuint (plan->arena, ==, 30);
}

/* random buffers plan exactly as the CSV "id,lower,upper,size" of them */
static void
test_same_as_csv (void)
{
  GRand   *rand = g_rand_new_with_seed (32);
  guint    n = 300;
  g_autofree guint64 *sizes = g_new (guint64, n);
  g_autofree gint64 *starts = g_new (gint64, n), *ends = g_new (gint64, n);
  g_autoptr (GString) csv = g_string_new ("id,lower,upper,size\n");
  const char *planners[] = { "naive", "greedy-by-size", "partition", "best-fit", "first-fit" };

  for (guint i = 0; i < n; i++)
    {
      sizes[i] = g_rand_int_range (rand, 1, 1 << 20);
      starts[i] = g_rand_int_range (rand, 0, 500);
      ends[i] = starts[i] + g_rand_int_range (rand, 1, 60);
      g_string_append_printf (csv, "%u,%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%"
                              G_GUINT64_FORMAT "\n", i, starts[i], ends[i], sizes[i]);
    }
  g_rand_free (rand);
  for (guint p = 0; p < G_N_ELEMENTS (planners); p++)
    {
      g_autoptr (GError) error = NULL;
      MpGraph *from_arrays = mp_graph_new_buffers (NULL, sizes, starts, ends, n, &error);
      MpGraph *from_csv;
      g_autoptr (MpPlan) a = NULL, b = NULL;

      g_assert_no_error (error);
      from_csv = mp_graph_parse_csv (csv->str, csv->len, "buffers.csv", NULL, &error);
      g_assert_no_error (error);
      a = plan_graph (from_arrays, planners[p]);
      b = plan_graph (from_csv, planners[p]);
      g_assert_cmpuint (a->n_records, ==, n);
      g_assert_cmpuint (a->arena, ==, b->arena);
      g_assert_cmpuint (a->lower_bound, ==, b->lower_bound);
      g_assert_cmpmem (a->offsets, n * sizeof (guint64), b->offsets, n * sizeof (guint64));
    }
}

static void
check_error (guint64 size, gint64 start, gint64 end, const char *message)
{
  const guint64 sizes[] = { 8, size };
  const gint64  starts[] = { 0, start }, ends[] = { 1, end };
  g_autoptr (GError) error = NULL;

  g_assert_null (mp_graph_new_buffers ("mine", sizes, starts, ends, 2, &error));
  g_assert_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_INVALID);
  g_assert_cmpstr (error->message, ==, message);
}

static void
test_errors (void)
{
  check_error (4, 3, 3, "buffer 1: end 3 must be greater than start 3 (end is exclusive)");
  check_error (0, 0, 1, "buffer 1: size must be from 1 to 2^48 bytes, got 0");
  check_error ((G_GUINT64_CONSTANT (1) << 48) + 1, 0, 1,
               "buffer 1: size must be from 1 to 2^48 bytes, got 281474976710657");
  check_error (4, -1, 1, "buffer 1: start and end must be from 0 to 2^53, got -1 and 1");
  check_error (4, 0, (G_GINT64_CONSTANT (1) << 53) + 1,
               "buffer 1: start and end must be from 0 to 2^53, got 0 and 9007199254740993");
}

static void
test_empty (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MpGraph) graph = mp_graph_new_buffers (NULL, NULL, NULL, NULL, 0, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (graph->n_tensors, ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analysis/buffers/hand-worked", test_hand_worked);
  g_test_add_func ("/analysis/buffers/same-as-csv", test_same_as_csv);
  g_test_add_func ("/analysis/buffers/errors", test_errors);
  g_test_add_func ("/analysis/buffers/empty", test_empty);
  return g_test_run ();
}
