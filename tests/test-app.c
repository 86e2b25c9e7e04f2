/* SPDX-License-Identifier: GPL-3.0-or-later */
/* GUI smoke tests: the real window on the default graph, driven through the
 * same calls its gestures and dialogs make. Run under xvfb-run; with no
 * display the program reports a skipped plan (exit 77 is an error in TAP). */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include <glib/gstdio.h>

#include "dims-form.h"
#include "memplan-application.h"
#include "memplan-window.h"
#include "by-op-view.h"
#include "live-list.h"
#include "live-row.h"
#include "summary-words.h"
#include "plan-view.h"
#include "summary-row.h"
#include "summary-table.h"
#include "text-cell.h"
#include "window-export.h"
#include "test-gui.h"
#include "test-output-rule.h"
#include "test-util.h"

static gboolean
window_ready (gpointer data)
{
  MpWindow  *win = data;
  GPtrArray *views = mp_window_get_plan_views (win);

  if (mp_window_get_busy (win))
    return FALSE;
  /* the panes must be laid out for hit-testing */
  for (guint i = 0; i < views->len; i++)
    if (gtk_widget_get_width (views->pdata[i]) <= 0)
      return FALSE;
  return TRUE;
}

/* A window opening path, not waited for. */
static MpWindow *
start_window (const char *path)
{
  MpWindow *win = mp_window_new (NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);

  gtk_window_set_default_size (GTK_WINDOW (win), 1280, 860);
  gtk_window_present (GTK_WINDOW (win));
  mp_window_open (win, file);
  return win;
}

/* planned again for op order (the plan-for-op-order toggle) */
static gboolean
op_order_planned (gpointer data)
{
  MpWindow  *win = data;
  MpPlanSet *set = mp_window_get_plan_set (win);

  return window_ready (win) && set && mp_plan_set_get_workload (set)->concurrent == NULL;
}

static MpWindow *
open_window (const char *path)
{
  MpWindow *win = start_window (path);

  run_until (window_ready, win);
  return win;
}

static guint
n_planners (void)
{
  guint n;

  mp_planners (&n);
  return n;
}

static void
test_default_graph (void)
{
  g_autofree char *path = mp_application_default_graph ();
  MpWindow        *win = open_window (path);
  MpPlanSet       *set = mp_window_get_plan_set (win);
  GListModel      *rows = mp_summary_table_get_model (MP_SUMMARY_TABLE (
                            mp_window_get_summary_table (win)));
  guint            n = n_planners ();

  g_assert_true (g_str_has_suffix (path, "default.json"));
  g_assert_null (mp_window_get_error (win));
  g_assert_nonnull (set);
  g_assert_cmpstr (mp_plan_set_get_graph (set)->name, ==, "encoder-4x512");
  g_assert_cmpuint (mp_plan_set_get_n_plans (set), ==, n);
  g_assert_cmpuint (mp_window_get_plan_views (win)->len, ==, n);
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==, n);

  /* every plan has its row, with its own figures */
  for (guint i = 0; i < n; i++)
    {
      g_autoptr (MpSummaryRow) row = g_list_model_get_item (rows, i);
      MpPlan          *plan = mp_plan_set_find_plan (set, mp_summary_row_get_planner (row));
      g_autofree char *arena = mp_summary_row_format (row, "arena");
      g_autofree char *want = NULL;

      g_assert_nonnull (plan);
      want = mp_format_bytes (plan->arena);
      g_assert_cmpstr (arena, ==, want);
      g_assert_true (plan->valid);
    }

  /* sorting by arena, as a click on the header does */
  mp_summary_table_sort_by (MP_SUMMARY_TABLE (mp_window_get_summary_table (win)), "arena",
                            GTK_SORT_ASCENDING);
  for (guint i = 1; i < n; i++)
    {
      g_autoptr (MpSummaryRow) a = g_list_model_get_item (rows, i - 1);
      g_autoptr (MpSummaryRow) b = g_list_model_get_item (rows, i);
      guint64 x, y;

      g_object_get (a, "arena", &x, NULL);
      g_object_get (b, "arena", &y, NULL);
      g_assert_cmpuint (x, <=, y);
    }
  {
    /* naive is never better than greedy-by-size: it sorts last or tied */
    g_autoptr (MpSummaryRow) last = g_list_model_get_item (rows, n - 1);
    guint64 top;

    g_object_get (last, "arena", &top, NULL);
    g_assert_cmpuint (top, ==, mp_plan_set_find_plan (set, "naive")->arena);
  }
  gtk_window_destroy (GTK_WINDOW (win));
}

static void
test_click_selects (void)
{
  g_autofree char *path = mp_application_default_graph ();
  MpWindow        *win = open_window (path);
  MpPlanSet       *set = mp_window_get_plan_set (win);
  const MpGraph   *graph = mp_plan_set_get_graph (set);
  MpViewState     *state = mp_window_get_state (win);
  GPtrArray       *views = mp_window_get_plan_views (win);
  gint             tensor = mp_graph_find_tensor (graph, "l0.scores");

  g_assert_cmpint (tensor, >=, 0);
  for (guint i = 0; i < views->len; i++)
    {
      MpPlanView     *view = views->pdata[i];
      MpPlan         *plan = mp_plan_view_get_plan (view);
      MpRenderLayout  layout;
      MpRenderOptions options;
      gdouble         x0, y0, x1, y1, step, address;
      guint           r;

      /* where the record is, from the plan itself */
      for (r = 0; r < plan->n_records; r++)
        if (plan->records[r].tensor == (guint) tensor)
          break;
      g_assert_cmpuint (r, <, plan->n_records);
      mp_plan_view_get_options (view, &options);
      mp_render_layout (mp_plan_view_get_index (view), &options,
                        gtk_widget_get_width (GTK_WIDGET (view)),
                        gtk_widget_get_height (GTK_WIDGET (view)), &layout);
      mp_render_layout_to_device (&layout, plan->records[r].first, plan->offsets[r], &x0, &y0);
      mp_render_layout_to_device (&layout, plan->records[r].last + 1.0,
                                  plan->offsets[r] + plan->records[r].bytes, &x1, &y1);

      /* a click in its middle selects it, in every pane at once */
      mp_view_state_set_selected (state, -1);
      mp_plan_view_click (view, (x0 + x1) / 2, (y0 + y1) / 2);
      g_assert_cmpint (mp_view_state_get_selected (state), ==, tensor);
      /* and the pane's plan becomes the one whose memory map is listed */
      g_assert_true (mp_live_list_get_plan (MP_LIVE_LIST (mp_window_get_live_list (win))) == plan);
      g_assert_cmpint (mp_plan_view_tensor_at (view, (x0 + x1) / 2, (y0 + y1) / 2), ==, tensor);
      for (guint j = 0; j < views->len; j++)
        {
          MpRenderOptions o;

          mp_plan_view_get_options (views->pdata[j], &o);
          g_assert_cmpuint (o.n_highlight, ==, 1);
          g_assert_cmpuint (o.highlight[0], ==, (guint) tensor);
        }

      /* the tooltip text names it, with its lifetime and producer */
      {
        g_autofree char *tip = mp_plan_view_describe (view, tensor);

        g_assert_nonnull (strstr (tip, "<b>l0.scores</b>"));
        g_assert_nonnull (strstr (tip, "produced by "));
        g_assert_nonnull (strstr (tip, plan->planner));
      }

      /* a click on the step axis moves the step cursor there */
      mp_render_layout_to_data (&layout, layout.x_axis.x + layout.x_axis.width / 2,
                                layout.x_axis.y + layout.x_axis.height / 2, &step, &address);
      mp_plan_view_click (view, layout.x_axis.x + layout.x_axis.width / 2,
                          layout.x_axis.y + layout.x_axis.height / 2);
      g_assert_cmpint (mp_view_state_get_cursor (state), ==, (gint) step);

      /* a click on the title line clears the selection */
      mp_plan_view_click (view, layout.title.x + 2, layout.title.y + 2);
      g_assert_cmpint (mp_view_state_get_selected (state), ==, -1);
    }
  gtk_window_destroy (GTK_WINDOW (win));
}

static void
test_zoom_shared (void)
{
  g_autofree char *path = mp_application_default_graph ();
  MpWindow        *win = open_window (path);
  MpViewState     *state = mp_window_get_state (win);
  GPtrArray       *views = mp_window_get_plan_views (win);
  guint            n_steps = mp_plan_set_get_lifetimes (mp_window_get_plan_set (win))->n_steps;
  gdouble          min, max;

  mp_view_state_get_steps (state, &min, &max);
  g_assert_cmpfloat (min, ==, 0);
  g_assert_cmpfloat (max, ==, n_steps);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (win), "win.zoom-in", NULL));
  mp_view_state_get_steps (state, &min, &max);
  g_assert_cmpfloat_with_epsilon (max - min, n_steps / 1.5, 1e-9);
  /* every pane draws the same step range */
  for (guint i = 0; i < views->len; i++)
    {
      MpRenderOptions o;

      mp_plan_view_get_options (views->pdata[i], &o);
      g_assert_cmpfloat (o.viewport.step_min, ==, min);
      g_assert_cmpfloat (o.viewport.step_max, ==, max);
    }
  mp_view_state_pan (state, 1e9);
  mp_view_state_get_steps (state, &min, &max);
  g_assert_cmpfloat (max, ==, n_steps);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (win), "win.zoom-fit", NULL));
  mp_view_state_get_steps (state, &min, &max);
  g_assert_cmpfloat (min, ==, 0);
  g_assert_cmpfloat (max, ==, n_steps);

  /* the menu's colour key and address scale reach every pane */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (win), "win.color-by", "s", "op"));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (win), "win.shared-scale", NULL));
  for (guint i = 0; i < views->len; i++)
    {
      MpRenderOptions o;
      MpPlan         *plan = mp_plan_view_get_plan (views->pdata[i]);
      MpViewport      full;

      mp_plan_view_get_options (views->pdata[i], &o);
      g_assert_cmpint (o.color_by, ==, MP_COLOR_BY_OP);
      /* one scale: the widest arena (naive's) with this pane's headroom */
      mp_render_full_viewport (mp_plan_view_get_index (views->pdata[i]), &full);
      g_assert_cmpfloat_with_epsilon (o.viewport.addr_max / full.addr_max,
                                      (gdouble) mp_plan_set_find_plan (
                                        mp_window_get_plan_set (win), "naive")->arena / plan->arena,
                                      1e-9);
    }
  gtk_window_destroy (GTK_WINDOW (win));
}

static gboolean
n_views_is (gpointer data)
{
  MpWindow *win = data;

  return !mp_window_get_busy (win) &&
         mp_window_get_plan_views (win)->len ==
           GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (win), "want"));
}

static void
test_toggle_planner (void)
{
  g_autofree char *path = mp_application_default_graph ();
  MpWindow        *win = open_window (path);
  guint            n = n_planners ();
  GPtrArray       *views = mp_window_get_plan_views (win);

  MpRenderIndex   *kept = mp_plan_view_get_index (views->pdata[1]);

  g_assert_true (mp_window_get_planner_enabled (win, "naive"));
  mp_window_set_planner_enabled (win, "naive", FALSE);
  g_object_set_data (G_OBJECT (win), "want", GUINT_TO_POINTER (n - 1));
  run_until (n_views_is, win);
  /* the other panes keep their plans and drawing indices: nothing replanned */
  g_assert_true (mp_plan_view_get_index (views->pdata[0]) == kept);
  for (guint i = 0; i < views->len; i++)
    g_assert_cmpstr (mp_plan_view_get_plan (views->pdata[i])->planner, !=, "naive");
  g_assert_null (mp_plan_set_find_plan (mp_window_get_plan_set (win), "naive"));

  mp_window_set_planner_enabled (win, "naive", TRUE);
  g_object_set_data (G_OBJECT (win), "want", GUINT_TO_POINTER (n));
  run_until (n_views_is, win);
  /* table order: naive first again */
  g_assert_cmpstr (mp_plan_view_get_plan (views->pdata[0])->planner, ==, "naive");
  gtk_window_destroy (GTK_WINDOW (win));
}

static void
test_bad_file (void)
{
  g_autofree char *dir = g_dir_make_tmp ("memplan-test-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "bad.json", NULL);
  const char      *bad = "{\"format\": \"memplan.graph/1\", \"tensors\": [{\"name\": \"a\", "
                         "\"size\": 64}], \"ops\": [{\"name\": \"f\", \"inputs\": [\"nope\"], "
                         "\"outputs\": [\"a\"]}]}";
  g_autoptr (GError) want = NULL;
  MpWindow        *win;

  g_assert_true (g_file_set_contents (path, bad, -1, NULL));
  g_assert_null (mp_workload_open (path, NULL, &want));
  win = open_window (path);
  /* the loader's own message, naming the file and the op */
  g_assert_cmpstr (mp_window_get_error (win), ==, want->message);
  g_assert_nonnull (strstr (want->message, path));
  g_assert_nonnull (strstr (want->message, "'f'"));
  g_assert_null (mp_window_get_plan_set (win));
  g_assert_cmpuint (mp_window_get_plan_views (win)->len, ==, 0);
  gtk_window_destroy (GTK_WINDOW (win));
  g_unlink (path);
  g_rmdir (dir);
}

/* The ONNX inputs that once took the app down with the CLI (a zero stride,
 * short raw_data, types nested 5,000 deep) show the loader's message. */
static void
test_onnx_crash_inputs (void)
{
  static const char *const names[] = { "crash-maxpool-strides-0.onnx",
                                       "crash-reshape-short-raw-data.onnx",
                                       "crash-nested-5000.onnx" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *relative = g_build_filename ("tests/fuzz-regressions/onnx", names[i], NULL);
      g_autofree char *path = test_source_path (relative);
      g_autoptr (GError) want = NULL;
      MpWindow        *win;

      g_assert_null (mp_workload_open (path, NULL, &want));
      win = open_window (path);
      g_assert_cmpstr (mp_window_get_error (win), ==, want->message);
      g_assert_true (g_str_has_prefix (want->message, path));
      g_assert_null (mp_window_get_plan_set (win));
      gtk_window_destroy (GTK_WINDOW (win));
    }
}

static void
finalized (gpointer data, GObject *where_the_object_was)
{
  /* the thread that finalized the window */
  *(GThread **) data = g_thread_self ();
}

static gboolean
is_set (gpointer data)
{
  return *(gpointer *) data != NULL;
}

static void
test_close_while_planning (void)
{
  g_autofree char *path = mp_application_default_graph ();
  g_autoptr (GFile) file = g_file_new_for_path (path);
  MpWindow        *win = mp_window_new (NULL);
  GThread         *finalized_on = NULL;

  /* Closing a window whose planning thread still runs drops the result.
   * The build holds the only references left; once the task is done the
   * window goes, and on this thread (never the worker). */
  g_object_weak_ref (G_OBJECT (win), finalized, &finalized_on);
  gtk_window_present (GTK_WINDOW (win));
  mp_window_open (win, file);
  g_assert_true (mp_window_get_busy (win));
  gtk_window_destroy (GTK_WINDOW (win));
  g_assert_false (mp_window_get_busy (win));
  g_assert_null (mp_window_get_plan_set (win));
  win = NULL;
  run_until (is_set, &finalized_on);
  g_assert_true (finalized_on == g_thread_self ());
}

static void
test_concurrent_validity (void)
{
  g_autofree char *path = test_data_path ("multistream.json");
  MpWindow        *win = open_window (path);
  MpPlanSet       *set;
  GListModel      *rows = mp_summary_table_get_model (MP_SUMMARY_TABLE (
                            mp_window_get_summary_table (win)));
  MpPlan          *greedy;

  /* planned for op order (the menu's toggle, --schedule sequential), greedy-by-size
   * is valid there and clashes when the two streams run side by side, as
   * memplan-cli plan reports */
  g_object_set (win, "plan-for-op-order", TRUE, NULL);
  run_until (op_order_planned, win);
  set = mp_window_get_plan_set (win);
  g_assert_null (mp_plan_set_get_workload (set)->concurrent);
  greedy = mp_plan_set_find_plan (set, "greedy-by-size");
  g_assert_true (greedy->valid);
  g_assert_true (greedy->concurrent_checked);
  g_assert_false (greedy->concurrent_valid);
  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr (MpSummaryRow) row = g_list_model_get_item (rows, i);
      const char      *planner = mp_summary_row_get_planner (row);
      g_autofree char *cell = mp_summary_row_format (row, "valid");
      g_autofree char *tip = mp_summary_row_describe_validity (row);
      gboolean         valid;

      g_object_get (row, "valid", &valid, NULL);
      /* one verdict, the engine's: each plan under the schedule it was made
       * for, the other schedule's failure as information */
      if (g_str_equal (planner, "greedy-by-size"))
        {
          g_assert_cmpstr (cell, ==, "races when streams run concurrently (valid in op order)");
          g_assert_true (valid);
          g_assert_false (mp_summary_row_get_best (row));
          g_assert_cmpstr (tip, ==,
                           "Races when streams run concurrently: "
                           "tensors 'stem.a' (offset 524288, 262144 bytes, parallel groups 0-1) "
                           "and 'b.mid' (offset 524288, 524288 bytes, parallel groups 1-2) are "
                           "live together in parallel group 1 (ops 'a.conv1' and 'b.conv1') and "
                           "overlap in bytes [524288, 786432).");
        }
      else if (g_str_equal (planner, "naive"))
        {
          g_assert_cmpstr (cell, ==, "valid in op order");
          g_assert_true (valid);
          g_assert_cmpstr (tip, ==, "Valid in op order.");
        }
      else if (g_str_equal (planner, "multistream"))
        {
          g_assert_cmpstr (cell, ==, "valid in parallel groups");
          g_assert_true (valid);
          g_assert_cmpstr (tip, ==, "Valid in parallel groups.");
        }
    }
  gtk_window_destroy (GTK_WINDOW (win));
}

/* The exact search's budget is the user's, and its Summary row says whether
 * it proved its arena: MiniMalloc's D is not proved in a second. A new
 * budget plans optimal again and keeps every other plan. */
static void
test_optimal_budget (void)
{
  g_autofree char *path = test_data_path ("minimalloc/D.1048576.csv");
  g_autoptr (GFile) file = g_file_new_for_path (path);
  MpWindow        *win = mp_window_new (NULL);
  MpPlanSet       *set;
  MpPlan          *greedy, *optimal;
  GListModel      *rows;
  gdouble          budget;
  g_autoptr (GSettings) settings = g_settings_new ("org.memplan.Memplan");
  g_autoptr (GVariant) stored = g_settings_get_default_value (settings, "optimal-time-budget");

  /* one default: the engine's, which the stored key's default repeats */
  g_object_get (win, "time-budget", &budget, NULL);
  g_assert_cmpfloat (budget, ==, MP_OPTIMAL_DEFAULT_BUDGET);
  g_assert_cmpfloat (g_variant_get_double (stored), ==, MP_OPTIMAL_DEFAULT_BUDGET);
  g_object_set (win, "time-budget", 1.0, NULL);
  gtk_window_set_default_size (GTK_WINDOW (win), 1280, 860);
  gtk_window_present (GTK_WINDOW (win));
  mp_window_open (win, file);
  run_until (window_ready, win);
  set = mp_window_get_plan_set (win);
  optimal = mp_plan_set_find_plan (set, "optimal");
  greedy = mp_plan_set_find_plan (set, "greedy-by-size");
  g_assert_nonnull (optimal);
  g_assert_false (optimal->proved_optimal);
  rows = mp_summary_table_get_model (MP_SUMMARY_TABLE (mp_window_get_summary_table (win)));
  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr (MpSummaryRow) row = g_list_model_get_item (rows, i);
      g_autofree char *notes = mp_summary_row_format (row, "notes");

      if (g_str_equal (mp_summary_row_get_planner (row), "optimal"))
        g_assert_nonnull (strstr (notes, "not proved: best found, "));
    }

  /* as the Optimal Search Time menu does */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (win), "win.time-budget", "d", 2.0));
  run_until (window_ready, win);
  set = mp_window_get_plan_set (win);
  g_assert_true (mp_plan_set_find_plan (set, "greedy-by-size") == greedy);
  g_assert_true (mp_plan_set_find_plan (set, "optimal") != optimal);
  g_assert_cmpfloat (mp_plan_set_find_plan (set, "optimal")->seconds, >=, 1.5);
  gtk_window_destroy (GTK_WINDOW (win));
}

/* A PyTorch memory snapshot opens with the allocator's own layout as the
 * first pane, "observed", next to every planner. */
static void
test_trace_observed (void)
{
  g_autofree char *path = test_fixture_path ("snapshot-p2.pickle");
  MpWindow        *win = open_window (path);
  MpPlanSet       *set = mp_window_get_plan_set (win);
  MpPlan          *observed = mp_plan_set_get_plan (set, 0);

  g_assert_cmpstr (observed->planner, ==, "observed");
  g_assert_true (observed->valid);
  /* usage records have no ops: greedy-by-breadth and multistream are skipped */
  g_assert_cmpuint (mp_plan_set_get_n_plans (set), ==, 1 + n_planners () - 2);
  g_assert_cmpuint (mp_window_get_plan_views (win)->len, ==, mp_plan_set_get_n_plans (set));
  g_assert_nonnull (mp_plan_set_find_plan (set, "greedy-by-size"));
  gtk_window_destroy (GTK_WINDOW (win));
}

static gboolean
window_has_set (gpointer data)
{
  return mp_window_get_plan_set (data) != NULL;
}

static gboolean
window_idle (gpointer data)
{
  return !mp_window_get_busy (data);
}

/* issue 31: a trace's observed pane and its by-op figures are shown as
 * soon as they are made, the planners still running behind them; Cancel
 * then stops the planning and keeps the observed pane. */
static void
test_trace_first_view (void)
{
  g_autofree char *path = test_fixture_path ("snapshot-p2.pickle");
  MpWindow        *win = start_window (path);
  MpPlanSet       *set;

  run_until (window_has_set, win);
  set = mp_window_get_plan_set (win);
  g_assert_cmpstr (mp_plan_set_get_plan (set, 0)->planner, ==, "observed");
  g_assert_nonnull (mp_plan_set_get_by_op (set, FALSE));
  g_assert_cmpuint (mp_window_get_plan_views (win)->len, ==, mp_plan_set_get_n_plans (set));
  /* the planners may all be done by now on this small file */
  if (mp_window_get_busy (win))
    {
      mp_window_cancel (win);
      run_until (window_idle, win);
      g_assert_cmpstr (mp_window_get_notice (win), ==,
                       "Planning cancelled: the panes show the last finished plans.");
    }
  else
    g_test_message ("planned before the first view was looked at: Cancel not tried");
  set = mp_window_get_plan_set (win);
  g_assert_cmpstr (mp_plan_set_get_plan (set, 0)->planner, ==, "observed");
  gtk_window_destroy (GTK_WINDOW (win));
}

static void
assert_file_starts (const char *path, const char *magic, gsize length)
{
  g_autofree char *contents = NULL;
  gsize            size;

  g_assert_true (g_file_get_contents (path, &contents, &size, NULL));
  g_assert_cmpuint (size, >, length);
  g_assert_cmpmem (contents, length, magic, length);
}

static void
test_export (void)
{
  g_autofree char *path = mp_application_default_graph ();
  g_autofree char *dir = g_dir_make_tmp ("memplan-test-XXXXXX", NULL);
  g_autofree char *png = g_build_filename (dir, "view.png", NULL);
  g_autofree char *svg = g_build_filename (dir, "view.svg", NULL);
  g_autofree char *pdf = g_build_filename (dir, "view.pdf", NULL);
  g_autofree char *json = g_build_filename (dir, "plans.json", NULL);
  g_autofree char *csv = g_build_filename (dir, "plan.csv", NULL);
  g_autofree char *shot = g_build_filename (dir, "window.png", NULL);
  g_autofree char *bad = g_build_filename (dir, "view.bmp", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GdkTexture) texture = NULL;
  g_autofree char *plans = NULL;
  g_autofree char *want = NULL;
  char            *notice = NULL;
  MpWindow        *win = open_window (path);
  MpSummaryTable  *table = MP_SUMMARY_TABLE (mp_window_get_summary_table (win));
  guint            n = n_planners ();

  g_assert_true (mp_window_export_view (win, png, &error));
  g_assert_no_error (error);
  texture = gdk_texture_new_from_filename (png, &error);
  g_assert_no_error (error);
  g_assert_cmpint (gdk_texture_get_width (texture), ==, 1600);
  g_assert_cmpint (gdk_texture_get_height (texture), ==, 360 * n);
  g_assert_true (mp_window_export_view (win, svg, &error));
  assert_file_starts (svg, "<?xml", 5);
  g_assert_true (mp_window_export_view (win, pdf, &error));
  assert_file_starts (pdf, "%PDF", 4);
  g_assert_false (mp_window_export_view (win, bad, &error));
  g_assert_nonnull (strstr (error->message, bad));
  g_assert_false (g_file_test (bad, G_FILE_TEST_EXISTS));
  g_clear_error (&error);

  g_assert_true (mp_window_save (win, MP_EXPORT_PLANS, json));
  g_assert_true (g_file_get_contents (json, &plans, NULL, NULL));
  g_assert_nonnull (strstr (plans, "memplan.plan/1"));
  g_assert_cmpstr (mp_window_get_notice (win), ==,
                   (notice = g_strdup_printf ("Wrote %s: every plan (%u).", json, n)));
  g_clear_pointer (&notice, g_free);

  /* a CSV file holds one plan: the one selected in Summary, or none */
  g_assert_false (mp_window_export_plans (win, csv, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  want = g_strdup_printf ("%s: a CSV file holds one plan: select it in the Summary tab first "
                          "(or save as .json for every plan)", csv);
  g_assert_cmpstr (error->message, ==, want);
  g_assert_false (g_file_test (csv, G_FILE_TEST_EXISTS));
  g_clear_error (&error);
  g_assert_false (mp_window_save (win, MP_EXPORT_PLANS, csv));
  g_assert_cmpstr (mp_window_get_error (win), ==, want);
  g_assert_true (mp_summary_table_select (table, "greedy-by-size"));
  g_assert_cmpstr (mp_summary_table_get_selected (table), ==, "greedy-by-size");
  g_assert_true (mp_window_save (win, MP_EXPORT_PLANS, csv));
  g_assert_cmpstr (mp_window_get_notice (win), ==,
                   (notice = g_strdup_printf ("Wrote %s: the greedy-by-size plan (selected in "
                                              "Summary).", csv)));
  g_clear_pointer (&notice, g_free);
  {
    g_autofree char *written = NULL;
    g_autofree char *expect = mp_plan_to_csv (mp_plan_set_get_graph (mp_window_get_plan_set (win)),
                                              mp_plan_set_find_plan (mp_window_get_plan_set (win),
                                                                     "greedy-by-size"));

    g_assert_true (g_file_get_contents (csv, &written, NULL, NULL));
    g_assert_cmpstr (written, ==, expect);
  }

  g_assert_true (mp_window_screenshot (win, shot, &error));
  g_assert_no_error (error);
  assert_file_starts (shot, "\x89PNG", 4);
  /* the selection outlives a replan */
  mp_window_set_planner_enabled (win, "naive", FALSE);
  g_object_set_data (G_OBJECT (win), "want", GUINT_TO_POINTER (n - 1));
  run_until (n_views_is, win);
  g_assert_cmpstr (mp_summary_table_get_selected (table), ==, "greedy-by-size");
  gtk_window_destroy (GTK_WINDOW (win));
  for (const char *const *p = (const char *const[]) { png, svg, pdf, json, csv, shot, NULL }; *p;
       p++)
    g_unlink (*p);
  g_rmdir (dir);
}

typedef gboolean (*WindowWriter) (MpWindow *win, const char *path, GError **error);

typedef struct
{
  MpWindow    *win;
  WindowWriter write;
} AppWriter;

static gboolean
run_app_writer (const char *path, gpointer data)
{
  AppWriter *w = data;
  g_autoptr (GError) error = NULL;
  gboolean ok = w->write (w->win, path, &error);

  g_assert_no_error (error);
  return ok;
}

/* Export View (PNG: SVG and PDF take the same writer), Save Plans and the
 * screenshot under the output rule (issue 36: --screenshot through a link
 * to a device replaced the device): a FIFO, a link to a FIFO, a link to a
 * device and a link to a file. */
static void
test_export_output_rule (void)
{
  g_autofree char *path = mp_application_default_graph ();
  g_autofree char *dir = g_dir_make_tmp ("memplan-test-XXXXXX", NULL);
  MpWindow        *win = open_window (path);
  const struct
  {
    const char  *name;
    const char  *head;
    WindowWriter write;
  } writers[] = {
    { "view.png", "\x89PNG", mp_window_export_view },
    { "plans.json", "{", mp_window_export_plans },
    { "window.png", "\x89PNG", mp_window_screenshot },
  };

  for (guint i = 0; i < G_N_ELEMENTS (writers); i++)
    {
      AppWriter w = { win, writers[i].write };

      g_test_message ("%s", writers[i].name);
      test_output_rule (run_app_writer, &w, dir, writers[i].name, writers[i].head);
    }
  gtk_window_destroy (GTK_WINDOW (win));
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

static void
test_search_and_cursor (void)
{
  g_autofree char *path = mp_application_default_graph ();
  MpWindow        *win = open_window (path);
  MpViewState     *state = mp_window_get_state (win);
  const MpGraph   *graph = mp_plan_set_get_graph (mp_window_get_plan_set (win));
  GListModel      *live = mp_live_list_get_model (MP_LIVE_LIST (mp_window_get_live_list (win)));
  MpPlan          *first = mp_plan_set_get_plan (mp_window_get_plan_set (win), 0);
  guint            expect = 0;

  g_assert_true (mp_window_search (win, "l2.probs"));
  g_assert_cmpint (mp_view_state_get_selected (state), ==,
                   mp_graph_find_tensor (graph, "l2.probs"));
  /* an op name moves the step cursor to its step: its parallel group, as
   * the two streams of the default graph run concurrently */
  g_assert_true (mp_window_search (win, graph->ops[7].name));
  g_assert_nonnull (mp_plan_set_get_workload (mp_window_get_plan_set (win))->concurrent);
  g_assert_cmpint (mp_view_state_get_cursor (state), ==,
                   mp_plan_set_get_workload (mp_window_get_plan_set (win))->parallel->group[7]);
  g_assert_false (mp_window_search (win, "no-such-name"));

  /* at every step the live list holds exactly the buffers live then, by
   * address (checked against a scan of every record) */
  mp_window_show_live_list (win);
  for (guint step = 0; step < mp_view_state_get_n_steps (state); step++)
    {
      guint64 sum = 0, want = 0;

      mp_view_state_set_cursor (state, step);
      expect = 0;
      for (guint r = 0; r < first->n_records; r++)
        if (first->records[r].first <= step && step <= first->records[r].last)
          {
            expect++;
            want += first->records[r].tensor;
          }
      g_assert_cmpuint (g_list_model_get_n_items (live), ==, expect);
      g_assert_cmpuint (expect, >, 0);
      for (guint i = 0; i < expect; i++)
        {
          g_autoptr (MpLiveRow) b = g_list_model_get_item (live, i);

          sum += mp_live_row_get_tensor (b);
          if (i > 0)
            {
              g_autoptr (MpLiveRow) a = g_list_model_get_item (live, i - 1);

              g_assert_cmpuint (mp_live_row_get_offset (a), <, mp_live_row_get_offset (b));
            }
        }
      g_assert_cmpuint (sum, ==, want);
    }

  /* hidden, the list waits; shown again, it catches up with the cursor */
  {
    GtkWidget  *list = mp_window_get_live_list (win);
    GtkNotebook *book = GTK_NOTEBOOK (gtk_widget_get_ancestor (list, GTK_TYPE_NOTEBOOK));

    gtk_notebook_set_current_page (book, 0);
    {
    g_assert_false (gtk_widget_get_mapped (list));
    guint shown = g_list_model_get_n_items (live);
    guint step = 0;

    /* a step whose live count differs from the one the list shows */
    for (expect = shown; expect == shown; step++)
      {
        g_assert_cmpuint (step, <, mp_view_state_get_n_steps (state));
        expect = 0;
        for (guint r = 0; r < first->n_records; r++)
          expect += first->records[r].first <= step && step <= first->records[r].last;
      }
    mp_view_state_set_cursor (state, step - 1);
    g_assert_cmpuint (g_list_model_get_n_items (live), ==, shown);
    mp_window_show_live_list (win);
    g_assert_cmpuint (g_list_model_get_n_items (live), ==, expect);
    }
  }
  gtk_window_destroy (GTK_WINDOW (win));
}

/* Issue 33, item 10: run from a build tree with nothing installed and no
 * MEMPLAN_DATA_DIR (as the README's tour sets PATH), the app finds the
 * build tree's default graph, not a missing installed one. */
static void
test_truth_10_build_tree_default (void)
{
  g_autofree char *saved = g_strdup (g_getenv ("MEMPLAN_DATA_DIR"));
  g_autofree char *source_data = g_build_filename (g_getenv ("MEMPLAN_SOURCE_DIR"), "data",
                                                   NULL);
  g_autofree char *path = NULL;

  g_unsetenv ("MEMPLAN_DATA_DIR");
  path = mp_application_default_graph ();
  if (saved)
    g_setenv ("MEMPLAN_DATA_DIR", saved, TRUE);
  g_assert_true (g_str_has_suffix (path, "/data/default.json"));
  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
  /* the build tree's copy (or an installed one), never the source tree's */
  g_assert_false (g_str_has_prefix (path, source_data));
}

/* Issue 33, item 9: a tensor selected in the greedy-by-size pane is
 * described in that plan, not in the first pane's (naive). */
/* The Summary's star on two-towers, whose two streams run concurrently:
 * by default every planner plans for that schedule and the star is on a
 * plan valid there; planned for op order, the racing plans say so and the
 * star goes to the smallest plan that does not race (multistream). */
static void
test_truth_01_winner (void)
{
  g_autofree char *path = test_data_path ("two-towers.json");
  MpWindow        *win = open_window (path);
  MpSummaryTable  *summary = MP_SUMMARY_TABLE (mp_window_get_summary_table (win));
  GListModel      *rows = mp_summary_table_get_model (summary);
  guint            stars = 0;

  for (gint pass = 0; pass < 2; pass++)
    {
      MpPlanSet *set = mp_window_get_plan_set (win);

      stars = 0;
      g_assert_cmpuint (g_list_model_get_n_items (rows), ==, n_planners ());
      for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
        {
          g_autoptr (MpSummaryRow) row = g_list_model_get_item (rows, i);
          const char      *planner = mp_summary_row_get_planner (row);
          MpPlan          *plan = mp_plan_set_find_plan (set, planner);
          g_autofree char *cell = mp_summary_row_format (row, "valid");

          g_assert_true (plan->concurrent_checked);
          if (pass == 0)
            {
              /* every plan for the parallel groups, every one valid there */
              g_assert_true (plan->parallel);
              g_assert_true (plan->concurrent_valid);
              g_assert_cmpstr (cell, ==, "valid in parallel groups");
            }
          else if (!g_str_equal (planner, "naive") && !g_str_equal (planner, "multistream"))
            {
              g_assert_false (plan->parallel);
              g_assert_cmpstr (cell, ==, "races when streams run concurrently (valid in op "
                                         "order)");
            }
          if (!mp_summary_row_get_best (row))
            continue;
          stars++;
          g_assert_true (plan->concurrent_valid);
          if (pass == 0)
            g_assert_cmpuint (plan->arena, ==, 10 << 20);
          else
            g_assert_cmpstr (planner, ==, "multistream");
        }
      g_assert_cmpuint (stars, ==, 1);
      if (pass == 0)
        {
          g_assert_true (g_str_has_prefix (mp_summary_table_get_headline (summary),
                                           "Smallest arena — first-fit (tied with "));
          /* the status counts the groups the plans were made for */
          g_assert_true (mp_window_search (win, "left.h"));
          g_assert_nonnull (strstr (mp_window_get_status_text (win),
                                    "live parallel groups 1 – 2 "));
          g_object_set (win, "plan-for-op-order", TRUE, NULL);
          run_until (op_order_planned, win);
        }
      else
        g_assert_cmpstr (mp_summary_table_get_headline (summary), ==,
                         "Smallest arena — multistream: 11% below naive, at the lower bound");
    }
  gtk_window_destroy (GTK_WINDOW (win));
}

static void
test_truth_09_status_plan (void)
{
  g_autofree char *path = test_data_path ("teaching.json");
  MpWindow        *win = open_window (path);
  GPtrArray       *views = mp_window_get_plan_views (win);
  MpPlanView      *greedy = NULL;

  for (guint i = 0; i < views->len; i++)
    if (g_str_equal (mp_plan_view_get_plan (views->pdata[i])->planner, "greedy-by-size"))
      greedy = views->pdata[i];
  g_assert_nonnull (greedy);
  g_assert_cmpstr (mp_plan_view_get_plan (views->pdata[0])->planner, ==, "naive");
  /* a click on a tensor: it is selected, then the pane says it was clicked */
  mp_view_state_set_selected (mp_window_get_state (win),
                              mp_plan_view_get_plan (greedy)->records[0].tensor);
  g_signal_emit_by_name (greedy, "clicked");
  g_assert_nonnull (strstr (mp_window_get_status_text (win), " in greedy-by-size"));
  g_assert_null (strstr (mp_window_get_status_text (win), " in naive"));
  gtk_window_destroy (GTK_WINDOW (win));
}

/* The live list's cells are drawn, not labels (text-cell.c): after jumps of
 * the cursor each cell shows its row's text, none left from the step
 * before. teaching.json has fewer live buffers than GTK keeps bound, so the
 * cells shown are exactly the model's rows times the columns. */
static int
strcmp_ptr (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

static void
collect_cells (GtkWidget *widget, GPtrArray *texts)
{
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    if (MP_IS_TEXT_CELL (c))
      {
        if (gtk_widget_get_child_visible (c) && gtk_widget_get_mapped (c))
          g_ptr_array_add (texts, g_strdup (mp_text_cell_get_text (MP_TEXT_CELL (c))));
      }
    else if (gtk_widget_get_child_visible (c))
      collect_cells (c, texts);
}

static void
test_live_cells (void)
{
  static const char *columns[] = { "offset", "end", "size", "tensor", "lifetime", "op", "kind" };
  g_autofree char   *path = test_data_path ("teaching.json");
  MpWindow          *win = open_window (path);
  MpLiveList        *list = MP_LIVE_LIST (mp_window_get_live_list (win));
  GListModel        *live = mp_live_list_get_model (list);
  MpViewState       *state = mp_window_get_state (win);
  guint              n_steps = mp_view_state_get_n_steps (state);
  guint              checked = 0;

  mp_window_show_live_list (win);
  for (guint k = 0; k < 12; k++)
    {
      g_autoptr (GPtrArray) shown = g_ptr_array_new_with_free_func (g_free);
      g_autoptr (GPtrArray) want = g_ptr_array_new_with_free_func (g_free);

      /* jumps back and forth over the steps */
      mp_view_state_set_cursor (state, (gint) ((k * 7 + (k % 2) * n_steps / 2) % n_steps));
      for (int i = 0; i < 20; i++)
        {
          g_usleep (5000);
          while (g_main_context_iteration (NULL, FALSE))
            ;
        }
      for (guint i = 0; i < g_list_model_get_n_items (live); i++)
        {
          g_autoptr (MpLiveRow) row = g_list_model_get_item (live, i);

          for (guint c = 0; c < G_N_ELEMENTS (columns); c++)
            g_ptr_array_add (want, mp_live_row_format (row, columns[c]));
        }
      collect_cells (mp_window_get_live_list (win), shown);
      g_ptr_array_sort (shown, strcmp_ptr);
      g_ptr_array_sort (want, strcmp_ptr);
      g_assert_cmpuint (shown->len, ==, want->len);
      for (guint i = 0; i < want->len; i++)
        g_assert_cmpstr (shown->pdata[i], ==, want->pdata[i]);
      checked += want->len;
    }
  g_assert_cmpuint (checked, >, 100);
  gtk_window_destroy (GTK_WINDOW (win));
}

/* Usage records: the slider, the live list, the status and the memory
 * strip's words count the same steps (ranks of the start times), with the
 * file's time beside them; the live list sorts by size, lifetime and op. */
static void
test_step_numbering (void)
{
  g_autofree char *path = test_data_path ("minimalloc/A.1048576.csv");
  MpWindow        *win = open_window (path);
  MpPlanSet       *set = mp_window_get_plan_set (win);
  MpViewState     *state = mp_window_get_state (win);
  MpLiveList      *list = MP_LIVE_LIST (mp_window_get_live_list (win));
  GListModel      *live = mp_live_list_get_model (list);
  const MpLifetimes *lt = mp_plan_set_get_lifetimes (set);
  MpRenderIndex   *index = mp_plan_set_get_index (set, 0);
  g_autofree char *words = mp_render_step_words (index, 40);
  g_autofree char *peak = g_strdup_printf ("(peak at step %u)", lt->peak_step);
  g_autofree char *heading = NULL;
  guint            n;

  mp_window_show_live_list (win);
  mp_view_state_set_cursor (state, 40);
  g_assert_true (g_str_has_prefix (words, "step 40 (time "));
  g_assert_true (g_str_has_suffix (words, " in the file)"));
  g_assert_true (g_str_has_prefix (mp_window_get_cursor_text (win), words));
  heading = g_strdup_printf ("S%s in ", words + 1);
  g_assert_true (g_str_has_prefix (mp_live_list_get_heading (list), heading));
  g_assert_nonnull (strstr (mp_window_get_status_text (win), peak));
  g_assert_cmpuint (mp_render_index_peak_step (index), ==, lt->peak_step);

  /* every sort keeps the same rows, in its own order */
  n = g_list_model_get_n_items (live);
  g_assert_cmpuint (n, >, 2);
  mp_live_list_set_sort (list, MP_LIVE_SORT_SIZE);
  g_assert_cmpuint (g_list_model_get_n_items (live), ==, n);
  for (guint i = 1; i < n; i++)
    {
      g_autoptr (MpLiveRow) a = g_list_model_get_item (live, i - 1);
      g_autoptr (MpLiveRow) b = g_list_model_get_item (live, i);

      g_assert_cmpuint (mp_live_row_get_size (a), >=, mp_live_row_get_size (b));
    }
  mp_live_list_set_sort (list, MP_LIVE_SORT_OFFSET);
  for (guint i = 1; i < n; i++)
    {
      g_autoptr (MpLiveRow) a = g_list_model_get_item (live, i - 1);
      g_autoptr (MpLiveRow) b = g_list_model_get_item (live, i);

      g_assert_cmpuint (mp_live_row_get_offset (a), <, mp_live_row_get_offset (b));
    }
  /* the next step changes only what changed: a buffer still live keeps its
   * row (the view keeps its widget), in the order, with the new ones */
  {
    const MpPlan *plan = mp_live_list_get_plan (list);
    guint         kept = 0;

    for (guint step = 0; step + 1 < lt->n_steps; step++)
      {
        g_autoptr (MpLiveRow) row = NULL;
        guint tensor, m = 0;

        mp_view_state_set_cursor (state, step);
        if (g_list_model_get_n_items (live) == 0)
          continue;
        row = g_list_model_get_item (live, 0);
        tensor = mp_live_row_get_tensor (row);
        mp_view_state_set_cursor (state, step + 1);
        for (guint r = 0; r < plan->n_records; r++)
          m += plan->records[r].first <= step + 1 && step + 1 <= plan->records[r].last;
        g_assert_cmpuint (g_list_model_get_n_items (live), ==, m);
        for (guint i = 0; i < m; i++)
          {
            g_autoptr (MpLiveRow) b = g_list_model_get_item (live, i);

            if (i > 0)
              {
                g_autoptr (MpLiveRow) a = g_list_model_get_item (live, i - 1);

                g_assert_cmpuint (mp_live_row_get_offset (a), <, mp_live_row_get_offset (b));
              }
            if (mp_live_row_get_tensor (b) == tensor)
              {
                g_assert_true (b == row);
                kept++;
              }
          }
      }
    g_assert_cmpuint (kept, >, 0);
  }
  gtk_window_destroy (GTK_WINDOW (win));
}

/* A long verdict (multistream's op-order clash on two-towers) is cut short
 * with the whole of it in the tooltip: the window still fits 1280×800. */
static void
test_fits_small_screen (void)
{
  g_autofree char *path = test_data_path ("two-towers.json");
  MpWindow        *win = open_window (path);
  GListModel      *rows = mp_summary_table_get_model (MP_SUMMARY_TABLE (
                            mp_window_get_summary_table (win)));
  int              min_w = 0, min_h = 0;

  gtk_widget_measure (GTK_WIDGET (win), GTK_ORIENTATION_HORIZONTAL, -1, &min_w, NULL, NULL,
                      NULL);
  gtk_widget_measure (GTK_WIDGET (win), GTK_ORIENTATION_VERTICAL, MAX (min_w, 1280), &min_h,
                      NULL, NULL, NULL);
  g_assert_cmpint (min_w, <=, 1280);
  g_assert_cmpint (min_h, <=, 800);
  g_assert_cmpuint (g_list_model_get_n_items (rows), >, 0);
  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr (MpSummaryRow) row = g_list_model_get_item (rows, i);
      g_autofree char *tip = mp_summary_row_describe_validity (row);

      g_assert_cmpuint (strlen (tip), >, 0);
    }
  g_assert_cmpstr (mp_summary_table_get_headline (MP_SUMMARY_TABLE (
                     mp_window_get_summary_table (win))), !=, "");
  gtk_window_destroy (GTK_WINDOW (win));
}

static gboolean
order_applied (gpointer data)
{
  MpWindow  *win = data;
  MpPlanSet *set = mp_window_get_plan_set (win);

  return window_ready (win) && set && mp_plan_set_get_workload (set)->order != NULL;
}

/* The Order page: another order plans the file again in it, the Summary
 * headline gains the saving; a trace keeps its order. */
static void
test_order (void)
{
  g_autofree char *path = test_data_path ("multistream.json");
  g_autofree char *trace = test_data_path ("torch/small-cnn-trace.json.gz");
  MpWindow        *win = open_window (path);
  MpSummaryTable  *summary = MP_SUMMARY_TABLE (mp_window_get_summary_table (win));
  g_autoptr (GFile) file = g_file_new_for_path (trace);

  g_assert_null (strstr (mp_summary_table_get_headline (summary), "order"));
  mp_window_set_order (win, MP_ORDER_BEST);
  run_until (order_applied, win);
  g_assert_nonnull (strstr (mp_summary_table_get_headline (summary),
                            " · order best saves 256 KiB (20.0%) of the peak of live bytes "
                            "(1.00 MiB)"));
  /* the op order's peak (the plans, made for the parallel groups, have theirs) */
  g_assert_cmpuint (mp_plan_set_get_workload (mp_window_get_plan_set (win))->lifetimes->lower_bound,
                    ==, 1 << 20);
  /* a trace has no dependencies: it opens in its own order */
  mp_window_open (win, file);
  run_until (window_ready, win);
  g_assert_null (mp_plan_set_get_workload (mp_window_get_plan_set (win))->order);
  gtk_window_destroy (GTK_WINDOW (win));
}

/* The Summary's words on hand-worked figures. */
static void
test_summary_words (void)
{
  MpPlan          *p[] = { test_figures_plan ("greedy-by-size", 1000, 890),
                           test_figures_plan ("best-fit", 987, 890),
                           test_figures_plan ("naive", 5000, 890),
                           test_figures_plan ("multistream", 1200, 950),
                           test_figures_plan ("optimal", 990, 890) };
  g_autofree char *margin = NULL;
  g_autofree char *note = NULL;
  g_autofree char *proof = NULL;
  g_autofree char *tiny = mp_format_share (0.000019);

  p[3]->parallel = TRUE;
  p[4]->note = g_strdup ("best found, 11.2% above the lower bound after 2.00 s");
  p[4]->searched = TRUE;
  p[4]->seconds = 2.0;
  g_assert_cmpint (mp_plans_best (p, G_N_ELEMENTS (p)), ==, 1);
  /* the next is optimal: (990 - 987) / 990 = 0.30%; (987 - 890) / 890 = 10.9% */
  margin = mp_plans_margin (p, G_N_ELEMENTS (p), 1);
  g_assert_cmpstr (margin, ==, "best-fit: 0.3% below optimal, 11% above the lower bound");
  g_clear_pointer (&margin, g_free);
  /* optimal is out of it: then greedy-by-size, (1000 - 987) / 1000 = 1.3% */
  margin = mp_plans_margin (p, 2, 1);
  g_assert_cmpstr (margin, ==, "best-fit: 1.3% below greedy-by-size, 11% above the lower bound");
  g_assert_null (mp_summary_bound_note (p, G_N_ELEMENTS (p), 0));
  note = mp_summary_bound_note (p, G_N_ELEMENTS (p), 3);
  g_assert_true (g_str_has_prefix (note, "its own lower bound: ops of different streams"));
  proof = mp_summary_proof (p[4]);
  g_assert_cmpstr (proof, ==, "not proved: best found, 11.2% above the lower bound after 2.00 s");
  g_assert_null (mp_summary_proof (p[0]));
  g_assert_cmpstr (tiny, ==, "0.0019%");

  /* the same arena, but greedy-by-size races when the streams run
   * concurrently: it is no winner, nor tied with one */
  p[0]->arena = p[1]->arena = 890;
  p[0]->concurrent_checked = TRUE;
  g_assert_true (mp_plan_races (p[0]));
  g_assert_cmpint (mp_plans_best (p, 2), ==, 1);
  g_clear_pointer (&margin, g_free);
  margin = mp_plans_margin (p, 3, 1);
  g_assert_cmpstr (margin, ==, "best-fit: 82% below naive, at the lower bound");
  /* a tie of plans valid both ways names both */
  p[0]->concurrent_valid = TRUE;
  g_clear_pointer (&margin, g_free);
  margin = mp_plans_margin (p, 3, 0);
  g_assert_cmpstr (margin, ==, "greedy-by-size (tied with best-fit): 82% below naive, at the "
                               "lower bound");
  for (guint i = 0; i < G_N_ELEMENTS (p); i++)
    {
      g_free (p[i]->planner);
      g_free (p[i]->note);
      g_free (p[i]);
    }
}

static gboolean
notice_says_reloaded (gpointer data)
{
  const char *notice = mp_window_get_notice (data);

  return !mp_window_get_busy (data) && notice && strstr (notice, "changed on disk");
}

static void
test_reload (void)
{
  g_autofree char *dir = g_dir_make_tmp ("memplan-test-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "g.csv", NULL);
  MpWindow        *win;

  g_assert_true (g_file_set_contents (path, "id,lower,upper,size\n0,0,2,64\n1,1,3,64\n", -1,
                                      NULL));
  win = open_window (path);
  g_assert_cmpuint (mp_plan_set_get_graph (mp_window_get_plan_set (win))->n_tensors, ==, 2);
  g_assert_true (mp_window_search (win, "1"));
  g_assert_true (g_file_set_contents (path, "id,lower,upper,size\n0,0,2,64\n1,1,3,64\n"
                                            "2,3,5,128\n", -1, NULL));
  run_until (notice_says_reloaded, win);
  g_assert_cmpuint (mp_plan_set_get_graph (mp_window_get_plan_set (win))->n_tensors, ==, 3);
  /* the followed tensor is still followed, by name */
  g_assert_cmpint (mp_view_state_get_selected (mp_window_get_state (win)), ==,
                   mp_graph_find_tensor (mp_plan_set_get_graph (mp_window_get_plan_set (win)),
                                         "1"));
  g_assert_cmpint (mp_view_state_get_selected (mp_window_get_state (win)), >=, 0);
  gtk_window_destroy (GTK_WINDOW (win));
  g_unlink (path);
  g_rmdir (dir);
}

static void
test_command_line (void)
{
  const char      *exe = g_getenv ("MEMPLAN_GUI");
  g_autofree char *dir = g_dir_make_tmp ("memplan-test-XXXXXX", NULL);
  g_autofree char *shot = g_build_filename (dir, "shot.png", NULL);
  g_autofree char *graph = test_data_path ("teaching.json");
  g_autofree char *missing = g_build_filename (dir, "missing.json", NULL);
  g_autofree char *err = NULL;
  g_autoptr (GError) error = NULL;
  int              status;

  g_assert_nonnull (exe);
  {
    const char *argv[] = { exe, "--screenshot", shot, "--size", "1000x700", graph, NULL };

    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL,
                                 &err, &status, &error));
    g_assert_no_error (error);
    g_assert_true (g_spawn_check_wait_status (status, NULL));
    assert_file_starts (shot, "\x89PNG", 4);
  }
  g_clear_pointer (&err, g_free);
  {
    const char *argv[] = { exe, "--screenshot", shot, missing, NULL };

    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL,
                                 &err, &status, &error));
    g_assert_true (WIFEXITED (status));
    g_assert_cmpint (WEXITSTATUS (status), ==, 2);
    g_assert_nonnull (strstr (err, missing));
  }
  g_clear_pointer (&err, g_free);
  {
    const char *argv[] = { exe, "--planner", "bogus", NULL };

    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL,
                                 &err, &status, &error));
    g_assert_cmpint (WEXITSTATUS (status), ==, 2);
    g_assert_nonnull (strstr (err, "unknown planner 'bogus'"));
  }
  g_clear_pointer (&err, g_free);
  {
    /* an ONNX model's dimensions on the command line, as memplan-cli's */
    g_autofree char *encoder = test_data_path ("onnx/encoder-2x256.onnx");
    const char      *argv[] = { exe, "--screenshot", shot, "--dim", "batch", encoder, NULL };

    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL,
                                 &err, &status, &error));
    g_assert_cmpint (WEXITSTATUS (status), ==, 2);
    g_assert_nonnull (strstr (err, "--dim 'batch': expected NAME=VALUE"));
  }
  g_clear_pointer (&err, g_free);
  {
    /* unbound, a screenshot run photographs the form and says why it failed */
    g_autofree char *encoder = test_data_path ("onnx/encoder-2x256.onnx");
    const char      *argv[] = { exe, "--screenshot", shot, encoder, NULL };

    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL,
                                 &err, &status, &error));
    g_assert_cmpint (WEXITSTATUS (status), ==, 2);
    g_assert_nonnull (strstr (err, "symbolic dimensions: bind each with --dim NAME=VALUE"));
    assert_file_starts (shot, "\x89PNG", 4);
  }
  g_clear_pointer (&err, g_free);
  {
    /* a screenshot run writes no settings: a keyfile backend stays empty */
    g_auto (GStrv) env = g_environ_setenv (g_get_environ (), "GSETTINGS_BACKEND", "keyfile",
                                           TRUE);
    g_autofree char *keyfile = g_build_filename (dir, "glib-2.0", "settings", "keyfile", NULL);
    const char      *argv[] = { exe, "--screenshot", shot, "--planner", "naive", "--size",
                                "900x600", "--color-by", "op", graph, NULL };

    env = g_environ_setenv (env, "XDG_CONFIG_HOME", dir, TRUE);
    g_assert_true (g_spawn_sync (NULL, (char **) argv, env, G_SPAWN_DEFAULT, NULL, NULL, NULL,
                                 &err, &status, &error));
    g_assert_true (g_spawn_check_wait_status (status, NULL));
    g_assert_false (g_file_test (keyfile, G_FILE_TEST_EXISTS));
  }
  g_unlink (shot);
  g_rmdir (dir);
}

static gboolean
app_window_ready (gpointer data)
{
  GtkApplication *app = data;
  GtkWindow      *win = gtk_application_get_active_window (app);

  return win && MP_IS_WINDOW (win) && window_ready (win);
}

static gboolean
prefers_dark (gpointer data)
{
  gboolean dark;

  g_object_get (gtk_settings_get_default (), "gtk-application-prefer-dark-theme", &dark, NULL);
  return dark;
}

static void
app_started (GApplication *app, gpointer data)
{
  MpWindow    *win;
  GtkWidget   *overlay;
  gboolean     about = FALSE;
  /* GTK's own list (transfer none): unreffing it freed it under GTK, which
   * read it again at quit, now and then (a SEGV under ASan) */
  GListModel  *toplevels;

  run_until (app_window_ready, app);
  win = MP_WINDOW (gtk_application_get_active_window (GTK_APPLICATION (app)));
  /* no file: the bundled default graph, every planner */
  g_assert_cmpstr (mp_plan_set_get_graph (mp_window_get_plan_set (win))->name, ==,
                   "encoder-4x512");
  g_assert_cmpuint (mp_window_get_plan_views (win)->len, ==, n_planners ());

  /* Ctrl+? opens the shortcuts window loaded from the resources */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (win), "win.show-help-overlay", NULL));
  overlay = GTK_WIDGET (gtk_application_window_get_help_overlay (GTK_APPLICATION_WINDOW (win)));
  g_assert_true (GTK_IS_SHORTCUTS_WINDOW (overlay));
  g_assert_true (gtk_widget_get_visible (overlay));
  {
    g_auto (GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app),
                                                                       "win.export-view");

    g_assert_cmpstr (accels[0], ==, "<Control>e");
  }

  /* the Theme menu: stored, and applied at once */
  g_action_group_change_action_state (G_ACTION_GROUP (app), "theme",
                                      g_variant_new_string ("dark"));
  run_until (prefers_dark, NULL);
  {
    g_autoptr (GSettings) settings = g_settings_new ("org.memplan.Memplan");
    g_autofree char *theme = g_settings_get_string (settings, "theme");

    g_assert_cmpstr (theme, ==, "dark");
  }

  g_action_group_activate_action (G_ACTION_GROUP (app), "about", NULL);
  toplevels = gtk_window_get_toplevels ();
  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr (GObject) w = g_list_model_get_item (toplevels, i);

      about |= GTK_IS_ABOUT_DIALOG (w);
    }
  g_assert_true (about);
  g_action_group_activate_action (G_ACTION_GROUP (app), "quit", NULL);
}

/* Runs the application with callback after signal, in a process of its
 * own: a GtkApplication run ends GTK for its process. Quit must close every
 * window, the About dialog and the shortcuts window with them, and leave
 * GTK's list of them whole: a test that dropped a reference it did not own
 * freed it (a SEGV here under ASan). */
static void
run_app (const char *signal, GCallback callback, char **argv)
{
  if (g_test_subprocess ())
    {
      g_autoptr (MpApplication) app = mp_application_new ();

      g_signal_connect_after (app, signal, callback, NULL);
      g_assert_cmpint (g_application_run (G_APPLICATION (app), g_strv_length (argv), argv), ==, 0);
      g_assert_cmpuint (g_list_model_get_n_items (gtk_window_get_toplevels ()), ==, 0);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

static void
test_application (void)
{
  char *argv[] = { (char *) "memplan", NULL };

  run_app ("activate", G_CALLBACK (app_started), argv);
}

static gboolean
app_windows_ready (gpointer data)
{
  guint n = 0;

  for (GList *l = gtk_application_get_windows (data); l; l = l->next, n++)
    if (!window_ready (l->data))
      return FALSE;
  return n == 2;
}

static void
destroy_other (GtkWidget *widget, gpointer other)
{
  gtk_window_destroy (other);
}

static void
two_opened (GApplication *app, GFile **files, int n_files, const char *hint, gpointer data)
{
  GList *windows;

  run_until (app_windows_ready, app);
  windows = gtk_application_get_windows (GTK_APPLICATION (app));
  /* the first window's teardown closes the second, whose link in the
   * application's list goes while quit walks it */
  g_signal_connect (windows->data, "unrealize", G_CALLBACK (destroy_other), windows->next->data);
  g_action_group_activate_action (G_ACTION_GROUP (app), "quit", NULL);
}

/* Quit closes every window, even when closing one closes another. */
static void
test_quit_closes_all (void)
{
  g_autofree char *a = test_data_path ("teaching.json");
  g_autofree char *b = test_data_path ("two-towers.json");
  char            *argv[] = { (char *) "memplan", a, b, NULL };

  run_app ("open", G_CALLBACK (two_opened), argv);
}

/* While the exact search runs, the plan set passes where it stands on (a
 * struct, which the window puts in words): the incumbent only improves. */
static void
record_search (const char *planner, guint index, guint total, const MpSearchProgress *search,
               MpPlanSet *partial, gpointer data)
{
  if (search)
    {
      g_assert_cmpstr (planner, ==, "optimal");
      g_array_append_val (data, *search);
    }
}

static void
test_search_progress (void)
{
  g_autofree char *path = test_data_path ("minimalloc/D.1048576.csv");
  const char      *planners[] = { "optimal", NULL };
  MpPlanSetOptions options = { .time_budget = 2 };
  g_autoptr (GArray) searches = g_array_new (FALSE, FALSE, sizeof (MpSearchProgress));
  g_autoptr (GError) error = NULL;
  g_autoptr (MpPlanSet) set = mp_plan_set_build_full (path, NULL, planners, &options, NULL,
                                                      record_search, searches, &error);
  g_autofree char *first = NULL;
  MpPlan          *plan;

  g_assert_no_error (error);
  g_assert_nonnull ((plan = mp_plan_set_find_plan (set, "optimal")));
  g_assert_cmpuint (searches->len, >=, 1);
  /* the incumbent only improves, and never below what the search proves */
  for (guint i = 0; i < searches->len; i++)
    {
      const MpSearchProgress *p = &g_array_index (searches, MpSearchProgress, i);

      g_assert_cmpuint (p->arena, >=, p->lower_bound);
      g_assert_cmpuint (p->arena, >=, plan->arena);
      if (i)
        g_assert_cmpuint (p->arena, <=, g_array_index (searches, MpSearchProgress, i - 1).arena);
    }
  first = mp_search_progress_format (&g_array_index (searches, MpSearchProgress, 0));
  g_assert_nonnull (strstr (first, " above the lower bound "));
}

/* The "By op" tab: the op holding the peak first and named above, each
 * column sortable; a graph charges its tensors to their producing ops;
 * usage records without ops have no tab. */
static MpByOpView *
show_by_op (MpWindow *win)
{
  GtkWidget   *view = mp_window_get_by_op_view (win);
  GtkNotebook *notebook = GTK_NOTEBOOK (gtk_widget_get_ancestor (view, GTK_TYPE_NOTEBOOK));

  g_assert_true (gtk_widget_get_visible (view));
  gtk_notebook_set_current_page (notebook, gtk_notebook_page_num (notebook, view));
  g_assert_true (gtk_widget_get_mapped (view));
  return MP_BY_OP_VIEW (view);
}

static void
assert_by_op_cell (MpByOpView *view, guint position, const char *column, const char *want)
{
  g_autofree char *cell = mp_by_op_view_get_cell (view, position, column);

  g_assert_cmpstr (cell, ==, want);
}

static void
test_by_op (void)
{
  g_autofree char *snapshot = g_build_filename (g_getenv ("MEMPLAN_SOURCE_DIR"), "tests", "data",
                                                "snapshot.pickle", NULL);
  g_autofree char *cnn = test_data_path ("torch/small-cnn-trace.json.gz");
  g_autofree char *teaching = test_data_path ("teaching.json");
  g_autofree char *attribution = g_build_filename (g_getenv ("MEMPLAN_SOURCE_DIR"), "tests",
                                                   "data", "trace-attribution.json", NULL);
  g_autofree char *csv = test_data_path ("minimalloc/A.1048576.csv");
  MpWindow        *win = open_window (snapshot);
  MpByOpView      *view = show_by_op (win);
  GListModel      *rows = mp_by_op_view_get_model (view);

  /* 512 B of mlp and 1 KiB of forward live at event 2 with the 256 B block
   * from before the snapshot */
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==, 3);
  g_assert_cmpstr (mp_by_op_view_get_heading (view), ==,
                   "forward (train.py:10) holds the most at the peak: 1.00 KiB (57.1%) of the "
                   "1.75 KiB live at step 2 (time 2 in the file).");
  assert_by_op_cell (view, 0, "op", "forward (train.py:10)");
  assert_by_op_cell (view, 0, "at_peak", "1.00 KiB");
  assert_by_op_cell (view, 0, "share", "57.1%");
  assert_by_op_cell (view, 0, "allocated", "1.75 KiB");
  assert_by_op_cell (view, 0, "allocations", "2");
  assert_by_op_cell (view, 2, "op", "(before the trace)");
  mp_by_op_view_sort (view, "op", GTK_SORT_ASCENDING);
  assert_by_op_cell (view, 0, "op", "(before the trace)");
  assert_by_op_cell (view, 1, "op", "forward (train.py:10)");
  assert_by_op_cell (view, 2, "op", "mlp (model.py:7)");
  mp_by_op_view_sort (view, "allocated", GTK_SORT_ASCENDING);
  assert_by_op_cell (view, 0, "op", "(before the trace)");
  assert_by_op_cell (view, 2, "op", "forward (train.py:10)");
  gtk_window_destroy (GTK_WINDOW (win));

  /* a real profiler trace (gzip): the backward convolutions hold the peak */
  win = open_window (cnn);
  view = show_by_op (win);
  {
    g_autoptr (GArray) uses = mp_trace_by_op (mp_plan_set_get_workload (
                                                mp_window_get_plan_set (win))->trace);

    g_assert_cmpuint (g_list_model_get_n_items (mp_by_op_view_get_model (view)), ==, uses->len);
  }
  assert_by_op_cell (view, 0, "op", "aten::convolution_backward");
  assert_by_op_cell (view, 0, "at_peak", "1.54 MiB");
  assert_by_op_cell (view, 1, "op", "aten::threshold_backward");
  g_assert_cmpstr (mp_by_op_view_get_heading (view), ==,
                   "aten::convolution_backward holds the most at the peak: "
                   "1.54 MiB (42.4%) of the 3.64 MiB live at step 36 (time 59 "
                   "in the file).");
  gtk_window_destroy (GTK_WINDOW (win));

  /* a hand-made trace with modules, per module: MLP_0 (relu) and
   * MLP_0.Linear_0 (addmm) hold 4 KiB each at the peak; aten::empty's
   * 2 KiB and main's 1 KiB were made outside any module */
  win = open_window (attribution);
  view = show_by_op (win);
  assert_by_op_cell (view, 0, "op", "aten::addmm");
  mp_by_op_view_set_per_module (view, TRUE);
  g_assert_cmpuint (g_list_model_get_n_items (mp_by_op_view_get_model (view)), ==, 3);
  assert_by_op_cell (view, 0, "op", "MLP_0");
  assert_by_op_cell (view, 0, "at_peak", "4.00 KiB");
  assert_by_op_cell (view, 1, "op", "MLP_0.Linear_0");
  assert_by_op_cell (view, 2, "op", "(no module)");
  assert_by_op_cell (view, 2, "at_peak", "2.00 KiB");
  assert_by_op_cell (view, 2, "allocated", "3.00 KiB");
  assert_by_op_cell (view, 2, "allocations", "2");
  /* issue 33, item 12: a tie names every op in it */
  g_assert_cmpstr (mp_by_op_view_get_heading (view), ==,
                   "2 ops tie for the most at the peak (MLP_0, MLP_0.Linear_0): 4.00 KiB (40.0%) "
                   "each of the 10.0 KiB live at step 2 (time 2 in the file).");
  gtk_window_destroy (GTK_WINDOW (win));

  win = open_window (teaching);
  view = show_by_op (win);
  /* conv_out and relu_out, 64 KiB each, are live at relu: a tie */
  g_assert_cmpstr (mp_by_op_view_get_heading (view), ==,
                   "2 ops tie for the most at the peak (conv, relu): 64.0 KiB (50.0%) each of the "
                   "128 KiB live at step 1 (op relu).");
  assert_by_op_cell (view, 0, "op", "conv");
  assert_by_op_cell (view, 1, "op", "relu");
  assert_by_op_cell (view, 1, "at_peak", "64.0 KiB");
  assert_by_op_cell (view, 2, "at_peak", "0 B");
  gtk_window_destroy (GTK_WINDOW (win));

  win = open_window (csv);
  g_assert_false (gtk_widget_get_visible (mp_window_get_by_op_view (win)));
}

/* issue 31: a load cancelled leaves the window as it was, at once (the
 * worker's late result is dropped); a load done leaves the bar full. */
static void
test_cancel_load (void)
{
  g_autofree char *teaching = test_data_path ("teaching.json");
  g_autofree char *other = test_data_path ("default.json");
  g_autoptr (GFile) file = g_file_new_for_path (other);
  MpWindow        *win = open_window (teaching);
  MpPlanSet       *before = mp_window_get_plan_set (win);
  guint            n_views = mp_window_get_plan_views (win)->len;
  g_autofree char *notice = g_strconcat ("Opening ", other, " cancelled: ", teaching,
                                         " is shown as before.", NULL);

  g_assert_cmpfloat (mp_window_get_progress (win), ==, 1.0);
  mp_window_open (win, file);
  g_assert_true (mp_window_get_busy (win));
  mp_window_cancel (win);
  g_assert_false (mp_window_get_busy (win));
  g_assert_cmpstr (mp_window_get_notice (win), ==, notice);
  /* the worker ends in its own time; what it brings is not shown */
  for (int i = 0; i < 50; i++)
    {
      g_usleep (20000);
      while (g_main_context_iteration (NULL, FALSE))
        ;
    }
  g_assert_true (mp_window_get_plan_set (win) == before);
  g_assert_cmpuint (mp_window_get_plan_views (win)->len, ==, n_views);
  g_assert_cmpstr (mp_plan_set_get_graph (before)->name, ==, "teaching");
  /* Reload reads the file shown (teaching), not the one cancelled */
  gtk_widget_activate_action (GTK_WIDGET (win), "win.reload", NULL);
  run_until (window_ready, win);
  g_assert_cmpstr (mp_plan_set_get_graph (mp_window_get_plan_set (win))->name, ==, "teaching");
  g_assert_cmpfloat (mp_window_get_progress (win), ==, 1.0);
  gtk_window_destroy (GTK_WINDOW (win));
}

/* issue 31: Compare With… on a hand-made pair. B is the teaching graph
 * with relu_out grown from 64 to 128 KiB: at relu, A holds conv_out and
 * relu_out (64 + 64 KiB), B 64 + 128 KiB; the difference is relu's. */
static void
test_compare (void)
{
  g_autofree char *teaching = test_data_path ("teaching.json");
  g_autofree char *dir = g_dir_make_tmp ("memplan-test-XXXXXX", NULL);
  g_autofree char *grown = g_build_filename (dir, "teaching-grown.json", NULL);
  g_autofree char *json = NULL;
  g_autoptr (GString) edited = NULL;
  g_autoptr (GFile) file = g_file_new_for_path (grown);
  MpWindow        *win;
  MpByOpView      *view;

  g_assert_true (g_file_get_contents (teaching, &json, NULL, NULL));
  edited = g_string_new (json);
  g_assert_cmpuint (g_string_replace (edited, "\"relu_out\", \"dtype\": \"f32\", \"shape\": [1, 16,",
                                      "\"relu_out\", \"dtype\": \"f32\", \"shape\": [1, 32,", 0),
                    ==, 1);
  g_assert_true (g_file_set_contents (grown, edited->str, -1, NULL));

  win = open_window (teaching);
  g_assert_cmpstr (mp_window_get_compare_text (win), ==, "");
  mp_window_compare (win, file);
  run_until (window_idle, win);
  g_assert_nonnull (mp_window_get_compare_set (win));
  g_assert_cmpstr (mp_window_get_compare_text (win), ==,
                   "A: teaching.json, peak 128 KiB · B: teaching-grown.json, peak 192 KiB · "
                   "B − A: +64.0 KiB (+50.0%); the By op tab says which ops");
  g_assert_cmpstr (mp_window_get_notice (win), ==,
                   "Comparing with teaching-grown.json (B): both curves above the panes, B's "
                   "bytes per op in the By op tab.");
  view = show_by_op (win);
  /* sorted by B − A at first (the largest change), the op that changed named */
  g_assert_cmpstr (mp_by_op_view_get_heading (view), ==,
                   "B − A: relu changed the most, +64.0 KiB at the peak. 2 ops tie for the most "
                   "at the peak (conv, relu): 64.0 KiB (50.0%) each of the 128 KiB live at step 1 "
                   "(op relu).");
  assert_by_op_cell (view, 0, "op", "relu");
  assert_by_op_cell (view, 0, "at_peak", "64.0 KiB");
  assert_by_op_cell (view, 0, "b_at_peak", "128 KiB");
  assert_by_op_cell (view, 0, "delta", "+64.0 KiB");
  assert_by_op_cell (view, 1, "delta", "0");
  /* A keeps B through a replan of A; Stop Comparing drops it */
  mp_window_set_planner_enabled (win, "naive", !mp_window_get_planner_enabled (win, "naive"));
  run_until (window_ready, win);
  g_assert_nonnull (mp_window_get_compare_set (win));
  assert_by_op_cell (view, 0, "delta", "+64.0 KiB");
  gtk_widget_activate_action (GTK_WIDGET (win), "win.compare-stop", NULL);
  g_assert_null (mp_window_get_compare_set (win));
  g_assert_cmpstr (mp_window_get_compare_text (win), ==, "");
  gtk_window_destroy (GTK_WINDOW (win));
  g_unlink (grown);
  g_rmdir (dir);
}

/* What the user chose survives a restart: one window changes it and goes,
 * the next one (a new run of the app, the same settings) comes up with it.
 * The tests' settings are kept in memory (GSETTINGS_BACKEND=memory). */
static void
test_settings_restart (void)
{
  g_autoptr (GSettings) settings = g_settings_new ("org.memplan.Memplan");
  g_autofree char *path = test_data_path ("teaching.json");
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autofree char *uri = g_file_get_uri (file);
  const char      *chosen[] = { "naive", "greedy-by-size", NULL };
  MpWindow        *win = mp_window_new (NULL);
  g_auto (GStrv) stored = NULL;
  g_auto (GStrv) recent = NULL;
  g_autofree char *color = NULL;
  gboolean         shared;
  gdouble          budget;
  int              w, h;

  mp_window_bind_settings (win, settings);
  gtk_window_set_default_size (GTK_WINDOW (win), 1100, 720);
  gtk_window_present (GTK_WINDOW (win));
  mp_window_set_planners (win, chosen);
  mp_window_open (win, file);
  run_until (window_ready, win);
  g_object_set (win, "color-by", "stream", "shared-scale", TRUE, "time-budget", 30.0, NULL);
  run_until (window_idle, win);
  gtk_window_destroy (GTK_WINDOW (win));

  stored = g_settings_get_strv (settings, "planners");
  g_assert_cmpuint (g_strv_length (stored), ==, 2);
  g_assert_cmpstr (stored[0], ==, "naive");
  g_assert_cmpstr (stored[1], ==, "greedy-by-size");
  g_assert_cmpint (g_settings_get_int (settings, "window-width"), ==, 1100);
  g_assert_cmpint (g_settings_get_int (settings, "window-height"), ==, 720);
  g_assert_cmpfloat (g_settings_get_double (settings, "optimal-time-budget"), ==, 30.0);
  recent = g_settings_get_strv (settings, "recent-files");
  g_assert_cmpstr (recent[0], ==, uri);
  g_assert_true (gtk_recent_manager_has_item (gtk_recent_manager_get_default (), uri));

  /* the next run */
  win = mp_window_new (NULL);
  mp_window_bind_settings (win, settings);
  gtk_window_get_default_size (GTK_WINDOW (win), &w, &h);
  g_assert_cmpint (w, ==, 1100);
  g_assert_cmpint (h, ==, 720);
  g_object_get (win, "color-by", &color, "shared-scale", &shared, "time-budget", &budget, NULL);
  g_assert_cmpstr (color, ==, "stream");
  g_assert_true (shared);
  g_assert_cmpfloat (budget, ==, 30.0);
  g_assert_true (mp_window_get_planner_enabled (win, "naive"));
  g_assert_true (mp_window_get_planner_enabled (win, "greedy-by-size"));
  g_assert_false (mp_window_get_planner_enabled (win, "optimal"));
  /* Open Recent opens the file the last run had */
  gtk_window_present (GTK_WINDOW (win));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (win), "win.open-recent", "s", uri));
  run_until (window_ready, win);
  g_assert_cmpstr (mp_plan_set_get_path (mp_window_get_plan_set (win)), ==, path);
  g_assert_cmpuint (mp_plan_set_get_n_plans (mp_window_get_plan_set (win)), ==, 2);

  /* every planner again is stored as the empty list */
  mp_window_set_planners (win, NULL);
  g_clear_pointer (&stored, g_strfreev);
  stored = g_settings_get_strv (settings, "planners");
  g_assert_cmpuint (g_strv_length (stored), ==, 0);
  run_until (window_idle, win);
  gtk_window_destroy (GTK_WINDOW (win));
  g_settings_reset (settings, "planners");
  g_settings_reset (settings, "color-by");
  g_settings_reset (settings, "shared-scale");
  g_settings_reset (settings, "optimal-time-budget");
  g_settings_reset (settings, "recent-files");
}

/* An ONNX model with symbolic dimensions asks for them instead of failing,
 * then opens with them: the lower bound test-onnx.c checks at batch=8
 * seq=128. */
static void
test_onnx_dims (void)
{
  g_autofree char *path = test_data_path ("onnx/encoder-2x256.onnx");
  MpWindow        *win = start_window (path);
  GtkWidget       *form;
  g_auto (GStrv) bindings = NULL;
  MpPlanSet       *set;

  run_until (window_idle, win);
  g_assert_null (mp_window_get_plan_set (win));
  if (mp_window_get_error (win) && strstr (mp_window_get_error (win), "without ONNX support"))
    {
      g_test_skip ("built without ONNX support (-Donnx)");
      gtk_window_destroy (GTK_WINDOW (win));
      return;
    }
  g_assert_null (mp_window_get_error (win));
  form = mp_window_get_dims_form (win);
  g_assert_true (MP_IS_DIMS_FORM (form));
  g_assert_true (gtk_widget_get_mapped (form));
  bindings = mp_dims_form_get_bindings (MP_DIMS_FORM (form));
  g_assert_cmpstr (bindings[0], ==, "batch=1");
  g_assert_cmpstr (bindings[1], ==, "seq=1");
  g_assert_null (bindings[2]);
  g_assert_false (mp_dims_form_set_value (MP_DIMS_FORM (form), "heads", 8));
  g_assert_true (mp_dims_form_set_value (MP_DIMS_FORM (form), "batch", 8));
  g_assert_true (mp_dims_form_set_value (MP_DIMS_FORM (form), "seq", 128));
  /* what the bar's Open button does */
  gtk_info_bar_response (GTK_INFO_BAR (gtk_widget_get_ancestor (form, GTK_TYPE_INFO_BAR)),
                         GTK_RESPONSE_OK);
  g_assert_null (mp_window_get_dims_form (win));
  run_until (window_ready, win);
  set = mp_window_get_plan_set (win);
  g_assert_nonnull (set);
  g_assert_null (mp_window_get_error (win));
  g_assert_cmpuint (mp_plan_set_get_lifetimes (set)->lower_bound, ==, 9437184);
  g_assert_cmpuint (mp_plan_set_get_n_plans (set), ==, n_planners ());
  /* a reload keeps the bindings */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (win), "win.reload", NULL));
  run_until (window_ready, win);
  g_assert_null (mp_window_get_dims_form (win));
  g_assert_cmpuint (mp_plan_set_get_lifetimes (mp_window_get_plan_set (win))->lower_bound, ==,
                    9437184);
  gtk_window_destroy (GTK_WINDOW (win));
}

int
main (int argc, char **argv)
{
  g_autofree char *data_home = g_dir_make_tmp ("memplan-test-data-XXXXXX", NULL);
  int              status;

  /* GtkRecentManager writes under the user's data folder: a scratch one */
  g_setenv ("XDG_DATA_HOME", data_home, TRUE);
  /* gtk_init would abort without a display: report a skipped plan instead */
  if (!gtk_init_check ())
    {
      printf ("1..0 # SKIP no display\n");
      return 0;
    }
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/app/window/default-graph", test_default_graph);
  g_test_add_func ("/app/window/click-selects", test_click_selects);
  g_test_add_func ("/app/window/zoom-shared", test_zoom_shared);
  g_test_add_func ("/app/window/toggle-planner", test_toggle_planner);
  g_test_add_func ("/app/window/bad-file", test_bad_file);
  g_test_add_func ("/app/window/onnx-crash-inputs", test_onnx_crash_inputs);
  g_test_add_func ("/app/window/close-while-planning", test_close_while_planning);
  g_test_add_func ("/app/window/export", test_export);
  g_test_add_func ("/app/window/export-output-rule", test_export_output_rule);
  g_test_add_func ("/app/window/concurrent-validity", test_concurrent_validity);
  g_test_add_func ("/app/window/optimal-budget", test_optimal_budget);
  g_test_add_func ("/app/plan-set/search-progress", test_search_progress);
  g_test_add_func ("/app/window/truth-01-winner", test_truth_01_winner);
  g_test_add_func ("/app/window/truth-09-status-plan", test_truth_09_status_plan);
  g_test_add_func ("/app/truth-10-build-tree-default", test_truth_10_build_tree_default);
  g_test_add_func ("/app/window/trace-observed", test_trace_observed);
  g_test_add_func ("/app/window/search-and-cursor", test_search_and_cursor);
  g_test_add_func ("/app/window/reload", test_reload);
  g_test_add_func ("/app/window/step-numbering", test_step_numbering);
  g_test_add_func ("/app/window/live-cells", test_live_cells);
  g_test_add_func ("/app/summary/words", test_summary_words);
  g_test_add_func ("/app/window/fits-1280x800", test_fits_small_screen);
  g_test_add_func ("/app/command-line", test_command_line);
  g_test_add_func ("/app/application", test_application);
  g_test_add_func ("/app/quit-closes-all", test_quit_closes_all);
  g_test_add_func ("/app/window/by-op", test_by_op);
  g_test_add_func ("/app/window/cancel-load", test_cancel_load);
  g_test_add_func ("/app/window/trace-first-view", test_trace_first_view);
  g_test_add_func ("/app/window/compare", test_compare);
  g_test_add_func ("/app/settings/restart", test_settings_restart);
  g_test_add_func ("/app/window/onnx-dims", test_onnx_dims);
  g_test_add_func ("/app/window/order", test_order);
  status = g_test_run ();
  {
    g_autofree char *xbel = g_build_filename (data_home, "recently-used.xbel", NULL);

    g_unlink (xbel);
    g_rmdir (data_home);
  }
  return status;
}
