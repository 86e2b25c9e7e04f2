/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

/* The window's win.* actions, each with its shortcuts beside it. */

#include <math.h>

#include "live-list.h"
#include "memplan-application.h"
#include "memplan-window-private.h"
#include "step-through.h"
#include "window-export.h"

#define ZOOM_FACTOR 1.5

/* Teaching mode for the plan the live list shows (the pane or summary row
 * clicked last, at first the best); naive, optimal and a trace's observed
 * plan make no decisions to watch: then the best of the heuristics. */
static const char *
teaching_planner (MpWindow *self)
{
  const MpPlan *plan = mp_live_list_get_plan (MP_LIVE_LIST (self->live_list));
  const MpPlan *best = NULL;

  if (plan && mp_plan_is_heuristic (plan))
    return plan->planner;
  for (guint i = 0; i < mp_plan_set_get_n_plans (self->set); i++)
    {
      const MpPlan *p = mp_plan_set_get_plan (self->set, i);

      if (p->valid && mp_plan_is_heuristic (p) && (best == NULL || p->arena < best->arena))
        best = p;
    }
  return best ? best->planner : "greedy-by-size";
}

static void
step_through_action (GtkWidget *widget, const char *name, GVariant *param)
{
  MpWindow      *self = MP_WINDOW (widget);
  MpStepThrough *step;
  g_autoptr (GError) error = NULL;

  if (self->set == NULL)
    return;
  step = mp_step_through_new (GTK_WINDOW (self), self->set, teaching_planner (self), &error);
  if (step == NULL)
    {
      mp_window_show_error (self, error->message);
      return;
    }
  gtk_window_present (GTK_WINDOW (step));
}


static void
export_view_action (GtkWidget *widget, const char *action, GVariant *param)
{
  mp_window_run_save_dialog (MP_WINDOW (widget), MP_EXPORT_VIEW);
}

static void
export_plans_action (GtkWidget *widget, const char *action, GVariant *param)
{
  mp_window_run_save_dialog (MP_WINDOW (widget), MP_EXPORT_PLANS);
}

/* Opening */

static void
open_response (GtkNativeDialog *dialog, int response, MpWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));

      if (g_object_get_data (G_OBJECT (dialog), "compare"))
        mp_window_compare (self, file);
      else
        mp_window_open (self, file);
    }
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
}

/* Open (compare FALSE) and Compare With… (TRUE) ask the same way. */
static void
run_open_dialog (MpWindow *self, gboolean compare)
{
  GtkFileChooserNative *dialog;
  g_autoptr (GtkFileFilter) graphs = gtk_file_filter_new ();

  dialog = gtk_file_chooser_native_new (compare ? "Compare With" : "Open Graph",
                                        GTK_WINDOW (self), GTK_FILE_CHOOSER_ACTION_OPEN,
                                        compare ? "_Compare" : "_Open", "_Cancel");
  g_object_set_data (G_OBJECT (dialog), "compare", GINT_TO_POINTER (compare));
  gtk_file_filter_set_name (graphs, "Graphs, ONNX models, traces and usage records");
  gtk_file_filter_add_pattern (graphs, "*.json");
  gtk_file_filter_add_pattern (graphs, "*.onnx");
  gtk_file_filter_add_pattern (graphs, "*.pickle");
  gtk_file_filter_add_pattern (graphs, "*.csv");
  gtk_file_filter_add_pattern (graphs, "*.gz");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), graphs);
  mp_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), "All files", "*");
  if (self->file)
    {
      g_autoptr (GFile) dir = g_file_get_parent (self->file);

      if (dir)
        gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (dialog), dir, NULL);
    }
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);
  /* a dialog answered after the window went does nothing */
  g_signal_connect_object (dialog, "response", G_CALLBACK (open_response), self, 0);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
open_action (GtkWidget *widget, const char *action, GVariant *param)
{
  run_open_dialog (MP_WINDOW (widget), FALSE);
}

static void
compare_action (GtkWidget *widget, const char *action, GVariant *param)
{
  run_open_dialog (MP_WINDOW (widget), TRUE);
}

static void
compare_stop_action (GtkWidget *widget, const char *action, GVariant *param)
{
  mp_window_compare_stop (MP_WINDOW (widget));
}

static void
open_recent_action (GtkWidget *widget, const char *action, GVariant *param)
{
  g_autoptr (GFile) file = g_file_new_for_uri (g_variant_get_string (param, NULL));

  mp_window_open (MP_WINDOW (widget), file);
}

static void
open_default_action (GtkWidget *widget, const char *action, GVariant *param)
{
  g_autofree char *path = mp_application_default_graph ();
  g_autoptr (GFile) file = g_file_new_for_path (path);

  mp_window_open (MP_WINDOW (widget), file);
}

static void
reload_action (GtkWidget *widget, const char *action, GVariant *param)
{
  mp_window_start_build (MP_WINDOW (widget), TRUE);
}

static void
cancel_action (GtkWidget *widget, const char *action, GVariant *param)
{
  mp_window_cancel (MP_WINDOW (widget));
}

/* View */

static void
zoom_action (GtkWidget *widget, const char *action, GVariant *param)
{
  MpWindow *self = MP_WINDOW (widget);

  if (g_str_equal (action, "win.zoom-in"))
    mp_view_state_zoom (self->state, ZOOM_FACTOR, NAN);
  else if (g_str_equal (action, "win.zoom-out"))
    mp_view_state_zoom (self->state, 1 / ZOOM_FACTOR, NAN);
  else if (g_str_equal (action, "win.zoom-fit"))
    mp_view_state_fit (self->state);
  else if (g_str_equal (action, "win.pan-left") || g_str_equal (action, "win.pan-right"))
    {
      gdouble min, max;

      mp_view_state_get_steps (self->state, &min, &max);
      mp_view_state_pan (self->state, (g_str_equal (action, "win.pan-left") ? -1 : 1) *
                                        (max - min) / 4);
    }
}

static void
step_action (GtkWidget *widget, const char *action, GVariant *param)
{
  MpWindow *self = MP_WINDOW (widget);
  gint      step = mp_view_state_get_cursor (self->state);
  gint      last = (gint) mp_view_state_get_n_steps (self->state) - 1;

  step += g_str_equal (action, "win.step-next") ? 1 : -1;
  step = CLAMP (step, 0, MAX (last, 0));
  mp_view_state_set_cursor (self->state, step);
  mp_view_state_reveal (self->state, step, step);
}

/* The step cursor to the peak of the listed plan (every plan of a graph
 * shares it but multistream, whose steps are parallel groups). */
static void
go_to_peak_action (GtkWidget *widget, const char *action, GVariant *param)
{
  MpWindow      *self = MP_WINDOW (widget);
  const MpPlan  *plan = mp_live_list_get_plan (MP_LIVE_LIST (self->live_list));
  MpRenderIndex *index;
  guint          peak;

  if (self->set == NULL || mp_plan_set_get_n_plans (self->set) == 0)
    return;
  index = plan ? mp_plan_set_find_index (self->set, plan) : mp_plan_set_get_index (self->set, 0);
  peak = mp_render_index_peak_step (index);
  mp_view_state_set_cursor (self->state, peak);
  mp_view_state_reveal (self->state, peak, peak);
}

static void
search_action (GtkWidget *widget, const char *action, GVariant *param)
{
  MpWindow *self = MP_WINDOW (widget);

  gtk_search_bar_set_search_mode (self->search_bar, TRUE);
  gtk_widget_grab_focus (GTK_WIDGET (self->search_entry));
}

static void
clear_selection_action (GtkWidget *widget, const char *action, GVariant *param)
{
  mp_view_state_set_selected (MP_WINDOW (widget)->state, -1);
}

typedef struct
{
  const char                  *name;
  GtkWidgetActionActivateFunc  activate;
  const char                  *accels[4];
} WindowAction;

static const WindowAction actions[] = {
  { "win.open", open_action, { "<Primary>o", NULL } },
  { "win.open-default", open_default_action, { NULL } },
  { "win.compare", compare_action, { "<Primary><Shift>o", NULL } },
  { "win.compare-stop", compare_stop_action, { NULL } },
  { "win.reload", reload_action, { "<Primary>r", "F5", NULL } },
  { "win.cancel", cancel_action, { NULL } },  /* Escape: a key binding, below */
  { "win.export-view", export_view_action, { "<Primary>e", NULL } },
  { "win.export-plans", export_plans_action, { "<Primary>s", NULL } },
  { "win.zoom-in", zoom_action, { "<Primary>plus", "<Primary>equal", "<Primary>KP_Add", NULL } },
  { "win.zoom-out", zoom_action, { "<Primary>minus", "<Primary>KP_Subtract", NULL } },
  { "win.zoom-fit", zoom_action, { "<Primary>0", "<Primary>KP_0", NULL } },
  { "win.pan-left", zoom_action, { "<Alt>Left", NULL } },
  { "win.pan-right", zoom_action, { "<Alt>Right", NULL } },
  { "win.step-prev", step_action, { "<Primary>bracketleft", NULL } },
  { "win.step-next", step_action, { "<Primary>bracketright", NULL } },
  { "win.search", search_action, { "<Primary>f", NULL } },
  { "win.go-to-peak", go_to_peak_action, { "<Primary>p", NULL } },
  { "win.step-through", step_through_action, { "<Primary>t", NULL } },
  { "win.clear-selection", clear_selection_action, { "<Primary><Shift>a", NULL } },
};

/* Property actions: their shortcuts (the target, when one, after "::"). */
static const struct
{
  const char *name;
  const char *accels[2];
} property_actions[] = {
  { "win.shared-scale", { "<Primary>u", NULL } },
  { "win.color-by::kind", { "<Primary>1", NULL } },
  { "win.color-by::op", { "<Primary>2", NULL } },
  { "win.color-by::stream", { "<Primary>3", NULL } },
  { "win.color-by::size", { "<Primary>4", NULL } },
};

void
mp_window_class_install_actions (GtkWidgetClass *widget_class)
{
  for (guint i = 0; i < G_N_ELEMENTS (actions); i++)
    gtk_widget_class_install_action (widget_class, actions[i].name, NULL, actions[i].activate);
  gtk_widget_class_install_action (widget_class, "win.open-recent", "s", open_recent_action);
  gtk_widget_class_install_property_action (widget_class, "win.color-by", "color-by");
  gtk_widget_class_install_property_action (widget_class, "win.shared-scale", "shared-scale");
  gtk_widget_class_install_property_action (widget_class, "win.time-budget", "time-budget");
  gtk_widget_class_install_property_action (widget_class, "win.plan-for-op-order",
                                            "plan-for-op-order");
  /* in the window only, so Escape still closes popovers and the search bar elsewhere */
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "win.cancel", NULL);
}

void
mp_window_add_accels (GtkApplication *application)
{
  guint                n;
  const MpPlannerInfo *infos = mp_planners (&n);

  g_return_if_fail (GTK_IS_APPLICATION (application));

  for (guint i = 0; i < G_N_ELEMENTS (actions); i++)
    if (actions[i].accels[0])
      gtk_application_set_accels_for_action (application, actions[i].name, actions[i].accels);
  for (guint i = 0; i < G_N_ELEMENTS (property_actions); i++)
    gtk_application_set_accels_for_action (application, property_actions[i].name,
                                           property_actions[i].accels);
  /* Alt+N toggles the Nth planner (mp_window_planners_init, memplan-window-planners.c) */
  for (guint i = 0; i < n && i < 9; i++)
    {
      g_autofree char *action = g_strconcat ("planner.", infos[i].name, NULL);
      g_autofree char *accel = g_strdup_printf ("<Alt>%u", i + 1);
      const char      *list[] = { accel, NULL };

      gtk_application_set_accels_for_action (application, action, list);
    }
}
