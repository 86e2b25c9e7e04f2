/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

#include "plan-io.h"
#include "widget-shot.h"

gboolean
mp_widget_screenshot (GtkWidget *widget, const char *path, GError **error)
{
  g_autoptr (GdkPaintable) paintable = gtk_widget_paintable_new (widget);
  g_autoptr (GtkSnapshot) snapshot = gtk_snapshot_new ();
  g_autoptr (GskRenderNode) node = NULL;
  g_autoptr (GdkTexture) texture = NULL;
  g_autoptr (GBytes) png = NULL;
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  GskRenderer *renderer = gtk_native_get_renderer (GTK_NATIVE (widget));

  if (renderer == NULL || width <= 0 || height <= 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: the window is not shown", path);
      return FALSE;
    }
  gdk_paintable_snapshot (paintable, snapshot, width, height);
  node = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
  if (node == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: nothing drawn yet", path);
      return FALSE;
    }
  texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, width,
                                                                              height));
  /* through memory: the file is replaced whole or not at all */
  png = gdk_texture_save_to_png_bytes (texture);
  return mp_write_file_atomic (path, g_bytes_get_data (png, NULL), g_bytes_get_size (png),
                               error);
}
