/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <string.h>

#include "optimal-minimize.h"
#include "optimal-search.h"

/* A partition of probes scripted by hand: capacities from 160 up fit (at
 * 160) with any nodes; from 120 they fit (at 120) with 80 nodes; 108 to 111
 * fit (at 108) with any nodes; the rest never resolve. Not monotone in the
 * capacity, as the real search is within a node limit (D: 1,018,880 found
 * in 7 s where 1,020,000 is not in 20 s). */
typedef struct
{
  guint64  proved, arena;
  GString *log;
} Script;

static MpOptResult
script_probe (guint64 target, guint64 node_limit, gpointer data)
{
  Script  *s = data;
  guint64  found = 0;

  g_string_append_printf (s->log, "%s%" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT,
                          s->log->len ? " " : "", target, node_limit);
  if (target >= 160)
    found = 160;
  else if (target >= 120 && node_limit >= 80)
    found = 120;
  else if (target >= 108 && target < 112)
    found = 108;
  if (found == 0)
    return MP_OPT_LIMIT;
  s->arena = MIN (s->arena, found);
  return MP_OPT_FOUND;
}

/* Both partitions below begin with these two, which the getters read. */
typedef struct
{
  guint64 proved, arena;
} Bounds;

static guint64
bounds_proved (gpointer data)
{
  return ((Bounds *) data)->proved;
}

static guint64
bounds_arena (gpointer data)
{
  return ((Bounds *) data)->arena;
}

/* Worked by hand: the lower bound (100) does not resolve; the bisection of
 * [100, 200) with 10 nodes a probe, down to a 32nd of it (3): 150 does not
 * resolve (120 needs 80 nodes), 175 finds 160, then 155, 157 do not
 * resolve and 157 is within 3 of 160; the
 * capacity just below the arena, with 40 then 80 nodes, finds 120 at 159,
 * then 119 resolves with neither; back to bisecting [100, 120): 110 finds
 * 108, then 104, 106, 107 do not resolve; the capacity question at 107
 * finds nothing with 40 or 80 nodes, and the pass ends at 108. */
static void
test_script (void)
{
  g_autoptr (GString) log = g_string_new (NULL);
  Script      s = { 100, 200, log };
  MpOptProbes probes = { script_probe, bounds_proved, bounds_arena, &s };

  g_assert_true (mp_opt_minimize_pass (&probes, 40, 80, 10));
  g_assert_cmpuint (s.arena, ==, 108);
  g_assert_cmpstr (log->str, ==,
                   "100/80 150/10 175/10 155/10 157/10 159/40 159/80 119/40 119/80 110/10 "
                   "104/10 106/10 107/10 107/40 107/80");
}

/* The real search behind the probes. */
typedef struct
{
  guint64            proved, arena;
  MpOptSearch       *search;
  const MpOptBuffer *buffers;
  guint              n;
  guint64           *best;
} Real;

static MpOptResult
real_probe (guint64 target, guint64 node_limit, gpointer data)
{
  Real               *r = data;
  g_autofree guint64 *offsets = g_new (guint64, r->n);
  MpOptResult         result;
  guint64             arena = 0;

  if (target < r->proved)
    return MP_OPT_INFEASIBLE;
  result = mp_opt_search_fit (r->search, target, node_limit, G_MAXINT64, NULL, offsets);
  if (result == MP_OPT_INFEASIBLE)
    r->proved = MAX (r->proved, target + 1);
  if (result != MP_OPT_FOUND)
    return result;
  for (guint i = 0; i < r->n; i++)
    arena = MAX (arena, offsets[i] + r->buffers[i].bytes);
  g_assert_cmpuint (arena, <=, target);
  if (arena < r->arena)
    {
      r->arena = arena;
      memcpy (r->best, offsets, sizeof (guint64) * r->n);
    }
  return result;
}

/* Random buffers, passes with doubling node limits and no clock: after each
 * pass, a capacity search with the node limits up to the pass's finds
 * nothing below the arena (the minimiser is never above its own capacity
 * probe), the plan is valid and the arena never rises. */
static void
test_random (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (30);

  for (guint iter = 0; iter < 12; iter++)
    {
      guint                   n = g_rand_int_range (rand, 20, 90);
      g_autofree MpOptBuffer *buffers = g_new0 (MpOptBuffer, n);
      g_autofree guint64     *best = g_new (guint64, n);
      g_autofree guint64     *offsets = g_new (guint64, n);
      g_autoptr (MpOptSearch) search = NULL;
      Real                    r = { 0 };
      MpOptProbes             probes = { real_probe, bounds_proved, bounds_arena, &r };
      guint64                 top = 0;

      for (guint i = 0; i < n; i++)
        {
          guint first = g_rand_int_range (rand, 0, 40);

          buffers[i].first = first;
          buffers[i].last = first + g_rand_int_range (rand, 0, 12);
          buffers[i].bytes = buffers[i].size = g_rand_int_range (rand, 1, 64);
          buffers[i].width = buffers[i].last - buffers[i].first + 1;
          /* stacked: a valid plan to start from */
          best[i] = top;
          top += buffers[i].bytes;
        }
      search = mp_opt_search_new (buffers, n, 1, G_MAXUINT32);
      g_assert_nonnull (search);
      r = (Real) { mp_opt_search_bound (search), top, search, buffers, n, best };
      for (guint64 limit = 2 * n; limit <= 64 * n; limit *= 2)
        {
          guint64 before = r.arena;

          g_assert_true (mp_opt_minimize_pass (&probes, 2 * n, limit, MAX (limit / 8, 2 * n)));
          g_assert_cmpuint (r.arena, <=, before);
          g_assert_cmpuint (r.arena, >=, r.proved);
          for (guint64 l = 2 * n; l <= limit && r.arena > r.proved; l *= 2)
            g_assert_cmpint (mp_opt_search_fit (search, r.arena - 1, l, G_MAXINT64, NULL,
                                                offsets), !=, MP_OPT_FOUND);
          for (guint i = 0; i < n; i++)
            for (guint j = 0; j < i; j++)
              if (MAX (buffers[i].first, buffers[j].first) <=
                  MIN (buffers[i].last, buffers[j].last))
                g_assert_true (best[i] + buffers[i].bytes <= best[j] ||
                               best[j] + buffers[j].bytes <= best[i]);
        }
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analysis/optimal-minimize/script", test_script);
  g_test_add_func ("/analysis/optimal-minimize/random", test_random);
  return g_test_run ();
}
