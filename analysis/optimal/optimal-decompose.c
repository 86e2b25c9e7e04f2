/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <string.h>

#include "optimal-decompose.h"
#include "optimal-private.h"
#include "time-index.h"

/* Short buffers placed between looks at the clock. */
#define PLACE_STRIDE 1024

static gboolean
is_long (const MpOptBuffer *b)
{
  return b->last - b->first + 1 >= MP_OPT_DECOMPOSE_LONG;
}

/* Largest first, then by index. */
static gint
cmp_size_desc (gconstpointer pa, gconstpointer pb, gpointer data)
{
  const MpOptBuffer *b = data;
  guint              x = *(const guint *) pa, y = *(const guint *) pb;

  if (b[x].size != b[y].size)
    return b[x].size > b[y].size ? -1 : 1;
  return (x > y) - (x < y);
}

guint64
mp_opt_live_peak (const MpOptBuffer *buffers, guint n, guint n_steps)
{
  g_autofree gint64 *delta = g_new0 (gint64, n_steps + 1);
  gint64             live = 0, peak = 0;

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

gboolean
mp_opt_decompose_fits (const MpOptBuffer *buffers, guint n)
{
  g_autofree MpOptBuffer *longs = g_new (MpOptBuffer, MAX (n, 1));
  guint                   n_long = 0, n_steps = 0;

  for (guint i = 0; i < n; i++)
    {
      n_steps = MAX (n_steps, buffers[i].last + 1);
      if (is_long (&buffers[i]))
        longs[n_long++] = buffers[i];
    }
  return n_long > 0 && (guint64) n_long * 4 <= n &&
         mp_opt_live_peak (longs, n_long, n_steps) >=
           mp_opt_live_peak (buffers, n, n_steps) * MP_OPT_DECOMPOSE_HOLD;
}

guint64
mp_opt_decompose (const MpOptBuffer *buffers, guint n, guint64 *offsets, guint max_passes,
                  gint64 deadline_us, gint64 hard_deadline_us, GCancellable *cancellable,
                  MpOptImproved improved, gpointer data)
{
  g_autofree guint       *longs = g_new (guint, MAX (n, 1));
  g_autofree guint       *shorts = g_new (guint, MAX (n, 1));
  g_autofree MpOptBuffer *sub = NULL;
  g_autofree guint64     *sub_off = NULL;
  g_autofree guint64     *trial = NULL;
  g_autoptr (MpTimeIndex) index = NULL;
  guint                   n_long = 0, n_short = 0, n_steps = 0;
  guint64                 arena = 0, got = 0;
  gdouble                 lived = 0;

  for (guint i = 0; i < n; i++)
    {
      arena = MAX (arena, offsets[i] + buffers[i].bytes);
      n_steps = MAX (n_steps, buffers[i].last + 1);
      lived += (gdouble) buffers[i].last - buffers[i].first + 1;
      if (is_long (&buffers[i]))
        longs[n_long++] = i;
      else
        shorts[n_short++] = i;
    }
  if (n_long == 0 || n_short == 0)
    return arena;

  /* the long buffers alone, from where they are (a valid plan of them) */
  sub = g_new (MpOptBuffer, n_long);
  sub_off = g_new (guint64, n_long);
  for (guint k = 0; k < n_long; k++)
    {
      sub[k] = buffers[longs[k]];
      sub_off[k] = offsets[longs[k]];
    }
  mp_opt_reorder (sub, n_long, sub_off, mp_opt_live_peak (sub, n_long, n_steps), max_passes,
                  deadline_us, cancellable, NULL, NULL);

  /* then the short ones into that layout, largest first, each into the
   * smallest gap that holds it over its lifetime */
  trial = g_new (guint64, n);
  index = mp_time_index_new (n_steps, lived / n);
  for (guint k = 0; k < n_long; k++)
    {
      trial[longs[k]] = sub_off[k];
      mp_time_index_insert (index, sub[k].first, sub[k].last, sub_off[k], sub[k].size);
      got = MAX (got, sub_off[k] + sub[k].bytes);
    }
  g_qsort_with_data (shorts, n_short, sizeof (guint), cmp_size_desc, (gpointer) buffers);
  for (guint k = 0; k < n_short; k++)
    {
      const MpOptBuffer *b = &buffers[shorts[k]];
      guint64            o;

      /* a second at 100,000: past the deadline, the plan stays as it was */
      if (k % PLACE_STRIDE == 0 && max_passes == 0 &&
          (g_get_monotonic_time () > hard_deadline_us || g_cancellable_is_cancelled (cancellable)))
        return arena;
      o = mp_time_index_best_fit (index, b->first, b->last, b->size);

      trial[shorts[k]] = o;
      mp_time_index_insert (index, b->first, b->last, o, b->size);
      got = MAX (got, o + b->bytes);
    }
  g_debug ("decomposition: %u long buffers, %u short, arena %" G_GUINT64_FORMAT " (was %"
           G_GUINT64_FORMAT ")", n_long, n_short, got, arena);
  if (got < arena)
    {
      arena = got;
      memcpy (offsets, trial, sizeof (guint64) * n);
      if (improved)
        improved (offsets, arena, data);
    }
  return arena;
}
