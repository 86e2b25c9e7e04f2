/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <string.h>

#include "onnx-check.h"

/* Exported graphs compute their Reshape, Expand, Tile and Slice targets at
 * run time: Shape -> Gather -> Unsqueeze -> Concat -> Reshape, Range over a
 * sequence length, ConstantOfShape and Where for masks. libonnx 1.12's data
 * propagation folds some of these and not others (Range, Expand, Where,
 * Equal, Mul on values...). This pass evaluates the model's own integer
 * ops on what is known (constants, and the shapes inference gave once the
 * bound dimensions are numbers), as ONNX Runtime's symbolic shape inference
 * and onnx-simplifier do; every value it finds is handed back to libonnx
 * as an initializer of that name, and inference runs again. Nothing is
 * guessed: an op whose inputs are not all known is left alone. Semantics
 * are the ONNX operator spec's (opset 13-21) for integer tensors. */

#define MAX_RANK     8
#define MAX_ELEMENTS (1 << 16) /* a shape computation is small */

typedef struct
{
  gint32  type; /* INT64, INT32 or BOOL */
  guint   rank;
  gint64  dims[MAX_RANK];
  gsize   n;
  gint64 *data;
} Value;

static void
value_free (gpointer data)
{
  Value *v = data;

  g_free (v->data);
  g_free (v);
}

static Value *
value_new (gint32 type, guint rank, const gint64 *dims)
{
  Value *v = g_new0 (Value, 1);
  gsize  n = 1;

  v->type = type;
  v->rank = rank;
  for (guint d = 0; d < rank; d++)
    {
      v->dims[d] = dims[d];
      n *= (gsize) dims[d];
    }
  v->n = n;
  v->data = g_new0 (gint64, MAX (n, 1));
  return v;
}

static gboolean
dims_ok (guint rank, const gint64 *dims)
{
  guint64 n = 1;

  if (rank > MAX_RANK)
    return FALSE;
  for (guint d = 0; d < rank; d++)
    if (dims[d] < 0 || !g_uint64_checked_mul (&n, n, dims[d]) || n > MAX_ELEMENTS)
      return FALSE;
  return TRUE;
}

static gboolean
int_type (gint32 type)
{
  return type == ONNX__TENSOR_PROTO__DATA_TYPE__INT64 ||
         type == ONNX__TENSOR_PROTO__DATA_TYPE__INT32 ||
         type == ONNX__TENSOR_PROTO__DATA_TYPE__BOOL;
}

typedef struct
{
  GHashTable *values; /* name -> Value * */
  GHashTable *types;  /* name -> const Onnx__TypeProto * */
} Fold;

static const Value *
input (Fold *f, const Onnx__NodeProto *node, gsize k)
{
  if (k >= node->n_input || node->input[k] == NULL || *node->input[k] == '\0')
    return NULL;
  return g_hash_table_lookup (f->values, node->input[k]);
}

static gint64
attr_int (const Onnx__NodeProto *node, const char *name, gint64 fallback)
{
  const Onnx__AttributeProto *a = mp_onnx_find_attribute (node, name);

  return a && a->has_i ? a->i : fallback;
}

/* A tensor's shape when every dimension is a number. */
static gboolean
static_shape (Fold *f, const char *name, guint *rank, gint64 *dims)
{
  const Onnx__TypeProto        *type = g_hash_table_lookup (f->types, name);
  const Onnx__TensorShapeProto *shape;
  const Value                  *value = g_hash_table_lookup (f->values, name);

  /* a value folded before: inference gives an initializer no type */
  if (value)
    {
      *rank = value->rank;
      memcpy (dims, value->dims, value->rank * sizeof (gint64));
      return TRUE;
    }
  if (type == NULL || type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
      (shape = type->tensor_type->shape) == NULL || shape->n_dim > MAX_RANK)
    return FALSE;
  for (gsize d = 0; d < shape->n_dim; d++)
    {
      if (shape->dim[d]->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE ||
          shape->dim[d]->dim_value < 0)
        return FALSE;
      dims[d] = shape->dim[d]->dim_value;
    }
  *rank = shape->n_dim;
  return TRUE;
}

static gint64
normalize_axis (gint64 axis, gint64 rank, gboolean *ok)
{
  if (axis < -rank || axis >= rank)
    *ok = FALSE;
  return axis < 0 ? axis + rank : axis;
}

/* A 1-D (or scalar) value as a list. */
static gboolean
as_list (const Value *v)
{
  return v && v->rank <= 1;
}

/* numpy broadcasting of a and b's dims into dims. */
static gboolean
broadcast (const Value *a, const Value *b, guint *rank, gint64 *dims)
{
  *rank = MAX (a->rank, b->rank);
  for (guint d = 0; d < *rank; d++)
    {
      gint64 x = d + a->rank >= *rank ? a->dims[d + a->rank - *rank] : 1;
      gint64 y = d + b->rank >= *rank ? b->dims[d + b->rank - *rank] : 1;

      if (x != y && x != 1 && y != 1)
        return FALSE;
      dims[d] = x == 1 ? y : x;
    }
  return dims_ok (*rank, dims);
}

/* The element of v that index i of a tensor of dims (rank) broadcasts from. */
static gint64
broadcast_at (const Value *v, guint rank, const gint64 *dims, gsize i)
{
  gsize offset = 0, stride = 1;

  for (guint d = rank; d-- > 0;)
    {
      gsize coord = i % dims[d];

      i /= dims[d];
      if (d + v->rank >= rank)
        {
          guint vd = d + v->rank - rank;

          offset += (v->dims[vd] == 1 ? 0 : coord) * stride;
          stride *= v->dims[vd];
        }
    }
  return v->data[offset];
}

static gint64
floor_div (gint64 a, gint64 b)
{
  gint64 q = a / b;

  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* Elementwise binary ops; FALSE where the result is undefined. */
static gboolean
binary (const char *op, gint64 a, gint64 b, gint64 *r, gint32 *type)
{
  if (g_str_equal (op, "Add"))
    return !__builtin_add_overflow (a, b, r);
  if (g_str_equal (op, "Sub"))
    return !__builtin_sub_overflow (a, b, r);
  if (g_str_equal (op, "Mul"))
    return !__builtin_mul_overflow (a, b, r);
  if (g_str_equal (op, "Div") || g_str_equal (op, "Mod"))
    {
      if (b == 0 || (a == G_MININT64 && b == -1))
        return FALSE;
      /* integer Div truncates (C semantics, as ONNX Runtime); Mod with
       * fmod=0 takes the divisor's sign */
      *r = g_str_equal (op, "Div") ? a / b : a - floor_div (a, b) * b;
      return TRUE;
    }
  if (g_str_equal (op, "Min") || g_str_equal (op, "Max"))
    {
      *r = g_str_equal (op, "Min") ? MIN (a, b) : MAX (a, b);
      return TRUE;
    }
  *type = ONNX__TENSOR_PROTO__DATA_TYPE__BOOL;
  if (g_str_equal (op, "Equal"))
    *r = a == b;
  else if (g_str_equal (op, "Less"))
    *r = a < b;
  else if (g_str_equal (op, "Greater"))
    *r = a > b;
  else if (g_str_equal (op, "LessOrEqual"))
    *r = a <= b;
  else if (g_str_equal (op, "GreaterOrEqual"))
    *r = a >= b;
  else if (g_str_equal (op, "And"))
    *r = a && b;
  else if (g_str_equal (op, "Or"))
    *r = a || b;
  else
    return FALSE;
  return TRUE;
}

static Value *
fold_binary (const char *op, const Value *a, const Value *b)
{
  gint64 dims[MAX_RANK];
  guint  rank;
  Value *v;
  gint32 type = a->type;

  if (!broadcast (a, b, &rank, dims))
    return NULL;
  v = value_new (type, rank, dims);
  for (gsize i = 0; i < v->n; i++)
    if (!binary (op, broadcast_at (a, rank, dims, i), broadcast_at (b, rank, dims, i),
                 &v->data[i], &type))
      {
        value_free (v);
        return NULL;
      }
  v->type = type;
  return v;
}

static Value *
fold_where (const Value *c, const Value *x, const Value *y)
{
  gint64 dims[MAX_RANK], all[MAX_RANK];
  guint  rank, all_rank;
  Value *v, cx;

  if (!broadcast (c, x, &rank, dims))
    return NULL;
  cx = (Value) { .rank = rank };
  memcpy (cx.dims, dims, sizeof dims);
  if (!broadcast (&cx, y, &all_rank, all))
    return NULL;
  v = value_new (x->type, all_rank, all);
  for (gsize i = 0; i < v->n; i++)
    v->data[i] = broadcast_at (c, all_rank, all, i) ? broadcast_at (x, all_rank, all, i)
                                                    : broadcast_at (y, all_rank, all, i);
  return v;
}

static Value *
fold_shape (Fold *f, const Onnx__NodeProto *node)
{
  gint64 dims[MAX_RANK], start, end, n;
  guint  rank;
  Value *v;

  if (node->n_input < 1 || !static_shape (f, node->input[0], &rank, dims))
    return NULL;
  /* opset 15: start and end, clamped */
  start = attr_int (node, "start", 0);
  end = attr_int (node, "end", rank);
  start = CLAMP (start < 0 ? start + (gint64) rank : start, 0, (gint64) rank);
  end = CLAMP (end < 0 ? end + (gint64) rank : end, 0, (gint64) rank);
  n = MAX (end - start, 0);
  v = value_new (ONNX__TENSOR_PROTO__DATA_TYPE__INT64, 1, &n);
  memcpy (v->data, dims + start, n * sizeof (gint64));
  return v;
}

static Value *
fold_gather (const Onnx__NodeProto *node, const Value *data, const Value *indices)
{
  gboolean ok = TRUE;
  gint64   axis = normalize_axis (attr_int (node, "axis", 0), data->rank, &ok);
  gint64   dims[MAX_RANK] = { 0 };
  guint    rank = 0;
  gsize    outer = 1, inner = 1;
  Value   *v;

  if (!ok || data->rank + indices->rank - 1 > MAX_RANK)
    return NULL;
  for (gint64 d = 0; d < axis; d++)
    outer *= data->dims[d], dims[rank++] = data->dims[d];
  for (guint d = 0; d < indices->rank; d++)
    dims[rank++] = indices->dims[d];
  for (guint d = axis + 1; d < data->rank; d++)
    inner *= data->dims[d], dims[rank++] = data->dims[d];
  if (!dims_ok (rank, dims))
    return NULL;
  v = value_new (data->type, rank, dims);
  for (gsize o = 0; o < outer; o++)
    for (gsize k = 0; k < indices->n; k++)
      {
        gint64 i = indices->data[k], size = data->dims[axis];

        if (i < -size || i >= size)
          {
            value_free (v);
            return NULL;
          }
        i = i < 0 ? i + size : i;
        memcpy (v->data + (o * indices->n + k) * inner, data->data + (o * size + i) * inner,
                inner * sizeof (gint64));
      }
  return v;
}

/* Slice of a 1-D value, by the spec's clamping (see onnx-check.c). */
static Value *
fold_slice (Fold *f, const Onnx__NodeProto *node)
{
  const Value *data = input (f, node, 0), *starts = input (f, node, 1);
  const Value *ends = input (f, node, 2), *axes = input (f, node, 3), *steps = input (f, node, 4);
  gint64       start, end, step, dim, n = 0;
  Value       *v;

  if (!as_list (data) || data->rank != 1 || !starts || !ends || starts->n != 1 || ends->n != 1 ||
      (axes && (axes->n != 1 || (axes->data[0] != 0 && axes->data[0] != -1))) ||
      (mp_onnx_node_has_input (node, 4) && (!steps || steps->n != 1)))
    return NULL;
  dim = data->dims[0];
  start = starts->data[0];
  end = ends->data[0];
  step = steps ? steps->data[0] : 1;
  if (step == 0 || step == G_MININT64)
    return NULL;
  start = start < 0 ? start + dim : start;
  end = end < 0 ? end + dim : end;
  start = step > 0 ? CLAMP (start, 0, dim) : CLAMP (start, 0, dim - 1);
  end = step > 0 ? CLAMP (end, 0, dim) : CLAMP (end, -1, dim - 1);
  /* both within [-1, dim]: no overflow; k * step stays inside them */
  n = step > 0 ? (end > start ? 1 + (end - start - 1) / step : 0)
               : (start > end ? 1 + (start - end - 1) / -step : 0);
  v = value_new (data->type, 1, &n);
  for (gint64 k = 0; k < n; k++)
    v->data[k] = data->data[start + k * step];
  return v;
}

static Value *
fold_concat (Fold *f, const Onnx__NodeProto *node)
{
  gint64 n = 0;
  Value *v;

  for (gsize k = 0; k < node->n_input; k++)
    {
      const Value *in = input (f, node, k);

      if (in == NULL || in->rank != 1)
        return NULL;
      n += in->dims[0];
    }
  if (node->n_input == 0 || !dims_ok (1, &n))
    return NULL;
  v = value_new (input (f, node, 0)->type, 1, &n);
  n = 0;
  for (gsize k = 0; k < node->n_input; k++)
    {
      const Value *in = input (f, node, k);

      memcpy (v->data + n, in->data, in->n * sizeof (gint64));
      n += in->n;
    }
  return v;
}

/* Unsqueeze, Squeeze, Reshape, Flatten, Identity: the same data in other
 * dims. */
static Value *
with_dims (const Value *data, guint rank, const gint64 *dims)
{
  Value *v;

  if (!dims_ok (rank, dims))
    return NULL;
  v = value_new (data->type, rank, dims);
  if (v->n != data->n)
    {
      value_free (v);
      return NULL;
    }
  memcpy (v->data, data->data, data->n * sizeof (gint64));
  return v;
}

static GArray *
axes_of (Fold *f, const Onnx__NodeProto *node)
{
  const Onnx__AttributeProto *a = mp_onnx_find_attribute (node, "axes");
  const Value                *in = input (f, node, 1);
  GArray                     *axes = g_array_new (FALSE, FALSE, sizeof (gint64));

  if (a)
    g_array_append_vals (axes, a->ints, a->n_ints);
  else if (in)
    g_array_append_vals (axes, in->data, in->n);
  else if (mp_onnx_node_has_input (node, 1))
    g_clear_pointer (&axes, g_array_unref); /* an axes input not known */
  return axes;
}

static Value *
fold_squeeze (Fold *f, const Onnx__NodeProto *node, const Value *data, gboolean unsqueeze)
{
  g_autoptr (GArray) axes = axes_of (f, node);
  gboolean           mark[MAX_RANK * 2] = { FALSE }, ok = TRUE;
  gint64             dims[MAX_RANK];
  guint              rank = 0, out_rank;

  if (axes == NULL || (!unsqueeze && axes->len == 0))
    return NULL; /* Squeeze of every 1: not needed for shapes */
  out_rank = unsqueeze ? data->rank + axes->len : data->rank;
  if (out_rank > MAX_RANK)
    return NULL;
  for (guint k = 0; k < axes->len; k++)
    {
      gint64 axis = normalize_axis (g_array_index (axes, gint64, k), out_rank, &ok);

      if (!ok)
        return NULL;
      mark[axis] = TRUE;
    }
  for (guint d = 0, src = 0; d < out_rank; d++)
    if (unsqueeze)
      dims[rank++] = mark[d] ? 1 : data->dims[src++];
    else if (!mark[d])
      dims[rank++] = data->dims[d];
    else if (data->dims[d] != 1)
      return NULL;
  return with_dims (data, rank, dims);
}

static Value *
fold_reshape (const Onnx__NodeProto *node, const Value *data, const Value *shape)
{
  gint64 dims[MAX_RANK];
  gint64 known = 1, infer = -1;

  if (shape->rank != 1 || shape->n > MAX_RANK)
    return NULL;
  for (gsize d = 0; d < shape->n; d++)
    {
      dims[d] = shape->data[d];
      if (dims[d] == 0 && !attr_int (node, "allowzero", 0))
        {
          if (d >= data->rank)
            return NULL;
          dims[d] = data->dims[d];
        }
      if (dims[d] == -1 && infer < 0)
        infer = d;
      else if (dims[d] < 0)
        return NULL;
      else if (__builtin_mul_overflow (known, dims[d], &known))
        return NULL;
    }
  if (infer >= 0)
    {
      if (known == 0 || data->n % known != 0)
        return NULL;
      dims[infer] = data->n / known;
    }
  return with_dims (data, shape->n, dims);
}

static Value *
fold_range (const Value *start, const Value *limit, const Value *delta)
{
  gint64 n, d;
  Value *v;

  if (start->n != 1 || limit->n != 1 || delta->n != 1 || delta->data[0] == 0)
    return NULL;
  d = delta->data[0];
  /* the spec: max(ceil((limit - start) / delta), 0) elements */
  if (__builtin_sub_overflow (limit->data[0], start->data[0], &n) || n == G_MININT64 ||
      d == G_MININT64)
    return NULL;
  n = d > 0 ? (n <= 0 ? 0 : 1 + (n - 1) / d) : (n >= 0 ? 0 : 1 + (-n - 1) / -d);
  if (!dims_ok (1, &n))
    return NULL;
  v = value_new (start->type, 1, &n);
  for (gint64 i = 0; i < n; i++)
    v->data[i] = start->data[0] + i * d;
  return v;
}

static Value *
fold_expand (const Value *data, const Value *shape)
{
  Value  target = { .rank = shape->n };
  gint64 dims[MAX_RANK];
  guint  rank;
  Value *v;

  if (shape->rank != 1 || shape->n > MAX_RANK)
    return NULL;
  memcpy (target.dims, shape->data, shape->n * sizeof (gint64));
  if (!broadcast (data, &target, &rank, dims))
    return NULL;
  v = value_new (data->type, rank, dims);
  for (gsize i = 0; i < v->n; i++)
    v->data[i] = broadcast_at (data, rank, dims, i);
  return v;
}

static Value *
fold_constant_of_shape (const Onnx__NodeProto *node, const Value *shape)
{
  const Onnx__AttributeProto *a = mp_onnx_find_attribute (node, "value");
  gint64                      fill = 0;
  gint32                      type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  Value                      *v;

  if (shape->rank != 1 || !dims_ok (shape->n, shape->data))
    return NULL;
  if (a && a->t)
    {
      g_autoptr (GHashTable) one = g_hash_table_new (g_str_hash, g_str_equal);
      g_autoptr (GArray) values = NULL;

      type = a->t->data_type;
      g_hash_table_insert (one, (gpointer) "", a->t);
      values = mp_onnx_constant_ints (one, "");
      if (values && values->len == 1)
        fill = g_array_index (values, gint64, 0);
      else
        return NULL;
    }
  if (!int_type (type))
    return NULL; /* a float fill: its shape is all that matters */
  v = value_new (type, shape->n, shape->data);
  for (gsize i = 0; i < v->n; i++)
    v->data[i] = fill;
  return v;
}

static Value *
fold_cast (const Onnx__NodeProto *node, const Value *data)
{
  gint64 to = attr_int (node, "to", 0);
  Value *v;

  if (!int_type ((gint32) to))
    return NULL;
  v = with_dims (data, data->rank, data->dims);
  v->type = (gint32) to;
  for (gsize i = 0; i < v->n; i++)
    if (to == ONNX__TENSOR_PROTO__DATA_TYPE__BOOL)
      v->data[i] = v->data[i] != 0;
    else if (to == ONNX__TENSOR_PROTO__DATA_TYPE__INT32)
      v->data[i] = (gint32) v->data[i];
  return v;
}

static Value *
fold_unary (const char *op, const Value *data)
{
  Value *v;

  if (!g_str_equal (op, "Neg") && !g_str_equal (op, "Abs") && !g_str_equal (op, "Not") &&
      !g_str_equal (op, "Identity"))
    return NULL;
  v = with_dims (data, data->rank, data->dims);
  for (gsize i = 0; i < v->n; i++)
    {
      if ((g_str_equal (op, "Neg") || g_str_equal (op, "Abs")) && v->data[i] == G_MININT64)
        {
          value_free (v);
          return NULL;
        }
      if (g_str_equal (op, "Neg"))
        v->data[i] = -v->data[i];
      else if (g_str_equal (op, "Abs"))
        v->data[i] = ABS (v->data[i]);
      else if (g_str_equal (op, "Not"))
        v->data[i] = !v->data[i];
    }
  return v;
}

static Value *
fold_node (Fold *f, const Onnx__NodeProto *node)
{
  static const char *const binaries[] = { "Add", "Sub", "Mul", "Div", "Mod", "Min", "Max",
                                          "Equal", "Less", "Greater", "LessOrEqual",
                                          "GreaterOrEqual", "And", "Or" };
  const char  *op = node->op_type;
  const Value *a = input (f, node, 0), *b = input (f, node, 1), *c = input (f, node, 2);
  gint64       n;

  if (g_str_equal (op, "Shape"))
    return fold_shape (f, node);
  if (g_str_equal (op, "Size") && node->n_input == 1)
    {
      gint64 dims[MAX_RANK], zero = 0;
      guint  rank;
      Value *v;

      if (!static_shape (f, node->input[0], &rank, dims))
        return NULL;
      v = value_new (ONNX__TENSOR_PROTO__DATA_TYPE__INT64, 0, &zero);
      v->data[0] = 1;
      for (guint d = 0; d < rank; d++)
        v->data[0] *= dims[d];
      return v;
    }
  if (a == NULL)
    return NULL;
  for (guint i = 0; i < G_N_ELEMENTS (binaries); i++)
    if (g_str_equal (op, binaries[i]) && node->n_input == 2)
      return b ? fold_binary (op, a, b) : NULL;
  if (g_str_equal (op, "Gather") && b)
    return fold_gather (node, a, b);
  if (g_str_equal (op, "Slice") && node->n_input >= 3)
    return fold_slice (f, node);
  if (g_str_equal (op, "Concat"))
    return fold_concat (f, node);
  if (g_str_equal (op, "Unsqueeze") || g_str_equal (op, "Squeeze"))
    return fold_squeeze (f, node, a, g_str_equal (op, "Unsqueeze"));
  if (g_str_equal (op, "Reshape") && b)
    return fold_reshape (node, a, b);
  if (g_str_equal (op, "Range") && b && c)
    return fold_range (a, b, c);
  if (g_str_equal (op, "Expand") && b)
    return fold_expand (a, b);
  if (g_str_equal (op, "ConstantOfShape"))
    return fold_constant_of_shape (node, a);
  if (g_str_equal (op, "Cast"))
    return fold_cast (node, a);
  if (g_str_equal (op, "Where") && b && c)
    return fold_where (a, b, c);
  if (g_str_equal (op, "Flatten"))
    {
      gboolean ok = TRUE;
      gint64   axis = attr_int (node, "axis", 1), dims[2] = { 1, 1 };

      axis = axis < 0 ? axis + a->rank : axis;
      if (axis < 0 || axis > (gint64) a->rank || !ok)
        return NULL;
      for (guint d = 0; d < a->rank; d++)
        dims[d < axis ? 0 : 1] *= a->dims[d];
      return with_dims (a, 2, dims);
    }
  if (g_str_equal (op, "ReduceProd") && a->rank == 1 && !mp_onnx_node_has_input (node, 1) &&
      !mp_onnx_find_attribute (node, "axes"))
    {
      Value *v;

      n = 1;
      v = value_new (a->type, attr_int (node, "keepdims", 1) ? 1 : 0, &n);
      v->data[0] = 1;
      for (gsize i = 0; i < a->n; i++)
        if (__builtin_mul_overflow (v->data[0], a->data[i], &v->data[0]))
          {
            value_free (v);
            return NULL;
          }
      return v;
    }
  return fold_unary (op, a);
}

static void
put_varint (GByteArray *b, guint64 v)
{
  do
    {
      guint8 byte = (v & 0x7f) | (v > 0x7f ? 0x80 : 0);

      g_byte_array_append (b, &byte, 1);
      v >>= 7;
    }
  while (v);
}

static void
put_field (GByteArray *b, guint field, const void *data, gsize n)
{
  put_varint (b, (guint64) field << 3 | 2);
  put_varint (b, n);
  g_byte_array_append (b, data, n);
}

/* A GraphProto initializer field (5) holding v as a TensorProto. */
static void
put_initializer (GByteArray *out, const char *name, const Value *v, gint32 type)
{
  g_autoptr (GByteArray) t = g_byte_array_new ();
  g_autoptr (GByteArray) dims = g_byte_array_new ();
  g_autoptr (GByteArray) data = g_byte_array_new ();

  for (guint d = 0; d < v->rank; d++)
    put_varint (dims, v->dims[d]);
  for (gsize i = 0; i < v->n; i++)
    put_varint (data, (guint64) v->data[i]);
  put_field (t, 1, dims->data, dims->len);
  put_varint (t, 2 << 3);
  put_varint (t, type);
  put_field (t, 8, name, strlen (name));
  /* int64_data (7), else int32_data (5) for INT32 and BOOL */
  put_field (t, type == ONNX__TENSOR_PROTO__DATA_TYPE__INT64 ? 7 : 5, data->data, data->len);
  put_field (out, 5, t->data, t->len);
}

static void
seed (Fold *f, GHashTable *constants)
{
  GHashTableIter it;
  gpointer       key, tensor;

  g_hash_table_iter_init (&it, constants);
  while (g_hash_table_iter_next (&it, &key, &tensor))
    {
      const Onnx__TensorProto *t = tensor;
      g_autoptr (GArray) values = mp_onnx_constant_ints (constants, key);
      Value *v;

      if (values == NULL || t->n_dims > MAX_RANK || !dims_ok (t->n_dims, (gint64 *) t->dims))
        continue;
      v = value_new (t->data_type, t->n_dims, (gint64 *) t->dims);
      if (v->n != values->len)
        {
          value_free (v);
          continue;
        }
      if (v->n) /* an empty GArray's data may be NULL */
        memcpy (v->data, values->data, v->n * sizeof (gint64));
      g_hash_table_insert (f->values, key, v);
    }
}

/* Shapes for ops of opset 18 to 21 that libonnx 1.12 has no inference
 * for (or an older one), by the ONNX operator spec of each:
 * - Gelu (20), Mish (18), GroupNormalization (18, 21), BitwiseNot (18):
 *   "Y has the same shape as X";
 * - BitwiseAnd/Or/Xor (18): multidirectional (numpy) broadcasting.
 * (Split 18 with num_outputs and Pad 18 with axes libonnx 1.12 knows in an
 * older form and refuses: those models stay refused, naming the node.)
 * Writes the dims of output k; FALSE where the op is none of these or its
 * inputs are not known. */
static gboolean
rule_shape (Fold *f, const Onnx__NodeProto *node, gsize k, guint *rank, gint64 *dims)
{
  static const char *const same[] = { "Gelu", "Mish", "GroupNormalization", "BitwiseNot" };
  static const char *const bitwise[] = { "BitwiseAnd", "BitwiseOr", "BitwiseXor" };
  const char *op = node->op_type;

  if (!mp_onnx_node_has_input (node, 0) || !static_shape (f, node->input[0], rank, dims))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (same); i++)
    if (g_str_equal (op, same[i]))
      return k == 0;
  for (guint i = 0; i < G_N_ELEMENTS (bitwise); i++)
    if (g_str_equal (op, bitwise[i]) && k == 0 && mp_onnx_node_has_input (node, 1))
      {
        Value a = { .rank = *rank }, b = { 0 };

        memcpy (a.dims, dims, *rank * sizeof (gint64));
        return static_shape (f, node->input[1], &b.rank, b.dims) &&
               broadcast (&a, &b, rank, dims);
      }
  return FALSE;
}

/* A GraphProto value_info field (13) giving name a tensor type. */
static void
put_value_info (GByteArray *out, const char *name, gint32 elem, guint rank, const gint64 *dims)
{
  g_autoptr (GByteArray) info = g_byte_array_new ();
  g_autoptr (GByteArray) type = g_byte_array_new ();
  g_autoptr (GByteArray) tensor = g_byte_array_new ();
  g_autoptr (GByteArray) shape = g_byte_array_new ();

  for (guint d = 0; d < rank; d++)
    {
      g_autoptr (GByteArray) dim = g_byte_array_new ();

      put_varint (dim, 1 << 3);
      put_varint (dim, dims[d]);
      put_field (shape, 1, dim->data, dim->len);
    }
  put_varint (tensor, 1 << 3);
  put_varint (tensor, elem);
  put_field (tensor, 2, shape->data, shape->len);
  put_field (type, 1, tensor->data, tensor->len);
  put_field (info, 1, name, strlen (name));
  put_field (info, 2, type->data, type->len);
  put_field (out, 13, info->data, info->len);
}

static gboolean
type_known (const Onnx__TypeProto *type)
{
  const Onnx__TensorShapeProto *shape;

  if (type == NULL || type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
      !type->tensor_type->has_elem_type || (shape = type->tensor_type->shape) == NULL)
    return FALSE;
  for (gsize d = 0; d < shape->n_dim; d++)
    if (shape->dim[d]->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE__NOT_SET)
      return FALSE;
  return TRUE;
}

/* Outputs that inference left unknown and a rule above gives. */
static guint
apply_rules (Fold *f, const Onnx__NodeProto *node, GHashTable *folded, GByteArray *out)
{
  const Onnx__TypeProto *in_type;
  guint                  added = 0;

  if (!mp_onnx_node_has_input (node, 0) ||
      (in_type = g_hash_table_lookup (f->types, node->input[0])) == NULL ||
      in_type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE)
    return 0;
  for (gsize k = 0; k < node->n_output; k++)
    {
      const char *name = node->output[k];
      gint64      dims[MAX_RANK];
      guint       rank;

      if (name == NULL || *name == '\0' || g_hash_table_contains (folded, name) ||
          type_known (g_hash_table_lookup (f->types, name)) ||
          !rule_shape (f, node, k, &rank, dims))
        continue;
      put_value_info (out, name, in_type->tensor_type->elem_type, rank, dims);
      g_hash_table_add (folded, g_strdup (name));
      added++;
    }
  return added;
}

guint
mp_onnx_fold (const Onnx__GraphProto *g, GHashTable *types, GHashTable *constants,
              GHashTable *folded, GByteArray *out)
{
  Fold  f = { g_hash_table_new_full (g_str_hash, g_str_equal, NULL, value_free), types };
  guint added = 0;

  seed (&f, constants);
  for (gsize i = 0; i < g->n_node; i++)
    {
      const Onnx__NodeProto *node = g->node[i];
      const char            *name = node->n_output ? node->output[0] : NULL;
      const Onnx__TypeProto *type;
      Value                 *v;
      gint32                 elem;

      if (node->op_type == NULL || (node->domain && *node->domain) || name == NULL ||
          *name == '\0' || g_hash_table_contains (f.values, name))
        continue;
      if ((v = fold_node (&f, node)) == NULL)
        {
          added += apply_rules (&f, node, folded, out);
          continue;
        }
      g_hash_table_insert (f.values, (gpointer) name, v);
      /* handed back in the type the model (or inference) gives it */
      type = g_hash_table_lookup (types, name);
      elem = type && type->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE &&
                 type->tensor_type->has_elem_type
               ? type->tensor_type->elem_type
               : v->type;
      if (!int_type (elem) || g_hash_table_contains (folded, name))
        continue;
      put_initializer (out, name, v, elem);
      g_hash_table_add (folded, g_strdup (name));
      added++;
    }
  g_hash_table_unref (f.values);
  return added;
}
