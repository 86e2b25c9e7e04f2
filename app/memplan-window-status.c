/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

/* The window's words on what it shows: the status line (the graph, or the
 * selected tensor) and the step slider's label. */

#include <math.h>

#include "memplan-render.h"
#include "live-list.h"
#include "memplan-window-private.h"
#include "plan-view.h"
#include "tensor-info.h"

void
mp_window_update_status (MpWindow *self)
{
  const MpGraph     *graph;
  const MpLifetimes *lt;
  g_autofree char   *lb = NULL;
  g_autofree char   *time = NULL;
  g_autofree char   *text = NULL;
  g_autofree char   *name = NULL;
  gint               selected = mp_view_state_get_selected (self->state);

  if (self->set == NULL)
    {
      gtk_label_set_text (self->status_label, "");
      return;
    }
  graph = mp_plan_set_get_graph (self->set);
  lt = mp_plan_set_get_lifetimes (self->set);
  if (selected >= 0 && (guint) selected < graph->n_tensors)
    {
      /* in the plan the user chose (a pane or a Summary row clicked), as
       * the live list shows it; at first the best */
      const MpPlan    *plan = mp_live_list_get_plan (MP_LIVE_LIST (self->live_list));
      g_autofree char *markup = mp_tensor_describe (graph, lt, plan, selected);
      g_autofree char *plain = NULL;

      pango_parse_markup (markup, -1, 0, NULL, &plain, NULL, NULL);
      g_strdelimit (plain, "\n", ' ');
      text = g_strdup_printf ("Selected: %s", plain ? plain : "");
      gtk_label_set_text (self->status_label, text);
      return;
    }
  lb = mp_format_bytes (lt->lower_bound);
  name = mp_escape_name (graph->name);
  /* only what is finished: while planners run, the plans shown so far */
  if (self->cancellable)
    time = g_strdup_printf ("%u plans shown so far (%s)", mp_plan_set_get_n_plans (self->set),
                            gtk_label_get_text (self->busy_label));
  else
    {
      g_autofree char *secs = mp_format_seconds (mp_plan_set_get_seconds (self->set));
      time = g_strdup_printf ("loaded and planned in %s", secs);
    }
  {
    /* planned for the streams' parallel groups, the steps are groups */
    gboolean    groups = mp_plan_set_get_workload (self->set)->concurrent != NULL;
    const char *unit = groups ? "parallel groups" : "steps";

    text = g_strdup_printf ("%s: %u tensors, %u planned over %u %s, lower bound %s (peak at "
                            "%s %u); %s. Hover a buffer for details, click to follow it across "
                            "the plans.",
                            name, graph->n_tensors, lt->n_records, lt->n_steps, unit, lb,
                            groups ? "group" : "step", lt->peak_step, time);
  }
  gtk_label_set_text (self->status_label, text);
}

void
mp_window_update_cursor_label (MpWindow *self)
{
  gint             step = mp_view_state_get_cursor (self->state);
  g_autofree char *text = NULL;

  if (self->set == NULL || step < 0)
    text = g_strdup ("no step chosen");
  else
    {
      const MpLifetimes *lt = mp_plan_set_get_lifetimes (self->set);
      g_autofree char   *live = mp_format_bytes ((guint) step < lt->n_steps
                                                   ? lt->live_bytes[step] : 0);

      if (mp_plan_set_get_n_plans (self->set) > 0)
        {
          g_autofree char *when = mp_render_step_words (mp_plan_set_get_index (self->set, 0),
                                                        step);
          text = g_strdup_printf ("%s: %s live", when, live);
        }
      else
        text = g_strdup_printf ("step %d: %s live", step, live);
    }
  gtk_label_set_text (self->cursor_label, text);
  self->syncing_cursor = TRUE;
  gtk_adjustment_set_value (self->cursor_adjustment, step);
  self->syncing_cursor = FALSE;
}

static void
cursor_adjustment_changed (MpWindow *self)
{
  if (!self->syncing_cursor)
    mp_view_state_set_cursor (self->state, (gint) lround (gtk_adjustment_get_value (
                                             self->cursor_adjustment)));
}

const char *
mp_window_get_cursor_text (MpWindow *self)
{
  g_return_val_if_fail (MP_IS_WINDOW (self), NULL);
  return gtk_label_get_text (self->cursor_label);
}

const char *
mp_window_get_status_text (MpWindow *self)
{
  g_return_val_if_fail (MP_IS_WINDOW (self), NULL);
  return gtk_label_get_text (self->status_label);
}

void
mp_window_class_add_status (GtkWidgetClass *widget_class)
{
  gtk_widget_class_bind_template_callback (widget_class, cursor_adjustment_changed);
}
