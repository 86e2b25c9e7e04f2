/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <errno.h>
#include <string.h>
#include <json-c/json.h>

#include "graph-private.h"
#include "json-util.h"

#define GRAPH_FORMAT "memplan.graph/1"

static gboolean
parse_tensor (MpGraph *graph, json_object *obj, guint index, GHashTable *views, GError **error)
{
  const char  *path = graph->path;
  json_object *name_obj, *v;
  const char  *name;
  MpTensor    *t;
  gint         id;
  gboolean     has_size = FALSE;

  if (!json_object_is_type (obj, json_type_object))
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                         "tensor #%u is not an object", index);
      return FALSE;
    }
  if (!json_object_object_get_ex (obj, "name", &name_obj) ||
      !json_object_is_type (name_obj, json_type_string) ||
      json_object_get_string_len (name_obj) == 0)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                         "tensor #%u has no \"name\"", index);
      return FALSE;
    }
  name = json_object_get_string (name_obj);
  if ((id = mp_graph_add_tensor (graph, name, error)) < 0)
    return FALSE;
  t = &graph->tensors[id];

  if (json_object_object_get_ex (obj, "kind", &v))
    {
      if (!json_object_is_type (v, json_type_string) ||
          !mp_tensor_kind_from_string (json_object_get_string (v), &t->kind))
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                             "tensor '%s': unknown kind '%s' (known: activation, input, param, "
                             "output)",
                             name, json_object_get_string (v));
          return FALSE;
        }
    }

  if (json_object_object_get_ex (obj, "dtype", &v))
    {
      if (!json_object_is_type (v, json_type_string) ||
          !mp_dtype_from_string (json_object_get_string (v), &t->dtype))
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                             "tensor '%s': unknown dtype '%s' (known: f64, f32, f16, bf16, f8, "
                             "i64, i32, i16, i8, u8, bool)",
                             name, json_object_get_string (v));
          return FALSE;
        }
    }

  if (json_object_object_get_ex (obj, "shape", &v))
    {
      guint64 elems = 1;
      gsize   n;

      if (!json_object_is_type (v, json_type_array) ||
          (n = json_object_array_length (v)) > 64)
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                             "tensor '%s': \"shape\" must be a list of at most 64 dimensions",
                             name);
          return FALSE;
        }
      t->n_dims = n;
      t->shape = n ? g_new (gint64, n) : NULL;
      for (gsize d = 0; d < n; d++)
        {
          guint64 dim;

          if (!mp_json_get_u64 (json_object_array_get_idx (v, d), &dim) || dim > G_MAXINT64)
            {
              mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                                 "tensor '%s': shape dimension %" G_GSIZE_FORMAT
                                 " is not a non-negative integer",
                                 name, d);
              return FALSE;
            }
          t->shape[d] = dim;
          if (!g_uint64_checked_mul (&elems, elems, dim))
            {
              mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                                 "tensor '%s': the product of the shape overflows 64 bits", name);
              return FALSE;
            }
        }
      if (t->dtype == MP_DTYPE_NONE)
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                             "tensor '%s' has a \"shape\" but no \"dtype\"", name);
          return FALSE;
        }
      if (!g_uint64_checked_mul (&t->size, elems, mp_dtype_size (t->dtype)))
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                             "tensor '%s': the size of the shape in bytes overflows 64 bits",
                             name);
          return FALSE;
        }
      has_size = TRUE;
    }

  if (json_object_object_get_ex (obj, "size", &v))
    {
      guint64 size;

      if (json_object_is_type (v, json_type_int) && json_object_get_int64 (v) == G_MAXINT64)
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                             "tensor '%s': \"size\" is too large (it overflows 64 bits)", name);
          return FALSE;
        }
      if (!mp_json_get_u64 (v, &size))
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                             "tensor '%s': \"size\" must be a positive integer number of bytes, "
                             "got %s",
                             name, json_object_to_json_string (v));
          return FALSE;
        }
      if (has_size && size != t->size)
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                             "tensor '%s': \"size\" %" G_GUINT64_FORMAT
                             " disagrees with its dtype and shape (%" G_GUINT64_FORMAT " bytes)",
                             name, size, t->size);
          return FALSE;
        }
      t->size = size;
      has_size = TRUE;
    }

  if (json_object_object_get_ex (obj, "view_of", &v))
    {
      json_object *off;

      if (!json_object_is_type (v, json_type_string))
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                             "tensor '%s': \"view_of\" must be a tensor name", name);
          return FALSE;
        }
      /* Resolved once all tensors are known: a view may name a later tensor. */
      g_hash_table_insert (views, GINT_TO_POINTER (id), (gpointer) json_object_get_string (v));
      if (json_object_object_get_ex (obj, "offset", &off) &&
          (!mp_json_get_u64 (off, &t->view_offset) || t->view_offset > MP_MAX_TENSOR_SIZE))
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                             "tensor '%s': view \"offset\" must be a non-negative integer", name);
          return FALSE;
        }
      /* A view without a size covers the rest of its base: filled in later. */
      if (!has_size)
        t->size = G_MAXUINT64;
      return TRUE;
    }

  if (!has_size)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                         "tensor '%s' has neither \"size\" nor \"dtype\" and \"shape\"", name);
      return FALSE;
    }
  if (t->size == 0)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                         "tensor '%s': size is 0 bytes; a tensor must have a positive size",
                         name);
      return FALSE;
    }
  if (t->size > MP_MAX_TENSOR_SIZE)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                         "tensor '%s': size %" G_GUINT64_FORMAT
                         " bytes is over the limit of 2^48 bytes (256 TiB)",
                         name, t->size);
      return FALSE;
    }
  return TRUE;
}

static gboolean
resolve_views (MpGraph *graph, GHashTable *views, GError **error)
{
  GHashTableIter iter;
  gpointer       key, value;

  g_hash_table_iter_init (&iter, views);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      MpTensor *t = &graph->tensors[GPOINTER_TO_INT (key)];
      gint      base = mp_graph_find_tensor (graph, value);

      if (base < 0)
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, graph->path,
                             "tensor '%s' is a view of unknown tensor '%s'", t->name,
                             (const char *) value);
          return FALSE;
        }
      t->view_of = base;
    }
  return TRUE;
}

static gboolean
parse_name_list (MpGraph    *graph,
                 const char *op,
                 json_object *list,
                 const char *key,
                 guint     **ids,
                 guint      *n_ids,
                 GError    **error)
{
  gsize n;

  if (list == NULL)
    return TRUE;
  if (!json_object_is_type (list, json_type_array))
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, graph->path,
                         "op '%s': \"%s\" must be a list of tensor names", op, key);
      return FALSE;
    }
  n = json_object_array_length (list);
  *ids = g_new (guint, MAX (n, 1));
  *n_ids = n;
  for (gsize i = 0; i < n; i++)
    {
      json_object *item = json_object_array_get_idx (list, i);
      gint         id;

      if (!json_object_is_type (item, json_type_string))
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, graph->path,
                             "op '%s': \"%s\" must be a list of tensor names", op, key);
          return FALSE;
        }
      id = mp_graph_find_tensor (graph, json_object_get_string (item));
      if (id < 0)
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, graph->path,
                             "op '%s' %s unknown tensor '%s'", op,
                             g_str_equal (key, "inputs") ? "reads" : "writes",
                             json_object_get_string (item));
          return FALSE;
        }
      (*ids)[i] = id;
    }
  return TRUE;
}

static gboolean
parse_op (MpGraph *graph, json_object *obj, guint index, GError **error)
{
  json_object *name_obj, *v;
  const char  *name;
  MpOp        *op;
  gint         id;

  if (!json_object_is_type (obj, json_type_object) ||
      !json_object_object_get_ex (obj, "name", &name_obj) ||
      !json_object_is_type (name_obj, json_type_string) ||
      json_object_get_string_len (name_obj) == 0)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, graph->path,
                         "op #%u has no \"name\"", index);
      return FALSE;
    }
  name = json_object_get_string (name_obj);
  if ((id = mp_graph_add_op (graph, name, error)) < 0)
    return FALSE;
  op = &graph->ops[id];

  if (!parse_name_list (graph, name, json_object_object_get (obj, "inputs"), "inputs",
                        &op->inputs, &op->n_inputs, error) ||
      !parse_name_list (graph, name, json_object_object_get (obj, "outputs"), "outputs",
                        &op->outputs, &op->n_outputs, error))
    return FALSE;

  if (json_object_object_get_ex (obj, "stream", &v))
    {
      guint64 stream;

      if (!mp_json_get_u64 (v, &stream) || stream > 1023)
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, graph->path,
                             "op '%s': \"stream\" must be an integer from 0 to 1023", name);
          return FALSE;
        }
      op->stream = stream;
    }
  if (json_object_object_get_ex (obj, "workspace", &v) &&
      (!mp_json_get_u64 (v, &op->workspace) || op->workspace > MP_MAX_TENSOR_SIZE))
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, graph->path,
                         "op '%s': \"workspace\" must be a non-negative integer number of bytes",
                         name);
      return FALSE;
    }
  return TRUE;
}

MpGraph *
mp_graph_parse_json (const char *data, gsize length, const char *path, GError **error)
{
  g_autoptr (MpGraph) graph = NULL;
  g_autoptr (GHashTable) views = NULL;
  json_object *root, *v, *tensors, *ops;
  g_autofree char *base = NULL;

  if (!(root = mp_json_parse (data, length, path, error)))
    return NULL;

  if (!json_object_is_type (root, json_type_object))
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_FORMAT, path,
                         "expected a JSON object with \"format\": \"" GRAPH_FORMAT "\"");
      json_object_put (root);
      return NULL;
    }
  if (!json_object_object_get_ex (root, "format", &v) ||
      !json_object_is_type (v, json_type_string))
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_FORMAT, path,
                         "missing \"format\": \"" GRAPH_FORMAT "\"");
      json_object_put (root);
      return NULL;
    }
  if (!g_str_equal (json_object_get_string (v), GRAPH_FORMAT))
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_FORMAT, path,
                         "\"format\" is '%s', expected '" GRAPH_FORMAT "'",
                         json_object_get_string (v));
      json_object_put (root);
      return NULL;
    }

  base = path ? g_path_get_basename (path) : g_strdup ("graph");
  if (strchr (base, '.'))
    *strrchr (base, '.') = '\0';
  v = json_object_object_get (root, "name");
  graph = mp_graph_new (v && json_object_is_type (v, json_type_string)
                          ? json_object_get_string (v) : base);
  graph->path = g_strdup (path);
  views = g_hash_table_new (NULL, NULL);

  if (json_object_object_get_ex (root, "alignment", &v) &&
      (!mp_json_get_u64 (v, &graph->alignment) || graph->alignment == 0 ||
       (graph->alignment & (graph->alignment - 1)) != 0 || graph->alignment > (1u << 30)))
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                         "\"alignment\" must be a power of two from 1 to 2^30, got %s",
                         json_object_to_json_string (v));
      json_object_put (root);
      return NULL;
    }

  tensors = json_object_object_get (root, "tensors");
  ops = json_object_object_get (root, "ops");
  if ((tensors && !json_object_is_type (tensors, json_type_array)) ||
      (ops && !json_object_is_type (ops, json_type_array)))
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                         "\"tensors\" and \"ops\" must be lists");
      json_object_put (root);
      return NULL;
    }

  for (gsize i = 0; tensors && i < json_object_array_length (tensors); i++)
    if (!parse_tensor (graph, json_object_array_get_idx (tensors, i), i, views, error))
      {
        json_object_put (root);
        return NULL;
      }
  if (!resolve_views (graph, views, error))
    {
      json_object_put (root);
      return NULL;
    }
  for (gsize i = 0; ops && i < json_object_array_length (ops); i++)
    if (!parse_op (graph, json_object_array_get_idx (ops, i), i, error))
      {
        json_object_put (root);
        return NULL;
      }
  json_object_put (root);

  if (!mp_graph_check (graph, error))
    return NULL;
  return g_steal_pointer (&graph);
}

MpGraph *
mp_graph_load_json (const char *path, GError **error)
{
  g_autofree char *data = NULL;
  gsize            length;

  if (!mp_read_file (path, &data, &length, error))
    return NULL;
  return mp_graph_parse_json (data, length, path, error);
}
