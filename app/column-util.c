/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

#include "column-util.h"
#include "text-cell.h"

static void
setup_cell (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer data)
{
  GtkWidget *label = gtk_label_new (NULL);

  if (GPOINTER_TO_INT (data))
    {
      gtk_label_set_xalign (GTK_LABEL (label), 1.0);
      gtk_widget_add_css_class (label, "numeric");
    }
  else
    {
      gtk_label_set_xalign (GTK_LABEL (label), 0.0);
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
    }
  gtk_list_item_set_child (item, label);
}

static void
setup_drawn_cell (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer data)
{
  gtk_list_item_set_child (item, mp_text_cell_new (GPOINTER_TO_INT (data)));
}

static void
show_text (GtkWidget *label, gpointer item)
{
  MpCellFormatFunc format = (MpCellFormatFunc) g_object_get_data (G_OBJECT (label), "format");
  MpCellFailsFunc  fails = (MpCellFailsFunc) g_object_get_data (G_OBJECT (label), "fails");
  const char      *column = g_object_get_data (G_OBJECT (label), "column");
  g_autofree char *text = format (item, column);

  if (MP_IS_TEXT_CELL (label))
    mp_text_cell_set_text (MP_TEXT_CELL (label), text);
  else
    gtk_label_set_text (GTK_LABEL (label), text);
  if (fails && fails (item, column))
    gtk_widget_add_css_class (label, "error");
  else
    gtk_widget_remove_css_class (label, "error");
}

static void
bind_cell (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer data)
{
  GtkWidget *label = gtk_list_item_get_child (item);
  gpointer   row = gtk_list_item_get_item (item);

  g_object_set_data (G_OBJECT (label), "format", data);
  g_object_set_data (G_OBJECT (label), "fails", g_object_get_data (G_OBJECT (factory), "fails"));
  g_object_set_data (G_OBJECT (label), "column", g_object_get_data (G_OBJECT (factory), "column"));
  show_text (label, row);
}

static GtkColumnViewColumn *
add_column (GtkColumnView *view, const char *id, const char *title, gboolean numeric,
            gboolean drawn, MpCellFormatFunc format, GtkSorter *sorter)
{
  GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
  GtkColumnViewColumn *column;

  g_object_set_data_full (G_OBJECT (factory), "column", g_strdup (id), g_free);
  g_signal_connect (factory, "setup", drawn ? G_CALLBACK (setup_drawn_cell) : G_CALLBACK (setup_cell),
                    GINT_TO_POINTER (numeric));
  g_signal_connect (factory, "bind", G_CALLBACK (bind_cell), format);
  column = gtk_column_view_column_new (title, factory);
  g_object_set_data_full (G_OBJECT (column), "column", g_strdup (id), g_free);
  if (sorter)
    {
      gtk_column_view_column_set_sorter (column, sorter);
      g_object_unref (sorter);
    }
  gtk_column_view_append_column (view, column);
  g_object_unref (column);
  return column;
}

GtkColumnViewColumn *
mp_column_view_add_text (GtkColumnView *view, const char *id, const char *title,
                         gboolean numeric, MpCellFormatFunc format, GtkSorter *sorter)
{
  return add_column (view, id, title, numeric, FALSE, format, sorter);
}

GtkColumnViewColumn *
mp_column_view_add_drawn_text (GtkColumnView *view, const char *id, const char *title,
                               gboolean numeric, MpCellFormatFunc format)
{
  return add_column (view, id, title, numeric, TRUE, format, NULL);
}

void
mp_column_view_set_fails (GtkColumnViewColumn *column, MpCellFailsFunc fails)
{
  g_object_set_data (G_OBJECT (gtk_column_view_column_get_factory (column)), "fails", fails);
}

GtkColumnViewColumn *
mp_column_view_find (GtkColumnView *view, const char *id)
{
  GListModel *cols = gtk_column_view_get_columns (view);

  for (guint i = 0; i < g_list_model_get_n_items (cols); i++)
    {
      g_autoptr (GtkColumnViewColumn) col = g_list_model_get_item (cols, i);

      if (g_strcmp0 (g_object_get_data (G_OBJECT (col), "column"), id) == 0)
        return col; /* the view keeps its reference */
    }
  return NULL;
}
