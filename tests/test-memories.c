/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Several memories (issue 28): a graph's "memories" and a tensor's
 * "memory" read, refused with the key named, written back; the spill rule
 * on a hand-worked graph, pinned tensors, and the per-memory plans a
 * front-end draws. */
#include <string.h>

#include "graph.h"
#include "lifetimes.h"
#include "memories.h"
#include "mp-error.h"
#include "planner.h"

/* a, b, c of 64 B in a chain: a live at steps 0-1, b 1-2, c 2. */
#define CHAIN_HEAD "{\"format\":\"memplan.graph/1\",\"name\":\"chain\",\"alignment\":1,"
#define CHAIN_TAIL                                                                                 \
  "\"ops\":[{\"name\":\"f\",\"inputs\":[],\"outputs\":[\"a\"]},"                                  \
  "{\"name\":\"g\",\"inputs\":[\"a\"],\"outputs\":[\"b\"]},"                                       \
  "{\"name\":\"h\",\"inputs\":[\"b\"],\"outputs\":[\"c\"]}]}"

static const char chain_json[] =
  CHAIN_HEAD "\"memories\":[{\"name\":\"sram\",\"capacity\":64},{\"name\":\"psram\"}],"
  "\"tensors\":[{\"name\":\"a\",\"size\":64},{\"name\":\"b\",\"size\":64},"
  "{\"name\":\"c\",\"size\":64}]," CHAIN_TAIL;

static const char pinned_json[] =
  CHAIN_HEAD "\"memories\":[{\"name\":\"sram\",\"capacity\":128},{\"name\":\"psram\"}],"
  "\"tensors\":[{\"name\":\"a\",\"size\":64},{\"name\":\"b\",\"size\":64,\"memory\":\"psram\"},"
  "{\"name\":\"c\",\"size\":64}]," CHAIN_TAIL;

static MpGraph *
parse (const char *json, GError **error)
{
  return mp_graph_parse_json (json, strlen (json), "g.json", error);
}

static MpSpill *
spill_graph (const MpGraph *graph, MpLifetimes **lt, const MpMemory *memories, guint n,
             GError **error)
{
  MpLifetimeOptions opts = { 0 };
  MpPlannerOptions  options = { 0 };

  *lt = mp_lifetimes_compute (graph, &opts, error);
  g_assert_nonnull (*lt);
  return mp_spill_plan (graph, *lt, mp_planner_lookup ("greedy-by-size"), memories, n, &options,
                        NULL, error);
}

static guint
memory_of (const MpSpill *spill, const MpGraph *graph, const MpLifetimes *lt, const char *name)
{
  return mp_spill_memory_of_tensor (spill, graph, lt, mp_graph_find_tensor (graph, name));
}

static void
test_read_write (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MpGraph) graph = parse (pinned_json, &error);
  g_autoptr (MpGraph) again = NULL;
  g_autofree char *text = NULL, *text2 = NULL;

  g_assert_no_error (error);
  g_assert_cmpuint (graph->n_memories, ==, 2);
  g_assert_cmpstr (graph->memories[0].name, ==, "sram");
  g_assert_cmpuint (graph->memories[0].capacity, ==, 128);
  g_assert_cmpstr (graph->memories[1].name, ==, "psram");
  g_assert_cmpuint (graph->memories[1].capacity, ==, 0);
  g_assert_cmpuint (graph->tensors[0].memory, ==, 0);
  g_assert_cmpuint (graph->tensors[1].memory, ==, 2);
  text = mp_graph_to_json (graph);
  g_assert_nonnull (strstr (text, "\"capacity\": 128"));
  g_assert_nonnull (strstr (text, "\"memory\": \"psram\""));
  again = parse (text, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (again->n_memories, ==, 2);
  g_assert_cmpstr (again->memories[1].name, ==, "psram");
  g_assert_cmpuint (again->memories[0].capacity, ==, 128);
  g_assert_cmpuint (again->tensors[1].memory, ==, 2);
  text2 = mp_graph_to_json (again);
  g_assert_cmpstr (text, ==, text2);
}

/* The two-pass reader (members in another order) reads the same. */
static void
test_any_order (void)
{
  static const char json[] =
    "{\"tensors\":[{\"name\":\"a\",\"size\":64,\"memory\":\"psram\"}],\"format\":"
    "\"memplan.graph/1\",\"ops\":[],\"memories\":[{\"name\":\"sram\",\"x-speed\":1},"
    "{\"name\":\"psram\",\"capacity\":4096}]}";
  g_autoptr (GError) error = NULL;
  g_autoptr (MpGraph) graph = parse (json, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (graph->n_memories, ==, 2);
  g_assert_cmpuint (graph->memories[1].capacity, ==, 4096);
  g_assert_cmpuint (graph->tensors[0].memory, ==, 2);
}

static void
test_bad_input (void)
{
  static const struct
  {
    const char *memories; /* the "memories" member, or "" */
    const char *memory;   /* a's extra keys */
    const char *message;
  } cases[] = {
    { "", ",\"memory\":\"sram\"",
      "g.json: tensor 'a': \"memory\" 'sram' is not declared: the graph has no \"memories\" list" },
    { "\"memories\":[{\"name\":\"sram\"}],", ",\"memory\":\"dram\"",
      "g.json: tensor 'a': \"memory\" 'dram' is not among the graph's \"memories\" (sram)" },
    { "\"memories\":[{\"name\":\"sram\"}],", ",\"memory\":7",
      "g.json: tensor 'a': \"memory\" must be a memory's name" },
    { "\"memories\":[{\"name\":\"sram\"},{\"name\":\"sram\"}],", "",
      "g.json: memories[1]: memory 'sram' is declared twice" },
    { "\"memories\":[{\"name\":\"sram\",\"capacity\":0}],", "",
      "g.json: memories[0]: memory 'sram': \"capacity\" must be a positive number of bytes up "
      "to 2^48 (leave it out for an unbounded memory), got 0" },
    { "\"memories\":[{\"name\":\"sram\",\"capacity\":\"256K\"}],", "",
      "g.json: memories[0]: memory 'sram': \"capacity\" must be a positive number of bytes up "
      "to 2^48 (leave it out for an unbounded memory), got \"256K\"" },
    { "\"memories\":[{\"name\":\"sram\",\"size\":4}],", "",
      "g.json: memories[0]: unknown key \"size\" (known: name, capacity; your own keys start "
      "with \"x-\")" },
    { "\"memories\":[{\"capacity\":4}],", "", "g.json: memories[0]: has no \"name\"" },
    { "\"memories\":[\"sram\"],", "", "g.json: memories[0]: is not an object" },
    { "\"memories\":[],", "",
      "g.json: \"memories\" is empty: name at least one memory or leave it out" },
    { "\"memories\":{\"name\":\"sram\"},", "",
      "g.json: \"memories\" must be a list of {\"name\": …, \"capacity\": …}, fastest first" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *json =
        g_strdup_printf (CHAIN_HEAD "%s\"tensors\":[{\"name\":\"a\",\"size\":64%s},"
                         "{\"name\":\"b\",\"size\":64},{\"name\":\"c\",\"size\":64}]," CHAIN_TAIL,
                         cases[i].memories, cases[i].memory);
      g_autoptr (MpGraph) graph = parse (json, &error);

      g_assert_null (graph);
      g_assert_cmpstr (error->message, ==, cases[i].message);
    }
  {
    static const char view[] =
      CHAIN_HEAD "\"memories\":[{\"name\":\"sram\"}],\"tensors\":[{\"name\":\"a\",\"size\":64},"
      "{\"name\":\"b\",\"size\":64},{\"name\":\"c\",\"size\":64},{\"name\":\"v\",\"view_of\":"
      "\"a\",\"memory\":\"sram\"}]," CHAIN_TAIL;
    g_autoptr (GError) error = NULL;
    g_autoptr (MpGraph) graph = parse (view, &error);

    g_assert_null (graph);
    g_assert_cmpstr (error->message, ==, "g.json: tensor 'v': a view lives in its base's memory "
                                         "and cannot have \"memory\"");
  }
}

/* 64 B of SRAM: a, b and c each fit alone, no two together. At step 1 a
 * and b are live (128 B): a and b both weigh 64 B x 2 steps, the first
 * (a) spills. At step 2 b and c (128 B): b (x 2 steps) spills. SRAM keeps
 * c (64 B), PSRAM a and b, live together at step 1: 128 B. */
static void
test_spill_rule (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MpGraph) graph = parse (chain_json, &error);
  g_autoptr (MpLifetimes) lt = NULL;
  g_autoptr (MpSpill) spill = NULL;

  g_assert_no_error (error);
  spill = spill_graph (graph, &lt, graph->memories, graph->n_memories, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (memory_of (spill, graph, lt, "a"), ==, 1);
  g_assert_cmpuint (memory_of (spill, graph, lt, "b"), ==, 1);
  g_assert_cmpuint (memory_of (spill, graph, lt, "c"), ==, 0);
  g_assert_cmpuint (spill->arena[0], ==, 64);
  g_assert_cmpuint (spill->arena[1], ==, 128);
  g_assert_cmpuint (spill->spilled_bytes[0], ==, 0);
  g_assert_cmpuint (spill->spilled_bytes[1], ==, 128);
  g_assert_true (spill->fits);
  /* the panes: each memory's own plan */
  g_assert_cmpuint (spill->plans[0]->n_records, ==, 1);
  g_assert_cmpuint (spill->plans[0]->records[0].tensor, ==, 2);
  g_assert_cmpuint (spill->plans[0]->arena, ==, 64);
  g_assert_cmpuint (spill->plans[0]->capacity, ==, 64);
  g_assert_true (spill->plans[0]->fits);
  g_assert_cmpuint (spill->plans[1]->n_records, ==, 2);
  g_assert_cmpuint (spill->plans[1]->arena, ==, 128);
  g_assert_cmpuint (spill->plans[1]->capacity, ==, 0);
  /* accesses: a written by f, read by g: 2; traffic 64 x 2 each */
  g_assert_cmpuint (spill->traffic[1], ==, 256);
  g_assert_cmpuint (spill->traffic[0], ==, 64);
}

/* b must live in PSRAM: SRAM (128 B) holds a and c, never live together
 * (64 B); nothing spilled. Memories given in another order match by name;
 * a list without psram is refused naming b. */
static void
test_pinned (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MpGraph) graph = parse (pinned_json, &error);
  g_autoptr (MpLifetimes) lt = NULL;
  g_autoptr (MpSpill) spill = NULL;
  g_autoptr (MpLifetimes) lt2 = NULL;
  g_autoptr (MpSpill) spill2 = NULL;
  MpMemory swapped[2] = { { "dram", 0 }, { "psram", 0 } };

  g_assert_no_error (error);
  spill = spill_graph (graph, &lt, graph->memories, graph->n_memories, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (memory_of (spill, graph, lt, "b"), ==, 1);
  g_assert_cmpuint (spill->arena[0], ==, 64);
  g_assert_cmpuint (spill->arena[1], ==, 64);
  g_assert_cmpuint (spill->spilled_bytes[1], ==, 0);
  g_assert_false (spill->spilled[lt->record_of[1]]);

  spill2 = spill_graph (graph, &lt2, swapped, 2, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (memory_of (spill2, graph, lt2, "b"), ==, 1);
  g_assert_cmpuint (memory_of (spill2, graph, lt2, "a"), ==, 0);
  g_clear_pointer (&lt2, mp_lifetimes_free);
  g_assert_null (spill_graph (graph, &lt2, swapped, 1, &error));
  g_assert_cmpstr (error->message, ==, "g.json: tensor 'b' must live in memory 'psram', which "
                                       "the memories given do not name");
}

/* The fewest bytes out of the fast memory, by brute force: every subset
 * kept in it, checked by the exact planner (proved). */
static guint64
brute_spilled (const guint64 *size, const guint *lo, const guint *hi, guint n, guint64 capacity)
{
  guint64 best = G_MAXUINT64, total = 0;

  for (guint i = 0; i < n; i++)
    total += size[i];
  for (guint mask = 0; mask < 1u << n; mask++)
    {
      g_autoptr (GString) csv = g_string_new ("id,lower,upper,size\n");
      g_autoptr (GError) error = NULL;
      g_autoptr (MpGraph) graph = NULL;
      g_autoptr (MpLifetimes) lt = NULL;
      g_autoptr (MpPlan) plan = NULL;
      MpLifetimeOptions opts = { 0 };
      MpPlannerOptions  options = { .time_budget = 60 };
      guint64 kept = 0;

      for (guint i = 0; i < n; i++)
        if (mask & (1u << i))
          {
            g_string_append_printf (csv, "t%u,%u,%u,%" G_GUINT64_FORMAT "\n", i, lo[i], hi[i],
                                    size[i]);
            kept += size[i];
          }
      if (kept == 0 || total - kept >= best)
        {
          best = kept == 0 ? MIN (best, total) : best;
          continue;
        }
      graph = mp_graph_parse_csv (csv->str, csv->len, "sub.csv", NULL, &error);
      g_assert_no_error (error);
      lt = mp_lifetimes_compute (graph, &opts, &error);
      g_assert_no_error (error);
      plan = mp_planner_run (mp_planner_lookup ("optimal"), graph, lt, &options, NULL, &error);
      g_assert_no_error (error);
      g_assert_true (plan->proved_optimal);
      if (plan->arena <= capacity)
        best = total - kept;
    }
  return best;
}

/* optimal's spill on random usage records of 3 to 8 buffers: the spilled
 * bytes are brute force's, proved, and the fast memory fits. */
static void
test_exact_brute_force (void)
{
  GRand *rand = g_rand_new_with_seed (28);
  guint  n_spilling = 0;

  for (guint round = 0; round < 40; round++)
    {
      guint            n = g_rand_int_range (rand, 3, 9);
      guint64          size[8], biggest = 0, total = 0;
      guint            lo[8], hi[8];
      g_autoptr (GString) csv = g_string_new ("id,lower,upper,size\n");
      g_autoptr (GError) error = NULL;
      g_autoptr (MpGraph) graph = NULL;
      g_autoptr (MpLifetimes) lt = NULL;
      g_autoptr (MpSpill) spill = NULL;
      MpLifetimeOptions opts = { 0 };
      MpPlannerOptions  options = { .time_budget = 60 };
      MpMemory          memories[2] = { { "fast", 0 }, { "slow", 0 } };
      guint64           spilled = 0;

      for (guint i = 0; i < n; i++)
        {
          size[i] = g_rand_int_range (rand, 1, 17);
          lo[i] = g_rand_int_range (rand, 0, 8);
          hi[i] = lo[i] + g_rand_int_range (rand, 1, 5);
          biggest = MAX (biggest, size[i]);
          total += size[i];
          g_string_append_printf (csv, "t%u,%u,%u,%" G_GUINT64_FORMAT "\n", i, lo[i], hi[i],
                                  size[i]);
        }
      memories[0].capacity = g_rand_int_range (rand, biggest, total + 1);
      graph = mp_graph_parse_csv (csv->str, csv->len, "r.csv", NULL, &error);
      g_assert_no_error (error);
      lt = mp_lifetimes_compute (graph, &opts, &error);
      g_assert_no_error (error);
      spill = mp_spill_plan (graph, lt, mp_planner_lookup ("optimal"), memories, 2, &options,
                             NULL, &error);
      g_assert_no_error (error);
      g_assert_true (spill->exact);
      g_assert_true (spill->proved);
      g_assert_cmpuint (spill->arena[0], <=, memories[0].capacity);
      for (guint i = 0; i < lt->n_records; i++)
        if (spill->memory_of[i] == 1)
          spilled += lt->records[i].bytes;
      g_assert_cmpuint (spilled, ==, spill->spilled_bytes[1]);
      g_assert_cmpuint (spilled, ==, brute_spilled (size, lo, hi, n, memories[0].capacity));
      n_spilling += spilled > 0;
    }
  /* most draws have to spill: the test is not vacuous */
  g_assert_cmpuint (n_spilling, >=, 20);
  g_rand_free (rand);
}

/* data/mcu-cnn.json: greedy spills conv1 (the most bytes x steps, 300 KiB
 * of traffic); optimal spills the same 100 KiB but picks pw1, written once
 * and read once: 200 KiB of traffic, proved. */
static void
test_exact_mcu (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_build_filename (MEMPLAN_TEST_DATA_DIR, "mcu-cnn.json", NULL);
  g_autoptr (MpGraph) graph = mp_graph_load_json (path, &error);
  g_autoptr (MpLifetimes) lt = NULL;
  g_autoptr (MpSpill) spill = NULL;
  MpLifetimeOptions opts = { .plan_inputs = TRUE };
  MpPlannerOptions  options = { .time_budget = 60 };

  g_assert_no_error (error);
  lt = mp_lifetimes_compute (graph, &opts, &error);
  g_assert_no_error (error);
  spill = mp_spill_plan (graph, lt, mp_planner_lookup ("optimal"), graph->memories,
                         graph->n_memories, &options, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (spill->proved);
  g_assert_cmpuint (memory_of (spill, graph, lt, "pw1"), ==, 1);
  g_assert_cmpuint (spill->spilled_bytes[1], ==, 100 * 1024);
  g_assert_cmpuint (spill->traffic[1], ==, 200 * 1024);
  g_assert_cmpuint (spill->arena[0], ==, 200 * 1024);
}

/* Three memories, all four tensors live together at g. optimal: l1 (40 B)
 * keeps b and d (a and c, 80 B, leave: no other choice spills less), l2
 * (64 B) keeps a and spills c (16 B). The greedy rule spills the most
 * bytes x steps first: a and b out of l1 (96 B), then a out of l2 (64 B). */
static void
test_exact_three_memories (void)
{
  static const char json[] =
    CHAIN_HEAD "\"memories\":[{\"name\":\"l1\",\"capacity\":40},{\"name\":\"l2\","
    "\"capacity\":64},{\"name\":\"dram\"}],\"tensors\":[{\"name\":\"a\",\"size\":64},"
    "{\"name\":\"b\",\"size\":32},{\"name\":\"c\",\"size\":16},{\"name\":\"d\",\"size\":8}],"
    "\"ops\":[{\"name\":\"f\",\"inputs\":[],\"outputs\":[\"a\",\"b\",\"c\"]},"
    "{\"name\":\"g\",\"inputs\":[\"a\",\"b\",\"c\"],\"outputs\":[\"d\"]}]}";
  const char *planners[] = { "optimal", "greedy-by-size" };
  guint       expect[2][4] = { { 1, 0, 2, 0 }, { 2, 1, 0, 0 } }; /* a, b, c, d */

  for (guint p = 0; p < G_N_ELEMENTS (planners); p++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (MpGraph) graph = parse (json, &error);
      g_autoptr (MpLifetimes) lt = NULL;
      g_autoptr (MpSpill) spill = NULL;
      MpLifetimeOptions opts = { 0 };
      MpPlannerOptions  options = { .time_budget = 10 };

      g_assert_no_error (error);
      lt = mp_lifetimes_compute (graph, &opts, &error);
      g_assert_no_error (error);
      spill = mp_spill_plan (graph, lt, mp_planner_lookup (planners[p]), graph->memories,
                             graph->n_memories, &options, NULL, &error);
      g_assert_no_error (error);
      for (guint t = 0; t < 4; t++)
        {
          char name[2] = { (char) ('a' + t), 0 };

          g_assert_cmpuint (memory_of (spill, graph, lt, name), ==, expect[p][t]);
        }
      g_assert_true (spill->fits);
      g_assert_cmpint (spill->exact, ==, p == 0);
      g_assert_cmpint (spill->proved, ==, p == 0);
      g_assert_cmpuint (spill->spilled_bytes[2], ==, p == 0 ? 16 : 64);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analysis/memories/read-write", test_read_write);
  g_test_add_func ("/analysis/memories/any-order", test_any_order);
  g_test_add_func ("/analysis/memories/bad-input", test_bad_input);
  g_test_add_func ("/analysis/memories/spill-rule", test_spill_rule);
  g_test_add_func ("/analysis/memories/pinned", test_pinned);
  g_test_add_func ("/analysis/memories/exact-brute-force", test_exact_brute_force);
  g_test_add_func ("/analysis/memories/exact-mcu", test_exact_mcu);
  g_test_add_func ("/analysis/memories/exact-three-memories", test_exact_three_memories);
  return g_test_run ();
}
