/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cli.h"
#include "cli-render.h"

static gdouble
now (void)
{
  return g_get_monotonic_time () / 1e6;
}

/* CPU time of this thread: on a shared machine the wall clock also counts
 * other programs' turns. */
static gdouble
cpu_now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static cairo_status_t
append_png (void *closure, const unsigned char *data, unsigned int length)
{
  g_byte_array_append (closure, data, length);
  return CAIRO_STATUS_SUCCESS;
}

static int
cmp_double (const void *a, const void *b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return x < y ? -1 : x > y;
}

/* Median and best of n frames of one view, CPU and wall time, in ms. */
static void
time_frames (cairo_t *cr, const MpRenderIndex *index, const MpRenderOptions *options, gint width,
             gint height, guint n, const char *what)
{
  g_autofree gdouble *cpu = g_new (gdouble, n);
  g_autofree gdouble *wall = g_new (gdouble, n);

  for (guint i = 0; i < n; i++)
    {
      gdouble c0 = cpu_now (), w0 = now ();

      mp_render_plan (cr, index, options, width, height);
      cairo_surface_flush (cairo_get_target (cr));
      cpu[i] = (cpu_now () - c0) * 1e3;
      wall[i] = (now () - w0) * 1e3;
    }
  qsort (cpu, n, sizeof (gdouble), cmp_double);
  qsort (wall, n, sizeof (gdouble), cmp_double);
  printf ("  %-30s cpu median %6.2f ms, best %6.2f ms; wall median %6.2f ms  (%u frames)\n", what,
          cpu[n / 2], cpu[0], wall[n / 2], n);
}

int
mp_cli_render_bench (gint n_tensors, gint width, gint height, const MpRenderOptions *base,
                     const char *output)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MpInput) input = NULL;
  g_autoptr (MpWorkload) w = NULL;
  const MpGraph   *graph;
  g_autoptr (MpPlan) plan = NULL;
  g_autoptr (MpRenderIndex) index = NULL;
  g_autoptr (GRand) rand = g_rand_new_with_seed (7);
  g_autofree char *text = NULL;
  g_autofree char *arena = NULL;
  MpGenRandomOptions gopts = { 0 };
  MpRenderOptions    options = *base;
  cairo_surface_t   *surface;
  cairo_t           *cr;
  gsize              length;
  int                status = MP_EXIT_OK;
  gdouble            t0, span;
  guint              frames = n_tensors >= 500000 ? 7 : 25, hits = 0, n_hits = 200000;

  if (width < 1 || height < 1 || width > 20000 || height > 20000)
    {
      mp_cli_error ("--width and --height must be between 1 and 20000");
      return MP_EXIT_BAD_INPUT;
    }
  gopts.n_tensors = n_tensors;
  gopts.n_streams = 1;
  gopts.seed = 1;
  text = mp_gen_random (&gopts, TRUE, &length);
  if (!(input = mp_input_parse (text, length, "<generated>", NULL, &error)) ||
      !(w = mp_workload_new (g_steal_pointer (&input->graph), NULL, &error)))
    {
      mp_cli_error ("%s", error->message);
      return MP_EXIT_FAILED;
    }
  g_clear_pointer (&text, g_free);
  graph = w->graph;
  if (!(plan = mp_workload_plan (w, mp_planner_lookup ("greedy-by-size"), NULL, NULL, &error)))
    {
      mp_cli_error ("%s", error->message);
      return MP_EXIT_FAILED;
    }
  arena = mp_format_bytes (plan->arena);
  printf ("%u tensors over %u steps, greedy-by-size arena %s (planned in %.2f s)\n",
          plan->n_records, plan->n_steps, arena, plan->seconds);

  t0 = now ();
  index = mp_render_index_new (graph, plan);
  printf ("  %-30s %6.2f ms\n", "index (once per plan)",
          (now () - t0) * 1e3);

  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
  cr = cairo_create (surface);
  options.viewport = (MpViewport) { 0 };
  time_frames (cr, index, &options, width, height, frames, "whole plan");
  span = plan->n_steps / 10.0;
  options.viewport.step_min = plan->n_steps / 2.0;
  options.viewport.step_max = options.viewport.step_min + span;
  time_frames (cr, index, &options, width, height, frames, "1/10 of the steps");
  options.viewport.step_max = options.viewport.step_min + MAX (span / 100, 20);
  time_frames (cr, index, &options, width, height, frames, "1/1000 of the steps");
  options.viewport = (MpViewport) { 0 };
  options.color_by = MP_COLOR_BY_SIZE;
  options.theme = MP_THEME_DARK;
  time_frames (cr, index, &options, width, height, frames, "whole plan, size key, dark");
  /* through memory, so that the file is replaced whole or not at all */
  if (output)
    {
      g_autoptr (GByteArray) png = g_byte_array_new ();
      g_autoptr (GError) write_error = NULL;

      if (cairo_surface_write_to_png_stream (surface, append_png, png) != CAIRO_STATUS_SUCCESS)
        g_set_error (&write_error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_IO,
                     "%s: cannot encode the picture", output);
      else
        mp_cli_output_bytes (output, (const char *) png->data, png->len, &write_error);
      if (write_error)
        {
          mp_cli_error ("%s", write_error->message);
          status = MP_EXIT_BAD_INPUT;
        }
    }

  t0 = now ();
  for (guint i = 0; i < n_hits; i++)
    {
      guint   step = g_rand_int_range (rand, 0, (gint32) MAX (plan->n_steps, 1));
      guint64 addr = (guint64) (g_rand_double (rand) * plan->arena);

      hits += mp_render_index_lookup (index, step, addr) >= 0;
    }
  printf ("  %-30s %6.3f µs per query (%u of %u points on a tensor)\n", "hit test",
          (now () - t0) * 1e6 / n_hits, hits, n_hits);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  return status;
}
