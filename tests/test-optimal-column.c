/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "optimal-column.h"
#include "test-util.h"

/* The column move (analysis/optimal/optimal-column.c, issue 30). */

/* The arena of a valid plan, G_MAXUINT64 when two buffers live at once overlap. */
static guint64
valid_arena (const MpOptBuffer *b, guint n, const guint64 *off)
{
  guint64 arena = 0;

  for (guint i = 0; i < n; i++)
    {
      arena = MAX (arena, off[i] + b[i].bytes);
      for (guint j = i + 1; j < n; j++)
        if (b[i].first <= b[j].last && b[j].first <= b[i].last && off[i] < off[j] + b[j].size &&
            off[j] < off[i] + b[i].size)
          return G_MAXUINT64;
    }
  return arena;
}

static void
count_improved (const guint64 *offsets, guint64 arena, gpointer data)
{
  guint64 *seen = data;

  g_assert_nonnull (offsets);
  seen[0]++;
  seen[1] = arena;
}

/* By hand: peak at step 0 (B, M, T: 7 bytes) with a hole [4, 6) that only H
 * uses, at steps 2-3 after B ends. H goes to 0, the top T (the slab of
 * width 2 above 9 - 2) into the column at 4; B and M keep their offsets
 * (free, the column kept clear). The arena falls from 9 to 8. */
static void
test_hand_worked (void)
{
  static const MpOptBuffer b[] = {
    { 0, 1, 4, 4, 2 }, /* B */
    { 0, 3, 2, 2, 4 }, /* M */
    { 0, 3, 1, 1, 4 }, /* T */
    { 2, 3, 2, 2, 2 }, /* H */
  };
  guint64 off[] = { 0, 6, 8, 4 };
  guint64 seen[2] = { 0, 0 };
  g_autoptr (GCancellable) cancelled = g_cancellable_new ();

  g_assert_cmpuint (valid_arena (b, G_N_ELEMENTS (b), off), ==, 9);
  /* past its deadline, or cancelled, it leaves the plan alone */
  g_cancellable_cancel (cancelled);
  g_assert_cmpuint (mp_opt_column (b, G_N_ELEMENTS (b), off, 0, NULL, count_improved, seen), ==, 9);
  g_assert_cmpuint (mp_opt_column (b, G_N_ELEMENTS (b), off, G_MAXINT64, cancelled, count_improved,
                                   seen),
                    ==, 9);
  g_assert_cmpuint (off[2], ==, 8);
  g_assert_cmpuint (seen[0], ==, 0);
  g_assert_cmpuint (
    mp_opt_column (b, G_N_ELEMENTS (b), off, G_MAXINT64, NULL, count_improved, seen), ==, 8);
  g_assert_cmpuint (off[0], ==, 0);
  g_assert_cmpuint (off[1], ==, 6);
  g_assert_cmpuint (off[2], ==, 4);
  g_assert_cmpuint (off[3], ==, 0);
  g_assert_cmpuint (seen[0], ==, 1);
  g_assert_cmpuint (seen[1], ==, 8);

  /* at 8 the peak's stack has no hole: nothing more to do */
  g_assert_cmpuint (
    mp_opt_column (b, G_N_ELEMENTS (b), off, G_MAXINT64, NULL, count_improved, seen), ==, 8);
  g_assert_cmpuint (seen[0], ==, 1);
}

/* Random plans (first fit in index order): the result is valid, never
 * above the plan it started from, reported when lower and the plan left
 * alone otherwise. */
static void
test_random (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (30);
  guint lower = 0;

  for (guint iter = 0; iter < 400; iter++)
    {
      guint                   n = g_rand_int_range (rand, 1, 60);
      g_autofree MpOptBuffer *b = g_new0 (MpOptBuffer, n);
      g_autofree guint64     *off = g_new0 (guint64, n), *was = g_new0 (guint64, n);
      guint64                 seen[2] = { 0, 0 }, before, after;

      for (guint i = 0; i < n; i++)
        {
          guint first = g_rand_int_range (rand, 0, 30);

          b[i].first = first;
          b[i].last = first + g_rand_int_range (rand, 0, iter % 2 ? 30 : 6);
          b[i].size = b[i].bytes = g_rand_int_range (rand, 1, 64);
          b[i].width = b[i].last - b[i].first + 1;
          /* first fit: up past every earlier buffer in the way */
          for (gboolean moved = TRUE; moved;)
            {
              moved = FALSE;
              for (guint j = 0; j < i; j++)
                if (b[i].first <= b[j].last && b[j].first <= b[i].last &&
                    off[i] < off[j] + b[j].size && off[j] < off[i] + b[i].size)
                  {
                    off[i] = off[j] + b[j].size;
                    moved = TRUE;
                  }
            }
        }
      before = valid_arena (b, n, off);
      g_assert_cmpuint (before, !=, G_MAXUINT64);
      memcpy (was, off, n * sizeof (guint64));
      after = mp_opt_column (b, n, off, G_MAXINT64, NULL, count_improved, seen);
      g_assert_cmpuint (after, ==, valid_arena (b, n, off));
      g_assert_cmpuint (after, <=, before);
      if (after < before)
        {
          lower++;
          g_assert_cmpuint (seen[0], ==, 1);
          g_assert_cmpuint (seen[1], ==, after);
        }
      else
        {
          g_assert_cmpuint (seen[0], ==, 0);
          g_assert_cmpmem (was, n * sizeof (guint64), off, n * sizeof (guint64));
        }
    }
  g_test_message ("column move lowered %u of 400 first-fit plans", lower);
  g_assert_cmpuint (lower, >, 0);
}

/* SOMAS pangu-2.6B: from best-of's plan (5,572,042,815) to the plan that
 * build-aux/pangu-column.py makes through the CLI, 5,536,546,816. */
static void
test_pangu (void)
{
  g_autofree char          *path = test_fixture_path ("real/somas-pangu_2.6B.csv.gz");
  g_autoptr (GError)        error = NULL;
  g_autoptr (MpInput)       input = mp_input_load (path, NULL, &error);
  g_autoptr (MpLifetimes)   lt = NULL;
  g_autoptr (MpPlan)        plan = NULL;
  g_autofree MpOptBuffer   *b = NULL;
  guint64                   seen[2] = { 0, 0 };

  g_assert_no_error (error);
  lt = mp_lifetimes_compute (input->graph, NULL, NULL);
  plan = test_run_planner ("best-of", input->graph, lt);
  g_assert_cmpuint (plan->arena, ==, G_GUINT64_CONSTANT (5572042815));
  b = g_new (MpOptBuffer, lt->n_records);
  for (guint i = 0; i < lt->n_records; i++)
    {
      b[i].first = lt->records[i].first;
      b[i].last = lt->records[i].last;
      b[i].size = lt->records[i].size;
      b[i].bytes = lt->records[i].bytes;
      b[i].width = b[i].last - b[i].first + 1;
    }
  g_assert_cmpuint (mp_opt_column (b, lt->n_records, plan->offsets, G_MAXINT64, NULL,
                                   count_improved, seen), ==,
                    G_GUINT64_CONSTANT (5536546816));
  g_assert_cmpuint (seen[0], ==, 1);
  plan->arena = seen[1];
  mp_plan_judge (input->graph, NULL, plan);
  g_assert_cmpstr (plan->problem, ==, NULL);
  g_assert_true (plan->valid);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analysis/optimal/column/hand-worked", test_hand_worked);
  g_test_add_func ("/analysis/optimal/column/random", test_random);
  g_test_add_func ("/analysis/optimal/column/pangu", test_pangu);
  return g_test_run ();
}
