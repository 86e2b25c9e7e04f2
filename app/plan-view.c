/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

#include <math.h>

#include "plan-view.h"
#include "tensor-info.h"

struct _MpPlanView
{
  GtkWidget       parent_instance;

  MpPlanSet      *set;
  guint           plan_index;
  gint            memory;         /* a memory's pane (its index in the set), or -1 */
  MpRenderIndex  *index;          /* the plan set's */
  MpViewState    *state;
  MpRenderFlags   flags;

  /* The rendered plan, reused until data, size, viewport or style change. */
  GskRenderNode  *cache;
  int             cache_width;
  int             cache_height;
  /* While the step range moves, the cached picture is shifted and stretched
   * to it (cheap, every frame) and drawn again once the motion pauses. */
  gdouble         cache_min;
  gdouble         cache_max;
  guint           settle_source;
  /* a tick callback while the index's summary for a new scale is made on
   * its thread (the old one stretched meanwhile): then drawn again */
  guint           summary_tick;

  gdouble         pointer_x;
  gdouble         pointer_y;
  gdouble         drag_min;
  gdouble         drag_max;
  gdouble         zoom_span;
  gdouble         zoom_around;
  guint           highlight;
};

G_DEFINE_FINAL_TYPE (MpPlanView, mp_plan_view, GTK_TYPE_WIDGET)

enum
{
  CLICKED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* A press that moves less than this (pixels) is a click, not a pan. */
#define CLICK_SLOP 4.0
#define ZOOM_STEP  1.25
/* Redraw for real when the step range has stood still this long. */
#define SETTLE_MS  120

static void
invalidate (MpPlanView *self)
{
  g_clear_pointer (&self->cache, gsk_render_node_unref);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static gboolean
settle (gpointer data)
{
  MpPlanView *self = data;

  self->settle_source = 0;
  invalidate (self);
  return G_SOURCE_REMOVE;
}

void
mp_plan_view_redraw (MpPlanView *self)
{
  g_return_if_fail (MP_IS_PLAN_VIEW (self));
  g_clear_handle_id (&self->settle_source, g_source_remove);
  invalidate (self);
}

static gboolean
summary_made (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  MpPlanView *self = MP_PLAN_VIEW (widget);

  if (self->index != NULL && mp_render_index_summary_pending (self->index))
    return G_SOURCE_CONTINUE;
  self->summary_tick = 0;
  mp_plan_view_redraw (self);
  return G_SOURCE_REMOVE;
}

static void
state_changed (MpPlanView *self, GParamSpec *pspec)
{
  const char *name = g_param_spec_get_name (pspec);

  /* Hover, selection and the cursor are an overlay: no need to draw the
   * plan again. */
  if (g_str_equal (name, "hovered") || g_str_equal (name, "cursor") ||
      g_str_equal (name, "selected"))
    gtk_widget_queue_draw (GTK_WIDGET (self));
  else if (g_str_equal (name, "viewport") && self->cache != NULL)
    {
      g_clear_handle_id (&self->settle_source, g_source_remove);
      self->settle_source = g_timeout_add (SETTLE_MS, settle, self);
      gtk_widget_queue_draw (GTK_WIDGET (self));
    }
  else
    mp_plan_view_redraw (self);
}

void
mp_plan_view_get_options (MpPlanView *self, MpRenderOptions *options)
{
  gint selected;

  g_return_if_fail (MP_IS_PLAN_VIEW (self));

  memset (options, 0, sizeof *options);
  options->color_by = mp_view_state_get_color_by (self->state);
  options->theme = mp_view_state_get_dark (self->state) ? MP_THEME_DARK : MP_THEME_LIGHT;
  options->flags = self->flags;
  mp_view_state_get_steps (self->state, &options->viewport.step_min, &options->viewport.step_max);
  /* a memory's pane keeps its own scale: its capacity line sets its top */
  if (mp_view_state_get_shared_scale (self->state) && self->memory < 0)
    {
      MpViewport full;
      guint64    widest = 0;
      MpPlan    *plan = mp_plan_view_get_plan (self);

      for (guint i = 0; i < mp_plan_set_get_n_plans (self->set); i++)
        widest = MAX (widest, mp_plan_set_get_plan (self->set, i)->arena);
      mp_render_full_viewport (self->index, &full);
      options->viewport.addr_min = 0;
      /* the same headroom share as the plan's own full view */
      options->viewport.addr_max = plan->arena > 0 ? full.addr_max * widest / plan->arena
                                                   : full.addr_max;
    }
  selected = mp_view_state_get_selected (self->state);
  if (selected >= 0)
    {
      self->highlight = mp_graph_view_root (mp_plan_set_get_graph (self->set), selected, NULL);
      options->highlight = &self->highlight;
      options->n_highlight = 1;
    }
}

static void
get_layout (MpPlanView *self, MpRenderLayout *layout)
{
  MpRenderOptions options;

  mp_plan_view_get_options (self, &options);
  mp_render_layout (self->index, &options, gtk_widget_get_width (GTK_WIDGET (self)),
                    gtk_widget_get_height (GTK_WIDGET (self)), layout);
}

static gboolean
record_bounds (MpPlanView *self, const MpRenderLayout *layout, guint record,
               graphene_rect_t *bounds)
{
  MpPlan        *plan = mp_plan_view_get_plan (self);
  const MpUsage *u = &plan->records[record];
  gdouble        x0, y0, x1, y1;

  mp_render_layout_to_device (layout, u->first, plan->offsets[record], &x0, &y0);
  mp_render_layout_to_device (layout, u->last + 1.0, plan->offsets[record] + u->bytes, &x1, &y1);
  graphene_rect_init (bounds, MIN (x0, x1), MIN (y0, y1), fabs (x1 - x0), fabs (y1 - y0));
  /* only what is inside the plot */
  return graphene_rect_intersection (bounds,
                                     &GRAPHENE_RECT_INIT (layout->plot.x, layout->plot.y,
                                                          layout->plot.width,
                                                          layout->plot.height),
                                     bounds);
}

static gint
tensor_record (MpPlanView *self, guint tensor)
{
  const MpGraph     *graph = mp_plan_set_get_graph (self->set);
  const MpLifetimes *lt = mp_plan_set_get_lifetimes (self->set);
  gint               rec;

  if (tensor >= graph->n_tensors || (rec = lt->record_of[tensor]) < 0)
    return -1;
  return mp_plan_find_record (mp_plan_view_get_plan (self), rec, lt->records[rec].tensor);
}

gboolean
mp_plan_view_tensor_bounds (MpPlanView *self, guint tensor, graphene_rect_t *bounds)
{
  MpRenderLayout layout;
  gint           rec;

  g_return_val_if_fail (MP_IS_PLAN_VIEW (self), FALSE);

  if ((rec = tensor_record (self, tensor)) < 0)
    return FALSE;
  get_layout (self, &layout);
  return record_bounds (self, &layout, rec, bounds);
}

static void
append_outline (GtkSnapshot *snapshot, const graphene_rect_t *r, const GdkRGBA *color,
                float width)
{
  GskRoundedRect rr;
  float          widths[4] = { width, width, width, width };
  GdkRGBA        colors[4] = { *color, *color, *color, *color };

  gsk_rounded_rect_init_from_rect (&rr, &GRAPHENE_RECT_INIT (r->origin.x - width,
                                                             r->origin.y - width,
                                                             r->size.width + 2 * width,
                                                             r->size.height + 2 * width),
                                   0);
  gtk_snapshot_append_border (snapshot, &rr, widths, colors);
}

/* The selected tensor stands out as mp_render_plan's highlight does: the
 * rest of the plot dimmed by one translucent layer around its rectangle,
 * and an outline. The layer also covers the arena and lower-bound labels,
 * so it dims less than the renderer does (which leaves those alone). */
#define SELECTION_DIM_SHARE 0.65
static void
append_selection (MpPlanView *self, GtkSnapshot *snapshot, const MpRenderLayout *layout,
                  const MpPalette *palette)
{
  gint            selected = mp_view_state_get_selected (self->state);
  gint            rec;
  graphene_rect_t plot = GRAPHENE_RECT_INIT (layout->plot.x, layout->plot.y, layout->plot.width,
                                             layout->plot.height);
  graphene_rect_t r;
  GdkRGBA         dim = { palette->background.r, palette->background.g, palette->background.b,
                          palette->dim * SELECTION_DIM_SHARE };
  GdkRGBA         line = { palette->highlight.r, palette->highlight.g, palette->highlight.b,
                           1.0 };
  float           px0, py0, px1, py1, x0, y0, x1, y1;

  if (selected < 0)
    return;
  rec = tensor_record (self, mp_graph_view_root (mp_plan_set_get_graph (self->set), selected,
                                                 NULL));
  if (rec < 0 || !record_bounds (self, layout, rec, &r))
    {
      gtk_snapshot_append_color (snapshot, &dim, &plot);
      return;
    }
  px0 = plot.origin.x, py0 = plot.origin.y;
  px1 = px0 + plot.size.width, py1 = py0 + plot.size.height;
  x0 = r.origin.x, y0 = r.origin.y;
  x1 = x0 + r.size.width, y1 = y0 + r.size.height;
  /* above, below, then left and right of the rectangle */
  gtk_snapshot_append_color (snapshot, &dim, &GRAPHENE_RECT_INIT (px0, py0, px1 - px0, y0 - py0));
  gtk_snapshot_append_color (snapshot, &dim, &GRAPHENE_RECT_INIT (px0, y1, px1 - px0, py1 - y1));
  gtk_snapshot_append_color (snapshot, &dim, &GRAPHENE_RECT_INIT (px0, y0, x0 - px0, y1 - y0));
  gtk_snapshot_append_color (snapshot, &dim, &GRAPHENE_RECT_INIT (x1, y0, px1 - x1, y1 - y0));
  append_outline (snapshot, &r, &line, 2);
}

static void
mp_plan_view_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  MpPlanView     *self = MP_PLAN_VIEW (widget);
  int             width = gtk_widget_get_width (widget);
  int             height = gtk_widget_get_height (widget);
  MpRenderLayout  layout;
  const MpPalette *palette;
  gint            hovered, cursor;

  if (width <= 0 || height <= 0)
    return;

  get_layout (self, &layout);
  palette = mp_palette_get (mp_view_state_get_dark (self->state) ? MP_THEME_DARK
                                                                  : MP_THEME_LIGHT);

  if (self->cache == NULL || self->cache_width != width || self->cache_height != height)
    {
      g_autoptr (GtkSnapshot) sub = gtk_snapshot_new ();
      MpRenderOptions options;
      cairo_t        *cr;

      g_clear_handle_id (&self->settle_source, g_source_remove);
      g_clear_pointer (&self->cache, gsk_render_node_unref);
      mp_plan_view_get_options (self, &options);
      /* the selection is drawn over the picture, below */
      options.highlight = NULL;
      options.n_highlight = 0;
      cr = gtk_snapshot_append_cairo (sub, &GRAPHENE_RECT_INIT (0, 0, width, height));
      mp_render_plan (cr, self->index, &options, width, height);
      cairo_destroy (cr);
      if (self->summary_tick == 0 && mp_render_index_summary_pending (self->index))
        self->summary_tick = gtk_widget_add_tick_callback (GTK_WIDGET (self), summary_made, NULL,
                                                           NULL);
      self->cache = gtk_snapshot_free_to_node (g_steal_pointer (&sub));
      self->cache_width = width;
      self->cache_height = height;
      self->cache_min = layout.viewport.step_min;
      self->cache_max = layout.viewport.step_max;
    }
  if (self->cache)
    gtk_snapshot_append_node (snapshot, self->cache);
  if (self->cache && (self->cache_min != layout.viewport.step_min ||
                      self->cache_max != layout.viewport.step_max))
    {
      /* The step range moved since the picture was drawn: map the old range
       * onto the new one over the plot, the curve strip and the step axis. */
      gdouble         span = layout.viewport.step_max - layout.viewport.step_min;
      gdouble         scale = (self->cache_max - self->cache_min) / span;
      gdouble         shift = (self->cache_min - layout.viewport.step_min) * layout.plot.width /
                              span;
      gdouble         top = layout.plot.y;
      gdouble         bottom = MAX (layout.x_axis.y + layout.x_axis.height,
                                    layout.curve.y + layout.curve.height);
      graphene_rect_t band = GRAPHENE_RECT_INIT (layout.plot.x, top, layout.plot.width,
                                                 bottom - top);
      GdkRGBA         bg = { palette->background.r, palette->background.g,
                             palette->background.b, 1 };

      gtk_snapshot_push_clip (snapshot, &band);
      gtk_snapshot_append_color (snapshot, &bg, &band);
      gtk_snapshot_save (snapshot);
      gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (layout.plot.x + shift, 0));
      gtk_snapshot_scale (snapshot, scale, 1);
      gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (-layout.plot.x, 0));
      gtk_snapshot_append_node (snapshot, self->cache);
      gtk_snapshot_restore (snapshot);
      gtk_snapshot_pop (snapshot);
    }

  append_selection (self, snapshot, &layout, palette);

  /* The step cursor: a line across the plot at the step's middle. */
  cursor = mp_view_state_get_cursor (self->state);
  if (cursor >= 0)
    {
      gdouble x, y;
      GdkRGBA c = { palette->peak.r, palette->peak.g, palette->peak.b, 0.9 };

      mp_render_layout_to_device (&layout, cursor + 0.5, 0, &x, &y);
      if (x >= layout.plot.x && x <= layout.plot.x + layout.plot.width)
        gtk_snapshot_append_color (snapshot, &c,
                                   &GRAPHENE_RECT_INIT (x - 1, layout.plot.y, 2,
                                                        layout.plot.height + layout.curve.height));
    }

  /* Hover: an outline over the cached picture. */
  hovered = mp_view_state_get_hovered (self->state);
  if (hovered >= 0)
    {
      gint            rec = tensor_record (self, hovered);
      graphene_rect_t r;
      GdkRGBA         c = { palette->foreground.r, palette->foreground.g, palette->foreground.b,
                            1.0 };

      if (rec >= 0 && record_bounds (self, &layout, rec, &r))
        append_outline (snapshot, &r, &c, 2);
    }
}

gint
mp_plan_view_tensor_at (MpPlanView *self, gdouble x, gdouble y)
{
  MpRenderOptions options;
  gint            rec;

  g_return_val_if_fail (MP_IS_PLAN_VIEW (self), -1);

  mp_plan_view_get_options (self, &options);
  rec = mp_render_hit_test (self->index, &options, gtk_widget_get_width (GTK_WIDGET (self)),
                            gtk_widget_get_height (GTK_WIDGET (self)), x, y);
  return rec < 0 ? -1 : (gint) mp_plan_view_get_plan (self)->records[rec].tensor;
}

void
mp_plan_view_click (MpPlanView *self, gdouble x, gdouble y)
{
  MpRenderLayout layout;
  gdouble        step, address;

  g_return_if_fail (MP_IS_PLAN_VIEW (self));

  g_signal_emit (self, signals[CLICKED], 0);
  get_layout (self, &layout);
  if (x >= layout.x_axis.x && x <= layout.x_axis.x + layout.x_axis.width &&
      y >= layout.x_axis.y && y <= layout.x_axis.y + layout.x_axis.height)
    {
      mp_render_layout_to_data (&layout, x, y, &step, &address);
      mp_view_state_set_cursor (self->state,
                                CLAMP ((gint) floor (step), 0,
                                       (gint) mp_view_state_get_n_steps (self->state) - 1));
      return;
    }
  mp_view_state_set_selected (self->state, mp_plan_view_tensor_at (self, x, y));
}

char *
mp_plan_view_describe (MpPlanView *self, guint tensor)
{
  g_return_val_if_fail (MP_IS_PLAN_VIEW (self), NULL);
  return mp_tensor_describe (mp_plan_set_get_graph (self->set),
                             mp_plan_set_get_lifetimes (self->set), mp_plan_view_get_plan (self),
                             tensor);
}

static gboolean
query_tooltip (GtkWidget *widget, int x, int y, gboolean keyboard, GtkTooltip *tooltip,
               gpointer data)
{
  MpPlanView      *self = MP_PLAN_VIEW (widget);
  gint             tensor = mp_plan_view_tensor_at (self, x, y);
  g_autofree char *markup = NULL;
  graphene_rect_t  r;

  if (tensor < 0)
    return FALSE;
  markup = mp_plan_view_describe (self, tensor);
  gtk_tooltip_set_markup (tooltip, markup);
  if (mp_plan_view_tensor_bounds (self, tensor, &r))
    gtk_tooltip_set_tip_area (tooltip, &(GdkRectangle) { (int) r.origin.x, (int) r.origin.y,
                                                          MAX (1, (int) r.size.width),
                                                          MAX (1, (int) r.size.height) });
  return TRUE;
}

static void
motion (GtkEventControllerMotion *controller, gdouble x, gdouble y, MpPlanView *self)
{
  self->pointer_x = x;
  self->pointer_y = y;
  mp_view_state_set_hovered (self->state, mp_plan_view_tensor_at (self, x, y));
}

static void
leave (GtkEventControllerMotion *controller, MpPlanView *self)
{
  self->pointer_x = NAN;
  mp_view_state_set_hovered (self->state, -1);
}

static gdouble
step_at (MpPlanView *self, gdouble x)
{
  MpRenderLayout layout;
  gdouble        step, address;

  if (!isfinite (x))
    return NAN;
  get_layout (self, &layout);
  mp_render_layout_to_data (&layout, x, layout.plot.y, &step, &address);
  return step;
}

static gdouble
steps_per_pixel (MpPlanView *self)
{
  MpRenderLayout layout;

  get_layout (self, &layout);
  return layout.plot.width > 0
           ? (layout.viewport.step_max - layout.viewport.step_min) / layout.plot.width
           : 0;
}

static gboolean
scroll (GtkEventControllerScroll *controller, gdouble dx, gdouble dy, MpPlanView *self)
{
  GdkModifierType mods = gtk_event_controller_get_current_event_state (
    GTK_EVENT_CONTROLLER (controller));

  if (mods & GDK_CONTROL_MASK)
    {
      mp_view_state_zoom (self->state, pow (ZOOM_STEP, -dy), step_at (self, self->pointer_x));
      return TRUE;
    }
  if (mods & GDK_SHIFT_MASK)
    {
      dx = dx != 0 ? dx : dy;
      dy = 0;
    }
  if (dx != 0)
    {
      /* a scroll click pans a tenth of the view */
      gdouble min, max;

      mp_view_state_get_steps (self->state, &min, &max);
      mp_view_state_pan (self->state, dx * (max - min) / 10);
      return TRUE;
    }
  /* vertical scrolling scrolls the stack of panes */
  return FALSE;
}

static void
drag_begin (GtkGestureDrag *gesture, gdouble x, gdouble y, MpPlanView *self)
{
  mp_view_state_get_steps (self->state, &self->drag_min, &self->drag_max);
}

static void
drag_update (GtkGestureDrag *gesture, gdouble dx, gdouble dy, MpPlanView *self)
{
  gdouble shift;

  if (fabs (dx) < CLICK_SLOP && fabs (dy) < CLICK_SLOP)
    return;
  shift = -dx * steps_per_pixel (self);
  /* steps_per_pixel follows the view: measure from where the drag began */
  mp_view_state_set_steps (self->state, self->drag_min + shift, self->drag_max + shift);
}

static void
drag_end (GtkGestureDrag *gesture, gdouble dx, gdouble dy, MpPlanView *self)
{
  gdouble x, y;

  if (fabs (dx) >= CLICK_SLOP || fabs (dy) >= CLICK_SLOP)
    return;
  gtk_gesture_drag_get_start_point (gesture, &x, &y);
  gtk_widget_grab_focus (GTK_WIDGET (self));
  mp_plan_view_click (self, x, y);
}

static void
zoom_begin (GtkGesture *gesture, GdkEventSequence *sequence, MpPlanView *self)
{
  gdouble min, max, x, y;

  mp_view_state_get_steps (self->state, &min, &max);
  self->zoom_span = max - min;
  if (!gtk_gesture_get_bounding_box_center (gesture, &x, &y))
    x = gtk_widget_get_width (GTK_WIDGET (self)) / 2.0;
  self->zoom_around = step_at (self, x);
}

static void
zoom_changed (GtkGestureZoom *gesture, gdouble scale, MpPlanView *self)
{
  gdouble min, max;

  if (scale <= 0)
    return;
  mp_view_state_get_steps (self->state, &min, &max);
  mp_view_state_zoom (self->state, (max - min) / (self->zoom_span / scale), self->zoom_around);
}

static void
mp_plan_view_measure (GtkWidget *widget, GtkOrientation orientation, int for_size, int *minimum,
                      int *natural, int *minimum_baseline, int *natural_baseline)
{
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *minimum = 320;
      *natural = 900;
    }
  else
    {
      *minimum = 150;
      *natural = 240;
    }
}

static void
mp_plan_view_css_changed (GtkWidget *widget, GtkCssStyleChange *change)
{
  GTK_WIDGET_CLASS (mp_plan_view_parent_class)->css_changed (widget, change);
  invalidate (MP_PLAN_VIEW (widget));
}

static void
mp_plan_view_dispose (GObject *object)
{
  MpPlanView *self = MP_PLAN_VIEW (object);

  if (self->state)
    g_signal_handlers_disconnect_by_data (self->state, self);
  g_clear_object (&self->state);
  g_clear_handle_id (&self->settle_source, g_source_remove);
  if (self->summary_tick != 0)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->summary_tick);
  self->summary_tick = 0;
  g_clear_pointer (&self->cache, gsk_render_node_unref);
  self->index = NULL;
  g_clear_pointer (&self->set, mp_plan_set_unref);
  G_OBJECT_CLASS (mp_plan_view_parent_class)->dispose (object);
}

static void
mp_plan_view_class_init (MpPlanViewClass *klass)
{
  GObjectClass   *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = mp_plan_view_dispose;
  widget_class->snapshot = mp_plan_view_snapshot;
  widget_class->measure = mp_plan_view_measure;
  widget_class->css_changed = mp_plan_view_css_changed;
  gtk_widget_class_set_css_name (widget_class, "planview");

  /* A click in the pane: its plan becomes the one whose memory map is listed. */
  signals[CLICKED] = g_signal_new ("clicked", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                   NULL, NULL, NULL, G_TYPE_NONE, 0);
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
mp_plan_view_init (MpPlanView *self)
{
  GtkEventController *motion_ctl = gtk_event_controller_motion_new ();
  GtkEventController *scroll_ctl =
    gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
  GtkGesture         *drag = gtk_gesture_drag_new ();
  GtkGesture         *zoom = gtk_gesture_zoom_new ();

  self->memory = -1;
  self->pointer_x = NAN;
  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  gtk_widget_set_hexpand (GTK_WIDGET (self), TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (self), TRUE);
  g_signal_connect (self, "query-tooltip", G_CALLBACK (query_tooltip), NULL);

  g_signal_connect (motion_ctl, "motion", G_CALLBACK (motion), self);
  g_signal_connect (motion_ctl, "leave", G_CALLBACK (leave), self);
  gtk_widget_add_controller (GTK_WIDGET (self), motion_ctl);

  g_signal_connect (scroll_ctl, "scroll", G_CALLBACK (scroll), self);
  gtk_widget_add_controller (GTK_WIDGET (self), scroll_ctl);

  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (drag), GDK_BUTTON_PRIMARY);
  g_signal_connect (drag, "drag-begin", G_CALLBACK (drag_begin), self);
  g_signal_connect (drag, "drag-update", G_CALLBACK (drag_update), self);
  g_signal_connect (drag, "drag-end", G_CALLBACK (drag_end), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drag));

  g_signal_connect (zoom, "begin", G_CALLBACK (zoom_begin), self);
  g_signal_connect (zoom, "scale-changed", G_CALLBACK (zoom_changed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (zoom));
}

GtkWidget *
mp_plan_view_new (MpPlanSet *set, guint plan, MpViewState *state)
{
  MpPlanView *self;

  g_return_val_if_fail (set != NULL && plan < mp_plan_set_get_n_plans (set), NULL);
  g_return_val_if_fail (MP_IS_VIEW_STATE (state), NULL);

  self = g_object_new (MP_TYPE_PLAN_VIEW, NULL);
  self->set = mp_plan_set_ref (set);
  self->plan_index = plan;
  self->state = g_object_ref (state);
  self->index = mp_plan_set_get_index (set, plan);
  /* the legend once, in the first pane */
  self->flags = plan == 0 ? 0 : MP_RENDER_HIDE_LEGEND;
  g_signal_connect_swapped (state, "notify", G_CALLBACK (state_changed), self);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  mp_plan_set_get_plan (set, plan)->planner, -1);
  return GTK_WIDGET (self);
}

GtkWidget *
mp_plan_view_new_memory (MpPlanSet *set, guint memory, MpViewState *state)
{
  MpPlanView *self;
  g_autofree char *label = NULL;

  g_return_val_if_fail (set != NULL && memory < mp_plan_set_get_n_memories (set), NULL);
  g_return_val_if_fail (MP_IS_VIEW_STATE (state), NULL);

  self = g_object_new (MP_TYPE_PLAN_VIEW, NULL);
  self->set = mp_plan_set_ref (set);
  self->memory = memory;
  self->state = g_object_ref (state);
  self->index = mp_plan_set_get_memory_index (set, memory);
  /* the window's memory strip shows the live bytes of the whole graph */
  self->flags = (memory == 0 ? 0 : MP_RENDER_HIDE_LEGEND) | MP_RENDER_HIDE_CURVE;
  g_signal_connect_swapped (state, "notify", G_CALLBACK (state_changed), self);
  label = g_strdup_printf ("memory %s", mp_plan_set_get_graph (set)->memories[memory].name);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL, label,
                                  -1);
  return GTK_WIDGET (self);
}

MpPlan *
mp_plan_view_get_plan (MpPlanView *self)
{
  g_return_val_if_fail (MP_IS_PLAN_VIEW (self), NULL);
  if (self->memory >= 0)
    return mp_plan_set_get_memory_plan (self->set, self->memory);
  return mp_plan_set_get_plan (self->set, self->plan_index);
}

void
mp_plan_view_rebind (MpPlanView *self, MpPlanSet *set, guint plan)
{
  MpRenderFlags flags = plan == 0 ? 0 : MP_RENDER_HIDE_LEGEND;

  g_return_if_fail (MP_IS_PLAN_VIEW (self));
  g_return_if_fail (plan < mp_plan_set_get_n_plans (set));
  g_return_if_fail (mp_plan_set_get_plan (set, plan) == mp_plan_view_get_plan (self));

  mp_plan_set_ref (set);
  mp_plan_set_unref (self->set);
  self->set = set;
  self->plan_index = plan;
  if (flags != self->flags)
    {
      self->flags = flags;
      mp_plan_view_redraw (self);
    }
  else if (mp_view_state_get_shared_scale (self->state))
    /* the widest arena may have changed */
    mp_plan_view_redraw (self);
}

MpRenderIndex *
mp_plan_view_get_index (MpPlanView *self)
{
  g_return_val_if_fail (MP_IS_PLAN_VIEW (self), NULL);
  return self->index;
}
