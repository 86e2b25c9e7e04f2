/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "cli.h"

/* The positional arguments of the running subcommand: its input files, which
 * -o must never replace. */
static char **cli_inputs;

/* Whether a failed write to standard output was already reported, so that
 * the check at exit does not report it twice. */
static gboolean stdout_reported;

static const MpCliCommand commands[] = {
  { "plan", "run planners on a graph and print or write the plans", mp_cli_plan },
  { "validate", "check a plan (ours or any tool's) against a graph", mp_cli_validate },
  { "bench", "time loading and planning on a generated graph", mp_cli_bench },
  { "gen", "write a model-zoo graph (resnet50, bert-base, gpt2, …)", mp_cli_gen },
  { "import", "read a PyTorch trace or memory snapshot: records, observed layout, frames",
    mp_cli_import },
  { "suite", "plan every graph of a folder into a report for compare", mp_cli_suite },
  { "compare", "compare two suite reports: what got better or worse", mp_cli_compare },
  { "diff", "compare two runs: each peak, and the allocations that make the difference",
    mp_cli_diff },
  { "exec", "execute plans on the GPU or CPU and check them for corruption", mp_cli_exec },
  { "render", "draw plans as timelines to PNG, SVG or PDF", mp_cli_render },
  { "bench-optimal", "time the exact planner on usage records (MiniMalloc's set)",
    mp_cli_bench_optimal },
  { "bench-order", "the peak of live bytes of every op order method", mp_cli_bench_order },
  { "explain", "explain a planner's decisions tensor by tensor, in words", mp_cli_explain },
};

void
mp_cli_error (const char *format, ...)
{
  va_list          args;
  g_autofree char *msg = NULL;
  g_autofree char *shown = NULL;

  va_start (args, format);
  msg = g_strdup_vprintf (format, args);
  va_end (args);
  /* names in messages come from files: no terminal escapes */
  shown = mp_escape_text (msg);
  fprintf (stderr, "memplan-cli: %s\n", shown);
  /* an engine writer that failed on standard output said so already */
  if (g_str_has_prefix (msg, MP_STDOUT_WRITE_ERROR))
    stdout_reported = TRUE;
}

gboolean
mp_cli_parse (GOptionContext *context, int *argc, char ***argv, int min_args, int max_args)
{
  g_autoptr (GError) error = NULL;

  if (!g_option_context_parse (context, argc, argv, &error))
    {
      mp_cli_error ("%s (see --help)", error->message);
      return FALSE;
    }
  /* argv[0] is the subcommand */
  if (*argc - 1 < min_args || (max_args >= 0 && *argc - 1 > max_args))
    {
      g_autofree char *help = g_option_context_get_help (context, TRUE, NULL);
      mp_cli_error ("wrong number of arguments");
      fputs (help, stderr);
      return FALSE;
    }
  g_strfreev (cli_inputs);
  cli_inputs = g_strdupv (*argv + 1);
  return TRUE;
}

void
mp_cli_add_input (const char *path)
{
  guint n = cli_inputs ? g_strv_length (cli_inputs) : 0;

  cli_inputs = g_renew (char *, cli_inputs, n + 2);
  cli_inputs[n] = g_strdup (path);
  cli_inputs[n + 1] = NULL;
}

/* The folder -o writes into, checked first so that every writer says the
 * same words as render, and never GLib's temporary file name. */
static gboolean
check_folder (const char *path, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (path);

  if (!g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_IO,
                   "%s: cannot write the output: folder '%s' does not exist", path, dir);
      return FALSE;
    }
  if (g_access (dir, W_OK) != 0)
    {
      g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_IO,
                   "%s: cannot write the output: folder '%s' is not writable", path, dir);
      return FALSE;
    }
  return TRUE;
}

/* -o FILE replaces FILE: naming it is the request. What a slip of the
 * fingers could destroy is refused instead: one of the command's own input
 * files (by inode, whatever the spelling) and a directory. */
static gboolean
check_output (const char *path, GStatBuf *out, GError **error)
{
  GStatBuf in;

  if (g_stat (path, out) != 0)
    {
      out->st_mode = 0; /* a new file */
      return check_folder (path, error);
    }
  if (S_ISDIR (out->st_mode))
    {
      g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_IO,
                   "%s: cannot write the output: it is a directory", path);
      return FALSE;
    }
  for (guint i = 0; cli_inputs && cli_inputs[i]; i++)
    if (g_stat (cli_inputs[i], &in) == 0 && in.st_dev == out->st_dev && in.st_ino == out->st_ino)
      {
        g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_IO,
                     "%s: refusing to write the output over the input file '%s'", path,
                     cli_inputs[i]);
        return FALSE;
      }
  /* replacing a file writes a new one beside it; a device or an open
   * descriptor is written through */
  if (S_ISREG (out->st_mode) && mp_output_descriptor (path) < 0)
    return check_folder (path, error);
  return TRUE;
}

gboolean
mp_cli_check_output (const char *path, GError **error)
{
  GStatBuf st;

  /* standard output */
  if (path == NULL || g_str_equal (path, "-"))
    return TRUE;
  return check_output (path, &st, error);
}

gboolean
mp_cli_output_bytes (const char *path, const char *data, gsize length, GError **error)
{
  GStatBuf st;

  if (path == NULL || g_str_equal (path, "-"))
    {
      if (fwrite (data, 1, length, stdout) == length && fflush (stdout) == 0)
        return TRUE;
      g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_IO,
                   MP_STDOUT_WRITE_ERROR ": %s", g_strerror (errno));
      stdout_reported = TRUE;
      return FALSE;
    }
  /* a device or pipe is written through, a file replaced: the engine's rule */
  return check_output (path, &st, error) && mp_write_file_atomic (path, data, length, error);
}

gboolean
mp_cli_output_text (const char *path, const char *text, GError **error)
{
  g_autofree char *escaped = mp_escape_text (text);

  return mp_cli_output (path, escaped, error);
}

gboolean
mp_cli_check_alignment (gint64 alignment)
{
  g_autofree char *value = NULL;
  g_autofree char *message = NULL;

  /* 0: the input's own */
  if (alignment == 0 || (alignment > 0 && mp_alignment_valid ((guint64) alignment)))
    return TRUE;
  value = g_strdup_printf ("%" G_GINT64_FORMAT, alignment);
  message = mp_alignment_message ("--alignment", value);
  mp_cli_error ("%s", message);
  return FALSE;
}

gboolean
mp_cli_output (const char *path, const char *contents, GError **error)
{
  return mp_cli_output_bytes (path, contents, strlen (contents), error);
}

GPtrArray *
mp_cli_planners (char **names, GError **error)
{
  g_autoptr (GPtrArray) out = g_ptr_array_new ();
  guint n;
  const MpPlannerInfo *all = mp_planners (&n);

  if (names == NULL || names[0] == NULL)
    {
      for (guint i = 0; i < n; i++)
        g_ptr_array_add (out, (gpointer) &all[i]);
      return g_steal_pointer (&out);
    }
  for (guint i = 0; names[i]; i++)
    {
      g_auto (GStrv) parts = g_strsplit (names[i], ",", -1);

      for (guint j = 0; parts[j]; j++)
        {
          const MpPlannerInfo *info;

          if (*parts[j] == '\0')
            continue;
          if (g_str_equal (parts[j], "all"))
            {
              for (guint k = 0; k < n; k++)
                if (!g_ptr_array_find (out, &all[k], NULL))
                  g_ptr_array_add (out, (gpointer) &all[k]);
              continue;
            }
          if (!(info = mp_planner_lookup (parts[j])))
            {
              g_autofree char *known = mp_planner_names (", ");
              g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_INVALID,
                           "unknown planner '%s' (known: %s, all)", parts[j], known);
              return NULL;
            }
          if (!g_ptr_array_find (out, info, NULL))
            g_ptr_array_add (out, (gpointer) info);
        }
    }
  return g_steal_pointer (&out);
}

gboolean
mp_cli_flush_stdout (void)
{
  if (fflush (stdout) == 0)
    return TRUE;
  mp_cli_error (MP_STDOUT_WRITE_ERROR ": %s", g_strerror (errno));
  stdout_reported = TRUE;
  return FALSE;
}

/* At exit, for every command and for --help (GOption exits by itself):
 * output still buffered is written and the close checked, so that a full
 * disk or a closed descriptor is an error, not a silent success. */
static void
close_stdout (void)
{
  int err = 0;

  if (fflush (stdout) != 0)
    err = errno;
  else if (ferror (stdout))
    err = EIO;
  if (fclose (stdout) != 0 && err == 0)
    err = errno;
  if (err == 0)
    return;
  if (!stdout_reported)
    mp_cli_error (MP_STDOUT_WRITE_ERROR ": %s", g_strerror (err));
  _exit (MP_EXIT_BAD_INPUT);
}

/* A closed standard descriptor would be handed to the next file opened
 * (an output written through printf into it): hold it with a descriptor
 * on which every write fails, as writing to a closed one would. */
static void
hold_closed_descriptors (void)
{
  for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++)
    if (fcntl (fd, F_GETFD) < 0 && errno == EBADF)
      {
        int held = open ("/dev/null", fd == STDIN_FILENO ? O_WRONLY : O_RDONLY);

        if (held >= 0 && held != fd)
          {
            dup2 (held, fd);
            close (held);
          }
      }
}

static void
usage (FILE *out)
{
  int width = 0;

  /* the summaries in one column, however long the longest name */
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    width = MAX (width, (int) strlen (commands[i].name));
  fprintf (out, "Usage: memplan-cli COMMAND [OPTIONS…] ARGS…\n"
                "       memplan-cli help COMMAND\n\n"
                "Static memory planning of tensor programs.\n\nCommands:\n");
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (out, "  %-*s  %s\n", width, commands[i].name, commands[i].summary);
  fprintf (out, "\nRun 'memplan-cli help COMMAND' or 'memplan-cli COMMAND --help' for the options of "
                "a command.\n");
}

static const MpCliCommand *
find_command (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (g_str_equal (name, commands[i].name))
      return &commands[i];
  return NULL;
}

static int
run_command (const MpCliCommand *command, int argc, char **argv)
{
  /* "Usage: memplan-cli plan [OPTION…]" in each command's --help */
  g_autofree char *name = g_strdup_printf ("memplan-cli %s", command->name);

  g_set_prgname (name);
  return command->run (argc, argv);
}

/* memplan-cli help COMMAND: the command's own --help */
static int
help_command (const char *name)
{
  const MpCliCommand *command = find_command (name);
  char               *argv[] = { (char *) name, "--help", NULL };

  if (command == NULL)
    {
      mp_cli_error ("unknown command '%s'", name);
      usage (stderr);
      return MP_EXIT_BAD_INPUT;
    }
  return run_command (command, 2, argv);
}

/* what a reader accepted with a remark (gzip's zero padding) */
static void
print_note (const char *path, const char *text)
{
  mp_cli_error ("note: %s: %s", path, text);
}

int
mp_cli_main (int argc, char **argv)
{
  const MpCliCommand *command;
  static gsize set_up = 0;

  /* once: the fuzz target (fuzz/fuzz-cli.c) calls main again and again */
  if (g_once_init_enter (&set_up))
    {
      /* the character set only (a terminal's names, GLib's filenames):
       * numbers in tables, CSV and JSON keep the C locale's '.', and a
       * process need not read a dozen locale files to plan 200 buffers */
      setlocale (LC_CTYPE, "");
      hold_closed_descriptors ();
      atexit (close_stdout);
      mp_remove_temp_files_on_signal ();
      mp_file_set_note_func (print_note);
      g_once_init_leave (&set_up, 1);
    }

  if (argc == 3 && g_str_equal (argv[1], "help"))
    return help_command (argv[2]);
  if (argc < 2 || g_str_equal (argv[1], "--help") || g_str_equal (argv[1], "-h") ||
      g_str_equal (argv[1], "help"))
    {
      usage (argc < 2 ? stderr : stdout);
      return argc < 2 ? MP_EXIT_BAD_INPUT : MP_EXIT_OK;
    }
  if (g_str_equal (argv[1], "--version"))
    {
      printf ("memplan-cli %s\n", MEMPLAN_VERSION);
      return MP_EXIT_OK;
    }
  if ((command = find_command (argv[1])))
    return run_command (command, argc - 1, argv + 1);

  mp_cli_error ("unknown command '%s'", argv[1]);
  usage (stderr);
  return MP_EXIT_BAD_INPUT;
}
