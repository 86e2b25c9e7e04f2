/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <gmodule.h>

#include "onnx-private.h"

/* ONNX's shape inference lives in a loadable module (onnx-infer.cc, linked
 * with libonnx, libprotobuf and libstdc++) so that a program that never
 * needs it does not pay for resolving the C++ libraries at start-up. The
 * module is opened on first use, once. */

typedef GBytes *(*InferFunc) (const char *data, gsize length, char **message);

typedef struct
{
  InferFunc infer;
  char     *message; /* why the module is not available */
} InferModule;

#define MODULE_FILE "memplan-onnx-infer." G_MODULE_SUFFIX

/* Where to look, in order: $MEMPLAN_MODULE_DIR (the tests, `meson devenv`),
 * the installed folder, the installed folder relative to the executable
 * (a relocated or DESTDIR install), then the build tree: memplan-cli is in
 * BUILD/cli, memplan in BUILD/app, the tests in BUILD/tests, the module
 * in BUILD/analysis/onnx. */
static GPtrArray *
module_dirs (void)
{
  GPtrArray         *dirs = g_ptr_array_new_with_free_func (g_free);
  const char        *env = g_getenv ("MEMPLAN_MODULE_DIR");
  g_autofree char   *exe = g_file_read_link ("/proc/self/exe", NULL);

  if (env != NULL && *env != '\0')
    g_ptr_array_add (dirs, g_strdup (env));
  g_ptr_array_add (dirs, g_strdup (MEMPLAN_MODULE_DIR));
  if (exe != NULL)
    {
      g_autofree char *exe_dir = g_path_get_dirname (exe);

#ifdef MEMPLAN_MODULE_DIR_FROM_BINDIR
      g_ptr_array_add (dirs, g_build_filename (exe_dir, MEMPLAN_MODULE_DIR_FROM_BINDIR, NULL));
#endif
      g_ptr_array_add (dirs, g_build_filename (exe_dir, "..", "analysis", "onnx", NULL));
    }
  return dirs;
}

static gpointer
open_module (gpointer data)
{
  InferModule         *m = g_new0 (InferModule, 1);
  g_autoptr (GPtrArray) dirs = module_dirs ();
  GModule             *module = NULL;
  g_autofree char     *first = NULL;
  gpointer             symbol = NULL;

  for (guint i = 0; i < dirs->len && module == NULL; i++)
    {
      g_autofree char *path = g_build_filename (dirs->pdata[i], MODULE_FILE, NULL);

      if (!g_file_test (path, G_FILE_TEST_EXISTS))
        continue;
      module = g_module_open (path, G_MODULE_BIND_LOCAL);
      if (module == NULL && first == NULL)
        first = g_strdup_printf ("cannot load %s: %s", path, g_module_error ());
    }
  if (module == NULL)
    {
      g_ptr_array_add (dirs, NULL);
      if (first == NULL)
        {
          g_autofree char *where = g_strjoinv (", ", (char **) dirs->pdata);

          m->message = g_strconcat ("cannot load " MODULE_FILE ": not found in ", where, NULL);
        }
      else
        m->message = g_steal_pointer (&first);
      return m;
    }
  if (!g_module_symbol (module, "mp_onnx_infer_shapes", &symbol) || symbol == NULL)
    {
      m->message = g_strdup_printf ("cannot load %s: %s", g_module_name (module), g_module_error ());
      g_module_close (module);
      return m;
    }
  /* kept open for the life of the process */
  g_module_make_resident (module);
  m->infer = (InferFunc) symbol;
  return m;
}

GBytes *
mp_onnx_infer_shapes (const char *data, gsize length, char **message)
{
  static GOnce       once = G_ONCE_INIT;
  const InferModule *m = g_once (&once, open_module, NULL);

  if (m->infer == NULL)
    {
      *message = g_strdup (m->message);
      return NULL;
    }
  return m->infer (data, length, message);
}
