/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <string.h>

#include "order-private.h"

/* The exact order: a best-first search over the sets of executed ops (a
 * set closed under dependencies; every order through it costs the same
 * afterwards), keyed by the peak so far. The peak of an order is the
 * largest live bytes of its steps, so the first complete set taken off the
 * queue is a minimum; a set reached again with a higher peak is dropped.
 * Bounds: nothing at or above the incumbent (the best heuristic) is kept,
 * no order goes under the largest step's own bytes, and an op that runs
 * within the peak so far and leaves nothing new live runs at once (moved to
 * the front of any completion it raises no later step). Every
 * few thousand states a greedy completion may improve the incumbent, so
 * the search is anytime: when the budget ends it keeps its best order and
 * says "not proved", with the lowest peak still open as the bound. */

#define NO_STATE G_MAXUINT32

typedef struct
{
  const MpOrderProblem *pb;
  guint                 words;
  GArray               *bits;   /* guint64 × words per state */
  GArray               *peak;   /* guint64: the lowest peak found to reach the state */
  GArray               *resid;  /* guint64: live bytes after the state's ops */
  GArray               *parent; /* guint32 */
  GArray               *via;    /* guint32: op run last to reach it */
  guint32              *table;  /* open addressing: state index or NO_STATE */
  guint                 table_size;
  GArray               *heap;   /* QueueEntry */
} Search;

typedef struct
{
  guint64 key;
  guint32 depth;
  guint32 state;
} QueueEntry;

static inline const guint64 *
state_bits (const Search *s, guint32 i)
{
  return &g_array_index (s->bits, guint64, (gsize) i * s->words);
}

static inline gboolean
has (const guint64 *bits, guint o)
{
  return (bits[o / 64] >> (o % 64)) & 1;
}

static guint
hash_bits (const guint64 *bits, guint words)
{
  guint64 h = 0x9e3779b97f4a7c15ULL;

  for (guint w = 0; w < words; w++)
    {
      h ^= bits[w] + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
      h *= 0xff51afd7ed558ccdULL;
    }
  return (guint) (h ^ (h >> 32));
}

static guint32 *
slot (Search *s, const guint64 *bits)
{
  guint mask = s->table_size - 1, i = hash_bits (bits, s->words) & mask;

  while (s->table[i] != NO_STATE &&
         memcmp (state_bits (s, s->table[i]), bits, sizeof (guint64) * s->words) != 0)
    i = (i + 1) & mask;
  return &s->table[i];
}

static void
grow_table (Search *s)
{
  guint32 *old = s->table;
  guint    old_size = s->table_size;

  s->table_size *= 2;
  s->table = g_new (guint32, s->table_size);
  memset (s->table, 0xff, sizeof (guint32) * s->table_size);
  for (guint i = 0; i < old_size; i++)
    if (old[i] != NO_STATE)
      *slot (s, state_bits (s, old[i])) = old[i];
  g_free (old);
}

static gboolean
queue_before (gconstpointer pa, gconstpointer pb)
{
  const QueueEntry *a = pa, *b = pb;

  if (a->key != b->key)
    return a->key < b->key;
  return a->depth > b->depth; /* deeper first: complete orders come sooner */
}

static void
queue_push (GArray *heap, QueueEntry e)
{
  mp_order_heap_push (heap, &e, queue_before);
}

/* Whether some op outside done (and other than o, unless G_MAXUINT) touches r. */
static gboolean
touched_outside (const MpOrderProblem *pb, const guint64 *done, guint r, guint o)
{
  for (guint k = pb->touch_start[r]; k < pb->touch_start[r + 1]; k++)
    if (pb->touch[k] != o && !has (done, pb->touch[k]))
      return TRUE;
  return FALSE;
}

static gboolean
touched_inside (const MpOrderProblem *pb, const guint64 *done, guint r)
{
  for (guint k = pb->touch_start[r]; k < pb->touch_start[r + 1]; k++)
    if (has (done, pb->touch[k]))
      return TRUE;
  return FALSE;
}

/* Running o after done, whose residual is resid: the live bytes during o
 * (*mem), after it (returned) and whether o leaves a new buffer live. */
static guint64
step (const MpOrderProblem *pb, const guint64 *done, guint64 resid, guint o, guint64 *mem,
      gboolean *leaves_new)
{
  guint64 during = resid, after = resid;

  *leaves_new = FALSE;
  for (guint j = pb->rec_start[o]; j < pb->rec_start[o + 1]; j++)
    {
      guint    r = pb->recs[j];
      gboolean live_before = (pb->flags[r] & MP_ORDER_REC_FROM_START) ||
                             touched_inside (pb, done, r);
      gboolean live_after = (pb->flags[r] & MP_ORDER_REC_TO_END) ||
                            touched_outside (pb, done, r, o);

      if (!live_before)
        {
          during += pb->bytes[r];
          if (live_after)
            {
              after += pb->bytes[r];
              *leaves_new = TRUE;
            }
        }
      else if (!live_after)
        after -= pb->bytes[r];
    }
  *mem = during;
  return after;
}

static gboolean
ready (const MpOrderProblem *pb, const guint64 *done, guint o)
{
  if (has (done, o))
    return FALSE;
  for (guint j = pb->pred_start[o]; j < pb->pred_start[o + 1]; j++)
    if (!has (done, pb->preds[j]))
      return FALSE;
  return TRUE;
}

/* The ops that lead to state i, in order, into order; returns how many. */
static guint
path (const Search *s, guint32 i, guint *order)
{
  guint n = 0;

  for (guint32 k = i; g_array_index (s->parent, guint32, k) != NO_STATE;
       k = g_array_index (s->parent, guint32, k))
    n++;
  for (guint32 k = i, m = n; g_array_index (s->parent, guint32, k) != NO_STATE;
       k = g_array_index (s->parent, guint32, k))
    order[--m] = g_array_index (s->via, guint32, k);
  return n;
}

/* From state i, runs the ready op that needs the least live bytes (then
 * leaves the least) until all have run; into order when its peak is under
 * *best. */
static gboolean
dive (const Search *s, guint32 i, guint *order, guint64 *best, gint64 deadline)
{
  const MpOrderProblem *pb = s->pb;
  g_autofree guint64   *done = g_memdup2 (state_bits (s, i), sizeof (guint64) * s->words);
  g_autofree guint     *seq = g_new (guint, MAX (pb->n_ops, 1));
  guint64               resid = g_array_index (s->resid, guint64, i);
  guint64               peak = g_array_index (s->peak, guint64, i);
  guint                 n = path (s, i, seq);

  while (n < pb->n_ops)
    {
      guint    pick = G_MAXUINT;
      guint64  pick_mem = 0, pick_after = 0;
      gboolean leaves;

      for (guint o = 0; o < pb->n_ops; o++)
        {
          guint64 mem, after;

          if (!ready (pb, done, o))
            continue;
          after = step (pb, done, resid, o, &mem, &leaves);
          if (pick == G_MAXUINT || mem < pick_mem || (mem == pick_mem && after < pick_after))
            pick = o, pick_mem = mem, pick_after = after;
        }
      peak = MAX (peak, pick_mem);
      /* a dive costs ops squared: on a large graph it may not outlast the budget */
      if (peak >= *best || ((n & 63) == 0 && g_get_monotonic_time () > deadline))
        return FALSE;
      resid = pick_after;
      done[pick / 64] |= G_GUINT64_CONSTANT (1) << (pick % 64);
      seq[n++] = pick;
    }
  *best = peak;
  memcpy (order, seq, sizeof (guint) * pb->n_ops);
  return TRUE;
}

static guint32
add_state (Search *s, const guint64 *bits, guint64 peak, guint64 resid, guint32 parent,
           guint32 via)
{
  guint32 i = s->peak->len;

  g_array_append_vals (s->bits, bits, s->words);
  g_array_append_val (s->peak, peak);
  g_array_append_val (s->resid, resid);
  g_array_append_val (s->parent, parent);
  g_array_append_val (s->via, via);
  return i;
}

gboolean
mp_order_search (const MpOrderProblem *pb, const MpOrderOptions *options, guint *order,
                 guint64 incumbent, MpOrderResult *result, GError **error)
{
  Search              s = { pb, (pb->n_ops + 63) / 64 };
  g_autofree guint64 *bits = g_new0 (guint64, s.words + 1);
  gdouble             budget = options->time_budget > 0 ? options->time_budget : 10;
  gint64              deadline = g_get_monotonic_time () + (gint64) (budget * 1e6);
  guint64             max_states = options->max_states, floor = 0, bound = 0;
  guint64             per_state = 8 * s.words + 8 * 3 + 4 * 2 + 4 * 2 + sizeof (QueueEntry) * 2;
  guint64             pops = 0;
  guint64             check_mask = pb->n_ops > 4096 ? 0 : 255;
  gboolean            proved = FALSE, stopped = FALSE;
  const char         *why = NULL;

  if (max_states == 0)
    max_states = MAX ((G_GUINT64_CONSTANT (1) << 30) / per_state, 1024);
  max_states = MIN (max_states, G_MAXUINT32 - 1);
  /* no order goes under the bytes an op touches itself */
  for (guint o = 0; o < pb->n_ops; o++)
    {
      guint64 own = 0;

      for (guint j = pb->rec_start[o]; j < pb->rec_start[o + 1]; j++)
        own += pb->bytes[pb->recs[j]];
      floor = MAX (floor, own);
    }
  floor = MAX (floor, pb->from_start_bytes);
  if (pb->n_ops == 0 || floor >= incumbent)
    {
      result->lower_bound = incumbent;
      result->proved = TRUE;
      return TRUE;
    }

  s.bits = g_array_new (FALSE, FALSE, sizeof (guint64));
  s.peak = g_array_new (FALSE, FALSE, sizeof (guint64));
  s.resid = g_array_new (FALSE, FALSE, sizeof (guint64));
  s.parent = g_array_new (FALSE, FALSE, sizeof (guint32));
  s.via = g_array_new (FALSE, FALSE, sizeof (guint32));
  s.heap = g_array_new (FALSE, FALSE, sizeof (QueueEntry));
  s.table_size = 1024;
  s.table = g_new (guint32, s.table_size);
  memset (s.table, 0xff, sizeof (guint32) * s.table_size);

  *slot (&s, bits) = add_state (&s, bits, 0, pb->from_start_bytes, NO_STATE, NO_STATE);
  queue_push (s.heap, (QueueEntry) { floor, 0, 0 });
  bound = floor;
  while (s.heap->len > 0)
    {
      QueueEntry e;
      guint      forced = G_MAXUINT;
      guint64    f, resid;

      mp_order_heap_pop (s.heap, &e, queue_before);
      f = g_array_index (s.peak, guint64, e.state);
      resid = g_array_index (s.resid, guint64, e.state);
      if (MAX (f, floor) != e.key)
        continue; /* reached again with a lower peak since */
      bound = e.key;
      if (e.key >= incumbent)
        break; /* nothing open can beat the incumbent: it is a minimum */
      if (e.depth == pb->n_ops)
        {
          path (&s, e.state, order);
          incumbent = f;
          break;
        }
      /* a state of a large graph takes long to expand: look at the clock more often */
      if ((++pops & check_mask) == 0)
        {
          if (g_cancellable_set_error_if_cancelled (options->cancellable, error))
            {
              stopped = TRUE;
              break;
            }
          if (g_get_monotonic_time () > deadline)
            {
              why = "the time budget ran out";
              break;
            }
          if ((pops & (16 * check_mask + 15)) == 0)
            dive (&s, e.state, order, &incumbent, deadline);
        }
      memcpy (bits, state_bits (&s, e.state), sizeof (guint64) * s.words);
      /* an op that fits under the peak so far and leaves nothing new live
       * can run first in some best completion: take it alone */
      for (guint o = 0; o < pb->n_ops && forced == G_MAXUINT; o++)
        {
          guint64  mem;
          gboolean leaves;

          if (!ready (pb, bits, o))
            continue;
          step (pb, bits, resid, o, &mem, &leaves);
          if (!leaves && mem <= MAX (f, floor))
            forced = o;
        }
      for (guint o = 0; o < pb->n_ops; o++)
        {
          guint64   mem, after, nf;
          gboolean  leaves;
          guint32  *at, i;

          if ((forced != G_MAXUINT && o != forced) || !ready (pb, bits, o))
            continue;
          after = step (pb, bits, resid, o, &mem, &leaves);
          nf = MAX (f, mem);
          if (MAX (nf, floor) >= incumbent)
            continue;
          bits[o / 64] |= G_GUINT64_CONSTANT (1) << (o % 64);
          at = slot (&s, bits);
          if (*at != NO_STATE)
            {
              i = *at;
              if (g_array_index (s.peak, guint64, i) <= nf)
                {
                  bits[o / 64] &= ~(G_GUINT64_CONSTANT (1) << (o % 64));
                  continue;
                }
              g_array_index (s.peak, guint64, i) = nf;
              g_array_index (s.parent, guint32, i) = e.state;
              g_array_index (s.via, guint32, i) = o;
            }
          else
            {
              if (s.peak->len >= max_states)
                {
                  why = "the search reached its limit of states";
                  bits[o / 64] &= ~(G_GUINT64_CONSTANT (1) << (o % 64));
                  break;
                }
              i = *at = add_state (&s, bits, nf, after, e.state, o);
              if (2 * (guint64) s.peak->len > s.table_size)
                grow_table (&s);
            }
          queue_push (s.heap, (QueueEntry) { MAX (nf, floor), e.depth + 1, i });
          bits[o / 64] &= ~(G_GUINT64_CONSTANT (1) << (o % 64));
        }
      if (why)
        break;
    }
  if (s.heap->len == 0 && why == NULL)
    bound = incumbent; /* everything under the incumbent was tried */
  if (why == NULL && !stopped)
    proved = TRUE;
  result->states = s.peak->len;
  result->proved = proved;
  result->lower_bound = proved ? incumbent : MIN (bound, incumbent);
  if (!proved && why)
    {
      g_autofree char *note = g_strdup_printf ("not proved: %s after %" G_GUINT64_FORMAT
                                               " states", why, result->states);

      char *old = result->note;

      result->note = old ? g_strconcat (old, "; ", note, NULL) : g_steal_pointer (&note);
      g_free (old);
    }
  g_array_unref (s.bits);
  g_array_unref (s.peak);
  g_array_unref (s.resid);
  g_array_unref (s.parent);
  g_array_unref (s.via);
  g_array_unref (s.heap);
  g_free (s.table);
  return !stopped;
}
