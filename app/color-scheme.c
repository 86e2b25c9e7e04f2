/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

#include "color-scheme.h"

#define PORTAL_NAME      "org.freedesktop.portal.Desktop"
#define PORTAL_PATH      "/org/freedesktop/portal/desktop"
#define PORTAL_SETTINGS  "org.freedesktop.portal.Settings"
#define APPEARANCE       "org.freedesktop.appearance"
#define PORTAL_DATA      "memplan-portal"         /* the proxy, while following */
#define PENDING_DATA     "memplan-portal-pending" /* cancels the calls on their way */

static void
apply (GtkSettings *settings, GVariant *value)
{
  g_autoptr (GVariant) inner = NULL;

  /* Read wraps the value in one or two variants depending on the portal */
  inner = g_variant_ref (value);
  while (g_variant_is_of_type (inner, G_VARIANT_TYPE_VARIANT))
    {
      GVariant *next = g_variant_get_variant (inner);

      g_variant_unref (inner);
      inner = next;
    }
  if (g_variant_is_of_type (inner, G_VARIANT_TYPE_UINT32))
    /* 0: no preference, 1: prefer dark, 2: prefer light */
    g_object_set (settings, "gtk-application-prefer-dark-theme",
                  g_variant_get_uint32 (inner) == 1, NULL);
}

static void
setting_changed (GDBusProxy *proxy, const char *sender, const char *signal, GVariant *params,
                 GtkSettings *settings)
{
  const char *ns, *key;
  g_autoptr (GVariant) value = NULL;

  if (!g_str_equal (signal, "SettingChanged"))
    return;
  g_variant_get (params, "(&s&sv)", &ns, &key, &value);
  if (g_str_equal (ns, APPEARANCE) && g_str_equal (key, "color-scheme"))
    apply (settings, value);
}

static void
read_done (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr (GtkSettings) settings = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) reply = g_dbus_proxy_call_finish (G_DBUS_PROXY (source), result, &error);
  g_autoptr (GVariant) value = NULL;

  if (reply == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_debug ("no colour scheme from the portal: %s", error->message);
      return;
    }
  g_variant_get (reply, "(v)", &value);
  apply (settings, value);
}

static void
proxy_ready (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr (GtkSettings) settings = data;
  g_autoptr (GError) error = NULL;
  GDBusProxy *proxy = g_dbus_proxy_new_for_bus_finish (result, &error);

  /* cancelled: the user chose a theme meanwhile, which the desktop's must
   * not override */
  if (proxy == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_debug ("no settings portal: %s", error->message);
      return;
    }
  /* the proxy lives as long as the settings it drives */
  g_object_set_data_full (G_OBJECT (settings), PORTAL_DATA, proxy, g_object_unref);
  g_signal_connect (proxy, "g-signal", G_CALLBACK (setting_changed), settings);
  g_dbus_proxy_call (proxy, "Read", g_variant_new ("(ss)", APPEARANCE, "color-scheme"),
                     G_DBUS_CALL_FLAGS_NO_AUTO_START, 2000,
                     g_object_get_data (G_OBJECT (settings), PENDING_DATA), read_done,
                     g_object_ref (settings));
}

static void
cancel_and_unref (gpointer cancellable)
{
  g_cancellable_cancel (cancellable);
  g_object_unref (cancellable);
}

void
mp_color_scheme_stop (GtkSettings *settings)
{
  g_return_if_fail (GTK_IS_SETTINGS (settings));

  g_object_set_data (G_OBJECT (settings), PORTAL_DATA, NULL);
  g_object_set_data (G_OBJECT (settings), PENDING_DATA, NULL);
}

void
mp_color_scheme_follow (GtkSettings *settings)
{
  GCancellable *cancellable;

  g_return_if_fail (GTK_IS_SETTINGS (settings));

  /* one follower at a time */
  mp_color_scheme_stop (settings);
  cancellable = g_cancellable_new ();
  g_object_set_data_full (G_OBJECT (settings), PENDING_DATA, cancellable, cancel_and_unref);
  g_dbus_proxy_new_for_bus (G_BUS_TYPE_SESSION,
                            G_DBUS_PROXY_FLAGS_DO_NOT_LOAD_PROPERTIES |
                              G_DBUS_PROXY_FLAGS_DO_NOT_AUTO_START_AT_CONSTRUCTION,
                            NULL, PORTAL_NAME, PORTAL_PATH, PORTAL_SETTINGS, cancellable,
                            proxy_ready, g_object_ref (settings));
}
