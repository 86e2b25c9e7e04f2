/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

/* What the window remembers between runs (org.memplan.Memplan), bound the
 * GNOME Text Editor way: each setting to the window property that shows it,
 * so a change from the menu, a shortcut or a test is stored at once. */

#include "memplan-window-private.h"
#include "recent-list.h"

static void
recent_menu_update (MpWindow *self)
{
  g_auto (GStrv) uris = g_settings_get_strv (self->settings, "recent-files");

  g_menu_remove_all (self->recent_section);
  for (guint i = 0; uris[i]; i++)
    {
      g_autoptr (GFile) file = g_file_new_for_uri (uris[i]);
      g_autofree char *label = g_file_get_basename (file);
      g_autoptr (GMenuItem) item = g_menu_item_new (label, NULL);

      g_menu_item_set_action_and_target_value (item, "win.open-recent",
                                               g_variant_new_string (uris[i]));
      g_menu_append_item (self->recent_section, item);
    }
}

void
mp_window_bind_settings (MpWindow *self, GSettings *settings)
{
  g_return_if_fail (MP_IS_WINDOW (self));
  g_return_if_fail (G_IS_SETTINGS (settings));
  g_return_if_fail (self->settings == NULL);

  self->settings = g_object_ref (settings);
  g_settings_bind (settings, "window-width", self, "default-width", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "window-height", self, "default-height", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "window-maximized", self, "maximized", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "planners", self, "planners", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "color-by", self, "color-by", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "shared-scale", self, "shared-scale", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "optimal-time-budget", self, "time-budget", G_SETTINGS_BIND_DEFAULT);
  g_signal_connect_object (settings, "changed::recent-files", G_CALLBACK (recent_menu_update),
                           self, G_CONNECT_SWAPPED);
  recent_menu_update (self);
}

void
mp_window_note_opened (MpWindow *self)
{
  g_autofree char *uri = NULL;

  g_auto (GStrv) old = NULL;
  g_auto (GStrv) list = NULL;

  /* a window bound to no settings (a scripted run, a test) remembers nothing */
  if (self->file == NULL || self->settings == NULL)
    return;
  uri = g_file_get_uri (self->file);
  /* the desktop's list (file choosers, the shell) and memplan's own menu */
  gtk_recent_manager_add_item (gtk_recent_manager_get_default (), uri);
  old = g_settings_get_strv (self->settings, "recent-files");
  list = mp_recent_list_push ((const char * const *) old, uri, MP_RECENT_MAX);
  g_settings_set_strv (self->settings, "recent-files", (const char * const *) list);
}

void
mp_window_forget_recent (MpWindow *self)
{
  g_autofree char *uri = NULL;

  if (self->file == NULL || self->settings == NULL)
    return;
  uri = g_file_get_uri (self->file);
  {
    g_auto (GStrv) old = g_settings_get_strv (self->settings, "recent-files");
    g_auto (GStrv) list = mp_recent_list_remove ((const char * const *) old, uri);

    g_settings_set_strv (self->settings, "recent-files", (const char * const *) list);
  }
}
