/* SPDX-License-Identifier: GPL-3.0-or-later */
/* MiniMalloc's search on constrained buffers (analysis/optimal/
 * optimal-constrained.c, issue 28): a hand-worked case, and random small
 * sets with alignment, fixed offsets and gaps against brute force over
 * every order of lowest-free-offset placements, whose best is the minimum
 * (planner-constraints.c says why). */
#include <string.h>

#include "lifetimes.h"
#include "optimal-constrained.h"
#include "planner-constraints.h"

#define MAX_N 6

typedef struct
{
  MpUsage records[MAX_N];
  MpGap   gaps[MAX_N];
  guint   n;
} Case;

/* Every pair apart by MiniMalloc's rule, each at its alignment, the fixed
 * ones at their offsets, all under the capacity. */
static void
assert_plan (const Case *c, const guint64 *offsets, guint64 capacity)
{
  for (guint i = 0; i < c->n; i++)
    {
      const MpUsage *r = &c->records[i];

      g_assert_cmpuint (offsets[i] % MAX (r->align, 1), ==, 0);
      g_assert_cmpuint (offsets[i] + r->bytes, <=, capacity);
      if (r->flags & MP_USAGE_FIXED)
        g_assert_cmpuint (offsets[i], ==, r->fixed);
      for (guint j = 0; j < i; j++)
        g_assert_false (mp_usage_collide (r, offsets[i], &c->records[j], offsets[j], FALSE));
    }
}

static guint64
fit (const Case *c, guint64 capacity, MpOptResult *result, gboolean *exact)
{
  g_autoptr (MpConsSearch) s = mp_cons_search_new (NULL, c->records, c->n);
  guint64 offsets[MAX_N], top = 0;

  *exact = mp_cons_search_exact (s);
  *result = mp_cons_search_fit (s, capacity, 0, G_MAXINT64, NULL, offsets);
  if (*result != MP_OPT_FOUND)
    return 0;
  assert_plan (c, offsets, capacity);
  for (guint i = 0; i < c->n; i++)
    top = MAX (top, offsets[i] + c->records[i].bytes);
  return top;
}

/* Two 8-byte buffers aligned to 16 live together: one at 0, the other at
 * 16, so the least arena is 24; a 4-byte one (aligned to 4) beside b after
 * a ends fits at 8 or at 0. With a gap in b while a lives, a and b share
 * offset 0, and c at 8 above b makes 12. */
static void
test_hand_worked (void)
{
  Case        c = { .n = 3 };
  MpOptResult result;
  gboolean    exact;

  c.records[0] = (MpUsage) { .first = 0, .last = 3, .size = 8, .bytes = 8, .align = 16 };
  c.records[1] = (MpUsage) { .first = 0, .last = 5, .size = 8, .bytes = 8, .align = 16 };
  c.records[2] = (MpUsage) { .first = 4, .last = 5, .size = 4, .bytes = 4, .align = 4 };
  g_assert_cmpuint (fit (&c, 24, &result, &exact), ==, 24);
  g_assert_cmpint (result, ==, MP_OPT_FOUND);
  g_assert_true (exact);
  fit (&c, 23, &result, &exact);
  g_assert_cmpint (result, ==, MP_OPT_INFEASIBLE);

  c.gaps[0] = (MpGap) { .first = 1, .last = 3 };
  c.records[1].n_gaps = 1;
  c.records[1].gaps = &c.gaps[0];
  c.records[0].first = 1;
  g_assert_cmpuint (fit (&c, 12, &result, &exact), ==, 12);
  g_assert_cmpint (result, ==, MP_OPT_FOUND);
  g_assert_true (exact);
  fit (&c, 11, &result, &exact);
  g_assert_cmpint (result, ==, MP_OPT_INFEASIBLE);
}

static void
random_case (GRand *rand, Case *c)
{
  c->n = g_rand_int_range (rand, 2, MAX_N + 1);
  for (guint i = 0; i < c->n; i++)
    {
      MpUsage *r = &c->records[i];
      guint    first = g_rand_int_range (rand, 0, 6);

      *r = (MpUsage) { .tensor = i, .first = first, .last = first + g_rand_int_range (rand, 0, 5) };
      r->bytes = r->size = 4 * g_rand_int_range (rand, 1, 9);
      r->align = 1u << g_rand_int_range (rand, 0, 5);
      if (g_rand_int_range (rand, 0, 8) == 0)
        {
          r->flags = MP_USAGE_FIXED;
          r->fixed = r->align * g_rand_int_range (rand, 0, 4);
        }
      if (r->last >= r->first + 2 && g_rand_boolean (rand))
        {
          MpGap *g = &c->gaps[i];

          *g = (MpGap) { .first = r->first + 1, .last = r->last - 1 };
          if (g_rand_boolean (rand))
            {
              g->windowed = TRUE;
              g->lo = 4 * g_rand_int_range (rand, 0, r->bytes / 4);
              g->hi = g->lo + 4;
            }
          r->n_gaps = 1;
          r->gaps = g;
        }
    }
}

/* The least height over every order of lowest-free-offset placements;
 * G_MAXUINT64 when two fixed buffers collide. */
static guint64
brute_force (const Case *c)
{
  guint   order[MAX_N], n = c->n;
  guint64 best = G_MAXUINT64;
  gint    k[MAX_N + 1] = { 0 };

  for (guint i = 0; i < n; i++)
    order[i] = i;
  /* Heap's algorithm, iterative */
  for (guint i = 0;;)
    {
      guint64            offsets[MAX_N], top = 0;
      g_autoptr (GError) error = NULL;

      if (mp_place_constrained (NULL, c->records, n, order, MP_PLACE_FIRST_FIT, offsets, NULL,
                                &error))
        {
          for (guint j = 0; j < n; j++)
            top = MAX (top, offsets[j] + c->records[j].bytes);
          best = MIN (best, top);
        }
      while (i < n && k[i] >= (gint) i)
        k[i++] = 0;
      if (i >= n)
        break;
      {
        guint a = i % 2 ? (guint) k[i] : 0, t = order[a];

        order[a] = order[i];
        order[i] = t;
      }
      k[i]++;
      i = 1;
    }
  return best;
}

static void
test_brute_force (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (28);
  guint exact_cases = 0;

  for (guint t = 0; t < 400; t++)
    {
      Case        c = { 0 };
      guint64     least;
      MpOptResult result;
      gboolean    exact;

      random_case (rand, &c);
      least = brute_force (&c);
      if (least == G_MAXUINT64)
        continue;
      g_test_message ("case %u: %u buffers, least %" G_GUINT64_FORMAT, t, c.n, least);
      fit (&c, least, &result, &exact);
      /* a plan (valid, checked by fit) at the least height, or none
       * found only where a window breaks the canonical argument */
      g_assert_true (result == MP_OPT_FOUND || (!exact && result == MP_OPT_INFEASIBLE));
      if (least > 0)
        {
          fit (&c, least - 1, &result, &exact);
          g_assert_cmpint (result, ==, MP_OPT_INFEASIBLE);
        }
      exact_cases += exact;
    }
  g_assert_cmpuint (exact_cases, >, 200);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analysis/optimal-constrained/hand-worked", test_hand_worked);
  g_test_add_func ("/analysis/optimal-constrained/brute-force", test_brute_force);
  return g_test_run ();
}
