/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Hostile sizes: a length, count, offset or depth declared in a file is
 * checked against the file's real content and sane limits before anything is
 * allocated for it, and the refusal says so exactly. */
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

#include "memplan-analysis.h"
#include "pickle.h"
#include "lifetimes.h"
#include "validate.h"
#include "test-util.h"

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

/* json-c reads NaN and Infinity, which JSON has not: plans and reports
 * refuse them with the position, so no NaN ratio compares as unchanged. */
static void
test_json_non_finite (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MpReport) report = NULL;
  g_autofree char *path = test_data_path ("reports/new.json");
  g_autofree char *text = NULL;
  g_autofree char *nan_text = NULL;
  char            *ratio;

  assert_plan_error ("{\"format\": \"memplan.plan/1\", \"plans\": [{\"planner\": \"x\",\n"
                     "  \"tensors\": [{\"name\": \"a\", \"offset\": NaN}]}]}",
                     "p: not valid JSON: NaN at line 2, column 39 (JSON numbers are finite: no "
                     "NaN or Infinity)");
  assert_plan_error ("{\"format\": \"memplan.plan/1\", \"x\": \"NaN\", \"plans\": "
                     "[{\"planner\": \"x\", \"seconds\": -Infinity}]}",
                     "p: not valid JSON: -Infinity at line 1, column 80 (JSON numbers are "
                     "finite: no NaN or Infinity)");
  assert_plan_error ("{\"format\": \"memplan.plan/1\", \"plans\": [{\"planner\": \"n\xff\"}]}",
                     "p: not valid JSON: a byte that is not UTF-8 at line 1, column 54");
  assert_plan_error ("{\"format\": \"memplan.plan/1\", \"plans\": [], \"y\": 1e999}",
                     "p: not valid JSON: 1e999 at line 1, column 48 (JSON numbers are finite: "
                     "no NaN or Infinity)");

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  ratio = strstr (text, "\"ratio\": ");
  g_assert_nonnull (ratio);
  ratio += strlen ("\"ratio\": ");
  nan_text = g_strdup_printf ("%.*sNaN%s", (int) (ratio - text), text, strchr (ratio, ','));
  report = mp_report_parse (nan_text, strlen (nan_text), "r.json", &error);
  g_assert_null (report);
  g_assert_true (g_str_has_prefix (error->message, "r.json: not valid JSON: NaN at line "));
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

/* Numeric options out of range are refused with the range, by one helper:
 * no abort on a huge count, no overflow on an infinite budget. */
static void
test_cli_option_ranges (void)
{
  static const struct { const char *args[8]; const char *err; } cases[] = {
    { { "gen", "random", "--tensors", "2147483647" },
      "--tensors must be from 1 to 100000000, not 2147483647" },
    { { "gen", "random", "--streams", "5000" }, "--streams must be from 1 to 1024, not 5000" },
    { { "gen", "resnet50", "--batch", "0" }, "--batch must be from 1 to 2147483647, not 0" },
    { { "bench", "-n", "2147483647" }, "--tensors must be from 1 to 100000000, not 2147483647" },
    { { "bench", "-s", "0" }, "--streams must be from 1 to 1024, not 0" },
    { { "render", "--bench", "-n", "2147483647" },
      "--tensors must be from 1 to 100000000, not 2147483647" },
    { { "plan", "x.json", "--time-budget", "inf" },
      "--time-budget must be a number from 0 to 1e+09, not inf" },
    { { "plan", "x.json", "--time-budget", "nan" },
      "--time-budget must be a number from 0 to 1e+09, not nan" },
    { { "plan", "x.json", "--time-budget", "9.3e12" },
      "--time-budget must be a number from 0 to 1e+09, not 9.3e+12" },
    { { "bench-optimal", "x.csv", "--time-budget", "inf" },
      "--time-budget must be a number from 0 to 1e+09, not inf" },
    { { "plan", "x.json", "--max-parallel-ops", "-1" },
      "--max-parallel-ops must be from 0 to 2147483647, not -1" },
    { { "plan", "x.json", "--capacity", "-5" },
      "--capacity must be from 0 to 9223372036854775807, not -5" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *err = NULL;
      g_autofree char *expected = g_strdup_printf ("memplan-cli: %s\n", cases[i].err);

      g_assert_cmpint (test_run_cli_argv (cases[i].args, NULL, &err), ==, 2);
      g_assert_cmpstr (err, ==, expected);
    }
}

/* gen writes only graphs that its own loader reads: the most streams. */
static void
test_cli_gen_streams_load (void)
{
  g_autofree char *dir = g_dir_make_tmp ("memplan-limits-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "s.json", NULL);
  g_autofree char *out = NULL;

  g_assert_cmpint (test_run_cli (NULL, NULL, "gen", "random", "-n", "3000", "--streams", "1024",
                                 "-o", path, NULL), ==, 0);
  g_assert_cmpint (test_run_cli (&out, NULL, "plan", "-p", "naive", path, NULL), ==, 0);
  g_assert_true (g_str_has_prefix (out, "random-3000-s1024-seed1: 3000 tensors"));
  g_assert_cmpint (g_remove (path), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* A FIFO among a suite's graphs would block the read forever: it is
 * skipped with a note, and the other graphs are planned. */
static void
test_cli_suite_fifo (void)
{
  g_autofree char *dir = g_dir_make_tmp ("memplan-limits-XXXXXX", NULL);
  g_autofree char *fifo = g_build_filename (dir, "a.json", NULL);
  g_autofree char *graph = g_build_filename (dir, "b.json", NULL);
  g_autofree char *expected = g_strdup_printf ("memplan-cli: note: %s: skipped: a FIFO, not a "
                                               "regular file\n", fifo);
  g_autofree char *err = NULL;
  g_autofree char *out = NULL;

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_true (g_file_set_contents (graph, graph_json, -1, NULL));
  g_assert_cmpint (test_run_cli (&out, &err, "suite", dir, NULL), ==, 0);
  g_assert_cmpstr (err, ==, expected);
  g_assert_nonnull (strstr (out, "b.json"));
  g_assert_null (strstr (out, "a.json"));
  g_assert_cmpint (g_remove (fifo), ==, 0);
  g_assert_cmpint (g_remove (graph), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* Writes graph_json into a FIFO once a reader opens it (a thread). */
static gpointer
write_fifo (gpointer path)
{
  int fd = open (path, O_WRONLY);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (write (fd, graph_json, strlen (graph_json)), ==, strlen (graph_json));
  close (fd);
  return NULL;
}

/* A pipe or FIFO named on the command line is read once, whole: sniffing
 * the format, the gzip magic and the parse all see the same bytes (they
 * used to read it three times and see "an empty file"), for plan and for
 * suite, whose checksum is the stream's; a device is refused. */
static void
test_cli_streams (void)
{
  g_autofree char *dir = g_dir_make_tmp ("memplan-limits-XXXXXX", NULL);
  g_autofree char *fifo = g_build_filename (dir, "g.json", NULL);
  g_autofree char *graph = g_build_filename (dir, "h.json", NULL);
  g_autofree char *gz = g_strdup_printf ("%s.gz", graph);
  g_autofree char *redirect = g_strdup_printf ("< '%s'", gz);
  g_autofree char *sum = g_compute_checksum_for_string (G_CHECKSUM_SHA256, graph_json, -1);
  g_autofree char *gzip = g_strdup_printf ("gzip -k '%s'", graph);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  const char      *stdin_plan[] = { "plan", "/dev/stdin", "-p", "greedy-by-size", NULL };
  GThread         *writer;

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  writer = g_thread_new ("fifo", write_fifo, fifo);
  g_assert_cmpint (test_run_cli (&out, &err, "plan", fifo, "-p", "greedy-by-size", NULL), ==, 0);
  g_thread_join (writer);
  g_assert_cmpstr (err, ==, "");
  g_assert_nonnull (strstr (out, "g: 2 tensors planned over 2 steps"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  writer = g_thread_new ("fifo", write_fifo, fifo);
  g_assert_cmpint (test_run_cli (&out, &err, "suite", fifo, "-p", "naive", NULL), ==, 0);
  g_thread_join (writer);
  g_assert_nonnull (strstr (out, sum));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* gzip through standard input */
  g_assert_true (g_file_set_contents (graph, graph_json, -1, NULL));
  g_assert_true (g_spawn_command_line_sync (gzip, NULL, NULL, NULL, NULL));
  g_assert_cmpint (test_run_cli_full (&(TestCliOptions) { .redirect = redirect }, stdin_plan,
                                      &out, &err), ==, 0);
  g_assert_cmpstr (err, ==, "");
  g_assert_nonnull (strstr (out, "stdin: 2 tensors planned over 2 steps"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* a device would be read without end */
  g_assert_cmpint (test_run_cli (&out, &err, "plan", "/dev/zero", NULL), ==, 2);
  g_assert_cmpstr (err, ==, "memplan-cli: /dev/zero: cannot read the file: it is a device, not a "
                            "regular file or a pipe\n");

  g_assert_cmpint (g_remove (fifo), ==, 0);
  g_assert_cmpint (g_remove (graph), ==, 0);
  g_assert_cmpint (g_remove (gz), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* A name holding ESC ] 0 ; … BEL and ESC [ 2 J would set the terminal's
 * title and clear its screen: tables, messages and Markdown show it
 * escaped, and the escape helper itself on every class of byte. */
static void
test_terminal_escapes (void)
{
  static const char graph[] =
    "{\"format\": \"memplan.graph/1\", \"name\": \"g\\u001b]0;x\\u0007\\u001b[2J\", "
    "\"tensors\": [{\"name\": \"a\\u001b[2J\", \"size\": 64}, {\"name\": \"b\", \"size\": 64}],"
    " \"ops\": [{\"name\": \"f\", \"inputs\": [], \"outputs\": [\"a\\u001b[2J\"]},"
    "            {\"name\": \"h\", \"inputs\": [\"a\\u001b[2J\"], \"outputs\": [\"c\"]}]}";
  g_autofree char *dir = g_dir_make_tmp ("memplan-limits-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "esc.json", NULL);
  g_autofree char *expected = NULL;
  g_autofree char *err = NULL;
  g_autofree char *name = NULL;
  g_autofree char *text = NULL;

  name = mp_escape_name ("a\x1b]0;t\x07\n\t\x7f\xc2\x9b\xff é");
  g_assert_cmpstr (name, ==, "a\\x1b]0;t\\x07\\x0a\\x09\\x7f\\u009b\\xff é");
  text = mp_escape_text ("line\x1b[2J\n\tnext\n");
  g_assert_cmpstr (text, ==, "line\\x1b[2J\n\tnext\n");

  g_assert_true (g_file_set_contents (path, graph, -1, NULL));
  g_assert_cmpint (test_run_cli (NULL, &err, "plan", path, NULL), ==, 2);
  expected = g_strdup_printf ("memplan-cli: %s: op 'h' writes unknown tensor 'c'\n", path);
  g_assert_cmpstr (err, ==, expected);
  g_clear_pointer (&err, g_free);
  g_clear_pointer (&expected, g_free);
  g_assert_cmpint (test_run_cli (NULL, &err, "plan", path, "--planner", "no\x1b[2J", NULL), ==, 2);
  g_assert_true (g_str_has_prefix (err, "memplan-cli: unknown planner 'no\\x1b[2J' (known: "));
  g_clear_pointer (&err, g_free);
  g_free (text);
  text = g_strdup_printf ("%.*s\"b\"]}]}", (int) (strstr (graph, "\"c\"]}]}") - graph), graph);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  g_clear_pointer (&text, g_free);
  g_assert_cmpint (test_run_cli (&text, NULL, "plan", path, "-p", "naive", NULL), ==, 0);
  g_assert_true (g_str_has_prefix (text, "g\\x1b]0;x\\x07\\x1b[2J: 2 tensors planned"));
  g_assert_null (strchr (text, '\x1b'));
  g_clear_pointer (&text, g_free);
  g_assert_cmpint (test_run_cli (&text, NULL, "explain", path, NULL), ==, 0);
  g_assert_nonnull (strstr (text, "a\\x1b[2J"));
  g_assert_null (strchr (text, '\x1b'));
  g_assert_cmpint (g_remove (path), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* compare's table and Markdown: a graph renamed with escapes in NEW. */
static void
test_compare_escapes (void)
{
  g_autofree char *path = test_data_path ("reports/new.json");
  g_autofree char *text = NULL;
  g_autofree char *hostile = NULL;
  g_autofree char *table = NULL;
  g_autofree char *markdown = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (MpReport) base = NULL;
  g_autoptr (MpReport) new_report = NULL;
  g_autoptr (MpComparison) comparison = NULL;
  MpCompareOptions options;
  char            *name;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  base = mp_report_parse (text, strlen (text), "base.json", &error);
  g_assert_no_error (error);
  name = strstr (text, "\"name\": \"") + strlen ("\"name\": \"");
  hostile = g_strdup_printf ("%.*s\\u001b]0;x\\u0007%s", (int) (name - text), text, name);
  new_report = mp_report_parse (hostile, strlen (hostile), "new.json", &error);
  g_assert_no_error (error);
  mp_compare_options_init (&options);
  comparison = mp_report_compare (base, new_report, &options);
  table = mp_comparison_to_table (comparison, "base.json", "new.json");
  markdown = mp_comparison_to_markdown (comparison, "base.json", "new.json");
  g_assert_null (strchr (table, '\x1b'));
  g_assert_null (strchr (table, '\x07'));
  g_assert_nonnull (strstr (table, "\\x1b]0;x\\x07"));
  g_assert_null (strchr (markdown, '\x1b'));
  g_assert_nonnull (strstr (markdown, "\\\\x1b]0;x\\\\x07"));
}

/* Work estimated to need more memory than allowed is refused up front,
 * with the estimate and the option that overrides it. */
static void
test_cli_memory_estimate (void)
{
  g_autofree char *graph = test_data_path ("teaching.json");
  const char      *plan_load[] = { "plan", graph, "--max-memory", "1K", NULL };
  const char      *plan_run[] = { "plan", graph, "--max-memory", "8K", NULL };
  static const struct { const char *args[8]; const char *err; } cases[] = {
    { { "bench", "-n", "100000000", "--max-memory", "1G" },
      "bench needs about 75.3 GiB of memory, more than the limit of 1.00 GiB set by "
      "--max-memory" },
    { { "gen", "random", "-n", "1000000", "--max-memory", "100M" },
      "gen random needs about 191 MiB of memory, more than the limit of 100 MiB set by "
      "--max-memory" },
    { { "plan", "x.json", "--max-memory", "12Q" },
      "--max-memory takes a size such as 512M or 8G, not '12Q'" },
  };
  g_autofree char *err = NULL;
  g_autofree char *expected = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_clear_pointer (&err, g_free);
      g_clear_pointer (&expected, g_free);
      expected = g_strdup_printf ("memplan-cli: %s\n", cases[i].err);
      g_assert_cmpint (test_run_cli_argv (cases[i].args, NULL, &err), ==, 2);
      g_assert_cmpstr (err, ==, expected);
    }
  g_clear_pointer (&err, g_free);
  g_clear_pointer (&expected, g_free);
  /* the file is 1260 bytes, six bytes of memory each */
  expected = g_strdup_printf ("memplan-cli: %s: loading needs about 7.38 KiB of memory, more than "
                              "the limit of 1.00 KiB set by --max-memory\n", graph);
  g_assert_cmpint (test_run_cli_argv (plan_load, NULL, &err), ==, 2);
  g_assert_cmpstr (err, ==, expected);
  g_clear_pointer (&err, g_free);
  g_clear_pointer (&expected, g_free);
  expected = g_strdup_printf ("memplan-cli: %s: planning 5 records needs about 12.0 KiB of "
                              "memory, more than the limit of 8.00 KiB set by --max-memory\n",
                              graph);
  g_assert_cmpint (test_run_cli_argv (plan_run, NULL, &err), ==, 2);
  g_assert_cmpstr (err, ==, expected);
  /* suite: a graph too big is a graph that did not load */
  g_clear_pointer (&err, g_free);
  g_clear_pointer (&expected, g_free);
  expected = g_strdup_printf ("memplan-cli: %s: loading needs about 7.38 KiB of memory, more than "
                              "the limit of 2.00 KiB set by --max-memory\n"
                              "memplan-cli: no report written (--keep-going records the graph "
                              "and goes on)\n", graph);
  g_assert_cmpint (test_run_cli (NULL, &err, "suite", graph, "--max-memory", "2K", NULL), ==, 2);
  g_assert_cmpstr (err, ==, expected);
}

/* import and exec make the same checks: before loading, and before the
 * records are written out or the planners run. */
static void
test_cli_memory_estimate_import_exec (void)
{
  g_autofree char *graph = test_data_path ("teaching.json");
  g_autofree char *snapshot = test_fixture_path ("snapshot.pickle");
  /* the snapshot is 984 bytes, 7 bytes of memory each; its 4 records
   * written as JSON go through a buffer that holds their text, 384 bytes
   * each, plus 16 per line and 2 per byte of their ops and frames (5
   * lines, 96 bytes). Every planner: 320 bytes per record at most, 24 per
   * record and plan. */
  const struct { const char *args[8]; const char *file; const char *err; } cases[] = {
    { { "import", snapshot, "--max-memory", "1K" }, snapshot,
      "loading needs about 6.73 KiB of memory, more than the limit of 1.00 KiB" },
    { { "import", snapshot, "--max-memory", "8K" }, snapshot,
      "writing 4 records needs about 8.49 KiB of memory, more than the limit of 8.00 KiB" },
    { { "exec", graph, "-b", "cpu", "--max-memory", "1K" }, graph,
      "loading needs about 7.38 KiB of memory, more than the limit of 1.00 KiB" },
    { { "exec", graph, "-b", "cpu", "--max-memory", "8K" }, graph,
      "planning 5 records needs about 12.0 KiB of memory, more than the limit of 8.00 KiB" },
    { { "import", snapshot, "--max-memory", "12Q" }, NULL,
      "--max-memory takes a size such as 512M or 8G, not '12Q'" },
  };
  const char *fine[][10] = {
    { "import", snapshot, "--max-memory", "9K" },
    { "import", snapshot, "-f", "csv", "--max-memory", "8K" },
    { "exec", graph, "-b", "cpu", "--max-memory", "12K" },
    { "exec", graph, "-b", "cpu", "-p", "naive", "--max-memory", "8K" },
  };
  g_autofree char *err = NULL;
  g_autofree char *out = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *expected =
        cases[i].file ? g_strdup_printf ("memplan-cli: %s: %s set by --max-memory\n",
                                         cases[i].file, cases[i].err)
                      : g_strdup_printf ("memplan-cli: %s\n", cases[i].err);

      g_clear_pointer (&err, g_free);
      g_assert_cmpint (test_run_cli_argv (cases[i].args, NULL, &err), ==, 2);
      g_assert_cmpstr (err, ==, expected);
    }
  for (guint i = 0; i < G_N_ELEMENTS (fine); i++)
    {
      g_clear_pointer (&err, g_free);
      g_clear_pointer (&out, g_free);
      g_assert_cmpint (test_run_cli_argv (fine[i], &out, &err), ==, 0);
      g_assert_cmpstr (err, ==, "");
      g_assert_cmpuint (strlen (out), >, 0);
    }
}

/* An infinite budget through the API (the CLI refuses it) is a very long
 * one, not a deadline in the past after an overflowed conversion. */
static void
test_optimal_infinite_budget (void)
{
  g_autofree char *path = test_data_path ("teaching/only-search.csv");
  g_autoptr (MpGraph) graph = test_graph_load (path, NULL);
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, NULL);
  MpPlannerOptions options = { .time_budget = INFINITY };
  g_autoptr (MpPlan) plan = mp_planner_run (mp_planner_lookup ("optimal"), graph, lt, &options,
                                            NULL, NULL);

  g_assert_nonnull (plan);
  g_assert_true (plan->proved_optimal);
  g_assert_cmpuint (plan->arena, ==, lt->lower_bound);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/limits/plan", test_plan_limits);
  g_test_add_func ("/limits/graph", test_graph_limits);
  g_test_add_func ("/limits/json-non-finite", test_json_non_finite);
  g_test_add_func ("/limits/trace", test_trace_limits);
  g_test_add_func ("/limits/pickle-lengths", test_pickle_lengths);
  g_test_add_func ("/limits/pickle-memo-depth", test_pickle_memo_and_depth);
  g_test_add_func ("/limits/cli-option-ranges", test_cli_option_ranges);
  g_test_add_func ("/limits/cli-gen-streams-load", test_cli_gen_streams_load);
  g_test_add_func ("/limits/cli-suite-fifo", test_cli_suite_fifo);
  g_test_add_func ("/limits/cli-streams", test_cli_streams);
  g_test_add_func ("/limits/terminal-escapes", test_terminal_escapes);
  g_test_add_func ("/limits/compare-escapes", test_compare_escapes);
  g_test_add_func ("/limits/cli-memory-estimate", test_cli_memory_estimate);
  g_test_add_func ("/limits/cli-memory-estimate-import-exec",
                   test_cli_memory_estimate_import_exec);
  g_test_add_func ("/limits/optimal-infinite-budget", test_optimal_infinite_budget);
  return g_test_run ();
}
