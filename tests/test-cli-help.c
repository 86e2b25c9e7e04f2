/* SPDX-License-Identifier: GPL-3.0-or-later */
/* memplan-cli's words to a person: help COMMAND, the command list in one
 * column, singular and plural, human units in compare's table. */
#include <string.h>

#include <glib/gstdio.h>

#include "test-util.h"

/* help COMMAND is exactly COMMAND --help, for every command listed. */
static void
test_help_command (void)
{
  g_autofree char *list = NULL;
  g_autofree char *err = NULL;
  g_auto (GStrv) lines = NULL;
  gboolean inside = FALSE;
  guint    n = 0;

  g_assert_cmpint (test_run_cli (&list, &err, "--help", NULL), ==, 0);
  lines = g_strsplit (list, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    {
      g_autofree char *name = NULL;
      g_autofree char *via_help = NULL;
      g_autofree char *via_option = NULL;
      g_autofree char *e1 = NULL;
      g_autofree char *e2 = NULL;

      if (g_str_equal (lines[i], "Commands:"))
        {
          inside = TRUE;
          continue;
        }
      if (!inside || !g_str_has_prefix (lines[i], "  "))
        {
          inside = inside && *lines[i];
          continue;
        }
      name = g_strndup (lines[i] + 2, strcspn (lines[i] + 2, " "));
      g_assert_cmpint (test_run_cli (&via_help, &e1, "help", name, NULL), ==, 0);
      g_assert_cmpint (test_run_cli (&via_option, &e2, name, "--help", NULL), ==, 0);
      g_assert_cmpstr (via_help, ==, via_option);
      g_assert_true (g_str_has_prefix (via_help, "Usage:\n  memplan-cli "));
      n++;
    }
  g_assert_cmpuint (n, >=, 11);
}

static void
test_help_unknown (void)
{
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;

  g_assert_cmpint (test_run_cli (&out, &err, "help", "nope", NULL), ==, 2);
  g_assert_true (g_str_has_prefix (err, "memplan-cli: unknown command 'nope'\nUsage:"));
}

/* Every summary starts in the same column, the longest name included. */
static void
test_aligned (void)
{
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_auto (GStrv) lines = NULL;
  gint column = -1;

  g_assert_cmpint (test_run_cli (&out, &err, "--help", NULL), ==, 0);
  g_assert_nonnull (strstr (out, "  bench-optimal  time the exact planner"));
  lines = g_strsplit (strstr (out, "Commands:\n") + strlen ("Commands:\n"), "\n", -1);
  for (guint i = 0; lines[i] && *lines[i]; i++)
    {
      const char *name_end = lines[i] + 2 + strcspn (lines[i] + 2, " ");
      gint        at = name_end + strspn (name_end, " ") - lines[i];

      if (column < 0)
        column = at;
      g_assert_cmpint (at, ==, column);
    }
  g_assert_cmpint (column, ==, 2 + (gint) strlen ("bench-optimal") + 2);
}

static void
test_singular (void)
{
  g_autofree char *dir = g_dir_make_tmp ("memplan-help-XXXXXX", NULL);
  g_autofree char *csv = g_build_filename (dir, "one.csv", NULL);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;

  g_assert_true (g_file_set_contents (csv, "id,lower,upper,size\na,0,1,64\n", -1, NULL));
  g_assert_cmpint (test_run_cli (&out, &err, "plan", csv, "-p", "naive", NULL), ==, 0);
  g_assert_true (g_str_has_prefix (out, "one: 1 tensor planned over 1 step, lower bound 64 B\n"));
  g_remove (csv);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/help/command", test_help_command);
  g_test_add_func ("/cli/help/unknown", test_help_unknown);
  g_test_add_func ("/cli/help/aligned", test_aligned);
  g_test_add_func ("/cli/words/singular", test_singular);
  return g_test_run ();
}
