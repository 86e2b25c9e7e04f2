/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <string.h>

#include "graph-json-gaps.h"
#include "graph-json-memories.h"
#include "graph-private.h"
#include "json-reader.h"

/* The graph file is read with a pull reader (json-reader.h): a graph of a
 * million tensors as a json-c tree takes gigabytes. Keys may come in any
 * order; tensors are read before ops whatever the file's order, since ops
 * refer to tensors by name. */

#define GRAPH_FORMAT "memplan.graph/1"

/* A non-negative integer too large for 63 bits, as opposed to any other
 * non-integer (the two get different messages). */
static gboolean
raw_is_digits (MpJsonReader *r)
{
  if (r->raw_len == 0)
    return FALSE;
  for (gsize i = 0; i < r->raw_len; i++)
    if (!g_ascii_isdigit (r->raw[i]))
      return FALSE;
  return TRUE;
}

static const char *const top_keys[] = { "format", "name", "description", "alignment", "memories",
                                        "tensors", "ops", NULL };
static const char *const tensor_keys[] = { "name", "kind", "dtype", "shape", "size", "view_of",
                                           "offset", "alignment", "fixed_offset",
                                           "preferred_offset", "gaps", "memory", NULL };

/* A tensor's placement constraints, in the order of Constraint. */
static const char *const constraint_keys[] = { "alignment", "fixed_offset", "preferred_offset" };

enum
{
  CONSTRAINT_ALIGNMENT,
  CONSTRAINT_FIXED,
  CONSTRAINT_PREFERRED,
  N_CONSTRAINTS
};
static const char *const op_keys[] = { "name", "inputs", "outputs", "stream", "workspace", NULL };

/* Edit distance, for "did you mean": keys are short, so the table is tiny. */
static guint
edit_distance (const char *a, const char *b)
{
  guint la = strlen (a), lb = strlen (b);
  guint row[32];

  if (la >= G_N_ELEMENTS (row) || lb >= G_N_ELEMENTS (row))
    return G_MAXUINT;
  for (guint j = 0; j <= lb; j++)
    row[j] = j;
  for (guint i = 1; i <= la; i++)
    {
      guint diag = row[0];

      row[0] = i;
      for (guint j = 1; j <= lb; j++)
        {
          guint up = row[j];

          row[j] = MIN (MIN (row[j] + 1, row[j - 1] + 1),
                        diag + (g_ascii_tolower (a[i - 1]) != g_ascii_tolower (b[j - 1])));
          diag = up;
        }
    }
  return row[lb];
}

/* Users' own annotations start with "x-": kept out of the way, not refused. */
static gboolean
is_extension_key (const char *key)
{
  return g_str_has_prefix (key, "x-");
}

/* Remembers the first key that is neither known nor an extension. */
static void
note_unknown_key (GString *bad, const char *key)
{
  if (bad->len == 0 && !is_extension_key (key))
    g_string_assign (bad, key);
}

/* where: "ops[3]: " or "" for the top level. */
static void
set_unknown_key_error (GError **error, const char *path, const char *where, const char *key,
                       const char *const *known)
{
  const char *best = NULL;
  guint       best_distance = 3; /* at most two edits away */
  g_autofree char *list = g_strjoinv (", ", (char **) known);

  for (guint i = 0; known[i]; i++)
    {
      guint d = edit_distance (key, known[i]);

      if (d < best_distance)
        {
          best_distance = d;
          best = known[i];
        }
    }
  if (best)
    mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                       "%sunknown key \"%s\" (did you mean \"%s\"?)", where, key, best);
  else
    mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                       "%sunknown key \"%s\" (known: %s; your own keys start with \"x-\")",
                       where, key, list);
}

/* A view whose base is named before all tensors are known. */
typedef struct
{
  gint  tensor;
  char *base;
} PendingView;

static void
pending_view_clear (gpointer data)
{
  g_free (((PendingView *) data)->base);
}

typedef struct
{
  GString *name;
  GString *kind;
  GString *dtype;
  GString *view_of;
  GString *memory;
  GArray  *shape;      /* guint64 */
  gboolean has_name, has_kind, has_dtype, has_view_of, has_shape, has_size, has_offset;
  gboolean has_memory;
  gboolean shape_ok, size_ok, offset_ok, size_too_large;
  guint64  size, offset;
  char    *size_text;
  GString *bad_key;    /* first unknown key, or empty */
  gboolean has_constraint[N_CONSTRAINTS], constraint_ok[N_CONSTRAINTS];
  guint64  constraint[N_CONSTRAINTS];
  char    *constraint_text[N_CONSTRAINTS];
  GArray  *gaps;       /* MpGap */
  gboolean has_gaps;
  char    *gaps_problem;
} TensorFields;

static void
tensor_fields_reset (TensorFields *f)
{
  g_string_truncate (f->name, 0);
  g_array_set_size (f->shape, 0);
  f->has_name = f->has_kind = f->has_dtype = f->has_view_of = f->has_shape = FALSE;
  f->has_size = f->has_offset = f->has_memory = FALSE;
  f->shape_ok = f->size_ok = f->offset_ok = TRUE;
  f->size_too_large = FALSE;
  g_clear_pointer (&f->size_text, g_free);
  g_string_truncate (f->bad_key, 0);
  f->has_gaps = FALSE;
  g_clear_pointer (&f->gaps_problem, g_free);
  for (guint c = 0; c < N_CONSTRAINTS; c++)
    {
      f->has_constraint[c] = FALSE;
      g_clear_pointer (&f->constraint_text[c], g_free);
    }
}

/* Reads a constraint key's value; FALSE only on a syntax error. */
static gboolean
read_constraint (MpJsonReader *r, TensorFields *f, const char *key, gboolean *matched)
{
  for (guint c = 0; c < N_CONSTRAINTS; c++)
    if (g_str_equal (key, constraint_keys[c]))
      {
        *matched = TRUE;
        f->has_constraint[c] = TRUE;
        if (!mp_json_reader_u64 (r, &f->constraint[c], &f->constraint_ok[c]))
          return FALSE;
        g_free (f->constraint_text[c]);
        f->constraint_text[c] = mp_json_reader_describe (r);
        return TRUE;
      }
  *matched = FALSE;
  return TRUE;
}

/* The constraints onto t: an alignment by the one rule, offsets up to
 * MP_MAX_FIXED_OFFSET; a view has its base's place. */
static gboolean
build_constraints (MpGraph *graph, MpTensor *t, const TensorFields *f, GError **error)
{
  for (guint c = 0; c < N_CONSTRAINTS; c++)
    {
      if (!f->has_constraint[c])
        continue;
      if (f->has_view_of)
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, graph->path,
                             "tensor '%s': a view takes its place from its base and cannot have "
                             "\"%s\"", t->name, constraint_keys[c]);
          return FALSE;
        }
      if (c == CONSTRAINT_ALIGNMENT && !(f->constraint_ok[c] && mp_alignment_valid (f->constraint[c])))
        {
          g_autofree char *what = g_strdup_printf ("tensor '%s': \"alignment\"", t->name);
          g_autofree char *message = mp_alignment_message (what, f->constraint_text[c]);

          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, graph->path, "%s", message);
          return FALSE;
        }
      if (c != CONSTRAINT_ALIGNMENT &&
          !(f->constraint_ok[c] && f->constraint[c] <= MP_MAX_FIXED_OFFSET))
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, graph->path,
                             "tensor '%s': \"%s\" must be an offset from 0 to 2^48 bytes, got %s",
                             t->name, constraint_keys[c], f->constraint_text[c]);
          return FALSE;
        }
    }
  t->alignment = f->has_constraint[CONSTRAINT_ALIGNMENT] ? f->constraint[CONSTRAINT_ALIGNMENT] : 0;
  t->has_fixed = f->has_constraint[CONSTRAINT_FIXED];
  t->fixed_offset = t->has_fixed ? f->constraint[CONSTRAINT_FIXED] : 0;
  t->has_preferred = f->has_constraint[CONSTRAINT_PREFERRED];
  t->preferred_offset = t->has_preferred ? f->constraint[CONSTRAINT_PREFERRED] : 0;
  return TRUE;
}

/* Reads one tensor object's members; FALSE only on a syntax error. */
static gboolean
read_tensor_fields (MpJsonReader *r, TensorFields *f)
{
  if (!mp_json_reader_begin_object (r))
    return FALSE;
  while (mp_json_reader_next_member (r))
    {
      const char *key = r->text->str;

#define STRING_FIELD(k, buf, flag)                                                                 \
  if (g_str_equal (key, k))                                                                        \
    {                                                                                              \
      if (mp_json_reader_peek (r) == MP_JSON_STRING)                                               \
        {                                                                                          \
          if (!mp_json_reader_string (r))                                                          \
            return FALSE;                                                                          \
          g_string_assign (buf, r->text->str);                                                     \
          flag = TRUE;                                                                             \
        }                                                                                          \
      else                                                                                         \
        {                                                                                          \
          if (!mp_json_reader_skip (r))                                                            \
            return FALSE;                                                                          \
          g_autofree char *d = mp_json_reader_describe (r);                                        \
          g_string_assign (buf, d);                                                                \
          flag = 2;                                                                                \
        }                                                                                          \
      continue;                                                                                    \
    }

      STRING_FIELD ("name", f->name, f->has_name)
      STRING_FIELD ("kind", f->kind, f->has_kind)
      STRING_FIELD ("dtype", f->dtype, f->has_dtype)
      STRING_FIELD ("view_of", f->view_of, f->has_view_of)
      STRING_FIELD ("memory", f->memory, f->has_memory)
#undef STRING_FIELD
      if (g_str_equal (key, "size"))
        {
          f->has_size = TRUE;
          if (!mp_json_reader_u64 (r, &f->size, &f->size_ok))
            return FALSE;
          f->size_too_large = !f->size_ok && raw_is_digits (r);
          g_free (f->size_text);
          f->size_text = mp_json_reader_describe (r);
        }
      else if (g_str_equal (key, "offset"))
        {
          f->has_offset = TRUE;
          if (!mp_json_reader_u64 (r, &f->offset, &f->offset_ok))
            return FALSE;
        }
      else if (g_str_equal (key, "shape"))
        {
          f->has_shape = TRUE;
          g_array_set_size (f->shape, 0);
          if (mp_json_reader_peek (r) != MP_JSON_ARRAY)
            {
              f->shape_ok = FALSE;
              if (!mp_json_reader_skip (r))
                return FALSE;
              continue;
            }
          if (!mp_json_reader_begin_array (r))
            return FALSE;
          while (mp_json_reader_next_element (r))
            {
              guint64  dim = 0;
              gboolean ok;

              if (!mp_json_reader_u64 (r, &dim, &ok))
                return FALSE;
              if (!ok)
                dim = G_MAXUINT64; /* reported by index below */
              g_array_append_val (f->shape, dim);
            }
          if (r->error)
            return FALSE;
        }
      else if (g_str_equal (key, "gaps"))
        {
          f->has_gaps = TRUE;
          if (!mp_graph_json_read_gaps (r, f->gaps, &f->gaps_problem))
            return FALSE;
        }
      else
        {
          gboolean matched;

          if (!read_constraint (r, f, key, &matched))
            return FALSE;
          if (matched)
            continue;
          note_unknown_key (f->bad_key, key);
          if (!mp_json_reader_skip (r))
            return FALSE;
        }
    }
  return r->error == NULL;
}

static gboolean
build_tensor (MpGraph *graph, TensorFields *f, guint index, GArray *views, GError **error)
{
  const char *path = graph->path;
  const char *name;
  MpTensor   *t;
  gint        id;
  gboolean    has_size = FALSE;

  if (f->has_name != TRUE || f->name->len == 0)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path, "tensor #%u has no \"name\"",
                         index);
      return FALSE;
    }
  if ((id = mp_graph_add_tensor (graph, f->name->str, error)) < 0)
    return FALSE;
  t = &graph->tensors[id];
  name = t->name;
  if (!build_constraints (graph, t, f, error))
    return FALSE;
  if (f->has_memory && (f->has_view_of || f->has_memory != TRUE))
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                         f->has_view_of ? "tensor '%s': a view lives in its base's memory and "
                                          "cannot have \"memory\""
                                        : "tensor '%s': \"memory\" must be a memory's name",
                         name);
      return FALSE;
    }
  if (f->has_memory && !mp_graph_json_tensor_memory (graph, t, f->memory->str, error))
    return FALSE;

  if (f->has_kind && (f->has_kind != TRUE || !mp_tensor_kind_from_string (f->kind->str, &t->kind)))
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                         "tensor '%s': unknown kind '%s' (known: activation, input, param, output)",
                         name, f->kind->str);
      return FALSE;
    }
  if (f->has_dtype && (f->has_dtype != TRUE || !mp_dtype_from_string (f->dtype->str, &t->dtype)))
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                         "tensor '%s': unknown dtype '%s' (known: f64, f32, f16, bf16, f8, i64, "
                         "i32, i16, i8, u8, bool)",
                         name, f->dtype->str);
      return FALSE;
    }

  if (f->has_shape)
    {
      guint64 elems = 1;

      if (!f->shape_ok || f->shape->len > 64)
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                             "tensor '%s': \"shape\" must be a list of at most 64 dimensions",
                             name);
          return FALSE;
        }
      t->n_dims = f->shape->len;
      t->shape = t->n_dims ? g_new (gint64, t->n_dims) : NULL;
      for (guint d = 0; d < t->n_dims; d++)
        {
          guint64 dim = g_array_index (f->shape, guint64, d);

          if (dim == G_MAXUINT64)
            {
              mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                                 "tensor '%s': shape dimension %u is not a non-negative integer",
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

  if (f->has_size)
    {
      if (f->size_too_large)
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                             "tensor '%s': \"size\" is too large (it overflows 64 bits)", name);
          return FALSE;
        }
      if (!f->size_ok)
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                             "tensor '%s': \"size\" must be a positive integer number of bytes, "
                             "got %s",
                             name, f->size_text);
          return FALSE;
        }
      if (has_size && f->size != t->size)
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                             "tensor '%s': \"size\" %" G_GUINT64_FORMAT
                             " disagrees with its dtype and shape (%" G_GUINT64_FORMAT " bytes)",
                             name, f->size, t->size);
          return FALSE;
        }
      t->size = f->size;
      has_size = TRUE;
    }

  if (f->has_view_of)
    {
      if (f->has_view_of != TRUE)
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                             "tensor '%s': \"view_of\" must be a tensor name", name);
          return FALSE;
        }
      if (f->has_offset && (!f->offset_ok || f->offset > MP_MAX_TENSOR_SIZE))
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                             "tensor '%s': view \"offset\" must be a non-negative integer", name);
          return FALSE;
        }
      if (f->has_gaps)
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                             "tensor '%s': a view lives as long as its base and cannot have "
                             "\"gaps\"", name);
          return FALSE;
        }
      t->view_offset = f->has_offset ? f->offset : 0;
      /* resolved once all tensors are known: a view may name a later tensor */
      {
        PendingView v = { id, g_strdup (f->view_of->str) };
        g_array_append_val (views, v);
      }
      /* a view without a size covers the rest of its base: mp_graph_check */
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
  return !f->has_gaps || mp_graph_json_add_gaps (graph, t, f->gaps, f->gaps_problem, error);
}

/* Views in file order, so the first bad view in the file is the one reported. */
static gboolean
resolve_views (MpGraph *graph, GArray *views, GError **error)
{
  for (guint i = 0; i < views->len; i++)
    {
      const PendingView *v = &g_array_index (views, PendingView, i);
      MpTensor          *t = &graph->tensors[v->tensor];
      const char        *name = v->base;
      gint        base = mp_graph_find_tensor (graph, name);

      if (base < 0)
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, graph->path,
                             "tensor '%s' is a view of unknown tensor '%s'", t->name, name);
          return FALSE;
        }
      t->view_of = base;
    }
  return TRUE;
}

typedef struct
{
  GString *name;
  GArray  *inputs;     /* guint */
  GArray  *outputs;    /* guint */
  gboolean has_name;
  gboolean inputs_ok, outputs_ok;
  char    *unknown;     /* first tensor name that does not exist */
  gboolean unknown_is_input;
  gboolean has_stream, stream_ok, has_workspace, workspace_ok;
  guint64  stream, workspace;
  GString *bad_key;    /* first unknown key, or empty */
} OpFields;

static void
op_fields_reset (OpFields *f)
{
  g_string_truncate (f->name, 0);
  g_array_set_size (f->inputs, 0);
  g_array_set_size (f->outputs, 0);
  f->has_name = FALSE;
  f->inputs_ok = f->outputs_ok = TRUE;
  g_clear_pointer (&f->unknown, g_free);
  f->has_stream = f->has_workspace = FALSE;
  f->stream_ok = f->workspace_ok = TRUE;
  g_string_truncate (f->bad_key, 0);
}

static gboolean
read_name_list (MpJsonReader *r, const MpGraph *graph, OpFields *f, gboolean inputs)
{
  GArray *ids = inputs ? f->inputs : f->outputs;

  if (mp_json_reader_peek (r) != MP_JSON_ARRAY)
    {
      *(inputs ? &f->inputs_ok : &f->outputs_ok) = FALSE;
      return mp_json_reader_skip (r);
    }
  if (!mp_json_reader_begin_array (r))
    return FALSE;
  while (mp_json_reader_next_element (r))
    {
      gint id;

      if (mp_json_reader_peek (r) != MP_JSON_STRING)
        {
          *(inputs ? &f->inputs_ok : &f->outputs_ok) = FALSE;
          if (!mp_json_reader_skip (r))
            return FALSE;
          continue;
        }
      if (!mp_json_reader_string (r))
        return FALSE;
      id = mp_graph_find_tensor (graph, r->text->str);
      if (id < 0 && f->unknown == NULL)
        {
          f->unknown = g_strdup (r->text->str);
          f->unknown_is_input = inputs;
        }
      g_array_append_val (ids, id);
    }
  return r->error == NULL;
}

static gboolean
read_op_fields (MpJsonReader *r, const MpGraph *graph, OpFields *f)
{
  if (!mp_json_reader_begin_object (r))
    return FALSE;
  while (mp_json_reader_next_member (r))
    {
      const char *key = r->text->str;

      if (g_str_equal (key, "name"))
        {
          if (mp_json_reader_peek (r) != MP_JSON_STRING)
            {
              if (!mp_json_reader_skip (r))
                return FALSE;
              continue;
            }
          if (!mp_json_reader_string (r))
            return FALSE;
          g_string_assign (f->name, r->text->str);
          f->has_name = TRUE;
        }
      else if (g_str_equal (key, "inputs") || g_str_equal (key, "outputs"))
        {
          if (!read_name_list (r, graph, f, key[0] == 'i'))
            return FALSE;
        }
      else if (g_str_equal (key, "stream"))
        {
          f->has_stream = TRUE;
          if (!mp_json_reader_u64 (r, &f->stream, &f->stream_ok))
            return FALSE;
        }
      else if (g_str_equal (key, "workspace"))
        {
          f->has_workspace = TRUE;
          if (!mp_json_reader_u64 (r, &f->workspace, &f->workspace_ok))
            return FALSE;
        }
      else
        {
          note_unknown_key (f->bad_key, key);
          if (!mp_json_reader_skip (r))
            return FALSE;
        }
    }
  return r->error == NULL;
}

static gboolean
build_op (MpGraph *graph, OpFields *f, guint index, GError **error)
{
  const char *path = graph->path;
  MpOp       *op;
  gint        id;

  if (!f->has_name || f->name->len == 0)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path, "op #%u has no \"name\"", index);
      return FALSE;
    }
  if ((id = mp_graph_add_op (graph, f->name->str, error)) < 0)
    return FALSE;
  op = &graph->ops[id];
  if (!f->inputs_ok || !f->outputs_ok)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                         "op '%s': \"%s\" must be a list of tensor names", op->name,
                         f->inputs_ok ? "outputs" : "inputs");
      return FALSE;
    }
  if (f->unknown)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path, "op '%s' %s unknown tensor '%s'",
                         op->name, f->unknown_is_input ? "reads" : "writes", f->unknown);
      return FALSE;
    }
  if (f->has_stream && (!f->stream_ok || f->stream >= MP_MAX_STREAMS))
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                         "op '%s': \"stream\" must be an integer from 0 to %d", op->name,
                         MP_MAX_STREAMS - 1);
      return FALSE;
    }
  if (f->has_workspace && (!f->workspace_ok || f->workspace > MP_MAX_TENSOR_SIZE))
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                         "op '%s': \"workspace\" must be a non-negative integer number of bytes",
                         op->name);
      return FALSE;
    }
  op->stream = f->has_stream ? f->stream : 0;
  op->workspace = f->has_workspace ? f->workspace : 0;
  op->n_inputs = f->inputs->len;
  op->inputs = mp_graph_alloc_ids (graph, op->n_inputs);
  op->n_outputs = f->outputs->len;
  op->outputs = mp_graph_alloc_ids (graph, op->n_outputs);
  /* an empty GArray may have no data: memcpy from NULL is undefined */
  if (op->n_inputs)
    memcpy (op->inputs, f->inputs->data, sizeof (guint) * op->n_inputs);
  if (op->n_outputs)
    memcpy (op->outputs, f->outputs->data, sizeof (guint) * op->n_outputs);
  return TRUE;
}

/* Where each top-level member's value starts, (gsize) -1 when absent. */
typedef struct
{
  gsize format, name, alignment, memories, tensors, ops;
} Layout;

static gboolean
scan_layout (MpJsonReader *r, Layout *layout, GString *bad_key, GError **error)
{
  memset (layout, 0xff, sizeof *layout);
  if (mp_json_reader_peek (r) != MP_JSON_OBJECT)
    {
      if (r->p < r->end && (*r->p == '[' || *r->p == '"' || *r->p == '-' ||
                            g_ascii_isdigit (*r->p)))
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_FORMAT, r->path,
                             "expected a JSON object with \"format\": \"" GRAPH_FORMAT "\"");
          return FALSE;
        }
      mp_json_reader_skip (r); /* reports the syntax error */
      if (r->error == NULL) /* true, false, null: well-formed, but no graph */
        mp_set_file_error (error, MP_ANALYSIS_ERROR_FORMAT, r->path,
                           "expected a JSON object with \"format\": \"" GRAPH_FORMAT "\"");
      else
        g_propagate_error (error, g_steal_pointer (&r->error));
      return FALSE;
    }
  mp_json_reader_begin_object (r);
  while (mp_json_reader_next_member (r))
    {
      const char *key = r->text->str;
      gsize      *slot = g_str_equal (key, "format")      ? &layout->format
                         : g_str_equal (key, "name")      ? &layout->name
                         : g_str_equal (key, "alignment") ? &layout->alignment
                         : g_str_equal (key, "memories")  ? &layout->memories
                         : g_str_equal (key, "tensors")   ? &layout->tensors
                         : g_str_equal (key, "ops")       ? &layout->ops
                                                          : NULL;

      if (slot)
        *slot = mp_json_reader_tell (r);
      else if (!g_strv_contains ((const char *const *) top_keys, key))
        note_unknown_key (bad_key, key);
      mp_json_reader_skip (r);
    }
  if (!mp_json_reader_finish (r))
    {
      g_propagate_error (error, g_steal_pointer (&r->error));
      return FALSE;
    }
  return TRUE;
}

/* Opens the list of tensors or ops at the reader. */
static gboolean
open_list (MpJsonReader *r, MpGraph *graph, GError **error)
{
  if (mp_json_reader_peek (r) != MP_JSON_ARRAY)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, graph->path,
                         "\"tensors\" and \"ops\" must be lists");
      return FALSE;
    }
  return mp_json_reader_begin_array (r);
}

/* FALSE, with the reader's error, when the document was not well formed. */
static gboolean
reader_fine (MpJsonReader *r, GError **error)
{
  if (r->error == NULL)
    return TRUE;
  g_propagate_error (error, g_steal_pointer (&r->error));
  return FALSE;
}

/* What reading the tensors and ops needs, reused from one to the next. */
typedef struct
{
  TensorFields tf;
  OpFields     of;
  GArray      *views; /* PendingView */
} Body;

static void
body_init (Body *b)
{
  b->tf = (TensorFields) { g_string_new (NULL), g_string_new (NULL), g_string_new (NULL),
                           g_string_new (NULL), g_string_new (NULL),
                           g_array_new (FALSE, FALSE, sizeof (guint64)),
                           .bad_key = g_string_new (NULL),
                           .gaps = g_array_new (FALSE, FALSE, sizeof (MpGap)) };
  b->of = (OpFields) { g_string_new (NULL), g_array_new (FALSE, FALSE, sizeof (guint)),
                       g_array_new (FALSE, FALSE, sizeof (guint)), .bad_key = g_string_new (NULL) };
  b->views = g_array_new (FALSE, FALSE, sizeof (PendingView));
  g_array_set_clear_func (b->views, pending_view_clear);
}

static void
body_clear (Body *b)
{
  g_string_free (b->tf.name, TRUE);
  g_string_free (b->tf.kind, TRUE);
  g_string_free (b->tf.dtype, TRUE);
  g_string_free (b->tf.view_of, TRUE);
  g_string_free (b->tf.memory, TRUE);
  g_array_unref (b->tf.shape);
  g_free (b->tf.size_text);
  for (guint c = 0; c < N_CONSTRAINTS; c++)
    g_free (b->tf.constraint_text[c]);
  g_string_free (b->tf.bad_key, TRUE);
  g_array_unref (b->tf.gaps);
  g_free (b->tf.gaps_problem);
  g_string_free (b->of.bad_key, TRUE);
  g_string_free (b->of.name, TRUE);
  g_array_unref (b->of.inputs);
  g_array_unref (b->of.outputs);
  g_free (b->of.unknown);
  g_array_unref (b->views);
}

static gboolean
parse_alignment (MpJsonReader *r, MpGraph *graph, GError **error)
{
  gboolean fine;

  mp_json_reader_u64 (r, &graph->alignment, &fine);
  if (!fine || !mp_alignment_valid (graph->alignment))
    {
      g_autofree char *text = mp_json_reader_describe (r);
      g_autofree char *message = mp_alignment_message ("\"alignment\"", text);

      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, graph->path, "%s", message);
      return FALSE;
    }
  return TRUE;
}

/* The list of tensors or of ops at the reader; the views among the
 * tensors resolved. */
static gboolean
parse_list (MpJsonReader *r, MpGraph *graph, Body *b, gboolean ops, GError **error)
{
  const char *what = ops ? "ops" : "tensors";
  GString    *bad_key = ops ? b->of.bad_key : b->tf.bad_key;
  gboolean    ok;

  if (!(ok = open_list (r, graph, error)))
    return FALSE;
  for (guint index = 0; ok && mp_json_reader_next_element (r); index++)
    {
      if (ops)
        op_fields_reset (&b->of);
      else
        tensor_fields_reset (&b->tf);
      if (mp_json_reader_peek (r) != MP_JSON_OBJECT)
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, graph->path,
                             "%s[%u] is not an object", what, index);
          ok = FALSE;
        }
      else if ((ok = ops ? read_op_fields (r, graph, &b->of) : read_tensor_fields (r, &b->tf)) &&
               bad_key->len)
        {
          g_autofree char *where = g_strdup_printf ("%s[%u]: ", what, index);

          set_unknown_key_error (error, graph->path, where, bad_key->str,
                                 ops ? op_keys : tensor_keys);
          ok = FALSE;
        }
      else
        ok = ok && (ops ? build_op (graph, &b->of, index, error)
                        : build_tensor (graph, &b->tf, index, b->views, error));
    }
  return ok && reader_fine (r, error) && (ops || resolve_views (graph, b->views, error));
}

/* The members at the offsets the layout scan found, in the order that
 * makes sense of them: alignment, memories, tensors, ops. */
static gboolean
parse_body (MpJsonReader *r, MpGraph *graph, const Layout *layout, GError **error)
{
  Body     b;
  gboolean ok = TRUE;

  body_init (&b);
  if (layout->alignment != (gsize) -1)
    {
      mp_json_reader_seek (r, layout->alignment);
      ok = parse_alignment (r, graph, error);
    }
  if (ok && layout->memories != (gsize) -1)
    {
      mp_json_reader_seek (r, layout->memories);
      ok = mp_graph_json_parse_memories (r, graph, error);
    }
  if (ok && layout->tensors != (gsize) -1)
    {
      mp_json_reader_seek (r, layout->tensors);
      ok = parse_list (r, graph, &b, FALSE, error);
    }
  else if (ok)
    ok = resolve_views (graph, b.views, error);
  if (ok && layout->ops != (gsize) -1)
    {
      mp_json_reader_seek (r, layout->ops);
      ok = parse_list (r, graph, &b, TRUE, error);
    }
  body_clear (&b);
  return ok;
}

static MpGraph *
new_graph (const char *name, const char *path)
{
  g_autofree char *base = NULL;
  MpGraph         *graph;

  if (name == NULL)
    {
      base = path ? g_path_get_basename (path) : g_strdup ("graph");
      if (strchr (base, '.'))
        *strrchr (base, '.') = '\0';
    }
  graph = mp_graph_new (name ? name : base);
  graph->path = g_strdup (path);
  return graph;
}

/* One pass over a graph whose members come in the order memplan writes
 * them (format, name, alignment, memories, tensors, ops; description and x- keys
 * anywhere): the layout scan's extra pass over a large file is a tenth of
 * the load. Anything else (another order, an unknown key, any error)
 * returns NULL without an error, and the two-pass reader, which reports
 * problems in its own order, reads the file again. */
static MpGraph *
parse_in_order (MpJsonReader *r, const char *path)
{
  g_autoptr (MpGraph) graph = NULL;
  g_autofree char *name = NULL;
  guint64          alignment = 0;
  gboolean         format = FALSE, tensors = FALSE, ops = FALSE, ok = TRUE;
  Body             b;
  g_autoptr (MpGraph) memories = mp_graph_new ("memories"); /* until the graph exists */

  if (mp_json_reader_peek (r) != MP_JSON_OBJECT || !mp_json_reader_begin_object (r))
    return NULL;
  body_init (&b);
  while (ok && mp_json_reader_next_member (r))
    {
      const char *key = r->text->str;

      if (g_str_equal (key, "format"))
        ok = !format && !tensors && mp_json_reader_peek (r) == MP_JSON_STRING &&
             mp_json_reader_string (r) && g_str_equal (r->text->str, GRAPH_FORMAT) &&
             (format = TRUE);
      else if (g_str_equal (key, "name") && !tensors)
        {
          if (mp_json_reader_peek (r) == MP_JSON_STRING && mp_json_reader_string (r))
            {
              g_free (name);
              name = g_strdup (r->text->str);
            }
          else
            ok = mp_json_reader_skip (r);
        }
      else if (g_str_equal (key, "alignment") && !tensors)
        {
          gboolean fine;

          ok = mp_json_reader_u64 (r, &alignment, &fine) && fine &&
               mp_alignment_valid (alignment);
        }
      else if (g_str_equal (key, "memories") && !tensors)
        ok = memories->n_memories == 0 && mp_graph_json_parse_memories (r, memories, NULL);
      else if (g_str_equal (key, "tensors"))
        {
          ok = format && !tensors;
          if (ok)
            {
              graph = new_graph (name, path);
              if (alignment)
                graph->alignment = alignment;
              graph->memories = g_steal_pointer (&memories->memories);
              graph->n_memories = memories->n_memories;
              memories->n_memories = 0;
              ok = tensors = parse_list (r, graph, &b, FALSE, NULL);
            }
        }
      else if (g_str_equal (key, "ops"))
        ok = tensors && !ops && (ops = parse_list (r, graph, &b, TRUE, NULL));
      else if (g_strv_contains (top_keys, key) || is_extension_key (key))
        ok = !g_str_equal (key, "name") && !g_str_equal (key, "alignment") &&
             !g_str_equal (key, "memories") && mp_json_reader_skip (r);
      else
        ok = FALSE;
    }
  body_clear (&b);
  if (!ok || !ops || r->error || !mp_json_reader_finish (r))
    return NULL;
  return g_steal_pointer (&graph);
}

MpGraph *
mp_graph_parse_json (const char *data, gsize length, const char *path, GError **error)
{
  g_autoptr (MpGraph) graph = NULL;
  g_autofree char *name = NULL;
  g_autoptr (GString) bad_key = g_string_new (NULL);
  MpJsonReader     r;
  Layout           layout;
  gboolean         ok;

  if (length > G_MAXINT)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_PARSE, path, "file is larger than 2 GiB");
      return NULL;
    }
  mp_json_reader_init (&r, data, length, path);
  graph = parse_in_order (&r, path);
  mp_json_reader_clear (&r);
  if (graph)
    return mp_graph_check (graph, error) ? g_steal_pointer (&graph) : NULL;

  mp_json_reader_init (&r, data, length, path);
  if (!scan_layout (&r, &layout, bad_key, error))
    {
      mp_json_reader_clear (&r);
      return NULL;
    }

  mp_json_reader_seek (&r, layout.format);
  if (layout.format == (gsize) -1 || mp_json_reader_peek (&r) != MP_JSON_STRING)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_FORMAT, path,
                         "missing \"format\": \"" GRAPH_FORMAT "\"");
      mp_json_reader_clear (&r);
      return NULL;
    }
  mp_json_reader_string (&r);
  if (!g_str_equal (r.text->str, GRAPH_FORMAT))
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_FORMAT, path,
                         "\"format\" is '%s', expected '" GRAPH_FORMAT "'", r.text->str);
      mp_json_reader_clear (&r);
      return NULL;
    }
  if (bad_key->len)
    {
      set_unknown_key_error (error, path, "", bad_key->str, top_keys);
      mp_json_reader_clear (&r);
      return NULL;
    }

  if (layout.name != (gsize) -1)
    {
      mp_json_reader_seek (&r, layout.name);
      if (mp_json_reader_peek (&r) == MP_JSON_STRING && mp_json_reader_string (&r))
        name = g_strdup (r.text->str);
    }
  graph = new_graph (name, path);
  ok = parse_body (&r, graph, &layout, error);
  mp_json_reader_clear (&r);
  if (!ok || !mp_graph_check (graph, error))
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
