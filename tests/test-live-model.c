/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The live list's model (app/live-model.c) without a display: after every
 * move of the step cursor its items are exactly the buffers live at that
 * step in the model's order, the items_changed it emits (one per move)
 * turn the old list into the new one for a view that mirrors it, and the
 * rows of buffers live at both steps stay the same objects. */
#include "live-model.h"
#include "live-row.h"
#include "test-util.h"

typedef struct
{
  GListModel *model;
  GPtrArray  *mirror;  /* what a view holds, kept by the signals alone */
  guint       signals;
} Mirror;

static void
items_changed (GListModel *model, guint pos, guint removed, guint added, Mirror *m)
{
  g_assert_cmpuint (pos + removed, <=, m->mirror->len);
  g_ptr_array_remove_range (m->mirror, pos, removed);
  for (guint i = 0; i < added; i++)
    g_ptr_array_insert (m->mirror, pos + i, g_list_model_get_item (model, pos + i));
  m->signals++;
}

static const MpPlan *sort_plan;

static int
by_offset (gconstpointer a, gconstpointer b)
{
  guint   x = *(const guint *) a, y = *(const guint *) b;
  guint64 ox = sort_plan->offsets[x], oy = sort_plan->offsets[y];

  return ox != oy ? (ox < oy ? -1 : 1) : (x > y) - (x < y);
}

/* The records live at step, by brute force, in the list's order. */
static GArray *
live_at (const MpPlan *plan, guint step)
{
  GArray *live = g_array_new (FALSE, FALSE, sizeof (guint));

  for (guint r = 0; r < plan->n_records; r++)
    if (plan->records[r].first <= step && step <= plan->records[r].last)
      g_array_append_val (live, r);
  sort_plan = plan;
  g_array_sort (live, by_offset);
  return live;
}

static void
test_live_model_steps (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (31);

  for (guint trial = 0; trial < 40; trial++)
    {
      guint n = g_rand_int_range (rand, 1, 300), n_steps = g_rand_int_range (rand, 2, 80);
      g_autoptr (MpGraph) graph = test_random_records (rand, n, n_steps, 12);
      g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, NULL);
      g_autoptr (MpPlan) plan = test_run_planner ("greedy-by-size", graph, lt);
      g_autoptr (MpLiveModel) model = mp_live_model_new ();
      Mirror m = { G_LIST_MODEL (model), g_ptr_array_new_with_free_func (g_object_unref), 0 };
      g_autoptr (GHashTable) before = g_hash_table_new (NULL, NULL);
      guint step = 0;

      g_signal_connect (model, "items-changed", G_CALLBACK (items_changed), &m);
      for (guint move = 0; move < 60; move++)
        {
          g_autoptr (GArray) expect = NULL;
          guint signals = m.signals;

          /* jumps, and one step at a time as the keyboard moves */
          step = g_rand_boolean (rand) ? (guint) g_rand_int_range (rand, 0, n_steps)
                                       : MIN (step + 1, n_steps - 1);
          expect = live_at (plan, step);
          /* every row made (a view that shows them all), by its tensor */
          g_hash_table_remove_all (before);
          for (guint i = 0; i < g_list_model_get_n_items (m.model); i++)
            {
              g_autoptr (MpLiveRow) row = g_list_model_get_item (m.model, i);

              g_hash_table_insert (before, GUINT_TO_POINTER (mp_live_row_get_tensor (row)), row);
            }
          mp_live_model_set (model, graph, plan, g_array_copy (expect));
          g_assert_cmpuint (m.signals - signals, <=, 1);
          g_assert_cmpuint (g_list_model_get_n_items (m.model), ==, expect->len);
          g_assert_cmpuint (m.mirror->len, ==, expect->len);
          for (guint i = 0; i < expect->len; i++)
            {
              const MpUsage *u = &plan->records[g_array_index (expect, guint, i)];
              g_autoptr (MpLiveRow) row = g_list_model_get_item (m.model, i);
              gpointer       kept = g_hash_table_lookup (before, GUINT_TO_POINTER (u->tensor));

              g_assert_true (row == m.mirror->pdata[i]);
              g_assert_cmpuint (mp_live_row_get_tensor (row), ==, u->tensor);
              g_assert_cmpuint (mp_live_row_get_size (row), ==, u->bytes);
              g_assert_cmpuint (mp_live_row_get_offset (row), ==,
                                plan->offsets[g_array_index (expect, guint, i)]);
              if (kept != NULL)
                g_assert_true (row == kept);
            }
        }
      /* another order: everything afresh, still the live set */
      mp_live_model_set_sort (model, MP_LIVE_SORT_SIZE);
      g_assert_cmpuint (m.mirror->len, ==, g_list_model_get_n_items (m.model));
      for (guint i = 1; i < m.mirror->len; i++)
        g_assert_cmpuint (mp_live_row_get_size (m.mirror->pdata[i - 1]), >=,
                          mp_live_row_get_size (m.mirror->pdata[i]));
      mp_live_model_set (model, NULL, NULL, NULL);
      g_assert_cmpuint (m.mirror->len, ==, 0);
      g_ptr_array_unref (m.mirror);
    }
}

/* A hand-worked move: at step 1 buffers a, b, c are live, at step 2 a, c,
 * d; the list (by offset) changes in one signal over b's row, and the row
 * that showed b shows d. */
static void
test_live_model_hand (void)
{
  static const TestRecord recs[] = {
    { 4, 0, 3 }, /* a */
    { 2, 1, 1 }, /* b */
    { 1, 0, 2 }, /* c */
    { 2, 2, 3 }, /* d */
  };
  g_autoptr (MpGraph) graph = test_graph_from_records (recs, G_N_ELEMENTS (recs));
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, NULL);
  g_autoptr (MpPlan) plan = test_run_planner ("greedy-by-size", graph, lt);
  g_autoptr (MpLiveModel) model = mp_live_model_new ();
  Mirror m = { G_LIST_MODEL (model), g_ptr_array_new_with_free_func (g_object_unref), 0 };
  g_autoptr (GArray) one = live_at (plan, 1);
  g_autoptr (GArray) two = live_at (plan, 2);
  g_autoptr (MpLiveRow) b = NULL;
  guint pos_b = 0;

  g_signal_connect (model, "items-changed", G_CALLBACK (items_changed), &m);
  mp_live_model_set (model, graph, plan, g_array_copy (one));
  g_assert_cmpuint (m.mirror->len, ==, 3);
  for (guint i = 0; i < 3; i++)
    if (mp_live_row_get_tensor (m.mirror->pdata[i]) == 1)
      b = g_object_ref (m.mirror->pdata[pos_b = i]);
  g_assert_nonnull (b);
  mp_live_model_set (model, graph, plan, g_array_copy (two));
  g_assert_cmpuint (m.signals, ==, 2);
  g_assert_cmpuint (m.mirror->len, ==, 3);
  /* greedy by size places a (4) at 0, b and d (2) at 4 in turn, c (1) at 6 */
  g_assert_cmpuint (mp_live_row_get_offset (b), ==, 4);
  g_assert_cmpuint (mp_live_row_get_tensor (b), ==, 3);
  g_assert_true (m.mirror->pdata[pos_b] == b);
  g_ptr_array_unref (m.mirror);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/app/live-model/steps", test_live_model_steps);
  g_test_add_func ("/app/live-model/hand", test_live_model_hand);
  return g_test_run ();
}
