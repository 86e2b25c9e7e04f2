/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

#include "column-util.h"
#include "summary-row.h"
#include "summary-table.h"
#include "order-view.h"
#include "summary-words.h"

struct _MpSummaryTable
{
  GtkWidget          parent_instance;
  GtkWidget          *box;
  GtkLabel           *headline;   /* who wins, by how much */
  GtkColumnView     *view;
  GListStore        *store;
  GtkSortListModel  *sorted;
  GtkSingleSelection *selection;
};

G_DEFINE_FINAL_TYPE (MpSummaryTable, mp_summary_table, GTK_TYPE_WIDGET)

/* The engine's columns (plan-table.h), sorted by the row's property of the
 * same name, then the Summary's own notes. */
static const MpPlanColumn columns[] = {
  MP_PLAN_COLUMN_PLANNER, MP_PLAN_COLUMN_ARENA, MP_PLAN_COLUMN_LOWER_BOUND,
  MP_PLAN_COLUMN_RATIO, MP_PLAN_COLUMN_FRAGMENTATION, MP_PLAN_COLUMN_PARTITIONS,
  MP_PLAN_COLUMN_SECONDS, MP_PLAN_COLUMN_VERDICT,
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

/* The Validity cell's tooltip gives both verdicts and the problem in full;
 * the Notes cell's, its whole text. */
static void
bind_tooltip (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer data)
{
  g_autofree char *tip = data ? mp_summary_row_format (gtk_list_item_get_item (item), "notes")
                              : mp_summary_row_describe_validity (gtk_list_item_get_item (item));

  gtk_widget_set_tooltip_text (gtk_list_item_get_child (item), *tip ? tip : NULL);
}

/* The winner's row stands out in every cell. */
static void
bind_best (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer data)
{
  GtkWidget *label = gtk_list_item_get_child (item);

  if (mp_summary_row_get_best (gtk_list_item_get_item (item)))
    gtk_widget_add_css_class (label, "best");
  else
    gtk_widget_remove_css_class (label, "best");
}

static void
mp_summary_table_dispose (GObject *object)
{
  MpSummaryTable *self = MP_SUMMARY_TABLE (object);

  g_clear_pointer (&self->box, gtk_widget_unparent);
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
  GtkWidget *scroller;

  self->store = g_list_store_new (MP_TYPE_SUMMARY_ROW);
  self->view = GTK_COLUMN_VIEW (gtk_column_view_new (NULL));
  gtk_column_view_set_show_column_separators (self->view, TRUE);
  gtk_column_view_set_reorderable (self->view, FALSE);

  for (guint i = 0; i <= G_N_ELEMENTS (columns); i++)
    {
      const MpPlanColumnInfo *info = i < G_N_ELEMENTS (columns) ? mp_plan_column_info (columns[i])
                                                                : NULL;
      const char          *id = info ? info->id : "notes";
      GtkSorter           *col_sorter = NULL;
      GtkColumnViewColumn *column;
      GtkListItemFactory  *factory;
      /* long words (a verdict, a note) are cut short, whole in the tooltip */
      gboolean             words = info == NULL || info->column == MP_PLAN_COLUMN_VERDICT;

      if (info)
        {
          /* the verdict sorts valid first, by the row's "valid" */
          GtkExpression *expr = gtk_property_expression_new (MP_TYPE_SUMMARY_ROW, NULL, id);

          col_sorter = info->numeric || info->column == MP_PLAN_COLUMN_VERDICT
                         ? GTK_SORTER (gtk_numeric_sorter_new (expr))
                         : GTK_SORTER (gtk_string_sorter_new (expr));
        }
      column = mp_column_view_add_text (self->view, id, info ? info->title : "Notes",
                                        info && info->numeric,
                                        (MpCellFormatFunc) mp_summary_row_format, col_sorter);
      mp_column_view_set_fails (column, (MpCellFailsFunc) mp_summary_row_fails);
      gtk_column_view_column_set_expand (column, info == NULL);
      factory = gtk_column_view_column_get_factory (column);
      g_signal_connect_after (factory, "bind", G_CALLBACK (bind_best), NULL);
      if (words)
        {
          gtk_column_view_column_set_resizable (column, TRUE);
          /* room for "valid in parallel groups"; longer verdicts are
           * ellipsized with the whole text in the tooltip */
          gtk_column_view_column_set_fixed_width (column, info ? 180 : -1);
          g_signal_connect_after (factory, "bind", G_CALLBACK (bind_tooltip),
                                  GINT_TO_POINTER (info == NULL));
        }
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

  /* the smallest arena leads */
  gtk_column_view_sort_by_column (self->view, mp_column_view_find (self->view, "arena"),
                                  GTK_SORT_ASCENDING);

  scroller = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_NEVER,
                                  GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (scroller), TRUE);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), GTK_WIDGET (self->view));
  gtk_widget_set_vexpand (scroller, TRUE);

  self->headline = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_xalign (self->headline, 0);
  gtk_label_set_ellipsize (self->headline, PANGO_ELLIPSIZE_END);
  gtk_widget_add_css_class (GTK_WIDGET (self->headline), "headline");
  self->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_box_append (GTK_BOX (self->box), GTK_WIDGET (self->headline));
  gtk_box_append (GTK_BOX (self->box), scroller);
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));
}

GtkWidget *
mp_summary_table_new (void)
{
  return g_object_new (MP_TYPE_SUMMARY_TABLE, NULL);
}

/* The headline and every row's notes: the winner's margins, optimal's
 * proof, a lower bound that is not the others'. */
static void
fill_rows (MpSummaryTable *self, MpPlan * const *plans, guint n, GPtrArray *rows)
{
  gint             best = mp_plans_best (plans, n);
  g_autofree char *margin = best >= 0 ? mp_plans_margin (plans, n, best) : NULL;
  g_autofree char *detail = best >= 0 ? mp_plans_margin_detail (plans, n, best) : NULL;
  g_autofree char *headline = NULL;

  for (guint i = 0; i < n; i++)
    {
      g_autoptr (GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
      g_autofree char      *proof = mp_summary_proof (plans[i]);
      g_autofree char      *bound = mp_summary_bound_note (plans, n, i);
      g_autofree char      *joined = NULL;

      /* the proof first: it decides how far the others can be trusted */
      if (proof)
        g_ptr_array_add (notes, g_steal_pointer (&proof));
      if ((gint) i == best)
        g_ptr_array_add (notes, g_strdup_printf ("best: %s", detail));
      if (bound)
        g_ptr_array_add (notes, g_steal_pointer (&bound));
      g_ptr_array_add (notes, NULL);
      joined = g_strjoinv ("; ", (char **) notes->pdata);
      g_ptr_array_add (rows, mp_summary_row_new (plans[i], (gint) i == best, joined));
    }
  if (best >= 0)
    headline = g_strdup_printf ("Smallest arena — %s", margin);
  else
    headline = g_strdup (n ? "No plan is valid." : "");
  gtk_label_set_text (self->headline, headline);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->headline), headline);
}

void
mp_summary_table_set_plan_set (MpSummaryTable *self, MpPlanSet *set)
{
  g_autoptr (GPtrArray) rows = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (GPtrArray) plans = g_ptr_array_new ();

  g_autofree char *selected = NULL;

  g_return_if_fail (MP_IS_SUMMARY_TABLE (self));

  /* a replan keeps the chosen row (what "Save Plans" as CSV writes) */
  selected = g_strdup (mp_summary_table_get_selected (self));
  for (guint i = 0; set && i < mp_plan_set_get_n_plans (set); i++)
    g_ptr_array_add (plans, mp_plan_set_get_plan (set, i));
  fill_rows (self, (MpPlan * const *) plans->pdata, plans->len, rows);
  {
    /* the order's lever next to the layout's */
    g_autofree char *order = mp_order_view_headline (set);

    if (order)
      {
        g_autofree char *both = g_strdup_printf ("%s · %s", gtk_label_get_text (self->headline),
                                                 order);

        gtk_label_set_text (self->headline, both);
        gtk_widget_set_tooltip_text (GTK_WIDGET (self->headline), both);
      }
  }
  g_list_store_splice (self->store, 0, g_list_model_get_n_items (G_LIST_MODEL (self->store)),
                       rows->pdata, rows->len);
  if (selected)
    mp_summary_table_select (self, selected);
}

const char *
mp_summary_table_get_headline (MpSummaryTable *self)
{
  g_return_val_if_fail (MP_IS_SUMMARY_TABLE (self), NULL);
  return gtk_label_get_text (self->headline);
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
