/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Follows the desktop's light/dark preference (the XDG settings portal's
 * org.freedesktop.appearance color-scheme) by setting
 * gtk-application-prefer-dark-theme; GTK 4.8 does not read it by itself.
 * Without a portal nothing changes. */
void mp_color_scheme_follow (GtkSettings *settings);
/* Stops following, the portal calls still on their way included. */
void mp_color_scheme_stop (GtkSettings *settings);

G_END_DECLS
