/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

#include <stdio.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "color-scheme.h"
#include "frame-bench.h"
#include "memplan-application.h"
#include "memplan-window.h"
#include "plan-view.h"
#include "step-through.h"
#include "widget-shot.h"
#include "window-export.h"

struct _MpApplication
{
  GtkApplication parent_instance;

  /* command-line options for the first window */
  GStrv          planners;
  char          *screenshot;
  char          *select;
  char          *hover;
  char          *color_by;
  char          *theme;
  gint           cursor;
  gint           width;
  gint           height;
  gboolean       shared_scale;
  gboolean       show_live;
  gboolean       benchmark;
  gint           bench_tensors;
  char          *bench_file;  /* the generated graph, removed at exit */
  gint64         started;     /* µs, when the command line was read */
  gint           status;
  char          *step_through; /* teaching mode for this planner once planned */
  gint           step;         /* at this decision (from 1) */
};

G_DEFINE_FINAL_TYPE (MpApplication, mp_application, GTK_TYPE_APPLICATION)

/* Frames to let pass after planning before a screenshot, so layout and the
 * plan panes have settled. */
#define SCREENSHOT_FRAMES 3
/* --benchmark: frames of pan and zoom to time, and the default graph size. */
#define BENCH_FRAMES  240
#define BENCH_TENSORS 100000

char *
mp_application_default_graph (void)
{
  const char *dir = g_getenv ("MEMPLAN_DATA_DIR");

  /* no compiled-in source path: an installed binary must never read the
   * source tree; the tests and `meson devenv` set MEMPLAN_DATA_DIR */
  return g_build_filename (dir && *dir ? dir : MEMPLAN_PKGDATADIR, "default.json", NULL);
}

/* --hover: where a tensor is, in the window's surface coordinates, so a
 * script can move the X pointer there and photograph the real tooltip. */
static void
print_hover_point (MpWindow *window, const char *name)
{
  GPtrArray       *views = mp_window_get_plan_views (window);
  MpPlanSet       *set = mp_window_get_plan_set (window);
  const MpGraph   *graph = set ? mp_plan_set_get_graph (set) : NULL;
  gint             tensor = graph ? mp_graph_find_tensor (graph, name) : -1;
  gdouble          sx, sy;
  graphene_rect_t  r;

  gtk_native_get_surface_transform (GTK_NATIVE (window), &sx, &sy);
  /* the last pane: its tooltip opens downwards inside the window */
  for (guint i = views->len; tensor >= 0 && i-- > 0;)
    if (mp_plan_view_tensor_bounds (views->pdata[i], tensor, &r))
      {
        graphene_point_t p;

        if (!gtk_widget_compute_point (views->pdata[i], GTK_WIDGET (window),
                                       &GRAPHENE_POINT_INIT (r.origin.x + r.size.width / 2,
                                                             r.origin.y + r.size.height / 2),
                                       &p))
          break;
        printf ("hover %d %d\n", (int) (p.x + sx), (int) (p.y + sy));
        fflush (stdout);
        return;
      }
  g_printerr ("memplan: --hover: no tensor '%s' drawn in a pane\n", name);
}

static gboolean
screenshot_tick (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  MpApplication *self = data;
  guint          frames = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (widget), "frames"));
  g_autoptr (GError) error = NULL;

  g_object_set_data (G_OBJECT (widget), "frames", GUINT_TO_POINTER (frames + 1));
  if (frames < SCREENSHOT_FRAMES)
    return G_SOURCE_CONTINUE;
  if (self->hover)
    {
      /* the script photographs the tooltip; the app stays up until killed */
      print_hover_point (MP_WINDOW (widget), self->hover);
      return G_SOURCE_REMOVE;
    }
  if (!mp_window_screenshot (MP_WINDOW (widget), self->screenshot, &error))
    {
      g_printerr ("memplan: %s\n", error->message);
      self->status = 1;
    }
  else if (mp_window_get_error (MP_WINDOW (widget)))
    /* the picture is written, but the graph did not load: say so */
    {
      g_printerr ("memplan: %s\n", mp_window_get_error (MP_WINDOW (widget)));
      self->status = 2;
    }
  g_application_quit (G_APPLICATION (self));
  return G_SOURCE_REMOVE;
}

static void
bench_done (gpointer data)
{
  g_application_quit (G_APPLICATION (data));
}

static gboolean
bench_tick (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  MpApplication *self = data;

  /* the second tick after planning: the panes' first frame is painted */
  if (!g_object_get_data (G_OBJECT (widget), "painted"))
    {
      g_object_set_data (G_OBJECT (widget), "painted", GINT_TO_POINTER (1));
      return G_SOURCE_CONTINUE;
    }
  mp_frame_bench_run (MP_WINDOW (widget), BENCH_FRAMES,
                      (g_get_monotonic_time () - self->started) / 1e6, G_CALLBACK (bench_done),
                      self);
  return G_SOURCE_REMOVE;
}

static void
apply_view_options (MpApplication *self, MpWindow *window)
{
  MpViewState *state = mp_window_get_state (window);

  if (self->select && !mp_window_search (window, self->select))
    g_printerr ("memplan: no tensor or op named '%s'\n", self->select);
  if (self->cursor >= 0)
    mp_view_state_set_cursor (state, self->cursor);
  if (self->show_live)
    mp_window_show_live_list (window);
}

/* --step-through with --screenshot: the teaching window is the picture. */
static gboolean
step_shot_tick (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  MpApplication *self = data;
  guint          frames = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (widget), "frames"));
  g_autoptr (GError) error = NULL;

  g_object_set_data (G_OBJECT (widget), "frames", GUINT_TO_POINTER (frames + 1));
  if (frames < SCREENSHOT_FRAMES)
    return G_SOURCE_CONTINUE;
  if (!mp_widget_screenshot (widget, self->screenshot, &error))
    {
      g_printerr ("memplan: %s\n", error->message);
      self->status = 1;
    }
  g_application_quit (G_APPLICATION (self));
  return G_SOURCE_REMOVE;
}

static gboolean
open_step_through (MpApplication *self, MpWindow *window)
{
  g_autoptr (GError) error = NULL;
  MpStepThrough *step = NULL;

  if (mp_window_get_plan_set (window))
    step = mp_step_through_new (GTK_WINDOW (window), mp_window_get_plan_set (window),
                                self->step_through, &error);
  if (step == NULL)
    {
      g_printerr ("memplan: --step-through: %s\n",
                  error ? error->message : mp_window_get_error (window));
      self->status = 2;
      g_application_quit (G_APPLICATION (self));
      return FALSE;
    }
  if (self->width > 0 && self->height > 0)
    gtk_window_set_default_size (GTK_WINDOW (step), self->width, self->height);
  mp_step_through_set_position (step, self->step > 0 ? self->step - 1 : 0);
  gtk_window_present (GTK_WINDOW (step));
  if (self->screenshot)
    gtk_widget_add_tick_callback (GTK_WIDGET (step), step_shot_tick, self, NULL);
  return TRUE;
}

static void
window_busy_changed (MpWindow *window, GParamSpec *pspec, MpApplication *self)
{
  if (mp_window_get_busy (window))
    return;
  g_signal_handlers_disconnect_by_func (window, window_busy_changed, self);
  apply_view_options (self, window);
  if (self->step_through)
    open_step_through (self, window);
  else if (self->screenshot || self->hover)
    gtk_widget_add_tick_callback (GTK_WIDGET (window), screenshot_tick, self, NULL);
  else if (self->benchmark)
    {
      if (mp_window_get_error (window))
        {
          g_printerr ("memplan: %s\n", mp_window_get_error (window));
          self->status = 2;
          g_application_quit (G_APPLICATION (self));
          return;
        }
      gtk_widget_add_tick_callback (GTK_WIDGET (window), bench_tick, self, NULL);
    }
}

/* --benchmark without a file: a generated graph of bench_tensors tensors. */
static char *
bench_graph (MpApplication *self, GError **error)
{
  MpGenRandomOptions opts = { .n_tensors = self->bench_tensors, .n_streams = 1, .seed = 1 };
  g_autofree char   *json = NULL;
  gsize              length;
  int                fd;
  g_autofree char   *path = NULL;

  json = mp_gen_random (&opts, FALSE, &length);
  if ((fd = g_file_open_tmp ("memplan-bench-XXXXXX.json", &path, error)) < 0)
    return NULL;
  close (fd);
  if (!g_file_set_contents (path, json, length, error))
    return NULL;
  self->bench_file = g_strdup (path);
  return g_steal_pointer (&path);
}

static MpWindow *
new_window (MpApplication *self)
{
  MpWindow *window = mp_window_new (GTK_APPLICATION (self));
  gboolean  first = gtk_application_get_windows (GTK_APPLICATION (self))->next == NULL;

  if (first)
    {
      if (self->width > 0 && self->height > 0)
        gtk_window_set_default_size (GTK_WINDOW (window), self->width, self->height);
      if (self->color_by)
        g_object_set (window, "color-by", self->color_by, NULL);
      if (self->shared_scale)
        g_object_set (window, "shared-scale", TRUE, NULL);
      if (self->planners)
        mp_window_set_planners (window, (const char * const *) self->planners);
      g_signal_connect (window, "notify::busy", G_CALLBACK (window_busy_changed), self);
    }
  gtk_window_present (GTK_WINDOW (window));
  return window;
}

static void
mp_application_activate (GApplication *app)
{
  MpApplication   *self = MP_APPLICATION (app);
  g_autofree char *path = NULL;
  g_autoptr (GFile) file = NULL;
  g_autoptr (GError) error = NULL;

  if (self->benchmark && !(path = bench_graph (self, &error)))
    {
      g_printerr ("memplan: %s\n", error->message);
      self->status = 2;
      return;
    }
  if (path == NULL)
    path = mp_application_default_graph ();
  file = g_file_new_for_path (path);
  mp_window_open (new_window (self), file);
}

static void
mp_application_open (GApplication *app, GFile **files, int n_files, const char *hint)
{
  for (int i = 0; i < n_files; i++)
    mp_window_open (new_window (MP_APPLICATION (app)), files[i]);
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
  GList *windows = gtk_application_get_windows (GTK_APPLICATION (data));

  /* closing the windows lets their planning threads be cancelled first */
  while (windows)
    {
      GList *next = windows->next;

      gtk_window_destroy (windows->data);
      windows = next;
    }
}

static void
mp_application_startup (GApplication *app)
{
  static const GActionEntry entries[] = {
    { "about", about_action },
    { "quit", quit_action },
  };
  static const struct
  {
    const char *action;
    const char *accels[4];
  } accels[] = {
    { "app.quit", { "<Primary>q", NULL } },
    { "win.open", { "<Primary>o", NULL } },
    { "win.reload", { "<Primary>r", "F5", NULL } },
    { "win.export-view", { "<Primary>e", NULL } },
    { "win.export-plans", { "<Primary>s", NULL } },
    { "win.search", { "<Primary>f", NULL } },
    { "win.step-through", { "<Primary>t", NULL } },
    { "win.zoom-in", { "<Primary>plus", "<Primary>equal", "<Primary>KP_Add", NULL } },
    { "win.zoom-out", { "<Primary>minus", "<Primary>KP_Subtract", NULL } },
    { "win.zoom-fit", { "<Primary>0", "<Primary>KP_0", NULL } },
    { "win.pan-left", { "<Alt>Left", NULL } },
    { "win.pan-right", { "<Alt>Right", NULL } },
    { "win.step-prev", { "<Primary>bracketleft", NULL } },
    { "win.step-next", { "<Primary>bracketright", NULL } },
    { "win.clear-selection", { "<Primary><Shift>a", NULL } },
    { "win.shared-scale", { "<Primary>u", NULL } },
    { "win.color-by::kind", { "<Primary>1", NULL } },
    { "win.color-by::op", { "<Primary>2", NULL } },
    { "win.color-by::stream", { "<Primary>3", NULL } },
    { "win.color-by::size", { "<Primary>4", NULL } },
    { "window.close", { "<Primary>w", NULL } },
  };
  MpApplication       *self = MP_APPLICATION (app);
  GtkSettings         *settings;
  g_autoptr (GtkCssProvider) provider = NULL;
  guint                n;
  const MpPlannerInfo *infos = mp_planners (&n);

  G_APPLICATION_CLASS (mp_application_parent_class)->startup (app);

  gtk_window_set_default_icon_name (MP_APPLICATION_ID);
  g_action_map_add_action_entries (G_ACTION_MAP (app), entries, G_N_ELEMENTS (entries), app);
  for (guint i = 0; i < G_N_ELEMENTS (accels); i++)
    gtk_application_set_accels_for_action (GTK_APPLICATION (app), accels[i].action,
                                           accels[i].accels);
  for (guint i = 0; i < n && i < 9; i++)
    {
      g_autofree char *action = g_strconcat ("planner.", infos[i].name, NULL);
      g_autofree char *accel = g_strdup_printf ("<Alt>%u", i + 1);
      const char      *list[] = { accel, NULL };

      gtk_application_set_accels_for_action (GTK_APPLICATION (app), action, list);
    }

  provider = gtk_css_provider_new ();
  gtk_css_provider_load_from_resource (provider, "/org/memplan/Memplan/style.css");
  gtk_style_context_add_provider_for_display (gdk_display_get_default (),
                                              GTK_STYLE_PROVIDER (provider),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);

  settings = gtk_settings_get_default ();
  if (self->theme)
    g_object_set (settings, "gtk-application-prefer-dark-theme",
                  g_str_equal (self->theme, "dark"), NULL);
  else
    mp_color_scheme_follow (settings);
}

static gint
mp_application_handle_local_options (GApplication *app, GVariantDict *options)
{
  MpApplication *self = MP_APPLICATION (app);
  const char   **planners = NULL;
  const char    *size = NULL;

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
      g_printerr ("memplan: cannot open the display (DISPLAY=%s, WAYLAND_DISPLAY=%s)\n",
                  g_getenv ("DISPLAY") ? g_getenv ("DISPLAY") : "",
                  g_getenv ("WAYLAND_DISPLAY") ? g_getenv ("WAYLAND_DISPLAY") : "");
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
  g_variant_dict_lookup (options, "screenshot", "^ay", &self->screenshot);
  g_variant_dict_lookup (options, "step", "i", &self->step);
  if (g_variant_dict_lookup (options, "step-through", "s", &self->step_through) &&
      mp_planner_lookup (self->step_through) == NULL)
    {
      g_autofree char *names = mp_planner_names (", ");

      g_printerr ("memplan: unknown planner '%s' (known: %s)\n", self->step_through, names);
      return 2;
    }
  g_variant_dict_lookup (options, "select", "s", &self->select);
  g_variant_dict_lookup (options, "hover", "s", &self->hover);
  self->show_live = g_variant_dict_contains (options, "show-live");
  g_variant_dict_lookup (options, "cursor", "i", &self->cursor);
  g_variant_dict_lookup (options, "color-by", "s", &self->color_by);
  g_variant_dict_lookup (options, "theme", "s", &self->theme);
  self->shared_scale = g_variant_dict_contains (options, "shared-scale");
  self->benchmark = g_variant_dict_contains (options, "benchmark");
  g_variant_dict_lookup (options, "bench-tensors", "i", &self->bench_tensors);
  if (self->bench_tensors < 1 || self->bench_tensors > 10000000)
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
      (sscanf (size, "%dx%d", &self->width, &self->height) != 2 || self->width < 200 ||
       self->height < 200))
    {
      g_printerr ("memplan: --size must be WIDTHxHEIGHT, at least 200x200\n");
      return 2;
    }
  return -1;
}

static void
mp_application_finalize (GObject *object)
{
  MpApplication *self = MP_APPLICATION (object);

  g_strfreev (self->planners);
  g_free (self->screenshot);
  g_free (self->select);
  g_free (self->hover);
  g_free (self->color_by);
  g_free (self->theme);
  g_free (self->step_through);
  if (self->bench_file)
    g_unlink (self->bench_file);
  g_free (self->bench_file);
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
    { "shared-scale", 0, 0, G_OPTION_ARG_NONE, NULL, "One address scale for every plan", NULL },
    { "select", 0, 0, G_OPTION_ARG_STRING, NULL, "Select a tensor (or an op) by name",
      "NAME" },
    { "show-live", 0, 0, G_OPTION_ARG_NONE, NULL, "Show the buffers live at the cursor step",
      NULL },
    { "hover", 0, 0, G_OPTION_ARG_STRING, NULL,
      "Print where tensor NAME is drawn (window coordinates), for screenshot scripts", "NAME" },
    { "cursor", 0, 0, G_OPTION_ARG_INT, NULL, "Put the step cursor on STEP", "STEP" },
    { "theme", 0, 0, G_OPTION_ARG_STRING, NULL,
      "light or dark (default: follow the desktop)", "THEME" },
    { "size", 0, 0, G_OPTION_ARG_STRING, NULL, "Window size", "WIDTHxHEIGHT" },
    { "screenshot", 0, 0, G_OPTION_ARG_FILENAME, NULL,
      "Once planned, save the window to a PNG file and quit", "FILE" },
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

  self->cursor = -1;
  self->bench_tensors = BENCH_TENSORS;
  self->started = g_get_monotonic_time ();
  g_application_add_main_option_entries (G_APPLICATION (self), options);
  g_application_set_option_context_parameter_string (G_APPLICATION (self), "[FILE…]");
  g_application_set_option_context_summary (G_APPLICATION (self),
                                            "Opens graphs (JSON) or usage records (CSV) and "
                                            "shows every planner's plan side by side; with no "
                                            "file, the bundled default graph.");
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
  return self->status;
}
