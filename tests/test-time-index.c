/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "test-util.h"

/* The time index against a brute-force union over every inserted buffer,
 * for block sizes that make short, long and block-aligned lifetimes all
 * take their own paths. */

typedef struct
{
  guint   first, last;
  guint64 start, end;
} Placed;

static void
brute_busy (const Placed *placed, guint n, guint first, guint last, GArray *out)
{
  g_autoptr (GArray) spans = g_array_new (FALSE, FALSE, sizeof (MpSpan));

  g_array_set_size (out, 0);
  for (guint i = 0; i < n; i++)
    if (placed[i].first <= last && first <= placed[i].last)
      {
        MpSpan s = { placed[i].start, placed[i].end };
        guint  j = 0;

        while (j < spans->len && g_array_index (spans, MpSpan, j).start <= s.start)
          j++;
        g_array_insert_val (spans, j, s);
      }
  for (guint i = 0; i < spans->len; i++)
    {
      MpSpan s = g_array_index (spans, MpSpan, i);

      if (out->len && s.start <= g_array_index (out, MpSpan, out->len - 1).end)
        {
          MpSpan *last_span = &g_array_index (out, MpSpan, out->len - 1);
          last_span->end = MAX (last_span->end, s.end);
        }
      else
        g_array_append_val (out, s);
    }
}

#define FIT_FIRST (1u << 24)

static void
test_against_brute_force (gconstpointer data)
{
  /* bits 16-23: query after one insert in that many, so that adds wait
   * in batches before a query merges them; FIT_FIRST: ask the fits before
   * the union, which merges whatever waits, so the one-block fits read the
   * waiting spans as hits and the chunk summaries of sets that changed */
  guint    block = GPOINTER_TO_UINT (data) & 0xffff, every = (GPOINTER_TO_UINT (data) >> 16) & 0xff;
  gboolean fit_first = (GPOINTER_TO_UINT (data) & FIT_FIRST) != 0;
  g_autoptr (GRand) rand = g_rand_new_with_seed (block * 7919 + every + fit_first);
  g_autoptr (GArray) got = g_array_new (FALSE, FALSE, sizeof (MpSpan));
  g_autoptr (GArray) want = g_array_new (FALSE, FALSE, sizeof (MpSpan));

  for (guint round = 0; round < 60; round++)
    {
      guint n_steps = g_rand_int_range (rand, 1, 200);
      g_autoptr (MpTimeIndex) index = block ? mp_time_index_new_with_block (n_steps, block)
                                            : mp_time_index_new (n_steps, n_steps / 4.0);
      g_autofree Placed *placed = g_new (Placed, 300);

      for (guint i = 0; i < 300; i++)
        {
          guint first = g_rand_int_range (rand, 0, n_steps);
          guint span = g_rand_boolean (rand) ? g_rand_int_range (rand, 0, 4)
                                             : g_rand_int_range (rand, 0, n_steps);
          guint last = MIN (first + span, n_steps - 1);
          guint q_first = g_rand_int_range (rand, 0, n_steps);
          guint q_span = g_rand_boolean (rand) ? g_rand_int_range (rand, 0, 3)
                                               : g_rand_int_range (rand, 0, n_steps);
          guint q_last = MIN (q_first + q_span, n_steps - 1);

          placed[i].first = first;
          placed[i].last = last;
          /* batched: spread wider, so sets hold more spans than wait */
          placed[i].start = g_rand_int_range (rand, 0, every > 1 || fit_first ? 40000 : 5000);
          /* fits first: some wide ones, so the chunks' widest gaps and
           * octaves differ and sizes skip some of them */
          placed[i].end = placed[i].start + g_rand_int_range (rand, 1, fit_first && i % 7 == 0 ? 3000
                                                                                             : 300);
          mp_time_index_insert (index, first, last, placed[i].start,
                                placed[i].end - placed[i].start);
          if (every > 1 && g_rand_int_range (rand, 0, every) != 0)
            continue;

          if (!fit_first)
            mp_time_index_busy (index, q_first, q_last, got);
          brute_busy (placed, i + 1, q_first, q_last, want);
          {
            guint64 size = g_rand_int_range (rand, 1, fit_first ? 2000 : 400);
            g_assert_cmpuint (mp_time_index_best_fit (index, q_first, q_last, size), ==,
                              mp_spans_best_fit (want, size));
            g_assert_cmpuint (mp_time_index_first_fit (index, q_first, q_last, size), ==,
                              mp_spans_first_fit (want, size));
          }
          if (fit_first)
            mp_time_index_busy (index, q_first, q_last, got);
          g_assert_cmpuint (got->len, ==, want->len);
          for (guint k = 0; k < want->len; k++)
            {
              g_assert_cmpuint (g_array_index (got, MpSpan, k).start, ==,
                                g_array_index (want, MpSpan, k).start);
              g_assert_cmpuint (g_array_index (got, MpSpan, k).end, ==,
                                g_array_index (want, MpSpan, k).end);
            }
        }
    }
}

static void
test_best_fit (void)
{
  g_autoptr (GArray) busy = g_array_new (FALSE, FALSE, sizeof (MpSpan));
  MpSpan spans[] = { { 10, 20 }, { 30, 40 }, { 48, 60 } };

  g_array_append_vals (busy, spans, 3);
  /* gaps: [0,10) 10, [20,30) 10, [40,48) 8; top 60 */
  g_assert_cmpuint (mp_spans_best_fit (busy, 8), ==, 40);  /* the smallest that fits */
  g_assert_cmpuint (mp_spans_best_fit (busy, 9), ==, 0);   /* a tie: the lowest */
  g_assert_cmpuint (mp_spans_best_fit (busy, 11), ==, 60); /* nothing fits: on top */
  /* first fit: the lowest gap that holds it, whatever its size */
  g_assert_cmpuint (mp_spans_first_fit (busy, 8), ==, 0);
  g_assert_cmpuint (mp_spans_first_fit (busy, 11), ==, 60);
  g_array_set_size (busy, 0);
  g_assert_cmpuint (mp_spans_best_fit (busy, 5), ==, 0);
  g_assert_cmpuint (mp_spans_first_fit (busy, 5), ==, 0);
}

/* The index's first fit joins spans closer than the size: [2,20) [24,30)
 * [40,45) are live at step 0; size 5 skips the gaps of 2 and 4 and takes
 * 30, size 10 takes the gap of exactly 10, size 11 finds none and goes on
 * top, size 2 fits below 2. */
static void
test_first_fit_joins (void)
{
  g_autoptr (MpTimeIndex) index = mp_time_index_new_with_block (8, 2);

  mp_time_index_insert (index, 0, 7, 2, 18);
  mp_time_index_insert (index, 0, 0, 24, 6);
  mp_time_index_insert (index, 0, 3, 40, 5);
  g_assert_cmpuint (mp_time_index_first_fit (index, 0, 0, 5), ==, 30);
  g_assert_cmpuint (mp_time_index_first_fit (index, 0, 7, 10), ==, 30);
  g_assert_cmpuint (mp_time_index_first_fit (index, 0, 7, 11), ==, 45);
  g_assert_cmpuint (mp_time_index_first_fit (index, 0, 0, 2), ==, 0);
  g_assert_cmpuint (mp_time_index_first_fit (index, 4, 7, 5), ==, 20); /* only [2,20) */
  g_assert_cmpuint (mp_time_index_first_fit (index, 0, 0, 0), ==, 0);
}

/* The index's best fit, worked by hand. Live at every step (block covers):
 * [0,10) [14,20) [30,40) [48,60) [70,80), so gaps of 4 at 10, 10 at 20, 8 at
 * 40 and 10 at 60; at step 0 only, [22,26) falls into the gap at 20 and
 * leaves pieces of 2 at 20 and 4 at 26. A step-0 query takes the one-block
 * path (the gap at 20 is touched: its pieces count, not its 10); 0..7 takes
 * the merge, which joins across gaps narrower than the size. */
static void
test_best_fit_by_hand (void)
{
  g_autoptr (MpTimeIndex) index = mp_time_index_new_with_block (8, 2);
  static const guint64 live[][2] = { { 0, 10 }, { 14, 6 }, { 30, 10 }, { 48, 12 }, { 70, 10 } };

  for (guint i = 0; i < G_N_ELEMENTS (live); i++)
    mp_time_index_insert (index, 0, 7, live[i][0], live[i][1]);
  mp_time_index_insert (index, 0, 0, 22, 4);
  g_assert_cmpuint (mp_time_index_best_fit (index, 0, 0, 8), ==, 40);  /* 8 at 40 */
  g_assert_cmpuint (mp_time_index_best_fit (index, 0, 0, 9), ==, 60);  /* 20 is cut */
  g_assert_cmpuint (mp_time_index_best_fit (index, 1, 1, 9), ==, 20);  /* a tie: the lowest */
  g_assert_cmpuint (mp_time_index_best_fit (index, 0, 0, 4), ==, 10);  /* 4 at 10 and 26 */
  g_assert_cmpuint (mp_time_index_best_fit (index, 0, 0, 11), ==, 80); /* none: on top */
  g_assert_cmpuint (mp_time_index_best_fit (index, 0, 7, 5), ==, 40);
  g_assert_cmpuint (mp_time_index_best_fit (index, 0, 7, 9), ==, 60);
  g_assert_cmpuint (mp_time_index_best_fit (index, 0, 7, 3), ==, 10);
  g_assert_cmpuint (mp_time_index_best_fit (index, 0, 7, 11), ==, 80);
}

int
main (int argc, char **argv)
{
  static const guint blocks[] = { 0, 1, 2, 3, 4, 7, 16, 64 };

  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (blocks); i++)
    {
      g_autofree char *path = g_strdup_printf ("/analysis/time-index/brute-force/block-%u",
                                               blocks[i]);
      g_autofree char *batched = g_strdup_printf (
        "/analysis/time-index/brute-force-batched/block-%u", blocks[i]);

      g_test_add_data_func (path, GUINT_TO_POINTER (blocks[i]), test_against_brute_force);
      g_autofree char *fits = g_strdup_printf ("/analysis/time-index/brute-force-fits-first/block-%u",
                                               blocks[i]);
      g_autofree char *fits_batched = g_strdup_printf (
        "/analysis/time-index/brute-force-fits-first-batched/block-%u", blocks[i]);

      g_test_add_data_func (batched, GUINT_TO_POINTER (blocks[i] | 40u << 16),
                            test_against_brute_force);
      g_test_add_data_func (fits, GUINT_TO_POINTER (blocks[i] | FIT_FIRST),
                            test_against_brute_force);
      g_test_add_data_func (fits_batched, GUINT_TO_POINTER (blocks[i] | 40u << 16 | FIT_FIRST),
                            test_against_brute_force);
    }
  g_test_add_func ("/analysis/time-index/best-fit", test_best_fit);
  g_test_add_func ("/analysis/time-index/first-fit-joins", test_first_fit_joins);
  g_test_add_func ("/analysis/time-index/best-fit-by-hand", test_best_fit_by_hand);
  return g_test_run ();
}
