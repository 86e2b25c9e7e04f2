/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-exec"

#include <stdlib.h>

#include "exec-private.h"

/* PyTorch's CUDACachingAllocator, as it behaves with default settings:
 * requests round up to 512 bytes; requests up to 1 MiB come from 2 MiB
 * segments (small pool), up to 10 MiB from 20 MiB segments, larger ones get
 * a segment rounded up to 2 MiB; a request takes the smallest cached free
 * block of its pool and stream that fits and splits off the rest (small
 * pool: at least 512 bytes left, large pool: more than 1 MiB left); freed
 * blocks merge with free neighbours and segments are never given back. */
#define MIN_BLOCK     512
#define SMALL_SIZE    (G_GUINT64_CONSTANT (1) << 20)
#define SMALL_BUFFER  (G_GUINT64_CONSTANT (2) << 20)
#define LARGE_BUFFER  (G_GUINT64_CONSTANT (20) << 20)
#define MIN_LARGE     (G_GUINT64_CONSTANT (10) << 20)
#define ROUND_LARGE   (G_GUINT64_CONSTANT (2) << 20)

typedef struct Block Block;
struct Block
{
  guint64  addr;
  guint64  size;
  guint    stream;
  gboolean small;
  gboolean allocated;
  Block   *prev, *next; /* neighbours inside the segment */
};

static gint
cmp_block (gconstpointer a, gconstpointer b, gpointer data)
{
  const Block *x = a, *y = b;

  if (x->stream != y->stream)
    return x->stream < y->stream ? -1 : 1;
  if (x->size != y->size)
    return x->size < y->size ? -1 : 1;
  return (x->addr > y->addr) - (x->addr < y->addr);
}

typedef struct
{
  GTree  *pool[2]; /* large, small: free blocks */
  GPtrArray *all;
  guint64 next_addr;
  guint64 reserved, allocated;
} Sim;

static Block *
sim_malloc (Sim *sim, guint64 bytes, guint stream)
{
  guint64        size = bytes < MIN_BLOCK ? MIN_BLOCK : mp_align_up (bytes, MIN_BLOCK);
  gboolean       small = size <= SMALL_SIZE;
  GTree         *pool = sim->pool[small];
  Block          key = { 0, size, stream, small, FALSE, NULL, NULL };
  GTreeNode     *node = g_tree_lower_bound (pool, &key);
  Block         *b = node ? g_tree_node_key (node) : NULL;
  guint64        remaining;

  if (b && b->stream == stream)
    g_tree_remove (pool, b);
  else
    {
      guint64 seg = small ? SMALL_BUFFER : size < MIN_LARGE ? LARGE_BUFFER
                                                             : mp_align_up (size, ROUND_LARGE);

      b = g_new0 (Block, 1);
      b->addr = sim->next_addr;
      b->size = seg;
      b->stream = stream;
      b->small = small;
      sim->next_addr += seg;
      sim->reserved += seg;
      g_ptr_array_add (sim->all, b);
    }
  remaining = b->size - size;
  if (small ? remaining >= MIN_BLOCK : remaining > SMALL_SIZE)
    {
      Block *rest = g_new0 (Block, 1);

      rest->addr = b->addr + size;
      rest->size = remaining;
      rest->stream = stream;
      rest->small = small;
      rest->prev = b;
      rest->next = b->next;
      if (b->next)
        b->next->prev = rest;
      b->next = rest;
      b->size = size;
      g_ptr_array_add (sim->all, rest);
      g_tree_insert (pool, rest, rest);
    }
  b->allocated = TRUE;
  sim->allocated += b->size;
  return b;
}

static void
sim_free (Sim *sim, Block *b)
{
  GTree *pool = sim->pool[b->small];

  b->allocated = FALSE;
  sim->allocated -= b->size;
  if (b->prev && !b->prev->allocated)
    {
      Block *p = b->prev;

      g_tree_remove (pool, p);
      p->size += b->size;
      p->next = b->next;
      if (b->next)
        b->next->prev = p;
      b->size = 0; /* absorbed; stays in sim->all for freeing */
      b = p;
    }
  if (b->next && !b->next->allocated)
    {
      Block *n = b->next;

      g_tree_remove (pool, n);
      b->size += n->size;
      b->next = n->next;
      if (n->next)
        n->next->prev = b;
      n->size = 0;
    }
  g_tree_insert (pool, b, b);
}

void
mp_exec_caching_sim (const MpGraph *graph, const MpLifetimes *lt, gboolean one_stream,
                     guint64 *reserved_peak, guint64 *allocated_peak)
{
  guint               n = lt->n_records;
  g_autofree MpUsage *by_first = mp_exec_sorted_records (lt, TRUE);
  g_autofree MpUsage *by_last = mp_exec_sorted_records (lt, FALSE);
  g_autofree Block  **block = g_new0 (Block *, MAX (graph->n_tensors, 1));
  Sim                 sim = { { g_tree_new_full (cmp_block, NULL, NULL, NULL),
                                g_tree_new_full (cmp_block, NULL, NULL, NULL) },
                              g_ptr_array_new_with_free_func (g_free) };
  guint               f = 0, l = 0;

  *reserved_peak = *allocated_peak = 0;
  for (guint step = 0; step < lt->n_steps; step++)
    {
      for (; f < n && by_first[f].first == step; f++)
        {
          const MpTensor *t = &graph->tensors[by_first[f].tensor];
          guint           stream = !one_stream && graph->has_ops && t->producer >= 0
                                     ? graph->ops[t->producer].stream : 0;

          block[by_first[f].tensor] = sim_malloc (&sim, by_first[f].bytes, stream);
        }
      *reserved_peak = MAX (*reserved_peak, sim.reserved);
      *allocated_peak = MAX (*allocated_peak, sim.allocated);
      for (; l < n && by_last[l].last == step; l++)
        sim_free (&sim, block[by_last[l].tensor]);
    }
  g_tree_destroy (sim.pool[0]);
  g_tree_destroy (sim.pool[1]);
  g_ptr_array_unref (sim.all);
}
