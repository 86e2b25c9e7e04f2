/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Hostile sizes: a length, count, offset or depth declared in a file is
 * checked against the file's real content and sane limits before anything is
 * allocated for it, and the refusal says so exactly. */
#include <string.h>

#include "memplan-analysis.h"
#include "pickle.h"
#include "lifetimes.h"
#include "validate.h"

/* The graph that the plan inputs below are read against. */
static const char graph_json[] =
  "{\"format\": \"memplan.graph/1\", \"alignment\": 64, \"tensors\": ["
  " {\"name\": \"a\", \"size\": 4096}, {\"name\": \"b\", \"size\": 4096}],"
  " \"ops\": [{\"name\": \"f\", \"inputs\": [], \"outputs\": [\"a\"]},"
  "           {\"name\": \"g\", \"inputs\": [\"a\"], \"outputs\": [\"b\"]}]}";

static char *
nested (const char *before, guint depth, const char *after)
{
  GString *s = g_string_new (before);

  for (guint i = 0; i < depth; i++)
    g_string_append_c (s, '[');
  for (guint i = 0; i < depth; i++)
    g_string_append_c (s, ']');
  g_string_append (s, after);
  return g_string_free (s, FALSE);
}

static void
assert_plan_error (const char *text, const char *expected)
{
  g_autoptr (MpGraph) graph = mp_graph_parse_json (graph_json, strlen (graph_json), "g.json", NULL);
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) plans = mp_plan_parse (text, strlen (text), "p", graph, lt, &error);

  g_assert_null (plans);
  g_assert_nonnull (error);
  g_assert_cmpstr (error->message, ==, expected);
}

static void
test_plan_limits (void)
{
  g_autofree char *deep = nested ("{\"format\": \"memplan.plan/1\", \"plans\": ", 100, "}");

  assert_plan_error (deep, "p: not valid JSON: nesting deeper than 64 levels at line 1, column 102");
  /* an offset near 2^64 would wrap offset + size around */
  assert_plan_error ("id,lower,upper,size,offset\na,0,1,4096,18446744073709551552\n",
                     "p: plan 'plan': tensor 'a': offset 18446744073709551552 is over the "
                     "limit of 2^60 bytes");
  assert_plan_error ("{\"format\": \"memplan.plan/1\", \"plans\": [{\"planner\": \"x\", "
                     "\"tensors\": [{\"name\": \"a\", \"offset\": 1152921504606846977}]}]}",
                     "p: plan 'x': tensor 'a': offset 1152921504606846977 is over the limit "
                     "of 2^60 bytes");
}

static void
test_graph_limits (void)
{
  g_autofree char *deep = nested ("{\"format\": \"memplan.graph/1\", \"tensors\": [], \"x\": ",
                                  65, "}");
  static const char *csv_time = "id,lower,upper,size\n0,0,9223372036854775807,10\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (MpGraph) graph = mp_graph_parse_json (deep, strlen (deep), "g.json", &error);

  g_assert_null (graph);
  g_assert_cmpstr (error->message, ==,
                   "g.json: not valid JSON: nesting deeper than 64 levels at line 1, column 114");
  g_clear_error (&error);
  graph = mp_graph_parse_csv (csv_time, strlen (csv_time), "u.csv", NULL, &error);
  g_assert_null (graph);
  g_assert_cmpstr (error->message, ==, "u.csv: line 2 (buffer '0'): lower and upper must be below 2^53");
}

static void
assert_trace_error (const char *data, gsize length, const char *expected)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MpTrace) trace = mp_trace_parse (data, length, "t", NULL, &error);

  g_assert_null (trace);
  g_assert_nonnull (error);
  g_assert_cmpstr (error->message, ==, expected);
}

static void
test_trace_limits (void)
{
  g_autofree char *deep = nested ("{\"traceEvents\": ", 80, "}");

  assert_trace_error (deep, strlen (deep), "t: not valid JSON: nesting deeper than 64 levels at line 1, column 80");
}

/* Every length-prefixed pickle opcode, declaring more than the file holds:
 * 2^60 for the 8-byte lengths, 2^32 - 1 for the 4-byte ones. */
static void
test_pickle_lengths (void)
{
  static const struct { guint8 op; guint width; } ops[] = {
    { 0x8d, 8 }, { 0x8e, 8 }, { 0x96, 8 }, { 'X', 4 }, { 'T', 4 }, { 'B', 4 }, { 0x8b, 4 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    {
      guint64          n = ops[i].width == 8 ? G_GUINT64_CONSTANT (1) << 60 : G_MAXUINT32;
      guint8           data[16] = { 0x80, 4, ops[i].op };
      g_autofree char *expected = NULL;
      g_autoptr (GError) error = NULL;
      g_autoptr (MpPickle) pickle = NULL;

      for (guint b = 0; b < ops[i].width; b++)
        data[3 + b] = (n >> (8 * b)) & 0xff;
      memcpy (data + 3 + ops[i].width, "ab.", 3);
      pickle = mp_pickle_parse ((const char *) data, 6 + ops[i].width, "s.pickle", &error);
      g_assert_null (pickle);
      expected = g_strdup_printf ("s.pickle: pickle: opcode 0x%02x at byte 2 asks for %" G_GUINT64_FORMAT
                                  " bytes but only 3 remain", ops[i].op, n);
      g_assert_cmpstr (error->message, ==, expected);
    }
}

/* A memo index is a key, not an array size; a deep nest is built without
 * recursion and freed without it. */
static void
test_pickle_memo_and_depth (void)
{
  static const guint8 memo[] = { 0x80, 4, 'j', 0xff, 0xff, 0xff, 0xff, '.' };
  const guint          depth = 100000;
  g_autoptr (GByteArray) deep = g_byte_array_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (MpPickle) pickle = NULL;
  const MpPickleValue *v;
  guint                levels = 0;

  pickle = mp_pickle_parse ((const char *) memo, sizeof memo, "m.pickle", &error);
  g_assert_null (pickle);
  g_assert_cmpstr (error->message, ==,
                   "m.pickle: pickle: memo entry 4294967295 read at byte 2 was never stored");
  g_clear_error (&error);

  g_byte_array_append (deep, (const guint8 *) "\x80\x04", 2);
  for (guint i = 0; i < depth; i++)
    g_byte_array_append (deep, (const guint8 *) "]", 1);
  for (guint i = 1; i < depth; i++)
    g_byte_array_append (deep, (const guint8 *) "a", 1); /* APPEND: into the list below */
  g_byte_array_append (deep, (const guint8 *) ".", 1);
  pickle = mp_pickle_parse ((const char *) deep->data, deep->len, "d.pickle", &error);
  g_assert_no_error (error);
  for (v = mp_pickle_root (pickle); mp_pickle_len (v) == 1; v = mp_pickle_item (v, 0))
    levels++;
  g_assert_cmpuint (levels, ==, depth - 1);
  assert_trace_error ((const char *) deep->data, deep->len,
                      "t: the pickle holds a list, not a memory snapshot (a dict with "
                      "\"device_traces\" and \"segments\")");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/limits/plan", test_plan_limits);
  g_test_add_func ("/limits/graph", test_graph_limits);
  g_test_add_func ("/limits/trace", test_trace_limits);
  g_test_add_func ("/limits/pickle-lengths", test_pickle_lengths);
  g_test_add_func ("/limits/pickle-memo-depth", test_pickle_memo_and_depth);
  return g_test_run ();
}
