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

/* The script's probes, stopped (the deadline) once 320 nodes are asked. */
static MpOptResult
script_probe_until (guint64 target, guint64 node_limit, gpointer data)
{
  if (node_limit >= 320)
    return MP_OPT_STOPPED;
  return script_probe (target, node_limit, data);
}

/* Worked by hand, the endgame from 200 with 40 nodes at first: 199 finds
 * 160 with 40 nodes; 159 needs 80 (finds 120), the foot again: 119 never
 * resolves, so its limit doubles until the deadline stops the probe of 320
 * (not logged). Only the capacity below the incumbent is asked: the
 * bisection's 110 (which finds 108) is not, as `--capacity 119` would not
 * ask it either. */
static void
test_endgame_script (void)
{
  g_autoptr (GString) log = g_string_new (NULL);
  Script      s = { 100, 200, log };
  MpOptProbes probes = { script_probe_until, bounds_proved, bounds_arena, &s };

  g_assert_false (mp_opt_minimize_below (&probes, 40));
  g_assert_cmpuint (s.arena, ==, 120);
  g_assert_cmpstr (log->str, ==, "199/40 159/40 159/80 119/40 119/80 119/160");
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

/* n random buffers in time [0, span + life), each living up to life + 1
 * steps, stacked (a valid plan to start from), with their search. */
static void
real_init (Real *r, GRand *rand, guint n, guint span, guint life)
{
  MpOptBuffer *buffers = g_new0 (MpOptBuffer, n);
  guint64     *best = g_new (guint64, n);
  guint64      top = 0;

  for (guint i = 0; i < n; i++)
    {
      guint first = g_rand_int_range (rand, 0, span);

      buffers[i].first = first;
      buffers[i].last = first + g_rand_int_range (rand, 0, life);
      buffers[i].bytes = buffers[i].size = g_rand_int_range (rand, 1, 64);
      buffers[i].width = buffers[i].last - buffers[i].first + 1;
      best[i] = top;
      top += buffers[i].bytes;
    }
  r->search = mp_opt_search_new (buffers, n, 1, G_MAXUINT32);
  g_assert_nonnull (r->search);
  r->proved = mp_opt_search_bound (r->search);
  r->arena = top;
  r->buffers = buffers;
  r->n = n;
  r->best = best;
}

static void
real_clear (Real *r)
{
  g_clear_pointer (&r->search, mp_opt_search_free);
  g_free ((gpointer) r->buffers);
  g_free (r->best);
}

/* The best plan: within its arena, no two buffers alive at once overlap. */
static void
assert_valid (const Real *r)
{
  for (guint i = 0; i < r->n; i++)
    {
      const MpOptBuffer *a = &r->buffers[i];

      g_assert_cmpuint (r->best[i] + a->bytes, <=, r->arena);
      for (guint j = 0; j < i; j++)
        {
          const MpOptBuffer *b = &r->buffers[j];

          if (MAX (a->first, b->first) <= MIN (a->last, b->last))
            g_assert_true (r->best[i] + a->bytes <= r->best[j] ||
                           r->best[j] + b->bytes <= r->best[i]);
        }
    }
}

/* check on 12 sets of n random buffers, n in [lo, hi) (see real_init). */
static void
each_random (guint32 seed, guint lo, guint hi, guint span, guint life,
             void (*check) (Real *r, guint iter))
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);

  for (guint iter = 0; iter < 12; iter++)
    {
      Real r = { 0 };

      real_init (&r, rand, g_rand_int_range (rand, lo, hi), span, life);
      check (&r, iter);
      assert_valid (&r);
      real_clear (&r);
    }
}

/* Passes with doubling node limits and no clock: after each pass, a
 * capacity search with the node limits up to the pass's finds nothing below
 * the arena (the minimiser is never above its own capacity probe), the plan
 * is valid and the arena never rises. */
static void
check_passes (Real *r, guint iter)
{
  guint               n = r->n;
  g_autofree guint64 *offsets = g_new (guint64, n);
  MpOptProbes         probes = { real_probe, bounds_proved, bounds_arena, r };

  for (guint64 limit = 2 * n; limit <= 64 * n; limit *= 2)
    {
      guint64 before = r->arena;

      g_assert_true (mp_opt_minimize_pass (&probes, 2 * n, limit, MAX (limit / 8, 2 * n)));
      g_assert_cmpuint (r->arena, <=, before);
      g_assert_cmpuint (r->arena, >=, r->proved);
      for (guint64 l = 2 * n; l <= limit && r->arena > r->proved; l *= 2)
        g_assert_cmpint (mp_opt_search_fit (r->search, r->arena - 1, l, G_MAXINT64, NULL,
                                            offsets), !=, MP_OPT_FOUND);
      assert_valid (r);
    }
}

static void
test_random (void)
{
  each_random (30, 20, 90, 40, 12, check_passes);
}

/* As the planner's endgame asks: the other capacities' searches dropped. */
static MpOptResult
keep_probe (guint64 target, guint64 node_limit, gpointer data)
{
  mp_opt_search_keep (((Real *) data)->search, target);
  return real_probe (target, node_limit, data);
}

/* The endgame alone with no clock, on 0 to 2 threads, every other set
 * dropping the searches of other capacities: it ends proved, and no plan
 * exists one byte below the arena (the search with no node limit refutes
 * it). */
static void
check_endgame (Real *r, guint iter)
{
  g_autofree guint64 *offsets = g_new (guint64, r->n);
  MpOptProbes         probes = { iter % 2 ? keep_probe : real_probe, bounds_proved, bounds_arena,
                                 r };

  mp_opt_search_set_threads (r->search, iter % 3);
  g_assert_true (mp_opt_minimize_below (&probes, 2 * r->n));
  g_assert_cmpuint (r->arena, <=, r->proved);
  if (r->arena > mp_opt_search_bound (r->search))
    g_assert_cmpint (mp_opt_search_fit (r->search, r->arena - 1, G_MAXUINT64, G_MAXINT64, NULL,
                                        offsets), ==, MP_OPT_INFEASIBLE);
}

static void
test_endgame_random (void)
{
  each_random (31, 20, 60, 30, 10, check_endgame);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analysis/optimal-minimize/script", test_script);
  g_test_add_func ("/analysis/optimal-minimize/random", test_random);
  g_test_add_func ("/analysis/optimal-minimize/endgame-script", test_endgame_script);
  g_test_add_func ("/analysis/optimal-minimize/endgame-random", test_endgame_random);
  return g_test_run ();
}
