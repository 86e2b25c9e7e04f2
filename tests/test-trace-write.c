/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <glib/gstdio.h>

#include "memplan-analysis.h"
#include "test-util.h"

/* What `import` writes (trace-write.c), streamed to the file through a
 * buffer of a few MiB: the same bytes as the text made in memory, and a
 * write that fails leaves the old file, or none, and no temporary file. */

typedef struct
{
  char        *dir;
  MpTrace     *trace;
  MpLifetimes *lt;
} Records;

/* A generated snapshot of n actions whose JSON records are several times
 * the buffer (20,000 actions: about 10 MB). */
static void
records_load (Records *r, guint64 n, gboolean chrome)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = NULL;
  FILE            *out;

  r->dir = g_dir_make_tmp ("memplan-trace-write-XXXXXX", NULL);
  g_assert_nonnull (r->dir);
  path = g_build_filename (r->dir, chrome ? "trace.json" : "snapshot.pickle", NULL);
  out = fopen (path, "wb");
  g_assert_nonnull (out);
  g_assert_true (chrome ? mp_gen_torch_trace (out, n, 7, FALSE)
                        : mp_gen_torch_snapshot (out, n, 7, FALSE));
  g_assert_cmpint (fclose (out), ==, 0);
  r->trace = mp_trace_load (path, NULL, &error);
  g_assert_no_error (error);
  r->lt = mp_lifetimes_compute (r->trace->graph, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_remove (path), ==, 0);
}

static void
records_clear (Records *r)
{
  g_autoptr (GDir) dir = g_dir_open (r->dir, 0, NULL);

  /* every test leaves its folder empty */
  g_assert_nonnull (dir);
  g_assert_null (g_dir_read_name (dir));
  g_assert_cmpint (g_rmdir (r->dir), ==, 0);
  g_free (r->dir);
  mp_trace_free (r->trace);
  mp_lifetimes_free (r->lt);
}

static char *
contents (const char *path)
{
  char *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

static void
assert_streamed_same (Records *r, gboolean csv, gsize at_least)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_build_filename (r->dir, csv ? "records.csv" : "records.json", NULL);
  g_autofree char *text = csv ? mp_trace_to_csv (r->trace, r->trace->graph)
                              : mp_trace_to_json (r->trace, r->trace->graph, r->lt);
  g_autofree char *written = NULL;

  g_assert_cmpuint (strlen (text), >=, at_least);
  g_assert_true (csv ? mp_trace_write_csv (path, r->trace, r->trace->graph, &error)
                     : mp_trace_write_json (path, r->trace, r->trace->graph, r->lt, &error));
  g_assert_no_error (error);
  written = contents (path);
  g_assert_cmpuint (strlen (written), ==, strlen (text));
  g_assert_true (strcmp (written, text) == 0);
  g_assert_cmpint (g_remove (path), ==, 0);
}

/* Byte for byte the text in memory (which json-by-hand in test-trace-input
 * compares with json-c's), for JSON past two flushes of the buffer and
 * for CSV, from a snapshot and from a Chrome trace. */
static void
test_same_bytes (void)
{
  Records snapshot = { NULL }, chrome = { NULL };

  records_load (&snapshot, 20000, FALSE);
  assert_streamed_same (&snapshot, FALSE, 8 << 20);
  assert_streamed_same (&snapshot, TRUE, 100000);
  records_clear (&snapshot);
  records_load (&chrome, 4000, TRUE);
  assert_streamed_same (&chrome, FALSE, 100000);
  assert_streamed_same (&chrome, TRUE, 10000);
  records_clear (&chrome);
}

/* A disk that fills halfway (a file size limit of 1 MiB, the text being
 * 10 MB): the old file stays as it was, nothing else is left in its
 * folder, and the error names the file. In a child: the limit is the
 * process's. */
static void
test_full_disk (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  g_autofree char *text = NULL;
  g_autoptr (GDir) d = NULL;

  if (g_test_subprocess ())
    {
      Records          r = { NULL };
      struct rlimit    limit = { 1 << 20, 1 << 20 };
      g_autoptr (GError) error = NULL;
      g_autofree char *expected = NULL;

      records_load (&r, 20000, FALSE);
      path = g_build_filename (g_getenv ("TEST_DIR"), "records.json", NULL);
      /* EFBIG from write(), not death by SIGXFSZ */
      signal (SIGXFSZ, SIG_IGN);
      g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &limit), ==, 0);
      g_assert_false (mp_trace_write_json (path, r.trace, r.trace->graph, r.lt, &error));
      expected = g_strdup_printf ("%s: cannot write the file: %s", path, g_strerror (EFBIG));
      g_assert_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_IO);
      g_assert_cmpstr (error->message, ==, expected);
      records_clear (&r);
      return;
    }
  dir = g_dir_make_tmp ("memplan-trace-write-XXXXXX", NULL);
  path = g_build_filename (dir, "records.json", NULL);
  g_assert_true (g_file_set_contents (path, "old\n", -1, NULL));
  g_setenv ("TEST_DIR", dir, TRUE);
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
  text = contents (path);
  g_assert_cmpstr (text, ==, "old\n");
  g_assert_cmpint (g_remove (path), ==, 0);
  d = g_dir_open (dir, 0, NULL);
  g_assert_null (g_dir_read_name (d));
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* A device that takes nothing (written through, never replaced) and a
 * folder that does not exist: FALSE, the path named, no file made. */
static void
test_refused (void)
{
  Records          r = { NULL };
  g_autofree char *missing = NULL;
  g_autofree char *expected = NULL;

  records_load (&r, 2000, FALSE);
  for (guint csv = 0; csv < 2; csv++)
    {
      g_autoptr (GError) full = NULL;
      g_autoptr (GError) none = NULL;

      g_assert_false (csv ? mp_trace_write_csv ("/dev/full", r.trace, r.trace->graph, &full)
                          : mp_trace_write_json ("/dev/full", r.trace, r.trace->graph, r.lt,
                                                 &full));
      expected = g_strdup_printf ("/dev/full: cannot write the file: %s", g_strerror (ENOSPC));
      g_assert_cmpstr (full->message, ==, expected);
      g_clear_pointer (&expected, g_free);
      g_clear_pointer (&missing, g_free);
      missing = g_build_filename (r.dir, "missing", "records.json", NULL);
      g_assert_false (csv ? mp_trace_write_csv (missing, r.trace, r.trace->graph, &none)
                          : mp_trace_write_json (missing, r.trace, r.trace->graph, r.lt, &none));
      expected = g_strdup_printf ("%s: cannot write the file: %s", missing, g_strerror (ENOENT));
      g_assert_cmpstr (none->message, ==, expected);
      g_clear_pointer (&expected, g_free);
    }
  records_clear (&r);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analysis/trace-write/same-bytes", test_same_bytes);
  g_test_add_func ("/analysis/trace-write/full-disk", test_full_disk);
  g_test_add_func ("/analysis/trace-write/refused", test_refused);
  return g_test_run ();
}
