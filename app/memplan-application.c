/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

#include <stdio.h>
#include <string.h>

#include "color-scheme.h"
#include "memplan-application.h"
#include "memplan-window.h"
#include "scripted-run.h"

struct _MpApplication
{
  GtkApplication parent_instance;

  /* command-line options for the first window */
  GStrv          planners;
  GStrv          dims;         /* --dim NAME=VALUE: the ONNX model's dimensions */
  gint           order;        /* --order: an MpOrderMethod, or -1: not given */
  gboolean       op_order;     /* --schedule sequential: plan several streams for op order */
  char          *color_by;
  char          *compare;    /* --compare: B, loaded beside each window's file */
  char          *theme;
  gboolean       shared_scale;
  MpScriptedRun  run;          /* what happens once it has planned */
  GSettings     *settings;     /* NULL where the schema is not installed */
};

G_DEFINE_FINAL_TYPE (MpApplication, mp_application, GTK_TYPE_APPLICATION)

/* --benchmark: the generated graph's size. */
#define BENCH_TENSORS 100000

char *
mp_application_default_graph (void)
{
  const char      *dir = g_getenv ("MEMPLAN_DATA_DIR");
  g_autofree char *installed = NULL;
  g_autofree char *exe = NULL;

  /* no compiled-in source path: an installed binary must never read the
   * source tree; the tests and `meson devenv` set MEMPLAN_DATA_DIR */
  if (dir && *dir)
    return g_build_filename (dir, "default.json", NULL);
  installed = g_build_filename (MEMPLAN_PKGDATADIR, "default.json", NULL);
  if (g_file_test (installed, G_FILE_TEST_EXISTS))
    return g_steal_pointer (&installed);
  /* run from a build tree (BUILD/app/memplan, nothing installed): the
   * build tree's own copy, BUILD/data/default.json */
  if ((exe = g_file_read_link ("/proc/self/exe", NULL)))
    {
      g_autofree char *app_dir = g_path_get_dirname (exe);
      g_autofree char *build = g_path_get_dirname (app_dir);
      g_autofree char *marker = g_build_filename (build, "meson-private", NULL);
      g_autofree char *copy = g_build_filename (build, "data", "default.json", NULL);

      if (g_file_test (marker, G_FILE_TEST_IS_DIR) && g_file_test (copy, G_FILE_TEST_EXISTS))
        return g_steal_pointer (&copy);
    }
  return g_steal_pointer (&installed);
}

static void
unbind (MpApplication *self, MpWindow *window, const char *property)
{
  if (self->settings)
    g_settings_unbind (window, property);
}

static MpWindow *
new_window (MpApplication *self)
{
  MpWindow *window = mp_window_new (GTK_APPLICATION (self));
  gboolean  first = gtk_application_get_windows (GTK_APPLICATION (self))->next == NULL;

  if (self->settings)
    mp_window_bind_settings (window, self->settings);
  /* an option wins for this run and is not stored: unbound first */
  if (first)
    {
      if (self->run.width > 0 && self->run.height > 0)
        {
          unbind (self, window, "default-width");
          unbind (self, window, "default-height");
          unbind (self, window, "maximized");
          gtk_window_set_default_size (GTK_WINDOW (window), self->run.width, self->run.height);
          gtk_window_unmaximize (GTK_WINDOW (window));
        }
      if (self->color_by)
        {
          unbind (self, window, "color-by");
          g_object_set (window, "color-by", self->color_by, NULL);
        }
      if (self->shared_scale)
        {
          unbind (self, window, "shared-scale");
          g_object_set (window, "shared-scale", TRUE, NULL);
        }
      if (self->planners)
        {
          unbind (self, window, "planners");
          mp_window_set_planners (window, (const char * const *) self->planners);
        }
      if (self->dims)
        mp_window_set_dims (window, (const char * const *) self->dims);
      if (self->order >= 0)
        mp_window_set_order (window, self->order);
      if (self->op_order)
        g_object_set (window, "plan-for-op-order", TRUE, NULL);
      mp_scripted_run_watch (&self->run, window);
    }
  gtk_window_present (GTK_WINDOW (window));
  return window;
}

/* Opens file in a new window, with --compare's B beside it. */
static void
open_in_window (MpApplication *self, GFile *file)
{
  MpWindow *window = new_window (self);

  mp_window_open (window, file);
  if (self->compare)
    {
      g_autoptr (GFile) b = g_file_new_for_commandline_arg (self->compare);

      mp_window_compare (window, b);
    }
}

static void
mp_application_activate (GApplication *app)
{
  MpApplication   *self = MP_APPLICATION (app);
  g_autofree char *path = NULL;
  g_autoptr (GFile) file = NULL;
  g_autoptr (GError) error = NULL;

  if (self->run.benchmark && !(path = mp_scripted_run_bench_graph (&self->run, &error)))
    {
      g_printerr ("memplan: %s\n", error->message);
      self->run.status = 2;
      return;
    }
  /* the open is timed from here: a user's graph is there already */
  if (self->run.benchmark)
    self->run.started = g_get_monotonic_time ();
  if (path == NULL)
    path = mp_application_default_graph ();
  file = g_file_new_for_path (path);
  open_in_window (self, file);
}

static void
mp_application_open (GApplication *app, GFile **files, int n_files, const char *hint)
{
  MpApplication *self = MP_APPLICATION (app);

  /* --benchmark FILE: the open of that file is timed from here */
  if (self->run.benchmark)
    self->run.started = g_get_monotonic_time ();
  for (int i = 0; i < n_files; i++)
    open_in_window (self, files[i]);
}

static void
about_action (GSimpleAction *action, GVariant *param, gpointer data)
{
  static const char *authors[] = { "The memplan authors", NULL };

  gtk_show_about_dialog (gtk_application_get_active_window (GTK_APPLICATION (data)),
                         "program-name", "Memplan",
                         "logo-icon-name", MP_APPLICATION_ID,
                         "version", MEMPLAN_VERSION,
                         "comments", "A workbench for static memory planning of tensor "
                                     "programs: every planner side by side, against the lower "
                                     "bound.",
                         "license-type", GTK_LICENSE_GPL_3_0,
                         "authors", authors,
                         NULL);
}

static void
quit_action (GSimpleAction *action, GVariant *param, gpointer data)
{
  /* A copy with references: each close edits the application's list, and a
   * window's teardown may close another (its link freed under a saved
   * next). Closing the windows lets their planning threads be cancelled
   * first. */
  GList *windows = g_list_copy (gtk_application_get_windows (GTK_APPLICATION (data)));

  for (GList *l = windows; l; l = l->next)
    g_object_ref (l->data);
  for (GList *l = windows; l; l = l->next)
    gtk_window_destroy (l->data);
  g_list_free_full (windows, g_object_unref);
}

/* Scripted runs (a screenshot, a benchmark) neither read nor write what the
 * user set, nor the recent files: their pictures and figures are the same on
 * every machine. */
static GSettings *
open_settings (MpApplication *self)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr (GSettingsSchema) schema = NULL;

  if (self->run.screenshot || self->run.hover || self->run.benchmark || self->run.loading_shots)
    return NULL;
  if (source)
    schema = g_settings_schema_source_lookup (source, MP_APPLICATION_ID, TRUE);
  if (schema == NULL)
    {
      g_debug ("no %s settings schema installed: nothing is remembered", MP_APPLICATION_ID);
      return NULL;
    }
  return g_settings_new_full (schema, NULL, NULL);
}

static void
apply_theme (MpApplication *self)
{
  GtkSettings     *gtk = gtk_settings_get_default ();
  g_autofree char *theme = self->settings ? g_settings_get_string (self->settings, "theme")
                                          : g_strdup ("system");

  if (g_str_equal (theme, "system"))
    mp_color_scheme_follow (gtk);
  else
    {
      /* stop following the desktop, a portal reply still on its way too */
      mp_color_scheme_stop (gtk);
      g_object_set (gtk, "gtk-application-prefer-dark-theme", g_str_equal (theme, "dark"), NULL);
    }
}

static void
mp_application_startup (GApplication *app)
{
  static const GActionEntry entries[] = {
    { "about", about_action },
    { "quit", quit_action },
  };
  static const char *quit_accels[] = { "<Primary>q", NULL };
  static const char *close_accels[] = { "<Primary>w", NULL };
  MpApplication       *self = MP_APPLICATION (app);
  GtkSettings         *settings;
  g_autoptr (GtkCssProvider) provider = NULL;

  G_APPLICATION_CLASS (mp_application_parent_class)->startup (app);

  gtk_window_set_default_icon_name (MP_APPLICATION_ID);
  g_action_map_add_action_entries (G_ACTION_MAP (app), entries, G_N_ELEMENTS (entries), app);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "app.quit", quit_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "window.close", close_accels);
  mp_window_add_accels (GTK_APPLICATION (app));

  provider = gtk_css_provider_new ();
  gtk_css_provider_load_from_resource (provider, "/org/memplan/Memplan/style.css");
  gtk_style_context_add_provider_for_display (gdk_display_get_default (),
                                              GTK_STYLE_PROVIDER (provider),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);

  self->settings = open_settings (self);
  settings = gtk_settings_get_default ();
  if (self->settings)
    {
      g_autoptr (GAction) theme = g_settings_create_action (self->settings, "theme");

      g_action_map_add_action (G_ACTION_MAP (app), theme);
      /* others hold the settings too (the Theme action, window bindings) */
      g_signal_connect_object (self->settings, "changed::theme", G_CALLBACK (apply_theme), self,
                               G_CONNECT_SWAPPED);
    }
  /* --theme wins over the stored one for this run */
  if (self->theme)
    g_object_set (settings, "gtk-application-prefer-dark-theme",
                  g_str_equal (self->theme, "dark"), NULL);
  else
    apply_theme (self);
}

/* Says which display failed and, for a user, what to do without one. */
static void
no_display (gboolean advice)
{
  g_printerr ("memplan: cannot open the display (DISPLAY=%s, WAYLAND_DISPLAY=%s)\n",
              g_getenv ("DISPLAY") ? g_getenv ("DISPLAY") : "",
              g_getenv ("WAYLAND_DISPLAY") ? g_getenv ("WAYLAND_DISPLAY") : "");
  if (advice)
    g_printerr ("memplan is a desktop app. Without a display, memplan-cli does the same work "
                "(memplan-cli plan FILE, memplan-cli render FILE -o plan.png); to run the app "
                "on a virtual display: xvfb-run -a memplan FILE\n");
}

static gint
mp_application_handle_local_options (GApplication *app, GVariantDict *options)
{
  MpApplication *self = MP_APPLICATION (app);
  const char   **planners = NULL;
  const char    *size = NULL;
  const char    *steps = NULL;

  if (g_variant_dict_contains (options, "version"))
    {
      printf ("memplan %s\n", MEMPLAN_VERSION);
      return 0;
    }
  /* for scripts: a DISPLAY that names a display nobody serves (ssh, a
   * container) would make the window fail; gtk_init_check only asks */
  if (g_variant_dict_contains (options, "check-display"))
    {
      if (gtk_init_check ())
        return 0;
      no_display (FALSE);
      return 1;
    }
  if (g_variant_dict_lookup (options, "planner", "^a&s", &planners))
    {
      g_autoptr (GStrvBuilder) b = g_strv_builder_new ();

      for (guint i = 0; planners[i]; i++)
        {
          g_auto (GStrv) parts = g_strsplit (planners[i], ",", -1);

          for (guint j = 0; parts[j]; j++)
            {
              if (*parts[j] == '\0' || g_str_equal (parts[j], "all"))
                continue;
              if (mp_planner_lookup (parts[j]) == NULL)
                {
                  g_autofree char *names = mp_planner_names (", ");

                  g_printerr ("memplan: unknown planner '%s' (known: %s)\n", parts[j], names);
                  g_free (planners);
                  return 2;
                }
              g_strv_builder_add (b, parts[j]);
            }
        }
      g_free (planners);
      self->planners = g_strv_builder_end (b);
      if (self->planners[0] == NULL)
        g_clear_pointer (&self->planners, g_strfreev);
    }
  g_variant_dict_lookup (options, "dim", "^as", &self->dims);
  for (guint i = 0; self->dims && self->dims[i]; i++)
    {
      const char *eq = strrchr (self->dims[i], '='); /* a name may hold '=' */
      guint64     value;

      if (eq == NULL || eq == self->dims[i] ||
          !g_ascii_string_to_unsigned (eq + 1, 10, 1, G_MAXINT64, &value, NULL))
        {
          g_printerr ("memplan: --dim '%s': expected NAME=VALUE with VALUE a positive "
                      "integer\n", self->dims[i]);
          return 2;
        }
    }
  {
    g_autofree char *order = NULL;
    MpOrderMethod    method;

    if (g_variant_dict_lookup (options, "order", "s", &order))
      {
        if (!mp_order_method_from_string (order, &method) ||
            (method != MP_ORDER_GIVEN && method != MP_ORDER_BEST && method != MP_ORDER_OPTIMAL))
          {
            g_printerr ("memplan: --order '%s': expected given, best or optimal\n", order);
            return 2;
          }
        self->order = method;
      }
  }
  {
    g_autofree char *schedule = NULL;
    MpPlanSchedule   which = MP_PLAN_SCHEDULE_AUTO;

    if (g_variant_dict_lookup (options, "schedule", "s", &schedule) &&
        !mp_plan_schedule_parse (schedule, &which))
      {
        g_printerr ("memplan: --schedule '%s': expected concurrent or sequential\n", schedule);
        return 2;
      }
    self->op_order = which == MP_PLAN_SCHEDULE_SEQUENTIAL;
  }
  g_variant_dict_lookup (options, "screenshot", "^ay", &self->run.screenshot);
  g_variant_dict_lookup (options, "screenshot-loading", "^ay", &self->run.loading_shots);
  g_variant_dict_lookup (options, "step", "i", &self->run.step);
  if (g_variant_dict_lookup (options, "step-through", "s", &self->run.step_through) &&
      mp_planner_lookup (self->run.step_through) == NULL)
    {
      g_autofree char *names = mp_planner_names (", ");

      g_printerr ("memplan: unknown planner '%s' (known: %s)\n", self->run.step_through, names);
      return 2;
    }
  g_variant_dict_lookup (options, "select", "s", &self->run.select);
  g_variant_dict_lookup (options, "hover", "s", &self->run.hover);
  self->run.show_live = g_variant_dict_contains (options, "show-live");
  self->run.show_by_op = g_variant_dict_contains (options, "show-by-op");
  g_variant_dict_lookup (options, "cursor", "i", &self->run.cursor);
  if (g_variant_dict_lookup (options, "steps", "&s", &steps) &&
      (sscanf (steps, "%d:%d", &self->run.first_step, &self->run.last_step) != 2 ||
       self->run.first_step < 0 || self->run.last_step < self->run.first_step))
    {
      g_printerr ("memplan: --steps must be FIRST:LAST, 0 <= FIRST <= LAST\n");
      return 2;
    }
  g_variant_dict_lookup (options, "color-by", "s", &self->color_by);
  g_variant_dict_lookup (options, "theme", "s", &self->theme);
  g_variant_dict_lookup (options, "compare", "^ay", &self->compare);
  self->shared_scale = g_variant_dict_contains (options, "shared-scale");
  self->run.benchmark = g_variant_dict_contains (options, "benchmark");
  g_variant_dict_lookup (options, "bench-tensors", "i", &self->run.bench_tensors);
  if (self->run.bench_tensors < 1 || self->run.bench_tensors > 10000000)
    {
      g_printerr ("memplan: --bench-tensors must be between 1 and 10000000\n");
      return 2;
    }
  if (self->color_by)
    {
      MpColorBy by;

      if (!mp_color_by_from_string (self->color_by, &by))
        {
          g_printerr ("memplan: --color-by must be kind, op, stream or size\n");
          return 2;
        }
    }
  if (self->theme && !g_str_equal (self->theme, "light") && !g_str_equal (self->theme, "dark"))
    {
      g_printerr ("memplan: --theme must be light or dark\n");
      return 2;
    }
  if (g_variant_dict_lookup (options, "size", "&s", &size) &&
      (sscanf (size, "%dx%d", &self->run.width, &self->run.height) != 2 || self->run.width < 200 ||
       self->run.height < 200))
    {
      g_printerr ("memplan: --size must be WIDTHxHEIGHT, at least 200x200\n");
      return 2;
    }
  /* GTK's own "cannot open display" would end the process with no word on
   * what to do instead */
  if (!gtk_init_check ())
    {
      no_display (TRUE);
      return 1;
    }
  return -1;
}

static void
mp_application_finalize (GObject *object)
{
  MpApplication *self = MP_APPLICATION (object);

  g_strfreev (self->planners);
  g_strfreev (self->dims);
  g_free (self->color_by);
  g_free (self->theme);
  g_free (self->compare);
  g_clear_object (&self->settings);
  mp_scripted_run_clear (&self->run);
  G_OBJECT_CLASS (mp_application_parent_class)->finalize (object);
}

static void
mp_application_class_init (MpApplicationClass *klass)
{
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = mp_application_finalize;
  app_class->activate = mp_application_activate;
  app_class->open = mp_application_open;
  app_class->startup = mp_application_startup;
  app_class->handle_local_options = mp_application_handle_local_options;
}

static void
mp_application_init (MpApplication *self)
{
  static const GOptionEntry options[] = {
    { "planner", 'p', 0, G_OPTION_ARG_STRING_ARRAY, NULL,
      "Planners to run, repeatable or comma-separated (default: all)", "NAME" },
    { "color-by", 0, 0, G_OPTION_ARG_STRING, NULL, "Colour by kind, op, stream or size", "KEY" },
    { "dim", 0, 0, G_OPTION_ARG_STRING_ARRAY, NULL,
      "Bind an ONNX model's symbolic dimension, repeatable (else the window asks)",
      "NAME=VALUE" },
    { "shared-scale", 0, 0, G_OPTION_ARG_NONE, NULL, "One address scale for every plan", NULL },
    { "order", 0, 0, G_OPTION_ARG_STRING, NULL, "Plan in this op order: given, best or optimal "
      "(and show the Order page)", "ORDER" },
    { "schedule", 0, 0, G_OPTION_ARG_STRING, NULL, "What planners plan for on a graph with "
      "several streams: concurrent (their parallel groups; the default) or sequential (op "
      "order)", "SCHEDULE" },
    { "select", 0, 0, G_OPTION_ARG_STRING, NULL, "Select a tensor (or an op) by name",
      "NAME" },
    { "show-live", 0, 0, G_OPTION_ARG_NONE, NULL, "Show the buffers live at the cursor step",
      NULL },
    { "show-by-op", 0, 0, G_OPTION_ARG_NONE, NULL, "Show the bytes each op allocated and held "
      "at the peak", NULL },
    { "hover", 0, 0, G_OPTION_ARG_STRING, NULL,
      "Print where tensor NAME is drawn (window coordinates), for screenshot scripts", "NAME" },
    { "cursor", 0, 0, G_OPTION_ARG_INT, NULL, "Put the step cursor on STEP", "STEP" },
    { "steps", 0, 0, G_OPTION_ARG_STRING, NULL, "Show steps FIRST to LAST (inclusive)",
      "FIRST:LAST" },
    { "theme", 0, 0, G_OPTION_ARG_STRING, NULL,
      "light or dark (default: follow the desktop)", "THEME" },
    { "size", 0, 0, G_OPTION_ARG_STRING, NULL, "Window size", "WIDTHxHEIGHT" },
    { "screenshot", 0, 0, G_OPTION_ARG_FILENAME, NULL,
      "Once planned, save the window to a PNG file and quit", "FILE" },
    { "screenshot-loading", 0, 0, G_OPTION_ARG_FILENAME, NULL,
      "Save the window while FILE loads to PREFIX-loading.png and at its first view (the "
      "planners still running) to PREFIX-first-view.png", "PREFIX" },
    { "compare", 0, 0, G_OPTION_ARG_FILENAME, NULL,
      "Compare the file opened with FILE (as Compare With…)", "FILE" },
    { "benchmark", 0, 0, G_OPTION_ARG_NONE, NULL,
      "Time opening FILE (default: a generated graph) and 240 frames of pan and zoom, print "
      "the figures and quit", NULL },
    { "bench-tensors", 0, 0, G_OPTION_ARG_INT, NULL,
      "Tensors in the generated benchmark graph (default 100000)", "N" },
    { "step-through", 0, 0, G_OPTION_ARG_STRING, NULL,
      "Once planned, step through PLANNER's decisions (teaching mode)", "PLANNER" },
    { "step", 0, 0, G_OPTION_ARG_INT, NULL, "With --step-through: show decision N (from 1)",
      "N" },
    { "check-display", 0, 0, G_OPTION_ARG_NONE, NULL,
      "Exit 0 when the display can be opened, 1 when not (for scripts)", NULL },
    { "version", 0, 0, G_OPTION_ARG_NONE, NULL, "Print the version and exit", NULL },
    { NULL }
  };

  self->run.app = G_APPLICATION (self);
  self->run.cursor = -1;
  self->run.last_step = -1;
  self->run.bench_tensors = BENCH_TENSORS;
  self->run.started = g_get_monotonic_time ();
  self->order = -1;
  g_application_add_main_option_entries (G_APPLICATION (self), options);
  g_application_set_option_context_parameter_string (G_APPLICATION (self), "[FILE…]");
  g_application_set_option_context_summary (G_APPLICATION (self),
                                            "Opens graphs (JSON, ONNX), usage records (CSV) or "
                                            "PyTorch traces and snapshots, and shows every "
                                            "planner's plan side by side; with no file, the "
                                            "bundled default graph.");
}

MpApplication *
mp_application_new (void)
{
  return g_object_new (MP_TYPE_APPLICATION,
                       "application-id", MP_APPLICATION_ID,
                       "flags", G_APPLICATION_HANDLES_OPEN | G_APPLICATION_NON_UNIQUE,
                       "resource-base-path", "/org/memplan/Memplan",
                       NULL);
}

int
mp_application_get_status (MpApplication *self)
{
  return self->run.status;
}
