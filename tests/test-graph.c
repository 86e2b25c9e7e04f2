/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <string.h>

#include "test-util.h"

static void
test_teaching_graph (void)
{
  g_autofree char *path = test_data_path ("teaching.json");
  g_autoptr (GError) error = NULL;
  g_autoptr (MpGraph) graph = mp_graph_load (path, &error);
  g_autoptr (MpLifetimes) lt = NULL;
  gint flat, pool;

  g_assert_no_error (error);
  g_assert_cmpstr (graph->name, ==, "teaching");
  g_assert_cmpuint (graph->n_tensors, ==, 9);
  g_assert_cmpuint (graph->n_ops, ==, 6);
  flat = mp_graph_find_tensor (graph, "flat");
  pool = mp_graph_find_tensor (graph, "pool_out");
  g_assert_cmpint (graph->tensors[flat].view_of, ==, pool);
  g_assert_cmpuint (graph->tensors[flat].size, ==, 4096 * 4);

  lt = mp_lifetimes_compute (graph, NULL, &error);
  g_assert_no_error (error);
  /* conv_out, relu_out, pool_out (+ flat), logits, probs; image and params are not planned */
  g_assert_cmpuint (lt->n_records, ==, 5);
  g_assert_cmpint (lt->record_of[flat], ==, lt->record_of[pool]);
  /* pool_out is written at step 2 and read through its view by fc at step 4 */
  g_assert_cmpuint (lt->records[lt->record_of[pool]].first, ==, 2);
  g_assert_cmpuint (lt->records[lt->record_of[pool]].last, ==, 4);
  /* probs is an output: it lives to the last step */
  g_assert_cmpuint (lt->records[lt->n_records - 1].last, ==, 5);
  g_assert_cmpuint (lt->workspace, ==, 8192);
  /* conv_out (64 KiB) and relu_out (64 KiB) are both live at step 1 */
  g_assert_cmpuint (lt->lower_bound, ==, 131072);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analysis/graph/teaching", test_teaching_graph);
  return g_test_run ();
}
