/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

#include <math.h>

#include "step-through.h"
#include "memplan-render.h"

struct _MpStepThrough
{
  GtkWindow parent_instance;

  GtkWidget *title_label;
  GtkWidget *rule_label;
  GtkWidget *text_label;
  GtkWidget *canvas;
  GtkWidget *order_view;
  GtkWidget *speed_dropdown;

  MpPlanSet          *set;
  MpPlan             *plan;     /* the traced run */
  MpDecisionTrace        *trace;
  MpRenderIndex      *full;     /* for the viewport: the whole arena stays in view */
  MpPlan             *shown;    /* the records placed so far */
  MpRenderIndex      *shown_index;
  GtkSingleSelection *selection;
  guint               position;
  char               *text;
  gboolean            playing;
  guint               play_source;
};

G_DEFINE_FINAL_TYPE (MpStepThrough, mp_step_through, GTK_TYPE_WINDOW)

enum
{
  PROP_0,
  PROP_PLAYING,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* Steps per second, as the speed list offers them. */
static const gdouble speeds[] = { 0.5, 1, 2, 4, 8, 16 };
#define DEFAULT_SPEED 2

gdouble
mp_step_through_get_speed (MpStepThrough *self)
{
  guint i = gtk_drop_down_get_selected (GTK_DROP_DOWN (self->speed_dropdown));

  return speeds[MIN (i, G_N_ELEMENTS (speeds) - 1)];
}

/* The plan of the first position + 1 decisions, offsets replayed from the
 * trace: what the pane draws. */
static void
build_shown (MpStepThrough *self)
{
  guint               n = self->position + 1;
  g_autofree MpUsage *records = g_new (MpUsage, n);
  g_autofree guint64 *offsets = g_new (guint64, MAX (self->plan->n_records, 1));
  g_autoptr (GError) error = NULL;
  MpPlan *shown;

  if (!mp_decision_trace_replay (self->trace, self->plan->records, self->plan->n_records, n, offsets,
                             &error))
    g_error ("step-through: %s", error->message); /* the trace comes from our own planner */
  for (guint k = 0; k < n; k++)
    records[k] = self->plan->records[mp_decision_trace_step (self->trace, k)->record];
  shown = mp_plan_new_records (self->plan->planner, records, n, self->plan->n_steps,
                               self->plan->alignment);
  for (guint k = 0; k < n; k++)
    shown->offsets[k] = offsets[mp_decision_trace_step (self->trace, k)->record];
  shown->graph_name = g_strdup (self->plan->graph_name);
  shown->parallel = self->plan->parallel;
  shown->lower_bound = self->plan->lower_bound; /* the line a student aims at */
  mp_plan_finish (shown);

  g_clear_pointer (&self->shown_index, mp_render_index_free);
  g_clear_pointer (&self->shown, mp_plan_free);
  self->shown = shown;
  self->shown_index = mp_render_index_new (mp_plan_set_get_graph (self->set), shown);
}

static void
update (MpStepThrough *self)
{
  const MpGraph   *graph = mp_plan_set_get_graph (self->set);
  g_autofree char *line = mp_decision_trace_explain_step (self->trace, graph, self->plan,
                                                      self->position);
  g_autofree char *arena = mp_format_bytes (mp_decision_trace_step (self->trace,
                                                                self->position)->arena);
  guint            n = mp_decision_trace_n_steps (self->trace);

  g_free (self->text);
  self->text = g_strdup_printf ("%u of %u: %s; arena %s", self->position + 1, n, line, arena);
  gtk_label_set_text (GTK_LABEL (self->text_label), self->text);
  build_shown (self);

  if (gtk_single_selection_get_selected (self->selection) != self->position)
    gtk_single_selection_set_selected (self->selection, self->position);
  gtk_widget_activate_action (self->order_view, "list.scroll-to-item", "u", self->position);

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "step.first", self->position > 0);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "step.previous", self->position > 0);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "step.next", self->position + 1 < n);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "step.last", self->position + 1 < n);
  gtk_widget_queue_draw (self->canvas);
}

void
mp_step_through_set_position (MpStepThrough *self, guint position)
{
  g_return_if_fail (MP_IS_STEP_THROUGH (self));

  position = MIN (position, mp_decision_trace_n_steps (self->trace) - 1);
  if (position == self->position && self->shown)
    return;
  self->position = position;
  update (self);
}

guint
mp_step_through_get_position (MpStepThrough *self)
{
  return self->position;
}

guint
mp_step_through_get_n_steps (MpStepThrough *self)
{
  return mp_decision_trace_n_steps (self->trace);
}

const char *
mp_step_through_get_text (MpStepThrough *self)
{
  return self->text;
}

guint
mp_step_through_get_selected (MpStepThrough *self)
{
  return gtk_single_selection_get_selected (self->selection);
}

const MpPlan *
mp_step_through_get_shown (MpStepThrough *self)
{
  return self->shown;
}

const MpDecisionTrace *
mp_step_through_get_trace (MpStepThrough *self)
{
  return self->trace;
}

const MpPlan *
mp_step_through_get_plan (MpStepThrough *self)
{
  return self->plan;
}

/* Playing ------------------------------------------------------------- */

static gboolean
play_tick (gpointer data)
{
  MpStepThrough *self = data;

  if (self->position + 1 >= mp_decision_trace_n_steps (self->trace))
    {
      self->play_source = 0;
      mp_step_through_set_playing (self, FALSE);
      return G_SOURCE_REMOVE;
    }
  mp_step_through_set_position (self, self->position + 1);
  return G_SOURCE_CONTINUE;
}

static void
restart_timer (MpStepThrough *self)
{
  g_clear_handle_id (&self->play_source, g_source_remove);
  if (self->playing)
    self->play_source = g_timeout_add ((guint) (1000 / mp_step_through_get_speed (self)),
                                       play_tick, self);
}

gboolean
mp_step_through_get_playing (MpStepThrough *self)
{
  return self->playing;
}

void
mp_step_through_set_playing (MpStepThrough *self, gboolean playing)
{
  g_return_if_fail (MP_IS_STEP_THROUGH (self));

  playing = !!playing;
  if (playing == self->playing)
    return;
  self->playing = playing;
  /* play at the end starts over */
  if (playing && self->position + 1 >= mp_decision_trace_n_steps (self->trace))
    mp_step_through_set_position (self, 0);
  restart_timer (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PLAYING]);
}

static void
speed_changed (MpStepThrough *self)
{
  restart_timer (self);
}

static void
step_action (GtkWidget *widget, const char *name, GVariant *param)
{
  MpStepThrough *self = MP_STEP_THROUGH (widget);
  guint          n = mp_decision_trace_n_steps (self->trace);
  GtkDropDown   *speed = GTK_DROP_DOWN (self->speed_dropdown);
  guint          s = gtk_drop_down_get_selected (speed);

  if (g_str_equal (name, "step.next"))
    mp_step_through_set_position (self, MIN (self->position + 1, n - 1));
  else if (g_str_equal (name, "step.previous"))
    mp_step_through_set_position (self, self->position ? self->position - 1 : 0);
  else if (g_str_equal (name, "step.first"))
    mp_step_through_set_position (self, 0);
  else if (g_str_equal (name, "step.last"))
    mp_step_through_set_position (self, n - 1);
  else if (g_str_equal (name, "step.faster") && s + 1 < G_N_ELEMENTS (speeds))
    gtk_drop_down_set_selected (speed, s + 1);
  else if (g_str_equal (name, "step.slower") && s > 0)
    gtk_drop_down_set_selected (speed, s - 1);
  /* a step by hand pauses the play */
  if (!g_str_equal (name, "step.faster") && !g_str_equal (name, "step.slower"))
    mp_step_through_set_playing (self, FALSE);
}

static void
selection_changed (MpStepThrough *self)
{
  guint selected = gtk_single_selection_get_selected (self->selection);

  if (selected != GTK_INVALID_LIST_POSITION && selected != self->position)
    mp_step_through_set_position (self, selected);
}

/* Drawing ------------------------------------------------------------- */

static void
outline (cairo_t *cr, const MpRenderLayout *layout, gdouble first, gdouble last,
         guint64 offset, guint64 size)
{
  gdouble x0, y0, x1, y1;

  mp_render_layout_to_device (layout, first, offset, &x0, &y0);
  mp_render_layout_to_device (layout, last, offset + size, &x1, &y1);
  cairo_rectangle (cr, MIN (x0, x1), MIN (y0, y1), MAX (fabs (x1 - x0), 1),
                   MAX (fabs (y1 - y0), 1));
}

static void
draw_decision (cairo_t *cr, MpStepThrough *self, const MpRenderOptions *options,
               const MpRenderLayout *layout)
{
  const MpDecisionStep *step = mp_decision_trace_step (self->trace, self->position);
  const MpUsage     *r = &self->plan->records[step->record];
  const MpPalette   *palette = mp_palette_get (options->theme);
  const MpRenderRect *plot = &layout->plot;
  gdouble            x0, x1, y;
  static const double dash[] = { 5, 3 };

  cairo_save (cr);
  cairo_rectangle (cr, plot->x, plot->y, plot->width, plot->height);
  cairo_clip (cr);

  /* the lifetime band: every step the tensor is live */
  mp_render_layout_to_device (layout, r->first, 0, &x0, &y);
  mp_render_layout_to_device (layout, r->last + 1, 0, &x1, &y);
  cairo_rectangle (cr, MIN (x0, x1), plot->y, fabs (x1 - x0), plot->height);
  cairo_set_source_rgba (cr, 0.95, 0.75, 0.1, 0.18);
  cairo_fill (cr);

  /* the candidates: green when it fits, red when too small */
  cairo_set_dash (cr, dash, G_N_ELEMENTS (dash), 0);
  cairo_set_line_width (cr, 1.5);
  for (guint i = 0; i < step->n_stored; i++)
    {
      const MpDecisionCandidate *c = mp_decision_trace_candidate (self->trace, step, i);

      if ((gint) i == step->chosen || c->size == 0)
        continue;
      outline (cr, layout, r->first, r->last + 1, c->offset, c->size);
      if (c->fits)
        cairo_set_source_rgb (cr, 0.0, 0.55, 0.3);
      else
        cairo_set_source_rgb (cr, 0.8, 0.15, 0.15);
      cairo_stroke (cr);
    }
  cairo_set_dash (cr, NULL, 0, 0);

  /* the chosen gap or partition, else the tensor itself on top */
  cairo_set_line_width (cr, 3);
  if (step->chosen >= 0)
    {
      const MpDecisionCandidate *c = mp_decision_trace_candidate (self->trace, step, step->chosen);

      outline (cr, layout, r->first, r->last + 1, c->offset, MAX (c->size, r->size));
    }
  else
    outline (cr, layout, r->first, r->last + 1, step->offset, r->size);
  cairo_set_source_rgb (cr, palette->highlight.r, palette->highlight.g, palette->highlight.b);
  cairo_stroke (cr);
  cairo_restore (cr);
}

static void
draw_canvas (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  MpStepThrough  *self = data;
  MpRenderOptions options = { 0 };
  MpRenderLayout  layout;
  guint           current;
  GdkRGBA         fg;

  if (self->shown_index == NULL)
    return;
  /* light text means a dark theme, as in the main window */
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  gtk_style_context_get_color (gtk_widget_get_style_context (GTK_WIDGET (area)), &fg);
  G_GNUC_END_IGNORE_DEPRECATIONS
  if (0.299 * fg.red + 0.587 * fg.green + 0.114 * fg.blue > 0.5)
    options.theme = MP_THEME_DARK;
  current = self->plan->records[mp_decision_trace_step (self->trace, self->position)->record].tensor;
  options.flags = MP_RENDER_HIDE_CURVE | MP_RENDER_PARTIAL;
  options.highlight = &current;
  options.n_highlight = 1;
  mp_render_full_viewport (self->full, &options.viewport);
  mp_render_plan (cr, self->shown_index, &options, width, height);
  mp_render_layout (self->shown_index, &options, width, height, &layout);
  draw_decision (cr, self, &options, &layout);
}

/* The order list ------------------------------------------------------- */

static void
setup_row (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer data)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_list_item_set_child (item, label);
}

static void
bind_row (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer data)
{
  GtkStringObject *s = gtk_list_item_get_item (item);

  gtk_label_set_text (GTK_LABEL (gtk_list_item_get_child (item)), gtk_string_object_get_string (s));
}

static GListModel *
order_model (MpStepThrough *self)
{
  const MpGraph *graph = mp_plan_set_get_graph (self->set);
  GtkStringList *list = gtk_string_list_new (NULL);

  for (guint k = 0; k < mp_decision_trace_n_steps (self->trace); k++)
    {
      const MpUsage   *r = &self->plan->records[mp_decision_trace_step (self->trace, k)->record];
      g_autofree char *size = mp_format_bytes (r->size);
      g_autofree char *name = mp_escape_name (graph->tensors[r->tensor].name);
      g_autofree char *row = g_strdup_printf ("%u. %s  %s", k + 1, name, size);

      gtk_string_list_append (list, row);
    }
  return G_LIST_MODEL (list);
}

/* Object --------------------------------------------------------------- */

static const char *
or_dash (const char *text)
{
  return text ? text : "–";
}

MpStepThrough *
mp_step_through_new (GtkWindow *parent, MpPlanSet *set, const char *planner, GError **error)
{
  const MpPlannerInfo *info = mp_planner_lookup (planner);
  const MpLifetimes   *lt = mp_plan_set_get_lifetimes (set);
  g_autoptr (MpDecisionTrace) trace = mp_decision_trace_new ();
  MpPlannerOptions     options = { .trace = trace };
  g_autoptr (MpPlan) plan = NULL;
  g_autofree char     *title = NULL;
  g_autofree char     *shown_name = NULL;
  g_autofree char     *rules = NULL;
  MpStepThrough       *self;

  g_return_val_if_fail (set != NULL && planner != NULL, NULL);

  if (info == NULL)
    {
      g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_INVALID, "unknown planner '%s'",
                   planner);
      return NULL;
    }
  if (lt->n_records > MP_STEP_THROUGH_MAX_TENSORS)
    {
      g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_UNSUPPORTED,
                   "Step through is for graphs of up to %u tensors; '%s' has %u",
                   MP_STEP_THROUGH_MAX_TENSORS, mp_plan_set_get_graph (set)->name, lt->n_records);
      return NULL;
    }
  if (!(plan = mp_workload_plan (mp_plan_set_get_workload (set), info, &options, NULL, error)))
    return NULL;
  if (mp_decision_trace_n_steps (trace) == 0)
    {
      g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_UNSUPPORTED,
                   "%s records no decisions to step through on '%s'", planner,
                   mp_plan_set_get_graph (set)->name);
      return NULL;
    }

  /* it shows its window's plans: it goes with it, and quit (which closes
   * the application's windows) leaves no teaching window behind */
  self = g_object_new (MP_TYPE_STEP_THROUGH, "transient-for", parent, "destroy-with-parent", TRUE,
                       NULL);
  self->set = mp_plan_set_ref (set);
  self->plan = g_steal_pointer (&plan);
  self->trace = g_steal_pointer (&trace);
  self->full = mp_render_index_new (mp_plan_set_get_graph (set), self->plan);
  shown_name = mp_escape_name (mp_plan_set_get_graph (set)->name);
  title = g_strdup_printf ("%s on %s", self->plan->planner, shown_name);
  gtk_window_set_title (GTK_WINDOW (self), title);
  gtk_label_set_text (GTK_LABEL (self->title_label), title);
  rules = g_strdup_printf ("Order: %s.\nRule: %s.", or_dash (self->trace->order_rule),
                           or_dash (self->trace->place_rule));
  gtk_label_set_text (GTK_LABEL (self->rule_label), rules);
  self->selection = gtk_single_selection_new (order_model (self));
  gtk_single_selection_set_autoselect (self->selection, TRUE);
  gtk_list_view_set_model (GTK_LIST_VIEW (self->order_view), GTK_SELECTION_MODEL (self->selection));
  g_signal_connect_swapped (self->selection, "notify::selected", G_CALLBACK (selection_changed),
                            self);
  update (self);
  return self;
}

static void
mp_step_through_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  MpStepThrough *self = MP_STEP_THROUGH (object);

  switch (prop_id)
    {
    case PROP_PLAYING:
      g_value_set_boolean (value, self->playing);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
mp_step_through_set_property (GObject *object, guint prop_id, const GValue *value,
                              GParamSpec *pspec)
{
  MpStepThrough *self = MP_STEP_THROUGH (object);

  switch (prop_id)
    {
    case PROP_PLAYING:
      mp_step_through_set_playing (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
mp_step_through_dispose (GObject *object)
{
  MpStepThrough *self = MP_STEP_THROUGH (object);

  g_clear_handle_id (&self->play_source, g_source_remove);
  if (self->selection)
    g_signal_handlers_disconnect_by_data (self->selection, self);
  gtk_widget_dispose_template (GTK_WIDGET (self), MP_TYPE_STEP_THROUGH);
  g_clear_object (&self->selection);
  g_clear_pointer (&self->shown_index, mp_render_index_free);
  g_clear_pointer (&self->shown, mp_plan_free);
  g_clear_pointer (&self->full, mp_render_index_free);
  g_clear_pointer (&self->plan, mp_plan_free);
  g_clear_pointer (&self->trace, mp_decision_trace_free);
  g_clear_pointer (&self->set, mp_plan_set_unref);
  g_clear_pointer (&self->text, g_free);
  G_OBJECT_CLASS (mp_step_through_parent_class)->dispose (object);
}

static void
mp_step_through_class_init (MpStepThroughClass *klass)
{
  GObjectClass   *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->get_property = mp_step_through_get_property;
  object_class->set_property = mp_step_through_set_property;
  object_class->dispose = mp_step_through_dispose;

  properties[PROP_PLAYING] = g_param_spec_boolean ("playing", NULL, NULL, FALSE,
                                                   G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
                                                     G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/memplan/Memplan/step-through.ui");
  gtk_widget_class_bind_template_child (widget_class, MpStepThrough, title_label);
  gtk_widget_class_bind_template_child (widget_class, MpStepThrough, rule_label);
  gtk_widget_class_bind_template_child (widget_class, MpStepThrough, text_label);
  gtk_widget_class_bind_template_child (widget_class, MpStepThrough, canvas);
  gtk_widget_class_bind_template_child (widget_class, MpStepThrough, order_view);
  gtk_widget_class_bind_template_child (widget_class, MpStepThrough, speed_dropdown);
  gtk_widget_class_bind_template_callback (widget_class, speed_changed);

  gtk_widget_class_install_action (widget_class, "step.first", NULL, step_action);
  gtk_widget_class_install_action (widget_class, "step.previous", NULL, step_action);
  gtk_widget_class_install_action (widget_class, "step.next", NULL, step_action);
  gtk_widget_class_install_action (widget_class, "step.last", NULL, step_action);
  gtk_widget_class_install_action (widget_class, "step.faster", NULL, step_action);
  gtk_widget_class_install_action (widget_class, "step.slower", NULL, step_action);
  gtk_widget_class_install_property_action (widget_class, "step.play", "playing");

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Right, 0, "step.next", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Left, 0, "step.previous", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Home, 0, "step.first", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_End, 0, "step.last", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_space, 0, "step.play", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_plus, 0, "step.faster", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Add, 0, "step.faster", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_minus, 0, "step.slower", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Subtract, 0, "step.slower",
                                       NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
mp_step_through_init (MpStepThrough *self)
{
  GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();

  gtk_widget_init_template (GTK_WIDGET (self));
  g_signal_connect (factory, "setup", G_CALLBACK (setup_row), NULL);
  g_signal_connect (factory, "bind", G_CALLBACK (bind_row), NULL);
  gtk_list_view_set_factory (GTK_LIST_VIEW (self->order_view), factory);
  g_object_unref (factory);
  gtk_drop_down_set_selected (GTK_DROP_DOWN (self->speed_dropdown), DEFAULT_SPEED);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self->canvas), draw_canvas, self, NULL);
}
