/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

#include <stdio.h>

#include "frame-bench.h"
#include "plan-view.h"

typedef struct
{
  MpWindow      *window;
  GdkFrameClock *clock;
  GArray        *ms;         /* per pan/zoom frame */
  GArray        *full_ms;    /* per frame that draws every pane again */
  GArray        *cursor_ms;  /* per step-cursor move (the live list follows) */
  GArray        *select_ms;  /* per selection change */
  guint          n_frames;
  guint          frame;
  gint64         started;    /* this frame's update phase, µs; 0 when none */
  gulong         after_paint;
  gdouble        open_seconds;
  GCallback      done;
  gpointer       user_data;
} FrameBench;

/* Steps panned per frame, as a share of the visible span. */
#define PAN_SHARE 0.01
#define ZOOM_STEP 1.03
/* Frames, after the pan/zoom ones, that redraw every pane from scratch,
 * then that move the step cursor, then that select a tensor or clear it. */
#define FULL_FRAMES   30
#define CURSOR_FRAMES 30
#define SELECT_FRAMES 30

static int
compare_double (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return x < y ? -1 : x > y;
}

static void
print_figures (const char *what, GArray *ms)
{
  gdouble *v = (gdouble *) ms->data;
  guint    n = ms->len;

  g_array_sort (ms, compare_double);
  if (n)
    printf ("  %u %s: median %.1f ms, 95th percentile %.1f ms, max %.1f ms\n", n, what,
            v[n / 2], v[MIN (n - 1, n * 95 / 100)], v[n - 1]);
}

static void
finish (FrameBench *fb)
{
  GPtrArray   *views = mp_window_get_plan_views (fb->window);
  MpPlanSet   *set = mp_window_get_plan_set (fb->window);

  printf ("memplan benchmark: %s, %u tensors, %u panes of %d×%d px\n",
          mp_plan_set_get_graph (set)->name, mp_plan_set_get_graph (set)->n_tensors, views->len,
          views->len ? gtk_widget_get_width (views->pdata[0]) : 0,
          views->len ? gtk_widget_get_height (views->pdata[0]) : 0);
  printf ("  open, plan and show (every planner): %.2f s (planning thread alone: %.2f s)\n",
          fb->open_seconds, mp_plan_set_get_seconds (set));
  print_figures ("pan/zoom frames", fb->ms);
  print_figures ("frames redrawing every pane", fb->full_ms);
  print_figures ("step-cursor moves (live list shown)", fb->cursor_ms);
  print_figures ("selection changes", fb->select_ms);
  g_signal_handler_disconnect (fb->clock, fb->after_paint);
  g_array_unref (fb->ms);
  g_array_unref (fb->full_ms);
  g_array_unref (fb->cursor_ms);
  g_array_unref (fb->select_ms);
  ((void (*) (gpointer)) fb->done) (fb->user_data);
  g_free (fb);
}

static void
after_paint (GdkFrameClock *clock, FrameBench *fb)
{
  if (fb->started == 0)
    return;
  /* fb->frame was counted after this frame's update */
  guint   f = fb->frame - 1;
  GArray *ms = f < fb->n_frames                               ? fb->ms
               : f < fb->n_frames + FULL_FRAMES                ? fb->full_ms
               : f < fb->n_frames + FULL_FRAMES + CURSOR_FRAMES ? fb->cursor_ms
                                                               : fb->select_ms;

  g_array_append_val (ms, (gdouble) { (g_get_monotonic_time () - fb->started) / 1000.0 });
  fb->started = 0;
}

static gboolean
tick (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  FrameBench  *fb = data;
  MpViewState *state = mp_window_get_state (fb->window);
  gdouble      min, max;
  guint        half = fb->n_frames / 2;

  if (fb->frame == fb->n_frames + FULL_FRAMES + CURSOR_FRAMES + SELECT_FRAMES)
    {
      finish (fb);
      return G_SOURCE_REMOVE;
    }
  fb->started = g_get_monotonic_time ();
  mp_view_state_get_steps (state, &min, &max);
  if (fb->frame >= fb->n_frames + FULL_FRAMES + CURSOR_FRAMES)
    {
      /* a tensor live at the cursor, every other frame none */
      MpPlanSet *set = mp_window_get_plan_set (fb->window);
      guint      k = fb->frame - fb->n_frames - FULL_FRAMES - CURSOR_FRAMES;
      MpPlan    *plan = mp_plan_set_get_plan (set, 0);

      mp_view_state_set_selected (state, k % 2 || plan->n_records == 0
                                           ? -1
                                           : (gint) plan->records[(k * 7919u) %
                                                                  plan->n_records].tensor);
    }
  else if (fb->frame >= fb->n_frames + FULL_FRAMES)
    {
      guint n_steps = mp_view_state_get_n_steps (state);

      if (fb->frame == fb->n_frames + FULL_FRAMES)
        mp_window_show_live_list (fb->window);
      mp_view_state_set_cursor (state, n_steps ? (gint) ((fb->frame * 37u) % n_steps) : -1);
    }
  else if (fb->frame >= fb->n_frames)
    {
      GPtrArray *views = mp_window_get_plan_views (fb->window);

      for (guint i = 0; i < views->len; i++)
        mp_plan_view_redraw (views->pdata[i]);
    }
  else if (fb->frame < half)
    {
      /* pan to and fro across a view zoomed in 8× */
      if (fb->frame == 0)
        mp_view_state_zoom (state, 8, 0);
      else
        mp_view_state_pan (state, ((fb->frame / 50) % 2 ? -1 : 1) * PAN_SHARE * (max - min));
    }
  else
    {
      /* zoom out to everything and back in, around the middle */
      gdouble factor = ((fb->frame - half) / 40) % 2 ? ZOOM_STEP : 1 / ZOOM_STEP;

      mp_view_state_zoom (state, factor, (min + max) / 2);
    }
  fb->frame++;
  return G_SOURCE_CONTINUE;
}

void
mp_frame_bench_run (MpWindow *window, guint n_frames, gdouble open_seconds, GCallback done,
                    gpointer user_data)
{
  FrameBench *fb = g_new0 (FrameBench, 1);

  fb->window = window;
  fb->clock = gtk_widget_get_frame_clock (GTK_WIDGET (window));
  fb->ms = g_array_new (FALSE, FALSE, sizeof (gdouble));
  fb->full_ms = g_array_new (FALSE, FALSE, sizeof (gdouble));
  fb->cursor_ms = g_array_new (FALSE, FALSE, sizeof (gdouble));
  fb->select_ms = g_array_new (FALSE, FALSE, sizeof (gdouble));
  fb->n_frames = n_frames;
  fb->open_seconds = open_seconds;
  fb->done = done;
  fb->user_data = user_data;
  fb->after_paint = g_signal_connect (fb->clock, "after-paint", G_CALLBACK (after_paint), fb);
  gtk_widget_add_tick_callback (GTK_WIDGET (window), tick, fb, NULL);
}
