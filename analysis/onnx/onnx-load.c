/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <string.h>

#include "graph-private.h"
#include "onnx-check.h"
#include "onnx-private.h"
#include "onnx.h"

/* An ONNX model as a memplan graph. protobuf-c reads the file with the code
 * it generated from ONNX's own schema; where the model lacks shapes, ONNX's
 * own shape inference (onnx-infer.cc) fills them in first. */

#define MAX_RANK 64

typedef struct
{
  const char             *path;
  gboolean                views_as_copies;
  GHashTable             *bindings;  /* symbolic dimension -> gint64 * */
  GHashTable             *types;     /* tensor name -> const Onnx__TypeProto * (value_info) */
  GHashTable             *makers;    /* tensor name -> index + 1 of the node that writes it */
  GHashTable             *functions; /* "domain:name" of the model-local functions */
  GHashTable             *shapes;    /* tensor name -> GArray of its gint64 dims, once sized */
  GHashTable             *constants; /* tensor name -> const Onnx__TensorProto * */
  GHashTable             *folded;    /* node outputs folded to initializers (onnx-fold.c) */
  gboolean                inferred;  /* value_info filled in by ONNX's shape inference */
  guint64                 max_memory;
  gboolean                lenient_dims;
  GPtrArray              *binding_names; /* --dim names, in order */
  GPtrArray              *model_dims;    /* the model's own symbolic dimensions, in order */
  GHashTable             *model_dim_set; /* the same as a set */
  MpOnnxAllocator         allocator;
  Onnx__ModelProto       *model;
  const Onnx__GraphProto *g;
  MpGraph                *graph;
} Loader;

static const char *
str_or_empty (const char *s)
{
  return s ? s : "";
}

static gboolean
parse_bindings (Loader *l, const char *const *dims, GError **error)
{
  for (; dims && *dims; dims++)
    {
      /* the last '=': a dimension's name may hold one ("a=b=8") */
      const char      *eq = strrchr (*dims, '=');
      g_autofree char *name = NULL;
      guint64          value;

      if (eq == NULL || eq == *dims ||
          !g_ascii_string_to_unsigned (eq + 1, 10, 1, G_MAXINT64, &value, NULL))
        {
          g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_INVALID,
                       "dimension binding '%s': expected NAME=VALUE with VALUE a positive "
                       "integer", *dims);
          return FALSE;
        }
      name = g_strndup (*dims, eq - *dims);
      if (g_hash_table_contains (l->bindings, name))
        {
          g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_INVALID,
                       "dimension '%s' is bound twice (--dim %s=...)", name, name);
          return FALSE;
        }
      g_ptr_array_add (l->binding_names, g_strdup (name));
      g_hash_table_insert (l->bindings, g_steal_pointer (&name),
                           g_memdup2 (&value, sizeof (gint64)));
    }
  return TRUE;
}

static char *
element_type_name (gint32 type)
{
  const ProtobufCEnumValue *v =
    protobuf_c_enum_descriptor_get_value (&onnx__tensor_proto__data_type__descriptor, type);

  return v ? g_strdup (v->name) : g_strdup_printf ("%d", type);
}

/* Fills in t's dtype, shape and size; who says where the tensor comes from
 * (" (graph input)", " (written by node 'x (Conv)')") for the messages. */
static gboolean
size_tensor (Loader *l, MpTensor *t, gint32 type, guint n_dims, const gint64 *dims,
             const char *who, GError **error)
{
  MpDType dtype;
  guint   elem_size;
  guint64 size;

  if (!mp_onnx_element_type (type, &dtype, &elem_size))
    {
      g_autofree char *name = element_type_name (type);

      mp_set_file_error (error, MP_ANALYSIS_ERROR_UNSUPPORTED, l->path,
                         "tensor '%s'%s has element type %s, whose size in bytes memplan does "
                         "not know", t->name, who, name);
      return FALSE;
    }
  g_hash_table_insert (l->shapes, t->name, g_array_append_vals (
                         g_array_sized_new (FALSE, FALSE, sizeof (gint64), n_dims), dims, n_dims));
  size = elem_size;
  for (guint d = 0; d < n_dims; d++)
    if (!g_uint64_checked_mul (&size, size, dims[d]) || size > MP_MAX_TENSOR_SIZE)
      {
        mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, l->path,
                           "tensor '%s'%s is larger than the limit of 2^48 bytes (256 TiB)",
                           t->name, who);
        return FALSE;
      }
  /* a tensor with no elements still needs a slot: planners want positive sizes */
  if (size == 0 || dtype == MP_DTYPE_NONE)
    {
      t->dtype = MP_DTYPE_NONE;
      t->size = MAX (size, 1);
      return TRUE;
    }
  t->dtype = dtype;
  t->size = size;
  t->n_dims = n_dims;
  t->shape = n_dims ? g_memdup2 (dims, n_dims * sizeof (gint64)) : NULL;
  return TRUE;
}

/* The shape of a tensor type, or NULL. */
static Onnx__TensorShapeProto *
tensor_shape (const Onnx__TypeProto *type)
{
  if (type == NULL || type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE)
    return NULL;
  return type->tensor_type->shape;
}

/* A tensor's type is complete when every dimension is a number or a name. */
static gboolean
type_is_complete (const Onnx__TypeProto *type)
{
  const Onnx__TensorShapeProto *shape;

  if (type == NULL || type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE)
    return type != NULL; /* not a tensor: inference cannot help, the loader says why */
  if (!type->tensor_type->has_elem_type || type->tensor_type->shape == NULL)
    return FALSE;
  shape = type->tensor_type->shape;
  for (gsize d = 0; d < shape->n_dim; d++)
    if (shape->dim[d]->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE__NOT_SET)
      return FALSE;
  return TRUE;
}

/* A symbolic dimension of the model's own (not one inference made up). */
static gboolean
dim_from_model (Loader *l, const char *text)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);

  mp_onnx_dim_names (text, names);
  for (guint i = 0; i < names->len; i++)
    if (!g_hash_table_contains (l->model_dim_set, names->pdata[i]))
      return FALSE;
  return TRUE;
}

/* Sizes a graph input or node output from its value_info, binding its
 * symbolic dimensions. */
static gboolean
size_from_value_info (Loader *l, MpTensor *t, const char *who, GError **error)
{
  const Onnx__TypeProto        *type = g_hash_table_lookup (l->types, t->name);
  const Onnx__TensorShapeProto *shape;
  gint64                        dims[MAX_RANK];

  const Onnx__TensorProto      *folded = g_hash_table_contains (l->folded, t->name)
                                          ? g_hash_table_lookup (l->constants, t->name)
                                          : NULL;

  /* a folded value: inference took it as given and gave it no type */
  if (folded && (type == NULL || type->value_case == ONNX__TYPE_PROTO__VALUE__NOT_SET ||
                 !type_is_complete (type)))
    return size_tensor (l, t, folded->data_type, folded->n_dims, (const gint64 *) folded->dims,
                        who, error);
  if (type && type->value_case == ONNX__TYPE_PROTO__VALUE__NOT_SET)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, l->path,
                         "tensor '%s'%s has no known type: %s", t->name, who,
                         l->inferred ? "ONNX shape inference left it empty (an operator, domain "
                                       "or opset libonnx 1.12 does not know, or an attribute "
                                       "out of its range)"
                                     : "the model gives it an empty type");
      return FALSE;
    }
  if (type && type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_UNSUPPORTED, l->path,
                         "tensor '%s'%s is not a tensor but an ONNX sequence, map or optional: "
                         "memplan plans tensors only", t->name, who);
      return FALSE;
    }
  if (type == NULL || !type->tensor_type->has_elem_type || type->tensor_type->shape == NULL)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, l->path,
                         "tensor '%s'%s has no known shape: the model has no value_info for it "
                         "and %s", t->name, who,
                         l->inferred ? "ONNX shape inference could not infer it"
                                     : "this memplan was built without ONNX shape inference");
      return FALSE;
    }
  shape = type->tensor_type->shape;
  if (shape->n_dim > MAX_RANK)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, l->path,
                         "tensor '%s'%s has %zu dimensions, more than the %d memplan accepts",
                         t->name, who, shape->n_dim, MAX_RANK);
      return FALSE;
    }
  for (gsize d = 0; d < shape->n_dim; d++)
    {
      const Onnx__TensorShapeProto__Dimension *dim = shape->dim[d];

      if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
          dim->dim_value >= 0)
        dims[d] = dim->dim_value;
      else if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, l->path,
                             "tensor '%s'%s: dimension %zu is negative (%" G_GINT64_FORMAT
                             "), which no tensor has", t->name, who, d,
                             (gint64) dim->dim_value);
          return FALSE;
        }
      else if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
               mp_onnx_dim_value (dim->dim_param, l->bindings, &dims[d]))
        ;
      else if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
               !dim_from_model (l, dim->dim_param))
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, l->path,
                             "tensor '%s'%s: dimension %zu is unknown: ONNX shape inference "
                             "could not compute it (it calls it '%s')", t->name, who, d,
                             dim->dim_param);
          return FALSE;
        }
      else if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM)
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, l->path,
                             "tensor '%s'%s: dimension %zu is the symbolic '%s', which is not "
                             "bound to a value (--dim %s=N)",
                             t->name, who, d, dim->dim_param, dim->dim_param);
          return FALSE;
        }
      else
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, l->path,
                             "tensor '%s'%s: dimension %zu is unknown (neither a number nor a "
                             "symbolic name, even after ONNX shape inference)", t->name, who, d);
          return FALSE;
        }
    }
  return size_tensor (l, t, type->tensor_type->elem_type, shape->n_dim, dims, who, error);
}

static gboolean
add_initializer (Loader *l, const Onnx__TensorProto *init, GError **error)
{
  gint t;

  /* ONNX names every graph-level value; "" only marks a node's optional
   * input or output left out */
  if (*str_or_empty (init->name) == '\0')
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, l->path,
                         "not a valid ONNX model: an initializer has an empty name");
      return FALSE;
    }
  if ((t = mp_graph_add_tensor (l->graph, init->name, error)) < 0)
    return FALSE;
  l->graph->tensors[t].kind = MP_TENSOR_PARAM;
  if (init->n_dims > MAX_RANK)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, l->path,
                         "initializer '%s' has %zu dimensions, more than the %d memplan accepts",
                         init->name, init->n_dims, MAX_RANK);
      return FALSE;
    }
  for (gsize d = 0; d < init->n_dims; d++)
    if (init->dims[d] < 0)
      {
        mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, l->path,
                           "initializer '%s': dimension %zu is negative (%" G_GINT64_FORMAT ")",
                           init->name, d, (gint64) init->dims[d]);
        return FALSE;
      }
  return size_tensor (l, &l->graph->tensors[t], init->data_type, init->n_dims,
                      (const gint64 *) init->dims, " (initializer)", error);
}

/* Initializers are params (only their dims are read: external data is never
 * opened); the other graph inputs are inputs. */
static gboolean
add_graph_tensors (Loader *l, GError **error)
{
  const Onnx__GraphProto *g = l->g;
  g_autoptr (GHashTable)  inits = g_hash_table_new (g_str_hash, g_str_equal);

  for (gsize k = 0; k < g->n_initializer; k++)
    g_hash_table_add (inits, (gpointer) str_or_empty (g->initializer[k]->name));
  for (gsize i = 0; i < g->n_input; i++)
    {
      const char *name = str_or_empty (g->input[i]->name);
      gint        t;

      /* before IR version 4 initializers were listed among the inputs too */
      if (g_hash_table_contains (inits, name))
        continue;
      if (*name == '\0')
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, l->path,
                             "not a valid ONNX model: graph input #%zu has an empty name", i);
          return FALSE;
        }
      if ((t = mp_graph_add_tensor (l->graph, name, error)) < 0)
        return FALSE;
      l->graph->tensors[t].kind = MP_TENSOR_INPUT;
      if (!size_from_value_info (l, &l->graph->tensors[t], " (graph input)", error))
        return FALSE;
    }
  for (gsize i = 0; i < g->n_initializer; i++)
    if (!g_hash_table_contains (l->folded, str_or_empty (g->initializer[i]->name)) &&
        !add_initializer (l, g->initializer[i], error))
      return FALSE;
  for (gsize i = 0; i < g->n_sparse_initializer; i++)
    {
      const Onnx__SparseTensorProto *sparse = g->sparse_initializer[i];
      Onnx__TensorProto              dense;

      if (sparse->values == NULL)
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, l->path,
                             "sparse initializer %zu has no values tensor", i);
          return FALSE;
        }
      /* planned at its dense size, as a runtime that densifies it would */
      dense = *sparse->values;
      dense.n_dims = sparse->n_dims;
      dense.dims = sparse->dims;
      if (!add_initializer (l, &dense, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
is_view_op (const char *op_type)
{
  static const char *const views[] = { "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity" };

  for (guint i = 0; i < G_N_ELEMENTS (views); i++)
    if (g_str_equal (op_type, views[i]))
      return TRUE;
  return FALSE;
}

/* Control flow and model-local functions hold subgraphs memplan would have
 * to flatten; it refuses them rather than guess their memory. */
static gboolean
check_node_supported (Loader *l, const Onnx__NodeProto *node, const char *label, GError **error)
{
  const char      *op = str_or_empty (node->op_type);
  g_autofree char *fn = g_strdup_printf ("%s:%s", str_or_empty (node->domain), op);
  gboolean         subgraph = FALSE;

  for (gsize a = 0; a < node->n_attribute; a++)
    subgraph |= node->attribute[a]->g != NULL || node->attribute[a]->n_graphs > 0;
  if (subgraph || g_str_equal (op, "If") || g_str_equal (op, "Loop") || g_str_equal (op, "Scan"))
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_UNSUPPORTED, l->path,
                         "node '%s' is control flow with subgraphs: memplan plans straight-line "
                         "graphs and does not flatten If, Loop or Scan", label);
      return FALSE;
    }
  if (g_hash_table_contains (l->functions, fn))
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_UNSUPPORTED, l->path,
                         "node '%s' calls the model-local function '%s': memplan does not "
                         "expand ONNX functions", label, fn);
      return FALSE;
    }
  return TRUE;
}

/* "name (OpType)", unique even where ONNX names repeat or are absent. */
static char *
node_label (const MpGraph *graph, const Onnx__NodeProto *node, gsize index)
{
  const char *name = str_or_empty (node->name);
  const char *op = str_or_empty (node->op_type);
  char       *label = *name ? g_strdup_printf ("%s (%s)", name, op)
                            : g_strdup_printf ("node %zu (%s)", index, op);

  if (mp_graph_find_op (graph, label) >= 0)
    {
      char *unique = g_strdup_printf ("%s #%zu", label, index);

      g_free (label);
      label = unique;
    }
  return label;
}

static gboolean
add_node_inputs (Loader *l, gsize index, MpOp *op, const char *label, GError **error)
{
  const Onnx__NodeProto *node = l->g->node[index];

  op->inputs = mp_graph_alloc_ids (l->graph, node->n_input);
  for (gsize k = 0; k < node->n_input; k++)
    {
      const char *name = node->input[k];
      gint        t;
      guint       maker;

      if (name == NULL || *name == '\0') /* an optional input left out */
        continue;
      if ((t = mp_graph_find_tensor (l->graph, name)) >= 0)
        {
          op->inputs[op->n_inputs++] = t;
          continue;
        }
      maker = GPOINTER_TO_UINT (g_hash_table_lookup (l->makers, name));
      if (maker > 0)
        {
          g_autofree char *maker_label = node_label (l->graph, l->g->node[maker - 1], maker - 1);

          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, l->path,
                             "node '%s' reads '%s' before node '%s' writes it: the nodes are not "
                             "in topological order, as ONNX requires", label, name, maker_label);
        }
      else
        mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, l->path,
                           "node '%s' reads '%s', which is no graph input, initializer or node "
                           "output", label, name);
      return FALSE;
    }
  return TRUE;
}

static const GArray *
shape_of (gpointer data, const char *name)
{
  return g_hash_table_lookup (((Loader *) data)->shapes, name);
}

static gboolean
add_node_outputs (Loader *l, gsize index, MpOp *op, const char *label, GError **error)
{
  const Onnx__NodeProto *node = l->g->node[index];
  g_autofree char       *who = g_strdup_printf (" (written by node '%s')", label);
  gboolean               view = !l->views_as_copies && op->n_inputs > 0 &&
                                is_view_op (str_or_empty (node->op_type));

  op->outputs = mp_graph_alloc_ids (l->graph, node->n_output);
  for (gsize k = 0; k < node->n_output; k++)
    {
      const char *name = node->output[k];
      MpTensor   *t;
      gint        id;

      if (name == NULL || *name == '\0') /* an optional output not wanted */
        continue;
      if (mp_graph_find_tensor (l->graph, name) >= 0)
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, l->path,
                             "node '%s' writes '%s', which is already a graph input, "
                             "initializer or another node's output", label, name);
          return FALSE;
        }
      if ((id = mp_graph_add_tensor (l->graph, name, error)) < 0)
        return FALSE;
      op->outputs[op->n_outputs++] = id;
      t = &l->graph->tensors[id];
      if (!size_from_value_info (l, t, who, error))
        return FALSE;
      /* what ONNX Runtime does: the output shares the input's buffer */
      if (view && k == 0 && l->graph->tensors[op->inputs[0]].size == t->size)
        t->view_of = op->inputs[0];
    }
  return mp_onnx_check_node (node, label, l->constants, shape_of, l, l->path, error);
}

static gboolean
add_nodes (Loader *l, GError **error)
{
  for (gsize i = 0; i < l->g->n_node; i++)
    {
      const Onnx__NodeProto *node = l->g->node[i];
      g_autofree char       *label = node_label (l->graph, node, i);
      gint                   o;

      if (!check_node_supported (l, node, label, error))
        return FALSE;
      if ((o = mp_graph_add_op (l->graph, label, error)) < 0)
        return FALSE;
      if (!add_node_inputs (l, i, &l->graph->ops[o], label, error) ||
          !add_node_outputs (l, i, &l->graph->ops[o], label, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
mark_outputs (Loader *l, GError **error)
{
  for (gsize i = 0; i < l->g->n_output; i++)
    {
      const char *name = str_or_empty (l->g->output[i]->name);
      gint        t = mp_graph_find_tensor (l->graph, name);

      if (t < 0)
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, l->path,
                             "graph output '%s' is written by no node and is no graph input or "
                             "initializer", name);
          return FALSE;
        }
      if (l->graph->tensors[t].kind == MP_TENSOR_ACTIVATION)
        l->graph->tensors[t].kind = MP_TENSOR_OUTPUT;
    }
  return TRUE;
}

static gboolean
all_utf8 (char *const *strings, gsize n)
{
  for (gsize i = 0; i < n; i++)
    if (strings[i] && !g_utf8_validate (strings[i], -1, NULL))
      return FALSE;
  return TRUE;
}

static gboolean
value_infos_utf8 (Onnx__ValueInfoProto *const *infos, gsize n)
{
  for (gsize i = 0; i < n; i++)
    if (!all_utf8 (&infos[i]->name, 1))
      return FALSE;
  return TRUE;
}

/* protobuf-c does not check that strings are UTF-8; memplan's names and
 * messages (and the JSON it writes) need them to be. */
static gboolean
check_utf8 (Loader *l, GError **error)
{
  const Onnx__GraphProto *g = l->g;
  const char             *bad = NULL;

  if (!all_utf8 (&g->name, 1))
    bad = "the graph";
  else if (!value_infos_utf8 (g->input, g->n_input) ||
      !value_infos_utf8 (g->output, g->n_output) ||
      !value_infos_utf8 (g->value_info, g->n_value_info))
    bad = "a graph input, output or value_info";
  for (gsize i = 0; i < g->n_initializer && !bad; i++)
    if (!all_utf8 (&g->initializer[i]->name, 1))
      bad = "an initializer";
  for (gsize i = 0; i < g->n_sparse_initializer && !bad; i++)
    if (g->sparse_initializer[i]->values && !all_utf8 (&g->sparse_initializer[i]->values->name, 1))
      bad = "a sparse initializer";
  for (gsize i = 0; i < g->n_node && !bad; i++)
    {
      const Onnx__NodeProto *node = g->node[i];

      if (!all_utf8 (&node->name, 1) || !all_utf8 (&node->op_type, 1) ||
          !all_utf8 (&node->domain, 1) || !all_utf8 (node->input, node->n_input) ||
          !all_utf8 (node->output, node->n_output))
        bad = "a node";
    }
  if (bad == NULL)
    return TRUE;
  mp_set_file_error (error, MP_ANALYSIS_ERROR_PARSE, l->path,
                     "not a valid ONNX model: the name of %s is not valid UTF-8", bad);
  return FALSE;
}

/* value_info, graph inputs and outputs: every type the model declares. */
static void
index_model (Loader *l)
{
  const Onnx__GraphProto *g = l->g;
  Onnx__ValueInfoProto  **lists[] = { g->value_info, g->input, g->output };
  gsize                   counts[] = { g->n_value_info, g->n_input, g->n_output };

  g_hash_table_remove_all (l->types);
  g_hash_table_remove_all (l->makers);
  g_hash_table_remove_all (l->functions);
  /* a graph output listed with no type does not hide its value_info */
  for (guint k = 0; k < G_N_ELEMENTS (lists); k++)
    for (gsize i = 0; i < counts[k]; i++)
      if (lists[k][i]->name && lists[k][i]->type &&
          (lists[k][i]->type->value_case != ONNX__TYPE_PROTO__VALUE__NOT_SET ||
           !g_hash_table_contains (l->types, lists[k][i]->name)))
        g_hash_table_insert (l->types, lists[k][i]->name, lists[k][i]->type);
  for (gsize i = g->n_node; i-- > 0;)
    for (gsize k = 0; k < g->node[i]->n_output; k++)
      if (g->node[i]->output[k])
        g_hash_table_insert (l->makers, g->node[i]->output[k], GSIZE_TO_POINTER (i + 1));
  for (gsize i = 0; i < l->model->n_functions; i++)
    g_hash_table_add (l->functions,
                      g_strdup_printf ("%s:%s", str_or_empty (l->model->functions[i]->domain),
                                       str_or_empty (l->model->functions[i]->name)));
}

/* Inference runs only where a graph input or node output lacks a full shape:
 * a model exported with value_info opens without it. */
static gboolean
needs_inference (Loader *l)
{
  const Onnx__GraphProto *g = l->g;

  for (gsize i = 0; i < g->n_input; i++)
    if (!type_is_complete (g_hash_table_lookup (l->types, str_or_empty (g->input[i]->name))))
      return TRUE;
  for (gsize i = 0; i < g->n_node; i++)
    for (gsize k = 0; k < g->node[i]->n_output; k++)
      if (g->node[i]->output[k] && *g->node[i]->output[k] &&
          !type_is_complete (g_hash_table_lookup (l->types, g->node[i]->output[k])))
        return TRUE;
  return FALSE;
}

static gboolean
unpack_model (Loader *l, const char *data, gsize length, gboolean first, GError **error)
{
  if (first && !mp_onnx_prescan (data, length, l->path, l->max_memory, error))
    return FALSE;
  if (l->model)
    onnx__model_proto__free_unpacked (l->model, &l->allocator.base);
  mp_onnx_allocator_init (&l->allocator);
  l->model = onnx__model_proto__unpack (&l->allocator.base, length, (const uint8_t *) data);
  if (l->model == NULL && l->allocator.failed)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_UNSUPPORTED, l->path,
                         "out of memory unpacking the ONNX model (%zu bytes)", length);
      return FALSE;
    }
  if (l->model == NULL)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_PARSE, l->path,
                         "not a valid ONNX model: the protobuf data is truncated or corrupt");
      return FALSE;
    }
  if ((l->g = l->model->graph) == NULL)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, l->path, "the ONNX model has no graph");
      return FALSE;
    }
  if (!check_utf8 (l, error))
    return FALSE;
  index_model (l);
  g_clear_pointer (&l->constants, g_hash_table_unref);
  l->constants = mp_onnx_index_constants (l->g);
  return TRUE;
}

static gboolean
infer_shapes (Loader *l, const char *data, gsize length, GError **error)
{
#ifdef MP_HAVE_ONNX_INFER
  g_autofree char   *message = NULL;
  g_autoptr (GBytes) inferred = mp_onnx_infer_shapes (data, length, &message);
  gconstpointer      filled;
  gsize              n;

  if (inferred == NULL)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, l->path,
                         "ONNX shape inference failed: %s", g_strchomp (message));
      return FALSE;
    }
  filled = g_bytes_get_data (inferred, &n);
  if (!unpack_model (l, filled, n, FALSE, error))
    return FALSE;
  l->inferred = TRUE;
#endif
  return TRUE;
}

/* Bound dimensions become numbers in the types the model gives, before
 * libonnx infers the rest: the Shape -> Gather -> Concat -> Reshape
 * computations of exported graphs then fold to numbers in its data
 * propagation, where symbols would leave them unknown. */
static void
bind_types (Loader *l, Onnx__ValueInfoProto *const *infos, gsize n)
{
  for (gsize i = 0; i < n; i++)
    {
      const Onnx__TensorShapeProto *shape = tensor_shape (infos[i]->type);

      for (gsize d = 0; shape && d < shape->n_dim; d++)
        {
          Onnx__TensorShapeProto__Dimension *dim = shape->dim[d];
          gint64                             value;

          if (dim->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM ||
              !mp_onnx_dim_value (dim->dim_param, l->bindings, &value))
            continue;
          l->allocator.base.free (l->allocator.base.allocator_data, dim->dim_param);
          dim->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
          dim->dim_value = value;
        }
    }
}

/* Inference, then folding (onnx-fold.c) of what inference left unknown,
 * its values handed back as initializers (a second graph field, which
 * protobuf merges into the first), until nothing more folds. */
#define MAX_FOLD_ROUNDS 32

static gboolean
infer_bound_shapes (Loader *l, GError **error)
{
  g_autoptr (GByteArray) model = g_byte_array_new ();
  g_autoptr (GByteArray) folded = g_byte_array_new ();
  gsize                  n;

  bind_types (l, l->g->input, l->g->n_input);
  bind_types (l, l->g->output, l->g->n_output);
  bind_types (l, l->g->value_info, l->g->n_value_info);
  n = onnx__model_proto__get_packed_size (l->model);
  g_byte_array_set_size (model, n);
  onnx__model_proto__pack (l->model, model->data);
  for (guint round = 0;; round++)
    {
      g_autoptr (GByteArray) input = g_byte_array_sized_new (n + folded->len + 16);
      guint8                 tag = 7 << 3 | 2;
      gsize                  length = folded->len;

      g_byte_array_append (input, model->data, n);
      if (length)
        {
          g_byte_array_append (input, &tag, 1);
          for (; length > 0x7f; length >>= 7)
            {
              guint8 byte = (length & 0x7f) | 0x80;

              g_byte_array_append (input, &byte, 1);
            }
          tag = length;
          g_byte_array_append (input, &tag, 1);
          g_byte_array_append (input, folded->data, folded->len);
        }
      if (!infer_shapes (l, (const char *) input->data, input->len, error))
        return FALSE;
      if (round == MAX_FOLD_ROUNDS ||
          mp_onnx_fold (l->g, l->types, l->constants, l->folded, folded) == 0)
        return TRUE;
    }
}

static void
loader_init (Loader *l, const char *path, const MpOnnxOptions *options)
{
  *l = (Loader) {
    .path = path,
    .views_as_copies = options && options->views_as_copies,
    .max_memory = options ? options->max_memory : 0,
    .lenient_dims = options && options->lenient_dims,
    .bindings = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free),
    .binding_names = g_ptr_array_new_with_free_func (g_free),
    .types = g_hash_table_new (g_str_hash, g_str_equal),
    .makers = g_hash_table_new (g_str_hash, g_str_equal),
    .functions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL),
    .shapes = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                     (GDestroyNotify) g_array_unref),
    .model_dims = g_ptr_array_new_with_free_func (g_free),
    .folded = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL),
    .model_dim_set = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL),
  };
}

static gboolean
check_sniff (const char *data, gsize length, const char *path, GError **error)
{
  if (mp_onnx_sniff (data, length))
    return TRUE;
  mp_set_file_error (error, MP_ANALYSIS_ERROR_PARSE, path,
                     "not an ONNX model (it does not start like a serialized ONNX ModelProto)");
  return FALSE;
}

static void
loader_clear (Loader *l)
{
  if (l->model)
    onnx__model_proto__free_unpacked (l->model, &l->allocator.base);
  g_hash_table_unref (l->bindings);
  g_ptr_array_unref (l->binding_names);
  g_hash_table_unref (l->types);
  g_hash_table_unref (l->makers);
  g_hash_table_unref (l->functions);
  g_hash_table_unref (l->shapes);
  g_clear_pointer (&l->constants, g_hash_table_unref);
  g_ptr_array_unref (l->model_dims);
  g_hash_table_unref (l->folded);
  g_hash_table_unref (l->model_dim_set);
}

static char *
graph_name (const Onnx__GraphProto *g, const char *path)
{
  g_autofree char *base = NULL;

  if (g->name && *g->name)
    return g_strdup (g->name);
  if (path == NULL)
    return g_strdup ("onnx");
  base = g_path_get_basename (path);
  if (g_str_has_suffix (base, ".onnx"))
    base[strlen (base) - strlen (".onnx")] = '\0';
  return g_steal_pointer (&base);
}

/* The symbolic dimensions of the types the model gives, each once, in file
 * order: what --dim may bind. */
static void
add_dim_names (Onnx__ValueInfoProto *const *infos, gsize n, GHashTable *seen, GPtrArray *names)
{
  for (gsize i = 0; i < n; i++)
    {
      const Onnx__TensorShapeProto *shape = tensor_shape (infos[i]->type);

      for (gsize d = 0; shape && d < shape->n_dim; d++)
        {
          const Onnx__TensorShapeProto__Dimension *dim = shape->dim[d];

          g_autoptr (GPtrArray) read = g_ptr_array_new_with_free_func (g_free);

          if (dim->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM ||
              dim->dim_param == NULL || *dim->dim_param == '\0')
            continue;
          mp_onnx_dim_names (dim->dim_param, read);
          for (guint k = 0; k < read->len; k++)
            if (!g_hash_table_contains (seen, read->pdata[k]))
              {
                g_hash_table_add (seen, g_strdup (read->pdata[k]));
                g_ptr_array_add (names, g_strdup (read->pdata[k]));
              }
        }
    }
}

static void
collect_model_dims (Loader *l)
{
  add_dim_names (l->g->input, l->g->n_input, l->model_dim_set, l->model_dims);
  add_dim_names (l->g->output, l->g->n_output, l->model_dim_set, l->model_dims);
  add_dim_names (l->g->value_info, l->g->n_value_info, l->model_dim_set, l->model_dims);
}

/* "'a'", "'a' and 'b'", "'a', 'b' and 'c'" */
static char *
quoted_list (GPtrArray *names)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < names->len; i++)
    g_string_append_printf (s, "%s'%s'", i == 0 ? "" : i + 1 == names->len ? " and " : ", ",
                            (const char *) names->pdata[i]);
  return g_string_free (s, FALSE);
}

/* --dim NAME=N as a shell takes it */
static void
append_dim_hint (GString *s, const char *name)
{
  g_autofree char *arg = g_strdup_printf ("%s=N", name);
  g_autofree char *quoted = g_shell_quote (arg);

  for (const char *p = name; *p; p++)
    if (!g_ascii_isalnum (*p) && !strchr ("_.-=", *p))
      {
        g_string_append_printf (s, "%s--dim %s", s->len ? " " : "", quoted);
        return;
      }
  g_string_append_printf (s, "%s--dim %s", s->len ? " " : "", arg);
}

/* --dim names only what the model has. */
static gboolean
check_binding_names (Loader *l, GError **error)
{
  g_autoptr (GPtrArray) unknown = g_ptr_array_new ();
  g_autofree char *list = NULL, *have = NULL;

  for (guint i = 0; i < l->binding_names->len; i++)
    if (!g_hash_table_contains (l->model_dim_set, l->binding_names->pdata[i]))
      g_ptr_array_add (unknown, l->binding_names->pdata[i]);
  if (unknown->len == 0 || l->lenient_dims)
    return TRUE;
  list = quoted_list (unknown);
  have = quoted_list (l->model_dims);
  mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, l->path,
                     "the model has no symbolic dimension %s to bind (--dim): %s%s",
                     list, l->model_dims->len ? "its dimensions are " : "it has none",
                     l->model_dims->len ? have : "");
  return FALSE;
}

/* Every symbolic dimension that a tensor to be sized needs and --dim did
 * not bind, in one error: one round trip binds them all. */
static void
find_unbound (Loader *l, const char *name, const char *who, GPtrArray *unbound,
              GHashTable *listed, char **first)
{
  const Onnx__TensorShapeProto *shape = tensor_shape (g_hash_table_lookup (l->types, name));

  for (gsize d = 0; shape && d < shape->n_dim; d++)
    {
      const Onnx__TensorShapeProto__Dimension *dim = shape->dim[d];
      g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
      gint64 value;

      if (dim->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM ||
          mp_onnx_dim_value (dim->dim_param, l->bindings, &value))
        continue;
      mp_onnx_dim_names (dim->dim_param, names);
      for (guint k = 0; k < names->len; k++)
        {
          const char *param = names->pdata[k];

          if (g_hash_table_contains (l->bindings, param) ||
              !g_hash_table_contains (l->model_dim_set, param) ||
              g_hash_table_contains (listed, param))
            continue;
          g_hash_table_add (listed, g_strdup (param));
          g_ptr_array_add (unbound, g_strdup (param));
          if (*first == NULL)
            *first = g_strdup_printf ("'%s'%s", name, who);
        }
    }
}

static gboolean
check_unbound (Loader *l, GError **error)
{
  const Onnx__GraphProto *g = l->g;
  g_autoptr (GPtrArray)   unbound = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GHashTable)  listed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GHashTable)  inits = g_hash_table_new (g_str_hash, g_str_equal);
  g_autofree char        *first = NULL, *list = NULL;
  g_autoptr (GString)     hint = g_string_new (NULL);

  for (gsize k = 0; k < g->n_initializer; k++)
    g_hash_table_add (inits, (gpointer) str_or_empty (g->initializer[k]->name));
  for (gsize i = 0; i < g->n_input; i++)
    if (!g_hash_table_contains (inits, str_or_empty (g->input[i]->name)))
      find_unbound (l, str_or_empty (g->input[i]->name), " (graph input)", unbound, listed,
                    &first);
  for (gsize i = 0; i < g->n_node; i++)
    for (gsize k = 0; k < g->node[i]->n_output; k++)
      if (g->node[i]->output[k] && *g->node[i]->output[k])
        {
          g_autofree char *label = mp_onnx_node_label (g->node[i], i);
          g_autofree char *who = g_strdup_printf (" (written by node '%s')", label);

          find_unbound (l, g->node[i]->output[k], who, unbound, listed, &first);
        }
  if (unbound->len == 0)
    return TRUE;
  list = quoted_list (unbound);
  for (guint i = 0; i < unbound->len; i++)
    append_dim_hint (hint, unbound->pdata[i]);
  mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, l->path,
                     "the symbolic dimension%s %s %s not bound to %s (%s): tensor %s is the "
                     "first that needs %s", unbound->len > 1 ? "s" : "", list,
                     unbound->len > 1 ? "are" : "is", unbound->len > 1 ? "values" : "a value",
                     hint->str, first, unbound->len > 1 ? "one" : "it");
  return FALSE;
}

MpGraph *
mp_onnx_parse (const char *data, gsize length, const char *path, const MpOnnxOptions *options,
               GError **error)
{
  Loader l;
  g_autoptr (MpGraph) graph = NULL;
  gboolean ok;

  g_return_val_if_fail (data != NULL || length == 0, NULL);

  if (!check_sniff (data, length, path, error))
    return NULL;
  loader_init (&l, path, options);
  ok = parse_bindings (&l, options ? options->dims : NULL, error) &&
       unpack_model (&l, data, length, TRUE, error) &&
       mp_onnx_check_model (l.model, path, error);
  if (ok)
    {
      collect_model_dims (&l);
      ok = check_binding_names (&l, error) &&
           (!needs_inference (&l) || infer_bound_shapes (&l, error)) &&
           check_unbound (&l, error);
    }
  if (ok)
    {
      graph = mp_graph_new (NULL);
      g_free (graph->name);
      graph->name = graph_name (l.g, path);
      graph->path = g_strdup (path);
      l.graph = graph;
      ok = add_graph_tensors (&l, error) && add_nodes (&l, error) && mark_outputs (&l, error) &&
           mp_graph_check (graph, error);
    }
  loader_clear (&l);
  return ok ? g_steal_pointer (&graph) : NULL;
}

MpGraph *
mp_onnx_load (const char *path, const MpOnnxOptions *options, GError **error)
{
  g_autofree char *contents = NULL;
  gsize            length = 0;

  g_return_val_if_fail (path != NULL, NULL);

  if (!mp_read_file (path, &contents, &length, error))
    return NULL;
  return mp_onnx_parse (contents, length, path, options, error);
}

char **
mp_onnx_symbolic_dims (const char *path, GError **error)
{
  g_autofree char *contents = NULL;
  gsize            length = 0;
  Loader           l;
  GPtrArray       *names = NULL;

  g_return_val_if_fail (path != NULL, NULL);

  if (!mp_read_file (path, &contents, &length, error) ||
      !check_sniff (contents, length, path, error))
    return NULL;
  loader_init (&l, path, NULL);
  /* the graph inputs' names: what the outputs' own names ("Reshapey_dim_0",
   * as TorchScript writes them) depend on, and inference computes */
  if (unpack_model (&l, contents, length, TRUE, error))
    {
      names = g_ptr_array_new_with_free_func (g_free);
      add_dim_names (l.g->input, l.g->n_input, l.model_dim_set, names);
      g_ptr_array_set_free_func (names, NULL);
      g_ptr_array_add (names, NULL);
    }
  loader_clear (&l);
  return names ? (char **) g_ptr_array_free (names, FALSE) : NULL;
}
