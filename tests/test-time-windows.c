/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "test-util.h"

/* The time index with windows (time-windows.c) against a union worked out
 * from every buffer placed, on long-lived cases: lifetimes uniform up to
 * the whole run, as `gen random --lifetimes long` draws them. */

typedef struct
{
  guint   first, last;
  guint64 start, end;
} Placed;

static int
cmp_start (gconstpointer pa, gconstpointer pb)
{
  const MpSpan *a = pa, *b = pb;

  return (a->start > b->start) - (a->start < b->start);
}

/* Sorted, joined union of what is live at some step of [first, last]. */
static void
union_of_live (const Placed *placed, guint n, guint first, guint last, GArray *out)
{
  g_autoptr (GArray) live = g_array_new (FALSE, FALSE, sizeof (MpSpan));
  guint n_out = 0;

  for (guint i = 0; i < n; i++)
    if (placed[i].first <= last && first <= placed[i].last)
      g_array_append_val (live, ((MpSpan) { placed[i].start, placed[i].end }));
  g_array_sort (live, cmp_start);
  g_array_set_size (out, live->len);
  for (guint i = 0; i < live->len; i++)
    {
      MpSpan  s = g_array_index (live, MpSpan, i);
      MpSpan *o = (MpSpan *) out->data;

      if (n_out > 0 && s.start <= o[n_out - 1].end)
        o[n_out - 1].end = MAX (o[n_out - 1].end, s.end);
      else
        o[n_out++] = s;
    }
  g_array_set_size (out, n_out);
}

static void
test_long_lived (gconstpointer data)
{
  /* the high bits: query after one insert in that many, so that adds wait
   * in batches and sets are merged by the limit as well as by reads */
  guint block = GPOINTER_TO_UINT (data) & 0xffff, every = GPOINTER_TO_UINT (data) >> 16;
  g_autoptr (GRand) rand = g_rand_new_with_seed (block * 104729 + every);
  g_autoptr (GArray) got = g_array_new (FALSE, FALSE, sizeof (MpSpan));
  g_autoptr (GArray) want = g_array_new (FALSE, FALSE, sizeof (MpSpan));

  for (guint round = 0; round < 40; round++)
    {
      guint n_steps = g_rand_int_range (rand, 1, 300);
      g_autoptr (MpTimeIndex) index = mp_time_index_new_full (n_steps, block, TRUE);
      g_autofree Placed *placed = g_new (Placed, 400);

      for (guint i = 0; i < 400; i++)
        {
          guint   first = g_rand_int_range (rand, 0, n_steps);
          guint   span = g_rand_int_range (rand, 0, 4) ? g_rand_int_range (rand, 0, n_steps)
                                                       : g_rand_int_range (rand, 0, 3);
          guint   q_first = g_rand_int_range (rand, 0, n_steps);
          guint   q_span = g_rand_int_range (rand, 0, n_steps);
          guint   q_last = MIN (q_first + q_span, n_steps - 1);
          guint64 size = g_rand_int_range (rand, 1, 500);

          placed[i].first = first;
          placed[i].last = MIN (first + span, n_steps - 1);
          placed[i].start = g_rand_int_range (rand, 0, 60000);
          placed[i].end = placed[i].start + g_rand_int_range (rand, 1, 400);
          mp_time_index_insert (index, placed[i].first, placed[i].last, placed[i].start,
                                placed[i].end - placed[i].start);
          if (every > 1 && g_rand_int_range (rand, 0, every) != 0)
            continue;

          union_of_live (placed, i + 1, q_first, q_last, want);
          g_assert_cmpuint (mp_time_index_best_fit (index, q_first, q_last, size), ==,
                            mp_spans_best_fit (want, size));
          g_assert_cmpuint (mp_time_index_first_fit (index, q_first, q_last, size), ==,
                            mp_spans_first_fit (want, size));
          mp_time_index_busy (index, q_first, q_last, got);
          g_assert_cmpmem (got->data, got->len * sizeof (MpSpan), want->data,
                           want->len * sizeof (MpSpan));
        }
    }
}

/* Blocks of 2 steps: [0,1] [2,3] [4,5] [6,7]. A query over steps 3..6
 * covers block 2 whole and meets blocks 1 and 3 in part. What meets it
 * outside block 2: [0,10) covers block 1 whole and ends at its edge (step
 * 3), [20,25) covers block 3 whole and begins at its edge (step 6), so both
 * come from edge lists; [12,15) lives at step 2 only and must stay out;
 * [30,32) lives in block 2 exactly. */
static void
test_edges_by_hand (void)
{
  g_autoptr (MpTimeIndex) index = mp_time_index_new_full (8, 2, TRUE);
  g_autoptr (GArray) busy = g_array_new (FALSE, FALSE, sizeof (MpSpan));
  static const MpSpan want[] = { { 0, 10 }, { 20, 25 }, { 30, 32 } };

  mp_time_index_insert (index, 0, 3, 0, 10);
  mp_time_index_insert (index, 6, 7, 20, 5);
  mp_time_index_insert (index, 2, 2, 12, 3);
  mp_time_index_insert (index, 4, 5, 30, 2);
  mp_time_index_busy (index, 3, 6, busy);
  g_assert_cmpmem (busy->data, busy->len * sizeof (MpSpan), want, sizeof want);
  /* gaps: 10 at 10, 5 at 25 */
  g_assert_cmpuint (mp_time_index_first_fit (index, 3, 6, 10), ==, 10);
  g_assert_cmpuint (mp_time_index_first_fit (index, 3, 6, 11), ==, 32);
  g_assert_cmpuint (mp_time_index_best_fit (index, 3, 6, 5), ==, 25);
  g_assert_cmpuint (mp_time_index_best_fit (index, 3, 6, 6), ==, 10);
  /* step 2 alone: [0,10) and [12,15) */
  g_assert_cmpuint (mp_time_index_first_fit (index, 2, 2, 2), ==, 10);
  g_assert_cmpuint (mp_time_index_first_fit (index, 2, 3, 3), ==, 15);
}

/* Forty buffers over the whole run, 9 bytes each, 1 byte apart, with 51
 * bytes free after the twentieth: more than a chunk of spans whose gaps a
 * merge may pass whole for sizes above 1, but not the chunk with the wide
 * gap. A buffer put into that gap must then be seen there (the summaries
 * brought up to date), and its rest found. */
static void
test_narrow_chunks_by_hand (void)
{
  g_autoptr (MpTimeIndex) index = mp_time_index_new_full (8, 2, TRUE);

  for (guint i = 0; i < 40; i++)
    mp_time_index_insert (index, 0, 7, 10 * i + (i >= 20 ? 50 : 0), 9);
  /* read the windows once, so that the next inserts wait beside them */
  g_assert_cmpuint (mp_time_index_first_fit (index, 2, 5, 2), ==, 199);
  g_assert_cmpuint (mp_time_index_first_fit (index, 2, 5, 1), ==, 9);
  g_assert_cmpuint (mp_time_index_best_fit (index, 2, 5, 2), ==, 199);
  g_assert_cmpuint (mp_time_index_best_fit (index, 2, 5, 52), ==, 449);
  mp_time_index_insert (index, 0, 7, 199, 31);
  g_assert_cmpuint (mp_time_index_first_fit (index, 2, 5, 2), ==, 230);
  g_assert_cmpuint (mp_time_index_first_fit (index, 2, 5, 21), ==, 449);
  g_assert_cmpuint (mp_time_index_best_fit (index, 2, 5, 20), ==, 230);
  /* enough more that the waiting spans are merged in: 1-byte gaps filled */
  for (guint i = 0; i < 40; i++)
    mp_time_index_insert (index, 3, 4, 10 * i + (i >= 20 ? 50 : 0) + 9, 1);
  g_assert_cmpuint (mp_time_index_first_fit (index, 2, 5, 1), ==, 230);
  g_assert_cmpuint (mp_time_index_best_fit (index, 2, 5, 1), ==, 230);
  g_assert_cmpuint (mp_time_index_first_fit (index, 0, 1, 1), ==, 9);
}

int
main (int argc, char **argv)
{
  static const guint blocks[] = { 1, 2, 3, 5, 16, 64 };

  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (blocks); i++)
    {
      g_autofree char *path = g_strdup_printf ("/analysis/time-windows/long-lived/block-%u",
                                               blocks[i]);
      g_autofree char *batched = g_strdup_printf (
        "/analysis/time-windows/long-lived-batched/block-%u", blocks[i]);

      g_test_add_data_func (path, GUINT_TO_POINTER (blocks[i]), test_long_lived);
      g_test_add_data_func (batched, GUINT_TO_POINTER (blocks[i] | 40u << 16), test_long_lived);
    }
  g_test_add_func ("/analysis/time-windows/edges-by-hand", test_edges_by_hand);
  g_test_add_func ("/analysis/time-windows/narrow-chunks-by-hand", test_narrow_chunks_by_hand);
  return g_test_run ();
}
