/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Issue 33's item 13, the observed row of a trace: one test per half, each
 * failing on the code before its fix. */
#include <string.h>

#include <glib/gstdio.h>

#include "memplan-render.h"
#include "test-util.h"

/* A CPU trace's observed row calls its figure an arena in the table's
 * column while the note says the CPU allocator has none: the note must say
 * what the row's figure is instead. */
static void
test_13_observed_row (void)
{
  g_autofree char *trace = g_build_filename (g_getenv ("MEMPLAN_DATA_DIR"), "torch",
                                             "small-cnn-trace.json.gz", NULL);
  g_autofree char *out = NULL;
  g_auto (GStrv) lines = NULL;
  g_autofree char *figure = NULL;
  const char      *note = NULL;

  g_assert_cmpint (test_run_cli (&out, NULL, "plan", trace, NULL), ==, 0);
  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    if (g_str_has_prefix (lines[i], "observed: "))
      note = lines[i];
    else if (g_str_has_prefix (lines[i], "observed (no arena) "))
      {
        /* the row says itself that its figure is no arena */
        g_auto (GStrv) f = g_strsplit_set (lines[i] + strlen ("observed (no arena)"), " ", -1);
        guint k = 0;

        while (f[k] && *f[k] == '\0')
          k++;
        g_assert_nonnull (f[k]);
        g_assert_nonnull (f[k + 1]);
        figure = g_strdup_printf ("%s %s", f[k], f[k + 1]);
      }
  g_assert_cmpstr (figure, ==, "3.64 MiB");
  g_assert_nonnull (note);
  g_assert_nonnull (strstr (note, "the CPU allocator has no arena"));
  g_assert_nonnull (strstr (note, "the row is its blocks packed as tight as their lifetimes "
                                  "allow, 3.64 MiB, against a peak of live bytes of 3.64 MiB"));

  /* the picture's observed pane: no "arena 3.64 MiB" either */
  {
    g_autofree char *dir = g_dir_make_tmp ("memplan-truth-XXXXXX", NULL);
    g_autofree char *svg = g_build_filename (dir, "cpu.svg", NULL);
    g_autofree char *text = NULL;

    g_assert_cmpint (test_run_cli (NULL, NULL, "render", trace, "-p", "naive", "--page", "none",
                                   "-o", svg, NULL), ==, 0);
    g_assert_true (g_file_get_contents (svg, &text, NULL, NULL));
    g_assert_nonnull (strstr (text, "footprint (no arena) 3.64 MiB"));
    g_assert_null (strstr (text, "arena 3.64 MiB"));
    g_remove (svg);
    g_rmdir (dir);
  }
}

/* The repo's snapshot: one 2 MiB segment around 1.75 KiB of blocks. The
 * memory strip's scale must keep the live bytes visible, the segment left
 * off the scale. */
static void
test_13_snapshot_strip (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("MEMPLAN_SOURCE_DIR"), "tests", "data",
                                            "snapshot.pickle", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (MpWorkload) w = mp_workload_open (path, NULL, &error);
  g_autoptr (MpRenderIndex) index = NULL;
  MpRenderOptions o = { 0 };
  MpRenderLayout  l;
  gdouble         x, bottom, peak;

  g_assert_no_error (error);
  g_assert_cmpuint (w->observed->arena, ==, 2 << 20);
  g_assert_cmpuint (w->observed->lower_bound, ==, 1792);
  index = mp_render_index_new (w->graph, w->observed);
  mp_render_memory_layout (&index, 1, &o, 1600, 240, &l);
  mp_render_layout_to_device (&l, 0, 0, &x, &bottom);
  mp_render_layout_to_device (&l, 0, w->observed->lower_bound, &x, &peak);
  /* the live peak, 1.75 KiB, near the top of the strip, not on its floor */
  g_assert_cmpfloat (bottom - peak, >, 0.8 * l.plot.height);
  g_assert_cmpfloat (l.viewport.addr_max, <, 2 << 20);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/truth/13-observed-row", test_13_observed_row);
  g_test_add_func ("/truth/13-snapshot-strip", test_13_snapshot_strip);
  return g_test_run ();
}
