/* SPDX-License-Identifier: GPL-3.0-or-later */
#define _GNU_SOURCE /* memmem */
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "memplan-render.h"
#include "test-util.h"

#define W 520
#define H 420

/* Five buffers, one starting at every step so CSV ranks are the steps:
 * b0 [0,1] 1000 B @0, b1 [1,3] 2000 B @1000, b2 [2,4] 500 B @0,
 * b3 [3,4] 300 B @500, b4 [4,4] 200 B @800; arena 3000. */
static const TestRecord hand[] = {
  { 1000, 0, 1 }, { 2000, 1, 3 }, { 500, 2, 4 }, { 300, 3, 4 }, { 200, 4, 4 }
};
static const guint64 hand_offsets[] = { 0, 1000, 0, 500, 800 };

typedef struct
{
  MpGraph       *graph;
  MpLifetimes   *lt;
  MpPlan        *plan;
  MpRenderIndex *index;
  gint           rec[G_N_ELEMENTS (hand)]; /* record of b0..b4 */
} Fixture;

static void
fixture_setup (Fixture *fx, gconstpointer data)
{
  g_autoptr (GError) error = NULL;

  fx->graph = test_graph_from_records (hand, G_N_ELEMENTS (hand));
  fx->lt = mp_lifetimes_compute (fx->graph, NULL, &error);
  g_assert_no_error (error);
  fx->plan = mp_plan_new ("manual", fx->lt);
  for (guint i = 0; i < G_N_ELEMENTS (hand); i++)
    {
      g_autofree char *name = g_strdup_printf ("b%u", i);
      gint             t = mp_graph_find_tensor (fx->graph, name);

      fx->rec[i] = fx->lt->record_of[t];
      g_assert_cmpint (fx->rec[i], >=, 0);
      g_assert_cmpuint (fx->plan->records[fx->rec[i]].first, ==, hand[i].first);
      g_assert_cmpuint (fx->plan->records[fx->rec[i]].last, ==, hand[i].last);
      fx->plan->offsets[fx->rec[i]] = hand_offsets[i];
    }
  mp_plan_finish (fx->plan);
  g_assert_cmpuint (fx->plan->arena, ==, 3000);
  g_assert_true (mp_plan_judge (fx->graph, NULL, fx->plan));
  fx->index = mp_render_index_new (fx->graph, fx->plan);
}

static void
fixture_teardown (Fixture *fx, gconstpointer data)
{
  mp_render_index_free (fx->index);
  mp_plan_free (fx->plan);
  mp_lifetimes_free (fx->lt);
  mp_graph_free (fx->graph);
}

/* The bare timeline over steps [0, 5) and addresses [0, 4000). */
static MpRenderOptions
bare_options (void)
{
  MpRenderOptions o = { 0 };

  o.flags = MP_RENDER_HIDE_TITLE | MP_RENDER_HIDE_LEGEND | MP_RENDER_HIDE_CURVE |
            MP_RENDER_HIDE_LABELS | MP_RENDER_HIDE_AXES;
  o.viewport = (MpViewport) { 0, 5, 0, 4000 };
  return o;
}

static cairo_surface_t *
draw (const MpRenderIndex *index, const MpRenderOptions *o)
{
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, W, H);
  cairo_t         *cr = cairo_create (s);

  mp_render_plan (cr, index, o, W, H);
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
  cairo_destroy (cr);
  cairo_surface_flush (s);
  return s;
}

static MpRgb
pixel (cairo_surface_t *s, gdouble x, gdouble y)
{
  gint           px = (gint) x, py = (gint) y;
  const guint8  *data = cairo_image_surface_get_data (s);
  guint32        v;
  MpRgb          c;

  g_assert_cmpint (px, >=, 0);
  g_assert_cmpint (py, >=, 0);
  g_assert_cmpint (px, <, W);
  g_assert_cmpint (py, <, H);
  v = *(const guint32 *) (const void *) (data + py * cairo_image_surface_get_stride (s) + px * 4);
  c.r = (v >> 16 & 0xff) / 255.0;
  c.g = (v >> 8 & 0xff) / 255.0;
  c.b = (v & 0xff) / 255.0;
  return c;
}

static gboolean
same_color (MpRgb a, MpRgb b)
{
  return fabs (a.r - b.r) <= 2.5 / 255 && fabs (a.g - b.g) <= 2.5 / 255 &&
         fabs (a.b - b.b) <= 2.5 / 255;
}

#define assert_color(X, Y)                                                                  \
  G_STMT_START                                                                              \
  {                                                                                         \
    MpRgb a_ = (X), b_ = (Y);                                                               \
    if (!same_color (a_, b_))                                                               \
      g_error ("colour (%.3f %.3f %.3f) is not (%.3f %.3f %.3f)", a_.r, a_.g, a_.b, b_.r,   \
               b_.g, b_.b);                                                                 \
  }                                                                                         \
  G_STMT_END

static MpRgb
mix (MpRgb a, MpRgb b, gdouble t)
{
  return (MpRgb) { a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t, a.b + (b.b - a.b) * t };
}

/* Free space: the tint, the hatching, or an antialiased mix of the two. */
static gboolean
is_free (const MpPalette *p, MpRgb c)
{
  const gdouble e = 2.5 / 255;

  return c.r >= MIN (p->free.r, p->free_hatch.r) - e && c.r <= MAX (p->free.r, p->free_hatch.r) + e &&
         c.g >= MIN (p->free.g, p->free_hatch.g) - e && c.g <= MAX (p->free.g, p->free_hatch.g) + e &&
         c.b >= MIN (p->free.b, p->free_hatch.b) - e && c.b <= MAX (p->free.b, p->free_hatch.b) + e;
}

static void
center_of (const Fixture *fx, const MpRenderLayout *l, guint i, gdouble *x, gdouble *y)
{
  const MpUsage *rec = &fx->plan->records[fx->rec[i]];

  mp_render_layout_to_device (l, (rec->first + rec->last + 1) / 2.0,
                              hand_offsets[i] + rec->bytes / 2.0, x, y);
}

static void
test_geometry (Fixture *fx, gconstpointer data)
{
  MpRenderOptions  o = bare_options ();
  const MpPalette *p = mp_palette_get (MP_THEME_LIGHT);
  cairo_surface_t *s = draw (fx->index, &o);
  MpRenderLayout   l;
  gdouble          x, y, x1;

  mp_render_layout (fx->index, &o, W, H, &l);
  g_assert_cmpfloat (l.viewport.step_max, ==, 5);
  g_assert_cmpfloat (l.viewport.addr_max, ==, 4000);
  /* every buffer is an activation: sky blue at its centre */
  for (guint i = 0; i < G_N_ELEMENTS (hand); i++)
    {
      center_of (fx, &l, i, &x, &y);
      assert_color (pixel (s, x, y), p->keys[0]);
    }
  /* b1's left edge is at step 1: inside its colour, outside free space */
  mp_render_layout_to_device (&l, 1, 2000, &x1, &y);
  assert_color (pixel (s, x1 + 3, y), p->keys[0]);
  g_assert_true (is_free (p, pixel (s, x1 - 3, y)));
  /* its top is at address 3000, the arena */
  mp_render_layout_to_device (&l, 2, 3000, &x, &y);
  assert_color (pixel (s, x, y + 4), p->keys[0]);
  /* free inside the arena, plain background above it */
  mp_render_layout_to_device (&l, 0.5, 2000, &x, &y);
  g_assert_true (is_free (p, pixel (s, x, y)));
  mp_render_layout_to_device (&l, 0.5, 3600, &x, &y);
  assert_color (pixel (s, x, y), p->background);
  cairo_surface_destroy (s);
}

static void
test_hit (Fixture *fx, gconstpointer data)
{
  MpRenderOptions o = bare_options ();
  MpRenderLayout  l;
  gdouble         x, y;

  mp_render_layout (fx->index, &o, W, H, &l);
  for (guint i = 0; i < G_N_ELEMENTS (hand); i++)
    {
      center_of (fx, &l, i, &x, &y);
      g_assert_cmpint (mp_render_hit_test (fx->index, &o, W, H, x, y), ==, fx->rec[i]);
    }
  mp_render_layout_to_device (&l, 0.5, 2000, &x, &y);
  g_assert_cmpint (mp_render_hit_test (fx->index, &o, W, H, x, y), ==, -1);
  mp_render_layout_to_device (&l, 2.5, 3500, &x, &y);
  g_assert_cmpint (mp_render_hit_test (fx->index, &o, W, H, x, y), ==, -1);
  g_assert_cmpint (mp_render_hit_test (fx->index, &o, W, H, 1, 1), ==, -1);
  g_assert_cmpint (mp_render_hit_test (fx->index, &o, W, H, W - 1, H - 1), ==, -1);

  /* exact boundaries in data coordinates */
  g_assert_cmpint (mp_render_index_lookup (fx->index, 1, 999), ==, fx->rec[0]);
  g_assert_cmpint (mp_render_index_lookup (fx->index, 1, 1000), ==, fx->rec[1]);
  g_assert_cmpint (mp_render_index_lookup (fx->index, 1, 2999), ==, fx->rec[1]);
  g_assert_cmpint (mp_render_index_lookup (fx->index, 1, 3000), ==, -1);
  g_assert_cmpint (mp_render_index_lookup (fx->index, 0, 1000), ==, -1);
  g_assert_cmpint (mp_render_index_lookup (fx->index, 4, 499), ==, fx->rec[2]);
  g_assert_cmpint (mp_render_index_lookup (fx->index, 4, 500), ==, fx->rec[3]);
  g_assert_cmpint (mp_render_index_lookup (fx->index, 4, 800), ==, fx->rec[4]);
  g_assert_cmpint (mp_render_index_lookup (fx->index, 4, 1000), ==, -1);
  g_assert_cmpint (mp_render_index_lookup (fx->index, 5, 0), ==, -1);
}

/* On a random plan the step tree agrees with a scan of every record. */
static void
test_hit_random (void)
{
  MpGenRandomOptions gopts = { .n_tensors = 3000, .seed = 11 };
  gsize              length;
  g_autofree char   *csv = mp_gen_random (&gopts, TRUE, &length);
  g_autoptr (GError) error = NULL;
  g_autoptr (MpGraph) graph = mp_graph_parse_csv (csv, length, "random.csv", NULL, &error);
  g_autoptr (MpLifetimes) lt = NULL;
  g_autoptr (MpPlan) plan = NULL;
  g_autoptr (MpRenderIndex) index = NULL;
  g_autoptr (GRand) rand = g_rand_new_with_seed (5);
  guint              found = 0;

  g_assert_no_error (error);
  lt = mp_lifetimes_compute (graph, NULL, &error);
  g_assert_no_error (error);
  plan = test_run_planner ("greedy-by-size", graph, lt);
  index = mp_render_index_new (graph, plan);
  for (guint k = 0; k < 4000; k++)
    {
      guint   step = g_rand_int_range (rand, 0, plan->n_steps + 2);
      guint64 addr = (guint64) (g_rand_double (rand) * plan->arena * 1.05);
      gint    expect = -1;

      for (guint r = 0; r < plan->n_records; r++)
        if (plan->records[r].first <= step && step <= plan->records[r].last &&
            plan->offsets[r] <= addr && addr < plan->offsets[r] + plan->records[r].bytes)
          expect = (gint) r;
      g_assert_cmpint (mp_render_index_lookup (index, step, addr), ==, expect);
      found += expect >= 0;
    }
  g_assert_cmpuint (found, >, 500); /* the test did look at tensors */
}

static void
test_highlight (Fixture *fx, gconstpointer data)
{
  MpRenderOptions  o = bare_options ();
  const MpPalette *p = mp_palette_get (MP_THEME_LIGHT);
  guint            followed = fx->plan->records[fx->rec[1]].tensor;
  cairo_surface_t *s;
  MpRenderLayout   l;
  gdouble          x, y;

  o.highlight = &followed;
  o.n_highlight = 1;
  s = draw (fx->index, &o);
  mp_render_layout (fx->index, &o, W, H, &l);
  center_of (fx, &l, 1, &x, &y);
  assert_color (pixel (s, x, y), p->keys[0]);
  center_of (fx, &l, 0, &x, &y);
  assert_color (pixel (s, x, y), mix (p->keys[0], p->background, p->dim));
  center_of (fx, &l, 2, &x, &y);
  assert_color (pixel (s, x, y), mix (p->keys[0], p->background, p->dim));
  cairo_surface_destroy (s);
}

static void
test_keys_and_theme (Fixture *fx, gconstpointer data)
{
  MpRenderOptions  o = bare_options ();
  const MpPalette *dark = mp_palette_get (MP_THEME_DARK);
  cairo_surface_t *s;
  MpRenderLayout   l;
  gdouble          x, y;

  o.color_by = MP_COLOR_BY_SIZE;
  o.theme = MP_THEME_DARK;
  s = draw (fx->index, &o);
  mp_render_layout (fx->index, &o, W, H, &l);
  center_of (fx, &l, 1, &x, &y);
  assert_color (pixel (s, x, y), dark->sizes[0]); /* 2000 B: under 4 KiB */
  mp_render_layout_to_device (&l, 0.5, 3600, &x, &y);
  assert_color (pixel (s, x, y), dark->background);
  cairo_surface_destroy (s);

  /* by op: usage records have none, so each record takes its start step's key */
  o.color_by = MP_COLOR_BY_OP;
  s = draw (fx->index, &o);
  for (guint i = 0; i < G_N_ELEMENTS (hand); i++)
    {
      center_of (fx, &l, i, &x, &y);
      assert_color (pixel (s, x, y), dark->keys[hand[i].first]);
    }
  cairo_surface_destroy (s);
  g_assert_true (same_color (dark->keys[0], mp_palette_get (MP_THEME_LIGHT)->keys[0]));
}

static void
test_viewport (Fixture *fx, gconstpointer data)
{
  MpRenderOptions  o = bare_options ();
  const MpPalette *p = mp_palette_get (MP_THEME_LIGHT);
  cairo_surface_t *s;
  MpRenderLayout   l;
  gdouble          x, y;

  /* steps 2..4 only: b0 is gone, b2 fills the left of the plot */
  o.viewport = (MpViewport) { 2, 5, 1000, 3000 };
  s = draw (fx->index, &o);
  mp_render_layout (fx->index, &o, W, H, &l);
  mp_render_layout_to_device (&l, 2, 1000, &x, &y);
  g_assert_cmpfloat (fabs (x - l.plot.x), <, 0.01);
  g_assert_cmpfloat (fabs (y - (l.plot.y + l.plot.height)), <, 0.01);
  center_of (fx, &l, 1, &x, &y);
  assert_color (pixel (s, x, y), p->keys[0]);
  g_assert_cmpint (mp_render_hit_test (fx->index, &o, W, H, x, y), ==, fx->rec[1]);
  /* b2..b4 lie below address 1000: out of view, free space drawn there instead */
  mp_render_layout_to_device (&l, 4.5, 1010, &x, &y);
  g_assert_true (is_free (p, pixel (s, x, y)));
  /* nothing spills out of the plot: the margin left of b1 is background */
  center_of (fx, &l, 1, &x, &y);
  assert_color (pixel (s, l.plot.x - 3, y), p->background);
  assert_color (pixel (s, x, l.plot.y - 3), p->background);
  cairo_surface_destroy (s);
}

static gboolean
has_ink (cairo_surface_t *s, const MpRenderRect *r, MpRgb background)
{
  for (gint y = (gint) r->y; y < r->y + r->height; y++)
    for (gint x = (gint) r->x; x < r->x + r->width; x++)
      if (!same_color (pixel (s, x, y), background))
        return TRUE;
  return FALSE;
}

static void
test_empty (void)
{
  static const char csv[] = "id,lower,upper,size\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (MpGraph) graph = mp_graph_parse_csv (csv, strlen (csv), "empty.csv", NULL, &error);
  g_autoptr (MpLifetimes) lt = NULL;
  g_autoptr (MpPlan) plan = NULL;
  g_autoptr (MpRenderIndex) index = NULL;
  const MpPalette *p = mp_palette_get (MP_THEME_LIGHT);
  MpRenderLayout   l;
  MpRenderRect     note;
  cairo_surface_t *s;

  g_assert_no_error (error);
  lt = mp_lifetimes_compute (graph, NULL, &error);
  g_assert_no_error (error);
  plan = mp_plan_new ("naive", lt);
  mp_plan_finish (plan);
  index = mp_render_index_new (graph, plan);
  s = draw (index, NULL);
  mp_render_layout (index, NULL, W, H, &l);
  /* the note in the middle of the plot, the axis labels at its left */
  note = (MpRenderRect) { l.plot.x + l.plot.width / 2 - 40, l.plot.y + l.plot.height / 2 - 8, 80,
                          16 };
  g_assert_true (has_ink (s, &note, p->background));
  g_assert_true (has_ink (s, &l.y_axis, p->background));
  g_assert_cmpint (mp_render_hit_test (index, NULL, W, H, note.x, note.y), ==, -1);
  cairo_surface_destroy (s);
}

static void
test_compare (Fixture *fx, gconstpointer data)
{
  g_autoptr (MpPlan) naive = test_run_planner ("naive", fx->graph, fx->lt);
  g_autoptr (MpRenderIndex) second = mp_render_index_new (fx->graph, naive);
  MpRenderIndex  *indices[] = { fx->index, second };
  MpRenderOptions o = { 0 };
  MpRenderLayout  l[2];
  gdouble         x, y;
  guint           panel = 99;
  const MpUsage  *rec;

  mp_render_compare_layout (indices, 2, &o, 800, 700, l);
  g_assert_cmpfloat (l[0].plot.y + l[0].plot.height, <, l[1].plot.y);
  g_assert_cmpfloat (l[0].plot.x, ==, l[1].plot.x);
  g_assert_cmpfloat (l[0].plot.width, ==, l[1].plot.width);
  g_assert_cmpfloat (l[0].plot.height, ==, l[1].plot.height);
  g_assert_cmpfloat (l[0].viewport.step_max, ==, l[1].viewport.step_max);
  /* own scales: naive's arena (4000) is larger */
  g_assert_cmpfloat (l[0].viewport.addr_max, <, l[1].viewport.addr_max);
  o.shared_scale = TRUE;
  mp_render_compare_layout (indices, 2, &o, 800, 700, l);
  g_assert_cmpfloat (l[0].viewport.addr_max, ==, l[1].viewport.addr_max);

  rec = &naive->records[fx->rec[3]];
  mp_render_layout_to_device (&l[1], rec->first + 0.5, naive->offsets[fx->rec[3]] + rec->bytes / 2.0,
                              &x, &y);
  g_assert_cmpint (mp_render_compare_hit_test (indices, 2, &o, 800, 700, x, y, &panel), ==,
                   fx->rec[3]);
  g_assert_cmpuint (panel, ==, 1);
}

static char *
read_all (const char *path, gsize *length)
{
  char *data = NULL;

  g_assert_true (g_file_get_contents (path, &data, length, NULL));
  return data;
}

static void
test_files (Fixture *fx, gconstpointer data)
{
  g_autofree char *dir = g_dir_make_tmp ("memplan-render-XXXXXX", NULL);
  static const struct { const char *name; const char *magic; } files[] = {
    { "plan.png", "\x89PNG\r\n" }, { "plan.svg", "<?xml" }, { "plan.PDF", "%PDF-" },
  };
  MpRenderIndex *indices[] = { fx->index };

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *path = g_build_filename (dir, files[i].name, NULL);
      g_autofree char *a = NULL, *b = NULL;
      g_autoptr (GError) error = NULL;
      MpRenderFormat   format;
      gsize            la, lb;

      g_assert_true (mp_render_format_from_path (path, &format, &error));
      g_assert_no_error (error);
      g_assert_true (mp_render_write_file (path, format, indices, 1, NULL, 640, 400, &error));
      g_assert_no_error (error);
      a = read_all (path, &la);
      g_assert_cmpuint (la, >, 1000);
      g_assert_true (memcmp (a, files[i].magic, strlen (files[i].magic)) == 0);
      if (format == MP_RENDER_FORMAT_SVG)
        g_assert_nonnull (strstr (a, "<svg"));
      /* deterministic: the same picture twice gives the same bytes (SVG
       * names images by cairo's process-wide ids: checked across runs in
       * test_cli) */
      if (format == MP_RENDER_FORMAT_SVG)
        {
          g_remove (path);
          continue;
        }
      g_assert_true (mp_render_write_file (path, format, indices, 1, NULL, 640, 400, &error));
      b = read_all (path, &lb);
      g_assert_cmpuint (la, ==, lb);
      if (la != lb || memcmp (a, b, la) != 0)
        g_error ("%s differs", files[i].name);
      g_remove (path);
    }
  g_rmdir (dir);
}

static guint
count_substr (const char *hay, gsize length, const char *needle)
{
  guint       n = 0;
  const char *end = hay + length;

  /* binary: a PDF has NULs in its streams */
  for (const char *p = hay; (p = memmem (p, end - p, needle, strlen (needle))) != NULL; p++)
    n++;
  return n;
}

/* Files people can use: PDF pages on A4 or Letter (one plan a page, or
 * all on one), SVG text as <text>, a PNG that says its resolution. */
static void
test_output (Fixture *fx, gconstpointer data)
{
  g_autofree char *dir = g_dir_make_tmp ("memplan-output-XXXXXX", NULL);
  g_autofree char *pdf = g_build_filename (dir, "p.pdf", NULL);
  g_autofree char *svg = g_build_filename (dir, "p.svg", NULL);
  g_autofree char *png = g_build_filename (dir, "p.png", NULL);
  MpRenderIndex   *indices[] = { fx->index, fx->index, fx->index };
  MpRenderOutput   out = { MP_PAGE_A4, FALSE, 0 };
  g_autoptr (GError) error = NULL;
  char            *bytes;
  gsize            length;

  g_assert_true (mp_render_write_output (pdf, MP_RENDER_FORMAT_PDF, indices, 3, NULL, &out, 1600,
                                         1000, &error));
  g_assert_no_error (error);
  bytes = read_all (pdf, &length);
  g_assert_cmpuint (count_substr (bytes, length, "/MediaBox [ 0 0 842 595 ]"), ==, 3);
  g_free (bytes);

  out.page = MP_PAGE_LETTER;
  out.one_page = TRUE;
  g_assert_true (mp_render_write_output (pdf, MP_RENDER_FORMAT_PDF, indices, 3, NULL, &out, 1600,
                                         1000, &error));
  bytes = read_all (pdf, &length);
  g_assert_cmpuint (count_substr (bytes, length, "/MediaBox [ 0 0 792 612 ]"), ==, 1);
  g_free (bytes);

  g_assert_true (mp_render_write_output (svg, MP_RENDER_FORMAT_SVG, indices, 1, NULL, &out, 1600,
                                         1000, &error));
  bytes = read_all (svg, &length);
  g_assert_nonnull (strstr (bytes, "width=\"792pt\" height=\"612pt\""));
  /* the arena's label, as text a slide can select */
  g_assert_nonnull (strstr (bytes, "xml:space=\"preserve\">arena 2.93 KiB</text>"));
  g_free (bytes);

  out.dpi = 300;
  g_assert_true (mp_render_write_output (png, MP_RENDER_FORMAT_PNG, indices, 1, NULL, &out, 320,
                                         200, &error));
  bytes = read_all (png, &length);
  {
    /* 1000 × 625 pixels, pHYs 11811 pixels a metre each way */
    static const guint8 phys[] = { 'p', 'H', 'Y', 's', 0, 0, 0x2e, 0x23, 0, 0, 0x2e, 0x23, 1 };
    const guint8       *ihdr = (const guint8 *) bytes + 16;

    g_assert_cmpuint ((guint) ihdr[2] << 8 | ihdr[3], ==, 1000);
    g_assert_cmpuint ((guint) ihdr[6] << 8 | ihdr[7], ==, 625);
    g_assert_true (memcmp (bytes + 37, phys, sizeof phys) == 0);
  }
  g_free (bytes);
  g_remove (pdf);
  g_remove (svg);
  g_remove (png);
  g_rmdir (dir);
}

static guint
count_entries (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  guint n = 0;

  while (g_dir_read_name (d))
    n++;
  return n;
}

static void
test_bad_output (Fixture *fx, gconstpointer data)
{
  g_autofree char *dir = g_dir_make_tmp ("memplan-render-XXXXXX", NULL);
  g_autofree char *missing = g_build_filename (dir, "nope", "plan.png", NULL);
  g_autofree char *as_dir = g_build_filename (dir, "taken.png", NULL);
  g_autofree char *gif = g_build_filename (dir, "plan.gif", NULL);
  g_autofree char *msg = NULL;
  g_autoptr (GError) error = NULL;
  MpRenderIndex *indices[] = { fx->index };
  MpRenderFormat format;

  g_assert_false (mp_render_write_file (missing, MP_RENDER_FORMAT_PNG, indices, 1, NULL, 300, 200,
                                        &error));
  g_assert_error (error, MP_RENDER_ERROR, MP_RENDER_ERROR_IO);
  msg = g_strdup_printf ("%s: cannot write the picture: folder '%s/nope' does not exist", missing,
                         dir);
  g_assert_cmpstr (error->message, ==, msg);
  g_assert_false (g_file_test (missing, G_FILE_TEST_EXISTS));
  g_clear_error (&error);

  /* a name taken by a folder: the write fails and leaves nothing behind */
  g_assert_cmpint (g_mkdir (as_dir, 0755), ==, 0);
  g_assert_false (mp_render_write_file (as_dir, MP_RENDER_FORMAT_PNG, indices, 1, NULL, 300, 200,
                                        &error));
  g_assert_error (error, MP_RENDER_ERROR, MP_RENDER_ERROR_IO);
  g_assert_true (g_str_has_prefix (error->message, as_dir));
  g_assert_true (g_file_test (as_dir, G_FILE_TEST_IS_DIR));
  g_assert_cmpuint (count_entries (dir), ==, 1);
  g_clear_error (&error);

  g_assert_false (mp_render_format_from_path (gif, &format, &error));
  g_clear_pointer (&msg, g_free);
  msg = g_strdup_printf ("%s: unknown picture format (the name must end in .png, .svg or .pdf)",
                         gif);
  g_assert_error (error, MP_RENDER_ERROR, MP_RENDER_ERROR_FORMAT);
  g_assert_cmpstr (error->message, ==, msg);
  g_clear_error (&error);

  g_assert_false (mp_render_write_file (gif, MP_RENDER_FORMAT_PNG, indices, 1, NULL, 0, 200,
                                        &error));
  g_clear_pointer (&msg, g_free);
  msg = g_strdup_printf ("%s: picture size 0×200 is out of range (1 to 20000 on each side)", gif);
  g_assert_error (error, MP_RENDER_ERROR, MP_RENDER_ERROR_SIZE);
  g_assert_cmpstr (error->message, ==, msg);
  g_assert_cmpuint (count_entries (dir), ==, 1);
  g_rmdir (as_dir);
  g_rmdir (dir);
}

static void
test_cli (void)
{
  g_autofree char *dir = g_dir_make_tmp ("memplan-render-XXXXXX", NULL);
  g_autofree char *graph = test_data_path ("default.json");
  g_autofree char *usage = test_data_path ("minimalloc/A.1048576.csv");
  g_autofree char *png = g_build_filename (dir, "default.png", NULL);
  g_autofree char *svg = g_build_filename (dir, "a.svg", NULL);
  g_autofree char *bad = g_build_filename (dir, "nope", "x.pdf", NULL);
  g_autofree char *expect = NULL;
  char            *err = NULL;

  {
    const char *args[] = { "render", graph, "-o", png, "--color-by", "op", "--steps", "3:20", NULL };

    g_assert_cmpint (test_run_cli_argv (args, NULL, &err), ==, 0);
    g_assert_cmpstr (err, ==, "");
    g_assert_true (g_file_test (png, G_FILE_TEST_IS_REGULAR));
    g_clear_pointer (&err, g_free);
  }
  {
    /* optimal proves A in 4 s of CPU under the sanitizers, near its 10 s
     * budget on a busy machine, where it stopped at another plan (once) */
    const char *args[] = { "render", usage, "--planner", "all", "--time-budget", "600",
                           "--shared-scale", "--theme", "dark", "-o", svg, NULL };

    g_autofree char *first = NULL, *second = NULL;
    gsize            l1, l2;

    g_assert_cmpint (test_run_cli_argv (args, NULL, &err), ==, 0);
    g_assert_true (g_file_test (svg, G_FILE_TEST_IS_REGULAR));
    g_clear_pointer (&err, g_free);
    first = read_all (svg, &l1);
    g_assert_cmpint (test_run_cli_argv (args, NULL, &err), ==, 0);
    g_clear_pointer (&err, g_free);
    second = read_all (svg, &l2);
    g_assert_cmpuint (l1, ==, l2);
    g_assert_true (memcmp (first, second, l1) == 0);
  }
  {
    const char *args[] = { "render", graph, "-o", png, "--steps", "9:2", NULL };

    g_assert_cmpint (test_run_cli_argv (args, NULL, &err), ==, 2);
    g_assert_cmpstr (err, ==, "memplan-cli: --steps: expected FIRST:LAST with FIRST <= LAST "
                              "(e.g. 10:40), got '9:2'\n");
    g_clear_pointer (&err, g_free);
  }
  {
    const char *args[] = { "render", graph, "-o", bad, NULL };

    g_assert_cmpint (test_run_cli_argv (args, NULL, &err), ==, 2);
    /* every -o writer says the same words */
    expect = g_strdup_printf ("memplan-cli: %s: cannot write the output: folder '%s/nope' does "
                              "not exist\n", bad, dir);
    g_assert_cmpstr (err, ==, expect);
    g_assert_false (g_file_test (bad, G_FILE_TEST_EXISTS));
    g_clear_pointer (&err, g_free);
  }
  {
    const char *args[] = { "render", graph, "-o", png, "--highlight", "l0.q,nosuch", NULL };

    g_assert_cmpint (test_run_cli_argv (args, NULL, &err), ==, 2);
    g_clear_pointer (&expect, g_free);
    expect = g_strdup_printf ("memplan-cli: %s: --highlight: no tensor named 'nosuch'\n", graph);
    g_assert_cmpstr (err, ==, expect);
    g_clear_pointer (&err, g_free);
  }
  g_remove (png);
  g_remove (svg);
  g_rmdir (dir);
}

/* Usage records count steps as ranks of their start times: the axis, the
 * slider, the status and the live list all say the rank, and the words
 * give the file's own time beside it (example.12 starts at 0, 3 and 9). */
static void
test_step_labels (void)
{
  g_autofree char *path = test_data_path ("minimalloc/example.12.csv");
  g_autoptr (MpGraph) graph = test_graph_load (path, NULL);
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, NULL);
  g_autoptr (MpPlan) plan = test_run_planner ("greedy-by-size", graph, lt);
  MpRenderIndex *index = mp_render_index_new (graph, plan);
  g_autofree char *a = mp_render_step_label (index, 0);
  g_autofree char *b = mp_render_step_label (index, 1);
  g_autofree char *c = mp_render_step_words (index, 2);
  g_autofree char *peak = mp_render_step_words (index, mp_render_index_peak_step (index));

  g_assert_cmpuint (plan->n_steps, ==, 3);
  g_assert_cmpstr (a, ==, "0");
  g_assert_cmpstr (b, ==, "1");
  g_assert_cmpstr (c, ==, "step 2 (time 9 in the file)");
  /* the peak is named in the same numbering as the lifetimes' lower bound */
  g_assert_cmpuint (mp_render_index_peak_step (index), ==, lt->peak_step);
  g_assert_true (g_str_has_prefix (peak, "step "));
  mp_render_index_free (index);
}

/* The share of a column's pixels painted in fill over background: each
 * pixel counts by how far it went from the background towards the fill
 * (an outline, darker still, counts as fully painted). */
static gdouble
drawn_occupancy (cairo_surface_t *s, gdouble x, gdouble y0, gdouble y1, MpRgb bg, MpRgb fill)
{
  gdouble sum = 0;
  gint    n = 0;
  /* the channel where fill and background differ most */
  gdouble d[3] = { fill.r - bg.r, fill.g - bg.g, fill.b - bg.b };
  guint   k = fabs (d[0]) >= fabs (d[1]) && fabs (d[0]) >= fabs (d[2]) ? 0
              : fabs (d[1]) >= fabs (d[2])                         ? 1
                                                                   : 2;

  for (gdouble y = ceil (y0); y < floor (y1); y++, n++)
    {
      MpRgb   c = pixel (s, x, y);
      gdouble v[3] = { c.r - bg.r, c.g - bg.g, c.b - bg.b };

      sum += CLAMP (v[k] / d[k], 0, 1);
    }
  return n ? sum / n : 0;
}

/* Level of detail tells the truth: a plan whose columns are a known share
 * live is drawn with that share of colour, whether its buffers are many
 * pixels tall (1k), a fifth of a pixel (100k) or a fiftieth (1M). */
static void
test_coverage (gconstpointer data)
{
  guint                  n = GPOINTER_TO_UINT (data), n_steps = 50, per = n / n_steps;
  const guint64          slot = 1000;
  g_autofree TestRecord *recs = g_new (TestRecord, n);
  g_autofree gdouble    *live = g_new0 (gdouble, n_steps);
  g_autoptr (GRand) rand = g_rand_new_with_seed (n);
  g_autoptr (GError) error = NULL;
  MpGraph               *graph;
  MpLifetimes           *lt;
  MpPlan                *plan;
  MpRenderIndex         *index;
  MpRenderOptions        o = bare_options ();
  MpRenderLayout         l;
  cairo_surface_t       *surface;
  const MpPalette       *palette = mp_palette_get (MP_THEME_LIGHT);

  /* step s holds per buffers in slots of 1000 bytes, each 30-100% full */
  for (guint i = 0; i < n; i++)
    {
      recs[i].first = recs[i].last = i / per;
      recs[i].size = (guint64) g_rand_int_range (rand, 300, 1001);
    }
  graph = test_graph_from_records (recs, n);
  lt = mp_lifetimes_compute (graph, NULL, &error);
  g_assert_no_error (error);
  plan = mp_plan_new ("manual", lt);
  g_assert_cmpuint (plan->n_records, ==, n);
  for (guint r = 0; r < plan->n_records; r++)
    {
      guint t = plan->records[r].tensor; /* b<t>: the CSV's row t */

      g_assert_cmpuint (plan->records[r].first, ==, recs[t].first);
      plan->offsets[r] = (t % per) * slot;
      live[recs[t].first] += recs[t].size;
    }
  mp_plan_finish (plan);
  g_assert_cmpuint (plan->arena, <=, per * slot);
  index = mp_render_index_new (graph, plan);

  o.flags |= MP_RENDER_HIDE_FREE | MP_RENDER_HIDE_LINES;
  o.viewport = (MpViewport) { 0, n_steps, 0, (gdouble) per * slot };
  surface = draw (index, &o);
  mp_render_layout (index, &o, W, H, &l);
  for (guint s = 0; s < n_steps; s += 7)
    {
      gdouble x, y, truth = live[s] / ((gdouble) per * slot), drawn;

      mp_render_layout_to_device (&l, s + 0.5, 0, &x, &y);
      drawn = drawn_occupancy (surface, x, l.plot.y, l.plot.y + l.plot.height,
                               palette->background, palette->keys[0] /* activation */);
      if (fabs (drawn - truth) > 0.05)
        g_error ("%u tensors, step %u: drawn %.1f%% live, true %.1f%%", n, s, 100 * drawn,
                 100 * truth);
    }
  cairo_surface_destroy (surface);
  mp_render_index_free (index);
  mp_plan_free (plan);
  mp_lifetimes_free (lt);
  mp_graph_free (graph);
}

/* Value axes: at least two labelled ticks, none above the top (the arena),
 * increasing, and every label in one unit. Hand cases, then random ones. */
static void
check_ticks (gdouble lo, gdouble top, gdouble pixels, gdouble gap)
{
  MpTick      ticks[MP_MAX_TICKS];
  guint       n = mp_render_value_ticks (lo, top, pixels, gap, ticks);
  const char *unit = NULL;

  g_assert_cmpuint (n, >=, 2);
  for (guint i = 0; i < n; i++)
    {
      const char *space = strchr (ticks[i].label, ' ');

      g_assert_cmpfloat (ticks[i].value, <=, top);
      g_assert_cmpfloat (ticks[i].value, >=, lo);
      if (i > 0)
        g_assert_cmpuint (ticks[i].value, >, ticks[i - 1].value);
      if (ticks[i].value == 0)
        {
          g_assert_cmpstr (ticks[i].label, ==, "0");
          continue;
        }
      g_assert_nonnull (space);
      if (unit == NULL)
        unit = space + 1;
      g_assert_cmpstr (space + 1, ==, unit);
    }
}

static void
test_value_ticks (void)
{
  MpTick ticks[MP_MAX_TICKS];
  guint  n;

  /* 995 MiB over 150 px: 256 MiB steps, the top tick 768 MiB, not 1024 */
  n = mp_render_value_ticks (0, 995.0 * 1048576, 150, 30, ticks);
  g_assert_cmpuint (n, ==, 4);
  g_assert_cmpstr (ticks[1].label, ==, "256 MiB");
  g_assert_cmpstr (ticks[3].label, ==, "768 MiB");
  /* 1 GiB exactly: the top tick reaches a GiB, so the whole axis speaks GiB */
  n = mp_render_value_ticks (0, 1073741824.0, 150, 30, ticks);
  g_assert_cmpuint (n, ==, 5);
  g_assert_cmpstr (ticks[2].label, ==, "0.5 GiB");
  g_assert_cmpstr (ticks[4].label, ==, "1 GiB");
  /* a pane too short for two ticks at the usual gap still gets two */
  n = mp_render_value_ticks (0, 18.0 * 1048576, 20, 30, ticks);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpstr (ticks[0].label, ==, "0");
  g_assert_cmpstr (ticks[1].label, ==, "16 MiB");
  /* nothing to label on an empty range */
  g_assert_cmpuint (mp_render_value_ticks (0, 0, 300, 30, ticks), ==, 0);

  {
    g_autoptr (GRand) rand = g_rand_new_with_seed (15);

    for (guint i = 0; i < 2000; i++)
      {
        /* from a KiB (a byte axis has whole-byte ticks) to a PiB */
        gdouble top = pow (2, g_rand_double_range (rand, 10, 50));
        gdouble lo = g_rand_boolean (rand) ? 0 : g_rand_double_range (rand, 0, top / 2);

        check_ticks (lo, top, g_rand_double_range (rand, 5, 2000),
                     g_rand_double_range (rand, 10, 60));
      }
  }
}

/* The observed pane of the repo's snapshot draws its one segment (2 MiB at
 * offset 0) as an outlined band behind the blocks, "segment" in the
 * legend; a planner's pane has none. */
static void
test_segments (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("MEMPLAN_SOURCE_DIR"), "tests", "data",
                                            "snapshot.pickle", NULL);
  g_autofree char *dir = g_dir_make_tmp ("memplan-segments-XXXXXX", NULL);
  g_autofree char *svg = g_build_filename (dir, "s.svg", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (MpWorkload) w = mp_workload_open (path, NULL, &error);
  g_autoptr (MpRenderIndex) index = NULL;
  g_autoptr (MpRenderIndex) bare = NULL;
  const MpPalette *p = mp_palette_get (MP_THEME_LIGHT);
  MpRenderOptions  o = { 0 };
  MpRenderOutput   out = { MP_PAGE_A4, FALSE, 0 };
  MpRenderLayout   l;
  cairo_surface_t *with, *without;
  gdouble          x, y, x0, top;
  MpRgb            edge;
  char            *bytes;
  gsize            length;

  g_assert_no_error (error);
  g_assert_cmpuint (w->trace->n_ranges, ==, 1);
  g_assert_cmpuint (w->trace->ranges[0].size, ==, 2 << 20);
  index = mp_render_index_new (w->graph, w->observed);
  bare = mp_render_index_new (w->graph, w->observed);
  mp_render_index_set_segments (index, w->trace);
  g_assert_cmpuint (mp_render_index_n_segments (index), ==, 1);

  o.flags = MP_RENDER_HIDE_TITLE | MP_RENDER_HIDE_LEGEND | MP_RENDER_HIDE_CURVE |
            MP_RENDER_HIDE_LABELS | MP_RENDER_HIDE_AXES | MP_RENDER_HIDE_FREE |
            MP_RENDER_HIDE_LINES;
  with = draw (index, &o);
  without = draw (bare, &o);
  mp_render_layout (index, &o, W, H, &l);
  /* inside the band, far above the 1.75 KiB of blocks: a faint tint */
  mp_render_layout_to_device (&l, 1.5, 1 << 20, &x, &y);
  assert_color (pixel (without, x, y), p->background);
  assert_color (pixel (with, x, y), mix (p->background, p->foreground, 0.06));
  /* its outline: the left edge at step 0, the top edge at 2 MiB */
  mp_render_layout_to_device (&l, 0, 2 << 20, &x0, &top);
  edge = pixel (with, round (x0), y);
  g_assert_cmpfloat (edge.r + edge.g + edge.b, <, 1.5 * (p->background.r + p->background.g +
                                                        p->background.b) / 3);
  assert_color (pixel (without, round (x0), y), p->background);
  edge = pixel (with, x, round (top));
  g_assert_cmpfloat (edge.r + edge.g + edge.b, <, 1.5 * (p->background.r + p->background.g +
                                                        p->background.b) / 3);
  cairo_surface_destroy (with);
  cairo_surface_destroy (without);

  g_assert_true (mp_render_write_output (svg, MP_RENDER_FORMAT_SVG, &index, 1, NULL, &out, 1600,
                                         1000, &error));
  bytes = read_all (svg, &length);
  g_assert_nonnull (strstr (bytes, "xml:space=\"preserve\">segment</text>"));
  g_free (bytes);
  g_assert_true (mp_render_write_output (svg, MP_RENDER_FORMAT_SVG, &bare, 1, NULL, &out, 1600,
                                         1000, &error));
  bytes = read_all (svg, &length);
  g_assert_null (strstr (bytes, ">segment</text>"));
  g_free (bytes);
  g_remove (svg);
  g_rmdir (dir);
}

/* Issue 33, item 5: a planner's colour is its own, whatever else is
 * planned, and the ten (nine planners and observed) stay apart for every
 * reader: CIE76 distance >= 20 between any two, WCAG contrast >= 1.5 against
 * the background, in each theme. */
static gdouble
srgb_linear (gdouble c)
{
  return c <= 0.04045 ? c / 12.92 : pow ((c + 0.055) / 1.055, 2.4);
}

static void
to_lab (MpRgb c, gdouble lab[3], gdouble *luminance)
{
  gdouble r = srgb_linear (c.r), g = srgb_linear (c.g), b = srgb_linear (c.b);
  gdouble x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
  gdouble y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  gdouble z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
  gdouble f[3] = { x, y, z };

  for (guint k = 0; k < 3; k++)
    f[k] = f[k] > 216.0 / 24389 ? cbrt (f[k]) : (24389.0 / 27 * f[k] + 16) / 116;
  lab[0] = 116 * f[1] - 16;
  lab[1] = 500 * (f[0] - f[1]);
  lab[2] = 200 * (f[1] - f[2]);
  *luminance = y;
}

static void
test_truth_05_planner_colours (void)
{
  guint                n;
  const MpPlannerInfo *infos = mp_planners (&n);

  g_assert_cmpuint (n + 1, ==, MP_PALETTE_N_PLANNERS);
  for (guint theme = 0; theme < MP_THEME_N; theme++)
    {
      const MpPalette *palette = mp_palette_get (theme);
      gdouble          bg_lab[3], bg_y;

      to_lab (palette->background, bg_lab, &bg_y);
      for (guint i = 0; i < MP_PALETTE_N_PLANNERS; i++)
        {
          gdouble a[3], ya;

          to_lab (palette->planners[i], a, &ya);
          g_assert_cmpfloat ((MAX (ya, bg_y) + 0.05) / (MIN (ya, bg_y) + 0.05), >=, 1.5);
          for (guint j = i + 1; j < MP_PALETTE_N_PLANNERS; j++)
            {
              gdouble b[3], yb;

              to_lab (palette->planners[j], b, &yb);
              g_assert_cmpfloat (sqrt ((a[0] - b[0]) * (a[0] - b[0]) +
                                       (a[1] - b[1]) * (a[1] - b[1]) +
                                       (a[2] - b[2]) * (a[2] - b[2])), >=, 20);
            }
        }
      /* by the planner, not by the plan's place among the others */
      for (guint i = 0; i < n; i++)
        {
          MpPlan plan = { .planner = (char *) infos[i].name };
          MpRgb  c = mp_planner_color (palette, &plan);

          g_assert_cmpmem (&c, sizeof c, &palette->planners[i], sizeof c);
        }
      {
        MpPlan observed = { .planner = (char *) "observed", .observed = TRUE };
        MpRgb  c = mp_planner_color (palette, &observed);

        g_assert_cmpmem (&c, sizeof c, &palette->planners[n], sizeof c);
      }
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
#define FX(path, func) g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)
  FX ("/render/timeline/geometry", test_geometry);
  FX ("/render/timeline/highlight", test_highlight);
  FX ("/render/timeline/keys-and-theme", test_keys_and_theme);
  FX ("/render/timeline/viewport", test_viewport);
  FX ("/render/hit-test/hand", test_hit);
  g_test_add_func ("/render/hit-test/random", test_hit_random);
  g_test_add_func ("/render/timeline/empty", test_empty);
  FX ("/render/compare/layout", test_compare);
  FX ("/render/output/files", test_files);
  FX ("/render/output/bad-path", test_bad_output);
  FX ("/render/output/pages", test_output);
  g_test_add_func ("/render/cli", test_cli);
  g_test_add_func ("/render/truth-05-planner-colours", test_truth_05_planner_colours);
  g_test_add_func ("/render/timeline/segments", test_segments);
#undef FX
  g_test_add_func ("/render/step-labels", test_step_labels);
  g_test_add_func ("/render/axis/value-ticks", test_value_ticks);
  g_test_add_data_func ("/render/timeline/coverage/1k", GUINT_TO_POINTER (1000), test_coverage);
  g_test_add_data_func ("/render/timeline/coverage/100k", GUINT_TO_POINTER (100000),
                        test_coverage);
  g_test_add_data_func ("/render/timeline/coverage/1M", GUINT_TO_POINTER (1000000),
                        test_coverage);
  return g_test_run ();
}
