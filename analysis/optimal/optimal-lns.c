/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "optimal-lns.h"
#include "optimal-private.h"
#include "time-index.h"

/* Buffers that overlap a lifetime are found without quadratic lists: the
 * short-lived ones by binary search in the order of first step (none
 * starts more than SHORT_SPAN steps before the lifetime), the long-lived
 * ones, few in real and random workloads, by a scan. */
#define SHORT_SPAN   64
/* Moves lift out this many buffers, twice as many after as many failures
 * in a row, up to the largest: a plateau calls for deeper rearrangements. */
#define MOVE_BUFFERS     48
#define MAX_MOVE_BUFFERS 768
/* The hole and ejection moves lift at most this many: a deep hole under a
 * long stack would lift most of a large instance. */
#define MAX_LIFTED       2048
/* Placements between looks at the clock in a move. */
#define LOOK_STRIDE      64

typedef struct
{
  const MpOptBuffer *b;
  guint              n;
  guint64           *off;
  guint             *by_first;  /* short-lived buffers by first step */
  guint             *firsts;    /* their first steps, sorted */
  guint              n_short;
  guint             *longs;     /* long-lived buffers */
  guint              n_long;
  guint8            *out;       /* lifted out by the current move */
  GArray            *near;      /* scratch: overlapping buffer indices */
  GArray            *spans;     /* scratch: busy [start, end) pairs of long-lived */
  GArray            *shorts;    /* scratch: short-lived buffer indices */
  const guint64     *live;      /* live bytes at each step */
  guint64            arena;
  guint              at_top;    /* buffers that end at the arena */
  guint              move_size; /* buffers a move lifts out, at most */
  GArray            *lifted;    /* scratch of the hole move: buffer indices */
  GArray            *was;       /* and their offsets before it */
  gint64             deadline_us;
} Lns;

static gboolean
overlaps (const MpOptBuffer *a, const MpOptBuffer *b)
{
  return a->first <= b->last && b->first <= a->last;
}

/* Every buffer but skip whose lifetime overlaps range's, into lns->near. */
static void
collect_range (Lns *lns, const MpOptBuffer *range, guint skip)
{
  guint from = mp_opt_count_below (lns->firsts, lns->n_short,
                                   range->first > SHORT_SPAN ? range->first - SHORT_SPAN : 0);

  g_array_set_size (lns->near, 0);
  for (guint k = from; k < lns->n_short && lns->firsts[k] <= range->last; k++)
    {
      guint j = lns->by_first[k];

      if (j != skip && overlaps (range, &lns->b[j]))
        g_array_append_val (lns->near, j);
    }
  for (guint k = 0; k < lns->n_long; k++)
    {
      guint j = lns->longs[k];

      if (j != skip && overlaps (range, &lns->b[j]))
        g_array_append_val (lns->near, j);
    }
}

/* Every other buffer whose lifetime overlaps i's, into lns->near. */
static void
collect_near (Lns *lns, guint i)
{
  collect_range (lns, &lns->b[i], i);
}

static int
cmp_span (const void *pa, const void *pb)
{
  const guint64 *a = pa, *b = pb;

  return (a[0] > b[0]) - (a[0] < b[0]);
}

/* The lowest offset where i's slot is free of the placed buffers that
 * overlap it in time. The long-lived ones are few and decide most of it:
 * their spans are sorted and walked; the short-lived ones, many along a
 * long lifetime, are only checked against the offset found, which rises
 * past any that collides until none does. */
static guint64
first_fit (Lns *lns, guint i)
{
  guint64  size = lns->b[i].size, o = 0;
  gboolean moved = TRUE;

  collect_near (lns, i);
  g_array_set_size (lns->spans, 0);
  g_array_set_size (lns->shorts, 0);
  for (guint k = 0; k < lns->near->len; k++)
    {
      guint   j = g_array_index (lns->near, guint, k);
      guint64 span[2];

      if (lns->out[j])
        continue;
      if (lns->b[j].last - lns->b[j].first < SHORT_SPAN)
        {
          g_array_append_val (lns->shorts, j);
          continue;
        }
      span[0] = lns->off[j];
      span[1] = lns->off[j] + lns->b[j].size;
      g_array_append_vals (lns->spans, span, 2);
    }
  /* qsort must not see the NULL data of an empty array */
  if (lns->spans->len)
    qsort (lns->spans->data, lns->spans->len / 2, 2 * sizeof (guint64), cmp_span);
  while (moved)
    {
      moved = FALSE;
      for (guint k = 0; k < lns->spans->len; k += 2)
        {
          guint64 start = g_array_index (lns->spans, guint64, k);
          guint64 end = g_array_index (lns->spans, guint64, k + 1);

          if (start >= o + size)
            break;
          o = MAX (o, end);
        }
      for (guint k = 0; k < lns->shorts->len; k++)
        {
          guint j = g_array_index (lns->shorts, guint, k);

          if (lns->off[j] < o + size && o < lns->off[j] + lns->b[j].size)
            {
              o = lns->off[j] + lns->b[j].size;
              moved = TRUE;
            }
        }
    }
  return o;
}

static void
measure (Lns *lns)
{
  lns->arena = 0;
  lns->at_top = 0;
  for (guint i = 0; i < lns->n; i++)
    {
      guint64 top = lns->off[i] + lns->b[i].bytes;

      if (top > lns->arena)
        {
          lns->arena = top;
          lns->at_top = 0;
        }
      lns->at_top += top == lns->arena;
    }
}

/* The orders a move puts its buffers back in: largest first with some
 * noise, lowest first (each drops into what the lifted ones left free,
 * never higher than it was), or at random. */
typedef enum
{
  ORDER_SIZE,
  ORDER_LOWEST,
  ORDER_RANDOM,
  N_ORDERS
} MoveKind;

typedef struct
{
  const MpOptBuffer *b;
  const guint64     *off;
  const guint32     *noise;
  MoveKind           kind;
} MoveOrder;

static guint64
move_key (const MoveOrder *m, guint i)
{
  switch (m->kind)
    {
    case ORDER_SIZE:
      return m->b[i].size + (m->b[i].size * m->noise[i] >> 34);
    case ORDER_LOWEST:
      return G_MAXUINT64 - m->off[i];
    case ORDER_RANDOM:
    case N_ORDERS:
      break;
    }
  return m->noise[i];
}

static gint
cmp_move (gconstpointer pa, gconstpointer pb, gpointer data)
{
  const MoveOrder *m = data;
  guint            a = *(const guint *) pa, b = *(const guint *) pb;
  guint64          ka = move_key (m, a), kb = move_key (m, b);

  if (ka != kb)
    return ka > kb ? -1 : 1;
  return (a > b) - (a < b);
}

/* The stack at step t: lns->near, lns->spans (offset, buffer) pairs by
 * offset, and holes as [start, end) pairs below its top. Returns the holes. */
static guint
stack_holes (Lns *lns, guint t, GArray *holes)
{
  MpOptBuffer at = { t, t };
  guint64     reach = 0;

  g_array_set_size (holes, 0);
  collect_range (lns, &at, G_MAXUINT);
  g_array_set_size (lns->spans, 0);
  for (guint k = 0; k < lns->near->len; k++)
    {
      guint   j = g_array_index (lns->near, guint, k);
      guint64 span[2] = { lns->off[j], (guint64) j };

      g_array_append_vals (lns->spans, span, 2);
    }
  if (lns->spans->len)
    qsort (lns->spans->data, lns->spans->len / 2, 2 * sizeof (guint64), cmp_span);
  for (guint k = 0; k < lns->spans->len; k += 2)
    {
      guint64 o = g_array_index (lns->spans, guint64, k);
      guint   j = g_array_index (lns->spans, guint64, k + 1);

      if (o > reach)
        {
          guint64 hole[2] = { reach, o };

          g_array_append_vals (holes, hole, 2);
        }
      reach = MAX (reach, o + lns->b[j].size);
    }
  return holes->len / 2;
}

/* A step of v's lifetime: the one with the most live bytes, any, or one
 * where a buffer right under v holds it up (where the stack that sets the
 * arena is, when v lives long). */
static guint
pick_step (Lns *lns, guint v, GRand *rand)
{
  const MpOptBuffer *bv = &lns->b[v];
  guint              t = bv->first, n_under = 0, j;

  switch (g_rand_int_range (rand, 0, 3))
    {
    case 0:
      for (guint s = bv->first; s <= bv->last; s++)
        if (lns->live[s] > lns->live[t])
          t = s;
      return t;
    case 1:
      collect_near (lns, v);
      for (guint k = 0; k < lns->near->len; k++)
        {
          j = g_array_index (lns->near, guint, k);
          if (lns->off[j] + lns->b[j].size == lns->off[v])
            g_array_index (lns->near, guint, n_under++) = j;
        }
      if (n_under == 0)
        break;
      j = g_array_index (lns->near, guint, g_rand_int_range (rand, 0, n_under));
      return g_rand_int_range (rand, MAX (bv->first, lns->b[j].first),
                               MIN (bv->last, lns->b[j].last) + 1);
    default:
      break;
    }
  return g_rand_int_range (rand, bv->first, bv->last + 1);
}

/* Puts the lifted buffers (lns->lifted, each out) back in their order,
 * pin at pin_offset (free of the rest: what overlaps it there is lifted
 * too), the others first fit; kept as move's are, else undone. */
static gboolean
settle (Lns *lns, guint pin, guint64 pin_offset)
{
  guint    top_before = 0, top_after = 0;
  guint64  sum_before = 0, sum_after = 0;
  gboolean ok = TRUE;

  g_array_set_size (lns->was, lns->lifted->len);
  for (guint k = 0; k < lns->lifted->len; k++)
    {
      guint j = g_array_index (lns->lifted, guint, k);

      g_array_index (lns->was, guint64, k) = lns->off[j];
      top_before += lns->off[j] + lns->b[j].bytes == lns->arena;
      sum_before += lns->off[j] + lns->b[j].bytes;
    }
  for (guint k = 0; k < lns->lifted->len && ok; k++)
    {
      guint j = g_array_index (lns->lifted, guint, k);

      if (k % LOOK_STRIDE == LOOK_STRIDE - 1 && g_get_monotonic_time () > lns->deadline_us)
        {
          ok = FALSE;
          break;
        }
      lns->off[j] = j == pin ? pin_offset : first_fit (lns, j);
      lns->out[j] = FALSE;
      ok = lns->off[j] + lns->b[j].bytes <= lns->arena;
      top_after += lns->off[j] + lns->b[j].bytes == lns->arena;
      sum_after += lns->off[j] + lns->b[j].bytes;
    }
  ok = ok && (top_after < top_before || (top_after == top_before && sum_after < sum_before));
  if (!ok)
    {
      for (guint k = 0; k < lns->lifted->len; k++)
        {
          guint j = g_array_index (lns->lifted, guint, k);

          lns->off[j] = g_array_index (lns->was, guint64, k);
          lns->out[j] = FALSE;
        }
      return FALSE;
    }
  lns->at_top -= top_before - top_after;
  return TRUE;
}

/* One move around buffer v (on top of the arena): lift out the highest
 * buffers that overlap v in time, v among them, and put them back. Kept if
 * it lowers the number of buffers at the arena without passing it, or
 * keeps that number and lowers the sum of the lifted buffers' tops: a
 * plateau's moves still pack the top tighter, and never cycle. */
static gboolean
move (Lns *lns, guint v, GRand *rand, guint *set, guint32 *noise)
{
  guint     m = 0;
  MoveOrder order = { lns->b, lns->off, noise, g_rand_int_range (rand, 0, N_ORDERS) };
  gboolean  with_long = g_rand_boolean (rand);

  collect_near (lns, v);
  set[m++] = v;
  /* the near buffers that end highest (kept sorted in set by insertion:
   * the list can be long, the set is short), each with some chance left
   * out so that moves around one buffer differ; every other move leaves
   * the long-lived ones in place, cheaper and enough where the short-lived
   * ones make the arena */
  for (guint k = 0; k < lns->near->len; k++)
    {
      guint   j = g_array_index (lns->near, guint, k);
      guint64 top = lns->off[j] + lns->b[j].size;
      guint   at;

      if (g_rand_int_range (rand, 0, 4) == 0 ||
          (!with_long && lns->b[j].last - lns->b[j].first >= SHORT_SPAN))
        continue;
      if (m == lns->move_size && top <= lns->off[set[m - 1]] + lns->b[set[m - 1]].size)
        continue;
      at = m < lns->move_size ? m++ : m - 1;
      while (at > 1 && lns->off[set[at - 1]] + lns->b[set[at - 1]].size < top)
        {
          set[at] = set[at - 1];
          at--;
        }
      set[at] = j;
    }
  for (guint k = 0; k < m; k++)
    {
      lns->out[set[k]] = TRUE;
      noise[set[k]] = g_rand_int (rand);
    }
  g_qsort_with_data (set, m, sizeof (guint), cmp_move, &order);
  g_array_set_size (lns->lifted, 0);
  g_array_append_vals (lns->lifted, set, m);
  return settle (lns, G_MAXUINT, 0);
}

/* The hole move, on what sets the arena where it is reached: at a step t
 * of v's lifetime (the one with the most live bytes, or any), the arena is
 * the live bytes plus the holes in the stack of the buffers live at t. A
 * hole is there because buffers live at other steps take its addresses
 * (the blockers). Lift the buffers live at t above a hole and the blockers
 * of the holes above it, put the first back lowest first (each drops as
 * far as the rest allows, into the holes) and the blockers after them,
 * largest first. Kept as move's are. */
static gboolean
hole_move (Lns *lns, guint v, GRand *rand, guint32 *noise)
{
  guint              t, n_holes, h;
  guint64            cut;
  g_autoptr (GArray) holes = g_array_new (FALSE, FALSE, sizeof (guint64));
  guint              n_above;

  t = pick_step (lns, v, rand);
  n_holes = stack_holes (lns, t, holes);
  if (n_holes == 0)
    return FALSE;
  /* above the lowest hole, or above one at random; higher while that
   * lifts too many */
  h = g_rand_boolean (rand) ? 0 : g_rand_int_range (rand, 0, n_holes);
  for (;;)
    {
      guint above = 0;

      cut = g_array_index (holes, guint64, 2 * h);
      for (guint k = 0; k < lns->spans->len; k += 2)
        above += g_array_index (lns->spans, guint64, k) >= cut;
      if (above <= MAX_LIFTED / 2 || h + 1 == n_holes)
        break;
      h++;
    }

  g_array_set_size (lns->lifted, 0);
  for (guint k = 0; k < lns->spans->len; k += 2)
    if (g_array_index (lns->spans, guint64, k) >= cut)
      {
        guint j = g_array_index (lns->spans, guint64, k + 1);

        g_array_append_val (lns->lifted, j);
        lns->out[j] = TRUE;
      }
  n_above = lns->lifted->len;
  /* the blockers: not live at t, in a hole above the cut */
  for (guint j = 0; j < lns->n; j++)
    {
      guint64 lo = MAX (lns->off[j], cut), hi = lns->off[j] + lns->b[j].size;
      guint   a = h, b = n_holes;

      if (lns->out[j] || hi <= cut)
        continue;
      /* the first hole that ends above lo */
      while (a < b)
        {
          guint mid = (a + b) / 2;

          if (g_array_index (holes, guint64, 2 * mid + 1) <= lo)
            a = mid + 1;
          else
            b = mid;
        }
      if (a < n_holes && g_array_index (holes, guint64, 2 * a) < hi &&
          (t < lns->b[j].first || t > lns->b[j].last))
        {
          g_array_append_val (lns->lifted, j);
          lns->out[j] = TRUE;
          noise[j] = g_rand_int (rand);
        }
    }
  if (lns->lifted->len > MAX_LIFTED)
    {
      for (guint k = 0; k < lns->lifted->len; k++)
        lns->out[g_array_index (lns->lifted, guint, k)] = FALSE;
      return FALSE;
    }
  /* was follows lifted: sorted first */
  {
    MoveOrder order = { lns->b, lns->off, noise, ORDER_SIZE };

    g_qsort_with_data ((guint *) lns->lifted->data + n_above, lns->lifted->len - n_above,
                       sizeof (guint), cmp_move, &order);
  }
  return settle (lns, G_MAXUINT, 0);
}

/* The ejection move: v (on top) goes down into a hole of the stack at a
 * step of its lifetime; the buffers in its way there are lifted and put
 * back first fit, largest first. */
static gboolean
eject_move (Lns *lns, guint v, GRand *rand, guint32 *noise)
{
  g_autoptr (GArray) holes = g_array_new (FALSE, FALSE, sizeof (guint64));
  guint              n_holes = stack_holes (lns, pick_step (lns, v, rand), holes);
  guint64            size = lns->b[v].size, o;
  guint              h;

  if (n_holes == 0)
    return FALSE;
  h = g_rand_int_range (rand, 0, n_holes);
  /* at the hole's foot, or as high as it holds v */
  o = g_array_index (holes, guint64, 2 * h);
  if (g_rand_boolean (rand) && g_array_index (holes, guint64, 2 * h + 1) >= o + size)
    o = g_array_index (holes, guint64, 2 * h + 1) - size;
  if (o >= lns->off[v])
    return FALSE;
  collect_near (lns, v);
  g_array_set_size (lns->lifted, 0);
  g_array_append_val (lns->lifted, v);
  lns->out[v] = TRUE;
  for (guint k = 0; k < lns->near->len; k++)
    {
      guint j = g_array_index (lns->near, guint, k);

      if (lns->off[j] < o + size && o < lns->off[j] + lns->b[j].size)
        {
          g_array_append_val (lns->lifted, j);
          lns->out[j] = TRUE;
          noise[j] = g_rand_int (rand);
        }
    }
  {
    MoveOrder order = { lns->b, lns->off, noise, ORDER_SIZE };

    g_qsort_with_data ((guint *) lns->lifted->data + 1, lns->lifted->len - 1, sizeof (guint),
                       cmp_move, &order);
  }
  return settle (lns, v, o);
}

/* Moves are made in rounds: each of LNS_TASKS tasks starts from the best
 * plan so far, makes LNS_ROUND_MOVES moves with its own seed, and the best
 * task (lowest arena, then fewest buffers at it, then the lowest sum of
 * tops, then the first) gives the next round's plan. The tasks run on every core, and what a round returns
 * does not depend on how many threads ran it. */
#define LNS_TASKS       4
#define LNS_ROUND_MOVES 8

typedef struct
{
  Lns      lns;
  GRand   *rand;
  guint   *set;
  guint32 *noise;
  guint   *tops;
  guint    n_tops;
  guint    failures;
  gboolean stopped;
  guint64  sum;     /* of every buffer's top: lower is tighter */
} LnsTask;

typedef struct
{
  gint64        deadline_us;
  GCancellable *cancellable;
  guint64       floor;
} LnsRound;

static void
task_init (LnsTask *t, const Lns *shared, guint64 *offsets)
{
  t->lns = *shared;
  t->lns.off = offsets;
  t->lns.out = g_new0 (guint8, shared->n);
  t->lns.near = g_array_new (FALSE, FALSE, sizeof (guint));
  t->lns.spans = g_array_new (FALSE, FALSE, sizeof (guint64));
  t->lns.shorts = g_array_new (FALSE, FALSE, sizeof (guint));
  t->lns.move_size = MOVE_BUFFERS;
  t->lns.lifted = g_array_new (FALSE, FALSE, sizeof (guint));
  t->lns.was = g_array_new (FALSE, FALSE, sizeof (guint64));
  t->set = g_new (guint, MAX_MOVE_BUFFERS);
  t->noise = g_new0 (guint32, shared->n);
  t->tops = g_new (guint, shared->n);
  t->rand = g_rand_new ();
}

static void
task_clear (LnsTask *t)
{
  g_array_unref (t->lns.near);
  g_array_unref (t->lns.spans);
  g_array_unref (t->lns.shorts);
  g_array_unref (t->lns.lifted);
  g_array_unref (t->lns.was);
  g_free (t->lns.out);
  g_free (t->set);
  g_free (t->noise);
  g_free (t->tops);
  g_rand_free (t->rand);
}

/* One of the moves, at random. */
static gboolean
try_move (LnsTask *t, guint v)
{
  switch (g_rand_int_range (t->rand, 0, 3))
    {
    case 0:
      return hole_move (&t->lns, v, t->rand, t->noise);
    case 1:
      return eject_move (&t->lns, v, t->rand, t->noise);
    default:
      return move (&t->lns, v, t->rand, t->set, t->noise);
    }
}

/* One round of one task: at most moves moves on its own plan. */
static void
task_run (LnsTask *t, guint moves, const LnsRound *round)
{
  Lns               *lns = &t->lns;
  const MpOptBuffer *buffers = lns->b;

  t->n_tops = 0;
  t->stopped = FALSE;
  lns->deadline_us = round->deadline_us;
  for (guint k = 0; k < moves && lns->arena > round->floor; k++)
    {
      guint v;

      /* a move around a long-lived buffer can take milliseconds: look
       * every time */
      if (g_get_monotonic_time () > round->deadline_us ||
          g_cancellable_is_cancelled (round->cancellable))
        {
          t->stopped = TRUE;
          break;
        }
      if (t->n_tops == 0)
        for (guint i = 0; i < lns->n; i++)
          if (lns->off[i] + buffers[i].bytes == lns->arena)
            t->tops[t->n_tops++] = i;
      v = t->tops[g_rand_int_range (t->rand, 0, t->n_tops)];
      if (lns->off[v] + buffers[v].bytes != lns->arena)
        {
          t->n_tops = 0; /* moved down by an earlier move: look again */
          continue;
        }
      if (!try_move (t, v))
        {
          if (++t->failures == lns->move_size && lns->move_size < MAX_MOVE_BUFFERS)
            {
              lns->move_size *= 2;
              t->failures = 0;
            }
          continue;
        }
      t->failures = 0;
      lns->move_size = MOVE_BUFFERS;
      t->n_tops = 0;
      if (lns->at_top == 0)
        measure (lns);
    }
  t->sum = 0;
  for (guint i = 0; i < lns->n; i++)
    t->sum += lns->off[i] + buffers[i].bytes;
}

typedef struct
{
  LnsTask  *tasks;
  guint     moves;
  LnsRound *round;
  GMutex    lock;
  GCond     done;
  guint     pending; /* tasks of this round not finished */
} LnsPool;

static void
pool_run (gpointer item, gpointer data)
{
  LnsPool *pool = data;

  task_run (&pool->tasks[GPOINTER_TO_UINT (item) - 1], pool->moves, pool->round);
  g_mutex_lock (&pool->lock);
  if (--pool->pending == 0)
    g_cond_signal (&pool->done);
  g_mutex_unlock (&pool->lock);
}

guint64
mp_opt_lns_rounds (const MpOptBuffer *buffers, guint n, guint64 *offsets, guint64 floor,
                   guint32 seed, guint max_rounds, guint n_threads, gint64 deadline_us,
                   GCancellable *cancellable, MpOptImproved improved, gpointer data)
{
  Lns                 shared = { buffers, n, offsets };
  LnsTask             tasks[LNS_TASKS];
  LnsRound            round = { deadline_us, cancellable, floor };
  LnsPool             pool = { tasks, LNS_ROUND_MOVES, &round };
  g_autofree guint64 *keys = g_new (guint64, MAX (n, 1));
  g_autofree guint64 *plans = NULL;
  GThreadPool        *threads = NULL;
  gboolean            stopped = FALSE;
  g_autofree guint64 *live = NULL;
  guint               n_steps = 0;

  if (n == 0)
    return 0;
  shared.by_first = g_new (guint, n);
  shared.firsts = g_new (guint, n);
  shared.longs = g_new (guint, n);
  for (guint i = 0; i < n; i++)
    if (buffers[i].last - buffers[i].first >= SHORT_SPAN)
      shared.longs[shared.n_long++] = i;
    else
      keys[shared.n_short++] = ((guint64) buffers[i].first << 32) | i;
  qsort (keys, shared.n_short, sizeof (guint64), mp_opt_cmp_u64);
  for (guint k = 0; k < shared.n_short; k++)
    {
      shared.by_first[k] = keys[k] & G_MAXUINT32;
      shared.firsts[k] = keys[k] >> 32;
    }
  measure (&shared);
  for (guint i = 0; i < n; i++)
    n_steps = MAX (n_steps, buffers[i].last + 2);
  live = g_new0 (guint64, n_steps);
  for (guint i = 0; i < n; i++)
    {
      live[buffers[i].first] += buffers[i].size;
      live[buffers[i].last + 1] -= buffers[i].size;
    }
  for (guint s = 1; s < n_steps; s++)
    live[s] += live[s - 1];
  shared.live = live;

  plans = g_new (guint64, (gsize) n * LNS_TASKS);
  for (guint k = 0; k < LNS_TASKS; k++)
    task_init (&tasks[k], &shared, plans + (gsize) n * k);
  n_threads = CLAMP (n_threads, 1, LNS_TASKS);
  g_mutex_init (&pool.lock);
  g_cond_init (&pool.done);
  if (n_threads > 1)
    threads = g_thread_pool_new (pool_run, &pool, n_threads, FALSE, NULL);

  for (guint r = 0; !stopped && shared.arena > floor && (max_rounds == 0 || r < max_rounds);
       r++)
    {
      guint best = 0;

      for (guint k = 0; k < LNS_TASKS; k++)
        {
          memcpy (tasks[k].lns.off, offsets, sizeof (guint64) * n);
          tasks[k].lns.arena = shared.arena;
          tasks[k].lns.at_top = shared.at_top;
          g_rand_set_seed (tasks[k].rand, seed * 7919u + r * LNS_TASKS + k);
        }
      if (threads)
        {
          pool.pending = LNS_TASKS;
          for (guint k = 0; k < LNS_TASKS; k++)
            g_thread_pool_push (threads, GUINT_TO_POINTER (k + 1), NULL);
          g_mutex_lock (&pool.lock);
          while (pool.pending > 0)
            g_cond_wait (&pool.done, &pool.lock);
          g_mutex_unlock (&pool.lock);
        }
      else
        for (guint k = 0; k < LNS_TASKS; k++)
          task_run (&tasks[k], LNS_ROUND_MOVES, &round);
      for (guint k = 0; k < LNS_TASKS; k++)
        {
          stopped = stopped || tasks[k].stopped;
          if (tasks[k].lns.arena < tasks[best].lns.arena ||
              (tasks[k].lns.arena == tasks[best].lns.arena &&
               (tasks[k].lns.at_top < tasks[best].lns.at_top ||
                (tasks[k].lns.at_top == tasks[best].lns.at_top &&
                 tasks[k].sum < tasks[best].sum))))
            best = k;
        }
      /* never worse, and a plateau's sideways moves carry over */
      memcpy (offsets, tasks[best].lns.off, sizeof (guint64) * n);
      if (tasks[best].lns.arena < shared.arena && improved)
        improved (offsets, tasks[best].lns.arena, data);
      shared.arena = tasks[best].lns.arena;
      shared.at_top = tasks[best].lns.at_top;
    }
  if (threads)
    g_thread_pool_free (threads, FALSE, TRUE);
  g_mutex_clear (&pool.lock);
  g_cond_clear (&pool.done);
  for (guint k = 0; k < LNS_TASKS; k++)
    task_clear (&tasks[k]);
  g_free (shared.by_first);
  g_free (shared.firsts);
  g_free (shared.longs);
  return shared.arena;
}

guint64
mp_opt_lns (const MpOptBuffer *buffers, guint n, guint64 *offsets, guint64 floor, guint32 seed,
            gint64 deadline_us, GCancellable *cancellable, MpOptImproved improved,
            gpointer data)
{
  return mp_opt_lns_rounds (buffers, n, offsets, floor, seed, 0, g_get_num_processors (),
                            deadline_us, cancellable, improved, data);
}

/* The order search. Keys are size times lifetime to these powers: area
 * first (the best on random workloads), then the square root (the best on
 * long-lived ones), then two more. */
static const gdouble reorder_powers[] = { 1.0, 0.5, 1.5, 0.75 };
/* Squeaky wheel: the buffers that end within this share of a pass's arena
 * have their key raised by this factor for the next pass. Each pass starts
 * from the last one's keys, better or not: going back to the best keys
 * after a worse pass only raises the same buffers again. */
#define SQUEAK_BAND    0.005
#define SQUEAK_RAISE   1.5
/* Passes in a row without a better plan before the search gives up (the
 * large-neighbourhood search gets the rest of the time). */
#define REORDER_STALL  32
/* Placements between looks at the clock: a pass over long lifetimes can
 * take seconds. */
#define REORDER_STRIDE 1024

static gint
cmp_key_desc (gconstpointer pa, gconstpointer pb, gpointer data)
{
  const gdouble *keys = data;
  guint          a = *(const guint *) pa, b = *(const guint *) pb;

  if (keys[a] != keys[b])
    return keys[a] > keys[b] ? -1 : 1;
  return (a > b) - (a < b);
}

/* Every buffer first-fit in order of descending key, into trial. Returns
 * the arena, or G_MAXUINT64 when stopped before the end. */
static guint64
first_fit_pass (const MpOptBuffer *buffers, guint n, guint n_steps, const gdouble *keys,
                guint *order, guint64 *trial, gint64 deadline_us, GCancellable *cancellable)
{
  g_autoptr (MpTimeIndex) index = NULL;
  guint64 arena = 0;
  gdouble lived = 0;

  for (guint i = 0; i < n; i++)
    lived += (gdouble) buffers[i].last - buffers[i].first + 1;
  index = mp_time_index_new (MAX (n_steps, 1), n ? lived / n : 1);

  for (guint i = 0; i < n; i++)
    order[i] = i;
  g_qsort_with_data (order, n, sizeof (guint), cmp_key_desc, (gpointer) keys);
  for (guint k = 0; k < n; k++)
    {
      const MpOptBuffer *b = &buffers[order[k]];
      guint64            offset;

      if (k % REORDER_STRIDE == 0 &&
          (g_get_monotonic_time () > deadline_us || g_cancellable_is_cancelled (cancellable)))
        return G_MAXUINT64;
      offset = mp_time_index_first_fit (index, b->first, b->last, b->size);
      trial[order[k]] = offset;
      mp_time_index_insert (index, b->first, b->last, offset, b->size);
      arena = MAX (arena, offset + b->bytes);
    }
  return arena;
}

static void
power_keys (const MpOptBuffer *buffers, guint n, gdouble power, gdouble *keys)
{
  for (guint i = 0; i < n; i++)
    keys[i] = (gdouble) buffers[i].size * pow (buffers[i].last - buffers[i].first + 1.0, power);
}

/* Raises the keys of the buffers near the top of plan (arena). */
static void
squeak (const MpOptBuffer *buffers, guint n, const guint64 *plan, guint64 arena, gdouble *keys)
{
  guint64 band = arena - (guint64) (arena * SQUEAK_BAND);
  gdouble most = 0;

  for (guint i = 0; i < n; i++)
    {
      if (plan[i] + buffers[i].bytes > band)
        keys[i] *= SQUEAK_RAISE;
      most = MAX (most, keys[i]);
    }
  /* raised thousands of times on small instances: keep them finite */
  if (most > 1e200)
    for (guint i = 0; i < n; i++)
      keys[i] *= 1e-100;
}

guint64
mp_opt_reorder (const MpOptBuffer *buffers, guint n, guint64 *offsets, guint64 floor,
                guint max_passes, gint64 deadline_us, GCancellable *cancellable,
                MpOptImproved improved, gpointer data)
{
  g_autofree gdouble *keys = g_new (gdouble, MAX (n, 1));
  g_autofree guint   *order = g_new (guint, MAX (n, 1));
  g_autofree guint64 *trial = g_new (guint64, MAX (n, 1));
  guint               n_steps = 0, n_powers = G_N_ELEMENTS (reorder_powers), best_power = 0;
  guint               stall = 0;
  guint64             arena = 0;

  for (guint i = 0; i < n; i++)
    {
      n_steps = MAX (n_steps, buffers[i].last + 1);
      arena = MAX (arena, offsets[i] + buffers[i].bytes);
    }
  for (guint p = 0; arena > floor && (max_passes == 0 || p < max_passes) &&
                    stall < REORDER_STALL; p++)
    {
      guint64 got;

      if (p < n_powers)
        power_keys (buffers, n, reorder_powers[p], keys);
      else if (p == n_powers)
        {
          /* the squeaky wheel starts from the best power (area when none
           * beat the incumbent) and the best plan */
          power_keys (buffers, n, reorder_powers[best_power], keys);
          squeak (buffers, n, offsets, arena, keys);
        }
      got = first_fit_pass (buffers, n, n_steps, keys, order, trial, deadline_us, cancellable);
      if (got == G_MAXUINT64)
        break;
      stall++;
      if (got < arena)
        {
          arena = got;
          memcpy (offsets, trial, sizeof (guint64) * n);
          best_power = p < n_powers ? p : best_power;
          stall = 0;
          if (improved)
            improved (offsets, arena, data);
        }
      if (p >= n_powers)
        squeak (buffers, n, trial, got, keys);
    }
  return arena;
}
