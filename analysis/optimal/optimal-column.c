/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <stdlib.h>
#include <string.h>

#include "optimal-column.h"
#include "optimal-private.h"

/* Placements between looks at the clock. */
#define LOOK_STRIDE 256

/* A busy or free [start, end) range of addresses. */
typedef struct
{
  guint64 start;
  guint64 end;
} Span;

static int
cmp_span (const void *pa, const void *pb)
{
  const Span *a = pa, *b = pb;

  if (a->start != b->start)
    return (a->start > b->start) - (a->start < b->start);
  return (a->end > b->end) - (a->end < b->end);
}

/* The step with the most live slot bytes, the lowest on a tie. */
static guint
peak_step (const MpOptBuffer *b, guint n)
{
  guint               n_steps = 0, peak = 0;
  guint64             live = 0, best = 0;
  g_autofree guint64 *add = NULL, *sub = NULL;

  for (guint i = 0; i < n; i++)
    n_steps = MAX (n_steps, b[i].last + 2);
  add = g_new0 (guint64, n_steps);
  sub = g_new0 (guint64, n_steps);
  for (guint i = 0; i < n; i++)
    {
      add[b[i].first] += b[i].size;
      sub[b[i].last + 1] += b[i].size;
    }
  for (guint t = 0; t < n_steps; t++)
    {
      live = live + add[t] - sub[t];
      if (live > best)
        {
          best = live;
          peak = t;
        }
    }
  return peak;
}

/* The widest gap between the spans (sorted in place), the lowest on a tie;
 * FALSE when they leave none below their top. */
static gboolean
widest_gap (GArray *spans, Span *gap)
{
  guint64 top = 0;

  gap->start = gap->end = 0;
  if (spans->len)
    qsort (spans->data, spans->len, sizeof (Span), cmp_span);
  for (guint k = 0; k < spans->len; k++)
    {
      const Span *s = &g_array_index (spans, Span, k);

      if (s->start > top && s->start - top > gap->end - gap->start)
        {
          gap->start = top;
          gap->end = s->start;
        }
      top = MAX (top, s->end);
    }
  return gap->end > gap->start;
}

/* Where buffer i goes among spans (sorted in place): its hint when free,
 * else the smallest gap that fits (the lowest on a tie), else on top. */
static guint64
hint_or_best_fit (GArray *spans, guint64 hint, guint64 size)
{
  guint64  top = 0, best = G_MAXUINT64, best_gap = G_MAXUINT64;
  gboolean hint_free = TRUE;

  if (spans->len)
    qsort (spans->data, spans->len, sizeof (Span), cmp_span);
  for (guint k = 0; k < spans->len; k++)
    {
      const Span *s = &g_array_index (spans, Span, k);

      if (s->start < hint + size && hint < s->end)
        hint_free = FALSE;
      if (s->start > top && s->start - top >= size && s->start - top < best_gap)
        {
          best_gap = s->start - top;
          best = top;
        }
      top = MAX (top, s->end);
    }
  if (hint_free)
    return hint;
  return best != G_MAXUINT64 ? best : top;
}

/* Largest first, then by first step: greedy-by-size's order. */
static gint
cmp_size_desc (gconstpointer pa, gconstpointer pb, gpointer data)
{
  const MpOptBuffer *b = data;
  guint              i = *(const guint *) pa, j = *(const guint *) pb;

  if (b[i].size != b[j].size)
    return b[i].size > b[j].size ? -1 : 1;
  return mp_opt_cmp_first (pa, pb, data);
}

/* Moves every buffer wholly in [arena - w, arena) by one shift into the
 * widest range [c, c + w) that no buffer uses at any step, while that
 * lowers the arena. */
static void
drop_slabs (const MpOptBuffer *b, guint n, guint64 *off)
{
  g_autoptr (GArray) spans = g_array_sized_new (FALSE, FALSE, sizeof (Span), n);

  for (;;)
    {
      guint64 arena = mp_opt_arena (b, n, off), floor, lowest = G_MAXUINT64, after = 0;
      Span    gap;

      g_array_set_size (spans, 0);
      for (guint i = 0; i < n; i++)
        {
          Span s = { off[i], off[i] + b[i].size };

          g_array_append_val (spans, s);
        }
      if (!widest_gap (spans, &gap) || gap.end - gap.start > arena)
        return;
      floor = arena - (gap.end - gap.start);
      for (guint i = 0; i < n; i++)
        if (off[i] >= floor && off[i] + b[i].size <= arena)
          lowest = MIN (lowest, off[i]);
      if (lowest == G_MAXUINT64)
        return;
      /* the block keeps its packing; shifting by its lowest offset keeps alignment */
      for (guint i = 0; i < n; i++)
        {
          gboolean in_slab = off[i] >= floor && off[i] + b[i].size <= arena;

          after = MAX (after, (in_slab ? off[i] - lowest + gap.start : off[i]) + b[i].bytes);
        }
      if (after >= arena)
        return;
      for (guint i = 0; i < n; i++)
        if (off[i] >= floor && off[i] + b[i].size <= arena)
          off[i] = off[i] - lowest + gap.start;
    }
}

/* The column move on a copy of off; FALSE when the plan has no hole at its
 * peak step, the occupants do not fit under the column, or time is up. */
static gboolean
column_move (const MpOptBuffer *b, guint n, const guint64 *off, guint64 *moved,
             gint64 deadline_us, GCancellable *cancellable)
{
  guint64 arena = mp_opt_arena (b, n, off), floor, lowest = G_MAXUINT64, bottom = 0, width;
  guint   peak = peak_step (b, n);
  Span    col;
  g_autoptr (GArray) spans = g_array_sized_new (FALSE, FALSE, sizeof (Span), 64);
  g_autoptr (GArray) order = g_array_sized_new (FALSE, FALSE, sizeof (guint), n);
  g_autofree guint8 *placed = g_new0 (guint8, n);

  for (guint i = 0; i < n; i++)
    if (b[i].first <= peak && peak <= b[i].last)
      {
        Span s = { off[i], off[i] + b[i].size };

        g_array_append_val (spans, s);
      }
  if (!widest_gap (spans, &col))
    return FALSE;
  width = col.end - col.start;
  if (width > arena)
    return FALSE;

  /* the occupants, stacked from 0 in order of their first step */
  for (guint i = 0; i < n; i++)
    if (off[i] < col.end && col.start < off[i] + b[i].size)
      g_array_append_val (order, i);
  g_array_sort_with_data (order, mp_opt_cmp_first, (gpointer) b);
  for (guint k = 0; k < order->len; k++)
    {
      guint i = g_array_index (order, guint, k);

      moved[i] = bottom;
      bottom += b[i].size;
      placed[i] = TRUE;
    }
  if (bottom > col.start)
    return FALSE;

  /* the slab, one block into the column */
  floor = arena - width;
  for (guint i = 0; i < n; i++)
    if (!placed[i] && off[i] >= floor && off[i] + b[i].size <= arena)
      lowest = MIN (lowest, off[i]);
  if (lowest == G_MAXUINT64)
    return FALSE;
  for (guint i = 0; i < n; i++)
    if (!placed[i] && off[i] >= floor && off[i] + b[i].size <= arena)
      {
        moved[i] = off[i] - lowest + col.start;
        placed[i] = TRUE;
      }

  /* the rest, largest first, at their old offsets where free */
  g_array_set_size (order, 0);
  for (guint i = 0; i < n; i++)
    if (!placed[i])
      g_array_append_val (order, i);
  g_array_sort_with_data (order, cmp_size_desc, (gpointer) b);
  for (guint k = 0; k < order->len; k++)
    {
      guint i = g_array_index (order, guint, k);

      if (k % LOOK_STRIDE == 0 &&
          (g_get_monotonic_time () > deadline_us || g_cancellable_is_cancelled (cancellable)))
        return FALSE;
      g_array_set_size (spans, 0);
      g_array_append_val (spans, col);
      for (guint j = 0; j < n; j++)
        if (placed[j] && b[j].first <= b[i].last && b[i].first <= b[j].last)
          {
            Span s = { moved[j], moved[j] + b[j].size };

            g_array_append_val (spans, s);
          }
      moved[i] = hint_or_best_fit (spans, off[i], b[i].size);
      placed[i] = TRUE;
    }
  drop_slabs (b, n, moved);
  return TRUE;
}

guint64
mp_opt_column (const MpOptBuffer *buffers, guint n, guint64 *offsets, gint64 deadline_us,
               GCancellable *cancellable, MpOptImproved improved, gpointer data)
{
  guint64             arena, after;
  g_autofree guint64 *moved = NULL;

  g_return_val_if_fail (buffers != NULL || n == 0, 0);
  g_return_val_if_fail (offsets != NULL || n == 0, 0);

  arena = mp_opt_arena (buffers, n, offsets);
  if (n == 0 || n > MP_OPT_COLUMN_MAX_BUFFERS)
    return arena;
  moved = g_new (guint64, n);
  if (!column_move (buffers, n, offsets, moved, deadline_us, cancellable))
    return arena;
  after = mp_opt_arena (buffers, n, moved);
  if (after >= arena)
    return arena;
  memcpy (offsets, moved, n * sizeof (guint64));
  if (improved)
    improved (offsets, after, data);
  return after;
}
