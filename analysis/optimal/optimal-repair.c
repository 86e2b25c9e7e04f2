/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include "optimal-repair.h"

/* An address range taken by buffer who. */
typedef struct
{
  guint64 start;
  guint64 end;
  guint   who;
} Slot;

#define NOBODY G_MAXUINT

static gint
cmp_slot (gconstpointer pa, gconstpointer pb)
{
  const Slot *a = pa, *b = pb;

  if (a->start != b->start)
    return a->start < b->start ? -1 : 1;
  return (a->who > b->who) - (a->who < b->who);
}

static guint64
arena_of (const MpOptBuffer *buffers, guint n, const guint64 *offsets)
{
  guint64 arena = 0;

  for (guint i = 0; i < n; i++)
    arena = MAX (arena, offsets[i] + buffers[i].bytes);
  return arena;
}

/* The slots of the buffers but skip that live at some step of [first,
 * last], sorted by address. */
static void
collect (const MpOptBuffer *buffers, guint n, const guint64 *offsets, guint first, guint last,
         guint skip, GArray *slots)
{
  g_array_set_size (slots, 0);
  for (guint i = 0; i < n; i++)
    if (i != skip && buffers[i].first <= last && buffers[i].last >= first)
      {
        Slot s = { offsets[i], offsets[i] + buffers[i].size, i };

        g_array_append_val (slots, s);
      }
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

/* Moves x under cap, alone or with one buffer in its way. */
static gboolean
move_under (const MpOptBuffer *buffers, guint n, guint64 *offsets, guint x, guint64 cap,
            GArray *slots, GArray *theirs)
{
  const MpOptBuffer *b = &buffers[x];
  guint64            at, was = offsets[x];

  collect (buffers, n, offsets, b->first, b->last, x, slots);
  if (fit_below (slots, NOBODY, b, cap, &at))
    {
      offsets[x] = at;
      return TRUE;
    }
  for (guint k = 0; k < slots->len; k++)
    {
      guint y = g_array_index (slots, Slot, k).who;
      guint64 there;

      if (offsets[y] >= cap || !fit_below (slots, y, b, cap, &at))
        continue;
      offsets[x] = at;
      collect (buffers, n, offsets, buffers[y].first, buffers[y].last, y, theirs);
      if (fit_below (theirs, NOBODY, &buffers[y], cap, &there))
        {
          offsets[y] = there;
          return TRUE;
        }
      offsets[x] = was;
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

/* Moves the buffers above cap under it while some move; TRUE when none is
 * left above. */
static gboolean
repair_at (const MpOptBuffer *buffers, guint n, guint64 *offsets, guint64 cap,
           gint64 deadline_us, GCancellable *cancellable, guint64 *top, guint *over,
           GArray *slots, GArray *theirs)
{
  gboolean moved = TRUE;

  while (moved)
    {
      guint n_over = 0;

      moved = FALSE;
      for (guint i = 0; i < n; i++)
        {
          top[i] = offsets[i] + buffers[i].bytes;
          if (top[i] > cap)
            over[n_over++] = i;
        }
      if (n_over == 0)
        return TRUE;
      g_qsort_with_data (over, n_over, sizeof (guint), cmp_top_desc, top);
      for (guint k = 0; k < n_over; k++)
        {
          if ((deadline_us && g_get_monotonic_time () > deadline_us) ||
              g_cancellable_is_cancelled (cancellable))
            return FALSE;
          if (move_under (buffers, n, offsets, over[k], cap, slots, theirs))
            moved = TRUE;
        }
    }
  return FALSE;
}

/* The peak of live bytes: no cap below it can be reached. */
static guint64
live_peak (const MpOptBuffer *buffers, guint n)
{
  guint              n_steps = 0;
  g_autofree gint64 *delta = NULL;
  gint64             live = 0, peak = 0;

  for (guint i = 0; i < n; i++)
    n_steps = MAX (n_steps, buffers[i].last + 1);
  delta = g_new0 (gint64, n_steps + 1);
  for (guint i = 0; i < n; i++)
    {
      delta[buffers[i].first] += buffers[i].bytes;
      delta[buffers[i].last + 1] -= buffers[i].bytes;
    }
  for (guint t = 0; t < n_steps; t++)
    {
      live += delta[t];
      peak = MAX (peak, live);
    }
  return peak;
}

guint64
mp_opt_repair (const MpOptBuffer *buffers, guint n, guint64 *offsets, guint max_rounds,
               gint64 deadline_us, GCancellable *cancellable, MpOptImproved improved,
               gpointer data)
{
  g_autoptr (GArray)  slots = g_array_new (FALSE, FALSE, sizeof (Slot));
  g_autoptr (GArray)  theirs = g_array_new (FALSE, FALSE, sizeof (Slot));
  g_autofree guint64 *top = g_new (guint64, MAX (n, 1));
  g_autofree guint   *over = g_new (guint, MAX (n, 1));
  guint64             arena = arena_of (buffers, n, offsets);
  guint64             floor = live_peak (buffers, n);
  guint64             step = arena > floor ? (arena - floor + 7) / 8 : 0;

  for (guint round = 0; step > 0 && (max_rounds == 0 || round < max_rounds); round++)
    {
      guint64  cap = arena - MIN (step, arena - floor);
      gboolean reached;
      guint64  now;

      if (cap < floor || cap >= arena)
        break;
      reached = repair_at (buffers, n, offsets, cap, deadline_us, cancellable, top, over, slots,
                           theirs);
      now = arena_of (buffers, n, offsets);
      g_assert (now <= arena);
      if (now < arena)
        {
          arena = now;
          if (improved)
            improved (offsets, arena, data);
        }
      g_debug ("repair: cap %" G_GUINT64_FORMAT " %s, arena %" G_GUINT64_FORMAT, cap,
               reached ? "reached" : "missed", arena);
      if ((deadline_us && g_get_monotonic_time () > deadline_us) ||
          g_cancellable_is_cancelled (cancellable))
        break;
      if (!reached)
        step /= 2;
    }
  return arena;
}
