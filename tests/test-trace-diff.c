/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <glib/gstdio.h>

#include "memplan-analysis.h"
#include "lifetimes.h"
#include "test-util.h"

/* Two runs compared (memplan-cli diff, issue 31): hand-made pairs of CPU
 * profiler traces where the answer is known — a grown tensor, a new op, a
 * peak that moved — and the recorded real pair in data/torch/. */

/* One memory event: op allocates bytes at addr; a free when bytes < 0
 * (op NULL: outside any op). */
typedef struct
{
  const char *op;
  guint64     addr;
  gint64      bytes;
} Ev;

/* A Chrome trace of the events in order, each inside its own op. */
static char *
chrome_trace (const Ev *evs, guint n)
{
  GString *s = g_string_new ("{\"traceEvents\": [");

  for (guint i = 0; i < n; i++)
    {
      if (evs[i].op)
        g_string_append_printf (s, "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", "
                                "\"pid\": 1, \"tid\": 1, \"ts\": %u, \"dur\": 8}, ", evs[i].op,
                                i * 10);
      g_string_append_printf (s, "{\"ph\": \"i\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 1, "
                              "\"ts\": %u, \"args\": {\"Addr\": %" G_GUINT64_FORMAT ", \"Bytes\": %"
                              G_GINT64_FORMAT ", \"Device Type\": 0, \"Device Id\": -1}}%s",
                              i * 10 + 4, evs[i].addr, evs[i].bytes, i + 1 < n ? ", " : "");
    }
  g_string_append (s, "]}");
  return g_string_free (s, FALSE);
}

typedef struct
{
  char *dir;
  char *a;
  char *b;
} Pair;

static void
pair_write (Pair *p, const Ev *a, guint na, const Ev *b, guint nb)
{
  g_autofree char *ta = chrome_trace (a, na);
  g_autofree char *tb = chrome_trace (b, nb);

  p->dir = g_dir_make_tmp ("memplan-diff-XXXXXX", NULL);
  p->a = g_build_filename (p->dir, "a.json", NULL);
  p->b = g_build_filename (p->dir, "b.json", NULL);
  g_assert_true (g_file_set_contents (p->a, ta, -1, NULL));
  g_assert_true (g_file_set_contents (p->b, tb, -1, NULL));
}

static void
pair_clear (Pair *p)
{
  g_assert_cmpint (g_remove (p->a), ==, 0);
  g_assert_cmpint (g_remove (p->b), ==, 0);
  g_assert_cmpint (g_rmdir (p->dir), ==, 0);
  g_free (p->a);
  g_free (p->b);
  g_free (p->dir);
}

static MpTraceDiff *
pair_diff (const Pair *p)
{
  g_autoptr (GError) error = NULL;
  MpTraceDiff *diff = mp_trace_diff_files (p->a, p->b, NULL, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (diff);
  return diff;
}

/* The row of op (the first one), or fail. */
static const MpTraceDiffRow *
row_of (const MpTraceDiff *diff, const char *op)
{
  for (guint i = 0; i < diff->rows->len; i++)
    if (g_strcmp0 (g_array_index (diff->rows, MpTraceDiffRow, i).op, op) == 0)
      return &g_array_index (diff->rows, MpTraceDiffRow, i);
  g_assert_not_reached ();
  return NULL;
}

/* The rows account for the whole difference at the peak. */
static void
assert_sums (const MpTraceDiff *diff)
{
  gint64 sum = diff->rest_at_peak;

  for (guint i = 0; i < diff->rows->len; i++)
    sum += g_array_index (diff->rows, MpTraceDiffRow, i).delta_at_peak;
  g_assert_cmpint (sum, ==, diff->peak_delta);
  g_assert_cmpint (diff->peak_delta, ==, (gint64) diff->b.live_peak - (gint64) diff->a.live_peak);
}

static int
run_diff (const Pair *p, const char *tolerance, char **out)
{
  g_autofree char *err = NULL;
  int              status = test_run_cli (out, &err, "diff", p->a, p->b, "--tolerance",
                                          tolerance, NULL);

  g_assert_cmpstr (err, ==, "");
  return status;
}

/* The base run: mm makes 1000 bytes, relu 2000, then both go. */
static const Ev base[] = {
  { "aten::mm", 0x1000, 1000 },
  { "aten::relu", 0x2000, 2000 },
  { NULL, 0x1000, -1000 },
  { NULL, 0x2000, -2000 },
};

/* mm's output grew to 1500 bytes (at another address: addresses do not
 * count): one row, grown, +500 at the peak; relu unchanged. */
static void
test_grown (void)
{
  static const Ev grown[] = {
    { "aten::mm", 0x9000, 1500 },
    { "aten::relu", 0x2000, 2000 },
    { NULL, 0x9000, -1500 },
    { NULL, 0x2000, -2000 },
  };
  Pair                  p;
  g_autoptr (MpTraceDiff) diff = NULL;
  const MpTraceDiffRow *mm, *relu;
  g_autofree char      *out = NULL;

  pair_write (&p, base, G_N_ELEMENTS (base), grown, G_N_ELEMENTS (grown));
  diff = pair_diff (&p);
  g_assert_cmpuint (diff->a.live_peak, ==, 3000);
  g_assert_cmpuint (diff->b.live_peak, ==, 3500);
  g_assert_cmpint (diff->peak_delta, ==, 500);
  g_assert_cmpint (diff->a.peak_step, ==, 1);
  g_assert_cmpint (diff->b.peak_step, ==, 1);
  g_assert_false (diff->has_reserved); /* the CPU has no reserved pool */
  g_assert_cmpuint (diff->rows->len, ==, 2);
  mm = &g_array_index (diff->rows, MpTraceDiffRow, 0);
  g_assert_cmpstr (mm->op, ==, "aten::mm");
  g_assert_cmpint (mm->change, ==, MP_TRACE_DIFF_GROWN);
  g_assert_cmpuint (mm->size_a, ==, 1000);
  g_assert_cmpuint (mm->size_b, ==, 1500);
  g_assert_cmpuint (mm->count_a, ==, 1);
  g_assert_cmpuint (mm->count_b, ==, 1);
  g_assert_cmpuint (mm->at_peak_a, ==, 1000);
  g_assert_cmpuint (mm->at_peak_b, ==, 1500);
  g_assert_cmpint (mm->delta_at_peak, ==, 500);
  g_assert_cmpint (mm->delta, ==, 500);
  relu = row_of (diff, "aten::relu");
  g_assert_cmpint (relu->change, ==, MP_TRACE_DIFF_SAME);
  g_assert_cmpint (relu->delta_at_peak, ==, 0);
  assert_sums (diff);

  /* +500 of 3000 is 16.7%: beyond 10%, within 20%; in bytes, 500 is
   * allowed and 499 is not */
  g_assert_cmpint (run_diff (&p, "10%", &out), ==, 1);
  g_assert_nonnull (strstr (out, "peak: +500 B (+16.7%)"));
  g_assert_nonnull (strstr (out, "1000 B→1.46 KiB grown   aten::mm"));
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (run_diff (&p, "20%", NULL), ==, 0);
  g_assert_cmpint (run_diff (&p, "500", NULL), ==, 0);
  g_assert_cmpint (run_diff (&p, "499", NULL), ==, 1);
  pair_clear (&p);
}

/* A softmax that was not there before: a new row with its 500 bytes, the
 * others unchanged. */
static void
test_new_op (void)
{
  static const Ev added[] = {
    { "aten::mm", 0x1000, 1000 },
    { "aten::relu", 0x2000, 2000 },
    { "aten::softmax", 0x3000, 500 },
    { NULL, 0x3000, -500 },
    { NULL, 0x1000, -1000 },
    { NULL, 0x2000, -2000 },
  };
  Pair                  p;
  g_autoptr (MpTraceDiff) diff = NULL;
  const MpTraceDiffRow *softmax;
  g_autofree char      *json = NULL;

  pair_write (&p, base, G_N_ELEMENTS (base), added, G_N_ELEMENTS (added));
  diff = pair_diff (&p);
  g_assert_cmpint (diff->peak_delta, ==, 500);
  g_assert_cmpint (diff->b.peak_step, ==, 2);
  softmax = &g_array_index (diff->rows, MpTraceDiffRow, 0);
  g_assert_cmpstr (softmax->op, ==, "aten::softmax");
  g_assert_cmpint (softmax->change, ==, MP_TRACE_DIFF_NEW);
  g_assert_cmpuint (softmax->count_a, ==, 0);
  g_assert_cmpuint (softmax->count_b, ==, 1);
  g_assert_cmpuint (softmax->live_b, ==, 1);
  g_assert_cmpint (softmax->delta_at_peak, ==, 500);
  g_assert_cmpint (row_of (diff, "aten::mm")->change, ==, MP_TRACE_DIFF_SAME);
  g_assert_cmpint (row_of (diff, "aten::mm")->delta_at_peak, ==, 0);
  assert_sums (diff);
  g_assert_cmpint (run_diff (&p, "0", NULL), ==, 1);

  /* the JSON says the same */
  json = mp_trace_diff_to_json (diff, p.a, p.b);
  g_assert_nonnull (strstr (json, "\"format\": \"memplan.diff/1\""));
  g_assert_nonnull (strstr (json, "\"peak_delta\": 500"));
  g_assert_nonnull (strstr (json, "\"op\": \"aten::softmax\""));
  g_assert_nonnull (strstr (json, "\"change\": \"new\""));
  g_assert_nonnull (strstr (json, "\"reserved_delta\": null"));
  pair_clear (&p);
}

/* The same allocations, but mm's output now lives until after relu's is
 * made: the peak moved from relu alone (2000 at step 2) to both (3000 at
 * step 1), and the difference is charged to mm, not to relu. */
static void
test_moved_peak (void)
{
  static const Ev before[] = {
    { "aten::mm", 0x1000, 1000 },
    { NULL, 0x1000, -1000 },
    { "aten::relu", 0x2000, 2000 },
    { NULL, 0x2000, -2000 },
  };
  Pair                  p;
  g_autoptr (MpTraceDiff) diff = NULL;
  const MpTraceDiffRow *mm, *relu;

  pair_write (&p, before, G_N_ELEMENTS (before), base, G_N_ELEMENTS (base));
  diff = pair_diff (&p);
  g_assert_cmpuint (diff->a.live_peak, ==, 2000);
  g_assert_cmpint (diff->a.peak_step, ==, 2);
  g_assert_cmpuint (diff->b.live_peak, ==, 3000);
  g_assert_cmpint (diff->b.peak_step, ==, 1);
  mm = row_of (diff, "aten::mm");
  g_assert_cmpint (mm->change, ==, MP_TRACE_DIFF_SAME);
  g_assert_cmpuint (mm->live_a, ==, 0);
  g_assert_cmpuint (mm->live_b, ==, 1);
  g_assert_cmpint (mm->delta_at_peak, ==, 1000);
  g_assert_cmpint (mm->delta, ==, 0);
  relu = row_of (diff, "aten::relu");
  g_assert_cmpint (relu->delta_at_peak, ==, 0);
  g_assert_true (mm == &g_array_index (diff->rows, MpTraceDiffRow, 0));
  assert_sums (diff);
  /* the other way round, B's peak is lower: exit status 0 */
  {
    Pair back = { NULL };

    pair_write (&back, base, G_N_ELEMENTS (base), before, G_N_ELEMENTS (before));
    g_assert_cmpint (run_diff (&back, "0", NULL), ==, 0);
    pair_clear (&back);
  }
  pair_clear (&p);
}

/* Graphs compare their live bytes over the op order, tensors charged to
 * the op that writes them; random record sets keep the sums exact. */
static void
test_random_sums (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (31);

  for (guint round = 0; round < 20; round++)
    {
      g_autoptr (MpInput) a = g_new0 (MpInput, 1);
      g_autoptr (MpInput) b = g_new0 (MpInput, 1);
      g_autoptr (GError) error = NULL;
      g_autoptr (MpTraceDiff) diff = NULL;
      g_autoptr (MpLifetimes) lt = NULL;

      a->format = b->format = MP_INPUT_USAGE_CSV;
      a->graph = test_random_records (rand, 50, 40, 10);
      b->graph = test_random_records (rand, 50, 40, 10);
      diff = mp_trace_diff (a, b, NULL, &error);
      g_assert_no_error (error);
      assert_sums (diff);
      lt = mp_lifetimes_compute (a->graph, NULL, NULL);
      g_assert_cmpuint (diff->a.live_peak, ==, lt->lower_bound);
      g_assert_cmpuint (diff->a.n_allocations, ==, lt->n_records);
    }
}

/* Bad input: the file at fault named, exit status 2. */
static void
test_bad_input (void)
{
  g_autofree char *dir = g_dir_make_tmp ("memplan-diff-XXXXXX", NULL);
  g_autofree char *good = g_build_filename (dir, "good.json", NULL);
  g_autofree char *bad = g_build_filename (dir, "bad.json", NULL);
  g_autofree char *text = chrome_trace (base, G_N_ELEMENTS (base));
  g_autofree char *err = NULL;

  g_assert_true (g_file_set_contents (good, text, -1, NULL));
  g_assert_true (g_file_set_contents (bad, "{\"traceEvents\": [", -1, NULL));
  g_assert_cmpint (test_run_cli (NULL, &err, "diff", good, bad, NULL), ==, 2);
  g_assert_nonnull (strstr (err, bad));
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (test_run_cli (NULL, &err, "diff", good, "/nonexistent/b.json", NULL), ==, 2);
  g_assert_nonnull (strstr (err, "/nonexistent/b.json"));
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (test_run_cli (NULL, &err, "diff", good, good, "--tolerance", "lots", NULL), ==,
                   2);
  g_assert_cmpstr (err, ==, "memplan-cli: --tolerance takes a percentage such as 5% or a size "
                            "such as 64M, not 'lots'\n");
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (test_run_cli (NULL, &err, "diff", good, NULL), ==, 2);
  g_assert_cmpint (g_remove (good), ==, 0);
  g_assert_cmpint (g_remove (bad), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* The recorded pairs (build-aux/record-torch-samples.py): a small
 * transformer's training step before and after activation checkpointing,
 * and one step against five. */
static void
test_recorded (void)
{
  g_autofree char *one = test_data_path ("torch/small-transformer-1step.json.gz");
  g_autofree char *ckpt = test_data_path ("torch/small-transformer-checkpoint.json.gz");
  g_autofree char *five = test_data_path ("torch/small-transformer-5steps.json.gz");
  g_autoptr (GError) error = NULL;
  g_autoptr (MpTraceDiff) diff = mp_trace_diff_files (one, ckpt, NULL, NULL, &error);
  g_autoptr (MpTraceDiff) steps = NULL;

  g_assert_no_error (error);
  /* checkpointing keeps fewer activations: a lower peak, charged to the
   * ops whose outputs are no longer held */
  g_assert_cmpint (diff->peak_delta, <, 0);
  g_assert_cmpint (g_array_index (diff->rows, MpTraceDiffRow, 0).delta_at_peak, <, 0);
  assert_sums (diff);
  steps = mp_trace_diff_files (one, five, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (steps->b.n_allocations, ==, 5 * steps->a.n_allocations);
  assert_sums (steps);
}

/* Issue 31: the observed figure of a CPU trace must not grow with the
 * trace's length; one step and five of the same model (recorded) agree
 * within 10%. The live peaks do; the observed layout does not yet
 * (malloc's address ranges, merged over more steps, are placed as wider
 * spans: issue 33 item 13), so that part is reported as a TODO. */
static void
test_steps_observed (void)
{
  const char *names[2] = { "torch/small-transformer-1step.json.gz",
                           "torch/small-transformer-5steps.json.gz" };
  guint64     live[2], observed[2];

  for (guint i = 0; i < 2; i++)
    {
      g_autofree char *path = test_data_path (names[i]);
      g_autoptr (GError) error = NULL;
      g_autoptr (MpTrace) trace = mp_trace_load (path, NULL, &error);
      g_autoptr (MpLifetimes) lt = NULL;
      g_autoptr (MpPlan) plan = NULL;

      g_assert_no_error (error);
      g_assert_false (trace->has_arena);
      lt = mp_lifetimes_compute (trace->graph, NULL, &error);
      g_assert_no_error (error);
      plan = mp_trace_observed_plan (trace, lt);
      live[i] = trace->live_peak;
      observed[i] = plan->arena;
    }
  /* the same peak of live bytes, and an observed figure that does not
   * grow with the steps (issue 31: equal within 10 %) */
  g_assert_cmpuint (live[1] * 10, <=, live[0] * 11);
  g_assert_cmpuint (live[0] * 10, <=, live[1] * 11);
  g_assert_cmpuint (observed[1] * 10, <=, observed[0] * 11);
  g_assert_cmpuint (observed[0] * 10, <=, observed[1] * 11);
  g_assert_cmpuint (observed[0], >=, live[0]);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analysis/trace-diff/grown", test_grown);
  g_test_add_func ("/analysis/trace-diff/new-op", test_new_op);
  g_test_add_func ("/analysis/trace-diff/moved-peak", test_moved_peak);
  g_test_add_func ("/analysis/trace-diff/random-sums", test_random_sums);
  g_test_add_func ("/analysis/trace-diff/bad-input", test_bad_input);
  g_test_add_func ("/analysis/trace-diff/recorded", test_recorded);
  g_test_add_func ("/analysis/trace-diff/steps-observed", test_steps_observed);
  return g_test_run ();
}
