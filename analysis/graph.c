/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <string.h>

#include "graph-private.h"

static const char *kind_names[MP_TENSOR_N_KINDS] = { "activation", "input", "param", "output" };

static const struct
{
  const char *name;
  guint       size;
} dtypes[MP_DTYPE_N] = {
  [MP_DTYPE_NONE] = { "bytes", 1 },
  [MP_DTYPE_F64] = { "f64", 8 },
  [MP_DTYPE_F32] = { "f32", 4 },
  [MP_DTYPE_F16] = { "f16", 2 },
  [MP_DTYPE_BF16] = { "bf16", 2 },
  [MP_DTYPE_F8] = { "f8", 1 },
  [MP_DTYPE_I64] = { "i64", 8 },
  [MP_DTYPE_I32] = { "i32", 4 },
  [MP_DTYPE_I16] = { "i16", 2 },
  [MP_DTYPE_I8] = { "i8", 1 },
  [MP_DTYPE_U8] = { "u8", 1 },
  [MP_DTYPE_BOOL] = { "bool", 1 },
};

MpGraph *
mp_graph_new (const char *name)
{
  MpGraph *graph = g_new0 (MpGraph, 1);

  graph->name = g_strdup (name ? name : "graph");
  graph->alignment = 64;
  graph->has_ops = TRUE;
  graph->tensor_index = g_hash_table_new (g_str_hash, g_str_equal);
  graph->op_index = g_hash_table_new (g_str_hash, g_str_equal);
  graph->names = g_string_chunk_new (64 * 1024);
  graph->id_blocks = g_ptr_array_new_with_free_func (g_free);
  return graph;
}

void
mp_graph_free (MpGraph *graph)
{
  if (graph == NULL)
    return;
  for (guint i = 0; i < graph->n_tensors; i++)
    g_free (graph->tensors[i].shape);
  g_free (graph->tensors);
  g_free (graph->ops);
  g_hash_table_unref (graph->tensor_index);
  g_hash_table_unref (graph->op_index);
  g_string_chunk_free (graph->names);
  g_ptr_array_unref (graph->id_blocks);
  if (graph->origins_free)
    graph->origins_free (graph->origins);
  g_free (graph->name);
  g_free (graph->path);
  g_free (graph->note);
  if (graph->gaps)
    g_array_unref (graph->gaps);
  for (guint k = 0; k < graph->n_memories; k++)
    g_free (graph->memories[k].name);
  g_free (graph->memories);
  g_free (graph);
}

/* Indices are gint: a file with more elements than MP_MAX_ITEMS (over a
 * billion, gigabytes of text) is refused before they could wrap. */
static gboolean
check_count (const MpGraph *graph, guint n, const char *what, GError **error)
{
  if (n < MP_MAX_ITEMS)
    return TRUE;
  mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, graph->path,
                     "more than %d %s: memplan holds at most that many", MP_MAX_ITEMS, what);
  return FALSE;
}

/* Capacity grows by doubling; n_tensors is the length. */
static void
grow (gpointer *array, guint n, gsize elem)
{
  if ((n & (n - 1)) == 0)
    *array = g_realloc_n (*array, n == 0 ? 1 : 2 * (gsize) n, elem);
}

gint
mp_graph_add_tensor (MpGraph *graph, const char *name, GError **error)
{
  MpTensor *t;

  if (g_hash_table_contains (graph->tensor_index, name))
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, graph->path,
                         "tensor '%s' is declared twice", name);
      return -1;
    }
  if (!check_count (graph, graph->n_tensors, "tensors", error))
    return -1;
  grow ((gpointer *) &graph->tensors, graph->n_tensors, sizeof (MpTensor));
  t = &graph->tensors[graph->n_tensors];
  memset (t, 0, sizeof *t);
  t->name = g_string_chunk_insert (graph->names, name);
  t->view_of = -1;
  t->producer = -1;
  t->root = -1;
  t->first = t->last = -1;
  g_hash_table_insert (graph->tensor_index, t->name, GUINT_TO_POINTER (graph->n_tensors + 1));
  return graph->n_tensors++;
}

#define ID_BLOCK 65536

guint *
mp_graph_alloc_ids (MpGraph *graph, guint n)
{
  GPtrArray *blocks = graph->id_blocks;
  guint     *ids;

  n = MAX (n, 1);
  if (n > ID_BLOCK / 4)
    {
      /* a long list gets a block of its own, before the current one */
      ids = g_new (guint, n);
      g_ptr_array_insert (blocks, MAX ((gint) blocks->len - 1, 0), ids);
      return ids;
    }
  if (graph->id_free < n)
    {
      g_ptr_array_add (blocks, g_new (guint, ID_BLOCK));
      graph->id_free = ID_BLOCK;
    }
  ids = (guint *) blocks->pdata[blocks->len - 1] + (ID_BLOCK - graph->id_free);
  graph->id_free -= n;
  return ids;
}

gint
mp_graph_add_op (MpGraph *graph, const char *name, GError **error)
{
  MpOp *op;

  if (g_hash_table_contains (graph->op_index, name))
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, graph->path,
                         "op '%s' is declared twice", name);
      return -1;
    }
  if (!check_count (graph, graph->n_ops, "ops", error))
    return -1;
  grow ((gpointer *) &graph->ops, graph->n_ops, sizeof (MpOp));
  op = &graph->ops[graph->n_ops];
  memset (op, 0, sizeof *op);
  op->name = g_string_chunk_insert (graph->names, name);
  g_hash_table_insert (graph->op_index, op->name, GUINT_TO_POINTER (graph->n_ops + 1));
  return graph->n_ops++;
}

gint
mp_graph_find_tensor (const MpGraph *graph, const char *name)
{
  return GPOINTER_TO_INT (g_hash_table_lookup (graph->tensor_index, name)) - 1;
}

gint
mp_graph_find_op (const MpGraph *graph, const char *name)
{
  return GPOINTER_TO_INT (g_hash_table_lookup (graph->op_index, name)) - 1;
}

guint
mp_graph_n_streams (const MpGraph *graph)
{
  guint n = 1;

  for (guint i = 0; i < graph->n_ops; i++)
    n = MAX (n, graph->ops[i].stream + 1);
  return n;
}

guint64
mp_graph_count_params (const MpGraph *graph, guint64 *bytes)
{
  guint64 elements = 0, total = 0;

  for (guint i = 0; i < graph->n_tensors; i++)
    if (graph->tensors[i].kind == MP_TENSOR_PARAM && graph->tensors[i].view_of < 0)
      {
        /* saturates rather than wraps; no real model comes near */
        if (!g_uint64_checked_add (&elements, elements,
                                   graph->tensors[i].size / mp_dtype_size (graph->tensors[i].dtype)))
          elements = G_MAXUINT64;
        if (!g_uint64_checked_add (&total, total, graph->tensors[i].size))
          total = G_MAXUINT64;
      }
  if (bytes)
    *bytes = total;
  return elements;
}

/* The tensor that owns the storage of a view chain; offset is the view's byte
 * offset inside it. Chains are acyclic once mp_graph_check has passed. */
gint
mp_graph_view_root (const MpGraph *graph, guint tensor, guint64 *offset)
{
  guint64 off = 0;
  guint   t = tensor;

  /* resolved once by mp_graph_check: long in-place chains stay linear */
  if (graph->tensors[tensor].root >= 0)
    {
      if (offset)
        *offset = graph->tensors[tensor].root_offset;
      return graph->tensors[tensor].root;
    }
  while (graph->tensors[t].view_of >= 0)
    {
      off += graph->tensors[t].view_offset;
      t = graph->tensors[t].view_of;
    }
  if (offset)
    *offset = off;
  return t;
}

/* Fills root and root_offset of every tensor, each chain walked once. */
static void
resolve_roots (MpGraph *graph)
{
  g_autofree guint *chain = g_new (guint, MAX (graph->n_tensors, 1));

  for (guint i = 0; i < graph->n_tensors; i++)
    {
      guint n = 0, t = i;

      /* climb until a tensor whose root is known, or a base */
      while (graph->tensors[t].root < 0 && graph->tensors[t].view_of >= 0)
        {
          chain[n++] = t;
          t = graph->tensors[t].view_of;
        }
      if (graph->tensors[t].root < 0)
        {
          graph->tensors[t].root = t;
          graph->tensors[t].root_offset = 0;
        }
      while (n-- > 0)
        {
          MpTensor       *v = &graph->tensors[chain[n]];
          const MpTensor *b = &graph->tensors[v->view_of];

          v->root = b->root;
          v->root_offset = b->root_offset + v->view_offset;
        }
    }
}

const char *
mp_tensor_kind_to_string (MpTensorKind kind)
{
  g_return_val_if_fail (kind < MP_TENSOR_N_KINDS, "activation");
  return kind_names[kind];
}

gboolean
mp_tensor_kind_from_string (const char *str, MpTensorKind *kind)
{
  for (guint i = 0; i < MP_TENSOR_N_KINDS; i++)
    if (g_strcmp0 (str, kind_names[i]) == 0)
      {
        *kind = i;
        return TRUE;
      }
  return FALSE;
}

const char *
mp_dtype_to_string (MpDType dtype)
{
  g_return_val_if_fail (dtype < MP_DTYPE_N, "bytes");
  return dtypes[dtype].name;
}

gboolean
mp_dtype_from_string (const char *str, MpDType *dtype)
{
  for (guint i = MP_DTYPE_NONE + 1; i < MP_DTYPE_N; i++)
    if (g_strcmp0 (str, dtypes[i].name) == 0)
      {
        *dtype = i;
        return TRUE;
      }
  return FALSE;
}

guint
mp_dtype_size (MpDType dtype)
{
  g_return_val_if_fail (dtype < MP_DTYPE_N, 1);
  return dtypes[dtype].size;
}

static gboolean
check_views (MpGraph *graph, GError **error)
{
  /* 0 = unvisited, 1 = on the current chain, 2 = done */
  g_autofree guint8 *state = g_new0 (guint8, graph->n_tensors);

  for (guint i = 0; i < graph->n_tensors; i++)
    {
      guint t = i;

      /* Walk the chain marking it; meeting a mark of this walk is a cycle. */
      while (state[t] == 0 && graph->tensors[t].view_of >= 0)
        {
          state[t] = 1;
          t = graph->tensors[t].view_of;
        }
      if (state[t] == 1)
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, graph->path,
                             "tensor '%s': views form a cycle through '%s'",
                             graph->tensors[i].name, graph->tensors[t].name);
          return FALSE;
        }
      for (t = i; state[t] == 1; t = graph->tensors[t].view_of)
        state[t] = 2;
      state[t] = 2;
    }

  resolve_roots (graph);

  /* A view given without a size covers the rest of its base. */
  for (guint i = 0; i < graph->n_tensors; i++)
    {
      MpTensor *v = &graph->tensors[i];

      if (v->view_of >= 0 && v->size == G_MAXUINT64)
        {
          g_autofree guint *chain = NULL;
          guint             n = 0, t = i;

          /* walk to the first tensor of the chain with a known size */
          while (graph->tensors[t].size == G_MAXUINT64)
            t = graph->tensors[t].view_of, n++;
          chain = g_new (guint, n);
          for (guint k = 0, u = i; k < n; k++, u = graph->tensors[u].view_of)
            chain[k] = u;
          while (n-- > 0)
            {
              MpTensor       *c = &graph->tensors[chain[n]];
              const MpTensor *b = &graph->tensors[c->view_of];

              c->size = b->size > c->view_offset ? b->size - c->view_offset : 0;
            }
        }
    }

  for (guint i = 0; i < graph->n_tensors; i++)
    {
      const MpTensor *v = &graph->tensors[i];
      const MpTensor *base;
      guint64         end;

      if (v->view_of < 0)
        continue;
      base = &graph->tensors[v->view_of];
      if (!g_uint64_checked_add (&end, v->view_offset, v->size) || end > base->size)
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, graph->path,
                             "tensor '%s': view of %" G_GUINT64_FORMAT " bytes at offset %"
                             G_GUINT64_FORMAT " runs past the end of '%s' (%" G_GUINT64_FORMAT
                             " bytes)",
                             v->name, v->size, v->view_offset, base->name, base->size);
          return FALSE;
        }
    }
  return TRUE;
}

/* A tensor is available to an op when it, or the root of its view chain, was
 * produced by an earlier op or is an input or a param. */
static gboolean
check_dataflow (MpGraph *graph, GError **error)
{
  for (guint o = 0; o < graph->n_ops; o++)
    {
      const MpOp *op = &graph->ops[o];

      for (guint k = 0; k < op->n_outputs; k++)
        {
          MpTensor *t = &graph->tensors[op->outputs[k]];

          if (t->kind == MP_TENSOR_INPUT || t->kind == MP_TENSOR_PARAM)
            {
              mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, graph->path,
                                 "op '%s' writes %s tensor '%s'; inputs and params are never "
                                 "produced by an op",
                                 op->name, mp_tensor_kind_to_string (t->kind), t->name);
              return FALSE;
            }
          if (t->producer >= 0)
            {
              mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, graph->path,
                                 "tensor '%s' is produced twice, by op '%s' and by op '%s'",
                                 t->name, graph->ops[t->producer].name, op->name);
              return FALSE;
            }
          t->producer = o;
        }
    }

  for (guint o = 0; o < graph->n_ops; o++)
    {
      const MpOp *op = &graph->ops[o];

      for (guint k = 0; k < op->n_inputs; k++)
        {
          guint           id = op->inputs[k];
          gint            root = mp_graph_view_root (graph, id, NULL);
          const MpTensor *t = &graph->tensors[id];
          const MpTensor *r = &graph->tensors[root];
          gboolean        ok;

          ok = (t->producer >= 0 && t->producer < (gint) o) ||
               (r->producer >= 0 && r->producer < (gint) o) || r->kind == MP_TENSOR_INPUT ||
               r->kind == MP_TENSOR_PARAM;
          if (!ok)
            {
              if (t->producer >= (gint) o)
                mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, graph->path,
                                   "op '%s' reads tensor '%s' before op '%s' produces it",
                                   op->name, t->name, graph->ops[t->producer].name);
              else
                mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, graph->path,
                                   "op '%s' reads tensor '%s' which no earlier op produces "
                                   "(and which is not an input or param)",
                                   op->name, t->name);
              return FALSE;
            }
        }
    }
  return TRUE;
}

gboolean
mp_alignment_valid (guint64 alignment)
{
  return alignment != 0 && (alignment & (alignment - 1)) == 0 && alignment <= MP_MAX_ALIGNMENT;
}

char *
mp_alignment_message (const char *what, const char *value)
{
  return g_strdup_printf ("%s must be a power of two from 1 to 2^30, got %s", what, value);
}

/* The file's error for an alignment that breaks the rule. */
static void
set_alignment_error (GError **error, const char *path, guint64 alignment)
{
  g_autofree char *value = g_strdup_printf ("%" G_GUINT64_FORMAT, alignment);
  g_autofree char *message = mp_alignment_message ("alignment", value);

  mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path, "%s", message);
}

gboolean
mp_graph_check_alignment (guint64 alignment, const char *path, GError **error)
{
  if (mp_alignment_valid (alignment))
    return TRUE;
  set_alignment_error (error, path, alignment);
  return FALSE;
}

gboolean
mp_graph_check (MpGraph *graph, GError **error)
{
  if (!mp_graph_check_alignment (graph->alignment, graph->path, error))
    return FALSE;
  if (!check_views (graph, error))
    return FALSE;
  if (graph->has_ops)
    {
      graph->n_steps = graph->n_ops;
      if (!check_dataflow (graph, error))
        return FALSE;
    }
  return TRUE;
}
