/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer entry for memplan-cli itself: the input is a command line, one
 * argument per line, then optionally a line "--" and the contents of a file
 * named f. Every subcommand runs for real, in a scratch folder that holds f,
 * a small graph g.json and records r.csv, so that exec --plan f, validate,
 * import f, explain and the writers see fuzzed files.
 *
 * To stay in the scratch folder and within a fuzzer's time, arguments that
 * name another folder ('/' or '..') are dropped, numbers are cut to three
 * digits, generated graphs start at 100 tensors, and what would exit the
 * process (--help) or only wait (--delay-us) is dropped. */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);
#include "cli.h"

static const char *const commands[] = {
  "plan", "validate", "bench", "gen", "import", "suite", "compare", "exec", "render",
  "bench-optimal", "explain",
};

static const char graph_json[] =
  "{\"format\": \"memplan.graph/1\", \"name\": \"fuzz\", \"alignment\": 64, \"tensors\": ["
  " {\"name\": \"x\", \"size\": 4096, \"kind\": \"input\"}, {\"name\": \"a\", \"size\": 8192},"
  " {\"name\": \"b\", \"size\": 8192}, {\"name\": \"y\", \"size\": 64, \"kind\": \"output\"}],"
  " \"ops\": [{\"name\": \"f\", \"inputs\": [\"x\"], \"outputs\": [\"a\"], \"stream\": 1},"
  "  {\"name\": \"g\", \"inputs\": [\"a\"], \"outputs\": [\"b\"], \"workspace\": 512},"
  "  {\"name\": \"h\", \"inputs\": [\"b\", \"a\"], \"outputs\": [\"y\"]}]}";
static const char records_csv[] = "id,lower,upper,size\na,0,2,64\nb,1,3,128\nc,2,4,64\n";

static gboolean
keep_argument (const char *arg)
{
  if (strchr (arg, '/') || strstr (arg, "..") || strstr (arg, "delay"))
    return FALSE;
  if (g_str_has_prefix (arg, "--help") || (arg[0] == '-' && arg[1] != '-' &&
                                           (strchr (arg, 'h') || strchr (arg, '?'))))
    return FALSE;
  return TRUE;
}

/* At most three digits in a row. */
static char *
cut_numbers (const char *arg)
{
  GString *s = g_string_new (NULL);
  guint    run = 0;

  for (const char *p = arg; *p; p++)
    {
      run = g_ascii_isdigit (*p) ? run + 1 : 0;
      if (run <= 3)
        g_string_append_c (s, *p);
    }
  return g_string_free (s, FALSE);
}

/* Removes path and, when it is a folder, what it holds (no links are
 * followed: the CLI only makes files and folders here). */
static void
remove_tree (const char *path)
{
  GDir       *dir = g_dir_open (path, 0, NULL);
  const char *name;

  if (dir != NULL)
    {
      while ((name = g_dir_read_name (dir)))
        {
          g_autofree char *child = g_build_filename (path, name, NULL);

          remove_tree (child);
        }
      g_dir_close (dir);
      g_rmdir (path);
    }
  else
    g_unlink (path);
}

/* Each run starts from the same folder: what earlier runs wrote (-o,
 * --plans, over g.json too) would otherwise pile up until "suite ." reads
 * hundreds of files and a run stands for every run before it. */
static void
reset_scratch (void)
{
  GDir       *dir = g_dir_open (".", 0, NULL);
  const char *name;

  if (dir == NULL)
    abort ();
  while ((name = g_dir_read_name (dir)))
    remove_tree (name);
  g_dir_close (dir);
  g_file_set_contents ("g.json", graph_json, -1, NULL);
  g_file_set_contents ("r.csv", records_csv, -1, NULL);
}

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  g_autofree char *dir = g_dir_make_tmp ("memplan-fuzz-cli-XXXXXX", NULL);
  int              null_fd = open ("/dev/null", O_WRONLY);

  if (dir == NULL || chdir (dir) != 0 || null_fd < 0)
    abort ();
  /* the commands' output is not what is tested (their messages go too with
   * libFuzzer's -close_fd_mask=2, which build-aux/fuzz.sh passes) */
  dup2 (null_fd, STDOUT_FILENO);
  close (null_fd);
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *text = g_strndup ((const char *) data, size);
  char            *file = strstr (text, "\n--\n");
  g_auto (GStrv) lines = NULL;
  g_autoptr (GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  const char      *command;

  reset_scratch ();
  if (file)
    {
      *file = '\0';
      file += 4;
      g_file_set_contents ("f", file, size - (file - text), NULL);
    }
  else
    g_unlink ("f");
  lines = g_strsplit (text, "\n", 64);
  if (lines[0] == NULL)
    return 0;
  /* the first line picks the subcommand, by name or by its first byte */
  command = commands[(guchar) lines[0][0] % G_N_ELEMENTS (commands)];
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (g_str_equal (lines[0], commands[i]))
      command = commands[i];
  g_ptr_array_add (argv, g_strdup ("memplan-cli"));
  g_ptr_array_add (argv, g_strdup (command));
  /* generated graphs default to 10^5 and 10^6 tensors; a later -n wins */
  if (g_str_equal (command, "bench") || g_str_equal (command, "render"))
    {
      g_ptr_array_add (argv, g_strdup ("-n"));
      g_ptr_array_add (argv, g_strdup ("100"));
    }
  for (guint i = 1; lines[i]; i++)
    if (keep_argument (lines[i]))
      g_ptr_array_add (argv, cut_numbers (lines[i]));
  /* the baselines replay every allocation with malloc: sizes from the file */
  if (g_str_equal (command, "exec"))
    g_ptr_array_add (argv, g_strdup ("--no-baselines"));
  g_ptr_array_add (argv, NULL);
  {
    /* GOption rearranges argv: hand it a copy of the pointers */
    g_autofree char **copy = g_memdup2 (argv->pdata, argv->len * sizeof (char *));

    mp_cli_main (argv->len - 1, copy);
  }
  return 0;
}
