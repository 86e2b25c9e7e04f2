/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The timeline's level-of-detail summary (mp_render_index_set_summary,
 * issue 31): drawn from the summary, a view shows the very pixels the
 * exact walk over the buffers draws, whole view or panned, and a pan at
 * one scale reuses the summary. Sizes and scales are powers of two, so
 * the coverage sums are exact in any order. */
#include <string.h>

#include <cairo-svg.h>
#include <glib/gstdio.h>

#include "memplan-render.h"
#include "planner.h"
#include "render-private.h"

#define N_OPS 600
#define IMG_W 420
#define IMG_H 80

typedef struct
{
  MpGraph       *graph;
  MpLifetimes   *lt;
  MpPlan        *plan;
  MpRenderIndex *index;
} Fixture;

/* op i makes t<i> (1 to 8 KiB) and reads one to three earlier tensors. */
static char *
graph_json (guint32 seed)
{
  GString *s = g_string_new ("{\"format\":\"memplan.graph/1\",\"name\":\"lod\","
                             "\"alignment\":1024,\"tensors\":[");
  GRand   *rand = g_rand_new_with_seed (seed);

  for (guint i = 0; i < N_OPS; i++)
    g_string_append_printf (s, "%s{\"name\":\"t%u\",\"size\":%u}", i ? "," : "", i,
                            1024 * (1 + g_rand_int_range (rand, 0, 8)));
  g_string_append (s, "],\"ops\":[");
  for (guint i = 0; i < N_OPS; i++)
    {
      g_string_append_printf (s, "%s{\"name\":\"op%u\",\"inputs\":[", i ? "," : "", i);
      for (guint k = 0, n = i ? 1 + g_rand_int_range (rand, 0, 3) : 0; k < n; k++)
        {
          /* mostly short lives, a few long ones */
          guint back = 1 + g_rand_int_range (rand, 0, g_rand_int_range (rand, 0, 4) ? 6 : 120);

          g_string_append_printf (s, "%s\"t%u\"", k ? "," : "", i > back ? i - back : 0);
        }
      g_string_append_printf (s, "],\"outputs\":[\"t%u\"]}", i);
    }
  g_string_append (s, "]}");
  g_rand_free (rand);
  return g_string_free (s, FALSE);
}

static void
fixture_init (Fixture *fx, guint32 seed)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *json = graph_json (seed);
  MpLifetimeOptions lopts = { 0 };
  MpPlannerOptions  popts = { 0 };

  fx->graph = mp_graph_parse_json (json, strlen (json), "lod.json", &error);
  g_assert_no_error (error);
  fx->lt = mp_lifetimes_compute (fx->graph, &lopts, &error);
  g_assert_no_error (error);
  fx->plan = mp_planner_run (mp_planner_lookup ("greedy-by-size"), fx->graph, fx->lt, &popts,
                             NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (fx->plan->arena, <=, 1u << 21);
  fx->index = mp_render_index_new (fx->graph, fx->plan);
  g_assert_cmpuint (fx->index->n_steps, ==, N_OPS);
}

static void
fixture_clear (Fixture *fx)
{
  mp_render_index_free (fx->index);
  mp_plan_free (fx->plan);
  mp_lifetimes_free (fx->lt);
  mp_graph_free (fx->graph);
}

/* The timeline alone over steps [s0, s0 + width / sx) and addresses
 * [0, 2 MiB), the plot at (10, 5), 64 pixels high. */
static cairo_surface_t *
draw (MpRenderIndex *index, gboolean summary, gdouble s0, gdouble sx, gdouble width,
      const guint *highlight, guint n_highlight)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, IMG_W, IMG_H);
  cairo_t         *cr = cairo_create (surface);
  MpRenderOptions  o = { 0 };
  MpRenderLayout   layout = { 0 };
  MpText           text;

  o.flags = MP_RENDER_HIDE_LABELS;
  o.highlight = highlight;
  o.n_highlight = n_highlight;
  layout.viewport = (MpViewport) { s0, s0 + width / sx, 0, 1u << 21 };
  layout.plot = (MpRenderRect) { 10, 5, width, 64 };
  mp_render_index_set_summary (index, TRUE);
  /* the summary even for these few buffers, or never (the exact walk) */
  index->lod_min_records = summary ? 0 : G_MAXUINT;
  mp_cairo_set_rgb (cr, mp_palette_get (o.theme)->background);
  cairo_paint (cr);
  mp_text_init (&text, cr, 12);
  mp_render_draw_timeline (cr, index, &o, &layout, &text);
  mp_text_clear (&text);
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  return surface;
}

static guint
count_differences (cairo_surface_t *a, cairo_surface_t *b, guint *painted)
{
  const guint8 *da = cairo_image_surface_get_data (a), *db = cairo_image_surface_get_data (b);
  gint          stride = cairo_image_surface_get_stride (a);
  guint32       bg = *(const guint32 *) (const void *) da;
  guint         n = 0;

  *painted = 0;
  for (gint y = 0; y < IMG_H; y++)
    for (gint x = 0; x < IMG_W; x++)
      {
        guint32 pa = *(const guint32 *) (const void *) (da + y * stride + x * 4) & 0xffffff;
        guint32 pb = *(const guint32 *) (const void *) (db + y * stride + x * 4) & 0xffffff;

        n += pa != pb;
        *painted += pa != (bg & 0xffffff);
      }
  return n;
}

static void
assert_same (MpRenderIndex *index, gdouble s0, gdouble sx, gdouble width)
{
  cairo_surface_t *exact = draw (index, FALSE, s0, sx, width, NULL, 0);
  cairo_surface_t *lod = draw (index, TRUE, s0, sx, width, NULL, 0);
  guint            painted;

  g_assert_nonnull (index->lod);
  g_assert_cmpuint (count_differences (exact, lod, &painted), ==, 0);
  /* and the picture is not empty */
  g_assert_cmpuint (painted, >, 200);
  cairo_surface_destroy (exact);
  cairo_surface_destroy (lod);
}

/* The whole step range at a quarter of a pixel per step: nearly every
 * buffer is thinner than a pixel, so coverage does the drawing. */
static void
test_whole (void)
{
  for (guint32 seed = 1; seed <= 3; seed++)
    {
      Fixture fx;

      fixture_init (&fx, seed);
      assert_same (fx.index, 0, 0.25, N_OPS * 0.25);
      fixture_clear (&fx);
    }
}

/* Zoomed in (2 pixels a step) and panned: the summary of the whole range
 * at that scale, shifted, is the exact view of steps 100 to 300 and then
 * of 137 to 337 — made once for both. */
static void
test_panned (void)
{
  Fixture      fx;
  MpRenderLod *made;

  fixture_init (&fx, 7);
  assert_same (fx.index, 100, 2, 400);
  made = fx.index->lod;
  assert_same (fx.index, 137, 2, 400);
  g_assert_true (fx.index->lod == made);
  /* another scale makes another */
  assert_same (fx.index, 0, 0.5, 300);
  g_assert_true (fx.index->lod != NULL);
  mp_render_index_set_summary (fx.index, FALSE);
  g_assert_null (fx.index->lod);
  fixture_clear (&fx);
}

/* Made on its thread (mp_render_index_set_summary_async): a view at a new
 * scale is drawn at once from the last summary stretched to it, a picture
 * of the same buffers, while the new one is made; once made, the view is
 * the exact one again, drawn from it without another. An index freed while
 * its summary is made waits for the thread. */
static void
test_async (void)
{
  Fixture          fx;
  MpRenderLod     *made;
  cairo_surface_t *stretched, *exact;
  guint            painted;

  fixture_init (&fx, 11);
  mp_render_index_set_summary_async (fx.index, TRUE);
  /* the first summary is made in the frame: nothing to stretch */
  assert_same (fx.index, 0, 0.5, 300);
  g_assert_false (mp_render_index_summary_pending (fx.index));
  /* a file is drawn truly: its own scale's summary made in the frame,
   * nothing stretched nor asked of the thread */
  {
    g_autofree char *dir = g_dir_make_tmp ("memplan-lod-XXXXXX", NULL);
    g_autofree char *png = g_build_filename (dir, "async.png", NULL);
    g_autoptr (GError) error = NULL;

    g_assert_true (mp_render_write_file (png, MP_RENDER_FORMAT_PNG, &fx.index, 1, NULL, 700,
                                         300, &error));
    g_assert_no_error (error);
    g_assert_null (fx.index->lod_asked);
    g_assert_true (fx.index->lod_async);
    g_assert_cmpint (g_remove (png), ==, 0);
    g_assert_cmpint (g_rmdir (dir), ==, 0);
  }
  assert_same (fx.index, 0, 0.5, 300);
  made = fx.index->lod;
  stretched = draw (fx.index, TRUE, 0, 0.25, N_OPS * 0.25, NULL, 0);
  exact = draw (fx.index, FALSE, 0, 0.25, N_OPS * 0.25, NULL, 0);
  count_differences (exact, stretched, &painted);
  g_assert_cmpuint (painted, >, 200);
  cairo_surface_destroy (stretched);
  cairo_surface_destroy (exact);
  while (mp_render_index_summary_pending (fx.index))
    g_usleep (1000);
  g_assert_true (fx.index->lod != made);
  made = fx.index->lod;
  assert_same (fx.index, 0, 0.25, N_OPS * 0.25);
  g_assert_true (fx.index->lod == made);
  g_assert_false (mp_render_index_summary_pending (fx.index));
  /* freed while the thread works */
  cairo_surface_destroy (draw (fx.index, TRUE, 0, 0.5, 300, NULL, 0));
  fixture_clear (&fx);
}

/* A followed tensor is framed where the exact drawing frames it, and the
 * others dimmed: wherever exact shows the background, so does the summary. */
static void
test_highlight (void)
{
  Fixture          fx;
  guint            t;
  cairo_surface_t *exact, *lod;
  const guint8    *de, *dl;
  gint             stride;
  guint            same = 0, framed = 0;
  guint32          bg, hl;

  fixture_init (&fx, 11);
  t = fx.plan->records[fx.plan->n_records / 2].tensor;
  exact = draw (fx.index, FALSE, 0, 0.5, 300, &t, 1);
  lod = draw (fx.index, TRUE, 0, 0.5, 300, &t, 1);
  de = cairo_image_surface_get_data (exact);
  dl = cairo_image_surface_get_data (lod);
  stride = cairo_image_surface_get_stride (exact);
  bg = *(const guint32 *) (const void *) de & 0xffffff;
  {
    MpRgb c = mp_palette_get (MP_THEME_LIGHT)->highlight;

    hl = (guint32) (c.r * 255 + 0.5) << 16 | (guint32) (c.g * 255 + 0.5) << 8 |
         (guint32) (c.b * 255 + 0.5);
  }
  for (gint y = 0; y < IMG_H; y++)
    for (gint x = 0; x < IMG_W; x++)
      {
        guint32 pe = *(const guint32 *) (const void *) (de + y * stride + x * 4) & 0xffffff;
        guint32 pl = *(const guint32 *) (const void *) (dl + y * stride + x * 4) & 0xffffff;

        g_assert_true ((pe == bg) == (pl == bg));
        if (pe == hl)
          {
            framed++;
            same += pl == hl;
          }
      }
  g_assert_cmpuint (framed, >, 0);
  g_assert_cmpuint (same, ==, framed);
  cairo_surface_destroy (exact);
  cairo_surface_destroy (lod);
  fixture_clear (&fx);
}

/* A vector export draws exactly: no summary is made for an SVG. */
static void
test_vector (void)
{
  Fixture          fx;
  cairo_surface_t *svg;
  cairo_t         *cr;
  MpRenderOptions  o = { 0 };
  MpRenderLayout   layout = { 0 };
  MpText           text;

  fixture_init (&fx, 5);
  mp_render_index_set_summary (fx.index, TRUE);
  fx.index->lod_min_records = 0;
  svg = cairo_svg_surface_create_for_stream (NULL, NULL, IMG_W, IMG_H);
  cr = cairo_create (svg);
  layout.viewport = (MpViewport) { 0, N_OPS, 0, 1u << 21 };
  layout.plot = (MpRenderRect) { 10, 5, N_OPS * 0.25, 64 };
  mp_text_init (&text, cr, 12);
  mp_render_draw_timeline (cr, fx.index, &o, &layout, &text);
  mp_text_clear (&text);
  g_assert_null (fx.index->lod);
  cairo_destroy (cr);
  cairo_surface_destroy (svg);
  fixture_clear (&fx);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/render/lod/whole", test_whole);
  g_test_add_func ("/render/lod/panned", test_panned);
  g_test_add_func ("/render/lod/highlight", test_highlight);
  g_test_add_func ("/render/lod/async", test_async);
  g_test_add_func ("/render/lod/vector", test_vector);
  return g_test_run ();
}
