/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* A shown window (any native widget) as it is drawn now, to a PNG file. */
gboolean mp_widget_screenshot (GtkWidget *widget, const char *path, GError **error);

G_END_DECLS
