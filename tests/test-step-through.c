/* SPDX-License-Identifier: GPL-3.0-or-later */
/* GUI tests of the teaching mode: the step-through window on the teaching
 * graphs, driven through its actions (the buttons and keys use the same).
 * Run under xvfb-run; with no display the program reports a skipped plan. */
#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>

#include "memplan-window.h"
#include "plan-view.h"
#include "step-through.h"
#include "widget-shot.h"
#include "test-gui.h"
#include "test-util.h"

static gboolean
planned (gpointer data)
{
  MpWindow  *win = data;
  GPtrArray *views = mp_window_get_plan_views (win);

  return !mp_window_get_busy (win) && views->len > 0 &&
         gtk_widget_get_width (views->pdata[views->len - 1]) > 0;
}

static gboolean
shown (gpointer data)
{
  return gtk_widget_get_mapped (data) && gtk_widget_get_width (data) > 0;
}

static gboolean
count_frame (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  guint *left = data;

  if (*left > 0)
    --*left;
  return *left > 0 ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

static gboolean
no_frames_left (gpointer data)
{
  return *(guint *) data == 0;
}

/* Lets n frames be painted. */
static void
wait_frames (GtkWidget *widget, guint n)
{
  gtk_widget_add_tick_callback (widget, count_frame, &n, NULL);
  run_until (no_frames_left, &n);
}

static GtkWidget *
find_widget (GtkWidget *widget, GType type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type))
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_widget (c, type);

      if (found)
        return found;
    }
  return NULL;
}

static MpWindow *
open_teaching (const char *name)
{
  g_autofree char *teaching = g_build_filename ("teaching", name, NULL);
  g_autofree char *path = test_data_path (teaching);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  MpWindow *win = mp_window_new (NULL);

  gtk_window_set_default_size (GTK_WINDOW (win), 1280, 860);
  gtk_window_present (GTK_WINDOW (win));
  mp_window_open (win, file);
  run_until (planned, win);
  g_assert_null (mp_window_get_error (win));
  return win;
}

static MpStepThrough *
open_step (MpWindow *win, const char *planner)
{
  g_autoptr (GError) error = NULL;
  MpStepThrough *step = mp_step_through_new (GTK_WINDOW (win), mp_window_get_plan_set (win),
                                             planner, &error);

  g_assert_no_error (error);
  g_assert_nonnull (step);
  gtk_window_present (GTK_WINDOW (step));
  run_until (shown, step);
  return step;
}

/* What the window shows at its position: the explanation, the list's
 * selection, exactly the tensors placed so far at their replayed offsets. */
static void
assert_position (MpStepThrough *step, guint k)
{
  const MpDecisionTrace *trace = mp_step_through_get_trace (step);
  const MpPlan      *plan = mp_step_through_get_plan (step);
  const MpPlan      *part = mp_step_through_get_shown (step);
  guint              n = mp_step_through_get_n_steps (step);
  g_autofree char   *prefix = g_strdup_printf ("%u of %u: ", k + 1, n);

  g_assert_cmpuint (mp_step_through_get_position (step), ==, k);
  g_assert_cmpuint (mp_step_through_get_selected (step), ==, k);
  g_assert_cmpuint (part->n_records, ==, k + 1);
  for (guint j = 0; j <= k; j++)
    {
      guint r = mp_decision_trace_step (trace, j)->record;

      g_assert_cmpuint (part->records[j].tensor, ==, plan->records[r].tensor);
      g_assert_cmpuint (part->offsets[j], ==, plan->offsets[r]);
    }
  g_assert_cmpuint (part->arena, ==, mp_decision_trace_step (trace, k)->arena);
  g_assert_true (g_str_has_prefix (mp_step_through_get_text (step), prefix));
}

static void
test_to_the_end_and_back (void)
{
  MpWindow        *win = open_teaching ("size-beats-partition.csv");
  MpStepThrough   *step = open_step (win, "greedy-by-size");
  guint            n = mp_step_through_get_n_steps (step);
  const MpPlan    *plan = mp_step_through_get_plan (step);
  const MpPlan    *part;
  g_autofree char *dir = g_dir_make_tmp ("memplan-step-XXXXXX", NULL);
  g_autofree char *png = g_build_filename (dir, "mid.png", NULL);
  g_autoptr (GError) error = NULL;

  g_assert_cmpuint (n, ==, 5);
  g_assert_cmpstr (mp_step_through_get_text (step), ==,
                   "1 of 5: stem (6.00 MiB, step 0): nothing placed overlaps it in time: at 0; "
                   "arena 6.00 MiB");
  for (guint k = 0; k < n; k++)
    {
      assert_position (step, k);
      if (k == 2)
        {
          /* drawn mid-way: the partial plan, the band, the gaps */
          wait_frames (GTK_WIDGET (step), 3);
          mp_widget_screenshot (GTK_WIDGET (step), png, &error);
          g_assert_no_error (error);
          g_assert_true (g_file_test (png, G_FILE_TEST_IS_REGULAR));
          g_assert_cmpstr (mp_step_through_get_text (step), ==,
                           "3 of 5: right (3.00 MiB, step 1, times 1–2 in the file): 1 gap "
                           "fits, at 0 B, wasting "
                           "3.00 MiB; arena 10.0 MiB");
        }
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (step), "step.next", NULL));
    }
  /* at the end next does nothing; the whole plan is shown */
  assert_position (step, n - 1);
  part = mp_step_through_get_shown (step);
  g_assert_cmpuint (part->arena, ==, plan->arena);
  g_assert_cmpuint (part->n_records, ==, plan->n_records);

  for (guint k = n; k-- > 0;)
    {
      assert_position (step, k);
      gtk_widget_activate_action (GTK_WIDGET (step), "step.previous", NULL);
    }
  assert_position (step, 0);

  gtk_widget_activate_action (GTK_WIDGET (step), "step.last", NULL);
  assert_position (step, n - 1);
  gtk_widget_activate_action (GTK_WIDGET (step), "step.first", NULL);
  assert_position (step, 0);
  mp_step_through_set_position (step, 3);
  assert_position (step, 3);

  /* a click in the order list jumps there */
  {
    GtkWidget          *list = find_widget (GTK_WIDGET (step), GTK_TYPE_LIST_VIEW);
    GtkSingleSelection *model = GTK_SINGLE_SELECTION (gtk_list_view_get_model (
                                  GTK_LIST_VIEW (list)));

    g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, n);
    gtk_single_selection_set_selected (model, 1);
    assert_position (step, 1);
    {
      g_autoptr (GtkStringObject) row = g_list_model_get_item (G_LIST_MODEL (model), 1);

      g_assert_cmpstr (gtk_string_object_get_string (row), ==, "2. skip  4.00 MiB");
    }
  }

  g_unlink (png);
  g_rmdir (dir);
  gtk_window_destroy (GTK_WINDOW (step));
  gtk_window_destroy (GTK_WINDOW (win));
}

static gboolean
stopped (gpointer data)
{
  return !mp_step_through_get_playing (data);
}

static void
test_play (void)
{
  MpWindow      *win = open_teaching ("breadth-beats-size.json");
  MpStepThrough *step = open_step (win, "greedy-by-breadth");
  guint          n = mp_step_through_get_n_steps (step);

  g_assert_cmpuint (n, ==, 6);
  g_assert_cmpfloat (mp_step_through_get_speed (step), ==, 2);
  for (guint i = 0; i < 10; i++)
    gtk_widget_activate_action (GTK_WIDGET (step), "step.faster", NULL);
  g_assert_cmpfloat (mp_step_through_get_speed (step), ==, 16);
  gtk_widget_activate_action (GTK_WIDGET (step), "step.slower", NULL);
  g_assert_cmpfloat (mp_step_through_get_speed (step), ==, 8);

  /* play runs to the end and stops there */
  gtk_widget_activate_action (GTK_WIDGET (step), "step.play", NULL);
  g_assert_true (mp_step_through_get_playing (step));
  run_until (stopped, step);
  assert_position (step, n - 1);

  /* play at the end starts over; a step by hand pauses */
  gtk_widget_activate_action (GTK_WIDGET (step), "step.play", NULL);
  g_assert_true (mp_step_through_get_playing (step));
  assert_position (step, 0);
  gtk_widget_activate_action (GTK_WIDGET (step), "step.next", NULL);
  g_assert_false (mp_step_through_get_playing (step));
  assert_position (step, 1);
  /* breadth names the op it visits */
  g_assert_cmpstr (mp_step_through_get_text (step), ==,
                   "2 of 6: mix (4.00 MiB, steps 4–5; op concat): no gap among the tensors it "
                   "overlaps; on top of them, at 6.00 MiB; arena 10.0 MiB");

  gtk_window_destroy (GTK_WINDOW (step));
  gtk_window_destroy (GTK_WINDOW (win));
}

/* Partition's decisions step through the same way. */
static void
test_partition (void)
{
  MpWindow      *win = open_teaching ("size-beats-partition.csv");
  MpStepThrough *step = open_step (win, "partition");

  gtk_widget_activate_action (GTK_WIDGET (step), "step.last", NULL);
  assert_position (step, 4);
  g_assert_cmpstr (mp_step_through_get_text (step), ==,
                   "5 of 5: mid (1.00 MiB, step 1, times 1–2 in the file): every partition has "
                   "a member live with "
                   "it; opens partition P3, at 12.0 MiB; arena 13.0 MiB");
  gtk_window_destroy (GTK_WINDOW (step));
  gtk_window_destroy (GTK_WINDOW (win));
}

static void
test_refuses (void)
{
  MpWindow *win = open_teaching ("only-search.csv");
  g_autoptr (GError) error = NULL;

  g_assert_null (mp_step_through_new (GTK_WINDOW (win), mp_window_get_plan_set (win),
                                      "greedy-by-breadth", &error));
  g_assert_cmpstr (error->message, ==,
                   "greedy-by-breadth needs the ops of a graph; 'only-search' has usage records "
                   "only");
  gtk_window_destroy (GTK_WINDOW (win));
}

static gboolean
is_gone (gpointer data)
{
  return *(gpointer *) data == NULL;
}

/* The window's action opens the mode for the plan last clicked. */
static void
test_window_action (void)
{
  MpWindow        *win = open_teaching ("only-search.csv");
  GPtrArray       *views = mp_window_get_plan_views (win);
  MpPlanView      *view = NULL;
  GListModel      *toplevels = gtk_window_get_toplevels ();
  MpStepThrough   *step = NULL;
  const MpGraph   *graph = mp_plan_set_get_graph (mp_window_get_plan_set (win));
  graphene_rect_t  r;

  for (guint i = 0; i < views->len; i++)
    if (g_str_equal (mp_plan_view_get_plan (views->pdata[i])->planner, "best-fit"))
      view = views->pdata[i];
  g_assert_nonnull (view);
  g_assert_true (mp_plan_view_tensor_bounds (view, mp_graph_find_tensor (graph, "embed"), &r));
  mp_plan_view_click (view, r.origin.x + r.size.width / 2, r.origin.y + r.size.height / 2);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (win), "win.step-through", NULL));
  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr (GObject) w = g_list_model_get_item (toplevels, i);

      if (MP_IS_STEP_THROUGH (w))
        step = MP_STEP_THROUGH (w);
    }
  g_assert_nonnull (step);
  g_assert_true (gtk_window_get_transient_for (GTK_WINDOW (step)) == GTK_WINDOW (win));
  g_assert_cmpstr (mp_step_through_get_plan (step)->planner, ==, "best-fit");
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (step)), ==, "best-fit on only-search");
  /* it closes with its window */
  g_object_add_weak_pointer (G_OBJECT (step), (gpointer *) &step);
  gtk_window_destroy (GTK_WINDOW (win));
  run_until (is_gone, &step);
}

int
main (int argc, char **argv)
{
  if (!gtk_init_check ())
    {
      printf ("1..0 # SKIP no display\n");
      return 0;
    }
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/app/step-through/to-the-end-and-back", test_to_the_end_and_back);
  g_test_add_func ("/app/step-through/play", test_play);
  g_test_add_func ("/app/step-through/partition", test_partition);
  g_test_add_func ("/app/step-through/refuses", test_refuses);
  g_test_add_func ("/app/step-through/window-action", test_window_action);
  return g_test_run ();
}
