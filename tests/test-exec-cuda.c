/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The CUDA backend on a real device: the same verdicts and the same words
 * as the CPU backend on every sample graph and planner, a deliberate
 * corruption caught by name, a racy multi-stream plan caught in the
 * staggered iterations, honest figures. Where no device is usable it
 * reports the whole program skipped, with the reason. */
#include <stdio.h>
#include <string.h>

#include "memplan-exec.h"
#include "test-exec-util.h"

static const char *samples[] = { "default.json", "teaching.json", "two-towers.json",
                                 "multistream.json" };

static MpExecResult *
run_on (const Loaded *l, const MpPlan *plan, MpExecBackendKind backend, gboolean sequential,
        gboolean baselines)
{
  MpExecOptions opts = { .backend = backend, .sequential = sequential, .baselines = baselines };
  GError       *error = NULL;
  MpExecResult *r = mp_exec_run (l->graph, l->lt, plan, &opts, NULL, &error);

  g_assert_no_error (error);
  g_assert_cmpstr (r->backend, ==, backend == MP_EXEC_BACKEND_CUDA ? "cuda" : "cpu");
  return r;
}

/* One op at a time the run is deterministic: both backends must agree on
 * the verdict, the count and the words, for the plan as made and broken. */
static void
test_same_verdicts (void)
{
  guint                n;
  const MpPlannerInfo *all = mp_planners (&n);

  for (guint s = 0; s < G_N_ELEMENTS (samples); s++)
    {
      g_auto (Loaded) l = { 0 };

      if (!load_sample (&l, samples[s]))
        continue;
      for (guint i = 0; i < n; i++)
        for (guint broken = 0; broken < 2; broken++)
          {
            g_autoptr (MpPlan) plan = plan_with (&l, all[i].name);
            g_autoptr (MpExecResult) cpu = NULL;
            g_autoptr (MpExecResult) cuda = NULL;

            if (broken && !mp_exec_corrupt_plan (l.graph, plan, NULL, NULL, NULL, NULL))
              continue;
            cpu = run_on (&l, plan, MP_EXEC_BACKEND_CPU, TRUE, FALSE);
            cuda = run_on (&l, plan, MP_EXEC_BACKEND_CUDA, TRUE, FALSE);
            g_test_message ("%s / %s%s: %s", samples[s], all[i].name, broken ? " broken" : "",
                            cuda->first_corruption ? cuda->first_corruption : "clean");
            g_assert_cmpuint (cuda->n_corrupted, ==, cpu->n_corrupted);
            g_assert_cmpuint (cuda->n_corrupted > 0, ==, broken);
            g_assert_cmpstr (cuda->first_corruption, ==, cpu->first_corruption);
            g_assert_cmpuint (cuda->bytes_moved, ==, cpu->bytes_moved);
            g_assert_cmpuint (cuda->planned, ==, cpu->planned);
          }
    }
}

/* The corruption the CPU test names, named the same on the device. */
static void
test_corrupt_by_name (void)
{
  g_auto (Loaded) l = { 0 };
  g_autoptr (MpPlan) plan = NULL;
  g_autoptr (MpExecResult) r = NULL;
  g_autofree char *moved = NULL;
  g_autofree char *victim = NULL;
  GError          *error = NULL;

  load_sample (&l, "two-towers.json");
  plan = plan_with (&l, "naive");
  g_assert_true (mp_exec_corrupt_plan (l.graph, plan, "left.h", &moved, &victim, &error));
  g_assert_no_error (error);
  r = run_on (&l, plan, MP_EXEC_BACKEND_CUDA, TRUE, FALSE);
  g_assert_cmpstr (r->first_corruption, ==, "op 'right.fc1' found tensor 'emb' corrupted at "
                                            "byte 0: overwritten by tensor 'left.h'");
  g_assert_cmpstr (l.graph->tensors[r->first_overwriter].name, ==, "left.h");
}

/* An op-order plan on concurrent streams: left.h and right.h share an
 * offset, written in one parallel group; the staggered iterations catch
 * it whatever the free run did. multistream's own plan stays clean. */
static void
test_race_caught (void)
{
  g_auto (Loaded) l = { 0 };
  g_autoptr (MpPlan) greedy = NULL;
  g_autoptr (MpPlan) ms = NULL;
  g_autoptr (MpExecResult) r = NULL;
  g_autoptr (MpExecResult) rm = NULL;

  load_sample (&l, "two-towers.json");
  greedy = plan_with (&l, "greedy-by-size");
  r = run_on (&l, greedy, MP_EXEC_BACKEND_CUDA, FALSE, FALSE);
  g_assert_true (r->concurrent);
  g_assert_cmpuint (r->iterations, ==, 3);
  g_assert_cmpuint (r->n_corrupted, >=, 1);
  g_assert_true (strstr (r->first_corruption, "'left.h'") && strstr (r->first_corruption,
                                                                     "'right.h'"));
  ms = plan_with (&l, "multistream");
  rm = run_on (&l, ms, MP_EXEC_BACKEND_CUDA, FALSE, FALSE);
  g_assert_cmpuint (rm->n_corrupted, ==, 0);
}

/* The case on the device: two dead tensors of one parallel group
 * at one offset are caught after the group's barrier, in every iteration
 * kind, as validate's concurrent verdict says; one op at a time, clean. */
static void
test_two_dead_tensors (void)
{
  g_auto (Loaded) l = { 0 };
  g_autoptr (MpPlan) plan = NULL;
  g_autoptr (MpExecResult) r = NULL;
  g_autoptr (MpExecResult) seq = NULL;
  MpExecOptions opts = { .backend = MP_EXEC_BACKEND_CUDA, .iterations = 50, .no_stagger = TRUE };
  GError       *error = NULL;

  load_json (&l, two_dead_json);
  plan = two_dead_plan (l.graph, l.lt);
  r = mp_exec_run (l.graph, l.lt, plan, &opts, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (r->n_corrupted, >=, 1);
  g_assert_true (g_str_has_prefix (r->first_corruption, "after parallel group 0 (ops 'a', 'b') "
                                                        "ran, tensor 't"));
  seq = run_on (&l, plan, MP_EXEC_BACKEND_CUDA, TRUE, FALSE);
  g_assert_cmpuint (seq->n_corrupted, ==, 0);
}

/* Kernel time, peak, launches, memory; the baselines run after the plan's
 * arena is freed and each has its row. */
static void
test_figures (void)
{
  g_auto (Loaded) l = { 0 };
  g_autoptr (MpPlan) plan = NULL;
  g_autoptr (MpExecResult) r = NULL;

  load_sample (&l, "default.json");
  plan = plan_with (&l, "greedy-by-size");
  r = run_on (&l, plan, MP_EXEC_BACKEND_CUDA, TRUE, TRUE);
  g_assert_cmpuint (r->n_corrupted, ==, 0);
  g_assert_cmpfloat (r->seconds, >, 0);
  g_assert_cmpuint (r->peak_bandwidth, >, 0);
  /* no more launches than pattern regions: the capture is folded in */
  g_assert_cmpuint (r->launches, >, 0);
  g_assert_cmpuint (r->measured, >=, r->arena);
  /* the device memory the run held: at least the buffers it planned */
  g_assert_cmpuint (r->process_peak, >=, r->planned);
  g_assert_cmpuint (r->timed_iterations, ==, 1);
  g_assert_cmpuint (r->baselines->len, >=, 5);
  for (guint i = 0; i < r->baselines->len; i++)
    {
      const MpExecFigure *f = &g_array_index (r->baselines, MpExecFigure, i);

      g_test_message ("%s: %" G_GUINT64_FORMAT " %s", f->label, f->bytes,
                      f->error ? f->error : "");
      g_assert_null (f->error);
      g_assert_cmpuint (f->bytes, >, 0);
    }
}

/* A device that is not there is named as such. */
static void
test_bad_device (void)
{
  g_auto (Loaded) l = { 0 };
  g_autoptr (MpPlan) plan = NULL;
  MpExecOptions opts = { .backend = MP_EXEC_BACKEND_CUDA, .pick_device = TRUE, .device = 999 };
  GError       *error = NULL;

  load_sample (&l, "teaching.json");
  plan = plan_with (&l, "naive");
  g_assert_null (mp_exec_run (l.graph, l.lt, plan, &opts, NULL, &error));
  g_assert_error (error, MP_EXEC_ERROR, MP_EXEC_ERROR_UNAVAILABLE);
  g_assert_true (g_str_has_prefix (error->message, "no CUDA device 999: this machine has "));
  g_clear_error (&error);
}

int
main (int argc, char **argv)
{
  g_autofree char *reason = NULL;

  /* TAP's own way to skip a whole program (exit 77 would be an error) */
  if (!mp_exec_cuda_available (&reason))
    {
      printf ("1..0 # SKIP %s\n", reason);
      return 0;
    }
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/exec/cuda/same-verdicts", test_same_verdicts);
  g_test_add_func ("/exec/cuda/corrupt-by-name", test_corrupt_by_name);
  g_test_add_func ("/exec/cuda/race-caught", test_race_caught);
  g_test_add_func ("/exec/cuda/two-dead-tensors-one-group", test_two_dead_tensors);
  g_test_add_func ("/exec/cuda/figures", test_figures);
  g_test_add_func ("/exec/cuda/bad-device", test_bad_device);
  return g_test_run ();
}
