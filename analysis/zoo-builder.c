/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <string.h>

#include "zoo-private.h"

#define MAX_DIMS 6

typedef struct
{
  char        *name;
  MpTensorKind kind;
  MpDType      dtype;
  guint        n_dims;
  gint64       shape[MAX_DIMS];
  gint         view_of;
  guint64      view_offset;
  gboolean     requires_grad;
} ZooTensor;

typedef struct
{
  char      *name;
  ZooOpKind  kind;
  guint      stream;
  GArray    *inputs;  /* gint */
  GArray    *outputs; /* gint */
} ZooOp;

struct _Zoo
{
  char       *graph_name;
  MpDType     dtype;
  guint       stream;
  GArray     *tensors; /* ZooTensor */
  GPtrArray  *ops;     /* ZooOp */
  GHashTable *names;   /* tensor and op names share one namespace: simpler to read */
};

static void
op_free (gpointer data)
{
  ZooOp *op = data;

  g_free (op->name);
  g_array_unref (op->inputs);
  g_array_unref (op->outputs);
  g_free (op);
}

Zoo *
zoo_new (const char *graph_name, MpDType dtype)
{
  Zoo *z = g_new0 (Zoo, 1);

  z->graph_name = g_strdup (graph_name);
  z->dtype = dtype == MP_DTYPE_NONE ? MP_DTYPE_F32 : dtype;
  z->tensors = g_array_new (FALSE, TRUE, sizeof (ZooTensor));
  z->ops = g_ptr_array_new_with_free_func (op_free);
  z->names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  return z;
}

void
zoo_free (Zoo *z)
{
  if (z == NULL)
    return;
  for (guint i = 0; i < z->tensors->len; i++)
    g_free (g_array_index (z->tensors, ZooTensor, i).name);
  g_array_unref (z->tensors);
  g_ptr_array_unref (z->ops);
  g_hash_table_unref (z->names);
  g_free (z->graph_name);
  g_free (z);
}

void
zoo_set_stream (Zoo *z, guint stream)
{
  z->stream = stream;
}

MpDType
zoo_dtype (const Zoo *z)
{
  return z->dtype;
}

static ZooTensor *
tensor_at (const Zoo *z, gint t)
{
  g_assert (t >= 0 && (guint) t < z->tensors->len);
  return &g_array_index (z->tensors, ZooTensor, t);
}

static void
claim_name (Zoo *z, const char *name)
{
  /* a generator bug, never user input */
  if (!g_hash_table_add (z->names, g_strdup (name)))
    g_error ("model zoo: name '%s' used twice", name);
}

gint
zoo_tensor (Zoo *z, MpTensorKind kind, MpDType dtype, const char *name, const gint64 *shape,
            guint n_dims)
{
  ZooTensor t = { 0 };

  g_assert (n_dims <= MAX_DIMS);
  claim_name (z, name);
  t.name = g_strdup (name);
  t.kind = kind;
  t.dtype = dtype == MP_DTYPE_NONE ? z->dtype : dtype;
  t.n_dims = n_dims;
  for (guint d = 0; d < n_dims; d++)
    {
      g_assert (shape[d] > 0);
      t.shape[d] = shape[d];
    }
  t.view_of = -1;
  t.requires_grad = kind == MP_TENSOR_PARAM;
  g_array_append_val (z->tensors, t);
  return z->tensors->len - 1;
}

gint
zoo_param (Zoo *z, const char *name, const gint64 *shape, guint n_dims)
{
  return zoo_tensor (z, MP_TENSOR_PARAM, MP_DTYPE_NONE, name, shape, n_dims);
}

static guint64
tensor_bytes (const ZooTensor *t)
{
  guint64 n = mp_dtype_size (t->dtype);

  for (guint d = 0; d < t->n_dims; d++)
    n *= t->shape[d];
  return n;
}

gint
zoo_view (Zoo *z, gint base, const char *name, guint64 offset, const gint64 *shape, guint n_dims)
{
  MpDType dtype = tensor_at (z, base)->dtype;
  gint    v = zoo_tensor (z, MP_TENSOR_ACTIVATION, dtype, name, shape, n_dims);
  ZooTensor *t = tensor_at (z, v), *b = tensor_at (z, base);

  g_assert (offset + tensor_bytes (t) <= tensor_bytes (b));
  t->view_of = base;
  t->view_offset = offset;
  t->requires_grad = b->requires_grad;
  return v;
}

gint
zoo_like (Zoo *z, gint like, const char *name)
{
  ZooTensor l = *tensor_at (z, like);

  return zoo_tensor (z, MP_TENSOR_ACTIVATION, l.dtype, name, l.shape, l.n_dims);
}

gint
zoo_op (Zoo *z, ZooOpKind kind, const char *name, const gint *inputs, guint n_inputs,
        const gint *outputs, guint n_outputs)
{
  ZooOp   *op = g_new0 (ZooOp, 1);
  gboolean grad = FALSE;

  claim_name (z, name);
  op->name = g_strdup (name);
  op->kind = kind;
  op->stream = z->stream;
  op->inputs = g_array_new (FALSE, FALSE, sizeof (gint));
  op->outputs = g_array_new (FALSE, FALSE, sizeof (gint));
  g_array_append_vals (op->inputs, inputs, n_inputs);
  g_array_append_vals (op->outputs, outputs, n_outputs);
  for (guint i = 0; i < n_inputs; i++)
    grad |= tensor_at (z, inputs[i])->requires_grad;
  for (guint i = 0; i < n_outputs; i++)
    tensor_at (z, outputs[i])->requires_grad = grad;
  g_ptr_array_add (z->ops, op);
  return z->ops->len - 1;
}

const gint64 *
zoo_shape (const Zoo *z, gint tensor, guint *n_dims)
{
  ZooTensor *t = tensor_at (z, tensor);

  *n_dims = t->n_dims;
  return t->shape;
}

gint64
zoo_dim (const Zoo *z, gint tensor, gint dim)
{
  ZooTensor *t = tensor_at (z, tensor);

  if (dim < 0)
    dim += t->n_dims;
  g_assert (dim >= 0 && (guint) dim < t->n_dims);
  return t->shape[dim];
}

const char *
zoo_name (const Zoo *z, gint tensor)
{
  return tensor_at (z, tensor)->name;
}

gint
zoo_find (const Zoo *z, const char *name)
{
  for (guint i = 0; i < z->tensors->len; i++)
    if (g_str_equal (tensor_at (z, i)->name, name))
      return i;
  return -1;
}

void
zoo_set_kind (Zoo *z, gint tensor, MpTensorKind kind)
{
  tensor_at (z, tensor)->kind = kind;
}

/* ---- backward ----------------------------------------------------------- */

typedef struct
{
  gint    grad;   /* tensor holding the gradient of this piece */
  guint64 offset; /* of the piece inside its root */
  guint64 bytes;
} Piece;

typedef struct
{
  Zoo        *z;
  GHashTable *pieces;  /* root tensor -> GArray of Piece: contributions not yet summed */
  GHashTable *grad;    /* param -> its .grad tensor */
  guint       n_accum; /* accumulations so far, for unique names */
} Autodiff;

static gint
root_of (const Zoo *z, gint t, guint64 *offset)
{
  guint64 off = 0;

  while (tensor_at (z, t)->view_of >= 0)
    {
      off += tensor_at (z, t)->view_offset;
      t = tensor_at (z, t)->view_of;
    }
  *offset = off;
  return t;
}

/* A param's gradient goes straight into its .grad, accumulated in place the
 * way AccumulateGrad does (the in-place sum is a view of the .grad buffer). */
static void
contribute (Autodiff *ad, gint tensor, gint grad)
{
  Zoo     *z = ad->z;
  guint64  offset;
  gint     root = root_of (z, tensor, &offset);
  Piece    piece = { grad, offset, tensor_bytes (tensor_at (z, tensor)) };

  if (!tensor_at (z, root)->requires_grad)
    return;
  if (tensor_at (z, root)->kind == MP_TENSOR_PARAM)
    {
      g_autofree char *name = NULL;
      guint            n_dims;
      const gint64    *shape = zoo_shape (z, root, &n_dims);
      gint             acc;

      gpointer         old;

      g_assert (offset == 0 && piece.bytes == tensor_bytes (tensor_at (z, root)));
      if (!g_hash_table_lookup_extended (ad->grad, GINT_TO_POINTER (root), NULL, &old))
        {
          g_hash_table_insert (ad->grad, GINT_TO_POINTER (root), GINT_TO_POINTER (grad));
          return;
        }
      name = g_strdup_printf ("%s.grad.acc%u", zoo_name (z, root), ++ad->n_accum);
      acc = zoo_view (z, GPOINTER_TO_INT (old), name, 0, shape, n_dims);
      g_free (name);
      name = g_strdup_printf ("%s.accumulate_grad%u", zoo_name (z, root), ad->n_accum);
      zoo_op (z, ZOO_OP_OTHER, name, TENSORS (GPOINTER_TO_INT (old), grad), TENSORS (acc));
      return;
    }
  if (!g_hash_table_contains (ad->pieces, GINT_TO_POINTER (root)))
    g_hash_table_insert (ad->pieces, GINT_TO_POINTER (root),
                         g_array_new (FALSE, FALSE, sizeof (Piece)));
  g_array_append_val (g_hash_table_lookup (ad->pieces, GINT_TO_POINTER (root)), piece);
}

/* The gradient of an activation, once every consumer's backward has run:
 * one whole piece is used as it is (a reshaping view when its shape
 * differs), whole pieces are summed, slices of it (split q, k, v) are
 * concatenated into a new buffer. */
static gint
gradient_of (Autodiff *ad, gint tensor)
{
  Zoo             *z = ad->z;
  GArray          *pieces = g_hash_table_lookup (ad->pieces, GINT_TO_POINTER (tensor));
  guint64          bytes = tensor_bytes (tensor_at (z, tensor));
  gboolean         whole = TRUE;
  g_autofree char *name = NULL;
  g_autofree gint *ins = NULL;
  guint            n_dims;
  const gint64    *shape = zoo_shape (z, tensor, &n_dims);
  gint             g;

  if (pieces == NULL)
    return -1;
  for (guint i = 0; i < pieces->len; i++)
    whole &= g_array_index (pieces, Piece, i).offset == 0 &&
             g_array_index (pieces, Piece, i).bytes == bytes;
  name = g_strdup_printf ("%s.grad", zoo_name (z, tensor));
  if (whole && pieces->len == 1)
    {
      Piece        *p = &g_array_index (pieces, Piece, 0);
      guint         pn;
      const gint64 *ps = zoo_shape (z, p->grad, &pn);

      if (pn == n_dims && memcmp (ps, shape, sizeof (gint64) * n_dims) == 0)
        return p->grad;
      return zoo_view (z, p->grad, name, 0, shape, n_dims);
    }
  g = zoo_like (z, tensor, name);
  ins = g_new (gint, pieces->len);
  for (guint i = 0; i < pieces->len; i++)
    ins[i] = g_array_index (pieces, Piece, i).grad;
  g_free (name);
  name = g_strdup_printf ("%s.grad.%s", zoo_name (z, tensor), whole ? "sum" : "cat");
  zoo_op (z, ZOO_OP_OTHER, name, ins, pieces->len, TENSORS (g));
  return g;
}

/* Tensors an op keeps for its backward. */
static void
saved_tensors (const ZooOp *op, GArray *saved)
{
  const gint *in = (const gint *) op->inputs->data;
  const gint *out = (const gint *) op->outputs->data;

  switch (op->kind)
    {
    case ZOO_OP_LINEAR:
      g_array_append_vals (saved, in, 2);
      break;
    case ZOO_OP_MATMUL:
      g_array_append_vals (saved, in, op->inputs->len);
      break;
    case ZOO_OP_MASK:
    case ZOO_OP_EMBEDDING:
    case ZOO_OP_NLL:
      g_array_append_vals (saved, &in[1], 1);
      break;
    case ZOO_OP_LAYERNORM:
      g_array_append_vals (saved, in, 2);
      g_array_append_vals (saved, &out[1], 2);
      break;
    case ZOO_OP_GELU:
      g_array_append_vals (saved, in, 1);
      break;
    case ZOO_OP_SOFTMAX:
    case ZOO_OP_LOGSOFTMAX:
      g_array_append_vals (saved, out, 1);
      break;
    default:
      break;
    }
}

static void
backward_op (Autodiff *ad, const ZooOp *op)
{
  Zoo             *z = ad->z;
  g_autoptr (GArray) ins = g_array_new (FALSE, FALSE, sizeof (gint));
  g_autoptr (GArray) outs = g_array_new (FALSE, FALSE, sizeof (gint));
  g_autoptr (GArray) targets = g_array_new (FALSE, FALSE, sizeof (gint));
  g_autofree char *name = NULL;
  gint             g_out = -1;

  /* outputs' gradients (layernorm's mean and rstd have none) */
  for (guint i = 0; i < op->outputs->len; i++)
    {
      gint g = gradient_of (ad, g_array_index (op->outputs, gint, i));

      if (g >= 0)
        {
          g_array_append_val (ins, g);
          if (g_out < 0)
            g_out = g;
        }
    }
  if (g_out < 0)
    return;

  for (guint i = 0; i < op->inputs->len; i++)
    {
      gint t = g_array_index (op->inputs, gint, i);

      gboolean seen = FALSE;

      for (guint k = 0; k < targets->len; k++)
        seen |= g_array_index (targets, gint, k) == t;
      if (tensor_at (z, t)->requires_grad && !seen)
        g_array_append_val (targets, t);
    }

  if (op->kind == ZOO_OP_COPY || op->kind == ZOO_OP_ADD)
    {
      for (guint i = 0; i < targets->len; i++)
        {
          gint t = g_array_index (targets, gint, i);
          gint g = g_out;

          /* broadcast (a position embedding added to every batch row): sum it back */
          if (tensor_bytes (tensor_at (z, t)) != tensor_bytes (tensor_at (z, g_out)))
            {
              name = g_strdup_printf ("%s.grad.%s", op->name, zoo_name (z, t));
              g = zoo_like (z, t, name);
              g_free (name);
              name = g_strdup_printf ("%s.backward.sum_to_%s", op->name, zoo_name (z, t));
              zoo_op (z, ZOO_OP_OTHER, name, TENSORS (g_out), TENSORS (g));
              g_clear_pointer (&name, g_free);
            }
          contribute (ad, t, g);
        }
      return;
    }

  saved_tensors (op, ins);
  for (guint i = 0; i < targets->len; i++)
    {
      gint t = g_array_index (targets, gint, i);
      gint g;

      name = g_strdup_printf ("%s.grad.%s", op->name, zoo_name (z, t));
      g = zoo_like (z, t, name);
      g_clear_pointer (&name, g_free);
      g_array_append_val (outs, g);
    }
  name = g_strdup_printf ("%s.backward", op->name);
  zoo_op (z, ZOO_OP_OTHER, name, (const gint *) ins->data, ins->len, (const gint *) outs->data,
          outs->len);
  for (guint i = 0; i < targets->len; i++)
    contribute (ad, g_array_index (targets, gint, i), g_array_index (outs, gint, i));
}

void
zoo_backward (Zoo *z, gint loss)
{
  Autodiff         ad = { z };
  guint            n_forward = z->ops->len;
  gint             seed;
  GHashTableIter   iter;
  gpointer         value;
  g_autofree char *name = g_strdup_printf ("%s.grad", zoo_name (z, loss));

  ad.pieces = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) g_array_unref);
  ad.grad = g_hash_table_new (NULL, NULL);
  seed = zoo_like (z, loss, name);
  zoo_op (z, ZOO_OP_OTHER, "backward.seed", NULL, 0, TENSORS (seed));
  contribute (&ad, loss, seed);
  for (guint o = n_forward; o-- > 0;)
    backward_op (&ad, g_ptr_array_index (z->ops, o));

  /* .grad buffers stay until the optimizer step, after the graph */
  g_hash_table_iter_init (&iter, ad.grad);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    zoo_set_kind (z, GPOINTER_TO_INT (value), MP_TENSOR_OUTPUT);
  g_hash_table_unref (ad.pieces);
  g_hash_table_unref (ad.grad);
}

/* ---- JSON --------------------------------------------------------------- */

char *
zoo_to_json (const Zoo *z, gsize *length)
{
  GString *s = g_string_sized_new (160 * (z->tensors->len + z->ops->len));

  g_string_append_printf (s, "{\"format\":\"memplan.graph/1\",\"name\":\"%s\",\"alignment\":64,"
                          "\n\"tensors\":[", z->graph_name);
  for (guint i = 0; i < z->tensors->len; i++)
    {
      const ZooTensor *t = tensor_at (z, i);

      g_string_append_printf (s, "%s\n{\"name\":\"%s\",\"dtype\":\"%s\",\"shape\":[", i ? "," : "",
                              t->name, mp_dtype_to_string (t->dtype));
      for (guint d = 0; d < t->n_dims; d++)
        g_string_append_printf (s, "%s%" G_GINT64_FORMAT, d ? "," : "", t->shape[d]);
      g_string_append_c (s, ']');
      if (t->kind != MP_TENSOR_ACTIVATION)
        g_string_append_printf (s, ",\"kind\":\"%s\"", mp_tensor_kind_to_string (t->kind));
      if (t->view_of >= 0)
        g_string_append_printf (s, ",\"view_of\":\"%s\",\"offset\":%" G_GUINT64_FORMAT,
                                tensor_at (z, t->view_of)->name, t->view_offset);
      g_string_append_c (s, '}');
    }
  g_string_append (s, "],\n\"ops\":[");
  for (guint o = 0; o < z->ops->len; o++)
    {
      const ZooOp *op = g_ptr_array_index (z->ops, o);

      g_string_append_printf (s, "%s\n{\"name\":\"%s\",\"inputs\":[", o ? "," : "", op->name);
      for (guint i = 0; i < op->inputs->len; i++)
        g_string_append_printf (s, "%s\"%s\"", i ? "," : "",
                                tensor_at (z, g_array_index (op->inputs, gint, i))->name);
      g_string_append (s, "],\"outputs\":[");
      for (guint i = 0; i < op->outputs->len; i++)
        g_string_append_printf (s, "%s\"%s\"", i ? "," : "",
                                tensor_at (z, g_array_index (op->outputs, gint, i))->name);
      g_string_append_c (s, ']');
      if (op->stream)
        g_string_append_printf (s, ",\"stream\":%u", op->stream);
      g_string_append_c (s, '}');
    }
  g_string_append (s, "]}\n");
  *length = s->len;
  return g_string_free (s, FALSE);
}
