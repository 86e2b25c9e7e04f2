/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <glib/gstdio.h>

#include "memplan-analysis.h"
#include "gen.h"
#include "test-util.h"

/* Traces at the size people have them (issue 31): the generators behind
 * the import benchmarks write files the importers read back whole, and
 * the gzip-compressed copy reads as the plain one. */

typedef gboolean (*GenFunc) (FILE *out, guint64 n, guint64 seed, gboolean gzip);

static char *
generate (GenFunc gen, guint64 n, gboolean gzip, const char *name)
{
  g_autofree char *dir = g_dir_make_tmp ("memplan-trace-scale-XXXXXX", NULL);
  char            *path = g_build_filename (dir, name, NULL);
  FILE            *out = fopen (path, "wb");

  g_assert_nonnull (out);
  g_assert_true (gen (out, n, 7, gzip));
  g_assert_cmpint (fclose (out), ==, 0);
  return path;
}

static void
remove_generated (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);

  g_assert_cmpint (g_remove (path), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

static MpTrace *
load (const char *path)
{
  g_autoptr (GError) error = NULL;
  MpTrace *trace = mp_trace_load (path, NULL, &error);

  g_assert_no_error (error);
  return trace;
}

/* Every entry read, every free matched with its allocation, the live
 * bytes never above what the allocator reserved. */
static void
check_generated (GenFunc gen, guint64 n, const char *name, const char *gz_name,
                 guint64 expect_events)
{
  g_autofree char  *plain = generate (gen, n, FALSE, name);
  g_autofree char  *gz = generate (gen, n, TRUE, gz_name);
  g_autoptr (MpTrace) a = load (plain);
  g_autoptr (MpTrace) b = load (gz);

  g_assert_true (mp_file_is_gzip (gz));
  g_assert_false (mp_file_is_gzip (plain));
  g_assert_cmpstr (a->device, ==, "cuda:0");
  g_assert_cmpuint (a->n_events, ==, expect_events);
  g_assert_cmpuint (a->n_unmatched_frees, ==, 0);
  g_assert_cmpuint (a->live_peak, >, 0);
  g_assert_cmpuint (a->live_peak, <=, a->reserved_peak);
  g_assert_true (a->has_arena);
  g_assert_cmpuint (a->n_events, ==, b->n_events);
  g_assert_cmpuint (a->n_allocations, ==, b->n_allocations);
  g_assert_cmpuint (a->live_peak, ==, b->live_peak);
  g_assert_cmpuint (a->reserved_peak, ==, b->reserved_peak);
  for (guint t = 0; t < a->n_allocations; t++)
    {
      g_assert_cmpuint (a->addresses[t], ==, b->addresses[t]);
      g_assert_cmpstr (a->sites[t].frames, ==, b->sites[t].frames);
      g_assert_cmpstr (a->sites[t].op, ==, b->sites[t].op);
    }
  remove_generated (plain);
  remove_generated (gz);
}

static void
test_gen_snapshot (void)
{
  g_autofree char    *path = generate (mp_gen_torch_snapshot, 3000, FALSE, "s.pickle");
  g_autoptr (MpTrace) trace = load (path);
  guint               with_frames = 0;

  /* 3000 entries: each allocation's stack of 8 to 24 frames */
  for (guint t = 0; t < trace->n_allocations; t++)
    if (trace->sites[t].frames)
      {
        guint lines = 1;

        for (const char *c = trace->sites[t].frames; *c; c++)
          lines += *c == '\n';
        g_assert_cmpuint (lines, >=, 8);
        g_assert_cmpuint (lines, <=, 24);
        with_frames++;
      }
  g_assert_cmpuint (with_frames, ==, trace->n_allocations);
  g_assert_cmpuint (trace->n_allocations, >, 1000);
  remove_generated (path);
  check_generated (mp_gen_torch_snapshot, 3000, "s.pickle", "s.pickle.gz", 3000);
}

static void
test_gen_trace (void)
{
  g_autofree char    *path = generate (mp_gen_torch_trace, 2000, FALSE, "t.json");
  g_autoptr (MpTrace) trace = load (path);

  for (guint t = 0; t < trace->n_allocations; t++)
    {
      g_assert_nonnull (trace->sites[t].op);
      g_assert_true (g_str_has_prefix (trace->sites[t].op, "aten::"));
    }
  remove_generated (path);
  check_generated (mp_gen_torch_trace, 2000, "t.json", "t.json.gz", 2000);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analysis/trace-scale/gen-snapshot", test_gen_snapshot);
  g_test_add_func ("/analysis/trace-scale/gen-trace", test_gen_trace);
  return g_test_run ();
}
