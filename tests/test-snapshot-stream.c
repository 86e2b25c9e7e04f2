/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <glib/gstdio.h>

#include "memplan-analysis.h"
#include "file-util.h"
#include "gen.h"
#include "memory-estimate.h"
#include "trace-private.h"
#include "test-util.h"

/* The snapshot reader at speed (issue 31): a .pickle.gz is inflated as it
 * is read, held to the size its trailer announces; a stack seen twice is
 * interned once, however the pickle spells its frames. */

static GBytes *
generated_gzip (guint64 n)
{
  char  *data = NULL;
  gsize  length = 0;
  FILE  *out = open_memstream (&data, &length);

  g_assert_nonnull (out);
  g_assert_true (mp_gen_torch_snapshot (out, n, 7, TRUE));
  g_assert_cmpint (fclose (out), ==, 0);
  return g_bytes_new_take (data, length);
}

static void
write_bytes (const char *path, const guint8 *data, gsize length)
{
  g_assert_true (g_file_set_contents (path, (const char *) data, length, NULL));
}

/* A whole .gz reads as its inflated copy; cut, it fails as the reader
 * that inflates into one buffer says, before the pickle does. */
static void
test_gzip_cut (void)
{
  g_autoptr (GBytes) gz = generated_gzip (3000);
  g_autofree char   *path = test_tmp_path ("s.pickle.gz");
  gsize              length;
  const guint8      *data = g_bytes_get_data (gz, &length);
  g_autoptr (GError) error = NULL;
  g_autoptr (GError) whole_error = NULL;
  g_autofree char   *inflated = NULL;
  g_autofree char   *prefix = NULL;
  gsize              inflated_length;

  write_bytes (path, data, length);
  g_assert_true (mp_trace_streams (path));
  {
    g_autoptr (MpTrace) streamed = mp_trace_load (path, NULL, &error);
    g_autoptr (MpTrace) whole = NULL;

    g_assert_no_error (error);
    g_assert_true (mp_read_file (path, &inflated, &inflated_length, NULL));
    whole = mp_trace_parse (inflated, inflated_length, path, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (streamed->n_events, ==, whole->n_events);
    g_assert_cmpuint (streamed->n_allocations, ==, whole->n_allocations);
    g_assert_cmpuint (streamed->live_peak, ==, whole->live_peak);
    g_assert_cmpuint (streamed->reserved_peak, ==, whole->reserved_peak);
  }

  write_bytes (path, data, length / 2);
  g_assert_null (mp_trace_load (path, NULL, &error));
  g_assert_false (mp_read_file (path, &(char *) { NULL }, &inflated_length, &whole_error));
  g_assert_cmpstr (error->message, ==, whole_error->message);
  prefix = g_strdup_printf ("%s: the gzip data is truncated: the file ends inside the "
                            "compressed stream, after ", path);
  g_assert_true (g_str_has_prefix (error->message, prefix));
  g_assert_true (g_str_has_suffix (error->message, " bytes inflated"));
  test_tmp_remove (path);
}

/* A trailer that announces less than the data inflates to: the estimate
 * --max-memory checked was made from it, so the reader stops there. */
static void
test_gzip_trailer_lies (void)
{
  g_autoptr (GBytes) gz = generated_gzip (3000);
  g_autofree char   *path = test_tmp_path ("s.pickle.gz");
  g_autofree guint8 *data = NULL;
  g_autofree char   *expect = NULL;
  g_autoptr (GError) error = NULL;
  gsize              length;
  guint64            estimate;

  data = g_memdup2 (g_bytes_get_data (gz, &length), g_bytes_get_size (gz));
  data[length - 4] = 100; /* 100 bytes, less than the file itself */
  data[length - 3] = data[length - 2] = data[length - 1] = 0;
  write_bytes (path, data, length);
  /* what the estimate counts on: the file's size, the more of the two */
  g_assert_true (mp_memory_check_load (path, mp_memory_estimate_load (path, length), &estimate,
                                       &error));
  g_assert_no_error (error);
  g_assert_cmpuint (estimate, ==, mp_memory_estimate_load (path, length));
  g_assert_null (mp_trace_load (path, NULL, &error));
  expect = g_strdup_printf ("%s: the gzip data inflates to more than the %" G_GSIZE_FORMAT
                            " bytes its size trailer announces, which the memory estimate "
                            "(--max-memory) counted on: the file is damaged or gzip files "
                            "joined; inflate it (gzip -d) and open the result", path, length);
  g_assert_cmpstr (error->message, ==, expect);
  test_tmp_remove (path);
}

/* The same stacks spelt three ways: frames shared through the memo, a
 * frame dict of its own per stack, and strings of their own too. Each
 * reads the same texts, and equal stacks share one interned text. */
static const char frames_py[] =
  "import pickle, sys\n"
  "def fr(f, l, n, own):\n"
  "    if own: f, n = ''.join(list(f)), ''.join(list(n))\n"
  "    return {'filename': f, 'line': l, 'name': n}\n"
  "mode = sys.argv[1]\n"
  "shared = [fr('model.py', 7, 'forward', False), fr('train.py', 40, 'main', False)]\n"
  "def stack():\n"
  "    if mode == 'shared': return shared\n"
  "    own = mode == 'strings'\n"
  "    return [fr('model.py', 7, 'forward', own), fr('train.py', 40, 'main', own)]\n"
  "t = [{'action': 'segment_alloc', 'addr': 4096, 'size': 8192, 'frames': stack()}]\n"
  "for i in range(4):\n"
  "    t.append({'action': 'alloc', 'addr': 4096 + 512 * i, 'size': 512, 'frames': stack()})\n"
  "t.append({'action': 'alloc', 'addr': 6144, 'size': 256, 'frames': stack()[1:]})\n"
  "d = {'segments': [], 'device_traces': [t]}\n"
  "open(sys.argv[2], 'wb').write(pickle.dumps(d, protocol=4))\n";

static void
test_frame_interning (void)
{
  static const char *modes[] = { "shared", "dicts", "strings" };
  g_autofree char   *path = test_tmp_path ("f.pickle");

  for (guint m = 0; m < G_N_ELEMENTS (modes); m++)
    {
      g_autoptr (GError)  error = NULL;
      g_autoptr (MpTrace) trace = NULL;

      test_run_python (frames_py, modes[m], path);
      trace = mp_trace_load (path, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (trace->n_allocations, ==, 5);
      g_assert_cmpuint (trace->live_peak, ==, 4 * 512 + 256);
      for (guint t = 0; t < 4; t++)
        {
          g_assert_cmpstr (trace->sites[t].frames, ==,
                           "forward (model.py:7)\nmain (train.py:40)");
          /* one text for the four: interned, not copied */
          g_assert_true (trace->sites[t].frames == trace->sites[0].frames);
        }
      g_assert_cmpstr (trace->sites[4].frames, ==, "main (train.py:40)");
    }
  test_tmp_remove (path);
}

/* Entries are taken as the next one begins, not at their APPENDS: an
 * entry the pickle names twice (the memo) is two allocations, as in
 * Python, and a list of pairs of entries elsewhere in the dict (TUPLE2
 * inside APPENDS) still reads. */
static const char early_py[] =
  "import pickle, sys\n"
  "def a(addr, size): return {'action': 'alloc', 'addr': addr, 'size': size, 'frames': []}\n"
  "def f(addr, size): return {'action': 'free_completed', 'addr': addr, 'size': size}\n"
  "e, x = a(4096, 512), f(4096, 512)\n"
  "pairs = [(a(1, 2), a(3, 4)) for i in range(3)]\n"
  "t = [{'action': 'segment_alloc', 'addr': 4096, 'size': 8192, 'frames': []},\n"
  "     a(6144, 256), e, x, e, x, a(7168, 1024), f(7168, 1024)]\n"
  "d = {'pairs': pairs, 'segments': [], 'device_traces': [t]}\n"
  "open(sys.argv[2], 'wb').write(pickle.dumps(d, protocol=4))\n";

static void
test_early_entries (void)
{
  g_autofree char     *path = test_tmp_path ("e.pickle");
  g_autoptr (GError)  error = NULL;
  g_autoptr (MpTrace) trace = NULL;

  test_run_python (early_py, "-", path);
  trace = mp_trace_load (path, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (trace->n_allocations, ==, 4);
  g_assert_cmpuint (trace->live_peak, ==, 256 + 1024);
  g_assert_cmpuint (trace->addresses[1], ==, 4096);
  g_assert_cmpuint (trace->addresses[2], ==, 4096);
  test_tmp_remove (path);
}

/* The frames found through the reader's own hash table, grown from 256
 * slots past 6,000 frames, spell each stack as the pickle does: the set of
 * the allocations' stacks is the set of "name (file:line)" lines joined
 * straight from the alloc entries of the whole pickle. */
static void
test_frame_table (void)
{
  char                  *data = NULL;
  gsize                  length = 0;
  FILE                  *out = open_memstream (&data, &length);
  g_autoptr (GError)     error = NULL;
  g_autoptr (MpPickle)   pickle = NULL;
  g_autoptr (MpTrace)    trace = NULL;
  g_autoptr (GHashTable) want = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GHashTable) got = g_hash_table_new (g_str_hash, g_str_equal);
  const MpPickleValue   *list;
  GHashTableIter         iter;
  gpointer               key;

  g_assert_true (mp_gen_torch_snapshot (out, 3000, 11, FALSE));
  g_assert_cmpint (fclose (out), ==, 0);
  pickle = mp_pickle_parse (data, length, "g.pickle", &error);
  g_assert_no_error (error);
  list = mp_pickle_item (mp_pickle_get (mp_pickle_root (pickle), "device_traces"), 0);
  for (guint i = 0; i < mp_pickle_len (list); i++)
    {
      const MpPickleValue *e = mp_pickle_item (list, i);
      const MpPickleValue *frames = mp_pickle_get (e, "frames");
      GString             *s;

      if (!g_str_equal (mp_pickle_get (e, "action")->str, "alloc"))
        continue;
      s = g_string_new (NULL);
      for (guint f = 0; f < mp_pickle_len (frames); f++)
        {
          const MpPickleValue *frame = mp_pickle_item (frames, f);

          g_string_append_printf (s, "%s%s (%s:%" G_GINT64_FORMAT ")", f ? "\n" : "",
                                  mp_pickle_get (frame, "name")->str,
                                  mp_pickle_get (frame, "filename")->str,
                                  mp_pickle_get (frame, "line")->i);
        }
      g_hash_table_add (want, g_string_free (s, FALSE));
    }
  trace = mp_trace_parse (data, length, "g.pickle", NULL, &error);
  g_assert_no_error (error);
  for (guint t = 0; t < trace->n_allocations; t++)
    g_hash_table_add (got, (gpointer) trace->sites[t].frames);
  g_assert_cmpuint (g_hash_table_size (want), >, 300);
  g_assert_cmpuint (g_hash_table_size (got), ==, g_hash_table_size (want));
  g_hash_table_iter_init (&iter, want);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_assert_true (g_hash_table_contains (got, key));
  free (data);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analysis/snapshot-stream/gzip-cut", test_gzip_cut);
  g_test_add_func ("/analysis/snapshot-stream/gzip-trailer-lies", test_gzip_trailer_lies);
  g_test_add_func ("/analysis/snapshot-stream/frame-interning", test_frame_interning);
  g_test_add_func ("/analysis/snapshot-stream/early-entries", test_early_entries);
  g_test_add_func ("/analysis/snapshot-stream/frame-table", test_frame_table);
  return g_test_run ();
}
