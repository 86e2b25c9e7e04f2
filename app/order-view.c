/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

#include "order-view.h"
#include "memplan-render.h"

struct _MpOrderView
{
  GtkWidget      parent_instance;
  MpViewState   *state;
  GtkWidget     *box;
  GtkWidget     *choice;  /* GtkDropDown: the choices below */
  GtkWidget     *summary; /* GtkLabel */
  GtkWidget     *area;    /* GtkDrawingArea: the two curves */
  guint64       *given;   /* live bytes per step in the given order, or NULL */
  guint64       *chosen;  /* and in the chosen one */
  guint          n_steps;
  MpOrderMethod  order;
  MpOrderMethod  shown;   /* the set's order, for the legend */
};

enum
{
  PROP_0,
  PROP_ORDER,
  N_PROPS
};

static GParamSpec *props[N_PROPS];

/* The app's choices: the file's order, the best heuristic, the proof. */
static const MpOrderMethod choices[] = { MP_ORDER_GIVEN, MP_ORDER_BEST, MP_ORDER_OPTIMAL };

G_DEFINE_FINAL_TYPE (MpOrderView, mp_order_view, GTK_TYPE_WIDGET)

static void
draw (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  MpOrderView    *self = data;
  MpRenderOptions options = { 0 };

  options.theme = mp_view_state_get_dark (self->state) ? MP_THEME_DARK : MP_THEME_LIGHT;
  if (self->given == NULL)
    return; /* the given order alone: the label says so */
  mp_render_order_curves (cr, self->given, self->chosen, self->n_steps,
                          mp_order_method_name (self->shown), &options, width, height);
}

static void
choice_changed (GtkDropDown *drop, GParamSpec *pspec, MpOrderView *self)
{
  guint i = gtk_drop_down_get_selected (drop);

  if (i < G_N_ELEMENTS (choices))
    mp_order_view_set_order (self, choices[i]);
}

static void
mp_order_view_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  MpOrderView *self = MP_ORDER_VIEW (object);

  switch (prop_id)
    {
    case PROP_ORDER:
      g_value_set_uint (value, self->order);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
mp_order_view_set_property (GObject *object, guint prop_id, const GValue *value,
                            GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_ORDER:
      mp_order_view_set_order (MP_ORDER_VIEW (object), g_value_get_uint (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
mp_order_view_dispose (GObject *object)
{
  MpOrderView *self = MP_ORDER_VIEW (object);

  g_clear_pointer (&self->box, gtk_widget_unparent);
  g_clear_object (&self->state);
  g_clear_pointer (&self->given, g_free);
  g_clear_pointer (&self->chosen, g_free);
  G_OBJECT_CLASS (mp_order_view_parent_class)->dispose (object);
}

static void
mp_order_view_class_init (MpOrderViewClass *klass)
{
  GObjectClass   *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->get_property = mp_order_view_get_property;
  object_class->set_property = mp_order_view_set_property;
  object_class->dispose = mp_order_view_dispose;
  props[PROP_ORDER] = g_param_spec_uint ("order", NULL, NULL, 0, MP_ORDER_N - 1, MP_ORDER_GIVEN,
                                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
                                         G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, props);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
mp_order_view_init (MpOrderView *self)
{
  static const char *names[] = { "Given (the file's)", "Best (list, DFS, post-order, tree)",
                                 "Optimal (exact search)", NULL };
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);

  self->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));
  gtk_widget_set_margin_start (row, 6);
  gtk_widget_set_margin_top (row, 6);
  gtk_box_append (GTK_BOX (row), gtk_label_new ("Op order:"));
  self->choice = gtk_drop_down_new_from_strings (names);
  gtk_widget_set_tooltip_text (self->choice, "Run the ops in another order that keeps every "
                                             "dependency (and each stream's order), to lower "
                                             "the peak of live bytes before any planner runs");
  gtk_box_append (GTK_BOX (row), self->choice);
  self->summary = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->summary), 0);
  gtk_label_set_ellipsize (GTK_LABEL (self->summary), PANGO_ELLIPSIZE_END);
  gtk_widget_set_hexpand (self->summary, TRUE);
  gtk_box_append (GTK_BOX (row), self->summary);
  gtk_box_append (GTK_BOX (self->box), row);
  self->area = gtk_drawing_area_new ();
  gtk_widget_set_vexpand (self->area, TRUE);
  gtk_widget_set_size_request (self->area, -1, 160);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self->area), draw, self, NULL);
  gtk_box_append (GTK_BOX (self->box), self->area);
  g_signal_connect (self->choice, "notify::selected", G_CALLBACK (choice_changed), self);
}

GtkWidget *
mp_order_view_new (MpViewState *state)
{
  MpOrderView *self = g_object_new (MP_TYPE_ORDER_VIEW, NULL);

  self->state = g_object_ref (state);
  g_signal_connect_object (state, "notify::dark", G_CALLBACK (gtk_widget_queue_draw),
                           self->area, G_CONNECT_SWAPPED);
  return GTK_WIDGET (self);
}

char *
mp_order_view_headline (MpPlanSet *set)
{
  MpWorkload          *w = set ? mp_plan_set_get_workload (set) : NULL;
  const MpOrderResult *r = w ? w->order : NULL;
  g_autofree char     *saved = NULL, *peak = NULL;

  if (r == NULL)
    return NULL;
  peak = mp_format_bytes (r->peak);
  if (r->peak >= r->given_peak)
    return g_strdup_printf ("order %s: no order found beats the given one (peak %s%s)",
                            mp_order_method_name (r->method), peak,
                            r->method == MP_ORDER_OPTIMAL && r->proved ? ", proved" : "");
  saved = mp_format_bytes (r->given_peak - r->peak);
  return g_strdup_printf ("order %s saves %s (%.1f%%) of the peak of live bytes (%s%s)",
                          mp_order_method_name (r->method), saved,
                          100.0 * (r->given_peak - r->peak) / r->given_peak, peak,
                          r->method == MP_ORDER_OPTIMAL
                            ? (r->proved ? ", proved minimum" : ", not proved") : "");
}

void
mp_order_view_set_plan_set (MpOrderView *self, MpPlanSet *set)
{
  MpWorkload          *w;
  const MpOrderResult *r;
  g_autofree guint    *identity = NULL;
  g_autofree char     *headline = NULL;

  g_return_if_fail (MP_IS_ORDER_VIEW (self));

  g_clear_pointer (&self->given, g_free);
  g_clear_pointer (&self->chosen, g_free);
  w = set ? mp_plan_set_get_workload (set) : NULL;
  r = w ? w->order : NULL;
  if (r == NULL)
    {
      gtk_label_set_text (GTK_LABEL (self->summary),
                          w && !w->graph->has_ops
                            ? "This input has no dependencies: its order is what happened."
                            : "The file's order. Choose another to see both curves.");
      gtk_widget_queue_draw (self->area);
      return;
    }
  self->n_steps = r->n_ops;
  self->shown = r->method;
  identity = g_new (guint, MAX (r->n_ops, 1));
  self->given = g_new0 (guint64, MAX (r->n_ops, 1));
  self->chosen = g_new0 (guint64, MAX (r->n_ops, 1));
  for (guint i = 0; i < r->n_ops; i++)
    identity[i] = i;
  mp_order_peak (w->given_graph, identity, FALSE, self->given);
  mp_order_peak (w->given_graph, r->order, FALSE, self->chosen);
  headline = mp_order_view_headline (set);
  headline[0] = g_ascii_toupper (headline[0]);
  gtk_label_set_text (GTK_LABEL (self->summary), headline);
  gtk_widget_set_tooltip_text (self->summary, headline);
  gtk_widget_queue_draw (self->area);
}

MpOrderMethod
mp_order_view_get_order (MpOrderView *self)
{
  g_return_val_if_fail (MP_IS_ORDER_VIEW (self), MP_ORDER_GIVEN);
  return self->order;
}

void
mp_order_view_set_order (MpOrderView *self, MpOrderMethod order)
{
  g_return_if_fail (MP_IS_ORDER_VIEW (self));

  if (self->order == order)
    return;
  self->order = order;
  for (guint i = 0; i < G_N_ELEMENTS (choices); i++)
    if (choices[i] == order && gtk_drop_down_get_selected (GTK_DROP_DOWN (self->choice)) != i)
      gtk_drop_down_set_selected (GTK_DROP_DOWN (self->choice), i);
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_ORDER]);
}
