/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

#include "live-row.h"

struct _MpLiveRow
{
  GObject      parent_instance;
  guint        tensor;
  const char  *name;       /* the graph's */
  MpTensorKind kind;
  guint64      offset;
  guint64      size;
  gint64       first;
  gint64       last;
  const char  *op;         /* producing op (the graph's), or NULL */
  gboolean     sets_arena; /* reaches the plan's top */
};

G_DEFINE_FINAL_TYPE (MpLiveRow, mp_live_row, G_TYPE_OBJECT)

static void
mp_live_row_class_init (MpLiveRowClass *klass)
{
}

static void
mp_live_row_init (MpLiveRow *self)
{
}

MpLiveRow *
mp_live_row_new (const MpGraph *graph, const MpPlan *plan, guint record)
{
  MpLiveRow *self = g_object_new (MP_TYPE_LIVE_ROW, NULL);

  mp_live_row_set_record (self, graph, plan, record);
  return self;
}

void
mp_live_row_set_record (MpLiveRow *self, const MpGraph *graph, const MpPlan *plan, guint record)
{
  const MpUsage  *u = &plan->records[record];
  const MpTensor *t = &graph->tensors[u->tensor];

  self->tensor = u->tensor;
  self->name = t->name;
  self->kind = t->kind;
  self->offset = plan->offsets[record];
  self->size = u->bytes;
  /* the plan's own steps, the numbering of the axis, slider and status */
  self->first = u->first;
  self->last = u->last;
  self->op = t->producer >= 0 ? graph->ops[t->producer].name : NULL;
  self->sets_arena = self->offset + self->size == plan->arena;
}

guint
mp_live_row_get_tensor (MpLiveRow *self)
{
  return self->tensor;
}

guint64
mp_live_row_get_offset (MpLiveRow *self)
{
  return self->offset;
}

guint64
mp_live_row_get_size (MpLiveRow *self)
{
  return self->size;
}

char *
mp_live_row_format (MpLiveRow *self, const char *column)
{
  g_return_val_if_fail (MP_IS_LIVE_ROW (self), NULL);

  if (g_str_equal (column, "offset"))
    return g_strdup_printf ("%" G_GUINT64_FORMAT, self->offset);
  if (g_str_equal (column, "end"))
    return g_strdup_printf ("%" G_GUINT64_FORMAT, self->offset + self->size);
  if (g_str_equal (column, "size"))
    return mp_format_bytes (self->size);
  if (g_str_equal (column, "tensor"))
    {
      /* names from files: one line, shown not obeyed */
      g_autofree char *name = mp_escape_name (self->name);

      return self->sets_arena ? g_strdup_printf ("%s ▲ sets the arena", name)
                              : g_steal_pointer (&name);
    }
  if (g_str_equal (column, "op"))
    return self->op ? mp_escape_name (self->op) : g_strdup ("—");
  if (g_str_equal (column, "lifetime"))
    return g_strdup_printf ("%" G_GINT64_FORMAT " – %" G_GINT64_FORMAT, self->first, self->last);
  if (g_str_equal (column, "kind"))
    return g_strdup (mp_tensor_kind_to_string (self->kind));
  g_return_val_if_reached (NULL);
}
