/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Issue 33's items about pictures and names (3, 6, 15): one test per item,
 * named after its number, each failing on the code before its fix. */
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "memplan-render.h"
#include "gen.h"
#include "test-util.h"

/* 6: the app's 100k pane (60 px of plot for a 995 MiB arena, 300 steps)
 * read as solid blue though 29% of it is free: every gap is thinner than a
 * pixel (16 MiB), so every pixel was painted at about 70% opacity, a
 * uniform blue. Each column must still show its live share (within 8
 * points), and its free share as pixels left free (within 10 points). */
static void
test_06_thin_boxes_show_free (void)
{
  MpGenRandomOptions go = { .n_tensors = 100000, .n_streams = 1, .seed = 1 };
  gsize              length;
  g_autofree char   *json = mp_gen_random (&go, FALSE, &length);
  g_autoptr (GError) error = NULL;
  MpGraph           *graph = mp_graph_parse_json (json, length, "random-100k.json", &error);
  MpLifetimes       *lt;
  MpPlan            *plan;
  MpRenderIndex     *index;
  MpRenderOptions    o = { 0 };
  MpRenderLayout     l;
  cairo_surface_t   *s;
  cairo_t           *cr;
  const MpPalette   *palette = mp_palette_get (MP_THEME_LIGHT);
  const gint         w = 1160, h = 76;
  gdouble            worst = 0, worst_free = 0, sum_drawn = 0, sum_truth = 0, sum_free = 0;
  guint              n_cols = 0;

  g_assert_no_error (error);
  lt = mp_lifetimes_compute (graph, NULL, &error);
  g_assert_no_error (error);
  plan = test_run_planner ("greedy-by-size", graph, lt);
  index = mp_render_index_new (graph, plan);
  o.flags = MP_RENDER_HIDE_TITLE | MP_RENDER_HIDE_LEGEND | MP_RENDER_HIDE_CURVE |
            MP_RENDER_HIDE_LABELS | MP_RENDER_HIDE_AXES | MP_RENDER_HIDE_FREE |
            MP_RENDER_HIDE_LINES;
  o.viewport = (MpViewport) { 50000, 50301, 0, (gdouble) plan->arena };
  s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, w, h);
  cr = cairo_create (s);
  mp_render_plan (cr, index, &o, w, h);
  cairo_destroy (cr);
  cairo_surface_flush (s);
  mp_render_layout (index, &o, w, h, &l);
  g_assert_cmpfloat (l.plot.height, >=, 56);

  for (guint step = 50000; step <= 50300; step += 10)
    {
      const guint8 *data = cairo_image_surface_get_data (s);
      gint          stride = cairo_image_surface_get_stride (s);
      MpRgb         bg = palette->background, fill = palette->keys[0];
      gdouble       x, y, live = 0, drawn = 0, free = 0;
      gint          rows = 0;

      for (guint r = 0; r < plan->n_records; r++)
        if (plan->records[r].first <= step && plan->records[r].last >= step)
          live += plan->records[r].bytes;
      mp_render_layout_to_device (&l, step + 0.5, 0, &x, &y);
      for (gint py = (gint) ceil (l.plot.y); py < (gint) floor (l.plot.y + l.plot.height); py++)
        {
          guint32 v = *(const guint32 *) (const void *) (data + py * stride + (gint) x * 4);
          /* the red channel tells the activation blue from white best */
          gdouble c = (v >> 16 & 0xff) / 255.0;
          gdouble share = CLAMP ((c - bg.r) / (fill.r - bg.r), 0, 1);

          drawn += share;
          free += share < 0.15;
          rows++;
        }
      drawn /= rows;
      free /= rows;
      live /= plan->arena;
      worst = MAX (worst, fabs (drawn - live));
      worst_free = MAX (worst_free, fabs (free - (1 - live)));
      sum_free += free;
      sum_drawn += drawn;
      sum_truth += live;
      n_cols++;
    }
  g_test_message ("drawn %.1f%% live and %.1f%% of the pixels free on average, true %.1f%% "
                  "live; worst column %.1f and %.1f points off", 100 * sum_drawn / n_cols,
                  100 * sum_free / n_cols, 100 * sum_truth / n_cols, 100 * worst,
                  100 * worst_free);
  g_assert_cmpfloat (worst, <, 0.08);
  g_assert_cmpfloat (worst_free, <, 0.10);
  cairo_surface_destroy (s);
  mp_render_index_free (index);
  mp_plan_free (plan);
  mp_lifetimes_free (lt);
  mp_graph_free (graph);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/truth/06-thin-boxes-show-free", test_06_thin_boxes_show_free);
  return g_test_run ();
}
