/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The -o policy of every writing subcommand (mp_cli_output): the file is
 * written atomically and replaced when it exists (naming it is the request),
 * but never when it is one of the command's inputs or a directory, and a
 * failed command leaves it as it was, with no temporary file beside it. */
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "memplan-analysis.h"

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
  g_autofree char *src = g_build_filename (g_getenv ("MEMPLAN_DATA_DIR"), "teaching.json", NULL);
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
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  const char *arg;
  va_list     args;

  g_ptr_array_add (argv, (char *) g_getenv ("MEMPLAN_CLI"));
  va_start (args, f);
  while ((arg = va_arg (args, const char *)) != NULL)
    g_ptr_array_add (argv, (char *) arg);
  va_end (args);
  g_ptr_array_add (argv, NULL);
  g_clear_pointer (&f->err, g_free);
  g_assert_true (g_spawn_sync (f->dir, (char **) argv->pdata, NULL, G_SPAWN_STDOUT_TO_DEV_NULL,
                               NULL, NULL, NULL, &f->err, &f->status, &error));
  g_assert_no_error (error);
  f->status = WIFEXITED (f->status) ? WEXITSTATUS (f->status) : -1;
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
  return g_test_run ();
}
