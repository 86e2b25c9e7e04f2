/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <string.h>

#include "test-util.h"

static void
test_teaching_graph (void)
{
  g_autofree char *path = test_data_path ("teaching.json");
  g_autoptr (GError) error = NULL;
  g_autoptr (MpGraph) graph = test_graph_load (path, &error);
  g_autoptr (MpLifetimes) lt = NULL;
  gint flat, pool;

  g_assert_no_error (error);
  g_assert_cmpstr (graph->name, ==, "teaching");
  g_assert_cmpuint (graph->n_tensors, ==, 9);
  g_assert_cmpuint (graph->n_ops, ==, 6);
  flat = mp_graph_find_tensor (graph, "flat");
  pool = mp_graph_find_tensor (graph, "pool_out");
  g_assert_cmpint (graph->tensors[flat].view_of, ==, pool);
  g_assert_cmpuint (graph->tensors[flat].size, ==, 4096 * 4);

  lt = mp_lifetimes_compute (graph, NULL, &error);
  g_assert_no_error (error);
  /* conv_out, relu_out, pool_out (+ flat), logits, probs; image and params are not planned */
  g_assert_cmpuint (lt->n_records, ==, 5);
  g_assert_cmpint (lt->record_of[flat], ==, lt->record_of[pool]);
  /* pool_out is written at step 2 and read through its view by fc at step 4 */
  g_assert_cmpuint (lt->records[lt->record_of[pool]].first, ==, 2);
  g_assert_cmpuint (lt->records[lt->record_of[pool]].last, ==, 4);
  /* probs is an output: it lives to the last step */
  g_assert_cmpuint (lt->records[lt->n_records - 1].last, ==, 5);
  g_assert_cmpuint (lt->workspace, ==, 8192);
  /* conv_out (64 KiB) and relu_out (64 KiB) are both live at step 1 */
  g_assert_cmpuint (lt->lower_bound, ==, 131072);
}


typedef struct
{
  const char *name;
  gboolean    csv;
  const char *text;
  const char *message;
} BadInput;

static const BadInput bad_inputs[] = {
  { "not-json", FALSE, "hello",
    "bad.json: not valid JSON: unexpected character at line 1, column 1" },
  { "truncated", FALSE, "{\"format\": \"memplan.graph/1\", \"tensors\": [{\"name\": \"a\", \"size\": 4}",
    "bad.json: truncated JSON: the file ends at line 1, column 67 before the document is complete" },
  { "syntax", FALSE, "{\"format\": \"memplan.graph/1\",\n \"tensors\": [{\"name\": \"a\" \"size\": 4}]}",
    "bad.json: not valid JSON: expected ',' or '}' after an object member at line 2, column 27" },
  { "wrong-format", FALSE, "{\"format\": \"memplan.graph/2\", \"tensors\": []}",
    "bad.json: \"format\" is 'memplan.graph/2', expected 'memplan.graph/1'" },
  { "missing-format", FALSE, "{\"tensors\": []}",
    "bad.json: missing \"format\": \"memplan.graph/1\"" },
  { "missing-name", FALSE, "{\"format\": \"memplan.graph/1\", \"tensors\": [{\"size\": 4}]}",
    "bad.json: tensor #0 has no \"name\"" },
  { "missing-op-name", FALSE, "{\"format\": \"memplan.graph/1\", \"tensors\": [], \"ops\": [{\"inputs\": []}]}",
    "bad.json: op #0 has no \"name\"" },
  { "duplicate-tensor", FALSE, "{\"format\": \"memplan.graph/1\", \"tensors\": [{\"name\": \"a\", \"size\": 4}, {\"name\": \"a\", \"size\": 8}]}",
    "bad.json: tensor 'a' is declared twice" },
  { "duplicate-op", FALSE, "{\"format\": \"memplan.graph/1\", \"tensors\": [{\"name\": \"a\", \"size\": 4}], \"ops\": [{\"name\": \"f\", \"outputs\": [\"a\"]}, {\"name\": \"f\"}]}",
    "bad.json: op 'f' is declared twice" },
  { "unproduced", FALSE, "{\"format\": \"memplan.graph/1\", \"tensors\": [{\"name\": \"a\", \"size\": 4}, {\"name\": \"b\", \"size\": 4}], \"ops\": [{\"name\": \"f\", \"inputs\": [\"a\"], \"outputs\": [\"b\"]}]}",
    "bad.json: op 'f' reads tensor 'a' which no earlier op produces (and which is not an input or param)" },
  { "read-before-produced", FALSE, "{\"format\": \"memplan.graph/1\", \"tensors\": [{\"name\": \"a\", \"size\": 4}, {\"name\": \"b\", \"size\": 4}], \"ops\": [{\"name\": \"f\", \"inputs\": [\"b\"], \"outputs\": [\"a\"]}, {\"name\": \"g\", \"outputs\": [\"b\"]}]}",
    "bad.json: op 'f' reads tensor 'b' before op 'g' produces it" },
  { "unknown-input", FALSE, "{\"format\": \"memplan.graph/1\", \"tensors\": [{\"name\": \"a\", \"size\": 4}], \"ops\": [{\"name\": \"f\", \"inputs\": [\"q\"], \"outputs\": [\"a\"]}]}",
    "bad.json: op 'f' reads unknown tensor 'q'" },
  { "produced-twice", FALSE, "{\"format\": \"memplan.graph/1\", \"tensors\": [{\"name\": \"a\", \"size\": 4}], \"ops\": [{\"name\": \"f\", \"outputs\": [\"a\"]}, {\"name\": \"g\", \"outputs\": [\"a\"]}]}",
    "bad.json: tensor 'a' is produced twice, by op 'f' and by op 'g'" },
  { "writes-param", FALSE, "{\"format\": \"memplan.graph/1\", \"tensors\": [{\"name\": \"w\", \"size\": 4, \"kind\": \"param\"}], \"ops\": [{\"name\": \"f\", \"outputs\": [\"w\"]}]}",
    "bad.json: op 'f' writes param tensor 'w'; inputs and params are never produced by an op" },
  { "negative-size", FALSE, "{\"format\": \"memplan.graph/1\", \"tensors\": [{\"name\": \"a\", \"size\": -4}]}",
    "bad.json: tensor 'a': \"size\" must be a positive integer number of bytes, got -4" },
  { "zero-size", FALSE, "{\"format\": \"memplan.graph/1\", \"tensors\": [{\"name\": \"a\", \"size\": 0}]}",
    "bad.json: tensor 'a': size is 0 bytes; a tensor must have a positive size" },
  { "fractional-size", FALSE, "{\"format\": \"memplan.graph/1\", \"tensors\": [{\"name\": \"a\", \"size\": 1.5}]}",
    "bad.json: tensor 'a': \"size\" must be a positive integer number of bytes, got 1.5" },
  { "string-size", FALSE, "{\"format\": \"memplan.graph/1\", \"tensors\": [{\"name\": \"a\", \"size\": \"12\"}]}",
    "bad.json: tensor 'a': \"size\" must be a positive integer number of bytes, got \"12\"" },
  { "overflowing-size", FALSE, "{\"format\": \"memplan.graph/1\", \"tensors\": [{\"name\": \"a\", \"size\": 99999999999999999999999}]}",
    "bad.json: tensor 'a': \"size\" is too large (it overflows 64 bits)" },
  { "size-over-limit", FALSE, "{\"format\": \"memplan.graph/1\", \"tensors\": [{\"name\": \"a\", \"size\": 1000000000000000000}]}",
    "bad.json: tensor 'a': size 1000000000000000000 bytes is over the limit of 2^48 bytes (256 TiB)" },
  { "shape-overflow", FALSE, "{\"format\": \"memplan.graph/1\", \"tensors\": [{\"name\": \"a\", \"dtype\": \"f32\", \"shape\": [4294967296, 4294967296]}]}",
    "bad.json: tensor 'a': the product of the shape overflows 64 bits" },
  { "shape-bytes-overflow", FALSE, "{\"format\": \"memplan.graph/1\", \"tensors\": [{\"name\": \"a\", \"dtype\": \"f64\", \"shape\": [4294967296, 1073741824]}]}",
    "bad.json: tensor 'a': the size of the shape in bytes overflows 64 bits" },
  { "unknown-dtype", FALSE, "{\"format\": \"memplan.graph/1\", \"tensors\": [{\"name\": \"a\", \"dtype\": \"f128\", \"shape\": [2]}]}",
    "bad.json: tensor 'a': unknown dtype 'f128' (known: f64, f32, f16, bf16, f8, i64, i32, i16, i8, u8, bool)" },
  { "unknown-kind", FALSE, "{\"format\": \"memplan.graph/1\", \"tensors\": [{\"name\": \"a\", \"size\": 4, \"kind\": \"weight\"}]}",
    "bad.json: tensor 'a': unknown kind 'weight' (known: activation, input, param, output)" },
  { "view-of-unknown", FALSE, "{\"format\": \"memplan.graph/1\", \"tensors\": [{\"name\": \"a\", \"view_of\": \"zz\", \"size\": 4}]}",
    "bad.json: tensor 'a' is a view of unknown tensor 'zz'" },
  { "first-bad-view", FALSE, "{\"format\": \"memplan.graph/1\", \"tensors\": [{\"name\": \"v1\", \"view_of\": \"nope1\", \"size\": 4}, {\"name\": \"v2\", \"view_of\": \"nope2\", \"size\": 4}, {\"name\": \"v3\", \"view_of\": \"nope3\", \"size\": 4}]}",
    "bad.json: tensor 'v1' is a view of unknown tensor 'nope1'" },
  { "view-past-end", FALSE, "{\"format\": \"memplan.graph/1\", \"tensors\": [{\"name\": \"a\", \"size\": 16}, {\"name\": \"v\", \"view_of\": \"a\", \"offset\": 8, \"size\": 16}]}",
    "bad.json: tensor 'v': view of 16 bytes at offset 8 runs past the end of 'a' (16 bytes)" },
  { "view-cycle", FALSE, "{\"format\": \"memplan.graph/1\", \"tensors\": [{\"name\": \"a\", \"view_of\": \"b\", \"size\": 4}, {\"name\": \"b\", \"view_of\": \"a\", \"size\": 4}]}",
    "bad.json: tensor 'a': views form a cycle through 'a'" },
  { "bad-alignment", FALSE, "{\"format\": \"memplan.graph/1\", \"alignment\": 48, \"tensors\": []}",
    "bad.json: \"alignment\" must be a power of two from 1 to 2^30, got 48" },
  { "trailing-text", FALSE, "{\"format\": \"memplan.graph/1\"} x",
    "bad.json: not valid JSON: unexpected text after the document at line 1, column 31" },
  { "deep-nesting", FALSE, "{\"format\": \"memplan.graph/1\", \"x-extra\": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}",
    "bad.json: not valid JSON: nesting deeper than 64 levels at line 1, column 105" },
  /* strict keys: a misspelling is named where it is, with the likely key */
  { "unknown-top-key", FALSE, "{\"format\": \"memplan.graph/1\", \"tensors\": [], \"opz\": []}",
    "bad.json: unknown key \"opz\" (did you mean \"ops\"?)" },
  { "unknown-tensor-key", FALSE, "{\"format\": \"memplan.graph/1\", \"tensors\": [{\"name\": \"a\", \"sise\": 4}]}",
    "bad.json: tensors[0]: unknown key \"sise\" (did you mean \"size\"?)" },
  { "unknown-op-key", FALSE, "{\"format\": \"memplan.graph/1\", \"tensors\": [{\"name\": \"a\", \"size\": 4}], \"ops\": [{\"name\": \"f\", \"outputs\": [\"a\"]}, {\"name\": \"g\", \"inputs\": [\"a\"], \"output\": [\"a\"]}]}",
    "bad.json: ops[1]: unknown key \"output\" (did you mean \"outputs\"?)" },
  { "unknown-key-far", FALSE, "{\"format\": \"memplan.graph/1\", \"comment\": \"hi\"}",
    "bad.json: unknown key \"comment\" (known: format, name, description, alignment, memories, tensors, ops; your own keys start with \"x-\")" },
  { "op-not-object", FALSE, "{\"format\": \"memplan.graph/1\", \"ops\": [5]}",
    "bad.json: ops[0] is not an object" },
  { "tensor-not-object", FALSE, "{\"format\": \"memplan.graph/1\", \"tensors\": [\"a\"]}",
    "bad.json: tensors[0] is not an object" },
  { "bad-escape", FALSE, "{\"format\": \"memplan.graph/1\", \"tensors\": [{\"name\": \"a\\q\", \"size\": 4}]}",
    "bad.json: not valid JSON: bad escape in a string at line 1, column 54" },
  { "lone-surrogate", FALSE, "{\"format\": \"memplan.graph/1\", \"tensors\": [{\"name\": \"\\udc00\", \"size\": 4}]}",
    "bad.json: not valid JSON: unpaired surrogate in a string at line 1, column 53" },
  { "bad-utf8", FALSE, "{\"format\": \"memplan.graph/1\", \"tensors\": [{\"name\": \"a\xff\", \"size\": 4}]}",
    "bad.json: not valid JSON: invalid UTF-8 in a string at line 1, column 52" },
  { "bad-literal", FALSE, "{\"format\": \"memplan.graph/1\", \"x\": tru}",
    "bad.json: not valid JSON: unexpected character at line 1, column 36" },
  { "missing-colon", FALSE, "{\"format\" \"memplan.graph/1\"}",
    "bad.json: not valid JSON: expected ':' after the member name at line 1, column 11" },
  { "list-comma", FALSE, "{\"format\": \"memplan.graph/1\", \"tensors\": [{\"name\": \"a\", \"size\": 4} {\"name\": \"b\"}]}",
    "bad.json: not valid JSON: expected ',' or ']' after a list element at line 1, column 68" },
  { "not-an-object", FALSE, "[1, 2]",
    "bad.json: expected a JSON object with \"format\": \"memplan.graph/1\"" },
  { "tensors-not-list", FALSE, "{\"format\": \"memplan.graph/1\", \"tensors\": {}}",
    "bad.json: \"tensors\" and \"ops\" must be lists" },
  { "shape-bad-dim", FALSE, "{\"format\": \"memplan.graph/1\", \"tensors\": [{\"name\": \"a\", \"dtype\": \"f32\", \"shape\": [2, -3]}]}",
    "bad.json: tensor 'a': shape dimension 1 is not a non-negative integer" },
  { "size-disagrees", FALSE, "{\"format\": \"memplan.graph/1\", \"tensors\": [{\"name\": \"a\", \"dtype\": \"f32\", \"shape\": [2], \"size\": 9}]}",
    "bad.json: tensor 'a': \"size\" 9 disagrees with its dtype and shape (8 bytes)" },
  { "no-size", FALSE, "{\"format\": \"memplan.graph/1\", \"tensors\": [{\"name\": \"a\"}]}",
    "bad.json: tensor 'a' has neither \"size\" nor \"dtype\" and \"shape\"" },
  { "bad-stream", FALSE, "{\"format\": \"memplan.graph/1\", \"tensors\": [{\"name\": \"a\", \"size\": 4}], \"ops\": [{\"name\": \"f\", \"outputs\": [\"a\"], \"stream\": -1}]}",
    "bad.json: op 'f': \"stream\" must be an integer from 0 to 1023" },
  { "inputs-not-list", FALSE, "{\"format\": \"memplan.graph/1\", \"tensors\": [], \"ops\": [{\"name\": \"f\", \"inputs\": \"a\"}]}",
    "bad.json: op 'f': \"inputs\" must be a list of tensor names" },
  { "csv-header", TRUE, "id,from,to,size\na,0,1,4\n",
    "bad.csv: line 1: expected a header naming the columns id, lower, upper and size in any order (or start and an inclusive end), got 'id,from,to,size'" },
  { "csv-non-numeric", TRUE, "id,lower,upper,size\na,0,x1,4\n",
    "bad.csv: line 2 (buffer 'a'): upper 'x1' is not a non-negative integer" },
  { "csv-negative", TRUE, "id,lower,upper,size\na,-1,3,4\n",
    "bad.csv: line 2 (buffer 'a'): lower '-1' is not a non-negative integer" },
  { "csv-upper-not-above-lower", TRUE, "id,lower,upper,size\na,5,5,4\n",
    "bad.csv: line 2 (buffer 'a'): upper 5 must be greater than lower 5" },
  { "csv-fields", TRUE, "id,lower,upper,size\na,0,1\n",
    "bad.csv: line 2: expected 4 fields, found 3" },
  { "csv-duplicate", TRUE, "id,lower,upper,size\na,0,1,4\na,1,2,4\n",
    "bad.csv: line 3: buffer 'a' is declared twice" },
  { "csv-empty", TRUE, "",
    "bad.csv: empty file: expected the header 'id,lower,upper,size'" },
  { "csv-zero-size", TRUE, "id,lower,upper,size\na,0,1,0\n",
    "bad.csv: line 2 (buffer 'a'): size must be from 1 to 2^48 bytes, got 0" },
  { "csv-overflow", TRUE, "id,lower,upper,size\na,0,1,99999999999999999999999\n",
    "bad.csv: line 2 (buffer 'a'): size '99999999999999999999999' is not a non-negative integer" },
};

static void
test_bad_input (gconstpointer data)
{
  const BadInput *bad = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (MpGraph) graph = NULL;

  if (bad->csv)
    graph = mp_graph_parse_csv (bad->text, strlen (bad->text), "bad.csv", NULL, &error);
  else
    graph = mp_graph_parse_json (bad->text, strlen (bad->text), "bad.json", &error);
  g_assert_null (graph);
  g_assert_nonnull (error);
  g_assert_true (error->domain == MP_ANALYSIS_ERROR);
  g_assert_cmpstr (error->message, ==, bad->message);
}

/* An empty graph is valid: nothing to plan, arena 0. */
static void
test_empty_graph (void)
{
  const char *text = "{\"format\": \"memplan.graph/1\", \"tensors\": [], \"ops\": []}";
  g_autoptr (GError) error = NULL;
  g_autoptr (MpGraph) graph = mp_graph_parse_json (text, strlen (text), "empty.json", &error);
  g_autoptr (MpLifetimes) lt = NULL;
  guint n;
  const MpPlannerInfo *planners = mp_planners (&n);

  g_assert_no_error (error);
  lt = mp_lifetimes_compute (graph, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (lt->n_records, ==, 0);
  g_assert_cmpuint (lt->lower_bound, ==, 0);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr (MpPlan) plan = test_run_planner (planners[i].name, graph, lt);
      g_assert_cmpuint (plan->arena, ==, 0);
    }
}

/* Lifetime rules: views extend their base, outputs live to the end, a tensor
 * never read still occupies its producing step, inputs are planned only on
 * request (from step 0), params never. */
static void
test_lifetime_rules (void)
{
  const char *text =
    "{\"format\": \"memplan.graph/1\", \"alignment\": 16, \"tensors\": ["
    "{\"name\": \"x\", \"size\": 10, \"kind\": \"input\"},"
    "{\"name\": \"w\", \"size\": 100, \"kind\": \"param\"},"
    "{\"name\": \"a\", \"size\": 20},"
    "{\"name\": \"av\", \"view_of\": \"a\", \"offset\": 4},"
    "{\"name\": \"dead\", \"size\": 5},"
    "{\"name\": \"b\", \"size\": 30},"
    "{\"name\": \"y\", \"size\": 7, \"kind\": \"output\"}],"
    "\"ops\": ["
    "{\"name\": \"f\", \"inputs\": [\"x\", \"w\"], \"outputs\": [\"a\", \"dead\"], \"workspace\": 33},"
    "{\"name\": \"g\", \"inputs\": [\"a\"], \"outputs\": [\"y\"]},"
    "{\"name\": \"h\", \"inputs\": [\"x\"], \"outputs\": [\"b\"]},"
    "{\"name\": \"k\", \"inputs\": [\"av\", \"b\"], \"outputs\": []}]}";
  g_autoptr (GError) error = NULL;
  g_autoptr (MpGraph) graph = mp_graph_parse_json (text, strlen (text), "rules.json", &error);
  g_autoptr (MpLifetimes) lt = NULL;
  g_autoptr (MpLifetimes) with_inputs = NULL;
  MpLifetimeOptions opts = { .plan_inputs = TRUE };
  const MpUsage *r;

  g_assert_no_error (error);
  g_assert_cmpuint (graph->tensors[mp_graph_find_tensor (graph, "av")].size, ==, 16);
  lt = mp_lifetimes_compute (graph, NULL, &error);
  g_assert_no_error (error);
  /* a, dead, y, b in order of first appearance */
  g_assert_cmpuint (lt->n_records, ==, 4);
  r = &lt->records[0];
  g_assert_cmpstr (graph->tensors[r->tensor].name, ==, "a");
  g_assert_cmpuint (r->first, ==, 0);
  g_assert_cmpuint (r->last, ==, 3); /* read at step 3 through its view */
  g_assert_cmpuint (r->size, ==, 32);
  g_assert_cmpuint (r->bytes, ==, 20);
  r = &lt->records[1];
  g_assert_cmpstr (graph->tensors[r->tensor].name, ==, "dead");
  g_assert_cmpuint (r->first, ==, 0);
  g_assert_cmpuint (r->last, ==, 0);
  r = &lt->records[2];
  g_assert_cmpstr (graph->tensors[r->tensor].name, ==, "y");
  g_assert_cmpuint (r->first, ==, 1);
  g_assert_cmpuint (r->last, ==, 3);
  g_assert_cmpint (lt->record_of[mp_graph_find_tensor (graph, "av")], ==, 0);
  g_assert_cmpint (lt->record_of[mp_graph_find_tensor (graph, "x")], ==, -1);
  g_assert_cmpint (lt->record_of[mp_graph_find_tensor (graph, "w")], ==, -1);
  g_assert_cmpuint (lt->workspace, ==, 48);
  /* step 3: a 20 + y 7 + b 30 */
  g_assert_cmpuint (lt->lower_bound, ==, 57);
  g_assert_cmpuint (lt->peak_step, ==, 2);

  with_inputs = mp_lifetimes_compute (graph, &opts, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (with_inputs->n_records, ==, 5);
  r = &with_inputs->records[0];
  g_assert_cmpstr (graph->tensors[r->tensor].name, ==, "x");
  g_assert_cmpuint (r->first, ==, 0);
  g_assert_cmpuint (r->last, ==, 2);
}

/* Members in any order (ops before tensors), unknown keys with nested
 * values, escapes and non-ASCII names. */
static void
test_json_order_and_escapes (void)
{
  const char *text =
    "{\"ops\": [{\"outputs\": [\"caf\\u00e9\"], \"name\": \"f\", \"x-meta\": {\"a\": [1, 2.5e3, true, null, {}]}}],"
    " \"tensors\": [{\"size\": 4, \"name\": \"caf\u00e9\", \"kind\": \"output\"},"
    " {\"name\": \"tab\\there\", \"size\": 1, \"kind\": \"param\"}],"
    " \"x-extra\": \"\\ud83d\\ude00\", \"format\": \"memplan.graph/1\"}";
  g_autoptr (GError) error = NULL;
  g_autoptr (MpGraph) graph = mp_graph_parse_json (text, strlen (text), "order.json", &error);

  g_assert_no_error (error);
  g_assert_cmpuint (graph->n_tensors, ==, 2);
  g_assert_cmpstr (graph->tensors[0].name, ==, "caf\u00e9");
  g_assert_cmpstr (graph->tensors[1].name, ==, "tab\there");
  g_assert_cmpuint (graph->n_ops, ==, 1);
  g_assert_cmpuint (graph->ops[0].outputs[0], ==, 0);
  g_assert_cmpstr (graph->name, ==, "order");
}

/* Graphs read in one pass (members in memplan's order) and in two (any
 * other order) are the same graph; and a file with two faults reports the
 * one the two-pass reader finds first, whatever the order. */
static void
test_json_one_pass (void)
{
  const char *tensors =
    "\"tensors\": [{\"name\": \"x\", \"size\": 10, \"kind\": \"input\"},"
    " {\"name\": \"y\", \"size\": 100}, {\"name\": \"v\", \"view_of\": \"y\", \"size\": 50},"
    " {\"name\": \"z\", \"size\": 7, \"kind\": \"output\"}]";
  const char *ops =
    "\"ops\": [{\"name\": \"f\", \"inputs\": [\"x\"], \"outputs\": [\"y\"]},"
    " {\"name\": \"g\", \"inputs\": [\"v\"], \"outputs\": [\"z\"], \"stream\": 1}]";
  const char *head = "\"format\": \"memplan.graph/1\", \"name\": \"n\", \"alignment\": 16";
  g_autofree char *in_order = g_strdup_printf ("{%s, \"description\": \"d\", %s, %s, "
                                               "\"x-a\": 1}", head, tensors, ops);
  g_autofree char *reordered = g_strdup_printf ("{%s, %s, %s}", ops, tensors, head);
  g_autoptr (GError) error = NULL;
  g_autoptr (MpGraph) a = mp_graph_parse_json (in_order, strlen (in_order), "a.json", &error);
  g_autoptr (MpGraph) b = NULL;

  g_assert_no_error (error);
  b = mp_graph_parse_json (reordered, strlen (reordered), "b.json", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (a->name, ==, "n");
  g_assert_cmpstr (b->name, ==, "n");
  g_assert_cmpuint (a->alignment, ==, 16);
  g_assert_cmpuint (b->alignment, ==, 16);
  g_assert_cmpuint (a->n_tensors, ==, 4);
  g_assert_cmpuint (b->n_tensors, ==, 4);
  for (guint i = 0; i < a->n_tensors; i++)
    {
      g_assert_cmpstr (a->tensors[i].name, ==, b->tensors[i].name);
      g_assert_cmpuint (a->tensors[i].size, ==, b->tensors[i].size);
      g_assert_cmpint (a->tensors[i].kind, ==, b->tensors[i].kind);
      g_assert_cmpint (a->tensors[i].view_of, ==, b->tensors[i].view_of);
    }
  g_assert_cmpint (a->tensors[2].view_of, ==, 1);
  g_assert_cmpuint (a->n_ops, ==, 2);
  g_assert_cmpuint (b->n_ops, ==, 2);
  for (guint i = 0; i < a->n_ops; i++)
    {
      g_assert_cmpstr (a->ops[i].name, ==, b->ops[i].name);
      g_assert_cmpuint (a->ops[i].stream, ==, b->ops[i].stream);
      g_assert_cmpuint (a->ops[i].n_inputs, ==, b->ops[i].n_inputs);
      g_assert_cmpuint (a->ops[i].inputs[0], ==, b->ops[i].inputs[0]);
      g_assert_cmpuint (a->ops[i].outputs[0], ==, b->ops[i].outputs[0]);
    }

  /* a bad size and an unknown key after the ops: the unknown key is named,
   * as when the key comes first */
  {
    const char *two_faults =
      "{\"format\": \"memplan.graph/1\", \"tensors\": [{\"name\": \"a\", \"size\": -4}],"
      " \"ops\": [], \"coment\": 1}";
    g_autoptr (MpGraph) c = mp_graph_parse_json (two_faults, strlen (two_faults), "c.json",
                                                 &error);

    g_assert_null (c);
    g_assert_cmpstr (error->message, ==,
                     "c.json: unknown key \"coment\" (known: format, name, description, "
                     "alignment, memories, tensors, ops; your own keys start with \"x-\")");
  }
}

/* An in-place chain of 20,000 views (ReLU after ReLU) resolves each view's
 * root once: the view at the end lives on its root's record. */
static void
test_long_view_chain (void)
{
  GString *json = g_string_new ("{\"format\": \"memplan.graph/1\", \"tensors\": [{\"name\": \"v0\", \"size\": 65536}");
  g_autoptr (GError) error = NULL;
  g_autoptr (MpGraph) graph = NULL;
  g_autoptr (MpLifetimes) lt = NULL;
  guint64 offset;
  const guint n = 20000;

  for (guint i = 1; i < n; i++)
    g_string_append_printf (json, ", {\"name\": \"v%u\", \"view_of\": \"v%u\", \"offset\": %u}", i,
                            i - 1, i % 2);
  g_string_append (json, "], \"ops\": [{\"name\": \"f0\", \"outputs\": [\"v0\"]}");
  for (guint i = 1; i < n; i++)
    g_string_append_printf (json, ", {\"name\": \"f%u\", \"inputs\": [\"v%u\"], \"outputs\": [\"v%u\"]}", i,
                            i - 1, i);
  g_string_append (json, "]}");
  graph = mp_graph_parse_json (json->str, json->len, "chain.json", &error);
  g_string_free (json, TRUE);
  g_assert_no_error (error);
  g_assert_cmpint (mp_graph_view_root (graph, n - 1, &offset), ==, 0);
  g_assert_cmpuint (offset, ==, n / 2);
  g_assert_cmpuint (graph->tensors[n - 1].size, ==, 65536 - n / 2);
  lt = mp_lifetimes_compute (graph, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (lt->n_records, ==, 1);
  g_assert_cmpuint (lt->records[0].last, ==, n - 1);
}

static void
test_csv_round_trip (void)
{
  g_autofree char *path = test_data_path ("minimalloc/example.12.csv");
  g_autoptr (GError) error = NULL;
  g_autoptr (MpGraph) graph = test_graph_load (path, &error);
  g_autoptr (MpLifetimes) lt = NULL;
  g_autoptr (MpPlan) plan = NULL;
  g_autofree char *csv = NULL;
  g_autofree guint64 *offsets = NULL;
  g_autoptr (MpGraph) again = NULL;

  g_assert_no_error (error);
  lt = mp_lifetimes_compute (graph, NULL, &error);
  g_assert_cmpuint (lt->n_records, ==, 5);
  g_assert_cmpuint (lt->lower_bound, ==, 12);
  plan = test_run_planner ("greedy-by-size", graph, lt);
  csv = mp_plan_to_csv (graph, plan);
  /* the file's own lower/upper come back, with offsets */
  g_assert_true (g_str_has_prefix (csv, "id,lower,upper,size,offset\nb1,0,3,4,"));
  again = mp_graph_parse_csv (csv, strlen (csv), "plan.csv", &offsets, &error);
  g_assert_no_error (error);
  g_assert_nonnull (offsets);
  for (guint i = 0; i < plan->n_records; i++)
    g_assert_cmpuint (offsets[i], ==, plan->offsets[i]);
}

/* What the one "open any file" path says of a document by its content: a
 * graph by its format, a trace by its own markers, and what each would need
 * when it is none of them. */
static void
test_input_sniffing (void)
{
  static const struct
  {
    const char *text;
    const char *message; /* NULL: opens */
    MpInputFormat format;
  } cases[] = {
    { "[1,2,3]", "in.json: not an input memplan reads: a graph is a JSON object with \"format\": "
      "\"memplan.graph/1\"; a PyTorch profiler trace is a JSON object with \"traceEvents\" (or a "
      "JSON list of events with \"ph\" and \"ts\"); a memory snapshot is a pickle; an ONNX model "
      "is a protobuf ModelProto; usage records are a CSV with the header 'id,lower,upper,size'" },
    { "", "in.json: empty file" },
    { "  \n", "in.json: empty file" },
    /* Chrome's bare array of events is a trace, told apart by ph and ts */
    { "[{\"ph\": \"X\", \"ts\": 1, \"name\": \"a\"}]",
      "in.json: the trace has no [memory] events: record it with "
      "torch.profiler.profile(profile_memory=True); a trace recorded with "
      "profile_all_threads=True has none (PyTorch writes no memory events then)" },
    { "{\"traceEvents\": []}",
      "in.json: the trace has no [memory] events: record it with "
      "torch.profiler.profile(profile_memory=True); a trace recorded with "
      "profile_all_threads=True has none (PyTorch writes no memory events then)" },
    { "{\"format\": \"memplan.graph/1\", \"name\": \"g\"}", NULL, MP_INPUT_GRAPH_JSON },
    /* a spreadsheet's byte-order mark before the header */
    { "\xef\xbb\xbfid,lower,upper,size\na,0,1,8\n", NULL, MP_INPUT_USAGE_CSV },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (MpInput) input = mp_input_parse (cases[i].text, strlen (cases[i].text), "in.json",
                                                  NULL, &error);

      if (cases[i].message)
        {
          g_assert_null (input);
          g_assert_cmpstr (error->message, ==, cases[i].message);
        }
      else
        {
          g_assert_no_error (error);
          g_assert_cmpint (input->format, ==, cases[i].format);
        }
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analysis/graph/teaching", test_teaching_graph);
  g_test_add_func ("/analysis/input/sniffing", test_input_sniffing);
  g_test_add_func ("/analysis/graph/empty", test_empty_graph);
  g_test_add_func ("/analysis/graph/lifetime-rules", test_lifetime_rules);
  g_test_add_func ("/analysis/graph/csv-round-trip", test_csv_round_trip);
  g_test_add_func ("/analysis/graph/long-view-chain", test_long_view_chain);
  g_test_add_func ("/analysis/graph/json-order-and-escapes", test_json_order_and_escapes);
  g_test_add_func ("/analysis/graph/json-one-pass", test_json_one_pass);
  for (guint i = 0; i < G_N_ELEMENTS (bad_inputs); i++)
    {
      g_autofree char *path = g_strdup_printf ("/analysis/graph/bad-input/%s", bad_inputs[i].name);
      g_test_add_data_func (path, &bad_inputs[i], test_bad_input);
    }
  return g_test_run ();
}
