/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <string.h>

#include "mp-error.h"
#include "onnx-check.h"

/* Checks a runtime makes and libonnx 1.12 does not: a model that fails one
 * is refused naming the node or tensor, never handed on to crash libonnx
 * (raw data shorter than its dims is read past its end; a zero stride is
 * divided by) or planned with shapes no runtime would give it. */

#define EXTERNAL ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL

gboolean
mp_onnx_element_type (gint32 type, MpDType *dtype, guint *size)
{
  static const struct
  {
    MpDType dtype;
    guint   size;
  } types[] = {
    [ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT] = { MP_DTYPE_F32, 4 },
    [ONNX__TENSOR_PROTO__DATA_TYPE__UINT8] = { MP_DTYPE_U8, 1 },
    [ONNX__TENSOR_PROTO__DATA_TYPE__INT8] = { MP_DTYPE_I8, 1 },
    [ONNX__TENSOR_PROTO__DATA_TYPE__UINT16] = { MP_DTYPE_NONE, 2 },
    [ONNX__TENSOR_PROTO__DATA_TYPE__INT16] = { MP_DTYPE_I16, 2 },
    [ONNX__TENSOR_PROTO__DATA_TYPE__INT32] = { MP_DTYPE_I32, 4 },
    [ONNX__TENSOR_PROTO__DATA_TYPE__INT64] = { MP_DTYPE_I64, 8 },
    [ONNX__TENSOR_PROTO__DATA_TYPE__BOOL] = { MP_DTYPE_BOOL, 1 },
    [ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16] = { MP_DTYPE_F16, 2 },
    [ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE] = { MP_DTYPE_F64, 8 },
    [ONNX__TENSOR_PROTO__DATA_TYPE__UINT32] = { MP_DTYPE_NONE, 4 },
    [ONNX__TENSOR_PROTO__DATA_TYPE__UINT64] = { MP_DTYPE_NONE, 8 },
    [ONNX__TENSOR_PROTO__DATA_TYPE__COMPLEX64] = { MP_DTYPE_NONE, 8 },
    [ONNX__TENSOR_PROTO__DATA_TYPE__COMPLEX128] = { MP_DTYPE_NONE, 16 },
    [ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16] = { MP_DTYPE_BF16, 2 },
    /* the float8 types of IR version 9, newer than Debian's onnx.proto */
    [17] = { MP_DTYPE_F8, 1 },
    [18] = { MP_DTYPE_F8, 1 },
    [19] = { MP_DTYPE_F8, 1 },
    [20] = { MP_DTYPE_F8, 1 },
  };

  if (type <= 0 || type >= (gint32) G_N_ELEMENTS (types) || types[type].size == 0)
    return FALSE;
  *dtype = types[type].dtype;
  *size = types[type].size;
  return TRUE;
}

char *
mp_onnx_node_label (const Onnx__NodeProto *node, gsize index)
{
  const char *op = node->op_type ? node->op_type : "";

  if (node->name && *node->name)
    return g_strdup_printf ("%s (%s)", node->name, op);
  return g_strdup_printf ("node %zu (%s)", index, op);
}

static char *
format_dims (const gint64 *dims, gsize n)
{
  GString *s = g_string_new ("[");

  for (gsize i = 0; i < n; i++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i ? ", " : "", dims[i]);
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

/* How many values a tensor's typed field holds, and that field's name. */
static gboolean
typed_count (const Onnx__TensorProto *t, gsize *count, const char **field)
{
  switch (t->data_type)
    {
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT:
    case ONNX__TENSOR_PROTO__DATA_TYPE__COMPLEX64:
      *count = t->n_float_data;
      *field = "float_data";
      break;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT64:
      *count = t->n_int64_data;
      *field = "int64_data";
      break;
    case ONNX__TENSOR_PROTO__DATA_TYPE__STRING:
      *count = t->n_string_data;
      *field = "string_data";
      break;
    case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE:
    case ONNX__TENSOR_PROTO__DATA_TYPE__COMPLEX128:
      *count = t->n_double_data;
      *field = "double_data";
      break;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT32:
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT64:
      *count = t->n_uint64_data;
      *field = "uint64_data";
      break;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UNDEFINED:
      return FALSE;
    default:
      if (t->data_type > 20)
        return FALSE;
      *count = t->n_int32_data;
      *field = "int32_data";
      break;
    }
  if (t->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__COMPLEX64 ||
      t->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__COMPLEX128)
    *count /= 2;
  return TRUE;
}

/* A tensor's stored data holds what its dims say: raw_data exactly their
 * bytes, a typed field their element count. No data at all (weights left
 * out) is left to whoever needs it: libonnx refuses that itself. */
static gboolean
check_tensor_data (const Onnx__TensorProto *t, const char *what, const char *path,
                   GError **error)
{
  guint64          elements = 1, bytes;
  MpDType          dtype;
  guint            size;
  gsize            count = 0;
  const char      *field = NULL;
  g_autofree char *dims = format_dims ((const gint64 *) t->dims, t->n_dims);

  for (gsize d = 0; d < t->n_dims; d++)
    if (t->dims[d] < 0 || !g_uint64_checked_mul (&elements, elements, t->dims[d]))
      {
        mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                           "%s has dims %s, which no tensor has", what, dims);
        return FALSE;
      }
  if (t->has_data_location && t->data_location == EXTERNAL)
    return TRUE; /* never opened */
  if (t->has_raw_data)
    {
      if (!mp_onnx_element_type (t->data_type, &dtype, &size))
        return TRUE; /* sizing says what is wrong with the type */
      if (!g_uint64_checked_mul (&bytes, elements, size) || t->raw_data.len != bytes)
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                             "%s holds %zu bytes of raw_data, but its dims %s of %u-byte "
                             "elements need %" G_GUINT64_FORMAT, what, t->raw_data.len, dims,
                             size, elements * size);
          return FALSE;
        }
      return TRUE;
    }
  if (typed_count (t, &count, &field) && count > 0 && count != elements)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                         "%s holds %zu values in %s, but its dims %s need %" G_GUINT64_FORMAT,
                         what, count, field, dims, elements);
      return FALSE;
    }
  return TRUE;
}

/* Window attributes libonnx divides by or sizes with, as the ONNX operator
 * spec bounds them: strides, kernel_shape and dilations >= 1, pads and
 * output_padding >= 0 (Conv, ConvTranspose, the pools); a blocksize >= 1
 * (DepthToSpace, SpaceToDepth). All fit an int, as libonnx reads them. */
static gboolean
check_attribute_range (const Onnx__NodeProto *node, const Onnx__AttributeProto *a,
                       const char *label, const char *path, GError **error)
{
  static const struct
  {
    const char *name;
    gint64      min;
  } ranges[] = {
    { "strides", 1 }, { "kernel_shape", 1 }, { "dilations", 1 }, { "pads", 0 },
    { "output_padding", 0 }, { "blocksize", 1 },
  };
  const char *name = a->name ? a->name : "";

  for (guint r = 0; r < G_N_ELEMENTS (ranges); r++)
    {
      if (!g_str_equal (name, ranges[r].name))
        continue;
      for (gsize k = 0; k < a->n_ints + (a->has_i ? 1 : 0); k++)
        {
          gint64 v = k < a->n_ints ? a->ints[k] : a->i;

          if (v < ranges[r].min || v > G_MAXINT32)
            {
              mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                                 "node '%s': attribute %s holds %" G_GINT64_FORMAT ", out of "
                                 "the range %" G_GINT64_FORMAT " to %d that ONNX allows",
                                 label, name, v, ranges[r].min, G_MAXINT32);
              return FALSE;
            }
        }
    }
  return TRUE;
}

static gboolean
check_node_attributes (const Onnx__NodeProto *node, gsize index, const char *path,
                       GError **error)
{
  g_autofree char *label = mp_onnx_node_label (node, index);

  for (gsize k = 0; k < node->n_attribute; k++)
    {
      const Onnx__AttributeProto *a = node->attribute[k];
      g_autofree char            *what = g_strdup_printf ("node '%s': the tensor of attribute "
                                                          "%s", label, a->name ? a->name : "");

      if (!check_attribute_range (node, a, label, path, error) ||
          (a->t && !check_tensor_data (a->t, what, path, error)))
        return FALSE;
      for (gsize i = 0; i < a->n_tensors; i++)
        if (!check_tensor_data (a->tensors[i], what, path, error))
          return FALSE;
    }
  return TRUE;
}

gboolean
mp_onnx_check_model (const Onnx__ModelProto *model, const char *path, GError **error)
{
  const Onnx__GraphProto *g = model->graph;

  for (gsize i = 0; i < g->n_initializer; i++)
    {
      g_autofree char *what = g_strdup_printf ("initializer '%s'", g->initializer[i]->name
                                                                     ? g->initializer[i]->name
                                                                     : "");

      if (!check_tensor_data (g->initializer[i], what, path, error))
        return FALSE;
    }
  for (gsize i = 0; i < g->n_sparse_initializer; i++)
    if (g->sparse_initializer[i]->values &&
        !check_tensor_data (g->sparse_initializer[i]->values, "a sparse initializer's values",
                            path, error))
      return FALSE;
  for (gsize i = 0; i < g->n_node; i++)
    if (!check_node_attributes (g->node[i], i, path, error))
      return FALSE;
  return TRUE;
}

const Onnx__AttributeProto *
mp_onnx_find_attribute (const Onnx__NodeProto *node, const char *name)
{
  for (gsize k = 0; k < node->n_attribute; k++)
    if (g_strcmp0 (node->attribute[k]->name, name) == 0)
      return node->attribute[k];
  return NULL;
}

GHashTable *
mp_onnx_index_constants (const Onnx__GraphProto *g)
{
  GHashTable *constants = g_hash_table_new (g_str_hash, g_str_equal);

  for (gsize i = 0; i < g->n_initializer; i++)
    if (g->initializer[i]->name)
      g_hash_table_insert (constants, g->initializer[i]->name, g->initializer[i]);
  for (gsize i = 0; i < g->n_node; i++)
    {
      const Onnx__NodeProto      *node = g->node[i];
      const Onnx__AttributeProto *value = mp_onnx_find_attribute (node, "value");

      if (g_strcmp0 (node->op_type, "Constant") == 0 && (!node->domain || !*node->domain) &&
          node->n_output == 1 && node->output[0] && value && value->t)
        g_hash_table_insert (constants, node->output[0], value->t);
    }
  return constants;
}

GArray *
mp_onnx_constant_ints (GHashTable *constants, const char *name)
{
  const Onnx__TensorProto *t = name ? g_hash_table_lookup (constants, name) : NULL;
  gboolean                 wide;
  gsize                    n, size;
  GArray                  *values;

  if (t == NULL || (t->has_data_location && t->data_location == EXTERNAL))
    return NULL;
  wide = t->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
  if (!wide && t->data_type != ONNX__TENSOR_PROTO__DATA_TYPE__INT32)
    return NULL;
  size = wide ? 8 : 4;
  n = t->has_raw_data ? t->raw_data.len / size : wide ? t->n_int64_data : t->n_int32_data;
  values = g_array_sized_new (FALSE, FALSE, sizeof (gint64), n);
  for (gsize i = 0; i < n; i++)
    {
      gint64 v;

      if (t->has_raw_data && wide)
        {
          memcpy (&v, t->raw_data.data + 8 * i, 8);
          v = GINT64_FROM_LE (v);
        }
      else if (t->has_raw_data)
        {
          gint32 w;

          memcpy (&w, t->raw_data.data + 4 * i, 4);
          v = GINT32_FROM_LE (w);
        }
      else
        v = wide ? t->int64_data[i] : t->int32_data[i];
      g_array_append_val (values, v);
    }
  return values;
}

static guint64
elements_of (const GArray *dims)
{
  guint64 n = 1;

  for (guint d = 0; d < dims->len; d++)
    n *= (guint64) g_array_index (dims, gint64, d); /* sized: no overflow */
  return n;
}

gboolean
mp_onnx_node_has_input (const Onnx__NodeProto *node, gsize k)
{
  return k < node->n_input && node->input[k] && *node->input[k];
}

/* An attribute's ints, else a constant input's, else NULL. */
static GArray *
ints_of (const Onnx__NodeProto *node, const char *attr, gsize input, GHashTable *constants)
{
  const Onnx__AttributeProto *a = mp_onnx_find_attribute (node, attr);
  GArray                     *values;

  if (a)
    {
      values = g_array_sized_new (FALSE, FALSE, sizeof (gint64), a->n_ints + 1);
      if (a->n_ints)
        g_array_append_vals (values, a->ints, a->n_ints);
      else if (a->has_i)
        g_array_append_val (values, a->i);
      return values;
    }
  if (!mp_onnx_node_has_input (node, input))
    return NULL;
  return mp_onnx_constant_ints (constants, node->input[input]);
}

/* Ops whose single axis indexes their first input's dims: [-r, r-1], one
 * more at the top for Flatten (the ONNX operator spec of each). */
static const struct
{
  const char *op;
  gint        extra;
} axis_ops[] = {
  { "Concat", 0 }, { "Flatten", 1 }, { "Softmax", 0 }, { "LogSoftmax", 0 }, { "Hardmax", 0 },
  { "Split", 0 }, { "Gather", 0 }, { "GatherElements", 0 }, { "ScatterElements", 0 },
  { "LayerNormalization", 0 }, { "ArgMax", 0 }, { "ArgMin", 0 }, { "Compress", 0 },
  { "TopK", 0 }, { "CumSum", 0 },
};

/* Ops whose axes list does the same ([-r, r-1]; Unsqueeze's rank is its
 * output's) and where the list is an input (opset 13 on; Slice 10). */
static const struct
{
  const char *op;
  gsize       input;
} axes_ops[] = {
  { "Squeeze", 1 }, { "Unsqueeze", 1 }, { "Slice", 3 }, { "ReduceSum", 1 }, { "ReduceMean", 1 },
  { "ReduceMax", 1 }, { "ReduceMin", 1 }, { "ReduceProd", 1 }, { "ReduceL1", 1 },
  { "ReduceL2", 1 }, { "ReduceLogSum", 1 }, { "ReduceLogSumExp", 1 }, { "ReduceSumSquare", 1 },
};

static gboolean
check_axis (gint64 axis, gint64 rank, gint extra, const char *what, const char *label,
            const char *path, GError **error)
{
  if (axis >= -rank && axis < rank + extra)
    return TRUE;
  mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                     "node '%s': %s %" G_GINT64_FORMAT " is out of the range %" G_GINT64_FORMAT
                     " to %" G_GINT64_FORMAT " of its input's %" G_GINT64_FORMAT " dimensions",
                     label, what, axis, -rank, rank + extra - 1, rank);
  return FALSE;
}

static gboolean
check_axes (const Onnx__NodeProto *node, const char *label, GHashTable *constants, gint64 rank,
            const char *path, GError **error)
{
  const char *op = node->op_type;

  for (guint i = 0; i < G_N_ELEMENTS (axis_ops); i++)
    if (g_str_equal (op, axis_ops[i].op))
      {
        g_autoptr (GArray) axis = ints_of (node, "axis", g_str_equal (op, "CumSum") ? 1 : 99,
                                           constants);

        if (axis && axis->len == 1 &&
            !check_axis (g_array_index (axis, gint64, 0), rank, axis_ops[i].extra, "axis",
                         label, path, error))
          return FALSE;
      }
  for (guint i = 0; i < G_N_ELEMENTS (axes_ops); i++)
    if (g_str_equal (op, axes_ops[i].op))
      {
        g_autoptr (GArray) axes = ints_of (node, "axes", axes_ops[i].input, constants);
        gint64 r = rank + (g_str_equal (op, "Unsqueeze") && axes ? axes->len : 0);

        for (guint k = 0; axes && k < axes->len; k++)
          if (!check_axis (g_array_index (axes, gint64, k), r, 0, "axis", label, path, error))
            return FALSE;
      }
  if (g_str_equal (op, "Transpose"))
    {
      g_autoptr (GArray) perm = ints_of (node, "perm", 99, constants);
      g_autofree gboolean *seen = g_new0 (gboolean, rank + 1);

      for (guint k = 0; perm && k < perm->len; k++)
        {
          gint64 p = g_array_index (perm, gint64, k);

          if (perm->len != rank || p < 0 || p >= rank || seen[p])
            {
              g_autofree char *text = format_dims ((gint64 *) perm->data, perm->len);

              mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                                 "node '%s': perm %s is not a permutation of its input's %"
                                 G_GINT64_FORMAT " dimensions", label, text, rank);
              return FALSE;
            }
          seen[p] = TRUE;
        }
    }
  return TRUE;
}

/* Slice's output dimension by the ONNX spec (opset 13): negative starts
 * and ends count from the end, both are clamped, then stepped. */
static gint64
slice_dim (gint64 dim, gint64 start, gint64 end, gint64 step)
{
  gint64 diff;

  start = start < 0 ? start + dim : start;
  end = end < 0 ? end + dim : end;
  if (step > 0)
    {
      start = CLAMP (start, 0, dim);
      end = CLAMP (end, 0, dim);
      diff = end - start;
      return diff <= 0 ? 0 : 1 + (diff - 1) / step;
    }
  start = CLAMP (start, 0, dim - 1);
  end = CLAMP (end, -1, dim - 1);
  diff = start - end;
  /* -step can overflow: step = INT64_MIN takes one element at most */
  return diff <= 0 ? 0 : step == G_MININT64 ? 1 : 1 + (diff - 1) / -step;
}

static gboolean
check_slice (const Onnx__NodeProto *node, const char *label, GHashTable *constants,
             const GArray *in, const GArray *out, const char *path, GError **error)
{
  g_autoptr (GArray) starts = ints_of (node, "starts", 1, constants);
  g_autoptr (GArray) ends = ints_of (node, "ends", 2, constants);
  g_autoptr (GArray) axes = ints_of (node, "axes", 3, constants);
  g_autoptr (GArray) steps = ints_of (node, "", 4, constants);
  g_autoptr (GArray) dims = NULL;
  g_autofree char   *want = NULL, *have = NULL;
  gint64             rank = in->len;

  if (!starts || !ends || starts->len != ends->len || (axes && axes->len != starts->len) ||
      (mp_onnx_node_has_input (node, 4) && (!steps || steps->len != starts->len)))
    return TRUE; /* not all known: libonnx's shape stands */
  dims = g_array_copy ((GArray *) in);
  for (guint k = 0; k < starts->len; k++)
    {
      gint64 axis = axes ? g_array_index (axes, gint64, k) : k;
      gint64 step = steps ? g_array_index (steps, gint64, k) : 1;

      axis = axis < 0 ? axis + rank : axis;
      if (axis < 0 || axis >= rank)
        return check_axis (axis, rank, 0, "axis", label, path, error);
      if (step == 0)
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                             "node '%s': step %u is 0, which ONNX does not allow", label, k);
          return FALSE;
        }
      g_array_index (dims, gint64, axis) =
        slice_dim (g_array_index (in, gint64, axis), g_array_index (starts, gint64, k),
                   g_array_index (ends, gint64, k), step);
    }
  if (dims->len == out->len &&
      memcmp (dims->data, out->data, dims->len * sizeof (gint64)) == 0)
    return TRUE;
  want = format_dims ((gint64 *) dims->data, dims->len);
  have = format_dims ((gint64 *) out->data, out->len);
  mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                     "node '%s': its starts, ends, axes and steps slice %s out of its input, "
                     "but its output '%s' is given as %s", label, want, node->output[0], have);
  return FALSE;
}

/* Reshape and its kin move no data: a runtime refuses one whose output
 * holds another number of elements than its input. */
static gboolean
check_same_elements (const Onnx__NodeProto *node, const char *label, const GArray *in,
                     const GArray *out, const char *path, GError **error)
{
  static const char *const ops[] = { "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity" };
  g_autofree char         *from = NULL, *to = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    if (g_str_equal (node->op_type, ops[i]) && elements_of (in) != elements_of (out))
      {
        from = format_dims ((gint64 *) in->data, in->len);
        to = format_dims ((gint64 *) out->data, out->len);
        mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                           "node '%s' turns %" G_GUINT64_FORMAT " elements (%s) into %"
                           G_GUINT64_FORMAT " (%s): a %s keeps the number of elements",
                           label, elements_of (in), from, elements_of (out), to,
                           node->op_type);
        return FALSE;
      }
  return TRUE;
}

gboolean
mp_onnx_check_node (const Onnx__NodeProto *node, const char *label, GHashTable *constants,
                    MpOnnxShapeFunc shape_of, gpointer data, const char *path, GError **error)
{
  const GArray *in, *out;

  if (node->op_type == NULL ||
      (node->domain && *node->domain && !g_str_equal (node->domain, "ai.onnx")) ||
      !mp_onnx_node_has_input (node, 0) || (in = shape_of (data, node->input[0])) == NULL)
    return TRUE;
  if (!check_axes (node, label, constants, in->len, path, error))
    return FALSE;
  if (node->n_output == 0 || !node->output[0] || !*node->output[0] ||
      (out = shape_of (data, node->output[0])) == NULL)
    return TRUE;
  if (g_str_equal (node->op_type, "Slice") &&
      !check_slice (node, label, constants, in, out, path, error))
    return FALSE;
  return check_same_elements (node, label, in, out, path, error);
}
