/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

#include "column-util.h"
#include "live-list.h"
#include "live-row.h"

struct _MpLiveList
{
  GtkWidget           parent_instance;
  GtkWidget          *box;
  GtkLabel           *heading;
  GtkColumnView      *view;
  GtkSingleSelection *selection;
  GListStore         *store;
  MpViewState        *state;
  MpPlanSet          *set;
  const MpPlan       *plan;
  MpRenderIndex      *index;   /* the set's, for plan */
  gboolean            updating;
  gboolean            stale;   /* the cursor or plan changed while hidden */
};

G_DEFINE_FINAL_TYPE (MpLiveList, mp_live_list, GTK_TYPE_WIDGET)

static int
compare_offset (gconstpointer a, gconstpointer b, gpointer data)
{
  guint64 x = mp_live_row_get_offset ((MpLiveRow *) a);
  guint64 y = mp_live_row_get_offset ((MpLiveRow *) b);

  return x < y ? -1 : x > y;
}

static void
add_record (guint record, gpointer data)
{
  g_array_append_val ((GArray *) data, record);
}

/* records by offset in the plan (g_array_sort_with_data passes pointers) */
static int
compare_record_offset (gconstpointer a, gconstpointer b, gpointer data)
{
  const MpPlan *plan = data;
  guint64       x = plan->offsets[*(const guint *) a];
  guint64       y = plan->offsets[*(const guint *) b];

  return x < y ? -1 : x > y;
}

static int
compare_size (gconstpointer a, gconstpointer b, gpointer data)
{
  guint64 x = mp_live_row_get_size ((MpLiveRow *) a);
  guint64 y = mp_live_row_get_size ((MpLiveRow *) b);

  return x < y ? -1 : x > y;
}

static void
refresh (MpLiveList *self)
{
  g_autoptr (GPtrArray) rows = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (GArray) live_records = g_array_new (FALSE, FALSE, sizeof (guint));
  gint             step = mp_view_state_get_cursor (self->state);
  guint64          live = 0;
  const MpGraph   *graph;
  g_autofree char *bytes = NULL;
  g_autofree char *text = NULL;
  g_autofree char *op = NULL;

  /* GTK's rows cost far more than the query (about 0.1 ms each): a hidden
   * list catches up when it is shown */
  if (!gtk_widget_get_mapped (GTK_WIDGET (self)))
    {
      self->stale = TRUE;
      return;
    }
  self->stale = FALSE;
  if (self->set == NULL || self->plan == NULL || self->index == NULL || step < 0)
    {
      g_list_store_remove_all (self->store);
      gtk_label_set_text (self->heading, "Click the step axis under a plan, or drag the step "
                                         "slider, to list the buffers live at that step.");
      return;
    }
  graph = mp_plan_set_get_graph (self->set);
  /* the step tree finds the k live records in O(log n + k) */
  mp_render_index_foreach_at (self->index, step, add_record, live_records);
  g_array_sort_with_data (live_records, compare_record_offset, (gpointer) self->plan);
  for (guint i = 0; i < live_records->len; i++)
    {
      guint r = g_array_index (live_records, guint, i);

      g_ptr_array_add (rows, mp_live_row_new (graph, self->plan, r));
      live += self->plan->records[r].bytes;
    }
  bytes = mp_format_bytes (live);
  if (graph->has_ops && (guint) step < graph->n_ops)
    op = g_strdup_printf (" (op %s)", graph->ops[step].name);
  text = g_strdup_printf ("Step %d%s in %s: %u buffers live, %s. Click a pane or a Summary row "
                          "to list another plan.", step, op ? op : "", self->plan->planner,
                          rows->len, bytes);
  gtk_label_set_text (self->heading, text);
  self->updating = TRUE;
  g_list_store_splice (self->store, 0, g_list_model_get_n_items (G_LIST_MODEL (self->store)),
                       rows->pdata, rows->len);
  gtk_single_selection_set_selected (self->selection, GTK_INVALID_LIST_POSITION);
  self->updating = FALSE;
}

static void
selection_changed (MpLiveList *self)
{
  MpLiveRow *row = gtk_single_selection_get_selected_item (self->selection);

  if (!self->updating && row != NULL)
    mp_view_state_set_selected (self->state, mp_live_row_get_tensor (row));
}

static void
mp_live_list_map (GtkWidget *widget)
{
  MpLiveList *self = MP_LIVE_LIST (widget);

  GTK_WIDGET_CLASS (mp_live_list_parent_class)->map (widget);
  if (self->stale)
    refresh (self);
}

static void
mp_live_list_dispose (GObject *object)
{
  MpLiveList *self = MP_LIVE_LIST (object);

  if (self->state)
    g_signal_handlers_disconnect_by_data (self->state, self);
  g_clear_object (&self->state);
  g_clear_pointer (&self->set, mp_plan_set_unref);
  g_clear_pointer (&self->box, gtk_widget_unparent);
  g_clear_object (&self->store);
  G_OBJECT_CLASS (mp_live_list_parent_class)->dispose (object);
}

static void
mp_live_list_class_init (MpLiveListClass *klass)
{
  GObjectClass   *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = mp_live_list_dispose;
  widget_class->map = mp_live_list_map;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "livelist");
}

/* Row items are what the string columns sort on, so cast the format func. */
#define FORMAT ((MpCellFormatFunc) mp_live_row_format)

static void
mp_live_list_init (MpLiveList *self)
{
  GtkWidget        *scroller = gtk_scrolled_window_new ();
  GtkSortListModel *sorted;

  self->store = g_list_store_new (MP_TYPE_LIVE_ROW);
  self->view = GTK_COLUMN_VIEW (gtk_column_view_new (NULL));
  gtk_column_view_set_show_column_separators (self->view, TRUE);
  mp_column_view_add_text (self->view, "offset", "Offset", TRUE, FORMAT,
                           GTK_SORTER (gtk_custom_sorter_new (compare_offset, NULL, NULL)));
  mp_column_view_add_text (self->view, "end", "End", TRUE, FORMAT, NULL);
  mp_column_view_add_text (self->view, "size", "Size", TRUE, FORMAT,
                           GTK_SORTER (gtk_custom_sorter_new (compare_size, NULL, NULL)));
  gtk_column_view_column_set_expand (
    mp_column_view_add_text (self->view, "tensor", "Tensor", FALSE, FORMAT, NULL), TRUE);
  mp_column_view_add_text (self->view, "lifetime", "Lifetime", FALSE, FORMAT, NULL);
  mp_column_view_add_text (self->view, "kind", "Kind", FALSE, FORMAT, NULL);

  sorted = gtk_sort_list_model_new (G_LIST_MODEL (g_object_ref (self->store)),
                                    g_object_ref (gtk_column_view_get_sorter (self->view)));
  self->selection = gtk_single_selection_new (G_LIST_MODEL (sorted));
  gtk_single_selection_set_autoselect (self->selection, FALSE);
  gtk_single_selection_set_can_unselect (self->selection, TRUE);
  g_signal_connect_swapped (self->selection, "notify::selected", G_CALLBACK (selection_changed),
                            self);
  gtk_column_view_set_model (self->view, GTK_SELECTION_MODEL (self->selection));

  self->heading = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_xalign (self->heading, 0);
  gtk_label_set_wrap (self->heading, TRUE);
  gtk_widget_set_margin_start (GTK_WIDGET (self->heading), 6);
  gtk_widget_set_margin_top (GTK_WIDGET (self->heading), 4);
  gtk_widget_set_margin_bottom (GTK_WIDGET (self->heading), 4);

  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), GTK_WIDGET (self->view));
  gtk_widget_set_vexpand (scroller, TRUE);
  self->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_box_append (GTK_BOX (self->box), GTK_WIDGET (self->heading));
  gtk_box_append (GTK_BOX (self->box), scroller);
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));
}

GtkWidget *
mp_live_list_new (MpViewState *state)
{
  MpLiveList *self = g_object_new (MP_TYPE_LIVE_LIST, NULL);

  self->state = g_object_ref (state);
  g_signal_connect_swapped (state, "notify::cursor", G_CALLBACK (refresh), self);
  refresh (self);
  return GTK_WIDGET (self);
}

void
mp_live_list_set_plan (MpLiveList *self, MpPlanSet *set, const MpPlan *plan)
{
  g_return_if_fail (MP_IS_LIVE_LIST (self));

  if (set)
    mp_plan_set_ref (set);
  g_clear_pointer (&self->set, mp_plan_set_unref);
  self->set = set;
  self->plan = plan;
  self->index = set && plan ? mp_plan_set_find_index (set, plan) : NULL;
  refresh (self);
}

const MpPlan *
mp_live_list_get_plan (MpLiveList *self)
{
  g_return_val_if_fail (MP_IS_LIVE_LIST (self), NULL);
  return self->plan;
}

GListModel *
mp_live_list_get_model (MpLiveList *self)
{
  g_return_val_if_fail (MP_IS_LIVE_LIST (self), NULL);
  return G_LIST_MODEL (self->store);
}
