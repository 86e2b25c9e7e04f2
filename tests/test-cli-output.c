/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The -o policy of every writing subcommand (mp_cli_output): the file is
 * written atomically and replaced when it exists (naming it is the request),
 * but never when it is one of the command's inputs or a directory, and a
 * failed command leaves it as it was, with no temporary file beside it. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "memplan-analysis.h"
#include "test-output-rule.h"
#include "test-util.h"

typedef struct
{
  char *dir;
  char *graph;  /* a copy of teaching.json inside dir */
  char *out;
  char *err;    /* the last command's standard error */
  gint  status; /* its exit status */
} Fixture;

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  g_autofree char *src = test_data_path ("teaching.json");
  g_autofree char *text = NULL;
  gsize            length;

  f->dir = g_dir_make_tmp ("memplan-output-XXXXXX", NULL);
  g_assert_nonnull (f->dir);
  f->graph = g_build_filename (f->dir, "teaching.json", NULL);
  f->out = g_build_filename (f->dir, "out.json", NULL);
  g_assert_true (g_file_get_contents (src, &text, &length, NULL));
  g_assert_true (g_file_set_contents (f->graph, text, length, NULL));
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  g_autoptr (GDir) dir = g_dir_open (f->dir, 0, NULL);
  const char *name;

  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (f->dir, name, NULL);

      g_assert_cmpint (g_remove (path), ==, 0);
    }
  g_assert_cmpint (g_rmdir (f->dir), ==, 0);
  g_free (f->dir);
  g_free (f->graph);
  g_free (f->out);
  g_free (f->err);
}

static void
cli (Fixture *f, ...)
{
  const TestCliOptions options = { .cwd = f->dir };
  va_list              args;

  g_clear_pointer (&f->err, g_free);
  va_start (args, f);
  f->status = test_run_cli_va (&options, NULL, &f->err, args);
  va_end (args);
}

static char *
contents (const char *path)
{
  g_autofree char *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return g_steal_pointer (&text);
}

/* Only the files the test made: no temporary file left over. */
static void
assert_files (Fixture *f, guint expected)
{
  g_autoptr (GDir) dir = g_dir_open (f->dir, 0, NULL);
  guint n = 0;

  while (g_dir_read_name (dir) != NULL)
    n++;
  g_assert_cmpuint (n, ==, expected);
}

static void
test_replace (Fixture *f, gconstpointer data)
{
  g_autofree char *text = NULL;

  g_assert_true (g_file_set_contents (f->out, "old", -1, NULL));
  cli (f, "plan", "teaching.json", "-p", "naive", "-f", "json", "-o", "out.json", NULL);
  g_assert_cmpint (f->status, ==, 0);
  text = contents (f->out);
  g_assert_true (g_str_has_prefix (text, "{\n  \"format\": \"memplan.plan/1\""));
  assert_files (f, 2);
}

static void
test_failure_keeps_file (Fixture *f, gconstpointer data)
{
  g_autofree char *text = NULL;

  g_assert_true (g_file_set_contents (f->out, "old", -1, NULL));
  cli (f, "plan", "missing.json", "-o", "out.json", NULL);
  g_assert_cmpint (f->status, ==, 2);
  g_assert_cmpstr (f->err, ==, "memplan-cli: missing.json: cannot read the file: no such file\n");
  cli (f, "gen", "vgg", "-o", "out.json", NULL);
  g_assert_cmpint (f->status, ==, 2);
  text = contents (f->out);
  g_assert_cmpstr (text, ==, "old");
  assert_files (f, 2);
}

static void
test_refuse_input (Fixture *f, gconstpointer data)
{
  g_autofree char *before = contents (f->graph), *after = NULL;

  cli (f, "plan", "teaching.json", "-o", "./teaching.json", NULL);
  g_assert_cmpint (f->status, ==, 2);
  g_assert_cmpstr (f->err, ==,
                   "memplan-cli: ./teaching.json: refusing to write the output over the input "
                   "file 'teaching.json'\n");
  /* a hard link is the same file under another name */
  g_assert_cmpint (link (f->graph, f->out), ==, 0);
  cli (f, "plan", "teaching.json", "-o", "out.json", NULL);
  g_assert_cmpint (f->status, ==, 2);
  g_assert_cmpstr (f->err, ==,
                   "memplan-cli: out.json: refusing to write the output over the input file "
                   "'teaching.json'\n");
  after = contents (f->graph);
  g_assert_cmpstr (after, ==, before);
  assert_files (f, 2);
}

/* An input named by an option (exec --plan) is protected too. */
static void
test_refuse_option_input (Fixture *f, gconstpointer data)
{
  g_autofree char *before = NULL, *after = NULL;

  cli (f, "plan", "teaching.json", "-p", "naive", "-f", "json", "-o", "out.json", NULL);
  g_assert_cmpint (f->status, ==, 0);
  before = contents (f->out);
  cli (f, "exec", "teaching.json", "--plan", "out.json", "-o", "out.json", NULL);
  g_assert_cmpint (f->status, ==, 2);
  g_assert_true (g_str_has_suffix (f->err, "memplan-cli: out.json: refusing to write the output "
                                           "over the input file 'out.json'\n"));
  after = contents (f->out);
  g_assert_cmpstr (after, ==, before);
  assert_files (f, 2);
}

static void
test_refuse_directory (Fixture *f, gconstpointer data)
{
  cli (f, "plan", "teaching.json", "-o", ".", NULL);
  g_assert_cmpint (f->status, ==, 2);
  g_assert_cmpstr (f->err, ==, "memplan-cli: .: cannot write the output: it is a directory\n");
  cli (f, "plan", "teaching.json", "-o", "no/such/dir/out.json", NULL);
  g_assert_cmpint (f->status, ==, 2);
  /* the words render uses, and no temporary file name */
  g_assert_cmpstr (f->err, ==, "memplan-cli: no/such/dir/out.json: cannot write the output: folder "
                               "'no/such/dir' does not exist\n");
  cli (f, "gen", "gpt2", "-o", "no/such/dir/gpt2.json", NULL);
  g_assert_cmpint (f->status, ==, 2);
  g_assert_cmpstr (f->err, ==, "memplan-cli: no/such/dir/gpt2.json: cannot write the output: "
                               "folder 'no/such/dir' does not exist\n");
  assert_files (f, 1);
}

/* A device is written to, not replaced by a rename. */
static void
test_device (Fixture *f, gconstpointer data)
{
  GStatBuf st;

  cli (f, "plan", "teaching.json", "-o", "/dev/null", NULL);
  g_assert_cmpint (f->status, ==, 0);
  g_assert_cmpint (g_stat ("/dev/null", &st), ==, 0);
  g_assert_true (S_ISCHR (st.st_mode));
}

/* import writes its records as it formats them (issue 31): to a file, to
 * standard output and with -o - alike, byte for byte; a folder that does
 * not exist and a full device are refused by name, with nothing made and
 * the old file kept. */
static void
test_import_stream (Fixture *f, gconstpointer data)
{
  g_autofree char *trace = test_fixture_path ("trace-two-devices.json");
  g_autofree char *missing = g_build_filename (f->dir, "missing", NULL);
  const char      *formats[] = { "json", "csv" };

  g_assert_true (g_file_set_contents (f->out, "old", -1, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      const TestCliOptions options = { .cwd = f->dir };
      const char *to_stdout[] = { "import", trace, "-f", formats[i], NULL };
      const char *to_dash[] = { "import", trace, "-f", formats[i], "-o", "-", NULL };
      g_autofree char *out1 = NULL, *out2 = NULL, *text = NULL, *expected = NULL;

      cli (f, "import", trace, "-f", formats[i], "-o", "records", NULL);
      g_assert_cmpint (f->status, ==, 0);
      g_assert_cmpstr (f->err, ==, "");
      text = g_build_filename (f->dir, "records", NULL);
      g_assert_cmpint (test_run_cli_full (&options, to_stdout, &out1, NULL), ==, 0);
      g_assert_cmpint (test_run_cli_full (&options, to_dash, &out2, NULL), ==, 0);
      g_assert_cmpstr (out1, ==, out2);
      g_free (g_steal_pointer (&out2));
      out2 = contents (text);
      g_assert_cmpstr (out1, ==, out2);
      g_assert_true (g_str_has_prefix (out1, i ? "id,lower,upper" : "{\n  \"format\": "
                                                                    "\"memplan.trace/1\""));
      g_assert_cmpint (g_remove (text), ==, 0);

      cli (f, "import", trace, "-f", formats[i], "-o", "missing/records", NULL);
      g_assert_cmpint (f->status, ==, 2);
      expected = g_strdup_printf ("memplan-cli: missing/records: cannot write the output: "
                                  "folder 'missing' does not exist\n");
      g_assert_cmpstr (f->err, ==, expected);
      g_assert_false (g_file_test (missing, G_FILE_TEST_EXISTS));
      g_clear_pointer (&expected, g_free);

      cli (f, "import", trace, "-f", formats[i], "-o", "/dev/full", NULL);
      g_assert_cmpint (f->status, ==, 2);
      expected = g_strdup_printf ("memplan-cli: /dev/full: cannot write the file: %s\n",
                                  g_strerror (ENOSPC));
      g_assert_cmpstr (f->err, ==, expected);
    }
  g_free (g_steal_pointer (&missing));
  missing = contents (f->out);
  g_assert_cmpstr (missing, ==, "old");
  assert_files (f, 2);
}

/* -o over an existing file keeps its permissions; through a symbolic link
 * it replaces the link's target and the link stays. */
static void
test_mode_and_link (Fixture *f, gconstpointer data)
{
  g_autofree char *target = g_build_filename (f->dir, "target.json", NULL);
  g_autofree char *link_path = g_build_filename (f->dir, "link.json", NULL);
  g_autofree char *text = NULL;
  g_autofree char *read_back = NULL;
  GStatBuf         st;

  g_assert_true (g_file_set_contents (f->out, "old", -1, NULL));
  g_assert_cmpint (g_chmod (f->out, 0600), ==, 0);
  cli (f, "gen", "resnet50", "-o", "out.json", NULL);
  g_assert_cmpint (f->status, ==, 0);
  g_assert_cmpint (g_stat (f->out, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 07777, ==, 0600);

  g_assert_true (g_file_set_contents (target, "old", -1, NULL));
  g_assert_cmpint (symlink ("target.json", link_path), ==, 0);
  cli (f, "gen", "resnet50", "-o", "link.json", NULL);
  g_assert_cmpint (f->status, ==, 0);
  read_back = g_file_read_link (link_path, NULL);
  g_assert_cmpstr (read_back, ==, "target.json");
  text = contents (target);
  g_assert_true (g_str_has_prefix (text, "{\"format\":\"memplan.graph/1\""));
  assert_files (f, 4);
}

static gboolean
has_temp_file (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while ((name = g_dir_read_name (d)) != NULL)
    if (g_str_has_prefix (name, "memplan-") && g_str_has_suffix (name, ".tmp"))
      return TRUE;
  return FALSE;
}

/* A signal in the middle of writing removes the temporary file: the
 * command is started, the signal sent as soon as memplan-*.tmp appears. */
static void
test_signal_removes_temp (Fixture *f, gconstpointer data)
{
  int              sig = GPOINTER_TO_INT (data);
  const char      *argv[] = { test_cli_path (), "gen", "random", "-n", "500000", "-o",
                              "big.json", NULL };
  g_autoptr (GError) error = NULL;
  GPid             pid;
  int              status;
  struct sigaction old;

  /* a shell's background job inherits SIGINT ignored, and so would the CLI */
  g_assert_cmpint (sigaction (sig, NULL, &old), ==, 0);
  if (old.sa_handler == SIG_IGN)
    {
      g_test_skip ("the signal is ignored in this test's environment");
      return;
    }
  /* the write takes a moment: on a busy machine the poll can miss it, and
   * the run is tried again (a finished run leaves big.json, no temp file) */
  for (guint attempt = 0;; attempt++)
    {
      gboolean caught = FALSE;

      g_assert_cmpuint (attempt, <, 20);
      g_assert_true (g_spawn_async (f->dir, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD |
                                    G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, &pid, &error));
      g_assert_no_error (error);
      while (!(caught = has_temp_file (f->dir)) && waitpid (pid, &status, WNOHANG) == 0)
        ;
      if (caught)
        break;
      g_assert_false (has_temp_file (f->dir));
      {
        g_autofree char *done = g_build_filename (f->dir, "big.json", NULL);

        g_unlink (done);
      }
    }
  g_assert_cmpint (kill (pid, sig), ==, 0);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFSIGNALED (status));
  g_assert_cmpint (WTERMSIG (status), ==, sig);
  g_assert_false (has_temp_file (f->dir));
  assert_files (f, 1);
}

/* A suite that fails writes no report and no plan files. */
static void
test_suite_plans_on_failure (Fixture *f, gconstpointer data)
{
  g_autofree char *bad = g_build_filename (f->dir, "zz-bad.json", NULL);
  g_autofree char *plans = g_build_filename (f->dir, "plans", NULL);
  g_autoptr (GDir) d = NULL;

  g_assert_true (g_file_set_contents (bad, "{bad", -1, NULL));
  cli (f, "suite", "teaching.json", "zz-bad.json", "--plans", "plans", "-o", "out.json", NULL);
  g_assert_cmpint (f->status, ==, 2);
  g_assert_false (g_file_test (f->out, G_FILE_TEST_EXISTS));
  d = g_dir_open (plans, 0, NULL);
  g_assert_nonnull (d);
  g_assert_null (g_dir_read_name (d));
  g_assert_cmpint (g_rmdir (plans), ==, 0);
  g_assert_cmpint (g_remove (bad), ==, 0);
}

/* Every subcommand, with standard output on a full disk and closed: the
 * write error is reported in one line and the exit status is 2, never a
 * crash and never a silent success. */
static void
test_stdout_fails (Fixture *f, gconstpointer data)
{
  const char *redirect = data;
  g_autofree char *trace = test_fixture_path ("trace-two-devices.json");
  g_autofree char *base = test_data_path ("reports/base.json");
  g_autofree char *new_report = test_data_path ("reports/new.json");
  g_autofree char *records = test_data_path ("teaching/pisarchyk-lee.csv");
  const TestCliOptions options = { .cwd = f->dir, .redirect = redirect };
  g_autofree char *expected = g_strdup_printf ("memplan-cli: cannot write to standard output: %s\n",
                                               g_str_equal (redirect, ">&-")
                                                 ? g_strerror (EBADF) : g_strerror (ENOSPC));
  const char *commands[][8] = {
    { "plan", "teaching.json" },
    { "plan", "teaching.json", "-f", "json" },
    { "validate", "teaching.json", "plan.json" },
    { "bench", "-n", "50" },
    { "gen", "resnet50" },
    { "import", trace },
    { "suite", "teaching.json" },
    { "compare", base, new_report, "--allow-different-options" },
    { "exec", "teaching.json", "--backend", "cpu" },
    { "render", "--bench", "-n", "50" },
    { "bench-optimal", records, "--time-budget", "1" },
    { "explain", "teaching.json" },
    { "--help" },
    { "plan", "--help" },
  };

  cli (f, "plan", "teaching.json", "-p", "naive", "-f", "json", "-o", "plan.json", NULL);
  g_assert_cmpint (f->status, ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      g_autofree char *err = NULL;
      int              status;

      g_test_message ("%s %s", commands[i][0], redirect);
      /* each row is NULL-terminated: no command fills its 8 places */
      g_assert_null (commands[i][G_N_ELEMENTS (commands[i]) - 1]);
      status = test_run_cli_full (&options, commands[i], NULL, &err);
      /* --help's text is written by GLib, whose error number is lost */
      if (g_str_equal (commands[i][0], "--help") || g_strv_contains (commands[i], "--help"))
        g_assert_true (g_str_has_prefix (err, "memplan-cli: cannot write to standard output: "));
      else
        g_assert_cmpstr (err, ==, expected);
      g_assert_cmpint (status, ==, 2);
    }
}

/* A gzip file with zero padding after it is read, and the CLI says so on
 * standard error, as gzip -d does. */
static void
test_gzip_padding_note (Fixture *f, gconstpointer data)
{
  g_autoptr (GZlibCompressor) z = g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, 9);
  g_autofree char *text = contents (f->graph);
  g_autofree char *path = g_build_filename (f->dir, "g.json.gz", NULL);
  g_autofree guint8 *out = g_malloc0 (65536 + 100);
  gsize              read, written;

  g_assert_cmpint (g_converter_convert (G_CONVERTER (z), text, strlen (text), out, 65536,
                                        G_CONVERTER_INPUT_AT_END, &read, &written, NULL),
                   ==, G_CONVERTER_FINISHED);
  /* the 100 zero bytes after the data */
  g_assert_true (g_file_set_contents (path, (char *) out, written + 100, NULL));
  cli (f, "plan", "g.json.gz", "-p", "naive", NULL);
  g_assert_cmpint (f->status, ==, 0);
  g_assert_cmpstr (f->err, ==,
                   "memplan-cli: note: g.json.gz: 100 zero bytes after the gzip data ignored "
                   "(padding)\n");
}

/* -o /dev/stdout writes through the pipe standard output is (the kernel's
 * link /proc/self/fd/1 names "pipe:[N]", which no file could replace). */
static void
test_dev_stdout (Fixture *f, gconstpointer data)
{
  static const char *const table[] = { "plan", "teaching.json", "-p", "naive", "-o",
                                       "/dev/stdout", NULL };
  static const char *const json[] = { "plan", "teaching.json", "-p", "naive", "-f", "json", "-o",
                                      "/dev/stdout", NULL };
  const TestCliOptions options = { .cwd = f->dir };
  g_autofree char *out1 = NULL, *out2 = NULL;

  g_assert_cmpint (test_run_cli_full (&options, table, &out1, NULL), ==, 0);
  g_assert_true (g_str_has_prefix (out1, "teaching: 5 tensors"));
  g_assert_cmpint (test_run_cli_full (&options, json, &out2, NULL), ==, 0);
  g_assert_true (g_str_has_prefix (out2, "{"));
  g_assert_nonnull (strstr (out2, "memplan.plan/1"));
}

/* -o /dev/stdout with standard output open on a regular file in append
 * mode writes through that descriptor: the file keeps what it had, and the
 * output follows it (it used to be replaced by a new file). */
static void
test_dev_stdout_appends (Fixture *f, gconstpointer data)
{
  g_autofree char *log = g_build_filename (f->dir, "log.txt", NULL);
  g_autofree char *quoted = g_shell_quote (test_cli_path ());
  g_autofree char *script = g_strdup_printf (
    "%s plan teaching.json -p naive -f json -o /dev/stdout >> log.txt", quoted);
  const char      *argv[] = { "/bin/sh", "-c", script, NULL };
  g_autofree char *text = NULL;
  int              status;

  g_assert_true (g_file_set_contents (log, "before\n", -1, NULL));
  g_assert_true (g_spawn_sync (f->dir, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL,
                               NULL, &status, NULL));
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_true (g_file_get_contents (log, &text, NULL, NULL));
  g_assert_true (g_str_has_prefix (text, "before\n{"));
  g_assert_nonnull (strstr (text, "memplan.plan/1"));
}

static gpointer
accept_all (gpointer data)
{
  int        listener = GPOINTER_TO_INT (data);
  int        fd = accept (listener, NULL, NULL);
  GString   *got = g_string_new (NULL);
  char       buf[4096];
  gssize     n;

  g_assert_cmpint (fd, >=, 0);
  while ((n = read (fd, buf, sizeof buf)) > 0)
    g_string_append_len (got, buf, n);
  close (fd);
  return g_string_free (got, FALSE);
}

/* A socket is connected to and written, like a FIFO, and stays a socket. */
static void
test_output_socket (Fixture *f, gconstpointer data)
{
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  g_autofree char   *path = g_build_filename (f->dir, "out.sock", NULL);
  g_autofree char   *got = NULL;
  int                listener = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  GThread           *thread;
  GStatBuf           st;

  g_assert_cmpint (listener, >=, 0);
  g_assert_cmpuint (strlen (path), <, sizeof addr.sun_path);
  strcpy (addr.sun_path, path);
  g_assert_cmpint (bind (listener, (struct sockaddr *) &addr, sizeof addr), ==, 0);
  g_assert_cmpint (listen (listener, 1), ==, 0);
  thread = g_thread_new ("accept", accept_all, GINT_TO_POINTER (listener));
  cli (f, "plan", "teaching.json", "-p", "naive", "-o", "out.sock", NULL);
  got = g_thread_join (thread);
  close (listener);
  g_assert_cmpint (f->status, ==, 0);
  g_assert_true (g_str_has_prefix (got, "teaching: 5 tensors"));
  g_assert_cmpint (g_lstat (path, &st), ==, 0);
  g_assert_true (S_ISSOCK (st.st_mode));
}

/* One writing command line; "@" stands for the output's path. */
typedef struct
{
  Fixture           *f;
  const char *const *args;
} CliWriter;

static gboolean
run_cli_writer (const char *path, gpointer data)
{
  CliWriter           *w = data;
  const TestCliOptions options = { .cwd = w->f->dir };
  g_autoptr (GPtrArray) args = g_ptr_array_new ();

  for (guint i = 0; w->args[i]; i++)
    g_ptr_array_add (args, (gpointer) (g_str_equal (w->args[i], "@") ? path : w->args[i]));
  g_ptr_array_add (args, NULL);
  g_clear_pointer (&w->f->err, g_free);
  w->f->status = test_run_cli_full (&options, (const char *const *) args->pdata, NULL,
                                    &w->f->err);
  if (w->f->status != 0)
    g_test_message ("%s", w->f->err);
  return w->f->status == 0;
}

/* Every writing command under the output rule (issue 36: render -o through
 * a link replaced a device node, and a FIFO, with a regular file): a FIFO,
 * a link to a FIFO, a link to a device and a link to a file. */
static void
test_output_rule_cli (Fixture *f, gconstpointer data)
{
  static const struct
  {
    const char *name;
    const char *head;
    const char *args[10];
  } writers[] = {
    { "plan.txt", "teaching:", { "plan", "teaching.json", "-p", "naive", "-o", "@" } },
    { "plans.json", "{", { "plan", "teaching.json", "-p", "naive", "-f", "json", "-o", "@" } },
    { "view.png", "\x89PNG", { "render", "teaching.json", "-o", "@" } },
    { "view.svg", "<?xml", { "render", "teaching.json", "-o", "@" } },
    { "graph.json", "{\"format\":\"memplan.graph/1\"", { "gen", "resnet50", "-o", "@" } },
    { "report.json", "{", { "suite", "teaching.json", "-p", "naive", "-o", "@" } },
    { "compare.txt", "BASE: r.json", { "compare", "r.json", "r.json", "-o", "@" } },
    /* streamed as written (issue 31) */
    { "records.json", "{\n  \"format\"", { "import", "trace.json", "-o", "@" } },
    { "records.csv", "id,lower,upper", { "import", "trace.json", "-f", "csv", "-o", "@" } },
  };
  g_autofree char *trace = test_fixture_path ("trace-two-devices.json");
  g_autofree char *text = contents (trace);
  g_autofree char *copy = g_build_filename (f->dir, "trace.json", NULL);

  g_assert_true (g_file_set_contents (copy, text, -1, NULL));
  cli (f, "suite", "teaching.json", "-p", "naive", "-o", "r.json", NULL);
  g_assert_cmpint (f->status, ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (writers); i++)
    {
      CliWriter w = { f, writers[i].args };

      g_test_message ("%s -o %s", writers[i].args[0], writers[i].name);
      test_output_rule (run_cli_writer, &w, f->dir, writers[i].name, writers[i].head);
    }
  g_assert_cmpint (g_remove (f->out), !=, 0);
}

/* suite --plans DIR where DIR/teaching.plan.json is a FIFO, a device… */
static void
test_output_rule_suite_plans (Fixture *f, gconstpointer data)
{
  static const char *const args[] = { "suite", "teaching.json", "-p", "naive", "--plans",
                                      "plans", "-o", "r.json", NULL };
  g_autofree char *plans = g_build_filename (f->dir, "plans", NULL);
  CliWriter        w = { f, args };

  g_assert_cmpint (g_mkdir (plans, 0755), ==, 0);
  test_output_rule (run_cli_writer, &w, plans, "teaching.plan.json", "{");
  g_assert_cmpint (g_rmdir (plans), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/cli-output/replace", Fixture, NULL, fixture_set_up, test_replace, fixture_tear_down);
  g_test_add ("/cli-output/failure-keeps-file", Fixture, NULL, fixture_set_up,
              test_failure_keeps_file, fixture_tear_down);
  g_test_add ("/cli-output/refuse-input", Fixture, NULL, fixture_set_up, test_refuse_input,
              fixture_tear_down);
  g_test_add ("/cli-output/refuse-option-input", Fixture, NULL, fixture_set_up,
              test_refuse_option_input, fixture_tear_down);
  g_test_add ("/cli-output/refuse-directory", Fixture, NULL, fixture_set_up,
              test_refuse_directory, fixture_tear_down);
  g_test_add ("/cli-output/device", Fixture, NULL, fixture_set_up, test_device, fixture_tear_down);
  g_test_add ("/cli-output/import-stream", Fixture, NULL, fixture_set_up, test_import_stream,
              fixture_tear_down);
  g_test_add ("/cli-output/socket", Fixture, NULL, fixture_set_up, test_output_socket,
              fixture_tear_down);
  g_test_add ("/cli-output/dev-stdout", Fixture, NULL, fixture_set_up, test_dev_stdout,
              fixture_tear_down);
  g_test_add ("/cli-output/dev-stdout-appends", Fixture, NULL, fixture_set_up,
              test_dev_stdout_appends, fixture_tear_down);
  g_test_add ("/cli-output/gzip-padding-note", Fixture, NULL, fixture_set_up,
              test_gzip_padding_note, fixture_tear_down);
  g_test_add ("/cli-output/rule/every-command", Fixture, NULL, fixture_set_up,
              test_output_rule_cli, fixture_tear_down);
  g_test_add ("/cli-output/rule/suite-plans", Fixture, NULL, fixture_set_up,
              test_output_rule_suite_plans, fixture_tear_down);
  g_test_add ("/cli-output/mode-and-link", Fixture, NULL, fixture_set_up, test_mode_and_link,
              fixture_tear_down);
  g_test_add ("/cli-output/sigterm-removes-temp", Fixture, GINT_TO_POINTER (SIGTERM),
              fixture_set_up, test_signal_removes_temp, fixture_tear_down);
  g_test_add ("/cli-output/sigint-removes-temp", Fixture, GINT_TO_POINTER (SIGINT),
              fixture_set_up, test_signal_removes_temp, fixture_tear_down);
  g_test_add ("/cli-output/suite-plans-on-failure", Fixture, NULL, fixture_set_up,
              test_suite_plans_on_failure, fixture_tear_down);
  g_test_add ("/cli-output/stdout-full", Fixture, ">/dev/full", fixture_set_up,
              test_stdout_fails, fixture_tear_down);
  g_test_add ("/cli-output/stdout-closed", Fixture, ">&-", fixture_set_up, test_stdout_fails,
              fixture_tear_down);
  return g_test_run ();
}
