/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

#include <stdio.h>
#include <time.h>

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
  GArray        *step_ms;    /* per one-step cursor move (Ctrl+], the live list shown) */
  GArray        *scale_ms;   /* per frame that redraws every pane at a new scale */
  GArray        *made_ms;    /* per new scale: until its summaries are made (their threads) */
  gint64         scale_started; /* the last new scale's frame, while its summaries are made */
  gboolean       made_async;    /* a summary was asked of its thread for it */
  guint          n_frames;
  guint          frame;
  gint64         started;    /* this frame's update phase, µs; 0 when none */
  gdouble        cpu_started; /* the main thread's CPU time then, ms */
  GArray        *cpu[6];     /* the same frames' CPU time of the main thread */
  gulong         after_paint;
  gdouble        first_view_seconds;
  gdouble        first_view_cpu;  /* the process's CPU seconds by then */
  gdouble        heuristics_seconds;
  gdouble        heuristics_cpu;
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
#define STEP_FRAMES   30
/* Last, frames that redraw every pane at another scale than the frame
 * before (the whole view, then twice as close): the level-of-detail
 * summary made again each time. */
#define SCALE_FRAMES  10
#define ALL_FRAMES    (FULL_FRAMES + CURSOR_FRAMES + SELECT_FRAMES + STEP_FRAMES + SCALE_FRAMES)

static int
compare_double (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return x < y ? -1 : x > y;
}

/* CPU time of this (the main) thread: what a frame costs whatever else
 * the machine runs, where wall time counts the other processes too. */
static gdouble
thread_cpu_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void
print_figures (const char *what, GArray *ms, GArray *cpu)
{
  gdouble *v = (gdouble *) ms->data, *c = (gdouble *) cpu->data;
  guint    n = ms->len;

  g_array_sort (ms, compare_double);
  g_array_sort (cpu, compare_double);
  if (n)
    printf ("  %u %s: median %.1f ms, 95th percentile %.1f ms, max %.1f ms (main thread CPU: "
            "median %.1f ms)\n",
            n, what, v[n / 2], v[MIN (n - 1, n * 95 / 100)], v[n - 1], c[cpu->len / 2]);
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
  printf ("  open, first view drawn: %.2f s (process CPU: %.2f s)\n", fb->first_view_seconds,
          fb->first_view_cpu);
  printf ("  open with every heuristic's pane drawn: %.2f s (process CPU: %.2f s)\n",
          fb->heuristics_seconds, fb->heuristics_cpu);
  printf ("  open, plan and show (every planner, the search's budget included): %.2f s "
          "(planning alone: %.2f s)\n", fb->open_seconds, mp_plan_set_get_seconds (set));
  print_figures ("pan/zoom frames", fb->ms, fb->cpu[0]);
  print_figures ("frames redrawing every pane", fb->full_ms, fb->cpu[1]);
  print_figures ("step-cursor moves (live list shown)", fb->cursor_ms, fb->cpu[2]);
  print_figures ("selection changes", fb->select_ms, fb->cpu[3]);
  print_figures ("one-step cursor moves (live list shown)", fb->step_ms, fb->cpu[4]);
  print_figures ("frames redrawing every pane at a new scale", fb->scale_ms, fb->cpu[5]);
  g_array_sort (fb->made_ms, compare_double);
  if (fb->made_ms->len)
    printf ("  %u new scales' summaries made on their threads: median %.1f ms, max %.1f ms after "
            "the frame (the panes stretch the last one meanwhile)\n",
            fb->made_ms->len, g_array_index (fb->made_ms, gdouble, fb->made_ms->len / 2),
            g_array_index (fb->made_ms, gdouble, fb->made_ms->len - 1));
  for (guint k = 0; k < G_N_ELEMENTS (fb->cpu); k++)
    g_array_unref (fb->cpu[k]);
  g_signal_handler_disconnect (fb->clock, fb->after_paint);
  g_array_unref (fb->ms);
  g_array_unref (fb->full_ms);
  g_array_unref (fb->cursor_ms);
  g_array_unref (fb->select_ms);
  g_array_unref (fb->step_ms);
  g_array_unref (fb->scale_ms);
  g_array_unref (fb->made_ms);
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
  guint   k = f < fb->n_frames                                                ? 0
              : f < fb->n_frames + FULL_FRAMES                                 ? 1
              : f < fb->n_frames + FULL_FRAMES + CURSOR_FRAMES                 ? 2
              : f < fb->n_frames + FULL_FRAMES + CURSOR_FRAMES + SELECT_FRAMES ? 3
              : f < fb->n_frames + ALL_FRAMES - SCALE_FRAMES                   ? 4
                                                                               : 5;
  GArray *phases[] = { fb->ms, fb->full_ms, fb->cursor_ms, fb->select_ms, fb->step_ms,
                       fb->scale_ms };
  GArray *ms = phases[k];

  g_array_append_val (ms, (gdouble) { (g_get_monotonic_time () - fb->started) / 1000.0 });
  g_array_append_val (fb->cpu[k], (gdouble) { thread_cpu_ms () - fb->cpu_started });
  fb->started = 0;
  if (k == 5)
    fb->made_async = mp_window_summaries_pending (fb->window);
}

static gboolean
tick (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  FrameBench  *fb = data;
  MpViewState *state = mp_window_get_state (fb->window);
  gdouble      min, max;
  guint        half = fb->n_frames / 2;

  if (fb->scale_started != 0)
    {
      /* each new scale's summaries are waited for (the panes are drawn
       * from them then) before the next scale */
      if (mp_window_summaries_pending (fb->window))
        return G_SOURCE_CONTINUE;
      if (fb->made_async)
        g_array_append_val (fb->made_ms,
                            (gdouble) { (g_get_monotonic_time () - fb->scale_started) / 1000.0 });
      fb->scale_started = 0;
    }
  if (fb->frame == fb->n_frames + ALL_FRAMES)
    {
      finish (fb);
      return G_SOURCE_REMOVE;
    }
  fb->started = g_get_monotonic_time ();
  fb->cpu_started = thread_cpu_ms ();
  mp_view_state_get_steps (state, &min, &max);
  if (fb->frame >= fb->n_frames + ALL_FRAMES - SCALE_FRAMES)
    {
      GPtrArray *views = mp_window_get_plan_views (fb->window);

      fb->scale_started = fb->started;
      if (fb->frame % 2)
        mp_view_state_zoom (state, 2, (min + max) / 2);
      else
        mp_view_state_fit (state);
      for (guint i = 0; i < views->len; i++)
        mp_plan_view_redraw (views->pdata[i]);
    }
  else if (fb->frame >= fb->n_frames + FULL_FRAMES + CURSOR_FRAMES + SELECT_FRAMES)
    {
      /* the keyboard's step: one at a time from the middle */
      guint n_steps = mp_view_state_get_n_steps (state);
      guint k = fb->frame - fb->n_frames - FULL_FRAMES - CURSOR_FRAMES - SELECT_FRAMES;

      if (k == 0)
        mp_view_state_set_selected (state, -1);
      mp_view_state_set_cursor (state, n_steps ? (gint) ((n_steps / 2 + k) % n_steps) : -1);
    }
  else if (fb->frame >= fb->n_frames + FULL_FRAMES + CURSOR_FRAMES)
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
mp_frame_bench_run (MpWindow *window, guint n_frames, gdouble first_view_seconds,
                    gdouble first_view_cpu, gdouble heuristics_seconds, gdouble heuristics_cpu,
                    gdouble open_seconds, GCallback done, gpointer user_data)
{
  FrameBench *fb = g_new0 (FrameBench, 1);

  fb->window = window;
  fb->clock = gtk_widget_get_frame_clock (GTK_WIDGET (window));
  fb->ms = g_array_new (FALSE, FALSE, sizeof (gdouble));
  fb->full_ms = g_array_new (FALSE, FALSE, sizeof (gdouble));
  fb->cursor_ms = g_array_new (FALSE, FALSE, sizeof (gdouble));
  fb->select_ms = g_array_new (FALSE, FALSE, sizeof (gdouble));
  fb->step_ms = g_array_new (FALSE, FALSE, sizeof (gdouble));
  fb->scale_ms = g_array_new (FALSE, FALSE, sizeof (gdouble));
  fb->made_ms = g_array_new (FALSE, FALSE, sizeof (gdouble));
  for (guint k = 0; k < G_N_ELEMENTS (fb->cpu); k++)
    fb->cpu[k] = g_array_new (FALSE, FALSE, sizeof (gdouble));
  fb->n_frames = n_frames;
  fb->first_view_seconds = first_view_seconds;
  fb->first_view_cpu = first_view_cpu;
  fb->heuristics_seconds = heuristics_seconds;
  fb->heuristics_cpu = heuristics_cpu;
  fb->open_seconds = open_seconds;
  fb->done = done;
  fb->user_data = user_data;
  fb->after_paint = g_signal_connect (fb->clock, "after-paint", G_CALLBACK (after_paint), fb);
  gtk_widget_add_tick_callback (GTK_WIDGET (window), tick, fb, NULL);
}
