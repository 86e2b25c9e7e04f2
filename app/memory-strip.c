/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

#include "memory-strip.h"

struct _MpMemoryStrip
{
  GtkWidget      parent_instance;
  MpViewState   *state;
  MpPlanSet     *set;
  GPtrArray     *indices; /* MpRenderIndex, the set's */
  GskRenderNode *cache;   /* the strip but the cursor */
  int            cache_width;
  int            cache_height;
};

G_DEFINE_FINAL_TYPE (MpMemoryStrip, mp_memory_strip, GTK_TYPE_WIDGET)

/* Height in pixels: a legend line, the curve, the step labels. */
#define STRIP_HEIGHT 120

static void
get_options (MpMemoryStrip *self, MpRenderOptions *options)
{
  memset (options, 0, sizeof *options);
  options->theme = mp_view_state_get_dark (self->state) ? MP_THEME_DARK : MP_THEME_LIGHT;
  mp_view_state_get_steps (self->state, &options->viewport.step_min,
                           &options->viewport.step_max);
}

static void
get_layout (MpMemoryStrip *self, MpRenderLayout *layout)
{
  MpRenderOptions options;

  get_options (self, &options);
  mp_render_memory_layout ((MpRenderIndex * const *) self->indices->pdata, self->indices->len,
                           &options, gtk_widget_get_width (GTK_WIDGET (self)),
                           gtk_widget_get_height (GTK_WIDGET (self)), layout);
}

static void
mp_memory_strip_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  MpMemoryStrip  *self = MP_MEMORY_STRIP (widget);
  int             width = gtk_widget_get_width (widget);
  int             height = gtk_widget_get_height (widget);
  gint            cursor = mp_view_state_get_cursor (self->state);
  MpRenderLayout  layout;

  if (width <= 0 || height <= 0 || self->indices->len == 0)
    return;
  if (self->cache && (self->cache_width != width || self->cache_height != height))
    g_clear_pointer (&self->cache, gsk_render_node_unref);
  if (self->cache == NULL)
    {
      g_autoptr (GtkSnapshot) sub = gtk_snapshot_new ();
      MpRenderOptions options;
      cairo_t        *cr;

      get_options (self, &options);
      cr = gtk_snapshot_append_cairo (sub, &GRAPHENE_RECT_INIT (0, 0, width, height));
      mp_render_memory (cr, (MpRenderIndex * const *) self->indices->pdata, self->indices->len,
                        &options, width, height);
      cairo_destroy (cr);
      self->cache = gtk_snapshot_free_to_node (g_steal_pointer (&sub));
      self->cache_width = width;
      self->cache_height = height;
    }
  gtk_snapshot_append_node (snapshot, self->cache);
  get_layout (self, &layout);
  if (cursor >= 0)
    {
      const MpPalette *palette = mp_palette_get (mp_view_state_get_dark (self->state)
                                                   ? MP_THEME_DARK : MP_THEME_LIGHT);
      GdkRGBA          c = { palette->peak.r, palette->peak.g, palette->peak.b, 0.9 };
      gdouble          x, y;

      mp_render_layout_to_device (&layout, cursor + 0.5, 0, &x, &y);
      if (x >= layout.plot.x && x <= layout.plot.x + layout.plot.width)
        gtk_snapshot_append_color (snapshot, &c,
                                   &GRAPHENE_RECT_INIT (x - 1, layout.plot.y, 2,
                                                        layout.plot.height));
    }
}

static void
invalidate (MpMemoryStrip *self)
{
  g_clear_pointer (&self->cache, gsk_render_node_unref);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
state_notify (MpMemoryStrip *self, GParamSpec *pspec)
{
  const char *name = g_param_spec_get_name (pspec);

  if (g_str_equal (name, "cursor"))
    gtk_widget_queue_draw (GTK_WIDGET (self));
  else if (g_str_equal (name, "viewport") || g_str_equal (name, "dark"))
    invalidate (self);
}

static void
pressed (GtkGestureClick *gesture, int n_press, double x, double y, MpMemoryStrip *self)
{
  MpRenderLayout layout;
  gdouble        step, address;
  guint          n_steps = mp_view_state_get_n_steps (self->state);

  if (self->indices->len == 0 || n_steps == 0)
    return;
  get_layout (self, &layout);
  if (x < layout.plot.x || x > layout.plot.x + layout.plot.width)
    return;
  mp_render_layout_to_data (&layout, x, y, &step, &address);
  mp_view_state_set_cursor (self->state, CLAMP ((gint) floor (step), 0, (gint) n_steps - 1));
}

static void
mp_memory_strip_measure (GtkWidget *widget, GtkOrientation orientation, int for_size,
                         int *minimum, int *natural, int *minimum_baseline,
                         int *natural_baseline)
{
  *minimum = *natural = orientation == GTK_ORIENTATION_VERTICAL ? STRIP_HEIGHT : 200;
}

static void
mp_memory_strip_dispose (GObject *object)
{
  MpMemoryStrip *self = MP_MEMORY_STRIP (object);

  if (self->state)
    g_signal_handlers_disconnect_by_data (self->state, self);
  g_clear_object (&self->state);
  g_clear_pointer (&self->cache, gsk_render_node_unref);
  g_clear_pointer (&self->indices, g_ptr_array_unref);
  g_clear_pointer (&self->set, mp_plan_set_unref);
  G_OBJECT_CLASS (mp_memory_strip_parent_class)->dispose (object);
}

static void
mp_memory_strip_class_init (MpMemoryStripClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = mp_memory_strip_dispose;
  widget_class->snapshot = mp_memory_strip_snapshot;
  widget_class->measure = mp_memory_strip_measure;
  gtk_widget_class_set_css_name (widget_class, "memorystrip");
}

static void
mp_memory_strip_init (MpMemoryStrip *self)
{
  GtkGesture *click = gtk_gesture_click_new ();

  self->indices = g_ptr_array_new ();
  g_signal_connect (click, "pressed", G_CALLBACK (pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (click));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self),
                               "Memory over time: the live bytes every plan must hold, and each "
                               "plan's footprint (its highest live buffer). Click to move the "
                               "step cursor; Ctrl+P goes to the peak.");
}

GtkWidget *
mp_memory_strip_new (MpViewState *state)
{
  MpMemoryStrip *self = g_object_new (MP_TYPE_MEMORY_STRIP, NULL);

  self->state = g_object_ref (state);
  g_signal_connect_swapped (state, "notify", G_CALLBACK (state_notify), self);
  return GTK_WIDGET (self);
}

void
mp_memory_strip_set_plan_set (MpMemoryStrip *self, MpPlanSet *set)
{
  g_return_if_fail (MP_IS_MEMORY_STRIP (self));

  if (set)
    mp_plan_set_ref (set);
  g_clear_pointer (&self->set, mp_plan_set_unref);
  self->set = set;
  g_ptr_array_set_size (self->indices, 0);
  for (guint i = 0; set && i < mp_plan_set_get_n_plans (set); i++)
    g_ptr_array_add (self->indices, mp_plan_set_get_index (set, i));
  invalidate (self);
}
