/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

#include "column-util.h"
#include "live-list.h"
#include "live-model.h"
#include "live-row.h"

struct _MpLiveList
{
  GtkWidget           parent_instance;
  GtkWidget          *box;
  GtkLabel           *heading;
  GtkColumnView      *view;
  GtkSingleSelection *selection;
  MpLiveModel        *model;
  GtkDropDown        *sort;
  MpViewState        *state;
  MpPlanSet          *set;
  const MpPlan       *plan;
  MpRenderIndex      *index;   /* the set's, for plan */
  gboolean            updating;
  gboolean            stale;   /* the cursor or plan changed while hidden */
  GtkColumnViewColumn *lifetime; /* its title names the plan's steps */
};

G_DEFINE_FINAL_TYPE (MpLiveList, mp_live_list, GTK_TYPE_WIDGET)

static void
add_record (guint record, gpointer data)
{
  g_array_append_val ((GArray *) data, record);
}

static void
refresh (MpLiveList *self)
{
  g_autoptr (GArray) live_records = g_array_new (FALSE, FALSE, sizeof (guint));
  gint             step = mp_view_state_get_cursor (self->state);
  guint64          live = 0;
  const MpGraph   *graph;
  g_autofree char *bytes = NULL;
  g_autofree char *text = NULL;
  g_autofree char *step_text = NULL;
  g_autofree char *peak = NULL;
  guint            n_live;

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
      mp_live_model_set (self->model, NULL, NULL, NULL);
      gtk_label_set_text (self->heading, "Click the step axis under a plan, or drag the step "
                                         "slider, to list the buffers live at that step.");
      return;
    }
  graph = mp_plan_set_get_graph (self->set);
  /* the step tree finds the k live records in O(log n + k); the model
   * sorts their numbers and makes rows only for what is on screen */
  mp_render_index_foreach_at (self->index, step, add_record, live_records);
  for (guint i = 0; i < live_records->len; i++)
    live += self->plan->records[g_array_index (live_records, guint, i)].bytes;
  n_live = live_records->len;
  bytes = mp_format_bytes (live);
  step_text = mp_render_step_words (self->index, step);
  step_text[0] = g_ascii_toupper (step_text[0]);
  if ((guint) step == mp_render_index_peak_step (self->index))
    {
      g_autofree char *op = graph->has_ops && (guint) step < graph->n_ops
                              ? mp_escape_name (graph->ops[step].name) : NULL;

      peak = op ? g_strdup_printf (" The plan's peak, held by op %s; ▲ marks the buffers that "
                                   "set the arena.", op)
                : g_strdup (" The plan's peak; ▲ marks the buffers that set the arena.");
    }
  text = g_strdup_printf ("%s in %s: %u buffers live, %s.%s", step_text, self->plan->planner,
                          n_live, bytes, peak ? peak : "");
  gtk_label_set_text (self->heading, text);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->heading), text);
  self->updating = TRUE;
  /* unselected first: a selected row that leaves would make the selection
   * look for its item among every row that comes, making each one */
  gtk_single_selection_set_selected (self->selection, GTK_INVALID_LIST_POSITION);
  mp_live_model_set (self->model, graph, self->plan, g_steal_pointer (&live_records));
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
  g_clear_object (&self->model);
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
sort_changed (MpLiveList *self, GParamSpec *pspec, GtkDropDown *dropdown)
{
  mp_live_model_set_sort (self->model, gtk_drop_down_get_selected (dropdown));
}

static const struct
{
  const char *id;
  const char *title;
  gboolean    numeric;
  int         width;
} columns[] = {
  { "offset", "Offset", TRUE, 110 },
  { "end", "End", TRUE, 110 },
  { "size", "Size", TRUE, 90 },
  { "tensor", "Tensor", FALSE, 240 },
  { "lifetime", "Lifetime (steps)", FALSE, 140 },
  { "op", "Op", FALSE, 160 },
  { "kind", "Kind", FALSE, 90 },
};

static void
mp_live_list_init (MpLiveList *self)
{
  static const char *sorts[] = { "Offset", "Size (largest first)", "Lifetime (longest first)",
                                 "Op (earliest first)", NULL };
  GtkWidget *scroller = gtk_scrolled_window_new ();
  GtkWidget *top = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *sort = gtk_drop_down_new_from_strings (sorts);

  self->sort = GTK_DROP_DOWN (sort);

  G_STATIC_ASSERT (G_N_ELEMENTS (sorts) == MP_LIVE_SORT_N + 1);
  self->model = mp_live_model_new ();
  self->view = GTK_COLUMN_VIEW (gtk_column_view_new (NULL));
  gtk_column_view_set_show_column_separators (self->view, TRUE);
  /* fixed widths: a row that comes or goes never makes GTK measure every
   * cell again to size the columns */
  for (guint i = 0; i < G_N_ELEMENTS (columns); i++)
    {
      GtkColumnViewColumn *column = mp_column_view_add_drawn_text (self->view, columns[i].id,
                                                                   columns[i].title,
                                                                   columns[i].numeric, FORMAT);

      gtk_column_view_column_set_fixed_width (column, columns[i].width);
      gtk_column_view_column_set_resizable (column, TRUE);
      gtk_column_view_column_set_expand (column, g_str_equal (columns[i].id, "tensor"));
      if (g_str_equal (columns[i].id, "lifetime"))
        self->lifetime = column;
    }

  /* rows are sorted by the model (integers), not by GTK's sorters (objects) */
  self->selection = gtk_single_selection_new (G_LIST_MODEL (g_object_ref (self->model)));
  gtk_single_selection_set_autoselect (self->selection, FALSE);
  gtk_single_selection_set_can_unselect (self->selection, TRUE);
  g_signal_connect_swapped (self->selection, "notify::selected", G_CALLBACK (selection_changed),
                            self);
  gtk_column_view_set_model (self->view, GTK_SELECTION_MODEL (self->selection));

  self->heading = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_xalign (self->heading, 0);
  /* one line: a cursor move changes its text, never the layout */
  gtk_label_set_ellipsize (self->heading, PANGO_ELLIPSIZE_END);
  gtk_widget_set_hexpand (GTK_WIDGET (self->heading), TRUE);
  gtk_widget_set_tooltip_text (sort, "Order of the live buffers");
  g_signal_connect_swapped (sort, "notify::selected", G_CALLBACK (sort_changed), self);
  gtk_box_append (GTK_BOX (top), GTK_WIDGET (self->heading));
  gtk_box_append (GTK_BOX (top), gtk_label_new ("Sort by"));
  gtk_box_append (GTK_BOX (top), sort);
  gtk_widget_set_margin_start (top, 6);
  gtk_widget_set_margin_end (top, 6);
  gtk_widget_set_margin_top (top, 4);
  gtk_widget_set_margin_bottom (top, 4);

  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), GTK_WIDGET (self->view));
  gtk_widget_set_vexpand (scroller, TRUE);
  self->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_box_append (GTK_BOX (self->box), top);
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
  gtk_column_view_column_set_title (self->lifetime, plan && plan->parallel ? "Lifetime (groups)"
                                                                           : "Lifetime (steps)");
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
  return G_LIST_MODEL (self->model);
}

const char *
mp_live_list_get_heading (MpLiveList *self)
{
  g_return_val_if_fail (MP_IS_LIVE_LIST (self), NULL);
  return gtk_label_get_text (self->heading);
}

void
mp_live_list_set_sort (MpLiveList *self, MpLiveSort sort)
{
  g_return_if_fail (MP_IS_LIVE_LIST (self));
  gtk_drop_down_set_selected (self->sort, sort);
}
