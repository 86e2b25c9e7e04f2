/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <gmodule.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* The light memplan-cli (cli/meson.build): render and exec need cairo,
 * pango, X11 and CUDA's C++ runtime, which cost a small plan process more
 * start-up than its planning. Those two commands run in the whole CLI, a
 * loadable module linked with libmemplan-1 and the executor; the program
 * opens it for them alone, before it has done anything else. */

#define MODULE_FILE "memplan-cli-full." G_MODULE_SUFFIX

typedef int (*MainFunc) (int argc, char **argv);

gboolean
mp_cli_needs_full (int argc, char **argv)
{
  const char *name = argc >= 2 && g_str_equal (argv[1], "help") && argc == 3 ? argv[2]
                   : argc >= 2                                               ? argv[1]
                                                                             : NULL;

  return name != NULL && (g_str_equal (name, "render") || g_str_equal (name, "exec"));
}

/* Beside the program (the build tree), the installed folder, then the
 * installed folder relative to the program (a DESTDIR or relocated
 * install): onnx-infer-module.c's order, less the environment. */
static GPtrArray *
module_dirs (void)
{
  GPtrArray       *dirs = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *exe_dir = exe ? g_path_get_dirname (exe) : NULL;

  if (exe_dir != NULL)
    g_ptr_array_add (dirs, g_strdup (exe_dir));
  g_ptr_array_add (dirs, g_strdup (MEMPLAN_CLI_MODULE_DIR));
#ifdef MEMPLAN_CLI_MODULE_DIR_FROM_BINDIR
  if (exe_dir != NULL)
    g_ptr_array_add (dirs, g_build_filename (exe_dir, MEMPLAN_CLI_MODULE_DIR_FROM_BINDIR, NULL));
#endif
  return dirs;
}

int
mp_cli_full_main (int argc, char **argv)
{
  g_autoptr (GPtrArray) dirs = module_dirs ();
  g_autofree char      *path = NULL;
  GModule              *module;
  gpointer              symbol = NULL;

  for (guint i = 0; i < dirs->len && path == NULL; i++)
    {
      path = g_build_filename (dirs->pdata[i], MODULE_FILE, NULL);
      if (!g_file_test (path, G_FILE_TEST_EXISTS))
        g_clear_pointer (&path, g_free);
    }
  if (path == NULL)
    {
      g_autofree char *where = NULL;

      g_ptr_array_add (dirs, NULL);
      where = g_strjoinv (", ", (char **) dirs->pdata);
      fprintf (stderr, "memplan-cli: cannot load " MODULE_FILE " (render, exec): not found in %s\n",
               where);
      return MP_EXIT_UNAVAILABLE;
    }
  if (!(module = g_module_open (path, G_MODULE_BIND_LOCAL)))
    {
      fprintf (stderr, "memplan-cli: cannot load %s: %s\n", path, g_module_error ());
      return MP_EXIT_UNAVAILABLE;
    }
  if (!g_module_symbol (module, "mp_cli_module_main", &symbol) || symbol == NULL)
    {
      fprintf (stderr, "memplan-cli: cannot load %s: %s\n", g_module_name (module),
               g_module_error ());
      return MP_EXIT_UNAVAILABLE;
    }
  /* its atexit handler runs after main returns */
  g_module_make_resident (module);
  return ((MainFunc) symbol) (argc, argv);
}

/* The light program's table names them for usage; main() sends their
 * command lines to the module before the table is read. */
static int
full_command (int argc, char **argv)
{
  g_autofree char **full = g_new0 (char *, argc + 2);

  full[0] = (char *) "memplan-cli";
  memcpy (full + 1, argv, argc * sizeof (char *));
  return mp_cli_full_main (argc + 1, full);
}

int
mp_cli_render (int argc, char **argv)
{
  return full_command (argc, argv);
}

int
mp_cli_exec (int argc, char **argv)
{
  return full_command (argc, argv);
}
