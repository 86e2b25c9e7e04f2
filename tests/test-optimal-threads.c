/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <string.h>

#include "optimal-search.h"

/* The parallel fit gives, probe for probe, the answers, offsets and node
 * counts of the preorders in turn on the caller's thread, whatever the
 * number of threads: the same capacity asked again with more nodes, fewer
 * nodes, or after other capacities (its paused searches go on or are
 * evicted), capacities that fit and capacities that do not. */

static char *
run_script (const MpOptBuffer *buffers, guint n, guint64 alignment, guint threads,
            const guint64 *caps, const guint64 *limits, guint n_probes)
{
  g_autoptr (MpOptSearch) search = mp_opt_search_new (buffers, n, alignment, G_MAXUINT32);
  g_autofree guint64 *offsets = g_new (guint64, n);
  GString *log = g_string_new (NULL);

  g_assert_nonnull (search);
  if (threads > 0)
    mp_opt_search_set_threads (search, threads);
  for (guint k = 0; k < n_probes; k++)
    {
      MpOptResult r = mp_opt_search_fit (search, caps[k], limits[k], G_MAXINT64, NULL, offsets);

      g_assert_cmpint (r, !=, MP_OPT_STOPPED);
      g_string_append_printf (log, "%" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT ": %d",
                              caps[k], limits[k], r);
      if (r == MP_OPT_FOUND)
        for (guint i = 0; i < n; i++)
          {
            g_assert_cmpuint (offsets[i] + buffers[i].bytes, <=, caps[k]);
            g_assert_cmpuint (offsets[i] % alignment, ==, 0);
            for (guint j = 0; j < i; j++)
              if (MAX (buffers[i].first, buffers[j].first) <=
                  MIN (buffers[i].last, buffers[j].last))
                g_assert_true (offsets[i] + buffers[i].size <= offsets[j] ||
                               offsets[j] + buffers[j].size <= offsets[i]);
            g_string_append_printf (log, " %" G_GUINT64_FORMAT, offsets[i]);
          }
      g_string_append_printf (log, " (%" G_GUINT64_FORMAT " nodes)\n",
                              mp_opt_search_nodes (search));
    }
  return g_string_free (log, FALSE);
}

static void
test_same_answers (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (300);
  guint found = 0, refuted = 0, limited = 0;

  for (guint iter = 0; iter < 40; iter++)
    {
      guint                   n = g_rand_int_range (rand, 12, 70);
      guint64                 alignment = iter % 4 == 0 ? 8 : 1, live = 0, top = 0;
      g_autofree MpOptBuffer *buffers = g_new0 (MpOptBuffer, n);
      g_autofree guint64     *caps = NULL, *limits = NULL;
      g_autofree char        *sequential = NULL;
      guint                   n_probes = 30;

      for (guint i = 0; i < n; i++)
        {
          guint first = g_rand_int_range (rand, 0, 30);

          buffers[i].first = first;
          buffers[i].last = first + g_rand_int_range (rand, 0, 10);
          buffers[i].bytes = g_rand_int_range (rand, 1, 64);
          buffers[i].size = (buffers[i].bytes + alignment - 1) / alignment * alignment;
          buffers[i].width = buffers[i].last - buffers[i].first + 1;
          top += buffers[i].size;
        }
      for (guint t = 0; t < 40; t++)
        {
          guint64 at = 0;

          for (guint i = 0; i < n; i++)
            if (buffers[i].first <= t && t <= buffers[i].last)
              at += buffers[i].size;
          live = MAX (live, at);
        }
      /* capacities around the peak, each asked several times with node
       * limits that climb, fall back and climb again */
      caps = g_new (guint64, n_probes);
      limits = g_new (guint64, n_probes);
      for (guint k = 0; k < n_probes; k++)
        {
          caps[k] = live - 2 + g_rand_int_range (rand, 0, 4) * MAX (alignment, 3);
          caps[k] = MIN (caps[k], top);
          /* 0 and 1 now and then: the edges of a worker's first node */
          limits[k] = (guint64) g_rand_int_range (rand, 0, 200) << g_rand_int_range (rand, 0, 6);
          if (k % 11 == 5)
            limits[k] = k % 2;
        }
      sequential = run_script (buffers, n, alignment, 0, caps, limits, n_probes);
      for (guint threads = 1; threads <= 4; threads++)
        {
          g_autofree char *parallel = run_script (buffers, n, alignment, threads, caps, limits,
                                                  n_probes);

          g_assert_cmpstr (parallel, ==, sequential);
        }
      found += strstr (sequential, ": 0") != NULL;
      refuted += strstr (sequential, ": 1") != NULL;
      limited += strstr (sequential, ": 2") != NULL;
    }
  /* the scripts meet every answer */
  g_assert_cmpuint (found, >, 5);
  g_assert_cmpuint (refuted, >, 5);
  g_assert_cmpuint (limited, >, 5);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analysis/optimal-threads/same-answers", test_same_answers);
  return g_test_run ();
}
