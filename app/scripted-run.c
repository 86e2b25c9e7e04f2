/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

/* What --screenshot, --hover, --benchmark and --step-through do once the
 * first window has planned: hooks for scripts, kept out of the application
 * class. */

#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "frame-bench.h"
#include "plan-view.h"
#include "scripted-run.h"
#include "step-through.h"
#include "widget-shot.h"
#include "window-export.h"

/* Frames to let pass after planning before a screenshot, so layout and the
 * plan panes have settled. */
#define SCREENSHOT_FRAMES 3
#define SCREENSHOT_RETRIES 60
/* --benchmark: frames of pan and zoom to time. */
#define BENCH_FRAMES 240

/* --hover: where a tensor is, in the window's surface coordinates, so a
 * script can move the X pointer there and photograph the real tooltip. */
static void
print_hover_point (MpWindow *window, const char *name)
{
  GPtrArray       *views = mp_window_get_plan_views (window);
  MpPlanSet       *set = mp_window_get_plan_set (window);
  const MpGraph   *graph = set ? mp_plan_set_get_graph (set) : NULL;
  gint             tensor = graph ? mp_graph_find_tensor (graph, name) : -1;
  gdouble          sx, sy;
  graphene_rect_t  r;

  gtk_native_get_surface_transform (GTK_NATIVE (window), &sx, &sy);
  /* the last pane: its tooltip opens downwards inside the window */
  for (guint i = views->len; tensor >= 0 && i-- > 0;)
    if (mp_plan_view_tensor_bounds (views->pdata[i], tensor, &r))
      {
        graphene_point_t p;

        if (!gtk_widget_compute_point (views->pdata[i], GTK_WIDGET (window),
                                       &GRAPHENE_POINT_INIT (r.origin.x + r.size.width / 2,
                                                             r.origin.y + r.size.height / 2),
                                       &p))
          break;
        printf ("hover %d %d\n", (int) (p.x + sx), (int) (p.y + sy));
        fflush (stdout);
        return;
      }
  g_printerr ("memplan: --hover: no tensor '%s' drawn in a pane\n", name);
}

/* Counts the widget's frames: TRUE once SCREENSHOT_FRAMES have passed. */
static gboolean
settled (GtkWidget *widget)
{
  guint frames = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (widget), "frames"));

  g_object_set_data (G_OBJECT (widget), "frames", GUINT_TO_POINTER (frames + 1));
  return frames >= SCREENSHOT_FRAMES;
}

/* A window laid out again (the split placed for the Summary) has no
 * picture until its next frame: a busy machine may need a few more. */
static gboolean
may_retry (GtkWidget *widget)
{
  return GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (widget), "frames")) <
         SCREENSHOT_FRAMES + SCREENSHOT_RETRIES;
}

static gboolean
screenshot_tick (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  MpScriptedRun *self = data;
  g_autoptr (GError) error = NULL;

  /* and no pane drawn from a stretched summary while its own is made */
  if (!settled (widget) || mp_window_summaries_pending (MP_WINDOW (widget)))
    return G_SOURCE_CONTINUE;
  if (self->hover)
    {
      /* the script photographs the tooltip; the app stays up until killed */
      print_hover_point (MP_WINDOW (widget), self->hover);
      return G_SOURCE_REMOVE;
    }
  if (!mp_window_screenshot (MP_WINDOW (widget), self->screenshot, &error))
    {
      if (may_retry (widget))
        return G_SOURCE_CONTINUE;
      g_printerr ("memplan: %s\n", error->message);
      self->status = 1;
    }
  else if (mp_window_get_error (MP_WINDOW (widget)))
    /* the picture is written, but the graph did not load: say so */
    {
      g_printerr ("memplan: %s\n", mp_window_get_error (MP_WINDOW (widget)));
      self->status = 2;
    }
  else if (mp_window_get_dims_form (MP_WINDOW (widget)))
    {
      /* the picture shows the form: the model waits for its dimensions */
      g_printerr ("memplan: the ONNX model has symbolic dimensions: bind each with --dim "
                  "NAME=VALUE\n");
      self->status = 2;
    }
  g_application_quit (self->app);
  return G_SOURCE_REMOVE;
}

static void
bench_done (gpointer data)
{
  g_application_quit (((MpScriptedRun *) data)->app);
}

static gboolean
bench_tick (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  MpScriptedRun *self = data;

  /* the second tick after planning: the panes' first frame is painted;
   * and the time the heuristics' panes took is known */
  if (self->heuristics_seconds == 0)
    return G_SOURCE_CONTINUE;
  if (!g_object_get_data (G_OBJECT (widget), "painted"))
    {
      g_object_set_data (G_OBJECT (widget), "painted", GINT_TO_POINTER (1));
      return G_SOURCE_CONTINUE;
    }
  mp_frame_bench_run (MP_WINDOW (widget), BENCH_FRAMES, self->first_view_seconds,
                      self->first_view_cpu, self->heuristics_seconds, self->heuristics_cpu,
                      (g_get_monotonic_time () - self->started) / 1e6, G_CALLBACK (bench_done),
                      self);
  return G_SOURCE_REMOVE;
}

static void
apply_view_options (MpScriptedRun *self, MpWindow *window)
{
  MpViewState *state = mp_window_get_state (window);

  if (self->select && !mp_window_search (window, self->select))
    g_printerr ("memplan: no tensor or op named '%s'\n", self->select);
  if (self->last_step >= self->first_step)
    mp_view_state_set_steps (state, self->first_step, self->last_step + 1);
  if (self->cursor >= 0)
    mp_view_state_set_cursor (state, self->cursor);
  if (self->show_live)
    mp_window_show_live_list (window);
  if (self->show_by_op)
    mp_window_show_by_op (window);
}

/* --step-through with --screenshot: the teaching window is the picture. */
static gboolean
step_shot_tick (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  MpScriptedRun *self = data;
  g_autoptr (GError) error = NULL;

  if (!settled (widget))
    return G_SOURCE_CONTINUE;
  if (!mp_widget_screenshot (widget, self->screenshot, &error))
    {
      g_printerr ("memplan: %s\n", error->message);
      self->status = 1;
    }
  g_application_quit (self->app);
  return G_SOURCE_REMOVE;
}

static gboolean
open_step_through (MpScriptedRun *self, MpWindow *window)
{
  g_autoptr (GError) error = NULL;
  MpStepThrough *step = NULL;

  if (mp_window_get_plan_set (window))
    step = mp_step_through_new (GTK_WINDOW (window), mp_window_get_plan_set (window),
                                self->step_through, &error);
  if (step == NULL)
    {
      g_printerr ("memplan: --step-through: %s\n",
                  error ? error->message : mp_window_get_error (window));
      self->status = 2;
      g_application_quit (self->app);
      return FALSE;
    }
  if (self->width > 0 && self->height > 0)
    gtk_window_set_default_size (GTK_WINDOW (step), self->width, self->height);
  mp_step_through_set_position (step, self->step > 0 ? self->step - 1 : 0);
  gtk_window_present (GTK_WINDOW (step));
  if (self->screenshot)
    gtk_widget_add_tick_callback (GTK_WIDGET (step), step_shot_tick, self, NULL);
  return TRUE;
}

static void
window_busy_changed (MpWindow *window, GParamSpec *pspec, MpScriptedRun *self)
{
  if (mp_window_get_busy (window))
    return;
  g_signal_handlers_disconnect_by_func (window, window_busy_changed, self);
  apply_view_options (self, window);
  if (self->step_through)
    open_step_through (self, window);
  else if (self->screenshot || self->hover)
    gtk_widget_add_tick_callback (GTK_WIDGET (window), screenshot_tick, self, NULL);
  else if (self->benchmark)
    {
      if (mp_window_get_error (window))
        {
          g_printerr ("memplan: %s\n", mp_window_get_error (window));
          self->status = 2;
          g_application_quit (self->app);
          return;
        }
      gtk_widget_add_tick_callback (GTK_WIDGET (window), bench_tick, self, NULL);
    }
}

char *
mp_scripted_run_bench_graph (MpScriptedRun *self, GError **error)
{
  MpGenRandomOptions opts = { .n_tensors = self->bench_tensors, .n_streams = 1, .seed = 1 };
  g_autofree char   *json = NULL;
  gsize              length;
  int                fd;
  g_autofree char   *path = NULL;

  json = mp_gen_random (&opts, FALSE, &length);
  if ((fd = g_file_open_tmp ("memplan-bench-XXXXXX.json", &path, error)) < 0)
    return NULL;
  close (fd);
  if (!g_file_set_contents (path, json, length, error))
    return NULL;
  self->bench_file = g_strdup (path);
  return g_steal_pointer (&path);
}

/* Whether the window shows a plan of every enabled planner that does not
 * search for its budget (optimal may come later, with its spinner). */
static gboolean
heuristics_shown (MpWindow *window)
{
  MpPlanSet           *set = mp_window_get_plan_set (window);
  guint                n;
  const MpPlannerInfo *infos = mp_planners (&n);

  if (set == NULL)
    return FALSE;
  if (!mp_window_get_busy (window))
    return TRUE; /* done: what could not run was skipped */
  for (guint i = 0; i < n; i++)
    if (!infos[i].searches && mp_window_get_planner_enabled (window, infos[i].name) &&
        mp_plan_set_find_plan (set, infos[i].name) == NULL)
      return FALSE;
  return TRUE;
}

/* CPU time of the whole process (user + system, every thread): what the
 * open cost whatever else the machine runs. */
static gdouble
process_cpu_seconds (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* --benchmark: the time until the first pane (a trace's observed plan, or
 * the first heuristic's) and every heuristic's pane have been drawn, on
 * the frame after the one that got their plans. */
static gboolean
heuristics_tick (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  MpScriptedRun *self = data;

  if (self->first_view_shown && self->first_view_seconds == 0)
    {
      self->first_view_seconds = (g_get_monotonic_time () - self->started) / 1e6;
      self->first_view_cpu = process_cpu_seconds ();
    }
  if (!self->first_view_shown)
    {
      MpPlanSet *set = mp_window_get_plan_set (MP_WINDOW (widget));

      self->first_view_shown = set && mp_plan_set_get_n_plans (set) > 0;
    }
  if (self->heuristics_shown)
    {
      self->heuristics_seconds = (g_get_monotonic_time () - self->started) / 1e6;
      self->heuristics_cpu = process_cpu_seconds ();
      return G_SOURCE_REMOVE;
    }
  self->heuristics_shown = heuristics_shown (MP_WINDOW (widget));
  return G_SOURCE_CONTINUE;
}

/* --screenshot-loading: the window once the load has read a third of the
 * file, then on the frame after its first view (the planners running). */
static gboolean
loading_shots_tick (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  MpScriptedRun   *self = data;
  MpWindow        *window = MP_WINDOW (widget);
  MpPlanSet       *set = mp_window_get_plan_set (window);
  g_autoptr (GError) error = NULL;
  g_autofree char *path = NULL;

  if (!mp_window_get_busy (window) || self->loading_shot > 1)
    return G_SOURCE_REMOVE;
  if (self->loading_shot == 0 && (set || mp_window_get_progress (window) < 0.33))
    {
      if (set)
        self->loading_shot = 1; /* loaded before a third could be seen */
      return G_SOURCE_CONTINUE;
    }
  if (self->loading_shot == 1 && (set == NULL || !g_object_get_data (G_OBJECT (widget),
                                                                     "first-view-painted")))
    {
      if (set)
        g_object_set_data (G_OBJECT (widget), "first-view-painted", GINT_TO_POINTER (1));
      return G_SOURCE_CONTINUE;
    }
  path = g_strconcat (self->loading_shots, self->loading_shot ? "-first-view.png" : "-loading.png",
                      NULL);
  if (!mp_window_screenshot (window, path, &error))
    {
      guint tries = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (widget), "shot-tries"));

      /* a window laid out again has no picture until a later frame; the
       * loading one is tried again until the first view comes */
      g_object_set_data (G_OBJECT (widget), "shot-tries", GUINT_TO_POINTER (tries + 1));
      if (tries < SCREENSHOT_RETRIES || (self->loading_shot == 0 && set == NULL))
        return G_SOURCE_CONTINUE;
      g_printerr ("memplan: %s\n", error->message);
    }
  g_object_set_data (G_OBJECT (widget), "shot-tries", NULL);
  self->loading_shot++;
  return G_SOURCE_CONTINUE;
}

void
mp_scripted_run_watch (MpScriptedRun *self, MpWindow *window)
{
  if (self->loading_shots)
    gtk_widget_add_tick_callback (GTK_WIDGET (window), loading_shots_tick, self, NULL);
  g_signal_connect (window, "notify::busy", G_CALLBACK (window_busy_changed), self);
  if (self->benchmark)
    gtk_widget_add_tick_callback (GTK_WIDGET (window), heuristics_tick, self, NULL);
}

void
mp_scripted_run_clear (MpScriptedRun *self)
{
  g_clear_pointer (&self->screenshot, g_free);
  g_clear_pointer (&self->select, g_free);
  g_clear_pointer (&self->hover, g_free);
  g_clear_pointer (&self->loading_shots, g_free);
  g_clear_pointer (&self->step_through, g_free);
  if (self->bench_file)
    g_unlink (self->bench_file);
  g_clear_pointer (&self->bench_file, g_free);
}
