/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

#include "by-op-view.h"
#include "column-util.h"

/* One op's figures: a row of the view. Private to it. */
#define MP_TYPE_BY_OP_ROW (mp_by_op_row_get_type ())
G_DECLARE_FINAL_TYPE (MpByOpRow, mp_by_op_row, MP, BY_OP_ROW, GObject)

struct _MpByOpRow
{
  GObject parent_instance;
  char   *op;
  guint64 at_peak;
  guint64 allocated;
  guint   n_allocations;
  guint64 peak;    /* the live bytes at the peak, for the share */
  guint64 b_at_peak; /* comparing: the op's bytes at B's peak (mp_trace_diff's rows) */
  guint64 diff_a;    /* ... and at A's peak, by the same rows */
};

G_DEFINE_FINAL_TYPE (MpByOpRow, mp_by_op_row, G_TYPE_OBJECT)

static void
mp_by_op_row_finalize (GObject *object)
{
  g_free (MP_BY_OP_ROW (object)->op);
  G_OBJECT_CLASS (mp_by_op_row_parent_class)->finalize (object);
}

static void
mp_by_op_row_class_init (MpByOpRowClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = mp_by_op_row_finalize;
}

static void
mp_by_op_row_init (MpByOpRow *self)
{
}

static MpByOpRow *
row_new (const MpTraceOpUse *use, guint64 peak)
{
  MpByOpRow *row = g_object_new (MP_TYPE_BY_OP_ROW, NULL);

  row->op = g_strdup (use->op);
  row->at_peak = use->at_peak;
  row->allocated = use->allocated;
  row->n_allocations = use->n_allocations;
  row->peak = peak;
  return row;
}

static char *
format_cell (gpointer item, const char *column)
{
  MpByOpRow *row = item;

  if (g_str_equal (column, "op"))
    return g_strdup (row->op);
  if (g_str_equal (column, "at_peak"))
    return mp_format_bytes (row->at_peak);
  if (g_str_equal (column, "share"))
    return g_strdup_printf ("%.1f%%", row->peak ? 100.0 * row->at_peak / row->peak : 0.0);
  if (g_str_equal (column, "allocated"))
    return mp_format_bytes (row->allocated);
  if (g_str_equal (column, "b_at_peak"))
    return mp_format_bytes (row->b_at_peak);
  if (g_str_equal (column, "delta"))
    {
      g_autofree char *bytes = mp_format_bytes (row->b_at_peak > row->diff_a
                                                  ? row->b_at_peak - row->diff_a
                                                  : row->diff_a - row->b_at_peak);

      return row->b_at_peak == row->diff_a
               ? g_strdup ("0")
               : g_strdup_printf ("%s%s", row->b_at_peak > row->diff_a ? "+" : "−", bytes);
    }
  return g_strdup_printf ("%u", row->n_allocations);
}

#define CMP(a, b) ((a) < (b) ? GTK_ORDERING_SMALLER : (a) > (b) ? GTK_ORDERING_LARGER \
                                                                : GTK_ORDERING_EQUAL)

static int
compare_rows (gconstpointer a, gconstpointer b, gpointer column)
{
  const MpByOpRow *x = a, *y = b;
  const char      *id = column;

  if (g_str_equal (id, "op"))
    return CMP (g_utf8_collate (x->op, y->op), 0);
  if (g_str_equal (id, "allocated"))
    return CMP (x->allocated, y->allocated);
  if (g_str_equal (id, "allocations"))
    return CMP (x->n_allocations, y->n_allocations);
  if (g_str_equal (id, "b_at_peak"))
    return CMP (x->b_at_peak, y->b_at_peak);
  if (g_str_equal (id, "delta"))
    {
      /* the largest change first, whichever way, as `memplan-cli diff` */
      gint64 dx = (gint64) (x->b_at_peak - x->diff_a), dy = (gint64) (y->b_at_peak - y->diff_a);

      return ABS (dx) != ABS (dy) ? CMP (ABS (dx), ABS (dy)) : CMP (dx, dy);
    }
  return CMP (x->at_peak, y->at_peak); /* at peak, and its share */
}

struct _MpByOpView
{
  GtkWidget      parent_instance;
  GtkWidget     *box;
  GtkLabel      *heading;
  GtkWidget     *per;     /* "Per op" / "Per module", for traces with modules */
  GtkColumnView *view;
  GListStore    *store;
  GtkSortListModel *sorted;
  MpPlanSet     *set;
  MpTraceDiff   *compare; /* A against B, whose rows fill the delta columns, or NULL */
  gboolean       stale;  /* a new set while hidden: rows are made when shown */
  gboolean       per_module;
};

G_DEFINE_FINAL_TYPE (MpByOpView, mp_by_op_view, GTK_TYPE_WIDGET)

/* A graph's tensors charged to the op that produces them, the bytes live
 * at the lifetimes' peak step; the same figures as a trace's. */
static GArray *
graph_by_op (const MpGraph *graph, const MpLifetimes *lt)
{
  g_autoptr (GArray) uses = g_array_new (FALSE, TRUE, sizeof (MpTraceOpUse));
  GArray            *shown = g_array_new (FALSE, FALSE, sizeof (MpTraceOpUse));
  MpTraceOpUse       none = { NULL, 0, 0, 0 };

  g_array_set_size (uses, graph->n_ops);
  for (guint r = 0; r < lt->n_records; r++)
    {
      const MpUsage *u = &lt->records[r];
      gint           op = graph->tensors[u->tensor].producer;
      MpTraceOpUse  *use = op >= 0 ? &g_array_index (uses, MpTraceOpUse, op) : &none;

      use->allocated += u->bytes;
      use->n_allocations++;
      if (u->first <= lt->peak_step && lt->peak_step <= u->last)
        use->at_peak += u->bytes;
    }
  for (guint i = 0; i < graph->n_ops; i++)
    if (g_array_index (uses, MpTraceOpUse, i).n_allocations)
      {
        MpTraceOpUse use = g_array_index (uses, MpTraceOpUse, i);

        use.op = (char *) graph->ops[i].name;
        g_array_append_val (shown, use);
      }
  if (none.n_allocations)
    {
      none.op = (char *) "(no op)";
      g_array_append_val (shown, none);
    }
  return shown;
}

/* A set's figures per op (or module) and the live bytes at its peak. */
static GArray *
set_uses (MpPlanSet *set, gboolean per_module, guint64 *peak)
{
  MpWorkload *w = mp_plan_set_get_workload (set);

  if (w->trace)
    {
      GArray *uses = mp_plan_set_get_by_op (set, per_module && mp_trace_has_modules (w->trace));

      *peak = w->trace->live_peak;
      return uses ? g_array_ref (uses) : g_array_new (FALSE, TRUE, sizeof (MpTraceOpUse));
    }
  *peak = w->lifetimes->lower_bound;
  return graph_by_op (w->graph, w->lifetimes);
}

/* Comparing: mp_trace_diff's rows (op + stack + size) summed per op, the
 * bytes live at each side's peak; an op only B has becomes a row of its
 * own. Per module the rows stay A's alone: the diff groups by op. */
static void
add_compare (MpByOpView *self, GPtrArray *rows, guint64 peak)
{
  g_autoptr (GHashTable) by_name = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < rows->len; i++)
    g_hash_table_insert (by_name, ((MpByOpRow *) rows->pdata[i])->op, rows->pdata[i]);
  for (guint i = 0; i < self->compare->rows->len; i++)
    {
      const MpTraceDiffRow *d = &g_array_index (self->compare->rows, MpTraceDiffRow, i);
      MpByOpRow            *row = g_hash_table_lookup (by_name, d->op);

      if (row == NULL)
        {
          MpTraceOpUse none = { d->op, 0, 0, 0 };

          row = row_new (&none, peak);
          g_ptr_array_add (rows, row);
          g_hash_table_insert (by_name, row->op, row);
        }
      row->b_at_peak += d->at_peak_b;
      row->diff_a += d->at_peak_a;
    }
}

static void
refresh (MpByOpView *self)
{
  MpWorkload      *w;
  MpRenderIndex   *index = NULL;
  gboolean         per_module;
  g_autoptr (GArray) uses = NULL;
  g_autofree char *peak_text = NULL, *where = NULL, *text = NULL;
  guint64          peak;
  g_autoptr (GPtrArray) rows = g_ptr_array_new_with_free_func (g_object_unref);

  if (!gtk_widget_get_mapped (GTK_WIDGET (self)))
    {
      self->stale = TRUE;
      return;
    }
  self->stale = FALSE;
  if (self->set == NULL)
    {
      g_list_store_remove_all (self->store);
      gtk_label_set_text (self->heading, "");
      return;
    }
  w = mp_plan_set_get_workload (self->set);
  /* the choice stays for the next trace with modules */
  per_module = self->per_module && w->trace && mp_trace_has_modules (w->trace);
  gtk_widget_set_visible (self->per, w->trace && mp_trace_has_modules (w->trace));
  gtk_column_view_column_set_title (mp_column_view_find (self->view, "op"),
                                    per_module ? "Module" : "Op");
  uses = set_uses (self->set, per_module, &peak);
  /* the step in the words of the panes' axis ("step 36 (time 59 in the
   * file)", "step 1 (op relu)") */
  for (guint i = 0; i < mp_plan_set_get_n_plans (self->set) && index == NULL; i++)
    if (!mp_plan_set_get_plan (self->set, i)->parallel) /* whose steps are groups */
      index = mp_plan_set_get_index (self->set, i);
  where = index ? mp_render_step_words (index, w->lifetimes->peak_step)
                : g_strdup_printf ("step %u", w->lifetimes->peak_step);
  for (guint i = 0; i < uses->len; i++)
    g_ptr_array_add (rows, row_new (&g_array_index (uses, MpTraceOpUse, i), peak));
  if (self->compare && !per_module)
    add_compare (self, rows, peak);
  gtk_column_view_column_set_visible (mp_column_view_find (self->view, "b_at_peak"),
                                      self->compare && !per_module);
  gtk_column_view_column_set_visible (mp_column_view_find (self->view, "delta"),
                                      self->compare && !per_module);
  g_list_store_splice (self->store, 0, g_list_model_get_n_items (G_LIST_MODEL (self->store)),
                       rows->pdata, rows->len);

  peak_text = mp_format_bytes (peak);
  if (rows->len == 0)
    text = g_strdup ("No allocation to attribute.");
  else
    {
      /* the heaviest at the peak, whatever the rows are sorted by now */
      MpByOpRow       *top = rows->pdata[0];
      g_autofree char *held = NULL;

      for (guint i = 1; i < rows->len; i++)
        if (compare_rows (rows->pdata[i], top, "at_peak") == GTK_ORDERING_LARGER)
          top = rows->pdata[i];
      held = mp_format_bytes (top->at_peak);
      {
        /* every op that holds as much: a tie is no single owner */
        g_autoptr (GString) names = g_string_new (top->op);
        guint               tied = 1;

        for (guint i = 0; i < rows->len; i++)
          {
            MpByOpRow *row = rows->pdata[i];

            if (row == top || row->at_peak != top->at_peak)
              continue;
            if (tied++ < 3)
              g_string_append_printf (names, ", %s", row->op);
          }
        if (tied > 3)
          g_string_append_printf (names, " and %u more", tied - 3);
        if (tied == 1)
          text = g_strdup_printf ("%s holds the most at the peak: %s (%.1f%%) of the %s live at "
                                  "%s.", top->op, held, peak ? 100.0 * top->at_peak / peak : 0.0,
                                  peak_text, where);
        else
          text = g_strdup_printf ("%u ops tie for the most at the peak (%s): %s (%.1f%%) each "
                                  "of the %s live at %s.", tied, names->str, held,
                                  peak ? 100.0 * top->at_peak / peak : 0.0, peak_text, where);
      }
    }
  if (self->compare && !per_module && rows->len)
    {
      /* the op that changed most from A's peak to B's, first: where to look */
      MpByOpRow *grew = rows->pdata[0];

      for (guint i = 1; i < rows->len; i++)
        if (compare_rows (rows->pdata[i], grew, "delta") == GTK_ORDERING_LARGER)
          grew = rows->pdata[i];
      if (grew->b_at_peak != grew->diff_a)
        {
          g_autofree char *delta = format_cell (grew, "delta");
          char            *both = g_strdup_printf ("B − A: %s changed the most, %s at the peak. "
                                                   "%s", grew->op, delta, text);

          g_free (text);
          text = both;
        }
    }
  gtk_label_set_text (self->heading, text);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->heading), text);
}

static void
mp_by_op_view_map (GtkWidget *widget)
{
  MpByOpView *self = MP_BY_OP_VIEW (widget);

  GTK_WIDGET_CLASS (mp_by_op_view_parent_class)->map (widget);
  if (self->stale)
    refresh (self);
}

static void
mp_by_op_view_dispose (GObject *object)
{
  MpByOpView *self = MP_BY_OP_VIEW (object);

  g_clear_pointer (&self->set, mp_plan_set_unref);
  self->compare = NULL;
  g_clear_pointer (&self->box, gtk_widget_unparent);
  g_clear_object (&self->store);
  g_clear_object (&self->sorted);
  G_OBJECT_CLASS (mp_by_op_view_parent_class)->dispose (object);
}

static void
mp_by_op_view_class_init (MpByOpViewClass *klass)
{
  GObjectClass   *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = mp_by_op_view_dispose;
  widget_class->map = mp_by_op_view_map;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "byopview");
}

static const struct
{
  const char *id;
  const char *title;
  gboolean    numeric;
} columns[] = {
  { "op", "Op", FALSE },
  { "at_peak", "At the peak", TRUE },
  { "share", "Share of the peak", TRUE },
  { "allocated", "Allocated", TRUE },
  { "allocations", "Allocations", TRUE },
  { "b_at_peak", "B at its peak", TRUE },
  { "delta", "B − A at the peaks", TRUE },
};

static void
per_changed (MpByOpView *self, GParamSpec *pspec, GtkDropDown *dropdown)
{
  mp_by_op_view_set_per_module (self, gtk_drop_down_get_selected (dropdown) == 1);
}

static void
mp_by_op_view_init (MpByOpView *self)
{
  static const char *pers[] = { "Per op", "Per module", NULL };
  GtkWidget         *scroller = gtk_scrolled_window_new ();
  GtkWidget         *top = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);

  self->store = g_list_store_new (MP_TYPE_BY_OP_ROW);
  self->view = GTK_COLUMN_VIEW (gtk_column_view_new (NULL));
  gtk_column_view_set_show_column_separators (self->view, TRUE);
  for (guint i = 0; i < G_N_ELEMENTS (columns); i++)
    {
      GtkSorter           *sorter = GTK_SORTER (gtk_custom_sorter_new (compare_rows,
                                                                       (gpointer) columns[i].id,
                                                                       NULL));
      GtkColumnViewColumn *column = mp_column_view_add_text (self->view, columns[i].id,
                                                             columns[i].title,
                                                             columns[i].numeric, format_cell,
                                                             sorter);

      gtk_column_view_column_set_resizable (column, TRUE);
      gtk_column_view_column_set_expand (column, i == 0);
    }
  self->sorted = gtk_sort_list_model_new (G_LIST_MODEL (g_object_ref (self->store)),
                                          g_object_ref (gtk_column_view_get_sorter (self->view)));
  gtk_column_view_set_model (self->view,
                             GTK_SELECTION_MODEL (gtk_no_selection_new (
                               G_LIST_MODEL (g_object_ref (self->sorted)))));
  mp_by_op_view_sort (self, "at_peak", GTK_SORT_DESCENDING);

  self->heading = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_xalign (self->heading, 0);
  gtk_label_set_ellipsize (self->heading, PANGO_ELLIPSIZE_END);
  gtk_widget_set_hexpand (GTK_WIDGET (self->heading), TRUE);
  self->per = gtk_drop_down_new_from_strings (pers);
  gtk_widget_set_tooltip_text (self->per, "Charge each allocation to its innermost op, or to "
                                          "the module it was made in (with_modules=True)");
  g_signal_connect_swapped (self->per, "notify::selected", G_CALLBACK (per_changed), self);
  gtk_box_append (GTK_BOX (top), GTK_WIDGET (self->heading));
  gtk_box_append (GTK_BOX (top), self->per);
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
mp_by_op_view_new (void)
{
  return g_object_new (MP_TYPE_BY_OP_VIEW, NULL);
}

gboolean
mp_by_op_view_set_plan_set (MpByOpView *self, MpPlanSet *set)
{
  MpWorkload *w = set ? mp_plan_set_get_workload (set) : NULL;

  g_return_val_if_fail (MP_IS_BY_OP_VIEW (self), FALSE);

  /* a new set of plans for the same input keeps the rows */
  if (set == NULL || self->set == NULL || w != mp_plan_set_get_workload (self->set))
    {
      if (set)
        mp_plan_set_ref (set);
      g_clear_pointer (&self->set, mp_plan_set_unref);
      self->set = set;
      refresh (self);
    }
  return w && (w->trace || w->graph->has_ops);
}

void
mp_by_op_view_set_compare (MpByOpView *self, MpTraceDiff *diff)
{
  g_return_if_fail (MP_IS_BY_OP_VIEW (self));
  if (diff == self->compare)
    return;
  self->compare = diff;
  /* what changed first: the rows that grew most from A to B */
  if (diff)
    mp_by_op_view_sort (self, "delta", GTK_SORT_DESCENDING);
  refresh (self);
}

GListModel *
mp_by_op_view_get_model (MpByOpView *self)
{
  g_return_val_if_fail (MP_IS_BY_OP_VIEW (self), NULL);
  return G_LIST_MODEL (self->sorted);
}

char *
mp_by_op_view_get_cell (MpByOpView *self, guint position, const char *column)
{
  g_autoptr (MpByOpRow) row = NULL;

  g_return_val_if_fail (MP_IS_BY_OP_VIEW (self), NULL);
  if (!(row = g_list_model_get_item (G_LIST_MODEL (self->sorted), position)))
    return NULL;
  return format_cell (row, column);
}

void
mp_by_op_view_sort (MpByOpView *self, const char *column, GtkSortType order)
{
  g_return_if_fail (MP_IS_BY_OP_VIEW (self));
  gtk_column_view_sort_by_column (self->view, mp_column_view_find (self->view, column), order);
}

void
mp_by_op_view_set_per_module (MpByOpView *self, gboolean per_module)
{
  g_return_if_fail (MP_IS_BY_OP_VIEW (self));
  if (self->per_module == per_module)
    return;
  self->per_module = per_module;
  gtk_drop_down_set_selected (GTK_DROP_DOWN (self->per), per_module);
  refresh (self);
}

const char *
mp_by_op_view_get_heading (MpByOpView *self)
{
  g_return_val_if_fail (MP_IS_BY_OP_VIEW (self), NULL);
  return gtk_label_get_text (self->heading);
}
