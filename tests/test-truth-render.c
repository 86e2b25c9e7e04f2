/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Issue 33's items about pictures and names (3, 6, 15): one test per item,
 * named after its number, each failing on the code before its fix. */
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "memplan-render.h"
#include "gen.h"
#include "test-util.h"

/* The <text> elements of an SVG in document order: y and the text. */
typedef struct
{
  gdouble y;
  char   *text;
} SvgText;

static void
svg_text_clear (gpointer p)
{
  g_free (((SvgText *) p)->text);
}

static GArray *
svg_texts (const char *path)
{
  g_autofree char *svg = NULL;
  g_autoptr (GRegex) re = g_regex_new ("<text x=\"[-0-9.]+\" y=\"([-0-9.]+)\"[^>]*>([^<]*)</text>",
                                       0, 0, NULL);
  g_autoptr (GMatchInfo) m = NULL;
  GArray *out = g_array_new (FALSE, FALSE, sizeof (SvgText));

  g_array_set_clear_func (out, svg_text_clear);
  g_assert_true (g_file_get_contents (path, &svg, NULL, NULL));
  for (g_regex_match (re, svg, 0, &m); g_match_info_matches (m); g_match_info_next (m, NULL))
    {
      g_autofree char *y = g_match_info_fetch (m, 1);
      SvgText          t = { g_ascii_strtod (y, NULL), g_match_info_fetch (m, 2) };

      g_array_append_val (out, t);
    }
  return out;
}

/* The y of the first <text> that starts with prefix (ends with it when
 * suffix), or -1. */
static gdouble
svg_find (GArray *texts, const char *str, gboolean suffix)
{
  for (guint i = 0; i < texts->len; i++)
    {
      const SvgText *t = &g_array_index (texts, SvgText, i);

      if (suffix ? g_str_has_suffix (t->text, str) : g_str_has_prefix (t->text, str))
        return t->y;
    }
  return -1;
}

/* 3: `render --planner all` stacked the plans in table order, each on its
 * own scale (naive's 696 MiB as tall as optimal's 191 MiB), with no memory
 * strip, and wrote ellipsized op names as glyph outlines. Now: one byte
 * scale (--scale own for the old), the winner first and the rest ranked by
 * the same rule (mp_plans_rank), the memory strip on top, every text a
 * <text>. */
static void
test_03_stacked_comparable (void)
{
  MpPlan          *p[] = { test_figures_plan ("naive", 7000, 1000),
                           test_figures_plan ("greedy-by-size", 3000, 1000),
                           test_figures_plan ("best-fit", 3000, 1000),
                           test_figures_plan ("broken", 900, 1000),
                           test_figures_plan ("partition", 3500, 1000),
                           test_figures_plan ("empty", 0, 1000) };
  guint            order[G_N_ELEMENTS (p)];
  const guint      want[] = { 1, 2, 4, 0, 5, 3 };
  static const char *const ranked[] = { "optimal", "best-of", "greedy-by-breadth", "greedy-by-size",
                                        "multistream", "best-fit", "first-fit", "partition",
                                        "naive" };
  g_autofree char *dir = g_dir_make_tmp ("memplan-truth-XXXXXX", NULL);
  g_autofree char *unet = test_data_path ("zoo/unet.json");
  g_autofree char *common = g_build_filename (dir, "common.svg", NULL);
  g_autofree char *own = g_build_filename (dir, "own.svg", NULL);
  g_autofree char *zoom = g_build_filename (dir, "zoom.svg", NULL);
  g_autofree char *zoom_svg = NULL;
  g_autoptr (GArray) tc = NULL;
  g_autoptr (GArray) to = NULL;
  g_autoptr (GArray) tz = NULL;
  gdouble          last = -1, strip;
  guint            ellipsized = 0;

  /* the rule's order, then what it never picks by arena */
  p[3]->valid = FALSE;
  p[5]->n_records = 0;
  g_assert_cmpuint (mp_plans_rank (p, G_N_ELEMENTS (p), order), ==, 4);
  for (guint i = 0; i < G_N_ELEMENTS (p); i++)
    g_assert_cmpuint (order[i], ==, want[i]);
  for (guint i = 0; i < G_N_ELEMENTS (p); i++)
    g_free (p[i]->planner), g_free (p[i]);

  g_assert_cmpint (test_run_cli (NULL, NULL, "render", unet, "--planner", "all", "--page",
                                 "none", "-o", common, NULL), ==, 0);
  g_assert_cmpint (test_run_cli (NULL, NULL, "render", unet, "--planner", "all", "--page",
                                 "none", "--scale", "own", "-o", own, NULL), ==, 0);
  tc = svg_texts (common);
  to = svg_texts (own);
  /* ranked: the winner starred, then by arena (ties in table order) */
  for (guint i = 0; i < G_N_ELEMENTS (ranked); i++)
    {
      g_autofree char *title = g_strdup_printf ("%s%u. unet-b1 · %s", i == 0 ? "★ " : "", i + 1,
                                                ranked[i]);
      gdouble          y = svg_find (tc, title, FALSE);

      if (y < 0)
        g_error ("no title '%s' in %s", title, common);
      g_assert_cmpfloat (y, >, last);
      last = y;
    }
  /* the memory strip (its legend names the live bytes) above the first plan */
  strip = svg_find (tc, "live bytes", FALSE);
  g_assert_cmpfloat (strip, >, 0);
  g_assert_cmpfloat (strip, <, svg_find (tc, "★ 1. unet-b1 · optimal", FALSE));
  /* one scale: optimal's arena line sits far lower in its band than naive's;
   * own scales: at the same height */
  {
    gdouble c_opt = svg_find (tc, "arena 191 MiB", FALSE) - svg_find (tc, "★ 1.", FALSE);
    gdouble c_naive = svg_find (tc, "arena 696 MiB", FALSE) - svg_find (tc, "9. ", FALSE);
    gdouble o_opt = svg_find (to, "arena 191 MiB", FALSE) - svg_find (to, "★ 1.", FALSE);
    gdouble o_naive = svg_find (to, "arena 696 MiB", FALSE) - svg_find (to, "9. ", FALSE);

    g_assert_cmpfloat (c_opt, >, c_naive + 100);
    g_assert_cmpfloat (fabs (o_opt - o_naive), <=, 2);
  }
  g_assert_cmpint (test_run_cli (NULL, NULL, "render", unet, "--scale", "sideways", "-o", own,
                                 NULL), ==, 2);

  /* zoomed in: the op-name row, shortened to its column, is text */
  g_assert_cmpint (test_run_cli (NULL, NULL, "render", unet, "--planner", "all", "--page",
                                 "none", "--steps", "0:25", "-o", zoom, NULL), ==, 0);
  g_assert_true (g_file_get_contents (zoom, &zoom_svg, NULL, NULL));
  g_assert_null (strstr (zoom_svg, "glyph"));
  tz = svg_texts (zoom);
  for (guint i = 0; i < tz->len; i++)
    ellipsized += g_str_has_suffix (g_array_index (tz, SvgText, i).text, "…");
  g_assert_cmpuint (ellipsized, >, 10);

  g_remove (common);
  g_remove (own);
  g_remove (zoom);
  g_rmdir (dir);
}

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

/* A graph whose names hold what a file can: a comma-separated record and a
 * line break, a right-to-left override, an escape sequence. */
static const char evil_json[] =
  "{\"format\": \"memplan.graph/1\", \"name\": \"evil\", \"tensors\": ["
  "{\"name\": \"in\", \"dtype\": \"f32\", \"shape\": [256], \"kind\": \"input\"},"
  "{\"name\": \"real,0,5,1073741824,0\\nfake\", \"dtype\": \"f32\", \"shape\": [256]},"
  "{\"name\": \"rtl\\u202eevil\", \"dtype\": \"f32\", \"shape\": [512]},"
  "{\"name\": \"esc\\u001b[2Jx\", \"dtype\": \"f32\", \"shape\": [128], \"kind\": \"output\"}],"
  "\"ops\": [{\"name\": \"op\\nA\", \"inputs\": [\"in\"], "
  "\"outputs\": [\"real,0,5,1073741824,0\\nfake\"]},"
  "{\"name\": \"op\\u202eB\", \"inputs\": [\"real,0,5,1073741824,0\\nfake\"], "
  "\"outputs\": [\"rtl\\u202eevil\"]},"
  "{\"name\": \"opC\", \"inputs\": [\"rtl\\u202eevil\"], \"outputs\": [\"esc\\u001b[2Jx\"]}]}";

/* 15: names are shown, not obeyed, and written so they read back. A name
 * with a line break started a new line in explain, U+202E reversed the
 * terminal's line, `-f csv` wrote the name unquoted (two records, and
 * `plan` of that file planned a 1 GiB buffer), and the SVG held &#x1b;,
 * which XML 1.0 forbids. */
static void
test_15_terminal (void)
{
  g_autofree char *dir = g_dir_make_tmp ("memplan-truth-XXXXXX", NULL);
  g_autofree char *graph = g_build_filename (dir, "evil.json", NULL);
  g_autofree char *name = mp_escape_name ("a\nb\xe2\x80\xae" "c\xe2\x81\xa6" "d");
  g_autofree char *out = NULL;
  g_auto (GStrv) lines = NULL;
  guint numbered = 0;

  g_assert_cmpstr (name, ==, "a\\x0ab\\u202ec\\u2066d");
  g_assert_true (g_file_set_contents (graph, evil_json, -1, NULL));
  g_assert_cmpint (test_run_cli (&out, NULL, "explain", graph, NULL), ==, 0);
  g_assert_null (strstr (out, "\xe2\x80\xae"));
  g_assert_null (strstr (out, "\x1b"));
  /* one line per placed tensor, each naming its tensor in full */
  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    if (g_ascii_isdigit (lines[i][0]))
      {
        numbered++;
        g_assert_nonnull (strstr (lines[i], " ("));
      }
  g_assert_cmpuint (numbered, ==, 3);
  g_assert_nonnull (strstr (out, ". real,0,5,1073741824,0\\x0afake (1.00 KiB"));
  g_assert_nonnull (strstr (out, ". rtl\\u202eevil (2.00 KiB"));
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (test_run_cli (&out, NULL, "plan", graph, "--planner", "greedy-by-size", NULL),
                   ==, 0);
  g_assert_null (strstr (out, "\xe2\x80\xae"));

  /* the app's words for a step (slider, live list, status, tooltips) */
  {
    MpGraph         *g = test_graph_load_string (evil_json, "evil.json");
    g_autoptr (GError) error = NULL;
    MpLifetimes     *lt = mp_lifetimes_compute (g, NULL, &error);
    MpPlan          *plan;
    MpRenderIndex   *index;
    g_autofree char *words = NULL;

    g_assert_no_error (error);
    plan = test_run_planner ("greedy-by-size", g, lt);
    index = mp_render_index_new (g, plan);
    words = mp_render_step_words (index, 1);
    g_assert_cmpstr (words, ==, "step 1 (op op\\u202eB)");
    mp_render_index_free (index);
    mp_plan_free (plan);
    mp_lifetimes_free (lt);
    mp_graph_free (g);
  }
  g_remove (graph);
  g_rmdir (dir);
}

static void
test_15_csv_round_trip (void)
{
  static const char quoted[] = "id,lower,upper,size\n"
                               "\"a,\"\"b\"\"\r\nc\",0,2,16\r\n"
                               "plain ,1,3,8\n";
  static const char unclosed[] = "id,lower,upper,size\n\"open,0,1,8\n";
  static const char after[] = "id,lower,upper,size\n\"a\"b,0,1,8\n";
  g_autofree char *dir = g_dir_make_tmp ("memplan-truth-XXXXXX", NULL);
  g_autofree char *graph = g_build_filename (dir, "evil.json", NULL);
  g_autofree char *csv = g_build_filename (dir, "p.csv", NULL);
  g_autofree char *again = g_build_filename (dir, "q.csv", NULL);
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr (GError) error = NULL;
  MpGraph         *g;

  /* the reader: RFC 4180 fields, line breaks and doubled quotes inside */
  g = mp_graph_parse_csv (quoted, strlen (quoted), "q.csv", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g->n_tensors, ==, 2);
  g_assert_cmpstr (g->tensors[0].name, ==, "a,\"b\"\r\nc");
  g_assert_cmpstr (g->tensors[1].name, ==, "plain");
  mp_graph_free (g);
  g = mp_graph_parse_csv (unclosed, strlen (unclosed), "bad.csv", NULL, &error);
  g_assert_null (g);
  g_assert_cmpstr (error->message, ==, "bad.csv: line 2: a quoted field is never closed (a \" "
                                       "inside quotes is written \"\")");
  g_clear_error (&error);
  g = mp_graph_parse_csv (after, strlen (after), "bad.csv", NULL, &error);
  g_assert_null (g);
  g_assert_cmpstr (error->message, ==, "bad.csv: line 2: text after a closing quote (a \" "
                                       "inside quotes is written \"\")");
  g_clear_error (&error);

  /* the writer, and the round trip: one record, no 1 GiB buffer */
  g_assert_true (g_file_set_contents (graph, evil_json, -1, NULL));
  g_assert_cmpint (test_run_cli (NULL, NULL, "plan", graph, "--planner", "greedy-by-size", "-f",
                                 "csv", "-o", csv, NULL), ==, 0);
  g_assert_true (g_file_get_contents (csv, &first, NULL, NULL));
  g_assert_nonnull (strstr (first, "\n\"real,0,5,1073741824,0\nfake\",0,2,1024,"));
  g_assert_cmpint (test_run_cli (&out, &err, "plan", csv, "--planner", "greedy-by-size", NULL),
                   ==, 0);
  g_assert_true (g_str_has_prefix (out, "p: 3 tensors planned over 3 steps, lower bound "
                                        "3.00 KiB"));
  g_assert_cmpint (test_run_cli (NULL, NULL, "plan", csv, "--planner", "greedy-by-size", "-f",
                                 "csv", "-o", again, NULL), ==, 0);
  g_assert_true (g_file_get_contents (again, &second, NULL, NULL));
  g_assert_cmpstr (first, ==, second);
  g_remove (graph);
  g_remove (csv);
  g_remove (again);
  g_rmdir (dir);
}

static void
test_15_svg_xml (void)
{
  g_autofree char *dir = g_dir_make_tmp ("memplan-truth-XXXXXX", NULL);
  g_autofree char *graph = g_build_filename (dir, "evil.json", NULL);
  g_autofree char *svg = g_build_filename (dir, "evil.svg", NULL);
  g_autofree char *text = NULL;
  g_autofree char *python = g_find_program_in_path ("python3");
  gsize            length;
  g_autoptr (GArray) texts = NULL;

  g_assert_true (g_file_set_contents (graph, evil_json, -1, NULL));
  g_assert_cmpint (test_run_cli (NULL, NULL, "render", graph, "--planner", "all", "--page", "none",
                                 "--steps", "0:2", "-o", svg, NULL), ==, 0);
  g_assert_true (g_file_get_contents (svg, &text, &length, NULL));
  /* no code point XML 1.0 forbids, raw or as a reference */
  g_assert_true (g_utf8_validate (text, length, NULL));
  for (gsize i = 0; i < length; i++)
    if ((guchar) text[i] < 0x20 && text[i] != '\t' && text[i] != '\n' && text[i] != '\r')
      g_error ("byte 0x%02x at %" G_GSIZE_FORMAT " of %s", (guchar) text[i], i, svg);
  g_assert_null (strstr (text, "&#x1"));
  g_assert_null (strstr (text, "&#x0"));
  /* the names as the terminal shows them, bidi override neutralised */
  g_assert_null (strstr (text, "\xe2\x80\xae"));
  texts = svg_texts (svg);
  g_assert_cmpfloat (svg_find (texts, "esc\\x1b[2Jx", FALSE), >, 0);
  g_assert_cmpfloat (svg_find (texts, "rtl\\u202eevil", FALSE), >, 0);
  /* and an XML parser reads it */
  if (python)
    {
      const char *argv[] = { python, "-c", "import sys, xml.etree.ElementTree as E; "
                             "E.parse(sys.argv[1])", svg, NULL };
      gint        status;
      g_autoptr (GError) error = NULL;

      g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL, &status,
                    &error);
      g_assert_no_error (error);
      g_assert_true (g_spawn_check_wait_status (status, NULL));
    }
  g_remove (graph);
  g_remove (svg);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/truth/03-stacked-comparable", test_03_stacked_comparable);
  g_test_add_func ("/truth/06-thin-boxes-show-free", test_06_thin_boxes_show_free);
  g_test_add_func ("/truth/15-names-terminal", test_15_terminal);
  g_test_add_func ("/truth/15-names-csv-round-trip", test_15_csv_round_trip);
  g_test_add_func ("/truth/15-names-svg-xml", test_15_svg_xml);
  return g_test_run ();
}
