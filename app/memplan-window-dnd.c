/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

/* A graph dropped on the window opens in it. */

#include "memplan-window-private.h"

static gboolean
drop_file (GtkDropTarget *target, const GValue *value, double x, double y, MpWindow *self)
{
  GSList *files;

  if (!G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    return FALSE;
  files = g_value_get_boxed (value);
  if (files == NULL)
    return FALSE;
  mp_window_open (self, files->data);
  return TRUE;
}

void
mp_window_dnd_init (MpWindow *self)
{
  GtkDropTarget *drop = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);

  g_signal_connect (drop, "drop", G_CALLBACK (drop_file), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));
}
