/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

#include "plan-view.h"
#include "summary-table.h"
#include "window-export.h"
#include "widget-shot.h"

/* Exported comparison: width, and height per plan, in pixels or points. */
#define EXPORT_WIDTH       1600
#define EXPORT_PANE_HEIGHT 360

static guint
collect_indices (MpWindow *self, MpRenderIndex ***indices, MpRenderOptions *options)
{
  GPtrArray *views = mp_window_get_plan_views (self);
  guint      n = views->len;

  *indices = g_new0 (MpRenderIndex *, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    (*indices)[i] = mp_plan_view_get_index (views->pdata[i]);
  if (n)
    mp_plan_view_get_options (views->pdata[0], options);
  options->flags = 0;
  options->shared_scale = mp_view_state_get_shared_scale (mp_window_get_state (self));
  if (!options->shared_scale)
    options->viewport.addr_min = options->viewport.addr_max = 0;
  return n;
}

gboolean
mp_window_export_view (MpWindow *self, const char *path, GError **error)
{
  g_autofree MpRenderIndex **indices = NULL;
  g_autofree MpRenderIndex **ranked = NULL;
  g_autofree MpPlan        **plans = NULL;
  g_autofree guint          *order = NULL;
  MpRenderOptions            options = { 0 };
  MpRenderFormat             format;
  guint                      n, n_ranked;
  gboolean                   ok;

  g_return_val_if_fail (MP_IS_WINDOW (self), FALSE);

  if (!mp_render_format_from_path (path, &format, error))
    return FALSE;
  if ((n = collect_indices (self, &indices, &options)) == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: there is no plan to export", path);
      return FALSE;
    }
  /* the winner first, as render --planner all draws them; the panes' own
   * titles stay unnumbered, so the ranks are only lent for this picture */
  plans = g_new (MpPlan *, n);
  order = g_new (guint, n);
  ranked = g_new (MpRenderIndex *, n);
  for (guint i = 0; i < n; i++)
    plans[i] = (MpPlan *) mp_render_index_plan (indices[i]);
  n_ranked = mp_plans_rank (plans, n, order);
  for (guint k = 0; k < n; k++)
    {
      ranked[k] = indices[order[k]];
      if (n > 1 && k < n_ranked)
        mp_render_index_set_rank (ranked[k], k + 1);
    }
  /* PDF and SVG on A4 landscape, a plan a page (SVG: all on its one page) */
  ok = mp_render_write_output (path, format, ranked, n, &options,
                               &(MpRenderOutput) { MP_PAGE_A4, FALSE, 0 }, EXPORT_WIDTH,
                               EXPORT_PANE_HEIGHT * n, error);
  for (guint k = 0; k < n; k++)
    mp_render_index_set_rank (ranked[k], 0);
  return ok;
}

/* The plan a CSV file holds: the one selected in the Summary tab. */
static MpPlan *
selected_plan (MpWindow *self)
{
  MpSummaryTable *table = MP_SUMMARY_TABLE (mp_window_get_summary_table (self));
  const char     *planner = mp_summary_table_get_selected (table);

  return planner ? mp_plan_set_find_plan (mp_window_get_plan_set (self), planner) : NULL;
}

gboolean
mp_window_export_plans (MpWindow *self, const char *path, GError **error)
{
  MpPlanSet           *set;
  g_autofree char     *contents = NULL;
  g_autofree MpPlan  **plans = NULL;
  guint                n;

  g_return_val_if_fail (MP_IS_WINDOW (self), FALSE);

  set = mp_window_get_plan_set (self);
  if (set == NULL || (n = mp_plan_set_get_n_plans (set)) == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: there is no plan to save", path);
      return FALSE;
    }
  if (g_str_has_suffix (path, ".csv") || g_str_has_suffix (path, ".CSV"))
    {
      MpPlan *plan = selected_plan (self);

      if (plan == NULL)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       "%s: a CSV file holds one plan: select it in the Summary tab first "
                       "(or save as .json for every plan)", path);
          return FALSE;
        }
      contents = mp_plan_to_csv (mp_plan_set_get_graph (set), plan);
    }
  else if (g_str_has_suffix (path, ".json") || g_str_has_suffix (path, ".JSON"))
    {
      plans = g_new (MpPlan *, n);
      for (guint i = 0; i < n; i++)
        plans[i] = mp_plan_set_get_plan (set, i);
      contents = mp_plan_to_json (mp_plan_set_get_graph (set), plans, n);
    }
  else
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "%s: unknown plan format (use .json for every plan, .csv for the plan "
                   "selected in the Summary tab)", path);
      return FALSE;
    }
  return mp_write_file_atomic (path, contents, -1, error);
}

gboolean
mp_window_screenshot (MpWindow *self, const char *path, GError **error)
{
  g_return_val_if_fail (MP_IS_WINDOW (self), FALSE);

  return mp_widget_screenshot (GTK_WIDGET (self), path, error);
}

void
mp_file_chooser_add_filter (GtkFileChooser *chooser, const char *name, const char *pattern)
{
  g_autoptr (GtkFileFilter) filter = gtk_file_filter_new ();

  gtk_file_filter_set_name (filter, name);
  gtk_file_filter_add_pattern (filter, pattern);
  gtk_file_chooser_add_filter (chooser, filter);
}

/* What one save dialog was opened for. */
typedef struct
{
  MpWindow        *self;   /* not a reference: the closure is watched, see below */
  MpExportKind     kind;
  GtkNativeDialog *dialog; /* owned */
  gulong           handler;
} SaveRequest;

/* When the dialog was answered, or the window went first. */
static void
save_request_free (gpointer data, GClosure *closure)
{
  SaveRequest *request = data;

  gtk_native_dialog_destroy (request->dialog);
  g_object_unref (request->dialog);
  g_free (request);
}

/* What was written, for the notice. */
static char *
describe_written (MpWindow *self, MpExportKind kind, const char *path)
{
  if (kind == MP_EXPORT_PLANS && (g_str_has_suffix (path, ".csv") ||
                                  g_str_has_suffix (path, ".CSV")))
    return g_strdup_printf ("Wrote %s: the %s plan (selected in Summary).", path,
                            selected_plan (self)->planner);
  if (kind == MP_EXPORT_PLANS)
    return g_strdup_printf ("Wrote %s: every plan (%u).", path,
                            mp_plan_set_get_n_plans (mp_window_get_plan_set (self)));
  return g_strdup_printf ("Wrote %s.", path);
}

gboolean
mp_window_save (MpWindow *self, MpExportKind kind, const char *path)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *msg = NULL;
  gboolean         ok;

  g_return_val_if_fail (MP_IS_WINDOW (self), FALSE);

  if (kind == MP_EXPORT_VIEW)
    ok = mp_window_export_view (self, path, &error);
  else
    ok = mp_window_export_plans (self, path, &error);
  if (!ok)
    {
      mp_window_show_error (self, error->message);
      return FALSE;
    }
  msg = describe_written (self, kind, path);
  mp_window_show_notice (self, msg);
  return TRUE;
}

static void
save_response (GtkNativeDialog *dialog, int response, SaveRequest *request)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = g_file_get_path (file);

      if (path == NULL)
        mp_window_show_error (request->self, "Only local files can be written.");
      else
        mp_window_save (request->self, request->kind, path);
    }
  /* frees the request, and with it the dialog, once the emission is over */
  g_signal_handler_disconnect (dialog, request->handler);
}

void
mp_window_run_save_dialog (MpWindow *self, MpExportKind kind)
{
  static const char * const view_filters[] = { "PNG image", "*.png", "SVG drawing", "*.svg",
                                               "PDF document", "*.pdf", NULL };
  static const char * const plan_filters[] = { "Plans (JSON, every planner)", "*.json",
                                               "Plan (CSV, the one selected in Summary)",
                                               "*.csv", NULL };
  const char * const   *filters = kind == MP_EXPORT_VIEW ? view_filters : plan_filters;
  MpPlanSet            *set = mp_window_get_plan_set (self);
  GtkFileChooserNative *dialog;
  g_autofree char      *name = NULL;
  SaveRequest          *request;
  GClosure             *closure;

  g_return_if_fail (MP_IS_WINDOW (self));

  if (set == NULL)
    return;
  /* GTK 4's chooser always asks before replacing an existing file. */
  dialog = gtk_file_chooser_native_new (kind == MP_EXPORT_VIEW ? "Export View" : "Save Plans",
                                        GTK_WINDOW (self), GTK_FILE_CHOOSER_ACTION_SAVE, "_Save",
                                        "_Cancel");
  /* modal, so the window cannot change (or close) under the dialog */
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);
  name = g_strdup_printf ("%s%s", mp_plan_set_get_graph (set)->name,
                          kind == MP_EXPORT_VIEW ? "-plans.png" : "-plans.json");
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), name);
  for (guint i = 0; filters[i]; i += 2)
    mp_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), filters[i], filters[i + 1]);

  request = g_new0 (SaveRequest, 1);
  request->self = self;
  request->kind = kind;
  request->dialog = GTK_NATIVE_DIALOG (dialog);
  /* g_signal_connect_object with a struct for data: the closure dies with
   * the window, so a dialog answered after the window closed does nothing. */
  closure = g_cclosure_new (G_CALLBACK (save_response), request, save_request_free);
  g_object_watch_closure (G_OBJECT (self), closure);
  request->handler = g_signal_connect_closure (dialog, "response", closure, FALSE);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}
