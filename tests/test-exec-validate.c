/* SPDX-License-Identifier: GPL-3.0-or-later */
/* exec is as strict as validate: on random graphs (views, several outputs
 * per op, tensors nobody reads, outputs, two streams) and random plans
 * whose offsets are moved onto each other (often overlapping, at any byte,
 * aligned or not), the CPU backend reports corruption exactly when the
 * validator rejects the plan under the schedule it ran: one op at a time
 * (op order, or group by group for a plan made for the parallel schedule)
 * and with the streams concurrent (the parallel schedule), and names a
 * pair of tensors that the validator too finds overlapping. */
#include <string.h>

#include "memplan-exec.h"
#include "test-exec-util.h"

#define N_GRAPHS 250
#define N_PLANS  6

/* A graph of 3 to 10 ops, each reading up to two earlier tensors and
 * writing one or two new ones; a quarter of the outputs are views of an
 * earlier activation, made (as a view op is) by an op that reads that
 * activation; a few are graph outputs. */
static char *
random_graph_json (GRand *rand, gboolean two_streams)
{
  g_autoptr (GString) tensors = g_string_new (NULL);
  g_autoptr (GString) ops = g_string_new (NULL);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GArray) sizes = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GArray) roots = g_array_new (FALSE, FALSE, sizeof (gboolean));
  guint n_ops = g_rand_int_range (rand, 3, 11);
  guint x_size = 64;

  g_string_append_printf (tensors, "{\"name\": \"x\", \"size\": %u, \"kind\": \"input\"}", x_size);
  g_ptr_array_add (names, g_strdup ("x"));
  g_array_append_val (sizes, x_size);
  g_array_append_val (roots, (gboolean) { FALSE });
  for (guint o = 0; o < n_ops; o++)
    {
      guint n_in = g_rand_int_range (rand, 0, 3);
      guint n_out = g_rand_int_range (rand, 1, 3);
      g_autoptr (GString) viewed = g_string_new (NULL);
      GString *outs;
      guint    n_before = names->len;

      g_string_append_printf (ops, "%s{\"name\": \"op%u\", \"stream\": %u, \"inputs\": [",
                              o ? ", " : "", o, two_streams ? g_rand_int_range (rand, 0, 2) : 0);
      for (guint k = 0; k < n_in; k++)
        g_string_append_printf (ops, "%s\"%s\"", k ? ", " : "",
                                (char *) names->pdata[g_rand_int_range (rand, 0, names->len)]);
      outs = g_string_new (NULL);
      for (guint k = 0; k < n_out; k++)
        {
          g_autofree char *name = g_strdup_printf ("t%u_%u", o, k);
          guint            base = g_rand_int_range (rand, 0, n_before);
          guint            size;

          if (g_rand_int_range (rand, 0, 4) == 0 && g_array_index (roots, gboolean, base))
            {
              /* a view: 8-aligned offset, inside its base */
              guint base_size = g_array_index (sizes, guint, base);
              guint offset = 8 * g_rand_int_range (rand, 0, base_size / 8);

              size = g_rand_int_range (rand, 1, base_size - offset + 1);
              g_string_append_printf (tensors, ", {\"name\": \"%s\", \"view_of\": \"%s\", "
                                               "\"offset\": %u, \"size\": %u}", name,
                                      (char *) names->pdata[base], offset, size);
              g_array_append_val (roots, (gboolean) { FALSE });
              g_string_append_printf (viewed, "%s\"%s\"", n_in || viewed->len ? ", " : "",
                                      (char *) names->pdata[base]);
            }
          else
            {
              size = g_rand_int_range (rand, 8, 600);
              g_string_append_printf (tensors, ", {\"name\": \"%s\", \"size\": %u%s}", name, size,
                                      g_rand_int_range (rand, 0, 6) == 0
                                        ? ", \"kind\": \"output\"" : "");
              g_array_append_val (roots, (gboolean) { TRUE });
            }
          g_string_append_printf (outs, "%s\"%s\"", k ? ", " : "", name);
          g_ptr_array_add (names, g_steal_pointer (&name));
          g_array_append_val (sizes, size);
        }
      g_string_append_printf (ops, "%s], \"outputs\": [%s]}", viewed->str, outs->str);
      g_string_free (outs, TRUE);
    }
  return g_strdup_printf ("{\"format\": \"memplan.graph/1\", \"name\": \"random\", "
                          "\"alignment\": 16, \"tensors\": [%s], \"ops\": [%s]}",
                          tensors->str, ops->str);
}

/* Moves one to three records: onto another record shifted by a few bytes
 * (any byte: the plan's alignment is set to 1, so that the validator judges
 * overlap alone, as exec does), or anywhere below the arena; or none. */
static void
corrupt (GRand *rand, MpPlan *plan)
{
  guint n = g_rand_int_range (rand, 0, 4);

  plan->alignment = 1;
  for (guint k = 0; plan->n_records >= 2 && k < n; k++)
    {
      guint   x = g_rand_int_range (rand, 0, plan->n_records);
      guint   y = g_rand_int_range (rand, 0, plan->n_records);
      gint64  at;

      if (g_rand_int_range (rand, 0, 3))
        at = (gint64) plan->offsets[y] + g_rand_int_range (rand, -12, 13);
      else
        at = g_rand_int_range (rand, 0, plan->arena + 1);
      plan->offsets[x] = MAX (at, 0);
    }
  mp_plan_finish (plan);
  plan->checked = FALSE;
}

static char *
pair_key (const char *x, const char *y)
{
  return strcmp (x, y) < 0 ? g_strdup_printf ("%s/%s", x, y) : g_strdup_printf ("%s/%s", y, x);
}

/* Every pair of records live together and overlapping in bytes, as
 * "a/b" strings of their tensor names (sorted), by brute force. */
static GHashTable *
conflicts (const MpGraph *graph, const MpUsage *records, const MpPlan *plan)
{
  GHashTable *set = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint i = 0; i < plan->n_records; i++)
    for (guint j = i + 1; j < plan->n_records; j++)
      {
        const MpUsage *a = &records[i], *b = &records[j];

        if (a->first <= b->last && b->first <= a->last && a->bytes && b->bytes &&
            plan->offsets[i] < plan->offsets[j] + b->bytes &&
            plan->offsets[j] < plan->offsets[i] + a->bytes)
          g_hash_table_add (set, pair_key (graph->tensors[a->tensor].name,
                                           graph->tensors[b->tensor].name));
      }
  return set;
}

/* The pair a validator message names: "tensors 'a' (…) and 'b' (…) …". */
static char *
validator_pair (const char *message)
{
  g_auto (GStrv) parts = g_strsplit (message, "'", 5);

  g_assert_true (g_str_has_prefix (message, "tensors '"));
  g_assert_cmpuint (g_strv_length (parts), ==, 5);
  return pair_key (parts[1], parts[3]);
}

typedef struct
{
  guint plans, rejected, unique, misaligned;
} Tally;

static void
check_plan (const MpGraph *graph, const MpLifetimes *lt, MpPlan *plan, const MpSchedule *parallel,
            gboolean sequential, const char *json, Tally *tally)
{
  /* three iterations, three tags: a one-byte overlap where two patterns
   * agree by chance (1 in 256) is missed by all three 1 in 2^24 times */
  MpExecOptions opts = { .backend = MP_EXEC_BACKEND_CPU, .sequential = sequential,
                         .iterations = 3 };
  g_autoptr (GError) verror = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (MpExecResult) r = NULL;
  g_autofree MpUsage *group_records = mp_schedule_usage (parallel, graph, plan->records,
                                                         plan->n_records);
  /* one op at a time, an op-order plan is judged in op order; everything
   * else under the parallel schedule (group by group, or concurrently) */
  gboolean by_ops = sequential && !plan->parallel;
  gboolean valid = by_ops ? mp_validate_records (graph, plan->records, plan->n_records,
                                                 plan->offsets, 1, plan->arena, &verror)
                          : mp_validate_schedule (graph, plan, parallel, &verror);
  g_autoptr (GHashTable) set = conflicts (graph, by_ops ? plan->records : group_records, plan);
  g_autofree char *exec_pair = NULL;

  r = mp_exec_run (graph, lt, plan, &opts, NULL, &error);
  g_assert_no_error (error);
  if (valid != (r->n_corrupted == 0) || (r->n_corrupted && r->first_overwriter < 0))
    {
      g_autoptr (GString) offsets = g_string_new (NULL);

      for (guint i = 0; i < plan->n_records; i++)
        g_string_append_printf (offsets, " %s@%" G_GUINT64_FORMAT,
                                graph->tensors[plan->records[i].tensor].name, plan->offsets[i]);
      g_test_message ("graph %s\nplan %s (%s):%s\nvalidate: %s\nexec: %s", json, plan->planner,
                      sequential ? "sequential" : "concurrent", offsets->str,
                      valid ? "valid" : verror->message,
                      r->first_corruption ? r->first_corruption : "clean");
    }
  tally->plans++;
  for (guint i = 0; i < plan->n_records; i++)
    tally->misaligned += plan->offsets[i] % 8 != 0;
  /* the brute force agrees with the validator, and exec with both */
  g_assert_cmpint (valid, ==, g_hash_table_size (set) == 0);
  g_assert_cmpint (valid, ==, r->n_corrupted == 0);
  if (valid)
    return;
  tally->rejected++;
  g_assert_cmpint (r->first_tensor, >=, 0);
  g_assert_cmpint (r->first_overwriter, >=, 0);
  exec_pair = pair_key (graph->tensors[mp_graph_view_root (graph, r->first_tensor, NULL)].name,
                        graph->tensors[r->first_overwriter].name);
  g_assert_true (g_hash_table_contains (set, exec_pair));
  if (g_hash_table_size (set) == 1)
    {
      g_autofree char *vpair = validator_pair (verror->message);

      g_assert_cmpstr (exec_pair, ==, vpair);
      tally->unique++;
    }
}

static void
test_exec_iff_validate (gconstpointer data)
{
  gboolean          parallel_plans = GPOINTER_TO_INT (data);
  g_autoptr (GRand) rand = g_rand_new_with_seed (parallel_plans ? 2027 : 2026);
  const char       *planner = parallel_plans ? "multistream" : "greedy-by-size";
  Tally             seq = { 0 }, conc = { 0 };

  for (guint gi = 0; gi < N_GRAPHS; gi++)
    {
      g_autofree char *json = random_graph_json (rand, TRUE);
      g_autoptr (GError) error = NULL;
      g_autoptr (MpGraph) graph = mp_graph_parse_json (json, strlen (json), "random.json",
                                                       &error);
      g_autoptr (MpLifetimes) lt = NULL;
      g_autoptr (MpSchedule) parallel = NULL;

      g_assert_no_error (error);
      lt = mp_lifetimes_compute (graph, NULL, &error);
      g_assert_no_error (error);
      parallel = mp_schedule_parallel (graph, 0);
      for (guint pi = 0; pi < N_PLANS; pi++)
        {
          MpPlannerOptions popts = { 0 };
          g_autoptr (MpPlan) plan = mp_planner_run (mp_planner_lookup (planner), graph, lt,
                                                    &popts, NULL, &error);

          g_assert_no_error (error);
          corrupt (rand, plan);
          check_plan (graph, lt, plan, parallel, TRUE, json, &seq);
          check_plan (graph, lt, plan, parallel, FALSE, json, &conc);
        }
    }
  /* the property is only worth something if both sides are exercised */
  g_test_message ("one op at a time: %u plans, %u rejected (%u with one overlapping pair); "
                  "concurrent: %u plans, %u rejected (%u with one pair); %u misaligned offsets",
                  seq.plans, seq.rejected, seq.unique, conc.plans, conc.rejected, conc.unique,
                  seq.misaligned);
  for (guint k = 0; k < 2; k++)
    {
      const Tally *t = k ? &conc : &seq;

      g_assert_cmpuint (t->rejected, >=, t->plans / 4);
      g_assert_cmpuint (t->plans - t->rejected, >=, t->plans / 10);
      g_assert_cmpuint (t->unique, >=, t->rejected / 10);
    }
  g_assert_cmpuint (seq.misaligned, >=, seq.plans / 4);
}

/* The case of the issue: on the chain of data/teaching.json every tensor
 * is laid over the one its op reads; nothing else is ever live with it. */
static void
test_in_op_overlap (void)
{
  g_autofree char *path = test_data_path ("teaching.json");
  g_autoptr (GError) error = NULL;
  g_autoptr (MpGraph) graph = test_graph_load (path, &error);
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, &error);
  g_autoptr (MpPlan) plan = mp_plan_new ("by-hand", lt);
  g_autoptr (MpExecResult) r = NULL;
  MpExecOptions opts = { .backend = MP_EXEC_BACKEND_CPU };

  g_assert_no_error (error);
  for (guint i = 0; i < plan->n_records; i++)
    plan->offsets[i] = 0;
  mp_plan_finish (plan);
  g_assert_false (mp_plan_judge (graph, NULL, plan));
  r = mp_exec_run (graph, lt, plan, &opts, NULL, &error);
  g_assert_no_error (error);
  /* conv_out, relu_out, pool_out and logits, each by the next op's output */
  g_assert_cmpuint (r->n_corrupted, ==, 4);
  g_assert_cmpstr (r->first_corruption, ==, "after op 'relu' ran, tensor 'conv_out' was "
                                            "corrupted at byte 0: overwritten by tensor "
                                            "'relu_out'");

  /* misaligned, each tensor 3 bytes into the one before: still named, in
   * every one of 4 iterations */
  for (guint i = 0; i < plan->n_records; i++)
    plan->offsets[i] = 3 * i;
  plan->alignment = 1;
  mp_plan_finish (plan);
  g_assert_false (mp_plan_judge (graph, NULL, plan));
  g_clear_pointer (&r, mp_exec_result_free);
  opts.iterations = 4;
  r = mp_exec_run (graph, lt, plan, &opts, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (r->n_corrupted, >=, 1);
  g_assert_nonnull (strstr (r->first_corruption, "overwritten by tensor '"));
}

/* The regression: two tensors nobody reads, written in one parallel
 * group on two streams at one offset. validate: valid in op order, INVALID
 * when the streams run concurrently; exec must say the same, in the free
 * run and every staggered one, over 3 and 50 iterations. */
static void
test_two_dead_tensors (void)
{
  g_autoptr (MpGraph) graph = test_graph_load_string (two_dead_json, "two-dead.json");
  g_autoptr (GError) error = NULL;
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, &error);
  g_autoptr (MpSchedule) parallel = mp_schedule_parallel (graph, 0);
  g_autoptr (MpPlan) plan = two_dead_plan (graph, lt);
  static const guint iterations[] = { 0, 3, 50 };

  g_assert_no_error (error);
  g_assert_true (mp_plan_judge (graph, NULL, plan));
  g_assert_false (mp_validate_schedule (graph, plan, parallel, &error));
  g_assert_true (g_str_has_prefix (error->message, "tensors 't1' (offset 0, 256 bytes, parallel "
                                                   "groups 0-0) and 't2'"));
  g_clear_error (&error);

  for (guint k = 0; k < G_N_ELEMENTS (iterations); k++)
    for (guint stagger = 0; stagger < 2; stagger++)
      {
        MpExecOptions opts = { .backend = MP_EXEC_BACKEND_CPU, .iterations = iterations[k],
                               .no_stagger = !stagger };
        g_autoptr (MpExecResult) r = mp_exec_run (graph, lt, plan, &opts, NULL, &error);

        g_assert_no_error (error);
        g_assert_true (r->concurrent);
        /* whichever write lands last, the other tensor is found overwritten */
        g_assert_cmpuint (r->n_corrupted, >=, 1);
        g_assert_true (g_str_has_prefix (r->first_corruption, "after parallel group 0 (ops 'a', "
                                                              "'b') ran, tensor 't"));
        g_assert_true (g_str_has_suffix (r->first_corruption, "was corrupted at byte 0: "
                                                              "overwritten by tensor 't1'") ||
                       g_str_has_suffix (r->first_corruption, "was corrupted at byte 0: "
                                                              "overwritten by tensor 't2'"));
        g_assert_cmpint (r->first_op, ==, -1);
        g_assert_cmpint (r->first_tensor + r->first_overwriter, ==, 1 + 2);
      }

  /* one op at a time, in op order, the plan is valid and exec is clean */
  {
    MpExecOptions opts = { .backend = MP_EXEC_BACKEND_CPU, .sequential = TRUE, .iterations = 3 };
    g_autoptr (MpExecResult) r = mp_exec_run (graph, lt, plan, &opts, NULL, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (r->n_corrupted, ==, 0);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/exec/validate/in-op-overlap", test_in_op_overlap);
  g_test_add_func ("/exec/validate/two-dead-tensors-one-group", test_two_dead_tensors);
  g_test_add_data_func ("/exec/validate/random/op-order-plans", GINT_TO_POINTER (FALSE),
                        test_exec_iff_validate);
  g_test_add_data_func ("/exec/validate/random/parallel-plans", GINT_TO_POINTER (TRUE),
                        test_exec_iff_validate);
  return g_test_run ();
}
