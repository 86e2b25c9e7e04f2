/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

#include "column-util.h"
#include "summary-row.h"
#include "summary-table.h"

struct _MpSummaryTable
{
  GtkWidget          parent_instance;
  GtkWidget         *scroller;
  GtkColumnView     *view;
  GListStore        *store;
  GtkSortListModel  *sorted;
  GtkSingleSelection *selection;
};

G_DEFINE_FINAL_TYPE (MpSummaryTable, mp_summary_table, GTK_TYPE_WIDGET)

static const struct
{
  const char *id;
  const char *title;
  const char *property; /* sort key */
  gboolean    numeric;
} columns[] = {
  { "planner", "Planner", "planner", FALSE },
  { "arena", "Arena", "arena", TRUE },
  { "lower-bound", "Lower bound", "lower-bound", TRUE },
  { "ratio", "Ratio", "ratio", TRUE },
  { "fragmentation", "Fragmentation", "fragmentation", TRUE },
  { "partitions", "Partitions", "partitions", TRUE },
  { "seconds", "Time", "seconds", TRUE },
  { "valid", "Validity", "valid", TRUE },
};

enum
{
  PLANNER_SELECTED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
selection_changed (MpSummaryTable *self)
{
  MpSummaryRow *row = gtk_single_selection_get_selected_item (self->selection);

  if (row)
    g_signal_emit (self, signals[PLANNER_SELECTED], 0, mp_summary_row_get_planner (row));
}

/* The Validity cell's tooltip gives both verdicts and the problem in full. */
static void
bind_validity_tooltip (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer data)
{
  g_autofree char *tip = mp_summary_row_describe_validity (gtk_list_item_get_item (item));

  gtk_widget_set_tooltip_text (gtk_list_item_get_child (item), tip);
}

static void
mp_summary_table_dispose (GObject *object)
{
  MpSummaryTable *self = MP_SUMMARY_TABLE (object);

  g_clear_pointer (&self->scroller, gtk_widget_unparent);
  g_clear_object (&self->store);
  G_OBJECT_CLASS (mp_summary_table_parent_class)->dispose (object);
}

static void
mp_summary_table_class_init (MpSummaryTableClass *klass)
{
  GObjectClass   *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = mp_summary_table_dispose;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "summarytable");

  /* A row was chosen: the window shows that plan's memory map. */
  signals[PLANNER_SELECTED] = g_signal_new ("planner-selected", G_TYPE_FROM_CLASS (klass),
                                            G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE,
                                            1, G_TYPE_STRING);
}

static void
mp_summary_table_init (MpSummaryTable *self)
{
  GtkSorter *sorter;

  self->store = g_list_store_new (MP_TYPE_SUMMARY_ROW);
  self->view = GTK_COLUMN_VIEW (gtk_column_view_new (NULL));
  gtk_column_view_set_show_column_separators (self->view, TRUE);
  gtk_column_view_set_reorderable (self->view, FALSE);

  for (guint i = 0; i < G_N_ELEMENTS (columns); i++)
    {
      GtkExpression       *expr;
      GtkSorter           *col_sorter;
      GtkColumnViewColumn *column;

      expr = gtk_property_expression_new (MP_TYPE_SUMMARY_ROW, NULL, columns[i].property);
      if (columns[i].numeric)
        col_sorter = GTK_SORTER (gtk_numeric_sorter_new (expr));
      else
        col_sorter = GTK_SORTER (gtk_string_sorter_new (expr));
      column = mp_column_view_add_text (self->view, columns[i].id, columns[i].title,
                                        columns[i].numeric,
                                        (MpCellFormatFunc) mp_summary_row_format, col_sorter);
      gtk_column_view_column_set_expand (column, i == 0);
      if (g_str_equal (columns[i].id, "valid"))
        g_signal_connect_after (gtk_column_view_column_get_factory (column), "bind",
                                G_CALLBACK (bind_validity_tooltip), NULL);
    }

  sorter = gtk_column_view_get_sorter (self->view);
  self->sorted = gtk_sort_list_model_new (G_LIST_MODEL (g_object_ref (self->store)),
                                          g_object_ref (sorter));
  self->selection = gtk_single_selection_new (G_LIST_MODEL (self->sorted));
  gtk_single_selection_set_autoselect (self->selection, FALSE);
  gtk_single_selection_set_can_unselect (self->selection, TRUE);
  g_signal_connect_swapped (self->selection, "notify::selected-item",
                            G_CALLBACK (selection_changed), self);
  gtk_column_view_set_model (self->view, GTK_SELECTION_MODEL (self->selection));

  self->scroller = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (self->scroller), GTK_POLICY_NEVER,
                                  GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (self->scroller), TRUE);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (self->scroller), GTK_WIDGET (self->view));
  gtk_widget_set_parent (self->scroller, GTK_WIDGET (self));
}

GtkWidget *
mp_summary_table_new (void)
{
  return g_object_new (MP_TYPE_SUMMARY_TABLE, NULL);
}

void
mp_summary_table_set_plan_set (MpSummaryTable *self, MpPlanSet *set)
{
  g_autoptr (GPtrArray) rows = g_ptr_array_new_with_free_func (g_object_unref);

  g_autofree char *selected = NULL;

  g_return_if_fail (MP_IS_SUMMARY_TABLE (self));

  /* a replan keeps the chosen row (what "Save Plans" as CSV writes) */
  selected = g_strdup (mp_summary_table_get_selected (self));
  for (guint i = 0; set && i < mp_plan_set_get_n_plans (set); i++)
    g_ptr_array_add (rows, mp_summary_row_new (mp_plan_set_get_plan (set, i)));
  g_list_store_splice (self->store, 0, g_list_model_get_n_items (G_LIST_MODEL (self->store)),
                       rows->pdata, rows->len);
  if (selected)
    mp_summary_table_select (self, selected);
}

const char *
mp_summary_table_get_selected (MpSummaryTable *self)
{
  MpSummaryRow *row;

  g_return_val_if_fail (MP_IS_SUMMARY_TABLE (self), NULL);

  row = gtk_single_selection_get_selected_item (self->selection);
  return row ? mp_summary_row_get_planner (row) : NULL;
}

gboolean
mp_summary_table_select (MpSummaryTable *self, const char *planner)
{
  GListModel *model;

  g_return_val_if_fail (MP_IS_SUMMARY_TABLE (self), FALSE);

  model = G_LIST_MODEL (self->sorted);
  for (guint i = 0; planner && i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr (MpSummaryRow) row = g_list_model_get_item (model, i);

      if (g_str_equal (mp_summary_row_get_planner (row), planner))
        {
          gtk_single_selection_set_selected (self->selection, i);
          return TRUE;
        }
    }
  gtk_single_selection_set_selected (self->selection, GTK_INVALID_LIST_POSITION);
  return FALSE;
}

GListModel *
mp_summary_table_get_model (MpSummaryTable *self)
{
  g_return_val_if_fail (MP_IS_SUMMARY_TABLE (self), NULL);
  return G_LIST_MODEL (self->sorted);
}

void
mp_summary_table_sort_by (MpSummaryTable *self, const char *column_id, GtkSortType order)
{
  GtkColumnViewColumn *column;

  g_return_if_fail (MP_IS_SUMMARY_TABLE (self));

  column = mp_column_view_find (self->view, column_id);
  g_return_if_fail (column != NULL);
  gtk_column_view_sort_by_column (self->view, column, order);
}
