/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <stdlib.h>
#include <string.h>

#include "optimal-private.h"

/* Time is cut into sections at every lifetime boundary; a buffer covers a
 * range of sections. Per buffer the search keeps its lowest possible offset
 * (the top of the placed buffers that overlap it in time), per section the
 * total size of its unplaced buffers. The unplaced buffers of a section
 * stack above the lowest of their offsets (MiniMalloc's section floor) and
 * above the last placement (offsets never decrease): either stack passing
 * the capacity prunes the branch. Changes are undone from a trail. */

#define UNSET         G_MAXUINT64
#define N_PREORDERS   3
/* capacities whose paused searches are kept: the minimiser comes back to
 * its lower bound, to the capacity below its incumbent and, until a probe
 * moves them, to the same bisection targets (on A this halves its work) */
#define N_CREWS       24

typedef enum
{
  KEY_TOTAL, /* largest total of the sections it spans */
  KEY_WIDTH, /* lifetime length */
  KEY_AREA,  /* size x width */
} PreorderKey;

/* MiniMalloc's three preorders, tried in turn. */
static const PreorderKey preorders[N_PREORDERS][3] = {
  { KEY_WIDTH, KEY_AREA, KEY_TOTAL },
  { KEY_TOTAL, KEY_AREA, KEY_WIDTH },
  { KEY_TOTAL, KEY_WIDTH, KEY_AREA },
};

struct _MpOptSearch
{
  guint    n;
  guint    n_sec;
  guint64 *size;
  guint64 *bytes;
  guint64 *width;
  guint   *s0, *s1;             /* inclusive section range */
  guint   *ov_start, *ov;       /* buffers overlapping in time (CSR) */
  guint   *mem_start;           /* buffers alive in each section (CSR) */
  guint   *span_start;          /* per buffer: its entries in pos[], one per section */
  guint64 *init_total;
  guint   *init_cuts;           /* cuts[s]: unplaced buffers crossing s | s + 1 */
  guint   *ranks[N_PREORDERS];
  guint64  align;               /* every size is a multiple of it */
  guint64  bound;               /* no plan has a lower arena */

  /* state of one fit */
  guint        *rank;           /* preorder rank of each buffer, for this fit */
  guint         h;              /* which preorder */
  guint64      *key;            /* scratch: a buffer's largest section total */
  guint64       cap;
  guint64       cap0;           /* cap rounded down to the alignment */
  guint8       *special;        /* may reach cap0 + align: its padding hangs over cap */
  guint        *n_special;      /* per section: unplaced special buffers */
  guint64      *off;
  guint64      *minoff;
  guint64      *witness;        /* per section: see find_witness */
  guint64      *total;
  guint64      *pre, *suf;      /* see stack_keys */
  guint        *cuts;
  guint        *mem;            /* per section, its unplaced buffers first */
  guint        *n_mem;          /* how many are unplaced */
  guint        *pos;            /* where each (buffer, section) sits in mem */
  guint64      *sol;
  MpOptTrailEntry *trail;
  gsize         trail_len, trail_cap;
  guint        *placed;
  guint         n_placed;
  guint        *pool;
  gsize         pool_len, pool_cap;
  guint64       nodes, limit, all_nodes;
  guint64       prunes[MP_OPT_N_PRUNES];
  guint64       check_mask;     /* look at the clock when nodes & mask == 1 */
  gint64        deadline;
  GCancellable *cancellable;
  gboolean      stopped;

  /* the parallel search (see Crew): a clone shares the tables above its
   * "state of one fit" with its parent and belongs to worker */
  const MpOptSearch *parent;
  struct _Worker    *worker;
  guint              threads;  /* 0: the preorders in turn, on the caller's thread */
  GMutex             lock;     /* guards every crew's workers and running */
  GCond              cond;
  guint              running;  /* workers holding one of the threads */
  struct _Crew      *crews[N_CREWS];
  guint64            uses;     /* a clock for the least recently used crew */
  struct _Crew      *current;  /* the crew of the fit under way, NULL between fits */
  gint               fg_waits; /* a worker of current waits for a thread */
  gboolean           spare_free; /* with two threads or more, one more for work ahead */
  guint64            top_limit; /* the largest node limit asked so far */
};

/* A parallel fit (mp_opt_search_set_threads): each preorder's search runs
 * on a thread of its own and pauses when its nodes reach what it was
 * granted, so the same capacity asked again with more nodes goes on where
 * it paused instead of starting over (the node ladder's restarts cost as
 * much as its last rung). The search with a larger limit walks the same
 * tree further, so the answer is, node for node, the one the preorders in
 * turn give with that limit, whatever the number of threads. */
typedef struct _Worker
{
  MpOptSearch   *s;        /* its clone */
  MpOptSearch   *parent;
  struct _Crew  *crew;
  GThread       *thread;
  guint          h;        /* its preorder */
  guint64        granted;  /* read at every node, written under the lock */
  gint           quit;     /* likewise */
  /* under the parent's lock */
  gboolean       wants;    /* waits for a thread to go on */
  gboolean       has_thread, paused, done;
  gboolean       spare;    /* holds the spare thread */
  MpOptResult    result;   /* once done */
  guint64        at;       /* its nodes when it paused or was done */
  gint64         deadline;
  GCancellable  *cancellable;
} Worker;

typedef struct _Crew
{
  guint64 capacity;
  guint64 used;
  guint64 asked;  /* the node limit last asked */
  gboolean dead;  /* a worker stopped at the deadline: ask afresh */
  Worker  w[N_PREORDERS];
} Crew;

/* The search that made the latest parallel fit: the others' work ahead of
 * time waits (the optimal planner fits its partitions one after another). */
static MpOptSearch *active;

int
mp_opt_cmp_u32 (const void *a, const void *b)
{
  guint x = *(const guint *) a, y = *(const guint *) b;

  return (x > y) - (x < y);
}

int
mp_opt_cmp_u64 (const void *a, const void *b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

  return (x > y) - (x < y);
}

gint
mp_opt_cmp_first (gconstpointer pa, gconstpointer pb, gpointer data)
{
  const MpOptBuffer *b = data;
  guint              x = *(const guint *) pa, y = *(const guint *) pb;

  if (b[x].first != b[y].first)
    return b[x].first < b[y].first ? -1 : 1;
  return (x > y) - (x < y);
}

guint64
mp_opt_arena (const MpOptBuffer *buffers, guint n, const guint64 *offsets)
{
  guint64 arena = 0;

  for (guint i = 0; i < n; i++)
    arena = MAX (arena, offsets[i] + buffers[i].bytes);
  return arena;
}

guint
mp_opt_count_below (const guint *bnd, guint nb, guint t)
{
  guint lo = 0, hi = nb;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (bnd[mid] < t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

typedef struct
{
  const MpOptSearch *s;
  const guint64     *total_key;
  const PreorderKey *keys;
} PreorderCtx;

static gint
cmp_preorder (gconstpointer pa, gconstpointer pb, gpointer data)
{
  const PreorderCtx *ctx = data;
  guint              a = *(const guint *) pa, b = *(const guint *) pb;

  for (guint k = 0; k < 3; k++)
    {
      gdouble x = 0, y = 0;

      switch (ctx->keys[k])
        {
        case KEY_TOTAL:
          x = ctx->total_key[a], y = ctx->total_key[b];
          break;
        case KEY_WIDTH:
          x = ctx->s->width[a], y = ctx->s->width[b];
          break;
        case KEY_AREA:
          x = (gdouble) ctx->s->width[a] * ctx->s->size[a];
          y = (gdouble) ctx->s->width[b] * ctx->s->size[b];
          break;
        }
      if (x != y)
        return x > y ? -1 : 1;
    }
  return (a > b) - (a < b);
}


/* Pairs of buffers whose lifetimes overlap: sorted by first step, i and a
 * later j overlap iff first_j <= last_i. Counted, then filled (CSR). */
static void
compute_overlaps (MpOptSearch *s, const MpOptBuffer *buffers)
{
  guint               n = s->n;
  g_autofree guint64 *keys = g_new (guint64, MAX (n, 1));
  g_autofree guint   *fill = NULL;

  for (guint i = 0; i < n; i++)
    keys[i] = ((guint64) buffers[i].first << 32) | i;
  qsort (keys, n, sizeof (guint64), mp_opt_cmp_u64);

  s->ov_start = g_new0 (guint, n + 1);
  for (guint p = 0; p < n; p++)
    {
      guint a = keys[p] & G_MAXUINT32;

      for (guint q = p + 1; q < n && (keys[q] >> 32) <= buffers[a].last; q++)
        {
          s->ov_start[a + 1]++;
          s->ov_start[(keys[q] & G_MAXUINT32) + 1]++;
        }
    }
  for (guint i = 0; i < n; i++)
    s->ov_start[i + 1] += s->ov_start[i];
  s->ov = g_new (guint, MAX (s->ov_start[n], 1));
  fill = g_memdup2 (s->ov_start, sizeof (guint) * n);
  for (guint p = 0; p < n; p++)
    {
      guint a = keys[p] & G_MAXUINT32;

      for (guint q = p + 1; q < n && (keys[q] >> 32) <= buffers[a].last; q++)
        {
          guint b = keys[q] & G_MAXUINT32;

          s->ov[fill[a]++] = b;
          s->ov[fill[b]++] = a;
        }
    }
}

/* Sorted by first and by last step, a buffer's overlaps are counted by two
 * binary searches, so the size of the lists is known before they are built. */
static guint64
count_overlaps (const MpOptBuffer *buffers, guint n)
{
  g_autofree guint *firsts = g_new (guint, MAX (n, 1));
  g_autofree guint *lasts = g_new (guint, MAX (n, 1));
  guint64           pairs = 0;

  for (guint i = 0; i < n; i++)
    {
      firsts[i] = buffers[i].first;
      lasts[i] = buffers[i].last;
    }
  qsort (firsts, n, sizeof (guint), mp_opt_cmp_u32);
  qsort (lasts, n, sizeof (guint), mp_opt_cmp_u32);
  for (guint i = 0; i < n; i++)
    {
      /* starting at or before my last, minus ending before my first */
      guint started = mp_opt_count_below (firsts, n, buffers[i].last + 1);
      guint ended = mp_opt_count_below (lasts, n, buffers[i].first);

      pairs += started - ended - 1;
    }
  return pairs;
}

/* The state of one fit: a search has its own, a clone too. */
static void
alloc_state (MpOptSearch *s)
{
  guint n = MAX (s->n, 1), n_sec = s->n_sec, entries = MAX (s->mem_start[n_sec], 1);

  s->mem = g_new (guint, entries);
  s->pos = g_new (guint, entries);
  s->n_mem = g_new (guint, n_sec);
  s->off = g_new (guint64, n);
  s->minoff = g_new (guint64, n);
  s->sol = g_new (guint64, n);
  s->witness = g_new (guint64, n_sec);
  s->special = g_new (guint8, n);
  s->rank = g_new (guint, n);
  s->key = g_new (guint64, n);
  s->n_special = g_new (guint, n_sec);
  s->total = g_new (guint64, n_sec);
  s->pre = g_new (guint64, n_sec);
  s->suf = g_new (guint64, n_sec);
  s->cuts = g_new (guint, n_sec);
  s->placed = g_new (guint, n);
}

static void
free_state (MpOptSearch *s)
{
  g_free (s->mem);
  g_free (s->pos);
  g_free (s->n_mem);
  g_free (s->off);
  g_free (s->minoff);
  g_free (s->sol);
  g_free (s->witness);
  g_free (s->special);
  g_free (s->rank);
  g_free (s->key);
  g_free (s->n_special);
  g_free (s->total);
  g_free (s->pre);
  g_free (s->suf);
  g_free (s->cuts);
  g_free (s->placed);
  g_free (s->trail);
  g_free (s->pool);
}

/* A search over the same buffers that shares p's tables: one preorder of a
 * parallel fit runs on it. */
static MpOptSearch *
search_clone (const MpOptSearch *p)
{
  MpOptSearch *s = g_new0 (MpOptSearch, 1);

  s->n = p->n;
  s->n_sec = p->n_sec;
  s->size = p->size;
  s->bytes = p->bytes;
  s->width = p->width;
  s->s0 = p->s0;
  s->s1 = p->s1;
  s->ov_start = p->ov_start;
  s->ov = p->ov;
  s->mem_start = p->mem_start;
  s->span_start = p->span_start;
  s->init_total = p->init_total;
  s->init_cuts = p->init_cuts;
  memcpy (s->ranks, p->ranks, sizeof s->ranks);
  s->align = p->align;
  s->bound = p->bound;
  s->check_mask = p->check_mask;
  s->parent = p;
  alloc_state (s);
  return s;
}

MpOptSearch *
mp_opt_search_new (const MpOptBuffer *buffers, guint n, guint64 alignment, guint64 max_entries)
{
  MpOptSearch        *s;
  g_autofree guint   *bnd = NULL;
  g_autofree guint64 *total_key = NULL;
  guint               nb = 0, n_sec;
  guint64             entries;

  if (n > max_entries || (entries = count_overlaps (buffers, n)) > max_entries)
    return NULL;
  bnd = g_new (guint, 2 * MAX (n, 1));
  /* sections: between consecutive distinct boundaries first and last + 1 */
  for (guint i = 0; i < n; i++)
    {
      bnd[nb++] = buffers[i].first;
      bnd[nb++] = buffers[i].last + 1;
    }
  qsort (bnd, nb, sizeof (guint), mp_opt_cmp_u32);
  {
    guint u = 0;

    for (guint i = 0; i < nb; i++)
      if (u == 0 || bnd[i] != bnd[u - 1])
        bnd[u++] = bnd[i];
    nb = u;
  }
  /* the section lists: every buffer in each section it spans */
  for (guint i = 0; i < n && entries <= max_entries; i++)
    entries += mp_opt_count_below (bnd, nb, buffers[i].last + 1) -
               mp_opt_count_below (bnd, nb, buffers[i].first);
  if (entries > max_entries)
    return NULL;

  s = g_new0 (MpOptSearch, 1);
  s->n = n;
  s->align = MAX (alignment, 1);
  /* a node costs about n steps: look at the clock about every 100 µs */
  s->check_mask = n >= 256 ? 0 : 1023;
  s->size = g_new (guint64, MAX (n, 1));
  s->bytes = g_new (guint64, MAX (n, 1));
  s->width = g_new (guint64, MAX (n, 1));
  s->s0 = g_new (guint, MAX (n, 1));
  s->s1 = g_new (guint, MAX (n, 1));
  total_key = g_new0 (guint64, MAX (n, 1));
  n_sec = s->n_sec = nb > 1 ? nb - 1 : 1;
  s->init_total = g_new0 (guint64, n_sec);
  s->init_cuts = g_new0 (guint, n_sec);
  s->mem_start = g_new0 (guint, n_sec + 1);
  for (guint i = 0; i < n; i++)
    {
      s->size[i] = buffers[i].size;
      s->bytes[i] = buffers[i].bytes;
      s->width[i] = buffers[i].width;
      s->s0[i] = mp_opt_count_below (bnd, nb, buffers[i].first);
      s->s1[i] = mp_opt_count_below (bnd, nb, buffers[i].last + 1) - 1;
      for (guint k = s->s0[i]; k <= s->s1[i]; k++)
        {
          s->init_total[k] += buffers[i].size;
          s->mem_start[k + 1]++;
        }
      for (guint k = s->s0[i]; k < s->s1[i]; k++)
        s->init_cuts[k]++;
    }
  for (guint k = 0; k < n_sec; k++)
    s->mem_start[k + 1] += s->mem_start[k];
  s->span_start = g_new (guint, n + 1);
  s->span_start[0] = 0;
  for (guint i = 0; i < n; i++)
    s->span_start[i + 1] = s->span_start[i] + s->s1[i] - s->s0[i] + 1;
  compute_overlaps (s, buffers);

  /* in each section the highest buffer starts above all the others' slots
   * and ends with its own bytes: at least total - the largest padding */
  {
    g_autofree guint64 *pad = g_new0 (guint64, n_sec);

    for (guint i = 0; i < n; i++)
      for (guint k = s->s0[i]; k <= s->s1[i]; k++)
        pad[k] = MAX (pad[k], buffers[i].size - buffers[i].bytes);
    for (guint k = 0; k < n_sec; k++)
      if (s->init_total[k])
        s->bound = MAX (s->bound, s->init_total[k] - pad[k]);
  }

  for (guint i = 0; i < n; i++)
    for (guint k = s->s0[i]; k <= s->s1[i]; k++)
      total_key[i] = MAX (total_key[i], s->init_total[k]);
  for (guint h = 0; h < N_PREORDERS; h++)
    {
      g_autofree guint *order = g_new (guint, MAX (n, 1));
      PreorderCtx       ctx = { s, total_key, preorders[h] };

      for (guint i = 0; i < n; i++)
        order[i] = i;
      g_qsort_with_data (order, n, sizeof (guint), cmp_preorder, &ctx);
      s->ranks[h] = g_new (guint, MAX (n, 1));
      for (guint r = 0; r < n; r++)
        s->ranks[h][order[r]] = r;
    }

  g_mutex_init (&s->lock);
  g_cond_init (&s->cond);
  alloc_state (s);
  return s;
}

static void crew_free (MpOptSearch *s, Crew *crew);

void
mp_opt_search_free (MpOptSearch *s)
{
  if (s == NULL)
    return;
  for (guint k = 0; k < N_CREWS; k++)
    crew_free (s, s->crews[k]);
  g_atomic_pointer_compare_and_exchange (&active, s, NULL);
  free_state (s);
  if (s->parent == NULL)
    {
      g_free (s->size);
      g_free (s->bytes);
      g_free (s->width);
      g_free (s->s0);
      g_free (s->s1);
      g_free (s->ov_start);
      g_free (s->ov);
      g_free (s->mem_start);
      g_free (s->span_start);
      g_free (s->init_total);
      g_free (s->init_cuts);
      for (guint h = 0; h < N_PREORDERS; h++)
        g_free (s->ranks[h]);
      g_mutex_clear (&s->lock);
      g_cond_clear (&s->cond);
    }
  g_free (s);
}

guint64
mp_opt_search_bound (const MpOptSearch *s)
{
  return s->bound;
}

guint64
mp_opt_search_nodes (const MpOptSearch *s)
{
  return s->all_nodes;
}

guint64
mp_opt_search_prunes (const MpOptSearch *s, MpOptPrune reason)
{
  guint64 count;

  g_return_val_if_fail (reason < MP_OPT_N_PRUNES, 0);
  count = s->prunes[reason];
  for (guint k = 0; k < N_CREWS; k++)
    if (s->crews[k])
      for (guint h = 0; h < N_PREORDERS; h++)
        count += s->crews[k]->w[h].s->prunes[reason];
  return count;
}

const char *
mp_opt_prune_name (MpOptPrune reason)
{
  static const char *names[MP_OPT_N_PRUNES] = {
    [MP_OPT_PRUNE_ORDER] = "canonical order",
    [MP_OPT_PRUNE_DOMINANCE] = "dominance (a gap below that nothing else can use)",
    [MP_OPT_PRUNE_CAPACITY] = "capacity",
    [MP_OPT_PRUNE_SECTIONS] = "section inference",
  };

  g_return_val_if_fail (reason < MP_OPT_N_PRUNES, "?");
  return names[reason];
}

static inline void
trail_set (MpOptSearch *s, guint64 *slot, guint64 value)
{
  mp_opt_trail_set (&s->trail, &s->trail_len, &s->trail_cap, slot, value);
}

static inline void
trail_undo (MpOptSearch *s, gsize mark)
{
  s->trail_len = mp_opt_trail_undo (s->trail, s->trail_len, mark);
}

/* Candidate lists live on one stack, addressed by index (it may move). */
static inline gsize
pool_reserve (MpOptSearch *s, gsize n)
{
  return mp_opt_pool_reserve (&s->pool, &s->pool_len, &s->pool_cap, n);
}

static inline gboolean
before (const MpOptSearch *s, guint a, guint b)
{
  if (s->minoff[a] != s->minoff[b])
    return s->minoff[a] < s->minoff[b];
  return s->rank[a] < s->rank[b];
}

static MpOptResult solve_range (MpOptSearch *s, guint lo, guint hi, gsize list, guint len);

/* How high the stack of section q may reach: the aligned capacity, or one
 * alignment more while a buffer whose padding may hang over it is unplaced. */
static inline guint64
section_limit (const MpOptSearch *s, guint q)
{
  return s->cap0 + (s->n_special[q] ? s->align : 0);
}

/* Section q can still be stacked if one of its unplaced buffers could go so
 * low that all of them fit above it; its witness is such a buffer (like a
 * watched literal, it is looked for again only when it stops being one). */
static gboolean
find_witness (MpOptSearch *s, guint q)
{
  guint64 limit;

  if (s->total[q] > section_limit (s, q))
    return FALSE;
  limit = section_limit (s, q) - s->total[q];
  for (guint k = s->mem_start[q], e = k + s->n_mem[q]; k < e; k++)
    if (s->minoff[s->mem[k]] <= limit)
      {
        if (s->witness[q] != s->mem[k])
          trail_set (s, &s->witness[q], s->mem[k]);
        return TRUE;
      }
  return s->n_mem[q] == 0;
}

/* Places c at its lowest offset o and raises the lowest offsets of the
 * unplaced buffers it overlaps. FALSE when some section can no longer be
 * stacked within the capacity (section inference). */
static gboolean
place (MpOptSearch *s, guint c, guint64 o)
{
  guint64  top = o + s->size[c];
  gboolean ok = TRUE;

  s->off[c] = o;
  s->placed[s->n_placed++] = c;
  for (guint q = s->s0[c]; q <= s->s1[c]; q++)
    {
      guint *pc = &s->pos[s->span_start[c] + q - s->s0[c]];
      guint  last = s->mem_start[q] + --s->n_mem[q];
      guint  d = s->mem[last];

      /* swap c behind the unplaced ones; undone by counting it back in */
      s->pos[s->span_start[d] + q - s->s0[d]] = *pc;
      s->mem[*pc] = d;
      s->mem[last] = c;
      *pc = last;
      s->total[q] -= s->size[c];
      s->n_special[q] -= s->special[c];
    }
  for (guint k = s->ov_start[c]; k < s->ov_start[c + 1]; k++)
    {
      guint j = s->ov[k];

      if (s->off[j] != UNSET || s->minoff[j] >= top)
        continue;
      trail_set (s, &s->minoff[j], top);
      /* j meets c in time, so its sections outside c's are a run below
       * c's and a run above; c's own are looked at below */
      for (guint q = s->s0[j]; q < s->s0[c] && ok; q++)
        if (s->witness[q] == j && top + s->total[q] > section_limit (s, q))
          ok = find_witness (s, q);
      for (guint q = s->s1[c] + 1; q <= s->s1[j] && ok; q++)
        if (s->witness[q] == j && top + s->total[q] > section_limit (s, q))
          ok = find_witness (s, q);
    }
  for (guint q = s->s0[c]; q <= s->s1[c] && ok; q++)
    {
      guint w = s->witness[q];

      if (w == c || s->minoff[w] + s->total[q] > section_limit (s, q))
        ok = find_witness (s, q);
    }
  return ok;
}

static void
unplace (MpOptSearch *s, guint c, gsize mark)
{
  trail_undo (s, mark);
  for (guint q = s->s0[c]; q <= s->s1[c]; q++)
    {
      s->total[q] += s->size[c];
      s->n_special[q] += s->special[c];
      s->n_mem[q]++;
    }
  s->off[c] = UNSET;
  s->n_placed--;
}

/* Section inference, the other half: offsets never decrease, so in every
 * section of [lo, hi] the unplaced buffers stack above o. */
static gboolean
sections_fit (const MpOptSearch *s, guint lo, guint hi, guint64 o)
{
  for (guint q = lo; q <= hi; q++)
    {
      guint64 t = s->total[q];

      if (t != 0 && o + t > section_limit (s, q))
        return FALSE;
    }
  return TRUE;
}

/* Most candidates fail section inference, so it is checked before placing:
 * the sections outside the candidate's keep their stacks, and their test is
 * o + key > cap0 + align with key = total + align - (its limit's extra), 0
 * for an empty section; pre[q] / suf[q] hold the largest key of [lo, q] /
 * [q, hi]. Recomputed whenever the totals are back to this node's. */
static inline guint64
stack_key (const MpOptSearch *s, guint q)
{
  return s->total[q] ? s->total[q] + s->align - (section_limit (s, q) - s->cap0) : 0;
}

static void
stack_keys (MpOptSearch *s, guint lo, guint hi)
{
  guint64 m = 0;

  for (guint q = lo; q <= hi; q++)
    s->pre[q] = m = MAX (m, stack_key (s, q));
  m = 0;
  for (guint q = hi + 1; q-- > lo;)
    s->suf[q] = m = MAX (m, stack_key (s, q));
}

/* sections_fit (lo, hi, o) as it would be after placing c at o. */
static gboolean
sections_fit_with (const MpOptSearch *s, guint lo, guint hi, guint c, guint64 o)
{
  guint a = MAX (lo, s->s0[c]), b = MIN (hi, s->s1[c]);
  guint64 out = 0;

  if (a > lo)
    out = s->pre[a - 1];
  if (b < hi)
    out = MAX (out, s->suf[b + 1]);
  if (out != 0 && o + out > s->cap0 + s->align)
    return FALSE;
  for (guint q = a; q <= b; q++)
    {
      guint64 t = s->total[q] - s->size[c];
      guint64 extra = s->n_special[q] - s->special[c] ? s->align : 0;

      if (t != 0 && o + t > s->cap0 + extra)
        return FALSE;
    }
  return TRUE;
}

static gboolean worker_pause (MpOptSearch *s);

static gboolean
out_of_nodes (MpOptSearch *s)
{
  if (s->nodes >= s->limit)
    return TRUE;
  if (s->worker && worker_pause (s))
    {
      s->stopped = TRUE;
      return TRUE;
    }
  if ((s->nodes & s->check_mask) == (1 & s->check_mask) &&
      (g_get_monotonic_time () > s->deadline || g_cancellable_is_cancelled (s->cancellable)))
    s->stopped = TRUE;
  return s->stopped;
}

/* One node: the unplaced buffers of list that live in sections [lo, hi],
 * in order of lowest offset; last_off / last_rank: the previous placement
 * of this subproblem (canonical order: offsets never decrease, equal offsets
 * in preorder). */
static MpOptResult
search (MpOptSearch *s, guint lo, guint hi, gsize list, guint len, guint64 last_off,
        guint last_rank)
{
  gsize       mine;
  guint       n = 0;
  guint64     min_height = UNSET;
  MpOptResult result = MP_OPT_INFEASIBLE;

  s->nodes++;
  if (out_of_nodes (s))
    return s->stopped ? MP_OPT_STOPPED : MP_OPT_LIMIT;

  mine = pool_reserve (s, len);
  for (guint i = 0; i < len; i++)
    {
      guint b = s->pool[list + i];

      if (s->off[b] != UNSET || s->s1[b] < lo || s->s0[b] > hi)
        continue;
      /* insertion sort: the parent's order is nearly right */
      {
        guint k = n;

        while (k > 0 && before (s, b, s->pool[mine + k - 1]))
          {
            s->pool[mine + k] = s->pool[mine + k - 1];
            k--;
          }
        s->pool[mine + k] = b;
      }
      n++;
      min_height = MIN (min_height, s->minoff[b] + s->size[b]);
    }
  s->pool_len = mine + n;

  if (n == 0)
    {
      for (guint i = 0; i < s->n_placed; i++)
        s->sol[s->placed[i]] = s->off[s->placed[i]];
      s->pool_len = mine;
      return MP_OPT_FOUND;
    }
  stack_keys (s, lo, hi);

  for (guint i = 0; i < n && result == MP_OPT_INFEASIBLE; i++)
    {
      guint   c = s->pool[mine + i];
      guint64 o = s->minoff[c];
      gsize   mark;
      gboolean split = FALSE;

      if (o < last_off || (o == last_off && s->rank[c] < last_rank))
        {
          s->prunes[MP_OPT_PRUNE_ORDER]++;
          continue;
        }
      /* dominance: a buffer could sit below o in a gap nothing else uses */
      if (o >= min_height)
        {
          s->prunes[MP_OPT_PRUNE_DOMINANCE]++;
          break;
        }
      if (o + s->bytes[c] > s->cap)
        {
          s->prunes[MP_OPT_PRUNE_CAPACITY]++;
          continue;
        }

      mark = s->trail_len;
      if (!sections_fit_with (s, lo, hi, c, o))
        {
          s->prunes[MP_OPT_PRUNE_SECTIONS]++;
          continue;
        }
      if (!place (s, c, o))
        {
          s->prunes[MP_OPT_PRUNE_SECTIONS]++;
          unplace (s, c, mark);
          continue;
        }
      for (guint q = s->s0[c]; q < s->s1[c]; q++)
        if (--s->cuts[q] == 0)
          split = TRUE;
      if (split)
        result = solve_range (s, lo, hi, mine, n);
      else
        result = search (s, lo, hi, mine, n, o, s->rank[c]);
      for (guint q = s->s0[c]; q < s->s1[c]; q++)
        s->cuts[q]++;
      unplace (s, c, mark);
      if (result == MP_OPT_INFEASIBLE)
        stack_keys (s, lo, hi); /* the children wrote over them */
    }
  s->pool_len = mine;
  return result;
}

/* Splits [lo, hi] where no unplaced buffer crosses a section boundary and
 * solves the pieces independently: each must fit. */
/* A new subproblem orders its buffers afresh, with the section totals of
 * now (MiniMalloc does the same); the old ranks come back afterwards. */
static gsize
rerank (MpOptSearch *s, guint lo, guint hi, gsize list, guint len, guint *n_saved)
{
  gsize       at = pool_reserve (s, len);
  guint       k = 0;
  PreorderCtx ctx = { s, s->key, preorders[s->h] };

  for (guint i = 0; i < len; i++)
    {
      guint b = s->pool[list + i];

      if (s->off[b] != UNSET || s->s1[b] < lo || s->s0[b] > hi)
        continue;
      s->key[b] = 0;
      for (guint q = s->s0[b]; q <= s->s1[b]; q++)
        s->key[b] = MAX (s->key[b], s->total[q]);
      s->pool[at + k++] = b;
    }
  g_qsort_with_data (s->pool + at, k, sizeof (guint), cmp_preorder, &ctx);
  /* keep (buffer, old rank) pairs to restore */
  pool_reserve (s, k);
  for (guint r = 0; r < k; r++)
    {
      guint b = s->pool[at + r];

      s->pool[at + k + r] = s->rank[b];
      s->rank[b] = r;
    }
  *n_saved = k;
  return at;
}

static void
unrank (MpOptSearch *s, gsize at, guint k)
{
  for (guint r = 0; r < k; r++)
    s->rank[s->pool[at + r]] = s->pool[at + k + r];
  s->pool_len = at;
}

/* Splits [lo, hi] where no unplaced buffer crosses a section boundary and
 * solves the pieces independently: each must fit. */
static MpOptResult
solve_range (MpOptSearch *s, guint lo, guint hi, gsize list, guint len)
{
  guint start = lo;

  for (guint q = lo; q <= hi; q++)
    if (q == hi || s->cuts[q] == 0)
      {
        guint       k;
        gsize       saved = rerank (s, start, q, list, len, &k);
        MpOptResult r = search (s, start, q, list, len, 0, 0);

        unrank (s, saved, k);
        if (r != MP_OPT_FOUND)
          return r;
        start = q + 1;
      }
  return MP_OPT_FOUND;
}

/* The capacity every preorder of this fit is asked. */
static void
fit_prepare (MpOptSearch *s, guint64 capacity)
{
  s->cap = capacity;
  s->cap0 = capacity - capacity % s->align;
  for (guint i = 0; i < s->n; i++)
    s->special[i] = s->size[i] - s->bytes[i] + (capacity - s->cap0) >= s->align;
}

/* Preorder h from its root, at most limit nodes. */
static MpOptResult
run_preorder (MpOptSearch *s, guint h, guint64 limit)
{
  MpOptResult result;
  gsize       root;

  s->h = h;
  memcpy (s->rank, s->ranks[h], sizeof (guint) * s->n);
  s->nodes = 0;
  s->limit = limit;
  for (guint i = 0; i < s->n; i++)
    {
      s->off[i] = UNSET;
      s->minoff[i] = 0;
    }
  memcpy (s->total, s->init_total, sizeof (guint64) * s->n_sec);
  memcpy (s->cuts, s->init_cuts, sizeof (guint) * s->n_sec);
  memset (s->n_special, 0, sizeof (guint) * s->n_sec);
  for (guint i = 0; i < s->n; i++)
    for (guint q = s->s0[i]; q <= s->s1[i]; q++)
      s->n_special[q] += s->special[i];
  for (guint q = 0; q < s->n_sec; q++)
    s->n_mem[q] = s->mem_start[q + 1] - s->mem_start[q];
  {
    g_autofree guint *fill = g_memdup2 (s->mem_start, sizeof (guint) * s->n_sec);

    for (guint i = 0; i < s->n; i++)
      for (guint q = s->s0[i]; q <= s->s1[i]; q++)
        {
          s->pos[s->span_start[i] + q - s->s0[i]] = fill[q];
          s->mem[fill[q]++] = i;
        }
  }
  for (guint q = 0; q < s->n_sec; q++)
    s->witness[q] = s->n_mem[q] ? s->mem[s->mem_start[q]] : UNSET;
  s->trail_len = 0;
  s->n_placed = 0;
  s->pool_len = 0;
  if (!sections_fit (s, 0, s->n_sec - 1, 0))
    return MP_OPT_INFEASIBLE;
  root = pool_reserve (s, s->n);
  for (guint i = 0; i < s->n; i++)
    s->pool[root + i] = i;
  result = solve_range (s, 0, s->n_sec - 1, root, s->n);
  s->all_nodes += s->nodes;
  return result;
}

/* Under the lock: whether a worker of the fit under way waits for a thread
 * (a worker of another crew, on idle threads ahead of time, then yields). */
static void
update_fg (MpOptSearch *p)
{
  gboolean waits = FALSE;

  if (p->current)
    for (guint h = 0; h < N_PREORDERS; h++)
      waits |= p->current->w[h].wants;
  g_atomic_int_set (&p->fg_waits, waits);
}

/* Under the lock: waits until w may go on (nodes left to it and a thread,
 * the lower preorders of its crew first) or must quit. */
static void
take_thread (Worker *w)
{
  MpOptSearch *p = w->parent;

  for (;;)
    {
      gboolean lower = FALSE;

      if (w->quit)
        return;
      for (guint h = 0; h < w->h; h++)
        lower |= w->crew->w[h].wants;
      w->wants = w->s->nodes < w->granted;
      update_fg (p);
      gboolean fg = w->crew == p->current;
      gboolean mine = g_atomic_pointer_get (&active) == p;
      gboolean idle = p->running < p->threads && (fg || (!p->fg_waits && mine));

      if (w->wants && !lower && (idle || (!fg && mine && p->spare_free)))
        {
          if (idle)
            p->running++;
          else
            p->spare_free = FALSE;
          w->spare = !idle;
          w->has_thread = TRUE;
          w->wants = FALSE;
          update_fg (p);
          w->s->deadline = w->deadline;
          w->s->cancellable = w->cancellable;
          return;
        }
      g_cond_wait (&p->cond, &p->lock);
    }
}

static void
give_thread (Worker *w)
{
  if (w->has_thread && w->spare)
    w->parent->spare_free = TRUE;
  else if (w->has_thread)
    w->parent->running--;
  w->has_thread = w->spare = FALSE;
  g_cond_broadcast (&w->parent->cond);
}

/* At every node of a worker: TRUE when it must quit. It pauses where the
 * search with limit granted would have stopped, and goes on from there. */
static gboolean
worker_pause (MpOptSearch *s)
{
  Worker  *w = s->worker;
  gboolean quit;

  if (s->nodes < __atomic_load_n (&w->granted, __ATOMIC_RELAXED) && !g_atomic_int_get (&w->quit) &&
      (g_atomic_pointer_get (&w->parent->current) == w->crew ||
       ((w->spare || !g_atomic_int_get (&w->parent->fg_waits)) &&
        g_atomic_pointer_get (&active) == w->parent)))
    return FALSE;
  g_mutex_lock (&w->parent->lock);
  w->at = s->nodes;
  w->paused = TRUE;
  give_thread (w);
  take_thread (w);
  w->paused = FALSE;
  quit = w->quit;
  g_mutex_unlock (&w->parent->lock);
  return quit;
}

static gpointer
worker_main (gpointer data)
{
  Worker     *w = data;
  MpOptResult r = MP_OPT_STOPPED;
  gboolean    quit;

  g_mutex_lock (&w->parent->lock);
  take_thread (w);
  quit = w->quit;
  g_mutex_unlock (&w->parent->lock);
  if (!quit)
    r = run_preorder (w->s, w->h, G_MAXUINT64);
  g_mutex_lock (&w->parent->lock);
  w->done = TRUE;
  w->result = r;
  w->at = w->s->nodes;
  give_thread (w);
  g_mutex_unlock (&w->parent->lock);
  return NULL;
}

static void
crew_free (MpOptSearch *s, Crew *crew)
{
  if (crew == NULL)
    return;
  g_mutex_lock (&s->lock);
  for (guint h = 0; h < N_PREORDERS; h++)
    g_atomic_int_set (&crew->w[h].quit, TRUE);
  g_cond_broadcast (&s->cond);
  g_mutex_unlock (&s->lock);
  for (guint h = 0; h < N_PREORDERS; h++)
    {
      MpOptSearch *c = crew->w[h].s;

      g_thread_join (crew->w[h].thread);
      for (guint r = 0; r < MP_OPT_N_PRUNES; r++)
        s->prunes[r] += c->prunes[r];
      mp_opt_search_free (c);
    }
  g_free (crew);
}

/* The paused searches of capacity, or new ones in place of the least
 * recently used; as many crews as about 256 MiB of clones allow. */
static Crew *
crew_get (MpOptSearch *s, guint64 capacity)
{
  guint64 clone = (guint64) s->mem_start[s->n_sec] * 8 + (guint64) s->n * 48 + s->n_sec * 48;
  guint   n_crews = CLAMP ((G_GUINT64_CONSTANT (256) << 20) / (N_PREORDERS * MAX (clone, 1)), 1,
                           N_CREWS);
  guint   victim = G_MAXUINT, lowest = G_MAXUINT;
  Crew   *crew;

  for (guint k = 0; k < n_crews; k++)
    if (s->crews[k] && s->crews[k]->capacity == capacity && !s->crews[k]->dead)
      {
        s->crews[k]->used = ++s->uses;
        return s->crews[k];
      }
  /* the lowest capacity is kept: the minimiser asks its lower bound again
   * on every pass, after probes above it */
  for (guint k = 0; k < n_crews; k++)
    if (s->crews[k] && (lowest == G_MAXUINT || s->crews[k]->capacity < s->crews[lowest]->capacity))
      lowest = k;
  for (guint k = 0; k < n_crews; k++)
    if (s->crews[k] == NULL || s->crews[k]->dead)
      {
        victim = k;
        break;
      }
    else if (k != lowest && (victim == G_MAXUINT || s->crews[k]->used < s->crews[victim]->used))
      victim = k;
  if (victim == G_MAXUINT)
    victim = 0;
  crew_free (s, s->crews[victim]);
  crew = s->crews[victim] = g_new0 (Crew, 1);
  crew->capacity = capacity;
  crew->used = ++s->uses;
  for (guint h = 0; h < N_PREORDERS; h++)
    {
      Worker *w = &crew->w[h];

      w->s = search_clone (s);
      w->s->worker = w;
      fit_prepare (w->s, capacity);
      w->parent = s;
      w->crew = crew;
      w->h = h;
      w->thread = g_thread_new ("memplan-search", worker_main, w);
    }
  return crew;
}

/* Under the lock, after a fit: threads left idle by the fits to come (and
 * between them) go on ahead of time, at twice the nodes last asked, with the
 * capacity asked that was given the most nodes so far (the capacity search's
 * next rung, the minimiser's question below its incumbent) and the lowest one
 * (the minimiser's lower bound); the other crews pause at their next node.
 * What they do ahead is what those fits would do: it changes no answer. */
static void
ahead (MpOptSearch *s, Crew *last, gint64 deadline_us)
{
  guint lowest = G_MAXUINT;

  for (guint k = 0; k < N_CREWS; k++)
    if (s->crews[k] && !s->crews[k]->dead &&
        (lowest == G_MAXUINT || s->crews[k]->capacity < s->crews[lowest]->capacity))
      lowest = k;
  for (guint k = 0; k < N_CREWS; k++)
    {
      Crew   *crew = s->crews[k];
      guint64 more = 0;

      if (crew == NULL)
        continue;
      if (k == lowest || (crew == last && crew->asked == s->top_limit))
        more = MIN (2 * crew->asked, G_MAXUINT64 / 4);
      for (guint h = 0; h < N_PREORDERS; h++)
        {
          Worker *w = &crew->w[h];

          __atomic_store_n (&w->granted, w->done ? 0 : more, __ATOMIC_RELAXED);
          w->wants = FALSE;
          w->deadline = deadline_us;
          /* the caller's cancellable may be gone by then: the deadline stops them */
          w->cancellable = NULL;
        }
    }
  update_fg (s);
  g_cond_broadcast (&s->cond);
}

/* The preorders in turn, as many at a time as there are threads. */
static MpOptResult
fit_parallel (MpOptSearch *s, guint64 capacity, guint64 node_limit, gint64 deadline_us,
              GCancellable *cancellable, guint64 *offsets)
{
  Crew       *crew = crew_get (s, capacity);
  MpOptResult result = MP_OPT_LIMIT;

  g_mutex_lock (&s->lock);
  g_atomic_pointer_set (&s->current, crew);
  g_atomic_pointer_set (&active, s);
  crew->asked = node_limit;
  s->top_limit = MAX (s->top_limit, node_limit);
  for (guint h = 0; h < N_PREORDERS; h++)
    {
      Worker *w = &crew->w[h];

      w->deadline = deadline_us;
      w->cancellable = cancellable;
      __atomic_store_n (&w->granted, w->done ? 0 : node_limit, __ATOMIC_RELAXED);
      w->wants = !w->done && !w->has_thread && w->at < node_limit;
    }
  update_fg (s);
  g_cond_broadcast (&s->cond);
  for (guint h = 0; h < N_PREORDERS && result == MP_OPT_LIMIT; h++)
    {
      Worker *w = &crew->w[h];

      while (!w->done && !(w->paused && w->at >= node_limit))
        g_cond_wait (&s->cond, &s->lock);
      /* the nodes the preorders in turn would have counted */
      s->all_nodes += MIN (w->at, node_limit);
      if (w->done && w->result == MP_OPT_STOPPED)
        {
          result = MP_OPT_STOPPED;
          crew->dead = TRUE;
        }
      else if (w->done && w->at < node_limit)
        {
          result = w->result;
          if (result == MP_OPT_FOUND)
            memcpy (offsets, w->s->sol, sizeof (guint64) * s->n);
        }
    }
  g_atomic_pointer_set (&s->current, NULL);
  ahead (s, crew, deadline_us);
  g_mutex_unlock (&s->lock);
  return result;
}

void
mp_opt_search_set_threads (MpOptSearch *s, guint threads)
{
  g_return_if_fail (s != NULL && s->parent == NULL);
  for (guint k = 0; k < N_CREWS; k++)
    {
      crew_free (s, s->crews[k]);
      s->crews[k] = NULL;
    }
  s->threads = threads;
  s->spare_free = threads >= 2;
}

void
mp_opt_search_keep (MpOptSearch *s, guint64 capacity)
{
  g_return_if_fail (s != NULL && s->parent == NULL);
  for (guint k = 0; k < N_CREWS; k++)
    if (s->crews[k] && s->crews[k]->capacity != capacity)
      {
        crew_free (s, s->crews[k]);
        s->crews[k] = NULL;
      }
}

MpOptResult
mp_opt_search_fit (MpOptSearch *s, guint64 capacity, guint64 node_limit, gint64 deadline_us,
                   GCancellable *cancellable, guint64 *offsets)
{
  MpOptResult result = MP_OPT_LIMIT;

  g_return_val_if_fail (s != NULL, MP_OPT_STOPPED);

  for (guint i = 0; i < s->n; i++)
    if (s->bytes[i] > capacity)
      return MP_OPT_INFEASIBLE;
  /* a worker starts with its first node: no node at all is asked here */
  if (s->threads > 0 && node_limit > 0)
    return fit_parallel (s, capacity, node_limit, deadline_us, cancellable, offsets);
  fit_prepare (s, capacity);
  s->deadline = deadline_us;
  s->cancellable = cancellable;
  s->stopped = FALSE;
  for (guint h = 0; h < N_PREORDERS && result == MP_OPT_LIMIT; h++)
    result = run_preorder (s, h, node_limit);
  if (result == MP_OPT_FOUND)
    memcpy (offsets, s->sol, sizeof (guint64) * s->n);
  return result;
}
