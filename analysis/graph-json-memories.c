/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include "graph-json-memories.h"

#include "graph-private.h"

/* Its own file: graph-json.c reads tensors and ops; memories are a short
 * list read once, with their own messages. */

static gboolean
memory_error (GError **error, const MpGraph *graph, guint index, const char *message)
{
  mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, graph->path, "memories[%u]: %s", index,
                     message);
  return FALSE;
}

/* One {"name": …, "capacity": …} object into m. */
static gboolean
parse_memory (MpJsonReader *r, MpGraph *graph, guint index, MpMemory *m, GError **error)
{
  gboolean has_capacity = FALSE, capacity_ok = TRUE;
  g_autofree char *capacity_text = NULL;

  if (mp_json_reader_peek (r) != MP_JSON_OBJECT)
    return mp_json_reader_skip (r) && memory_error (error, graph, index, "is not an object");
  if (!mp_json_reader_begin_object (r))
    return FALSE;
  while (mp_json_reader_next_member (r))
    {
      g_autofree char *key = g_strdup (r->text->str);

      if (g_str_equal (key, "name") && mp_json_reader_peek (r) == MP_JSON_STRING)
        {
          if (!mp_json_reader_string (r))
            return FALSE;
          g_free (m->name);
          m->name = g_strdup (r->text->str);
        }
      else if (g_str_equal (key, "name"))
        return mp_json_reader_skip (r) &&
               memory_error (error, graph, index, "\"name\" must be a string");
      else if (g_str_equal (key, "capacity"))
        {
          has_capacity = TRUE;
          if (!mp_json_reader_u64 (r, &m->capacity, &capacity_ok))
            return FALSE;
          g_free (capacity_text);
          capacity_text = mp_json_reader_describe (r);
        }
      else if (g_str_has_prefix (key, "x-"))
        {
          if (!mp_json_reader_skip (r))
            return FALSE;
        }
      else
        {
          g_autofree char *message =
            g_strdup_printf ("unknown key \"%s\" (known: name, capacity; your own keys start "
                             "with \"x-\")", key);

          return mp_json_reader_skip (r) && memory_error (error, graph, index, message);
        }
    }
  if (r->error)
    return FALSE;
  if (m->name == NULL || m->name[0] == '\0')
    return memory_error (error, graph, index, "has no \"name\"");
  if (has_capacity && (!capacity_ok || m->capacity == 0 || m->capacity > MP_MAX_TENSOR_SIZE))
    {
      g_autofree char *message =
        g_strdup_printf ("memory '%s': \"capacity\" must be a positive number of bytes up to "
                         "2^48 (leave it out for an unbounded memory), got %s",
                         m->name, capacity_text);

      return memory_error (error, graph, index, message);
    }
  return TRUE;
}

gboolean
mp_graph_json_parse_memories (MpJsonReader *r, MpGraph *graph, GError **error)
{
  g_autoptr (GArray) list = g_array_new (FALSE, TRUE, sizeof (MpMemory));
  gboolean ok = TRUE;

  if (mp_json_reader_peek (r) != MP_JSON_ARRAY)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, graph->path,
                         "\"memories\" must be a list of {\"name\": …, \"capacity\": …}, "
                         "fastest first");
      return FALSE;
    }
  if (!mp_json_reader_begin_array (r))
    ok = FALSE;
  for (guint index = 0; ok && mp_json_reader_next_element (r); index++)
    {
      MpMemory m = { NULL, 0 };

      ok = parse_memory (r, graph, index, &m, error);
      for (guint k = 0; ok && k < list->len; k++)
        if (g_str_equal (g_array_index (list, MpMemory, k).name, m.name))
          {
            g_autofree char *message = g_strdup_printf ("memory '%s' is declared twice", m.name);

            ok = memory_error (error, graph, index, message);
          }
      if (ok)
        g_array_append_val (list, m);
      else
        g_free (m.name);
    }
  if (ok && r->error == NULL && list->len == 0)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, graph->path,
                         "\"memories\" is empty: name at least one memory or leave it out");
      ok = FALSE;
    }
  if (r->error && !(error && *error))
    {
      g_propagate_error (error, g_steal_pointer (&r->error));
      ok = FALSE;
    }
  if (!ok)
    {
      for (guint k = 0; k < list->len; k++)
        g_free (g_array_index (list, MpMemory, k).name);
      return FALSE;
    }
  for (guint k = 0; k < graph->n_memories; k++)
    g_free (graph->memories[k].name);
  g_free (graph->memories);
  graph->n_memories = list->len;
  graph->memories = (MpMemory *) g_array_free (g_steal_pointer (&list), FALSE);
  return TRUE;
}

gboolean
mp_graph_json_tensor_memory (MpGraph *graph, MpTensor *t, const char *name, GError **error)
{
  g_autoptr (GString) known = g_string_new (NULL);

  for (guint k = 0; k < graph->n_memories; k++)
    {
      if (g_str_equal (graph->memories[k].name, name))
        {
          t->memory = k + 1;
          return TRUE;
        }
      g_string_append_printf (known, "%s%s", k ? ", " : "", graph->memories[k].name);
    }
  if (graph->n_memories == 0)
    mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, graph->path,
                       "tensor '%s': \"memory\" '%s' is not declared: the graph has no "
                       "\"memories\" list", t->name, name);
  else
    mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, graph->path,
                       "tensor '%s': \"memory\" '%s' is not among the graph's \"memories\" (%s)",
                       t->name, name, known->str);
  return FALSE;
}
