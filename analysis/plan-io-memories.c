/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <string.h>

#include "plan-io-memories.h"

#include "graph-private.h"
#include "json-util.h"

/* One line per memory and per tensor, as the rest of the plan file. */
static void
append_line (GString *buf, const char *indent, json_object *obj, gboolean last)
{
  g_string_append_printf (buf, "%s%s%s\n", indent,
                          json_object_to_json_string_ext (obj, JSON_C_TO_STRING_SPACED |
                                                                 JSON_C_TO_STRING_NOSLASHESCAPE),
                          last ? "" : ",");
  json_object_put (obj);
}

void
mp_spill_append_json (GString *buf, const MpGraph *graph, const MpLifetimes *lt,
                      const MpSpill *spill)
{
  g_string_append (buf, ",\n      \"spill\": {\n        \"memories\": [\n");
  for (guint k = 0; k < spill->n_memories; k++)
    {
      json_object *m = json_object_new_object ();
      json_object *moved = json_object_new_array ();

      json_object_object_add (m, "name", json_object_new_string (spill->memories[k].name));
      if (spill->memories[k].capacity)
        json_object_object_add (m, "capacity",
                                json_object_new_uint64 (spill->memories[k].capacity));
      json_object_object_add (m, "arena", json_object_new_uint64 (spill->arena[k]));
      json_object_object_add (m, "tensors", json_object_new_uint64 (spill->count[k]));
      json_object_object_add (m, "traffic", json_object_new_uint64 (spill->traffic[k]));
      json_object_object_add (m, "spilled_bytes", json_object_new_uint64 (spill->spilled_bytes[k]));
      for (guint i = 0; i < spill->n_records; i++)
        if (spill->memory_of[i] == k && spill->spilled[i])
          json_object_array_add (moved, json_object_new_string (
                                          graph->tensors[lt->records[i].tensor].name));
      json_object_object_add (m, "spilled", moved);
      append_line (buf, "          ", m, k + 1 == spill->n_memories);
    }
  g_string_append (buf, "        ],\n        \"tensors\": [\n");
  for (guint i = 0; i < spill->n_records; i++)
    {
      json_object *t = json_object_new_object ();

      json_object_object_add (t, "name",
                              json_object_new_string (graph->tensors[lt->records[i].tensor].name));
      json_object_object_add (t, "memory",
                              json_object_new_string (spill->memories[spill->memory_of[i]].name));
      json_object_object_add (t, "offset", json_object_new_uint64 (spill->offsets[i]));
      append_line (buf, "          ", t, i + 1 == spill->n_records);
    }
  g_string_append (buf, "        ]\n      }");
}

static const char *const memory_keys[] = { "name", "capacity", "arena", "tensors", "traffic",
                                           "spilled_bytes", "spilled", NULL };

/* The first key of obj not in known, or NULL. */
static const char *
unknown_key (json_object *obj, const char *const *known)
{
  json_object_object_foreach (obj, key, value)
    {
      (void) value;
      if (!g_strv_contains (known, key) && !g_str_has_prefix (key, "x-"))
        return key;
    }
  return NULL;
}

typedef struct
{
  const char *path;
  const char *planner;
  GPtrArray  *names;    /* the memories' names */
  GArray     *capacity; /* guint64 per memory, 0: unbounded */
  GArray     *arena;    /* guint64 per memory: the file's claim, G_MAXUINT64 when none */
} Memories;

static gboolean
spill_error (GError **error, const Memories *m, const char *format, ...) G_GNUC_PRINTF (3, 4);

static gboolean
spill_error (GError **error, const Memories *m, const char *format, ...)
{
  va_list          ap;
  g_autofree char *what = NULL;

  va_start (ap, format);
  what = g_strdup_vprintf (format, ap);
  va_end (ap);
  mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, m->path, "plan '%s': \"spill\": %s",
                     m->planner, what);
  return FALSE;
}

static gboolean
read_memories (json_object *list, Memories *m, GError **error)
{
  if (!list || !json_object_is_type (list, json_type_array) ||
      json_object_array_length (list) == 0)
    return spill_error (error, m, "\"memories\" must be a non-empty list");
  for (gsize k = 0; k < json_object_array_length (list); k++)
    {
      json_object *item = json_object_array_get_idx (list, k), *name, *cap;
      guint64      capacity = 0, arena = G_MAXUINT64;
      const char  *bad;

      if (!json_object_is_type (item, json_type_object))
        return spill_error (error, m, "memories[%" G_GSIZE_FORMAT "] is not an object", k);
      if ((bad = unknown_key (item, memory_keys)))
        return spill_error (error, m, "memories[%" G_GSIZE_FORMAT "]: unknown key \"%s\"", k,
                            bad);
      name = json_object_object_get (item, "name");
      if (!name || !json_object_is_type (name, json_type_string) ||
          json_object_get_string_len (name) == 0)
        return spill_error (error, m, "memories[%" G_GSIZE_FORMAT "] has no \"name\"", k);
      for (guint j = 0; j < m->names->len; j++)
        if (g_str_equal (m->names->pdata[j], json_object_get_string (name)))
          return spill_error (error, m, "memory '%s' is listed twice",
                              json_object_get_string (name));
      if ((cap = json_object_object_get (item, "capacity")) &&
          (!mp_json_get_u64 (cap, &capacity) || capacity == 0))
        return spill_error (error, m, "memory '%s': \"capacity\" must be a positive number of "
                            "bytes", json_object_get_string (name));
      mp_json_get_u64 (json_object_object_get (item, "arena"), &arena);
      g_ptr_array_add (m->names, (gpointer) json_object_get_string (name));
      g_array_append_val (m->capacity, capacity);
      g_array_append_val (m->arena, arena);
    }
  return TRUE;
}

/* Each tensor's memory (index into m->names) and offset, by record. */
static gboolean
read_tensors (json_object *list, const MpGraph *graph, const MpLifetimes *lt, const Memories *m,
              guint *memory_of, guint64 *offsets, GError **error)
{
  g_autofree gboolean *seen = g_new0 (gboolean, MAX (lt->n_records, 1));
  g_autoptr (GString) known = g_string_new (NULL);

  for (guint k = 0; k < m->names->len; k++)
    g_string_append_printf (known, "%s%s", k ? ", " : "", (const char *) m->names->pdata[k]);
  if (!list || !json_object_is_type (list, json_type_array))
    return spill_error (error, m, "\"tensors\" must be a list");
  for (gsize i = 0; i < json_object_array_length (list); i++)
    {
      json_object *t = json_object_array_get_idx (list, i);
      json_object *name = json_object_object_get (t, "name");
      json_object *memory = json_object_object_get (t, "memory");
      const char  *tn;
      guint64      offset;
      gint         id, r;
      guint        k;

      if (!name || !json_object_is_type (name, json_type_string) || !memory ||
          !json_object_is_type (memory, json_type_string) ||
          !mp_json_get_u64 (json_object_object_get (t, "offset"), &offset) ||
          offset > (G_GUINT64_CONSTANT (1) << 60))
        return spill_error (error, m, "tensor #%" G_GSIZE_FORMAT " needs a \"name\", a "
                            "\"memory\" and an integer \"offset\" below 2^60", i);
      tn = json_object_get_string (name);
      id = mp_graph_find_tensor (graph, tn);
      r = id >= 0 ? lt->record_of[id] : -1;
      if (r < 0 || lt->records[r].tensor != (guint) id)
        return spill_error (error, m, "tensor '%s' is not one the graph plans", tn);
      for (k = 0; k < m->names->len; k++)
        if (g_str_equal (m->names->pdata[k], json_object_get_string (memory)))
          break;
      if (k == m->names->len)
        return spill_error (error, m, "tensor '%s': \"memory\" '%s' is not among the "
                            "\"memories\" (%s)", tn, json_object_get_string (memory), known->str);
      if (seen[r])
        return spill_error (error, m, "tensor '%s' is placed twice", tn);
      seen[r] = TRUE;
      memory_of[r] = k;
      offsets[r] = offset;
    }
  for (guint r = 0; r < lt->n_records; r++)
    if (!seen[r])
      return spill_error (error, m, "tensor '%s' has no memory",
                          graph->tensors[lt->records[r].tensor].name);
  return TRUE;
}

gboolean
mp_spill_load_json (const char *path, const MpGraph *graph, const MpLifetimes *lt,
                    const char *planner, json_object *spill, GPtrArray *plans, GError **error)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  g_autoptr (GArray) capacity = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr (GArray) arena = g_array_new (FALSE, FALSE, sizeof (guint64));
  Memories             m = { path, planner, names, capacity, arena };
  g_autofree guint    *memory_of = g_new0 (guint, MAX (lt->n_records, 1));
  g_autofree guint64  *offsets = g_new0 (guint64, MAX (lt->n_records, 1));
  g_autofree MpUsage  *picked = g_new (MpUsage, MAX (lt->n_records, 1));
  g_autofree guint64  *placed = g_new (guint64, MAX (lt->n_records, 1));
  static const char *const spill_keys[] = { "memories", "tensors", NULL };
  const char *bad;

  if (!json_object_is_type (spill, json_type_object))
    return spill_error (error, &m, "must be an object with \"memories\" and \"tensors\"");
  if ((bad = unknown_key (spill, spill_keys)))
    return spill_error (error, &m, "unknown key \"%s\" (known: memories, tensors)", bad);
  if (!read_memories (json_object_object_get (spill, "memories"), &m, error) ||
      !read_tensors (json_object_object_get (spill, "tensors"), graph, lt, &m, memory_of,
                     offsets, error))
    return FALSE;
  for (guint k = 0; k < names->len; k++)
    {
      g_autofree char *name = g_strdup_printf ("%s in %s", planner,
                                               (const char *) names->pdata[k]);
      MpPlan          *plan;
      guint            n = 0;

      for (guint r = 0; r < lt->n_records; r++)
        if (memory_of[r] == k)
          {
            picked[n] = lt->records[r];
            placed[n++] = offsets[r];
          }
      plan = mp_plan_new_records (name, picked, n, lt->n_steps, lt->alignment);
      if (n)
        memcpy (plan->offsets, placed, n * sizeof (guint64));
      mp_plan_finish (plan);
      if (g_array_index (arena, guint64, k) != G_MAXUINT64)
        plan->arena = g_array_index (arena, guint64, k);
      plan->memory = g_strdup (names->pdata[k]);
      plan->capacity = g_array_index (capacity, guint64, k);
      g_ptr_array_add (plans, plan);
    }
  return TRUE;
}
