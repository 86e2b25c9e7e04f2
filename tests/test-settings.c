/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The GSettings schema (data/org.memplan.Memplan.gschema.xml), compiled by
 * the build, with the memory backend: its keys, defaults and ranges, and
 * its enums agree with the names the engine and the renderer use, so a
 * stored colour key or planner is one the app can apply. */
#include <gio/gio.h>

#include "memplan-render.h"
#include "planner.h"
#include "recent-list.h"

static GSettings *
settings (void)
{
  return g_settings_new ("org.memplan.Memplan");
}

static void
test_defaults (void)
{
  g_autoptr (GSettings) s = settings ();
  g_auto (GStrv) planners = g_settings_get_strv (s, "planners");
  g_auto (GStrv) recent = g_settings_get_strv (s, "recent-files");
  g_autofree char *color_by = g_settings_get_string (s, "color-by");
  g_autofree char *theme = g_settings_get_string (s, "theme");

  g_assert_cmpint (g_settings_get_int (s, "window-width"), ==, 1280);
  g_assert_cmpint (g_settings_get_int (s, "window-height"), ==, 800);
  g_assert_false (g_settings_get_boolean (s, "window-maximized"));
  g_assert_false (g_settings_get_boolean (s, "shared-scale"));
  g_assert_cmpfloat (g_settings_get_double (s, "optimal-time-budget"), ==, 10.0);
  g_assert_cmpuint (g_strv_length (planners), ==, 0);
  g_assert_cmpuint (g_strv_length (recent), ==, 0);
  g_assert_cmpstr (color_by, ==, "kind");
  g_assert_cmpstr (theme, ==, "system");
}

/* Every colour key the renderer knows can be stored, and nothing else. */
static void
test_color_by_names (void)
{
  g_autoptr (GSettings) s = settings ();
  g_autoptr (GSettingsSchemaKey) key = NULL;
  g_autoptr (GSettingsSchema) schema = NULL;
  g_autoptr (GVariant) range = NULL;
  g_autoptr (GVariant) nicks = NULL;
  const char *type;
  guint       n = 0;

  g_object_get (s, "settings-schema", &schema, NULL);
  key = g_settings_schema_get_key (schema, "color-by");
  range = g_settings_schema_key_get_range (key);
  g_variant_get (range, "(&sv)", &type, &nicks);
  g_assert_cmpstr (type, ==, "enum");
  for (gsize i = 0; i < g_variant_n_children (nicks); i++)
    {
      g_autoptr (GVariant) v = g_variant_get_child_value (nicks, i);
      MpColorBy by;

      g_assert_true (mp_color_by_from_string (g_variant_get_string (v, NULL), &by));
      g_assert_cmpstr (mp_color_by_to_string (by), ==, g_variant_get_string (v, NULL));
      n++;
    }
  g_assert_cmpuint (n, ==, MP_COLOR_BY_N);
}

/* Values survive a new GSettings object (the app's next start reads them
 * the same way), and ranges are enforced. */
static void
test_store (void)
{
  g_autoptr (GSettings) s = settings ();
  g_autoptr (GSettings) again = NULL;
  const char *planners[] = { "greedy-by-size", "optimal", NULL };
  g_auto (GStrv) read = NULL;
  g_autofree char *color_by = NULL;
  g_autoptr (GSettingsSchema) schema = NULL;
  g_autoptr (GSettingsSchemaKey) key = NULL;
  /* range_check does not take the floating reference: sunk here, freed */
  g_autoptr (GVariant) below = g_variant_ref_sink (g_variant_new_double (-1));
  g_autoptr (GVariant) above = g_variant_ref_sink (g_variant_new_double (3601));

  g_assert_true (g_settings_set_int (s, "window-width", 900));
  g_assert_true (g_settings_set_boolean (s, "window-maximized", TRUE));
  g_assert_true (g_settings_set_strv (s, "planners", planners));
  g_assert_true (g_settings_set_string (s, "color-by", "stream"));
  g_assert_true (g_settings_set_double (s, "optimal-time-budget", 2.5));

  again = settings ();
  read = g_settings_get_strv (again, "planners");
  color_by = g_settings_get_string (again, "color-by");
  g_assert_cmpint (g_settings_get_int (again, "window-width"), ==, 900);
  g_assert_true (g_settings_get_boolean (again, "window-maximized"));
  g_assert_cmpuint (g_strv_length (read), ==, 2);
  for (guint i = 0; read[i]; i++)
    g_assert_nonnull (mp_planner_lookup (read[i]));
  g_assert_cmpstr (color_by, ==, "stream");
  g_assert_cmpfloat (g_settings_get_double (again, "optimal-time-budget"), ==, 2.5);

  g_object_get (s, "settings-schema", &schema, NULL);
  key = g_settings_schema_get_key (schema, "optimal-time-budget");
  {
    /* range_check does not take the floating reference; the window's
     * time-budget property starts at 1 second, as the key does */
    g_autoptr (GVariant) zero = g_variant_ref_sink (g_variant_new_double (0));
    g_autoptr (GVariant) one = g_variant_ref_sink (g_variant_new_double (1));

    g_assert_false (g_settings_schema_key_range_check (key, below));
    g_assert_false (g_settings_schema_key_range_check (key, zero));
    g_assert_true (g_settings_schema_key_range_check (key, one));
    g_assert_false (g_settings_schema_key_range_check (key, above));
  }
  g_settings_reset (s, "window-width");
  g_assert_cmpint (g_settings_get_int (again, "window-width"), ==, 1280);
}

static void
assert_strv (char **got, const char *const *want)
{
  g_assert_cmpuint (g_strv_length (got), ==, g_strv_length ((char **) want));
  for (guint i = 0; want[i]; i++)
    g_assert_cmpstr (got[i], ==, want[i]);
}

/* The "recent-files" list: newest first, no duplicates, capped. */
static void
test_recent_list (void)
{
  const char *list[] = { "file:///a.json", "file:///b.csv", "file:///c.json", NULL };
  const char *moved[] = { "file:///c.json", "file:///a.json", "file:///b.csv", NULL };
  const char *capped[] = { "file:///d.json", "file:///a.json", NULL };
  const char *removed[] = { "file:///a.json", "file:///c.json", NULL };
  const char *first[] = { "file:///a.json", NULL };
  g_auto (GStrv) a = mp_recent_list_push (list, "file:///c.json", MP_RECENT_MAX);
  g_auto (GStrv) b = mp_recent_list_push (list, "file:///d.json", 2);
  g_auto (GStrv) c = mp_recent_list_remove (list, "file:///b.csv");
  g_auto (GStrv) d = mp_recent_list_push (NULL, "file:///a.json", MP_RECENT_MAX);
  g_autoptr (GSettings) s = settings ();
  g_auto (GStrv) stored = NULL;

  assert_strv (a, moved);
  assert_strv (b, capped);
  assert_strv (c, removed);
  assert_strv (d, first);
  /* and the setting holds it as given */
  g_assert_true (g_settings_set_strv (s, "recent-files", (const char *const *) a));
  stored = g_settings_get_strv (s, "recent-files");
  assert_strv (stored, moved);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  /* never the user's dconf: the build's compiled schema, in memory */
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  if (!g_getenv ("GSETTINGS_SCHEMA_DIR"))
    g_error ("GSETTINGS_SCHEMA_DIR must name the build's compiled schema folder");
  g_test_add_func ("/app/settings/defaults", test_defaults);
  g_test_add_func ("/app/settings/color-by-names", test_color_by_names);
  g_test_add_func ("/app/settings/store", test_store);
  g_test_add_func ("/app/settings/recent-list", test_recent_list);
  return g_test_run ();
}
