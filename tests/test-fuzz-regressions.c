/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Every input that once crashed, hung or leaked in a fuzz target
 * (tests/fuzz-regressions/TARGET/FILE) goes back through its loader: it must
 * load, or be refused with an error that names the file. */
#include <glib.h>

#include "fuzz-loaders.h"

typedef struct
{
  const MpFuzzTarget *target;
  char               *path;
} Case;

static void
case_free (gpointer data)
{
  Case *c = data;

  g_free (c->path);
  g_free (c);
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(char *const *) a, *(char *const *) b);
}

static void
test_input (gconstpointer data)
{
  const Case      *c = data;
  g_autofree char *contents = NULL;
  g_autoptr (GError) error = NULL;
  gsize            length;
  gboolean         ok;

  g_assert_true (g_file_get_contents (c->path, &contents, &length, NULL));
  ok = c->target->feed (contents, length, c->path, &error);
  if (ok)
    g_assert_no_error (error);
  else
    {
      g_autofree char *prefix = g_strconcat (c->path, ": ", NULL);

      g_assert_nonnull (error);
      g_test_message ("%s", error->message);
      g_assert_true (g_str_has_prefix (error->message, prefix));
    }
}

int
main (int argc, char **argv)
{
  const char         *src = g_getenv ("MEMPLAN_SOURCE_DIR");
  g_autofree char    *root = NULL;
  g_autoptr (GPtrArray) cases = g_ptr_array_new_with_free_func (case_free);
  const MpFuzzTarget *targets;
  guint               n_targets;

  g_test_init (&argc, &argv, NULL);
  root = g_build_filename (src ? src : ".", "tests", "fuzz-regressions", NULL);
  targets = mp_fuzz_targets (&n_targets);
  for (guint t = 0; t < n_targets; t++)
    {
      g_autofree char *dir_path = g_build_filename (root, targets[t].name, NULL);
      g_autoptr (GDir) dir = g_dir_open (dir_path, 0, NULL);
      g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
      const char *name;

      if (dir == NULL)
        continue;
      while ((name = g_dir_read_name (dir)) != NULL)
        if (name[0] != '.')
          g_ptr_array_add (names, g_strdup (name));
      g_ptr_array_sort (names, compare_names);
      for (guint i = 0; i < names->len; i++)
        {
          Case            *c = g_new0 (Case, 1);
          g_autofree char *test_path = NULL;
          c->target = &targets[t];
          c->path = g_build_filename (dir_path, names->pdata[i], NULL);
          g_ptr_array_add (cases, c);
          test_path = g_strdup_printf ("/fuzz-regressions/%s/%s", targets[t].name,
                                       (const char *) names->pdata[i]);
          g_test_add_data_func (test_path, c, test_input);
        }
    }
  /* an empty suite is fine on a fresh checkout; say so instead of skipping */
  if (cases->len == 0)
    g_print ("# no regression inputs under %s\n", root);
  return g_test_run ();
}
