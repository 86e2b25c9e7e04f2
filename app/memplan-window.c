/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

/* The window: its GObject, planning off the UI thread, the panes and the
 * info bars. Each other concern has its file (memplan-window-private.h). */

#include "compare-strip.h"
#include "live-list.h"
#include "load-progress.h"
#include "memory-strip.h"
#include "order-view.h"
#include "memplan-window-private.h"
#include "plan-view.h"
#include "summary-table.h"
#include "summary-words.h"

G_DEFINE_FINAL_TYPE (MpWindow, mp_window, GTK_TYPE_APPLICATION_WINDOW)

enum
{
  PROP_0,
  PROP_BUSY,
  PROP_COLOR_BY,
  PROP_SHARED_SCALE,
  PROP_TIME_BUDGET,
  PROP_PLANNERS,
  PROP_PLAN_FOR_OP_ORDER,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* The monitor fires several times for one save: wait for quiet. */
#define RELOAD_DELAY_MS 300

typedef struct
{
  MpWindow *self;
  guint     generation;
} BuildCall;

/* the empty page's text when no file is open (memplan-window.ui's) */
#define EMPTY_TEXT "Open a graph (Ctrl+O) or drop a JSON or CSV file here."

static void show_error  (MpWindow *self, const char *message);
static void show_notice (MpWindow *self, const char *message);

static gboolean
poll_load (gpointer data)
{
  MpWindow        *self = data;
  g_autofree char *path = self->file ? g_file_get_path (self->file) : NULL;
  gdouble          fraction = mp_load_progress_fraction (path);

  if (fraction < 0)
    gtk_progress_bar_pulse (self->progress_bar);
  else
    gtk_progress_bar_set_fraction (self->progress_bar, fraction);
  return G_SOURCE_CONTINUE;
}

static void
set_busy (MpWindow *self, gboolean busy)
{
  g_clear_handle_id (&self->progress_source, g_source_remove);
  if (!busy)
    gtk_progress_bar_set_fraction (self->progress_bar, 1.0);
  gtk_widget_set_visible (self->busy_box, busy);
  if (busy)
    gtk_spinner_start (self->spinner);
  else
    gtk_spinner_stop (self->spinner);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.cancel", busy);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

gdouble
mp_window_get_progress (MpWindow *self)
{
  g_return_val_if_fail (MP_IS_WINDOW (self), 0);
  return gtk_progress_bar_get_fraction (self->progress_bar);
}

gboolean
mp_window_get_busy (MpWindow *self)
{
  g_return_val_if_fail (MP_IS_WINDOW (self), FALSE);
  return self->cancellable != NULL || self->compare_cancellable != NULL;
}

static void
pane_clicked (MpWindow *self, MpPlanView *view)
{
  self->list_chosen = TRUE;
  mp_live_list_set_plan (MP_LIVE_LIST (self->live_list), self->set, mp_plan_view_get_plan (view));
  /* the status describes the selected tensor in the plan clicked */
  mp_window_update_status (self);
}

/* Panes whose plan is kept (a toggle, or more planners finishing) stay,
 * with their drawing index; new plans get a pane, the panes of plans that
 * are gone leave, and the rest is put in table order. */
static void
update_panes (MpWindow *self, MpPlanSet *set)
{
  guint      n = mp_plan_set_get_n_plans (set);
  GPtrArray *views = g_ptr_array_sized_new (n);
  GtkWidget *prev = NULL;

  /* a graph with memories: one pane per memory instead, made afresh */
  for (guint k = 0; k < mp_plan_set_get_n_memories (set); k++)
    {
      GtkWidget *view = mp_plan_view_new_memory (set, k, self->state);

      g_signal_connect_swapped (view, "clicked", G_CALLBACK (pane_clicked), self);
      g_ptr_array_add (views, view);
    }
  for (guint i = 0; i < n && mp_plan_set_get_n_memories (set) == 0; i++)
    {
      GtkWidget *view = NULL;

      for (guint j = 0; j < self->views->len && view == NULL; j++)
        if (mp_plan_view_get_plan (self->views->pdata[j]) == mp_plan_set_get_plan (set, i))
          {
            view = self->views->pdata[j];
            mp_plan_view_rebind (MP_PLAN_VIEW (view), set, i);
          }
      if (view == NULL)
        {
          view = mp_plan_view_new (set, i, self->state);
          g_signal_connect_swapped (view, "clicked", G_CALLBACK (pane_clicked), self);
        }
      g_ptr_array_add (views, view);
    }
  for (guint j = 0; j < self->views->len; j++)
    if (!g_ptr_array_find (views, self->views->pdata[j], NULL))
      gtk_box_remove (self->panes_box, self->views->pdata[j]);
  for (guint i = 0; i < views->len; i++)
    {
      GtkWidget *view = views->pdata[i];

      if (gtk_widget_get_parent (view) == NULL)
        gtk_box_insert_child_after (self->panes_box, view, prev);
      else if (gtk_widget_get_prev_sibling (view) != prev)
        gtk_box_reorder_child_after (self->panes_box, view, prev);
      prev = view;
    }
  /* the same array: mp_window_get_plan_views hands it out */
  g_ptr_array_set_size (self->views, 0);
  g_ptr_array_extend_and_steal (self->views, views);
}

/* The plan the Summary marks best, else the first. */
static MpPlan *
best_plan (MpPlanSet *set)
{
  g_autoptr (GPtrArray) plans = g_ptr_array_new ();
  gint best;

  for (guint i = 0; i < mp_plan_set_get_n_plans (set); i++)
    g_ptr_array_add (plans, mp_plan_set_get_plan (set, i));
  best = mp_plans_best ((MpPlan * const *) plans->pdata, plans->len);
  return plans->len ? plans->pdata[MAX (best, 0)] : NULL;
}

/* Every Summary row in view: the split gives the notebook its natural
 * height, the panes and the memory strip keep the rest (at least 40%). */
static gboolean
place_split (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  MpWindow *self = MP_WINDOW (widget);
  int       total = gtk_widget_get_height (GTK_WIDGET (self->paned));
  int       width = gtk_widget_get_width (GTK_WIDGET (self->paned));
  int       nat = 0;

  if (total <= 0)
    return G_SOURCE_CONTINUE;
  gtk_widget_measure (GTK_WIDGET (self->notebook), GTK_ORIENTATION_VERTICAL, width, NULL, &nat,
                      NULL, NULL);
  gtk_paned_set_position (self->paned, MAX (total - nat - 2, total * 2 / 5));
  return G_SOURCE_REMOVE;
}

static void
show_plan_set (MpWindow *self, MpPlanSet *set, gboolean new_graph)
{
  const MpGraph     *graph = mp_plan_set_get_graph (set);
  const MpLifetimes *lt = mp_plan_set_get_lifetimes (set);
  const char * const *skipped = mp_plan_set_get_skipped (set);
  const MpPlan      *listed = mp_live_list_get_plan (MP_LIVE_LIST (self->live_list));
  MpPlan            *list_plan = NULL;

  g_autofree char *selected = NULL;
  gdouble          min = 0, max = 0;
  gboolean         keep_view = FALSE;

  /* A reload of a changed file keeps the view where it can. */
  if (new_graph && self->reloading && self->set)
    {
      gint old = mp_view_state_get_selected (self->state);

      if (old >= 0)
        selected = g_strdup (mp_plan_set_get_graph (self->set)->tensors[old].name);
      keep_view = mp_plan_set_get_lifetimes (self->set)->n_steps == lt->n_steps;
      mp_view_state_get_steps (self->state, &min, &max);
    }
  mp_plan_set_ref (set);
  g_clear_pointer (&self->set, mp_plan_set_unref);
  self->set = set;

  if (new_graph)
    {
      mp_view_state_reset (self->state, lt->n_steps);
      if (keep_view)
        mp_view_state_set_steps (self->state, min, max);
      if (selected)
        mp_view_state_set_selected (self->state, mp_graph_find_tensor (graph, selected));
    }
  update_panes (self, set);
  mp_memory_strip_set_plan_set (MP_MEMORY_STRIP (self->memory_strip), set);
  mp_order_view_set_plan_set (MP_ORDER_VIEW (self->order_view), set);
  mp_summary_table_set_plan_set (self->summary_table, set);
  if (mp_plan_set_get_n_plans (set) != self->split_rows)
    {
      self->split_rows = mp_plan_set_get_n_plans (set);
      gtk_widget_add_tick_callback (GTK_WIDGET (self), place_split, NULL, NULL);
    }
  /* the plan a click listed stays while it is still there; else the best */
  if (new_graph)
    self->list_chosen = FALSE;
  for (guint i = 0; self->list_chosen && i < mp_plan_set_get_n_plans (set) && list_plan == NULL;
       i++)
    if (mp_plan_set_get_plan (set, i) == listed)
      list_plan = mp_plan_set_get_plan (set, i);
  if (list_plan == NULL && mp_plan_set_get_n_plans (set))
    list_plan = best_plan (set);
  mp_live_list_set_plan (MP_LIVE_LIST (self->live_list), set, list_plan);
  mp_window_by_op_update (self, set);
  mp_window_compare_update (self);

  gtk_adjustment_configure (self->cursor_adjustment, mp_view_state_get_cursor (self->state), -1,
                            MAX (lt->n_steps, 1) - 1, 1, 10, 0);
  {
    g_autofree char *name = mp_escape_name (graph->name);

    gtk_label_set_text (self->title_label, name);
  }
  gtk_label_set_text (self->subtitle_label, mp_plan_set_get_path (set));
  if (mp_plan_set_get_n_plans (set) == 0)
    {
      gtk_label_set_text (self->empty_label, "No planner chosen: pick some under Planners.");
      gtk_stack_set_visible_child_name (self->stack, "empty");
    }
  else
    gtk_stack_set_visible_child_name (self->stack, "plans");

  if (skipped && skipped[0])
    {
      g_autofree char *joined = g_strjoinv ("\n", (char **) skipped);

      show_notice (self, joined);
    }
  mp_window_update_status (self);
  mp_window_update_cursor_label (self);
}

static void
build_call_free (gpointer data)
{
  BuildCall *call = data;

  g_object_unref (call->self);
  g_free (call);
}

static void
build_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  BuildCall *call = user_data;
  MpWindow  *self = call->self;
  g_autoptr (GError) error = NULL;
  g_autoptr (MpPlanSet) set = mp_plan_set_build_finish (result, &error);

  if (call->generation == self->generation)
    {
      gboolean new_graph = self->set == NULL || self->new_graph;

      g_clear_object (&self->cancellable);
      if (set != NULL)
        {
          gtk_info_bar_set_revealed (self->error_bar, FALSE);
          show_plan_set (self, set, new_graph);
          if (self->opening)
            mp_window_note_opened (self);
          g_clear_object (&self->prev_file);
          g_clear_pointer (&self->prev_dims, g_strfreev);
          if (self->reloading)
            {
              g_autofree char *name = g_file_get_parse_name (self->file);
              g_autofree char *msg = g_strdup_printf ("%s changed on disk and was reloaded.",
                                                      name);

              show_notice (self, msg);
            }
          self->new_graph = FALSE;
        }
      else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          show_notice (self, "Planning cancelled: the panes show the last finished plans.");
          if (self->set == NULL)
            gtk_label_set_text (self->empty_label, EMPTY_TEXT);
        }
      else
        {
          /* a file that can no longer be read leaves Open Recent */
          if (self->opening && g_error_matches (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_IO))
            mp_window_forget_recent (self);
          if (!mp_window_ask_dims (self, error))
            show_error (self, error->message);
        }
      self->reloading = FALSE;
      self->opening = FALSE;
      mp_window_update_status (self);
      /* last: whoever waits for "busy" finds the results in place */
      set_busy (self, FALSE);
    }
  build_call_free (call);
}

static void
build_progress (const char *planner, guint index, guint total, const MpSearchProgress *search,
                MpPlanSet *partial, gpointer data)
{
  BuildCall       *call = data;
  MpWindow        *self = call->self;
  g_autofree char *text = NULL;

  if (call->generation != self->generation)
    return;
  /* show the plans already made while the slower planners run */
  if (partial)
    {
      show_plan_set (self, partial, self->set == NULL || self->new_graph);
      self->new_graph = FALSE;
      /* a load's first view: the planners' label stays as it is */
      if (planner == NULL)
        return;
    }
  if (planner == NULL)
    {
      g_autofree char *name = self->file ? g_file_get_basename (self->file) : NULL;

      text = g_strdup_printf ("Loading %s…", name ? name : "");
      /* a first file: the empty page says what is happening */
      if (self->set == NULL)
        {
          g_autofree char *page = g_strdup_printf ("Loading %s… (Esc cancels)",
                                                   name ? name : "");

          gtk_label_set_text (self->empty_label, page);
          gtk_stack_set_visible_child_name (self->stack, "empty");
        }
      gtk_progress_bar_set_fraction (self->progress_bar, 0);
      g_clear_handle_id (&self->progress_source, g_source_remove);
      self->progress_source = g_timeout_add (100, poll_load, self);
    }
  else if (search)
    {
      g_autofree char *detail = mp_search_progress_format (search);

      text = g_strdup_printf ("Planning %s (%u of %u): %s", planner, index + 1, total, detail);
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->busy_label), text);
    }
  else
    text = g_strdup_printf ("Planning %s (%u of %u)…", planner, index + 1, total);
  if (planner)
    {
      g_clear_handle_id (&self->progress_source, g_source_remove);
      gtk_progress_bar_set_fraction (self->progress_bar, total ? (gdouble) index / total : 0);
    }
  gtk_label_set_text (self->busy_label, text);
}

static void
order_changed (MpWindow *self)
{
  mp_window_start_build (self, TRUE);
}

void
mp_window_set_order (MpWindow *self, MpOrderMethod order)
{
  g_return_if_fail (MP_IS_WINDOW (self));

  mp_order_view_set_order (MP_ORDER_VIEW (self->order_view), order);
  gtk_notebook_set_current_page (self->notebook,
                                 gtk_notebook_page_num (self->notebook, self->order_view));
}

void
mp_window_start_build (MpWindow *self, gboolean load)
{
  g_auto (GStrv) planners = mp_window_dup_enabled_planners (self);
  g_autofree char *path = NULL;
  g_autoptr (MpPlanSet) base = NULL;
  BuildCall       *call;
  BuildCall       *progress;
  MpPlanSetOptions options = { .time_budget = self->time_budget,
                               .dims = (const char * const *) self->dims,
                               .order = mp_order_view_get_order (
                                 MP_ORDER_VIEW (self->order_view)),
                               .schedule = self->op_order ? MP_PLAN_SCHEDULE_SEQUENTIAL
                                                          : MP_PLAN_SCHEDULE_AUTO };

  if (load && self->file == NULL)
    return;
  if (!load && self->set == NULL)
    {
      /* nothing loaded yet (the last load failed): load again */
      if (self->file == NULL)
        return;
      load = TRUE;
    }
  if (self->cancellable)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  self->generation++;
  if (load)
    {
      path = g_file_get_path (self->file);
      if (path == NULL)
        path = g_file_get_uri (self->file);
      self->new_graph = TRUE;
    }
  call = g_new0 (BuildCall, 1);
  call->self = g_object_ref (self);
  call->generation = self->generation;
  progress = g_new0 (BuildCall, 1);
  progress->self = g_object_ref (self);
  progress->generation = self->generation;
  gtk_label_set_text (self->busy_label, "Planning…");
  gtk_progress_bar_set_fraction (self->progress_bar, 0);
  set_busy (self, TRUE);
  if (!load)
    base = self->replan ? mp_plan_set_drop (self->set, self->replan) : mp_plan_set_ref (self->set);
  self->replan = NULL;
  mp_plan_set_build_async (load ? path : NULL, base, (const char * const *) planners, &options,
                           self->cancellable, build_progress, progress, build_call_free,
                           build_done, call);
}

static void
show_error (MpWindow *self, const char *message)
{
  gtk_label_set_text (self->error_label, message);
  gtk_info_bar_set_revealed (self->error_bar, TRUE);
  if (self->set == NULL)
    {
      gtk_label_set_text (self->empty_label, "The graph could not be opened (see the message "
                                             "above). Open another one with Ctrl+O.");
      gtk_stack_set_visible_child_name (self->stack, "empty");
    }
}

static void
show_notice (MpWindow *self, const char *message)
{
  gtk_label_set_text (self->notice_label, message);
  gtk_info_bar_set_revealed (self->notice_bar, TRUE);
}

void
mp_window_show_error (MpWindow *self, const char *message)
{
  g_return_if_fail (MP_IS_WINDOW (self));
  show_error (self, message);
}

void
mp_window_show_notice (MpWindow *self, const char *message)
{
  g_return_if_fail (MP_IS_WINDOW (self));
  show_notice (self, message);
}

const char *
mp_window_get_error (MpWindow *self)
{
  g_return_val_if_fail (MP_IS_WINDOW (self), NULL);
  return gtk_info_bar_get_revealed (self->error_bar) ? gtk_label_get_text (self->error_label)
                                                     : NULL;
}

void
mp_window_show_live_list (MpWindow *self)
{
  g_return_if_fail (MP_IS_WINDOW (self));
  gtk_notebook_set_current_page (self->notebook,
                                 gtk_notebook_page_num (self->notebook, self->live_list));
}

const char *
mp_window_get_notice (MpWindow *self)
{
  g_return_val_if_fail (MP_IS_WINDOW (self), NULL);
  return gtk_info_bar_get_revealed (self->notice_bar) ? gtk_label_get_text (self->notice_label)
                                                      : NULL;
}

static void
info_bar_response (GtkInfoBar *bar, int response)
{
  if (response == GTK_RESPONSE_CLOSE)
    gtk_info_bar_set_revealed (bar, FALSE);
}

static gboolean
reload_timeout (gpointer data)
{
  MpWindow *self = data;

  self->reload_source = 0;
  self->reloading = TRUE;
  mp_window_start_build (self, TRUE);
  return G_SOURCE_REMOVE;
}

static void
file_changed (GFileMonitor *monitor, GFile *file, GFile *other, GFileMonitorEvent event,
              MpWindow *self)
{
  switch (event)
    {
    case G_FILE_MONITOR_EVENT_CHANGES_DONE_HINT:
    case G_FILE_MONITOR_EVENT_CREATED:
    case G_FILE_MONITOR_EVENT_MOVED_IN:
    case G_FILE_MONITOR_EVENT_RENAMED:
    case G_FILE_MONITOR_EVENT_CHANGED:
      g_clear_handle_id (&self->reload_source, g_source_remove);
      self->reload_source = g_timeout_add (RELOAD_DELAY_MS, reload_timeout, self);
      break;
    default:
      break;
    }
}

static void
watch_file (MpWindow *self, GFile *file)
{
  g_autoptr (GError) error = NULL;

  g_set_object (&self->file, file);
  g_clear_handle_id (&self->reload_source, g_source_remove);
  if (self->monitor)
    g_signal_handlers_disconnect_by_data (self->monitor, self);
  g_clear_object (&self->monitor);
  self->monitor = g_file_monitor_file (file, G_FILE_MONITOR_WATCH_MOVES, NULL, &error);
  if (self->monitor)
    g_signal_connect (self->monitor, "changed", G_CALLBACK (file_changed), self);
  else
    g_debug ("no file monitor: %s", error->message);
}

void
mp_window_cancel (MpWindow *self)
{
  g_autofree char *name = NULL, *back = NULL, *msg = NULL;

  g_return_if_fail (MP_IS_WINDOW (self));
  if (self->cancellable)
    g_cancellable_cancel (self->cancellable);
  /* a load cannot be stopped inside the reader: drop its result and show
   * the previous document again now; the worker stops at its next check */
  if (!self->cancellable || !self->new_graph || !self->set || !self->prev_file)
    return;
  self->generation++;
  g_clear_object (&self->cancellable);
  name = g_file_get_parse_name (self->file);
  watch_file (self, self->prev_file);
  g_clear_object (&self->prev_file);
  g_clear_pointer (&self->dims, g_strfreev);
  self->dims = g_steal_pointer (&self->prev_dims);
  back = g_file_get_parse_name (self->file);
  self->new_graph = self->opening = self->reloading = FALSE;
  msg = g_strdup_printf ("Opening %s cancelled: %s is shown as before.", name, back);
  show_notice (self, msg);
  mp_window_update_status (self);
  set_busy (self, FALSE);
}

void
mp_window_open (MpWindow *self, GFile *file)
{
  g_return_if_fail (MP_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));

  /* what Cancel goes back to while this one loads */
  g_clear_object (&self->prev_file);
  g_clear_pointer (&self->prev_dims, g_strfreev);
  if (self->set && self->file)
    {
      self->prev_file = g_object_ref (self->file);
      self->prev_dims = g_strdupv (self->dims);
    }
  /* another file: its own dimensions, asked again if it has any; those
   * given before the first file (--dim) are that file's */
  if (self->file && !g_file_equal (self->file, file))
    g_clear_pointer (&self->dims, g_strfreev);
  mp_window_dims_clear (self);
  watch_file (self, file);
  gtk_info_bar_set_revealed (self->notice_bar, FALSE);
  self->reloading = FALSE;
  self->search_from = 0;
  mp_window_start_build (self, TRUE);
  self->opening = TRUE;
}

MpPlanSet *
mp_window_get_plan_set (MpWindow *self)
{
  g_return_val_if_fail (MP_IS_WINDOW (self), NULL);
  return self->set;
}

MpViewState *
mp_window_get_state (MpWindow *self)
{
  g_return_val_if_fail (MP_IS_WINDOW (self), NULL);
  return self->state;
}

GPtrArray *
mp_window_get_plan_views (MpWindow *self)
{
  g_return_val_if_fail (MP_IS_WINDOW (self), NULL);
  return self->views;
}

/* Whether a pane's summary for a new scale is still made on its thread
 * (the pane stretches the last one meanwhile): a screenshot waits. */
gboolean
mp_window_summaries_pending (MpWindow *self)
{
  GPtrArray *views = mp_window_get_plan_views (self);

  for (guint i = 0; i < views->len; i++)
    {
      MpRenderIndex *index = mp_plan_view_get_index (views->pdata[i]);

      if (index != NULL && mp_render_index_summary_pending (index))
        return TRUE;
    }
  return FALSE;
}

GtkWidget *
mp_window_get_summary_table (MpWindow *self)
{
  g_return_val_if_fail (MP_IS_WINDOW (self), NULL);
  return GTK_WIDGET (self->summary_table);
}

GtkWidget *
mp_window_get_live_list (MpWindow *self)
{
  g_return_val_if_fail (MP_IS_WINDOW (self), NULL);
  return self->live_list;
}

static void
state_notify (MpWindow *self, GParamSpec *pspec)
{
  const char *name = g_param_spec_get_name (pspec);

  if (g_str_equal (name, "cursor"))
    mp_window_update_cursor_label (self);
  else if (g_str_equal (name, "selected"))
    mp_window_update_status (self);
  else if (g_str_equal (name, "color-by"))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COLOR_BY]);
  else if (g_str_equal (name, "shared-scale"))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SHARED_SCALE]);
}

static void
planner_selected (MpWindow *self, const char *planner)
{
  MpPlan *plan = self->set ? mp_plan_set_find_plan (self->set, planner) : NULL;

  if (plan)
    {
      self->list_chosen = TRUE;
      mp_live_list_set_plan (MP_LIVE_LIST (self->live_list), self->set, plan);
    }
}

static void
mp_window_css_changed (GtkWidget *widget, GtkCssStyleChange *change)
{
  MpWindow *self = MP_WINDOW (widget);
  GdkRGBA   fg;

  GTK_WIDGET_CLASS (mp_window_parent_class)->css_changed (widget, change);
  /* Light text means a dark theme: follow it, whatever set it. */
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &fg);
  G_GNUC_END_IGNORE_DEPRECATIONS
  mp_view_state_set_dark (self->state, 0.299 * fg.red + 0.587 * fg.green + 0.114 * fg.blue > 0.5);
  mp_compare_strip_set_dark (MP_COMPARE_STRIP (self->compare_strip),
                             mp_view_state_get_dark (self->state));
}

static void
mp_window_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  MpWindow *self = MP_WINDOW (object);

  switch (prop_id)
    {
    case PROP_BUSY:
      g_value_set_boolean (value, mp_window_get_busy (self));
      break;
    case PROP_COLOR_BY:
      g_value_set_string (value, mp_color_by_to_string (mp_view_state_get_color_by (self->state)));
      break;
    case PROP_SHARED_SCALE:
      g_value_set_boolean (value, mp_view_state_get_shared_scale (self->state));
      break;
    case PROP_TIME_BUDGET:
      g_value_set_double (value, self->time_budget);
      break;
    case PROP_PLAN_FOR_OP_ORDER:
      g_value_set_boolean (value, self->op_order);
      break;
    case PROP_PLANNERS:
      /* every planner is the empty list, as the planners key has it */
      {
        guint n;

        mp_planners (&n);
        if (g_hash_table_size (self->enabled) == n)
          g_value_take_boxed (value, g_new0 (char *, 1));
        else
          g_value_take_boxed (value, mp_window_dup_enabled_planners (self));
      }
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
mp_window_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  MpWindow *self = MP_WINDOW (object);

  switch (prop_id)
    {
    case PROP_COLOR_BY:
      {
        MpColorBy by;

        if (mp_color_by_from_string (g_value_get_string (value), &by))
          mp_view_state_set_color_by (self->state, by);
      }
      break;
    case PROP_SHARED_SCALE:
      mp_view_state_set_shared_scale (self->state, g_value_get_boolean (value));
      break;
    case PROP_TIME_BUDGET:
      mp_window_set_time_budget (self, g_value_get_double (value));
      break;
    case PROP_PLAN_FOR_OP_ORDER:
      mp_window_set_op_order (self, g_value_get_boolean (value));
      break;
    case PROP_PLANNERS:
      {
        const char * const *names = g_value_get_boxed (value);

        mp_window_set_planners (self, names && names[0] ? names : NULL);
      }
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
mp_window_unrealize (GtkWidget *widget)
{
  MpWindow *self = MP_WINDOW (widget);

  /* A closed window stops its planning; a result already on its way is
   * dropped. The build's callback data hold references on the window, and
   * both are released on this (the main) thread: the result's in
   * build_done, the progress reports' by an idle that plan-set.c posts here
   * when the task goes, wherever that happens. So the window is never
   * finalized on the worker thread. */
  self->generation++;
  if (self->cancellable)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_handle_id (&self->reload_source, g_source_remove);
  g_clear_handle_id (&self->progress_source, g_source_remove);
  GTK_WIDGET_CLASS (mp_window_parent_class)->unrealize (widget);
}

static void
mp_window_dispose (GObject *object)
{
  MpWindow *self = MP_WINDOW (object);

  if (self->cancellable)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_handle_id (&self->reload_source, g_source_remove);
  if (self->monitor)
    g_signal_handlers_disconnect_by_data (self->monitor, self);
  g_clear_object (&self->monitor);
  g_clear_object (&self->file);
  g_clear_object (&self->prev_file);
  g_clear_pointer (&self->prev_dims, g_strfreev);
  g_clear_handle_id (&self->progress_source, g_source_remove);
  mp_window_compare_dispose (self);
  if (self->state)
    g_signal_handlers_disconnect_by_data (self->state, self);
  g_clear_pointer (&self->views, g_ptr_array_unref);
  gtk_widget_dispose_template (GTK_WIDGET (self), MP_TYPE_WINDOW);
  g_clear_pointer (&self->set, mp_plan_set_unref);
  g_clear_object (&self->planner_actions);
  g_clear_pointer (&self->enabled, g_hash_table_unref);
  g_clear_object (&self->state);
  g_clear_object (&self->settings);
  g_clear_pointer (&self->dims, g_strfreev);
  G_OBJECT_CLASS (mp_window_parent_class)->dispose (object);
}

static void
mp_window_class_init (MpWindowClass *klass)
{
  GObjectClass   *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = mp_window_dispose;
  object_class->get_property = mp_window_get_property;
  object_class->set_property = mp_window_set_property;
  widget_class->css_changed = mp_window_css_changed;
  widget_class->unrealize = mp_window_unrealize;

  properties[PROP_BUSY] = g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                                                G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_COLOR_BY] =
    g_param_spec_string ("color-by", NULL, NULL, "kind",
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SHARED_SCALE] =
    g_param_spec_boolean ("shared-scale", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* optimal: seconds before it gives up the proof (the CLI's default) */
  properties[PROP_TIME_BUDGET] =
    g_param_spec_double ("time-budget", NULL, NULL, 1, 3600, MP_OPTIMAL_DEFAULT_BUDGET,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* a graph with several streams: plan for op order, not for the parallel
   * groups its streams run in */
  properties[PROP_PLAN_FOR_OP_ORDER] =
    g_param_spec_boolean ("plan-for-op-order", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* the planners run, by name; empty: every planner */
  properties[PROP_PLANNERS] =
    g_param_spec_boxed ("planners", NULL, NULL, G_TYPE_STRV,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (MP_TYPE_SUMMARY_TABLE);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/memplan/Memplan/memplan-window.ui");
  gtk_widget_class_bind_template_child (widget_class, MpWindow, planners_button);
  gtk_widget_class_bind_template_child (widget_class, MpWindow, planners_box);
  gtk_widget_class_bind_template_child (widget_class, MpWindow, busy_box);
  gtk_widget_class_bind_template_child (widget_class, MpWindow, spinner);
  gtk_widget_class_bind_template_child (widget_class, MpWindow, busy_label);
  gtk_widget_class_bind_template_child (widget_class, MpWindow, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, MpWindow, title_label);
  gtk_widget_class_bind_template_child (widget_class, MpWindow, subtitle_label);
  gtk_widget_class_bind_template_child (widget_class, MpWindow, search_bar);
  gtk_widget_class_bind_template_child (widget_class, MpWindow, search_entry);
  gtk_widget_class_bind_template_child (widget_class, MpWindow, search_status);
  gtk_widget_class_bind_template_child (widget_class, MpWindow, error_bar);
  gtk_widget_class_bind_template_child (widget_class, MpWindow, error_label);
  gtk_widget_class_bind_template_child (widget_class, MpWindow, notice_bar);
  gtk_widget_class_bind_template_child (widget_class, MpWindow, notice_label);
  gtk_widget_class_bind_template_child (widget_class, MpWindow, stack);
  gtk_widget_class_bind_template_child (widget_class, MpWindow, empty_label);
  gtk_widget_class_bind_template_child (widget_class, MpWindow, panes_box);
  gtk_widget_class_bind_template_child (widget_class, MpWindow, plans_box);
  gtk_widget_class_bind_template_child (widget_class, MpWindow, paned);
  gtk_widget_class_bind_template_child (widget_class, MpWindow, cursor_adjustment);
  gtk_widget_class_bind_template_child (widget_class, MpWindow, cursor_label);
  gtk_widget_class_bind_template_child (widget_class, MpWindow, notebook);
  gtk_widget_class_bind_template_child (widget_class, MpWindow, summary_table);
  gtk_widget_class_bind_template_child (widget_class, MpWindow, status_label);
  gtk_widget_class_bind_template_child (widget_class, MpWindow, recent_section);

  gtk_widget_class_bind_template_callback (widget_class, planner_selected);
  gtk_widget_class_bind_template_callback (widget_class, info_bar_response);
  mp_window_class_add_search (widget_class);
  mp_window_class_add_status (widget_class);
  mp_window_class_install_actions (widget_class);
}

static void
mp_window_init (MpWindow *self)
{
  self->time_budget = MP_OPTIMAL_DEFAULT_BUDGET;
  self->state = mp_view_state_new ();
  self->views = g_ptr_array_new ();
  self->enabled = g_hash_table_new (g_str_hash, g_str_equal);
  gtk_widget_init_template (GTK_WIDGET (self));

  mp_window_planners_init (self);
  self->live_list = mp_live_list_new (self->state);
  self->memory_strip = mp_memory_strip_new (self->state);
  gtk_box_prepend (self->plans_box, self->memory_strip);
  mp_window_compare_init (self);
  gtk_notebook_append_page (self->notebook, self->live_list, gtk_label_new ("Live at step"));
  mp_window_by_op_init (self);
  self->order_view = mp_order_view_new (self->state);
  gtk_notebook_append_page (self->notebook, self->order_view, gtk_label_new ("Order"));
  /* the order is a planning stage: another one plans the file again */
  g_signal_connect_swapped (self->order_view, "notify::order", G_CALLBACK (order_changed), self);

  g_signal_connect_swapped (self->state, "notify", G_CALLBACK (state_notify), self);

  mp_window_dnd_init (self);

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.cancel", FALSE);
  mp_window_update_cursor_label (self);
}

MpWindow *
mp_window_new (GtkApplication *application)
{
  return g_object_new (MP_TYPE_WINDOW, "application", application, NULL);
}
