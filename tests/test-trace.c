/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <string.h>
#include <glib/gstdio.h>

#include "memplan-analysis.h"
#include "test-trace-util.h"
#include "test-util.h"

/* Importers of PyTorch profiler traces and memory snapshots, on the
 * hand-made files of tests/data (written by tests/make-trace-fixtures.py). */

static MpTrace *
load (const char *name, const char *device)
{
  MpTraceOptions options = { device, FALSE };

  return load_trace (name, &options);
}

typedef struct
{
  const char *name;
  guint64     size;
  gint64      first, last;
  guint64     address, observed;
} Expected;

static void
assert_records (const MpTrace *trace, const Expected *want, guint n)
{
  const MpGraph *g = trace->graph;

  g_assert_false (g->has_ops);
  g_assert_cmpuint (g->n_tensors, ==, n);
  for (guint i = 0; i < n; i++)
    {
      g_assert_cmpstr (g->tensors[i].name, ==, want[i].name);
      g_assert_cmpuint (g->tensors[i].size, ==, want[i].size);
      g_assert_cmpint (g->tensors[i].first, ==, want[i].first);
      g_assert_cmpint (g->tensors[i].last, ==, want[i].last);
      g_assert_cmpuint (trace->addresses[i], ==, want[i].address);
      g_assert_cmpuint (trace->observed[i], ==, want[i].observed);
    }
}

/* Every planner, and the observed layout, is valid on the records. */
static void
assert_plans (const MpTrace *trace, guint64 lower_bound, guint64 observed_arena)
{
  MpLifetimeOptions lo = { 0 };
  GError           *error = NULL;
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (trace->graph, &lo, &error);
  g_autoptr (MpPlan) observed = NULL;
  guint                n;
  const MpPlannerInfo *planners = mp_planners (&n);

  g_assert_no_error (error);
  g_assert_cmpuint (lt->lower_bound, ==, lower_bound);
  observed = mp_trace_observed_plan (trace, lt);
  g_assert_true (mp_plan_judge (trace->graph, NULL, observed));
  g_assert_cmpstr (observed->planner, ==, "observed");
  g_assert_cmpuint (observed->arena, ==, observed_arena);
  for (guint p = 0; p < n; p++)
    {
      if (planners[p].needs_ops)
        continue;
      g_autoptr (MpPlan) plan = test_run_planner (planners[p].name, trace->graph, lt);
      g_assert_cmpuint (plan->arena, >=, lower_bound);
    }
}

static void
assert_note (const MpTrace *trace, const char *want)
{
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (trace->graph, &(MpLifetimeOptions) { 0 },
                                                     NULL);
  g_autoptr (MpPlan) observed = mp_trace_observed_plan (trace, lt);

  g_assert_cmpstr (observed->note, ==, want);
}

/* Events sorted by ts: a zero-byte allocation (step 0, no record), A, B,
 * free A, C at A's address, a free with no allocation, D in another
 * segment, free B, free C; D is never freed. */
static void
test_chrome (void)
{
  static const Expected want[] = {
    { "0x1000@1", 1024, 1, 2, 0x1000, 0 },
    { "0x1400@2", 2048, 2, 6, 0x1400, 1024 },
    { "0x1000@4", 512, 4, 7, 0x1000, 0 },
    { "pre-existing#1", 256, 0, 4, 0x9000, 3072 },
    { "0x200000@6", 4096, 6, 8, 0x200000, 3328 },
  };
  g_autoptr (MpTrace) trace = load ("trace-two-devices.json", NULL);

  g_assert_cmpint (trace->format, ==, MP_TRACE_FORMAT_CHROME);
  g_assert_cmpstr (trace->device, ==, "cuda:0");
  g_assert_cmpuint (g_strv_length (trace->devices), ==, 2);
  g_assert_cmpstr (trace->devices[0], ==, "cuda:0");
  g_assert_cmpstr (trace->devices[1], ==, "cpu");
  g_assert_cmpuint (trace->n_events, ==, 9);
  assert_records (trace, want, G_N_ELEMENTS (want));
  g_assert_cmpuint (trace->n_unmatched_frees, ==, 1);
  g_assert_cmpuint (trace->n_pre_existing, ==, 1);
  g_assert_cmpuint (trace->origins[3], ==, MP_TRACE_BLOCK_PRE_EXISTING);
  g_assert_cmpuint (trace->n_never_freed, ==, 1);
  g_assert_cmpuint (trace->reserved_peak, ==, 4194304);
  /* [0x1000, 0x1c00), the block freed at 0x9000 and [0x200000, 0x201000)
   * laid end to end */
  g_assert_cmpuint (trace->n_ranges, ==, 3);
  g_assert_cmpuint (trace->ranges[2].address, ==, 0x200000);
  g_assert_cmpuint (trace->ranges[2].offset, ==, 3328);
  g_assert_cmpuint (trace->observed_arena, ==, 7424);
  g_assert_null (trace->sites[0].frames);
  /* live at D's start (event 6): B, C and D; the observed arena is what
   * the allocator reserved */
  g_assert_cmpuint (trace->live_peak, ==, 2048 + 512 + 4096);
  g_assert_cmpint (trace->peak_step, ==, 6);
  assert_plans (trace, 2048 + 512 + 4096, 4194304);
  assert_note (trace, "the cuda:0 allocator reserved 4.00 MiB at its peak; its "
                                       "blocks touched 7.25 KiB in 3 address ranges; 1 block "
                                       "allocated before the trace began, live from its start; "
                                       "1 allocation never freed (live to the end)");
}

/* With drop_pre_existing the free without an allocation is skipped. */
static void
test_chrome_drop (void)
{
  static const Expected want[] = {
    { "0x1000@1", 1024, 1, 2, 0x1000, 0 },
    { "0x1400@2", 2048, 2, 6, 0x1400, 1024 },
    { "0x1000@4", 512, 4, 7, 0x1000, 0 },
    { "0x200000@6", 4096, 6, 8, 0x200000, 3072 },
  };
  g_autofree char *path = test_fixture_path ("trace-two-devices.json");
  MpTraceOptions   options = { NULL, TRUE };
  GError          *error = NULL;
  g_autoptr (MpTrace) trace = mp_trace_load_full (path, &options, &error);

  g_assert_no_error (error);
  assert_records (trace, want, G_N_ELEMENTS (want));
  g_assert_cmpuint (trace->n_pre_existing, ==, 0);
  g_assert_cmpuint (trace->observed_arena, ==, 7168);
  assert_note (trace, "the cuda:0 allocator reserved 4.00 MiB at its peak; its "
                                       "blocks touched 7.00 KiB in 2 address ranges; 1 free "
                                       "without an allocation skipped; 1 allocation never freed "
                                       "(live to the end)");
}

static void
test_chrome_devices (void)
{
  static const Expected cpu[] = { { "0x7f00@0", 64, 0, 0, 0x7f00, 0 } };
  static const Expected cuda1[] = {
    { "0x4000@0", 512, 0, 1, 0x4000, 0 },
    { "0x4200@1", 512, 1, 2, 0x4200, 512 },
  };
  g_autoptr (MpTrace) c = load ("trace-two-devices.json", "cpu");
  g_autoptr (MpTrace) a = load ("trace-array.json", NULL);
  g_autofree char *path = test_fixture_path ("trace-two-devices.json");
  GError          *error = NULL;

  assert_records (c, cpu, 1);
  g_assert_cmpuint (c->n_events, ==, 2);
  g_assert_cmpuint (c->reserved_peak, ==, 0);
  assert_records (a, cuda1, 2);
  g_assert_cmpstr (a->device, ==, "cuda:1");
  g_assert_cmpuint (a->reserved_peak, ==, 1048576);
  g_assert_null (mp_trace_load (path, "cuda:3", &error));
  g_assert_true (g_str_has_suffix (error->message, "trace-two-devices.json: no memory events for "
                                                   "device 'cuda:3' (devices in the file: cuda:0, "
                                                   "cpu)"));
  g_clear_error (&error);
}

static void
test_snapshot (void)
{
  static const guint64 S = G_GUINT64_CONSTANT (0x7f0000000000);
  static const Expected want[] = {
    { "forward#1", 1024, 1, 3, 0x7f0000000000, 0 },
    { "mlp#1", 512, 2, 7, 0x7f0000000400, 1024 },
    { "forward#2", 768, 5, 7, 0x7f0000000000, 0 },
    { "pre-existing#1", 256, 0, 5, 0x7f0000001000, 4096 },
  };
  const char *files[] = { "snapshot.pickle", "snapshot-p2.pickle" };

  for (guint f = 0; f < G_N_ELEMENTS (files); f++)
    {
      g_autoptr (MpTrace) trace = load (files[f], NULL);

      g_assert_cmpint (trace->format, ==, MP_TRACE_FORMAT_SNAPSHOT);
      g_assert_cmpstr (trace->device, ==, "cuda:0");
      g_assert_cmpuint (g_strv_length (trace->devices), ==, 1); /* cuda:1 has no entries */
      /* the "snapshot" marker is not a memory event; the oom is */
      g_assert_cmpuint (trace->n_events, ==, 8);
      assert_records (trace, want, G_N_ELEMENTS (want));
      g_assert_cmpstr (trace->sites[0].frames, ==, "forward (train.py:10)\nmain (train.py:40)");
      g_assert_cmpstr (trace->sites[1].frames, ==, "mlp (model.py:7)");
      g_assert_cmpstr (trace->sites[2].frames, ==, trace->sites[0].frames);
      g_assert_cmpuint (trace->n_unmatched_frees, ==, 1);
      g_assert_cmpuint (trace->n_never_freed, ==, 2);
      g_assert_cmpuint (trace->n_ooms, ==, 1);
      /* the segment is the observed range */
      g_assert_cmpuint (trace->n_ranges, ==, 1);
      g_assert_cmpuint (trace->ranges[0].address, ==, S);
      g_assert_cmpuint (trace->ranges[0].size, ==, 2097152);
      g_assert_cmpuint (trace->reserved_peak, ==, 2097152);
      /* X, Y and the block freed at event 6 (live from the start); the
       * observed figure is the segment the allocator reserved */
      assert_plans (trace, 1024 + 512 + 256, 2097152);
    }
}

/* The pickle reader's values: big ints, floats, None, tuples, memo sharing. */
static void
test_pickle_values (void)
{
  g_autofree char *path = test_fixture_path ("snapshot.pickle");
  g_autofree char *data = NULL;
  gsize            length;
  GError          *error = NULL;
  g_autoptr (MpPickle) p = NULL;
  const MpPickleValue *root, *settings, *seg, *traces;

  g_assert_true (g_file_get_contents (path, &data, &length, NULL));
  p = mp_pickle_parse (data, length, path, &error);
  g_assert_no_error (error);
  root = mp_pickle_root (p);
  settings = mp_pickle_get (root, "allocator_settings");
  g_assert_cmpint (mp_pickle_get (settings, "handle")->type, ==, MP_PICKLE_BIGINT);
  g_assert_cmpint (mp_pickle_get (settings, "max_split_size")->i, ==, -1);
  g_assert_cmpfloat (mp_pickle_get (settings, "roundup")->f, ==, 512.0);
  g_assert_cmpint (mp_pickle_get (settings, "PYTORCH_CUDA_ALLOC_CONF")->type, ==,
                   MP_PICKLE_NONE);
  seg = mp_pickle_item (mp_pickle_get (root, "segments"), 0);
  g_assert_cmpint (mp_pickle_get (seg, "segment_pool_id")->type, ==, MP_PICKLE_TUPLE);
  g_assert_cmpuint (mp_pickle_len (mp_pickle_get (seg, "segment_pool_id")), ==, 2);
  g_assert_cmpint (mp_pickle_get (seg, "is_expandable")->type, ==, MP_PICKLE_BOOL);
  g_assert_cmpint (mp_pickle_get (seg, "is_expandable")->i, ==, 0);
  g_assert_cmpuint (mp_pickle_len (mp_pickle_get (seg, "blocks")), ==, 2);
  traces = mp_pickle_item (mp_pickle_get (root, "device_traces"), 0);
  g_assert_cmpuint (mp_pickle_len (traces), ==, 9);
  /* one list object referenced twice through the memo */
  g_assert_true (mp_pickle_get (mp_pickle_item (traces, 1), "frames") ==
                 mp_pickle_get (mp_pickle_item (traces, 5), "frames"));
  g_assert_cmpfloat (mp_pickle_get (mp_pickle_item (traces, 7), "time_us")->f, ==, 8.5);
}

static void
test_pickle_containers (void)
{
  const char *files[] = { "pickle-values-p2.pickle", "pickle-values-p4.pickle" };

  for (guint f = 0; f < G_N_ELEMENTS (files); f++)
    {
      g_autofree char *path = test_fixture_path (files[f]);
      g_autofree char *data = NULL;
      gsize            length;
      GError          *error = NULL;
      g_autoptr (MpPickle) p = NULL;
      const MpPickleValue *root, *od, *t;

      g_assert_true (g_file_get_contents (path, &data, &length, NULL));
      p = mp_pickle_parse (data, length, path, &error);
      g_assert_no_error (error);
      root = mp_pickle_root (p);
      od = mp_pickle_get (root, "od");
      g_assert_cmpint (od->type, ==, MP_PICKLE_DICT);
      g_assert_cmpint (mp_pickle_get (od, "a")->i, ==, 1);
      g_assert_cmpint (mp_pickle_get (od, "b")->i, ==, 2);
      g_assert_cmpuint (mp_pickle_len (mp_pickle_get (root, "s")), ==, 1);
      g_assert_cmpint (mp_pickle_item (mp_pickle_get (root, "s"), 0)->i, ==, 3);
      g_assert_cmpint (mp_pickle_item (mp_pickle_get (root, "fs"), 0)->i, ==, 4);
      g_assert_cmpint (mp_pickle_get (root, "neg")->i, ==, -5);
      g_assert_cmpint (mp_pickle_get (root, "big")->type, ==, MP_PICKLE_BIGINT);
      g_assert_cmpint (mp_pickle_get (root, "i62")->i, ==, G_GINT64_CONSTANT (1) << 62);
      g_assert_cmpint (mp_pickle_get (root, "n40")->i, ==, -(G_GINT64_CONSTANT (1) << 40));
      t = mp_pickle_get (root, "t");
      g_assert_cmpint (t->type, ==, MP_PICKLE_TUPLE);
      g_assert_cmpstr (mp_pickle_item (t, 1)->str, ==, "x");
      g_assert_cmpint (mp_pickle_item (t, 2)->type, ==, MP_PICKLE_NONE);
      if (f == 1)
        g_assert_cmpmem (mp_pickle_get (root, "b")->str, 2, "xy", 2);
    }
}

/* Malformed files fail with a message naming the file and what is wrong. */
static void
test_errors (void)
{
  static const struct
  {
    const char *file;
    const char *message;
  } cases[] = {
    { "trace-bad-bytes.json",
      "traceEvents[1]: [memory] event: \"Bytes\" must be an integer within 64 bits" },
    { "trace-addr-overflow.json",
      "traceEvents[0]: [memory] event: \"Addr\" must be a non-negative integer below 2^63" },
    { "trace-nan-ts.json", "not valid JSON: NaN at line 2, column 41 (NaN and Infinity are not "
                           "JSON numbers)" },
    { "trace-huge-alloc.json", "cuda:0 event 0: an allocation of 1125899906842624 bytes is "
                               "over the limit of 2^48 bytes (256 TiB)" },
    { "trace-no-memory.json",
      "the trace has no [memory] events: record it with "
      "torch.profiler.profile(profile_memory=True); a trace recorded with "
      "profile_all_threads=True has none (PyTorch writes no memory events then)" },
    { "trace-all-threads.json",
      "the trace has no [memory] events: record it with "
      "torch.profiler.profile(profile_memory=True); a trace recorded with "
      "profile_all_threads=True has none (PyTorch writes no memory events then)" },
    { "snapshot-huge-segment.pickle", "segments[0]: a segment of 4611686018427387904 bytes is "
                                      "over the limit of 2^48 bytes (256 TiB)" },
    { "snapshot-overlap.pickle", "cuda:0: the segments at 0x7e0000000000 (2097152 bytes) and "
                                 "0x7e0000100000 overlap; a snapshot's segments never do" },
    { "trace-truncated.json",
      "truncated JSON: the file ends at line 1, column 201 before the document is complete" },
    { "snapshot-wrong-type.pickle",
      "device_traces[0][0] (alloc): \"addr\" must be a non-negative int, found str" },
    { "snapshot-empty.pickle", "the snapshot has no trace entries: record it after "
                               "torch.cuda.memory._record_memory_history()" },
    { "snapshot-not-dict.pickle", "the pickle holds a list, not a memory snapshot (a dict "
                                  "with \"device_traces\" and \"segments\")" },
    { "snapshot-no-traces.pickle",
      "not a memory snapshot: \"device_traces\" must be a list, found dict" },
    { "snapshot-truncated.pickle",
      "pickle: the file is truncated inside opcode 0x8a at byte 489" },
    { "pickle-cut-string.pickle", "pickle: the file is truncated inside opcode 0x58 at byte 6" },
    { "pickle-huge-length.pickle",
      "pickle: opcode 0x8d at byte 2 asks for 1152921504606846976 bytes but only 3 remain" },
    { "pickle-os-system.pickle",
      "pickle: global 'os.system' at byte 2 is not allowed: only plain containers (dict, list, "
      "tuple, set) are read and nothing in the file is run" },
    { "pickle-bad-opcode.pickle", "pickle: unsupported opcode 0xff at byte 2 (only plain data "
                                  "is read: dicts, lists, tuples, strings, numbers)" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = test_fixture_path (cases[i].file);
      g_autofree char *want = g_strdup_printf ("%s: %s", path, cases[i].message);
      GError          *error = NULL;
      g_autoptr (MpGraph) graph = NULL;

      g_assert_null (mp_trace_load (path, NULL, &error));
      g_assert_cmpstr (error->message, ==, want);
      g_clear_error (&error);
      /* the same through the general loader */
      graph = test_graph_load (path, &error);
      g_assert_null (graph);
      g_assert_cmpstr (error->message, ==, want);
      g_clear_error (&error);
    }
}

/* Every cut of a snapshot fails cleanly, never crashes. */
static void
test_every_truncation (void)
{
  g_autofree char *path = test_fixture_path ("snapshot.pickle");
  g_autofree char *data = NULL;
  gsize            length;

  g_assert_true (g_file_get_contents (path, &data, &length, NULL));
  for (gsize cut = 0; cut < length; cut++)
    {
      GError *error = NULL;
      g_autoptr (MpTrace) trace = mp_trace_parse (data, cut, "cut.pickle", NULL, &error);

      g_assert_null (trace);
      g_assert_nonnull (error);
      g_assert_true (g_str_has_prefix (error->message, "cut.pickle: "));
      g_clear_error (&error);
    }
}

/* Corrupted bytes anywhere (wrong types, bad lengths, stray opcodes) either
 * parse or fail with a message; they never crash or leak. */
static void
test_mutations (void)
{
  static const guint8 values[] = { 0x00, 0xff, 'h', 'e', '(', 0x8b, 0x7f };
  g_autofree char *path = test_fixture_path ("snapshot.pickle");
  g_autofree char *data = NULL;
  gsize            length;

  g_assert_true (g_file_get_contents (path, &data, &length, NULL));
  for (gsize at = 0; at < length; at++)
    for (guint v = 0; v < G_N_ELEMENTS (values); v++)
      {
        g_autofree char *copy = g_memdup2 (data, length);
        GError          *error = NULL;
        g_autoptr (MpTrace) trace = NULL;

        copy[at] = values[v];
        trace = mp_trace_parse (copy, length, "bad.pickle", NULL, &error);
        g_assert_true ((trace == NULL) == (error != NULL));
        g_clear_error (&error);
      }
}

/* mp_input_load goes by the content: a snapshot named .json and a trace
 * named .csv still load as records. */
static void
test_sniff (void)
{
  g_autofree char *dir = g_dir_make_tmp ("memplan-trace-XXXXXX", NULL);
  g_autofree char *snap = test_fixture_path ("snapshot.pickle");
  g_autofree char *chrome = test_fixture_path ("trace-two-devices.json");
  g_autofree char *a = g_build_filename (dir, "model.json", NULL);
  g_autofree char *b = g_build_filename (dir, "records.csv", NULL);
  g_autofree char *data = NULL;
  gsize            length;
  GError          *error = NULL;

  g_assert_true (g_file_get_contents (snap, &data, &length, NULL));
  g_assert_true (g_file_set_contents (a, data, length, NULL));
  g_clear_pointer (&data, g_free);
  g_assert_true (g_file_get_contents (chrome, &data, &length, NULL));
  g_assert_true (g_file_set_contents (b, data, length, NULL));
  {
    g_autoptr (MpGraph) ga = test_graph_load (a, &error);
    g_autoptr (MpGraph) gb = NULL;

    g_assert_no_error (error);
    g_assert_cmpuint (ga->n_tensors, ==, 4); /* one block from before the trace */
    g_assert_false (ga->has_ops);
    g_assert_cmpstr (ga->name, ==, "model-cuda:0");
    gb = test_graph_load (b, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (gb->n_tensors, ==, 5);
  }
  {
    MpInputFormat format;

    g_assert_true (mp_input_sniff ("{\"format\": \"memplan.graph/1\"}", 29, NULL, &format, NULL));
    g_assert_cmpint (format, ==, MP_INPUT_GRAPH_JSON);
    g_assert_true (mp_input_sniff ("id,lower,upper,size\n", 20, NULL, &format, NULL));
    g_assert_cmpint (format, ==, MP_INPUT_USAGE_CSV);
  }
  g_unlink (a);
  g_unlink (b);
  g_rmdir (dir);
}

/* memplan-cli plan shows "observed" next to the planners. */
static void
test_cli (void)
{
  g_autofree char *path = test_fixture_path ("trace-two-devices.json");
  g_autofree char *out = NULL, *err = NULL;
  const char      *argv[] = { "plan", path, "--planner", "greedy-by-size", NULL };
  const char      *bad[] = { "plan", path, "--device", "cuda:7", NULL };

  g_assert_cmpint (test_run_cli_argv (argv, &out, &err), ==, 0);
  /* the observed figure is what the allocator reserved, judged valid */
  g_assert_nonnull (strstr (out, "observed               4.00 MiB     6.50 KiB 630.1538   99.84%"
                                 "      -      0 µs  yes"));
  g_assert_nonnull (strstr (out, "greedy-by-size         6.50 KiB     6.50 KiB  1.0000"));
  g_assert_nonnull (strstr (out, "observed: the cuda:0 allocator reserved 4.00 MiB at its peak"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (test_run_cli_argv (bad, &out, &err), !=, 0);
  g_assert_nonnull (strstr (err, "no memory events for device 'cuda:7'"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analysis/trace/chrome", test_chrome);
  g_test_add_func ("/analysis/trace/chrome-drop", test_chrome_drop);
  g_test_add_func ("/analysis/trace/chrome-devices", test_chrome_devices);
  g_test_add_func ("/analysis/trace/snapshot", test_snapshot);
  g_test_add_func ("/analysis/trace/pickle-values", test_pickle_values);
  g_test_add_func ("/analysis/trace/pickle-containers", test_pickle_containers);
  g_test_add_func ("/analysis/trace/errors", test_errors);
  g_test_add_func ("/analysis/trace/every-truncation", test_every_truncation);
  g_test_add_func ("/analysis/trace/mutations", test_mutations);
  g_test_add_func ("/analysis/trace/sniff", test_sniff);
  g_test_add_func ("/analysis/trace/cli", test_cli);
  return g_test_run ();
}
