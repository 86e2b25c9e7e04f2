/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

#include "color-scheme.h"

#define PORTAL_NAME      "org.freedesktop.portal.Desktop"
#define PORTAL_PATH      "/org/freedesktop/portal/desktop"
#define PORTAL_SETTINGS  "org.freedesktop.portal.Settings"
#define APPEARANCE       "org.freedesktop.appearance"

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

  if (proxy == NULL)
    {
      g_debug ("no settings portal: %s", error->message);
      return;
    }
  /* the proxy lives as long as the settings it drives */
  g_object_set_data_full (G_OBJECT (settings), "memplan-portal", proxy, g_object_unref);
  g_signal_connect (proxy, "g-signal", G_CALLBACK (setting_changed), settings);
  g_dbus_proxy_call (proxy, "Read", g_variant_new ("(ss)", APPEARANCE, "color-scheme"),
                     G_DBUS_CALL_FLAGS_NO_AUTO_START, 2000, NULL, read_done,
                     g_object_ref (settings));
}

void
mp_color_scheme_follow (GtkSettings *settings)
{
  g_return_if_fail (GTK_IS_SETTINGS (settings));

  g_dbus_proxy_new_for_bus (G_BUS_TYPE_SESSION,
                            G_DBUS_PROXY_FLAGS_DO_NOT_LOAD_PROPERTIES |
                              G_DBUS_PROXY_FLAGS_DO_NOT_AUTO_START_AT_CONSTRUCTION,
                            NULL, PORTAL_NAME, PORTAL_PATH, PORTAL_SETTINGS, NULL, proxy_ready,
                            g_object_ref (settings));
}
