/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <string.h>
#include <sys/resource.h>
#include <gio/gio.h>
#include <glib/gstdio.h>

#include "memplan-analysis.h"
#include "file-util.h"
#include "json-write.h"
#include "report-suite.h"
#include "test-files.h"
#include "test-trace-util.h"
#include "test-util.h"

/* PyTorch traces as users have them: gzip-compressed, attributed to ops
 * and Python frames, with blocks from before the trace and DataLoader
 * shared memory; and hostile files that must cost memory and time in
 * proportion to their size. Fixtures: tests/make-trace-fixtures.py. */

static char *
load_error (const char *path)
{
  GError *error = NULL;
  char   *message;

  g_assert_null (mp_trace_load (path, NULL, &error));
  g_assert_nonnull (error);
  message = g_strdup (error->message);
  g_error_free (error);
  return message;
}

static void
assert_same_trace (const MpTrace *a, const MpTrace *b)
{
  g_assert_cmpuint (a->n_allocations, ==, b->n_allocations);
  g_assert_cmpuint (a->n_events, ==, b->n_events);
  g_assert_cmpuint (a->reserved_peak, ==, b->reserved_peak);
  g_assert_cmpuint (a->live_peak, ==, b->live_peak);
  g_assert_cmpuint (a->observed_arena, ==, b->observed_arena);
  for (guint t = 0; t < a->n_allocations; t++)
    {
      g_assert_cmpstr (a->graph->tensors[t].name, ==, b->graph->tensors[t].name);
      g_assert_cmpuint (a->graph->tensors[t].size, ==, b->graph->tensors[t].size);
      g_assert_cmpint (a->graph->tensors[t].first, ==, b->graph->tensors[t].first);
      g_assert_cmpint (a->graph->tensors[t].last, ==, b->graph->tensors[t].last);
      g_assert_cmpuint (a->addresses[t], ==, b->addresses[t]);
      g_assert_cmpuint (a->observed[t], ==, b->observed[t]);
      g_assert_cmpstr (a->sites[t].frames, ==, b->sites[t].frames);
    }
}

/* gzip -9 of a file, written next to it in dir */
static char *
gzip_copy (const char *src, const char *dir, const char *name)
{
  g_autofree char *data = NULL;
  gsize            length, read, written;
  g_autoptr (GZlibCompressor) z = g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, 9);
  g_autofree guint8 *out = NULL;
  char              *path = g_build_filename (dir, name, NULL);
  GError            *error = NULL;

  g_assert_true (g_file_get_contents (src, &data, &length, NULL));
  out = g_malloc (length + 4096);
  g_assert_cmpint (g_converter_convert (G_CONVERTER (z), data, length, out, length + 4096,
                                        G_CONVERTER_INPUT_AT_END, &read, &written, &error),
                   ==, G_CONVERTER_FINISHED);
  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (path, (char *) out, written, NULL));
  return path;
}

static char *
run_cli (const char *const *args, gboolean expect_ok, char **err_out)
{
  char *out = NULL, *err = NULL;

  g_assert_cmpint (test_run_cli_argv (args, &out, &err) == 0, ==, expect_ok);
  if (err_out)
    *err_out = err;
  else
    g_free (err);
  return out;
}

/* Lines of text without those naming the source file or timing a planner. */
static char *
without_source (const char *text, const char *source)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  GString       *s = g_string_new (NULL);

  for (guint i = 0; lines[i]; i++)
    if (!strstr (lines[i], source) && !strstr (lines[i], "µs") && !strstr (lines[i], " ms "))
      g_string_append_printf (s, "%s\n", lines[i]);
  return g_string_free (s, FALSE);
}

/* The committed .gz files are what export_chrome_trace("x.json.gz")
 * writes (Python's gzip); the test also makes a gzip -9 of each. */
static void
test_gzip_same_figures (void)
{
  static const char *pairs[][2] = { { "trace-two-devices.json", "trace-two-devices.json.gz" },
                                    { "snapshot.pickle", "snapshot.pickle.gz" } };
  g_autofree char *dir = g_dir_make_tmp ("memplan-gz-XXXXXX", NULL);

  for (guint i = 0; i < G_N_ELEMENTS (pairs); i++)
    {
      g_autofree char *plain_path = test_fixture_path (pairs[i][0]);
      g_autofree char *gz_path = test_fixture_path (pairs[i][1]);
      g_autofree char *gz9 = gzip_copy (plain_path, dir, pairs[i][1]);
      g_autoptr (MpTrace) plain = load_trace (pairs[i][0], NULL);
      g_autoptr (MpTrace) gz = load_trace (pairs[i][1], NULL);
      g_autoptr (MpTrace) gz9_trace = mp_trace_load (gz9, NULL, NULL);
      g_autoptr (MpGraph) graph = test_graph_load (gz_path, NULL);
      const char *plan_plain[] = { "plan", plain_path, NULL };
      const char *plan_gz[] = { "plan", gz9, NULL };
      const char *import_plain[] = { "import", plain_path, NULL };
      const char *import_gz[] = { "import", gz_path, NULL };
      g_autofree char *p1 = run_cli (plan_plain, TRUE, NULL);
      g_autofree char *p2 = run_cli (plan_gz, TRUE, NULL);
      g_autofree char *i1 = run_cli (import_plain, TRUE, NULL);
      g_autofree char *i2 = run_cli (import_gz, TRUE, NULL);
      g_autofree char *p1s = without_source (p1, "\"source\"");
      g_autofree char *p2s = without_source (p2, "\"source\"");
      g_autofree char *i1s = without_source (i1, "\"source\"");
      g_autofree char *i2s = without_source (i2, "\"source\"");

      g_assert_true (mp_file_is_gzip (gz_path));
      g_assert_false (mp_file_is_gzip (plain_path));
      {
        MpInputFormat a, b;

        g_assert_true (mp_input_sniff_file (gz_path, &a));
        g_assert_true (mp_input_sniff_file (plain_path, &b));
        g_assert_cmpint (a, ==, b);
      }
      assert_same_trace (plain, gz);
      g_assert_nonnull (gz9_trace);
      assert_same_trace (plain, gz9_trace);
      /* the name drops ".gz" with the extension: the same graph name */
      g_assert_cmpstr (graph->name, ==, plain->graph->name);
      g_assert_cmpuint (graph->n_tensors, ==, plain->n_allocations);
      g_assert_cmpstr (p1s, ==, p2s);
      g_assert_cmpstr (i1s, ==, i2s);
      g_unlink (gz9);
    }
  g_rmdir (dir);
}

static void
test_gzip_render_suite (void)
{
  g_autofree char *dir = g_dir_make_tmp ("memplan-gz-XXXXXX", NULL);
  g_autofree char *plain_path = test_fixture_path ("trace-two-devices.json");
  g_autofree char *gz = gzip_copy (plain_path, dir, "trace-two-devices.json.gz");
  g_autofree char *png1 = g_build_filename (dir, "a.png", NULL);
  g_autofree char *png2 = g_build_filename (dir, "b.png", NULL);
  g_autofree char *other = g_build_filename (dir, "notes.txt.gz", NULL);
  const char      *r1[] = { "render", plain_path, "-o", png1, NULL };
  const char      *r2[] = { "render", gz, "-o", png2, NULL };
  char            *inputs[] = { dir, NULL };
  g_autofree char *a = NULL, *b = NULL;
  gsize            na, nb;
  GError          *error = NULL;
  g_autoptr (GPtrArray) found = NULL;

  g_free (run_cli (r1, TRUE, NULL));
  g_free (run_cli (r2, TRUE, NULL));
  g_assert_true (g_file_get_contents (png1, &a, &na, NULL));
  g_assert_true (g_file_get_contents (png2, &b, &nb, NULL));
  g_assert_cmpmem (a, na, b, nb);
  g_unlink (png1);
  g_unlink (png2);

  /* the suite's folder walk picks up .json.gz, not other .gz files */
  g_assert_true (g_file_set_contents (other, "x", 1, NULL));
  found = mp_suite_collect (inputs, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (found->len, ==, 1);
  g_assert_cmpstr (((MpSuiteFile *) found->pdata[0])->path, ==, gz);
  g_unlink (other);
  g_unlink (gz);
  g_rmdir (dir);
}

static void
test_gzip_errors (void)
{
  g_autofree char *dir = g_dir_make_tmp ("memplan-gz-XXXXXX", NULL);
  g_autofree char *plain_path = test_fixture_path ("trace-two-devices.json");
  g_autofree char *graph_path = test_data_path ("teaching.json");
  g_autofree char *gz = gzip_copy (plain_path, dir, "t.json.gz");
  g_autofree char *graph_gz = gzip_copy (graph_path, dir, "g.json.gz");
  g_autofree char *committed = test_fixture_path ("trace-two-devices.json.gz");
  g_autofree char *cut = g_build_filename (dir, "cut.json.gz", NULL);
  g_autofree char *bad = g_build_filename (dir, "bad.json.gz", NULL);
  g_autofree char *data = NULL;
  g_autofree char *m1 = NULL, *m2 = NULL, *m3 = NULL, *w1 = NULL, *w2 = NULL, *w3 = NULL;
  gsize            length;
  g_autoptr (MpGraph) graph = NULL;

  /* the committed file: its bytes, and so what inflates from them, are fixed */
  g_assert_true (g_file_get_contents (committed, &data, &length, NULL));
  g_assert_true (g_file_set_contents (cut, data, 300, NULL));
  memset (data + 10, 0xff, 16);
  g_assert_true (g_file_set_contents (bad, data, length, NULL));
  m1 = load_error (cut);
  m2 = load_error (bad);
  m3 = load_error (graph_gz);
  w1 = g_strdup_printf ("%s: the gzip data is truncated: the file ends inside the compressed "
                        "stream, after 1057 bytes inflated", cut);
  w2 = g_strdup_printf ("%s: the gzip data is corrupt (invalid block type) after 0 bytes "
                        "inflated", bad);
  w3 = g_strdup_printf ("%s: neither a PyTorch profiler trace (JSON with \"traceEvents\") nor a "
                        "memory snapshot (a pickle)", graph_gz);
  g_assert_cmpstr (m1, ==, w1);
  g_assert_cmpstr (m2, ==, w2);
  g_assert_cmpstr (m3, ==, w3);
  /* a compressed graph opens as a graph */
  graph = test_graph_load (graph_gz, NULL);
  g_assert_nonnull (graph);
  g_assert_true (graph->has_ops);
  for (const char *const *p = (const char *const[]) { gz, graph_gz, cut, bad, NULL }; *p; p++)
    g_unlink (*p);
  g_rmdir (dir);
}

static GBytes *
gzip_data (const void *data, gsize length)
{
  g_autoptr (GZlibCompressor) z = g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, 9);
  guint8 out[4096];
  gsize  read, written;

  g_assert_cmpint (g_converter_convert (G_CONVERTER (z), data, length, out, sizeof out,
                                        G_CONVERTER_INPUT_AT_END, &read, &written, NULL),
                   ==, G_CONVERTER_FINISHED);
  return g_bytes_new (out, written);
}

static GBytes *
gzip_bytes (const char *text)
{
  return gzip_data (text, strlen (text));
}

/* cat a.gz b.gz inflates to both; a sniff reads only the head. */
static void
test_gzip_members (void)
{
  g_autofree char *dir = g_dir_make_tmp ("memplan-gz-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "two.csv.gz", NULL);
  g_autoptr (GBytes) a = gzip_bytes ("id,lower,upper,size\nx,0,2,64\n");
  g_autoptr (GBytes) b = gzip_bytes ("y,1,3,128\n");
  g_autoptr (GByteArray) both = g_byte_array_new ();
  g_autofree char *text = NULL, *head = NULL;
  gsize            length, head_length;
  GError          *error = NULL;
  g_autoptr (MpGraph) graph = NULL;

  g_byte_array_append (both, g_bytes_get_data (a, NULL), g_bytes_get_size (a));
  g_byte_array_append (both, g_bytes_get_data (b, NULL), g_bytes_get_size (b));
  g_assert_true (g_file_set_contents (path, (char *) both->data, both->len, NULL));
  g_assert_true (mp_read_file (path, &text, &length, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, "id,lower,upper,size\nx,0,2,64\ny,1,3,128\n");
  g_assert_cmpuint (length, ==, strlen (text));
  g_assert_true (mp_read_file_head (path, 5, &head, &head_length));
  g_assert_cmpmem (head, head_length, "id,lo", 5);
  g_assert_true (mp_file_has_suffix (path, ".csv"));
  g_assert_false (mp_file_has_suffix (path, ".json"));
  graph = test_graph_load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (graph->n_tensors, ==, 2);
  g_unlink (path);
  g_rmdir (dir);
}

static GPtrArray *gzip_notes;

static void
collect_note (const char *path, const char *text)
{
  g_ptr_array_add (gzip_notes, g_strdup_printf ("%s: %s", path, text));
}

/* Writes data to dir/name and reads it back: the error message, or NULL
 * and the inflated text in *text. */
static char *
read_gzip_file (const char *dir, const char *name, const guint8 *data, gsize length,
                char **text)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  GError          *error = NULL;
  gsize            n;
  char            *message = NULL;

  g_assert_true (g_file_set_contents (path, (const char *) data, length, NULL));
  if (!mp_read_file (path, text, &n, &error))
    {
      g_assert_null (*text);
      message = g_strdup (error->message);
      g_error_free (error);
    }
  else
    g_assert_cmpuint (n, ==, strlen (*text));
  return message;
}

/* data written to dir/name is refused with "dir/name: " + want. */
static void
assert_gzip_error (const char *dir, const char *name, const guint8 *data, gsize length,
                   const char *want)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *text = NULL;
  g_autofree char *message = read_gzip_file (dir, name, data, length, &text);
  g_autofree char *full = g_strdup_printf ("%s: %s", path, want);

  g_assert_cmpstr (message, ==, full);
}

/* As gzip -d: zero padding after the data is read with a note (once per
 * file); a CRC-32 or size mismatch names the bytes that did inflate (the
 * whole 29 here, where GIO's converter said 0); what follows the data that
 * is neither padding nor gzip is refused at its offset; gzip inside gzip
 * is named. */
static void
test_gzip_like_gzip (void)
{
  static const char text[] = "id,lower,upper,size\nx,0,2,64\n";
  static const guint8 zeros[512] = { 0 };
  g_autofree char *dir = g_dir_make_tmp ("memplan-gz-XXXXXX", NULL);
  g_autoptr (GBytes) gz = gzip_bytes (text);
  gsize            n = g_bytes_get_size (gz);
  g_autoptr (GBytes) nested = gzip_data (g_bytes_get_data (gz, NULL), n);
  g_autoptr (GByteArray) data = g_byte_array_new ();
  g_autofree char *want = NULL, *read = NULL, *path = NULL, *junk = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (MpGraph) graph = NULL;
  static const char nested_error[] = "a gzip file inside a gzip file: memplan inflates one "
                                     "layer, so inflate this file once (gzip -d) and open the "
                                     "result";

  g_assert_cmpuint (strlen (text), ==, 29);
  gzip_notes = g_ptr_array_new_with_free_func (g_free);
  mp_file_set_note_func (collect_note);

  /* 512 zero bytes of padding: read, noted once however often it is read */
  g_byte_array_append (data, g_bytes_get_data (gz, NULL), n);
  g_byte_array_append (data, zeros, sizeof zeros);
  g_assert_null (read_gzip_file (dir, "pad.csv.gz", data->data, data->len, &read));
  g_assert_cmpstr (read, ==, text);
  path = g_build_filename (dir, "pad.csv.gz", NULL);
  want = g_strdup_printf ("%s: 512 zero bytes after the gzip data ignored (padding)", path);
  graph = test_graph_load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (graph->n_tensors, ==, 1);
  g_assert_cmpuint (gzip_notes->len, ==, 1);
  g_assert_cmpstr (gzip_notes->pdata[0], ==, want);

  /* the CRC-32, then the size, off by one bit */
  g_byte_array_set_size (data, n);
  data->data[n - 8] ^= 1;
  assert_gzip_error (dir, "crc.csv.gz", data->data, data->len,
                     "the gzip data is corrupt: 29 bytes inflated, but their CRC-32 is not the "
                     "one stored after them");
  data->data[n - 8] ^= 1;
  data->data[n - 4] ^= 1;
  assert_gzip_error (dir, "size.csv.gz", data->data, data->len,
                     "the gzip data is corrupt: 29 bytes inflated, but the size stored after "
                     "them differs");
  data->data[n - 4] ^= 1;

  /* two zero bytes, then text */
  g_byte_array_append (data, (const guint8 *) "\0\0xyz", 5);
  junk = g_strdup_printf ("after the gzip data (29 bytes inflated) comes something that is "
                          "neither gzip data nor zero padding, at byte %" G_GSIZE_FORMAT, n + 2);
  assert_gzip_error (dir, "junk.csv.gz", data->data, data->len, junk);

  /* gzip inside gzip, through the graph loader too */
  assert_gzip_error (dir, "twice.csv.gz", g_bytes_get_data (nested, NULL),
                     g_bytes_get_size (nested), nested_error);
  g_free (path);
  path = g_build_filename (dir, "twice.csv.gz", NULL);
  g_clear_pointer (&graph, mp_graph_free);
  graph = test_graph_load (path, &error);
  g_assert_null (graph);
  g_assert_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_FORMAT);
  g_assert_true (g_str_has_suffix (error->message, nested_error));

  g_assert_cmpuint (gzip_notes->len, ==, 1);
  mp_file_set_note_func (NULL);
  g_clear_pointer (&gzip_notes, g_ptr_array_unref);
  test_remove_tree (dir);
}

/* Each allocation carries the innermost op on its thread, the op stack,
 * the module path and the Python frames; the per-op view finds the ops
 * holding the peak. */
static void
test_attribution (void)
{
  static const struct
  {
    const char *name, *op, *ops, *module, *frames;
  } want[] = {
    { "aten::addmm#1", "aten::addmm", "aten::addmm\naten::linear", "MLP_0.Linear_0",
      "forward (model.py:12)\nmain (train.py:40)" },
    { "aten::empty#1", "aten::empty", "aten::empty", NULL, NULL },
    { "aten::relu#1", "aten::relu", "aten::relu", "MLP_0",
      "forward (model.py:12)\nmain (train.py:40)" },
    { "main#1", NULL, NULL, NULL, "main (train.py:40)" },
  };
  static const struct
  {
    const char *op;
    guint64     at_peak, allocated;
  } uses[] = { { "aten::addmm", 4096, 4096 }, { "aten::relu", 4096, 4096 },
               { "aten::empty", 2048, 2048 }, { "main (train.py:40)", 0, 1024 } };
  g_autoptr (MpTrace) trace = load_trace ("trace-attribution.json", NULL);
  g_autoptr (GArray) by_op = mp_trace_by_op (trace);
  g_autofree char *path = test_fixture_path ("trace-attribution.json");
  const char      *args[] = { "import", "--by-op", path, NULL };
  g_autofree char *table = run_cli (args, TRUE, NULL);

  g_assert_cmpuint (trace->n_allocations, ==, G_N_ELEMENTS (want));
  for (guint t = 0; t < G_N_ELEMENTS (want); t++)
    {
      g_assert_cmpstr (trace->graph->tensors[t].name, ==, want[t].name);
      g_assert_cmpstr (trace->sites[t].op, ==, want[t].op);
      g_assert_cmpstr (trace->sites[t].ops, ==, want[t].ops);
      g_assert_cmpstr (trace->sites[t].module, ==, want[t].module);
      g_assert_cmpstr (trace->sites[t].frames, ==, want[t].frames);
    }
  /* the address stays with the record */
  g_assert_cmpuint (trace->addresses[0], ==, 0x1000);
  /* 4096 + 2048 + 4096 live at event 2 */
  g_assert_cmpuint (trace->live_peak, ==, 10240);
  g_assert_cmpint (trace->peak_step, ==, 2);
  g_assert_cmpuint (by_op->len, ==, G_N_ELEMENTS (uses));
  for (guint i = 0; i < by_op->len; i++)
    {
      const MpTraceOpUse *u = &g_array_index (by_op, MpTraceOpUse, i);

      g_assert_cmpstr (u->op, ==, uses[i].op);
      g_assert_cmpuint (u->at_peak, ==, uses[i].at_peak);
      g_assert_cmpuint (u->allocated, ==, uses[i].allocated);
      g_assert_cmpuint (u->n_allocations, ==, 1);
    }
  /* the tooltip's lines, also on the graph alone (as the app keeps it) */
  {
    g_autoptr (MpGraph) graph = test_graph_load (path, NULL);
    g_autofree char *first = mp_trace_describe_origin (graph, 0, 8);
    g_autofree char *cut = mp_trace_describe_origin (graph, 0, 1);
    g_autofree char *outside = mp_trace_describe_origin (graph, 3, 8);
    g_autoptr (MpGraph) csv = test_graph_from_records ((TestRecord[]) { { 64, 0, 1 } }, 1);

    g_assert_cmpstr (first, ==, "aten::addmm in MLP_0.Linear_0 at 0x1000\naten::linear\n"
                                "forward (model.py:12)\nmain (train.py:40)");
    g_assert_cmpstr (cut, ==, "aten::addmm in MLP_0.Linear_0 at 0x1000\naten::linear");
    g_assert_cmpstr (outside, ==, "allocated outside any op at 0x3000\nmain (train.py:40)");
    g_assert_null (mp_trace_describe_origin (csv, 0, 8));
  }
  /* a snapshot knows frames, not ops */
  {
    g_autofree char *snap_path = test_fixture_path ("snapshot.pickle");
    g_autoptr (MpGraph) snap = test_graph_load (snap_path, NULL);
    g_autofree char *first = mp_trace_describe_origin (snap, 0, 8);
    g_autofree char *before = mp_trace_describe_origin (snap, 3, 8);

    g_assert_cmpstr (first, ==, "allocated at 0x7f0000000000\nforward (train.py:10)\n"
                                "main (train.py:40)");
    g_assert_cmpstr (before, ==, "allocated before the trace began at 0x7f0000001000");
  }
  /* the CSV's op column; memplan reads the file back */
  {
    const char      *csv_args[] = { "import", "-f", "csv", path, NULL };
    g_autofree char *csv = run_cli (csv_args, TRUE, NULL);
    g_autofree guint64 *offsets = NULL;
    GError          *error = NULL;
    g_autoptr (MpGraph) back = mp_graph_parse_csv (csv, strlen (csv), "a.csv", &offsets, &error);

    g_assert_no_error (error);
    g_assert_true (g_str_has_prefix (csv, "id,lower,upper,size,offset,op\n"
                                          "aten::addmm#1,0,3,4096,0,aten::addmm\n"));
    g_assert_nonnull (strstr (csv, "\nmain#1,6,7,1024,8192,\n"));
    g_assert_cmpuint (back->n_tensors, ==, 4);
    for (guint t = 0; t < 4; t++)
      g_assert_cmpuint (offsets[t], ==, trace->observed[t]);
  }
  g_assert_nonnull (strstr (table, "10.0 KiB live at the peak (event 2)"));
  g_assert_nonnull (strstr (table, "\n    4.00 KiB     4.00 KiB        1  aten::addmm\n"));
}

/* Blocks allocated before the trace began are live from its start, as
 * PyTorch's memory viewer counts them: 1 MiB in the snapshot's segment and
 * 512 KiB freed at event 2, next to 2 MiB and 1 MiB allocated in it. */
static void
test_pre_existing (void)
{
  MpTraceOptions drop = { NULL, TRUE };
  g_autoptr (MpTrace) trace = load_trace ("snapshot-pre-existing.pickle", NULL);
  g_autoptr (MpTrace) dropped = load_trace ("snapshot-pre-existing.pickle", &drop);
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (trace->graph, NULL, NULL);
  g_autoptr (MpPlan) observed = mp_trace_observed_plan (trace, lt);

  g_assert_cmpuint (trace->n_pre_existing, ==, 2);
  g_assert_cmpuint (trace->live_peak, ==, 1048576 + 524288 + 2097152 + 1048576);
  g_assert_cmpuint (lt->lower_bound, ==, trace->live_peak);
  g_assert_cmpuint (dropped->n_pre_existing, ==, 0);
  g_assert_cmpuint (dropped->live_peak, ==, 2097152 + 1048576);
  /* the observed figure is the segment the allocator reserved */
  g_assert_cmpuint (trace->reserved_peak, ==, 8388608);
  g_assert_cmpuint (observed->arena, ==, 8388608);
  g_assert_true (mp_plan_judge (trace->graph, NULL, observed));
  g_assert_cmpstr (observed->note, ==, "the cuda:0 allocator reserved 8.00 MiB at its peak; its "
                                       "blocks touched 8.00 MiB in 1 address range; 2 blocks "
                                       "allocated before the trace began, live from its start; "
                                       "1 allocation never freed (live to the end)");
}

static char *
observed_note (const MpTrace *trace)
{
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (trace->graph, NULL, NULL);
  g_autoptr (MpPlan) observed = mp_trace_observed_plan (trace, lt);

  return g_strdup (observed->note);
}

/* A DataLoader's shared-memory batch is kept apart from the CPU
 * allocator's blocks, and the CPU says it has no arena. */
static void
test_dataloader (void)
{
  MpTraceOptions shm_options = { "cpu-shm", FALSE };
  g_autoptr (MpTrace) cpu = load_trace ("trace-dataloader.json", NULL);
  g_autoptr (MpTrace) shm = load_trace ("trace-dataloader.json", &shm_options);
  g_autofree char *cpu_note = observed_note (cpu);
  g_autofree char *shm_note = observed_note (shm);

  g_assert_cmpstr (cpu->device, ==, "cpu");
  g_assert_cmpuint (cpu->n_allocations, ==, 2);
  g_assert_false (cpu->has_arena);
  g_assert_cmpuint (cpu->reserved_peak, ==, 0);
  g_assert_cmpuint (cpu->n_shared, ==, 1);
  g_assert_cmpstr (cpu_note, ==, "the CPU allocator has no arena (its blocks come from malloc, "
                                 "whose addresses do not say what it held): the row is its "
                                 "blocks packed as tight as their lifetimes allow, 3.00 MiB, "
                                 "against a peak of live bytes of 3.00 MiB; "
                                 "its blocks touched 3.00 MiB in 2 address ranges; "
                                 "1 shared-memory block of "
                                 "DataLoader workers kept apart (--device cpu-shm)");
  /* the two blocks are live together: 1 MiB + 2 MiB */
  g_assert_cmpuint (cpu->observed_arena, ==, 3145728);
  g_assert_cmpuint (shm->n_allocations, ==, 1);
  g_assert_cmpstr (shm->graph->tensors[0].name, ==, "rebuild_storage_filename#1");
  g_assert_cmpstr (shm_note, ==, "shared-memory blocks of DataLoader workers, kept apart from "
                                 "the CPU allocator's; at most 768 KiB live; its blocks touched "
                                 "768 KiB in 1 address range");
}

/* ---- invariants on random traces ---------------------------------------- */

typedef struct
{
  gdouble ts, end;
  guint   thread;
  char    name[16];
} RandomSlice;

/* Properly nested cpu_op slices in [from, to) on a thread, depth first. */
static void
random_slices (GRand *rand, GArray *out, guint thread, gdouble from, gdouble to, guint depth)
{
  gdouble at = from;

  while (depth < 4 && to - at > 4 && g_rand_int_range (rand, 0, 3) > 0)
    {
      RandomSlice s = { 0 };

      s.ts = at + g_rand_int_range (rand, 0, 3);
      s.end = MIN (to - 1, s.ts + g_rand_int_range (rand, 1, (gint) (to - s.ts)));
      if (s.end <= s.ts)
        break;
      s.thread = thread;
      g_snprintf (s.name, sizeof s.name, "op%u", g_rand_int_range (rand, 0, 6));
      g_array_append_val (out, s);
      random_slices (rand, out, thread, s.ts + 1, s.end, depth + 1);
      at = s.end + 1;
    }
}

/* The innermost slice of the thread holding ts (the latest start). */
static const char *
innermost (GArray *slices, guint thread, gdouble ts)
{
  const RandomSlice *best = NULL;

  for (guint i = 0; i < slices->len; i++)
    {
      const RandomSlice *s = &g_array_index (slices, RandomSlice, i);

      if (s->thread == thread && s->ts <= ts && ts <= s->end && (!best || s->ts >= best->ts))
        best = s;
    }
  return best ? best->name : NULL;
}

/* Random threads, nested ops and allocations: each allocation is charged
 * to the innermost op of its thread (checked by brute force); the per-op
 * figures add up to the totals; the observed layout is valid. */
static void
test_random_traces (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (16);
  guint attributed = 0, outside = 0;

  for (guint round = 0; round < 60; round++)
    {
      g_autoptr (GArray) slices = g_array_new (FALSE, FALSE, sizeof (RandomSlice));
      g_autoptr (GString) json = g_string_new ("{\"traceEvents\": [");
      g_autoptr (GPtrArray) expect = g_ptr_array_new ();
      g_autoptr (GHashTable) live = g_hash_table_new (NULL, NULL);
      guint     n_threads = g_rand_int_range (rand, 1, 4);
      gboolean  cpu = round % 2;
      g_autoptr (GError) error = NULL;
      g_autoptr (MpTrace) trace = NULL;
      g_autoptr (MpLifetimes) lt = NULL;
      g_autoptr (MpPlan) observed = NULL;
      g_autoptr (GArray) by_op = NULL;
      guint64   total = 0, sum_allocated = 0, sum_at_peak = 0;

      for (guint t = 0; t < n_threads; t++)
        random_slices (rand, slices, t, 0, 400, 0);
      for (guint i = 0; i < slices->len; i++)
        {
          const RandomSlice *s = &g_array_index (slices, RandomSlice, i);

          g_string_append_printf (json, "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", "
                                  "\"pid\": 1, \"tid\": %u, \"ts\": %g, \"dur\": %g},",
                                  s->name, s->thread, s->ts, s->end - s->ts);
        }
      /* distinct timestamps, so that the expected order is the file's */
      for (guint k = 0; k < 80; k++)
        {
          guint   thread = g_rand_int_range (rand, 0, n_threads);
          guint   slot = g_rand_int_range (rand, 1, 12);
          gdouble ts = 5 * k + 0.5;
          guint64 size = 64 * g_rand_int_range (rand, 1, 9);
          gboolean free_it = g_hash_table_contains (live, GUINT_TO_POINTER (slot));

          if (free_it)
            {
              size = GPOINTER_TO_UINT (g_hash_table_lookup (live, GUINT_TO_POINTER (slot)));
              g_hash_table_remove (live, GUINT_TO_POINTER (slot));
            }
          else
            {
              g_hash_table_insert (live, GUINT_TO_POINTER (slot), GUINT_TO_POINTER (size));
              g_ptr_array_add (expect, (gpointer) innermost (slices, thread, ts));
              total += size;
            }
          g_string_append_printf (json, "%s{\"ph\": \"i\", \"name\": \"[memory]\", \"pid\": 1, "
                                  "\"tid\": %u, \"ts\": %g, \"args\": {\"Addr\": %u, "
                                  "\"Bytes\": %s%" G_GUINT64_FORMAT ", \"Device Type\": %d, "
                                  "\"Total Reserved\": 1048576}}",
                                  k ? "," : "", thread, ts, slot * 4096, free_it ? "-" : "", size,
                                  cpu ? 0 : 1);
        }
      g_string_append (json, "]}");
      trace = mp_trace_parse (json->str, json->len, "random.json", NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (trace->n_allocations, ==, expect->len);
      for (guint t = 0; t < trace->n_allocations; t++)
        {
          g_assert_cmpstr (trace->sites[t].op, ==, expect->pdata[t]);
          if (expect->pdata[t])
            attributed++;
          else
            outside++;
        }
      lt = mp_lifetimes_compute (trace->graph, NULL, NULL);
      observed = mp_trace_observed_plan (trace, lt);
      g_assert_true (mp_plan_judge (trace->graph, NULL, observed));
      g_assert_cmpuint (trace->live_peak, ==, lt->lower_bound);
      g_assert_cmpuint (observed->arena, >=, trace->live_peak);
      g_assert_cmpuint (observed->arena, <=, cpu ? trace->touched : 1048576);
      by_op = mp_trace_by_op (trace);
      for (guint i = 0; i < by_op->len; i++)
        {
          sum_allocated += g_array_index (by_op, MpTraceOpUse, i).allocated;
          sum_at_peak += g_array_index (by_op, MpTraceOpUse, i).at_peak;
        }
      g_assert_cmpuint (sum_allocated, ==, total);
      g_assert_cmpuint (sum_at_peak, ==, trace->live_peak);
    }
  /* both cases occur: inside ops and between them */
  g_assert_cmpuint (attributed, >, 200);
  g_assert_cmpuint (outside, >, 200);
}

/* ---- hostile inputs: memory and time in proportion to the file ---------- */

static void
put (GByteArray *b, const char *bytes, gsize n)
{
  g_byte_array_append (b, (const guint8 *) bytes, n);
}

static void
put_str (GByteArray *b, const char *s)
{
  gsize n = strlen (s);

  if (n < 256)
    {
      guint8 op[2] = { 0x8c, (guint8) n }; /* SHORT_BINUNICODE */

      put (b, (char *) op, 2);
    }
  else
    {
      guint8 op[5] = { 'X', n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, n >> 24 };

      put (b, (char *) op, 5);
    }
  put (b, s, n);
}

static void
put_int (GByteArray *b, guint32 v)
{
  guint8 op[5] = { 'J', v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, v >> 24 };

  put (b, (char *) op, 5);
}

static gdouble
cpu_seconds (void)
{
  struct rusage u;

  getrusage (RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + u.ru_stime.tv_sec +
         u.ru_stime.tv_usec / 1e6;
}

static MpTrace *
parse_bytes (GByteArray *b, GError **error)
{
  return mp_trace_parse ((const char *) b->data, b->len, "hostile.pickle", NULL, error);
}

/* One entry dict (memo 0) whose frames list names one frame (memo 1) with
 * a 4 KiB name 32 times, then n - 1 references to the entry: a 44 KB file
 * whose frames, expanded per allocation, would be 2.7 GB. */
static GByteArray *
shared_frames_pickle (guint n)
{
  GByteArray      *b = g_byte_array_new ();
  g_autofree char *name = g_strnfill (4096, 'f');

  put (b, "\x80\x04}(", 4);
  put_str (b, "device_traces");
  put (b, "](](}\x94(", 7);
  put_str (b, "action");
  put_str (b, "alloc");
  put_str (b, "addr");
  put_int (b, 4096);
  put_str (b, "size");
  put_int (b, 64);
  put_str (b, "frames");
  put (b, "](}\x94(", 5);
  put_str (b, "name");
  put_str (b, name);
  put_str (b, "filename");
  put_str (b, "f.py");
  put_str (b, "line");
  put_int (b, 1);
  put (b, "u", 1);
  for (guint i = 0; i < 31; i++)
    put (b, "h\x01", 2);
  put (b, "eu", 2);
  for (guint i = 1; i < n; i++)
    put (b, "h\x00", 2);
  put (b, "eeu.", 4);
  return b;
}

#if defined(__SANITIZE_ADDRESS__)
#define TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TEST_ASAN 1
#endif
#endif
#ifndef TEST_ASAN
#define TEST_ASAN 0
#endif

static void
test_amplification (void)
{
  g_autoptr (GByteArray) b = shared_frames_pickle (20000);
  g_autoptr (GError) error = NULL;
  g_autoptr (MpTrace) trace = parse_bytes (b, &error);
  g_autofree char *want = NULL;
  struct rusage    u;

  g_assert_no_error (error);
  g_assert_cmpuint (b->len, <, 48 * 1024);
  g_assert_cmpuint (trace->n_allocations, ==, 20000);
  /* one text for every allocation, names cut at 256 bytes */
  g_assert_true (trace->sites[0].frames == trace->sites[19999].frames);
  g_assert_cmpuint (strlen (trace->sites[0].frames), ==, 32 * (256 + 9) + 31);
  want = g_strdup_printf ("hostile.pickle: the allocations share their ops and stack frames, "
                          "and writing them out would take more than %" G_GUINT64_FORMAT
                          " bytes, the most memplan writes for a file of this size (64 MiB "
                          "plus 64 bytes per byte of input)",
                          (guint64) 64 * 1024 * 1024 + 64 * (guint64) b->len);
  g_assert_false (mp_trace_check_expansion (trace, &error));
  g_assert_cmpstr (error->message, ==, want);
  getrusage (RUSAGE_SELF, &u);
  /* the old reader formatted every reference: gigabytes (AddressSanitizer
   * keeps up to 256 MiB of freed memory in quarantine, and the streaming
   * reader frees as it goes) */
  g_assert_cmpint (u.ru_maxrss, <, (TEST_ASAN ? 512 : 256) * 1024);
}

/* A dict of 30,000 keys named 30,000 times: a hash lookup, not a scan. */
static void
test_big_dict (void)
{
  g_autoptr (GByteArray) b = g_byte_array_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (MpTrace) trace = NULL;
  gdouble start = cpu_seconds ();

  put (b, "\x80\x04}(", 4);
  put_str (b, "device_traces");
  put (b, "](](}\x94(", 7);
  for (guint i = 0; i < 30000; i++)
    {
      g_autofree char *key = g_strdup_printf ("k%u", i);

      put_str (b, key);
      put (b, "N", 1);
    }
  put_str (b, "action");
  put_str (b, "alloc");
  put_str (b, "addr");
  put_int (b, 4096);
  put_str (b, "size");
  put_int (b, 64);
  put (b, "u", 1);
  for (guint i = 1; i < 30000; i++)
    put (b, "h\x00", 2);
  put (b, "eeu.", 4);
  trace = parse_bytes (b, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (trace->n_allocations, ==, 30000);
  /* the scan took 9e8 string comparisons (13 s of CPU for the CLI on a
   * file like it); the index, 20 ms: the bound leaves room for sanitizers */
  g_assert_cmpfloat (cpu_seconds () - start, <, 3.0);
}

/* 200,000 devices from one empty list named again and again: a scan per
 * device took more than 120 s, the hash 0.1 s. */
static void
test_many_devices (void)
{
  g_autoptr (GByteArray) b = g_byte_array_new ();
  g_autoptr (GError) error = NULL;
  gdouble start = cpu_seconds ();

  put (b, "\x80\x04}(", 4);
  put_str (b, "device_traces");
  put (b, "](]\x94", 4);
  for (guint i = 1; i < 200000; i++)
    put (b, "h\x00", 2);
  put (b, "eu.", 3);
  g_assert_null (parse_bytes (b, &error));
  g_assert_cmpstr (error->message, ==, "hostile.pickle: the snapshot has no trace entries: "
                                       "record it after "
                                       "torch.cuda.memory._record_memory_history()");
  g_assert_cmpfloat (cpu_seconds () - start, <, 5.0);
}

/* list(x) of a 1,000-item list, 2,000 times: 2 million copies from 43 KB. */
static void
test_reduce_copies (void)
{
  g_autoptr (GByteArray) b = g_byte_array_new ();
  g_autoptr (GError) error = NULL;

  put (b, "\x80\x04]\x94(", 5);
  for (guint i = 0; i < 1000; i++)
    put (b, "N", 1);
  put (b, "e", 1);
  put (b, "(", 1);
  for (guint i = 0; i < 2000; i++)
    put (b, "\x8c\x08" "builtins\x8c\x04list\x93h\x00\x85R", 21);
  put (b, "l.", 2);
  g_assert_null (mp_pickle_parse ((const char *) b->data, b->len, "copies.pickle", &error));
  /* 4 copies per byte of 43,009 allow 172 calls: the 173rd, at byte
   * 1008 + 172 * 21 + 19, is refused */
  g_assert_cmpstr (error->message, ==, "copies.pickle: pickle: REDUCE at byte 4639 copies 1000 "
                                       "items, more than a file of 43009 bytes may (4 per byte "
                                       "of input): the file amplifies itself");
}

/* The samples recorded with PyTorch (build-aux/record-torch-samples.py):
 * every allocation of the with_stack trace is attributed, and its peak is
 * PyTorch's own largest "Total Allocated" (3,815,152 bytes). */
static void
test_torch_samples (void)
{
  g_autofree char *trace_path = test_data_path ("torch/small-cnn-trace.json.gz");
  g_autofree char *snap_path = test_data_path ("torch/small-cnn-snapshot.pickle");
  GError          *error = NULL;
  g_autoptr (MpTrace) trace = mp_trace_load (trace_path, NULL, &error);
  g_autoptr (MpTrace) snap = NULL;
  g_autoptr (GArray) by_op = NULL;

  g_assert_no_error (error);
  g_assert_cmpstr (trace->device, ==, "cpu");
  g_assert_cmpuint (trace->n_allocations, ==, 90);
  g_assert_cmpuint (trace->live_peak, ==, 3815152);
  for (guint t = 0; t < trace->n_allocations; t++)
    {
      g_assert_nonnull (trace->sites[t].op);
      g_assert_nonnull (trace->sites[t].frames);
    }
  /* the 43 ranges malloc touched (10.7 MiB) reuse their space over time:
   * the observed layout is valid and between the live peak and that sum */
  {
    g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (trace->graph, NULL, NULL);
    g_autoptr (MpPlan) observed = mp_trace_observed_plan (trace, lt);

    g_assert_true (mp_plan_judge (trace->graph, NULL, observed));
    g_assert_cmpuint (trace->touched, ==, 11255968);
    g_assert_cmpuint (observed->arena, <, trace->touched / 2);
    g_assert_cmpuint (observed->arena, >=, trace->live_peak);
  }
  by_op = mp_trace_by_op (trace);
  g_assert_cmpstr (g_array_index (by_op, MpTraceOpUse, 0).op, ==, "aten::convolution_backward");
  snap = mp_trace_load (snap_path, NULL, &error);
  g_assert_no_error (error);
  g_assert_false (snap->has_arena); /* converted from the profile: no segments */
  g_assert_cmpuint (snap->reserved_peak, ==, 0);
}

/* import's JSON is written by hand (no json-c tree of every allocation):
 * it must be exactly what json-c writes for the same document, so parsing
 * it and writing it again with json-c gives the same bytes, whatever bytes
 * the op and frame names hold. */
static void
test_json_by_hand (void)
{
  static const char *const names[] = { "quote \" back \\ slash / tab \t",
                                       "ctl \x01\x1f del \x7f", "utf-8 \xc3\xa9 \xe2\x80\xae",
                                       "cr \r ff \f bs \b", "", "lines\nof\nframes\n" };
  GString *s = g_string_new ("{\"traceEvents\": [");

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr (GString) name = g_string_new (NULL);

      /* as JSON text: quotes, backslashes and controls escaped */
      for (const unsigned char *p = (const unsigned char *) names[i]; *p; p++)
        if (*p == '"' || *p == '\\')
          g_string_append_printf (name, "\\%c", *p);
        else if (*p < ' ')
          g_string_append_printf (name, "\\u%04x", *p);
        else
          g_string_append_c (name, (char) *p);

      g_string_append_printf (s, "%s{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", "
                              "\"pid\": 1, \"tid\": 1, \"ts\": %u, \"dur\": 10, \"args\": {}}, "
                              "{\"ph\": \"i\", \"s\": \"t\", \"name\": \"[memory]\", "
                              "\"pid\": 1, \"tid\": 1, \"ts\": %u, \"args\": {\"Addr\": %u, "
                              "\"Bytes\": 64, \"Device Type\": 0, \"Device Id\": -1}}",
                              i ? ", " : "", name->str, 100 * i, 100 * i + 5,
                              4096 * (i + 1));
    }
  g_string_append (s, "]}");
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (MpTrace) trace = mp_trace_parse (s->str, s->len, "names.json", NULL, &error);
    g_autoptr (MpLifetimes) lt = NULL;
    g_autofree char *text = NULL;
    g_autofree char *again = NULL;
    json_object     *root;

    g_assert_no_error (error);
    lt = mp_lifetimes_compute (trace->graph, NULL, &error);
    g_assert_no_error (error);
    text = mp_trace_to_json (trace, trace->graph, lt);
    root = json_tokener_parse (text);
    g_assert_nonnull (root);
    g_assert_cmpuint (json_object_array_length (json_object_object_get (root, "allocations")), ==,
                      G_N_ELEMENTS (names));
    again = mp_json_to_text_free (root);
    g_assert_cmpstr (text, ==, again);
    g_assert_nonnull (strstr (text, "\\u0001\\u001f del \x7f"));
    g_assert_nonnull (strstr (text, "\"quote \\\" back \\\\ slash / tab \\t\""));
  }
  g_string_free (s, TRUE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  /* first: its RSS bound covers the whole process so far */
  g_test_add_func ("/analysis/trace-input/amplification", test_amplification);
  g_test_add_func ("/analysis/trace-input/big-dict", test_big_dict);
  g_test_add_func ("/analysis/trace-input/many-devices", test_many_devices);
  g_test_add_func ("/analysis/trace-input/reduce-copies", test_reduce_copies);
  g_test_add_func ("/analysis/trace-input/gzip/same-figures", test_gzip_same_figures);
  g_test_add_func ("/analysis/trace-input/gzip/render-suite", test_gzip_render_suite);
  g_test_add_func ("/analysis/trace-input/gzip/errors", test_gzip_errors);
  g_test_add_func ("/analysis/trace-input/gzip/members", test_gzip_members);
  g_test_add_func ("/analysis/trace-input/gzip/like-gzip", test_gzip_like_gzip);
  g_test_add_func ("/analysis/trace-input/attribution", test_attribution);
  g_test_add_func ("/analysis/trace-input/pre-existing", test_pre_existing);
  g_test_add_func ("/analysis/trace-input/dataloader", test_dataloader);
  g_test_add_func ("/analysis/trace-input/random-traces", test_random_traces);
  g_test_add_func ("/analysis/trace-input/torch-samples", test_torch_samples);
  g_test_add_func ("/analysis/trace-input/json-by-hand", test_json_by_hand);
  return g_test_run ();
}
