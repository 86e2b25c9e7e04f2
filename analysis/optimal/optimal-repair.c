/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include "optimal-repair.h"

#include "optimal-decompose.h"
#include "optimal-private.h"

/* Buffers living fewer steps are found through their first step. */
#define SHORT_LIFE 64

/* An address range taken by buffer who. */
typedef struct
{
  guint64 start;
  guint64 end;
  guint   who;
} Slot;

#define NOBODY G_MAXUINT

typedef struct
{
  const MpOptBuffer *buffers;
  guint              n;
  guint64           *offsets;
  guint64            cap;
  gint64             deadline_us;
  GCancellable      *cancellable;
  guint             *longs; /* by index */
  guint              n_long;
  guint             *shorts; /* by first step, then index */
  guint              n_short;
  GArray            *slots[3];
} Repair;

static gint
cmp_slot (gconstpointer pa, gconstpointer pb)
{
  const Slot *a = pa, *b = pb;

  if (a->start != b->start)
    return a->start < b->start ? -1 : 1;
  return (a->who > b->who) - (a->who < b->who);
}

static gboolean
stop (const Repair *r)
{
  return (r->deadline_us && g_get_monotonic_time () > r->deadline_us) ||
         g_cancellable_is_cancelled (r->cancellable);
}

static void
add_slot (const Repair *r, guint i, guint first, guint last, guint skip, GArray *slots)
{
  const MpOptBuffer *b = &r->buffers[i];

  if (i != skip && b->first <= last && b->last >= first)
    {
      Slot s = { r->offsets[i], r->offsets[i] + b->size, i };

      g_array_append_val (slots, s);
    }
}

/* The slots of the buffers but skip that live at some step of [first,
 * last], sorted by address. */
static void
collect (const Repair *r, guint first, guint last, guint skip, GArray *slots)
{
  guint lo = 0, hi = r->n_short;
  guint from = first >= SHORT_LIFE ? first - SHORT_LIFE + 1 : 0;

  g_array_set_size (slots, 0);
  for (guint k = 0; k < r->n_long; k++)
    add_slot (r, r->longs[k], first, last, skip, slots);
  /* the first short buffer that starts at from or later */
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (r->buffers[r->shorts[mid]].first < from)
        lo = mid + 1;
      else
        hi = mid;
    }
  for (guint k = lo; k < r->n_short && r->buffers[r->shorts[k]].first <= last; k++)
    add_slot (r, r->shorts[k], first, last, skip, slots);
  g_array_sort (slots, cmp_slot);
}

/* Best fit of b among slots but ignore's, with offset + bytes <= cap: the
 * smallest gap that holds it, lowest first. */
static gboolean
fit_below (const GArray *slots, guint ignore, const MpOptBuffer *b, guint64 cap, guint64 *at)
{
  guint64  low = 0, best_len = G_MAXUINT64;
  gboolean found = FALSE;

  for (guint k = 0; k <= slots->len; k++)
    {
      const Slot *s = k < slots->len ? &g_array_index (slots, Slot, k) : NULL;
      guint64     high = s ? s->start : G_MAXUINT64;

      if (s && s->who == ignore)
        continue;
      if (low + b->bytes > cap)
        break;
      if (high > low && high - low >= b->size && high - low < best_len)
        {
          best_len = high - low;
          *at = low;
          found = TRUE;
        }
      if (s)
        low = MAX (low, s->end);
    }
  return found;
}

/* Moves buffer i (whose neighbours over its lifetime are in slots, the
 * one at keep staying put) under the cap: straight into a gap, else into
 * the place of one buffer y in its way that moves under the cap itself,
 * with one more in its way when depth allows. */
static gboolean
place (Repair *r, guint i, guint keep, guint depth, const GArray *slots, guint64 *at)
{
  const MpOptBuffer *b = &r->buffers[i];
  GArray            *theirs;

  if (fit_below (slots, NOBODY, b, r->cap, at))
    return TRUE;
  if (depth == 0)
    return FALSE;
  theirs = r->slots[depth - 1];
  for (guint k = 0; k < slots->len && !stop (r); k++)
    {
      guint   y = g_array_index (slots, Slot, k).who;
      guint64 was = r->offsets[i], there;

      if (y == keep || r->offsets[y] >= r->cap || !fit_below (slots, y, b, r->cap, at))
        continue;
      r->offsets[i] = *at;
      collect (r, r->buffers[y].first, r->buffers[y].last, y, theirs);
      if (place (r, y, i, depth - 1, theirs, &there))
        {
          r->offsets[y] = there;
          return TRUE;
        }
      r->offsets[i] = was;
    }
  return FALSE;
}

/* Largest top first, then by index. */
static gint
cmp_top_desc (gconstpointer pa, gconstpointer pb, gpointer data)
{
  const guint64 *top = data;
  guint          x = *(const guint *) pa, y = *(const guint *) pb;

  if (top[x] != top[y])
    return top[x] > top[y] ? -1 : 1;
  return (x > y) - (x < y);
}

/* Moves the buffers above the cap under it while some move; TRUE when
 * none is left above. */
static gboolean
repair_at (Repair *r, guint64 *top, guint *over)
{
  gboolean moved = TRUE;
  guint    depth = 1;

  /* two buffers in the way only when one is not enough */
  while (moved || depth < 2)
    {
      guint n_over = 0;

      if (!moved)
        depth++;
      else
        depth = 1;
      moved = FALSE;
      for (guint i = 0; i < r->n; i++)
        {
          top[i] = r->offsets[i] + r->buffers[i].bytes;
          if (top[i] > r->cap)
            over[n_over++] = i;
        }
      if (n_over == 0)
        return TRUE;
      g_qsort_with_data (over, n_over, sizeof (guint), cmp_top_desc, top);
      if (stop (r))
        return FALSE;
      for (guint k = 0; k < n_over && !stop (r); k++)
        {
          const MpOptBuffer *b = &r->buffers[over[k]];
          guint64            at;

          collect (r, b->first, b->last, over[k], r->slots[2]);
          if (place (r, over[k], NOBODY, depth, r->slots[2], &at))
            {
              r->offsets[over[k]] = at;
              moved = TRUE;
            }
        }
    }
  return FALSE;
}

/* The peak of live bytes: no cap below it can be reached. */
static guint64
repair_floor (const MpOptBuffer *buffers, guint n)
{
  guint n_steps = 0;

  for (guint i = 0; i < n; i++)
    n_steps = MAX (n_steps, buffers[i].last + 1);
  return mp_opt_live_peak (buffers, n, n_steps);
}

guint64
mp_opt_repair (const MpOptBuffer *buffers, guint n, guint64 *offsets, guint max_rounds,
               gint64 deadline_us, GCancellable *cancellable, MpOptImproved improved,
               gpointer data)
{
  g_autofree guint64 *top = g_new (guint64, MAX (n, 1));
  g_autofree guint   *over = g_new (guint, MAX (n, 1));
  g_autofree guint   *longs = g_new (guint, MAX (n, 1));
  g_autofree guint   *shorts = g_new (guint, MAX (n, 1));
  Repair              r = { buffers, n, offsets, 0, deadline_us, cancellable, longs, 0, shorts, 0 };
  guint64             arena = mp_opt_arena (buffers, n, offsets);
  guint64             floor = repair_floor (buffers, n);
  guint64             step = arena > floor ? (arena - floor + 7) / 8 : 0;

  for (guint i = 0; i < n; i++)
    if (buffers[i].last - buffers[i].first + 1 >= SHORT_LIFE)
      longs[r.n_long++] = i;
    else
      shorts[r.n_short++] = i;
  g_qsort_with_data (shorts, r.n_short, sizeof (guint), mp_opt_cmp_first, (gpointer) buffers);
  for (guint k = 0; k < G_N_ELEMENTS (r.slots); k++)
    r.slots[k] = g_array_new (FALSE, FALSE, sizeof (Slot));

  for (guint round = 0; step > 0 && (max_rounds == 0 || round < max_rounds); round++)
    {
      gboolean reached;
      guint64  now;

      r.cap = arena - MIN (step, arena - floor);
      if (r.cap < floor || r.cap >= arena)
        break;
      reached = repair_at (&r, top, over);
      now = mp_opt_arena (buffers, n, offsets);
      g_assert (now <= arena);
      if (now < arena)
        {
          arena = now;
          if (improved)
            improved (offsets, arena, data);
        }
      g_debug ("repair: cap %" G_GUINT64_FORMAT " %s, arena %" G_GUINT64_FORMAT, r.cap,
               reached ? "reached" : "missed", arena);
      if (stop (&r))
        break;
      if (!reached)
        step /= 2;
    }
  for (guint k = 0; k < G_N_ELEMENTS (r.slots); k++)
    g_array_unref (r.slots[k]);
  return arena;
}
