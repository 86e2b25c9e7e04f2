/* SPDX-License-Identifier: GPL-3.0-or-later */
/* memplan's MIME types, through GIO as a file manager sees them: a private
 * mime database built from data/org.memplan.Memplan.mime.xml with
 * update-mime-database, then g_content_type_guess on real samples. */
#include <gio/gio.h>
#include <glib/gstdio.h>

static char *source_dir;

static char *
guess (const char *name, const char *data, gsize length)
{
  gboolean uncertain = FALSE;

  return g_content_type_guess (name, (const guchar *) data, length, &uncertain);
}

static char *
guess_file (const char *relative)
{
  g_autofree char *path = g_build_filename (source_dir, relative, NULL);
  g_autofree char *data = NULL;
  gsize            length;

  g_assert_true (g_file_get_contents (path, &data, &length, NULL));
  return guess (path, data, MIN (length, 4096));
}

static void
test_samples (void)
{
  g_autofree char *graph = guess_file ("data/default.json");
  g_autofree char *zoo = guess_file ("data/zoo/unet.json");
  g_autofree char *report = guess_file ("data/reports/base.json");

  g_assert_cmpstr (graph, ==, "application/x-memplan-graph+json");
  g_assert_cmpstr (zoo, ==, "application/x-memplan-graph+json");
  g_assert_cmpstr (report, ==, "application/x-memplan-report+json");
  g_assert_true (g_content_type_is_a (graph, "application/json"));
}

static void
test_plan_file (void)
{
  const char      *plan = "{\n  \"format\": \"memplan.plan/1\",\n  \"plans\": []\n}\n";
  g_autofree char *type = guess ("plans.json", plan, strlen (plan));
  /* compact JSON, as another tool might write it */
  const char      *compact = "{\"format\":\"memplan.graph/1\",\"tensors\":[],\"ops\":[]}";
  g_autofree char *compact_type = guess ("g.json", compact, strlen (compact));

  g_assert_cmpstr (type, ==, "application/x-memplan-plan+json");
  g_assert_cmpstr (compact_type, ==, "application/x-memplan-graph+json");
}

static void
test_other_json (void)
{
  const char      *json = "{\"name\": \"package\", \"version\": \"1.0\"}\n";
  /* a file that only mentions a format in passing is still plain JSON */
  const char      *other = "{\"format\": \"memplan.graph/2\"}\n";
  g_autofree char *type = guess ("package.json", json, strlen (json));
  g_autofree char *other_type = guess ("x.json", other, strlen (other));
  /* by name alone, with nothing read, a .json file stays plain JSON */
  g_autofree char *name_only = guess ("model.json", NULL, 0);
  const char      *csv = "id,lower,upper,size\n0,0,2,64\n";
  g_autofree char *csv_type = guess ("records.csv", csv, strlen (csv));

  g_assert_cmpstr (type, ==, "application/json");
  g_assert_cmpstr (other_type, ==, "application/json");
  g_assert_cmpstr (name_only, ==, "application/json");
  g_assert_cmpstr (csv_type, ==, "text/csv");
}

static void
test_onnx (void)
{
  g_autofree char *type = guess ("resnet50.onnx", "\x08\x07\x12\x07pytorch", 11);

  g_assert_cmpstr (type, ==, "application/x-onnx");
}

int
main (int argc, char **argv)
{
  g_autofree char *home = NULL;
  g_autofree char *packages = NULL;
  g_autofree char *xml = NULL;
  g_autofree char *dest = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *note = NULL; /* "not in the search path": we set it next */
  g_autoptr (GError) error = NULL;
  gsize length;
  int   status;
  char *update[] = { "update-mime-database", NULL, NULL };
  int   result;

  g_test_init (&argc, &argv, NULL);
  source_dir = g_strdup (g_getenv ("MEMPLAN_SOURCE_DIR"));
  g_assert_nonnull (source_dir);

  /* before GIO reads any mime data: our database first, then the system's */
  home = g_dir_make_tmp ("memplan-mime-XXXXXX", &error);
  g_assert_no_error (error);
  packages = g_build_filename (home, "mime", "packages", NULL);
  g_assert_cmpint (g_mkdir_with_parents (packages, 0755), ==, 0);
  xml = g_build_filename (source_dir, "data", "org.memplan.Memplan.mime.xml", NULL);
  dest = g_build_filename (packages, "org.memplan.Memplan.xml", NULL);
  g_assert_true (g_file_get_contents (xml, &contents, &length, NULL));
  g_assert_true (g_file_set_contents (dest, contents, length, NULL));
  update[1] = g_build_filename (home, "mime", NULL);
  /* shared-mime-info, which GIO needs anyway */
  g_spawn_sync (NULL, update, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, &note, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_free (update[1]);
  g_setenv ("XDG_DATA_HOME", home, TRUE);

  g_test_add_func ("/install/mime/samples", test_samples);
  g_test_add_func ("/install/mime/plan-file", test_plan_file);
  g_test_add_func ("/install/mime/other-json", test_other_json);
  g_test_add_func ("/install/mime/onnx", test_onnx);
  result = g_test_run ();

  {
    char *rm[] = { "rm", "-rf", home, NULL };

    g_spawn_sync (NULL, rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
  }
  return result;
}
