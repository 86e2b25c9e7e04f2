/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

/* The search bar: a tensor or an op found by name. */

#include "memplan-window-private.h"

gboolean
mp_window_search (MpWindow *self, const char *text)
{
  const MpGraph   *graph;
  g_autofree char *needle = NULL;
  g_autofree char *status = NULL;
  gint             index;
  guint            n_matches = 0;
  gint             found = -1;

  g_return_val_if_fail (MP_IS_WINDOW (self), FALSE);

  if (self->set == NULL || text == NULL || *text == '\0')
    {
      gtk_label_set_text (self->search_status, "");
      return FALSE;
    }
  graph = mp_plan_set_get_graph (self->set);

  /* an exact name first: tensors, then ops */
  if ((index = mp_graph_find_tensor (graph, text)) >= 0)
    found = index;
  else if ((index = mp_graph_find_op (graph, text)) >= 0)
    {
      g_autofree char *op = mp_escape_name (graph->ops[index].name);
      MpWorkload      *w = mp_plan_set_get_workload (self->set);
      /* planned for the parallel groups, the steps are groups */
      gint             step = w->concurrent ? (gint) w->parallel->group[index] : index;

      mp_view_state_set_cursor (self->state, step);
      mp_view_state_reveal (self->state, step, step);
      status = w->concurrent ? g_strdup_printf ("op %s: parallel group %d", op, step)
                             : g_strdup_printf ("op %s: step %d", op, step);
      gtk_label_set_text (self->search_status, status);
      return TRUE;
    }
  else
    {
      /* then a part of a name, case-insensitive, cycling on Enter */
      needle = g_utf8_casefold (text, -1);
      for (guint k = 0; k < graph->n_tensors; k++)
        {
          guint            t = (self->search_from + k) % graph->n_tensors;
          g_autofree char *name = g_utf8_casefold (graph->tensors[t].name, -1);

          if (strstr (name, needle))
            {
              if (found < 0)
                found = t;
              n_matches++;
            }
        }
    }
  if (found < 0)
    {
      gtk_label_set_text (self->search_status, "no tensor or op of that name");
      return FALSE;
    }
  mp_view_state_set_selected (self->state, found);
  {
    const MpLifetimes *lt = mp_plan_set_get_lifetimes (self->set);
    gint               rec = lt->record_of[found];

    if (rec >= 0)
      mp_view_state_reveal (self->state, lt->records[rec].first, lt->records[rec].last);
  }
  if (n_matches > 1)
    status = g_strdup_printf ("tensor %s (%u matches, Enter for the next)",
                              graph->tensors[found].name, n_matches);
  else
    status = g_strdup_printf ("tensor %s", graph->tensors[found].name);
  gtk_label_set_text (self->search_status, status);
  self->search_from = found;
  return TRUE;
}

static void
search_changed (MpWindow *self)
{
  self->search_from = 0;
  mp_window_search (self, gtk_editable_get_text (GTK_EDITABLE (self->search_entry)));
}

static void
search_activate (MpWindow *self)
{
  const MpGraph *graph;

  if (self->set == NULL)
    return;
  graph = mp_plan_set_get_graph (self->set);
  if (graph->n_tensors)
    self->search_from = (self->search_from + 1) % graph->n_tensors;
  mp_window_search (self, gtk_editable_get_text (GTK_EDITABLE (self->search_entry)));
}

void
mp_window_class_add_search (GtkWidgetClass *widget_class)
{
  gtk_widget_class_bind_template_callback (widget_class, search_changed);
  gtk_widget_class_bind_template_callback (widget_class, search_activate);
}
