/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

#include <math.h>

#include "view-state.h"

struct _MpViewState
{
  GObject  parent_instance;
  guint    n_steps;
  gdouble  step_min;
  gdouble  step_max;
  gint     cursor;
  gint     selected;
  gint     hovered;
  gint     color_by;
  gboolean shared_scale;
  gboolean dark;
};

G_DEFINE_FINAL_TYPE (MpViewState, mp_view_state, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_VIEWPORT, /* notified when the step range changes; reads the span */
  PROP_CURSOR,
  PROP_SELECTED,
  PROP_HOVERED,
  PROP_COLOR_BY,
  PROP_SHARED_SCALE,
  PROP_DARK,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* Zoomed in no further than this many steps across the view. */
#define MIN_SPAN 4.0

static void
mp_view_state_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  MpViewState *self = MP_VIEW_STATE (object);

  switch (prop_id)
    {
    case PROP_VIEWPORT:
      g_value_set_double (value, self->step_max - self->step_min);
      break;
    case PROP_CURSOR:
      g_value_set_int (value, self->cursor);
      break;
    case PROP_SELECTED:
      g_value_set_int (value, self->selected);
      break;
    case PROP_HOVERED:
      g_value_set_int (value, self->hovered);
      break;
    case PROP_COLOR_BY:
      g_value_set_int (value, self->color_by);
      break;
    case PROP_SHARED_SCALE:
      g_value_set_boolean (value, self->shared_scale);
      break;
    case PROP_DARK:
      g_value_set_boolean (value, self->dark);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
mp_view_state_set_property (GObject *object, guint prop_id, const GValue *value,
                            GParamSpec *pspec)
{
  MpViewState *self = MP_VIEW_STATE (object);

  switch (prop_id)
    {
    case PROP_CURSOR:
      mp_view_state_set_cursor (self, g_value_get_int (value));
      break;
    case PROP_SELECTED:
      mp_view_state_set_selected (self, g_value_get_int (value));
      break;
    case PROP_HOVERED:
      mp_view_state_set_hovered (self, g_value_get_int (value));
      break;
    case PROP_COLOR_BY:
      mp_view_state_set_color_by (self, g_value_get_int (value));
      break;
    case PROP_SHARED_SCALE:
      mp_view_state_set_shared_scale (self, g_value_get_boolean (value));
      break;
    case PROP_DARK:
      mp_view_state_set_dark (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
mp_view_state_class_init (MpViewStateClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags   rw = G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->get_property = mp_view_state_get_property;
  object_class->set_property = mp_view_state_set_property;

  properties[PROP_VIEWPORT] = g_param_spec_double ("viewport", NULL, NULL, 0, G_MAXDOUBLE, 0,
                                                   G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_CURSOR] = g_param_spec_int ("cursor", NULL, NULL, -1, G_MAXINT, -1, rw);
  properties[PROP_SELECTED] = g_param_spec_int ("selected", NULL, NULL, -1, G_MAXINT, -1, rw);
  properties[PROP_HOVERED] = g_param_spec_int ("hovered", NULL, NULL, -1, G_MAXINT, -1, rw);
  properties[PROP_COLOR_BY] = g_param_spec_int ("color-by", NULL, NULL, 0, G_MAXINT, 0, rw);
  properties[PROP_SHARED_SCALE] = g_param_spec_boolean ("shared-scale", NULL, NULL, FALSE, rw);
  properties[PROP_DARK] = g_param_spec_boolean ("dark", NULL, NULL, FALSE, rw);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
mp_view_state_init (MpViewState *self)
{
  self->cursor = -1;
  self->selected = -1;
  self->hovered = -1;
}

MpViewState *
mp_view_state_new (void)
{
  return g_object_new (MP_TYPE_VIEW_STATE, NULL);
}

void
mp_view_state_reset (MpViewState *self, guint n_steps)
{
  g_return_if_fail (MP_IS_VIEW_STATE (self));

  self->n_steps = n_steps;
  mp_view_state_set_selected (self, -1);
  mp_view_state_set_hovered (self, -1);
  mp_view_state_set_cursor (self, -1);
  mp_view_state_fit (self);
}

guint
mp_view_state_get_n_steps (MpViewState *self)
{
  g_return_val_if_fail (MP_IS_VIEW_STATE (self), 0);
  return self->n_steps;
}

void
mp_view_state_get_steps (MpViewState *self, gdouble *min, gdouble *max)
{
  g_return_if_fail (MP_IS_VIEW_STATE (self));
  *min = self->step_min;
  *max = self->step_max;
}

void
mp_view_state_set_steps (MpViewState *self, gdouble min, gdouble max)
{
  gdouble total = MAX (self->n_steps, 1);
  gdouble span = CLAMP (max - min, MIN (MIN_SPAN, total), total);

  g_return_if_fail (MP_IS_VIEW_STATE (self));

  /* Keep the view inside the graph: shift rather than shrink. */
  min = CLAMP (min, 0, total - span);
  max = min + span;
  if (min == self->step_min && max == self->step_max)
    return;
  self->step_min = min;
  self->step_max = max;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_VIEWPORT]);
}

void
mp_view_state_zoom (MpViewState *self, gdouble factor, gdouble around)
{
  gdouble span, share, min;

  g_return_if_fail (MP_IS_VIEW_STATE (self));
  g_return_if_fail (factor > 0);

  span = (self->step_max - self->step_min) / factor;
  if (!isfinite (around))
    around = (self->step_min + self->step_max) / 2;
  /* around keeps its place on screen: the same share of the width */
  share = (around - self->step_min) / (self->step_max - self->step_min);
  min = around - share * span;
  mp_view_state_set_steps (self, min, min + span);
}

void
mp_view_state_pan (MpViewState *self, gdouble steps)
{
  g_return_if_fail (MP_IS_VIEW_STATE (self));
  mp_view_state_set_steps (self, self->step_min + steps, self->step_max + steps);
}

void
mp_view_state_fit (MpViewState *self)
{
  g_return_if_fail (MP_IS_VIEW_STATE (self));
  mp_view_state_set_steps (self, 0, MAX (self->n_steps, 1));
}

void
mp_view_state_reveal (MpViewState *self, guint first, guint last)
{
  gdouble span = self->step_max - self->step_min;

  g_return_if_fail (MP_IS_VIEW_STATE (self));

  if (first >= self->step_min && last + 1 <= self->step_max)
    return;
  if (last + 1 - first > span)
    mp_view_state_set_steps (self, first, last + 1);
  else
    {
      gdouble middle = (first + last + 1) / 2.0;

      mp_view_state_set_steps (self, middle - span / 2, middle + span / 2);
    }
}

#define DEFINE_INT_PROP(name, field, prop, lo)                       \
  gint mp_view_state_get_##name (MpViewState *self)                  \
  {                                                                  \
    g_return_val_if_fail (MP_IS_VIEW_STATE (self), lo);              \
    return self->field;                                              \
  }                                                                  \
  void mp_view_state_set_##name (MpViewState *self, gint value)      \
  {                                                                  \
    g_return_if_fail (MP_IS_VIEW_STATE (self));                      \
    value = MAX (value, lo);                                         \
    if (self->field == value)                                        \
      return;                                                        \
    self->field = value;                                             \
    g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);    \
  }

DEFINE_INT_PROP (cursor, cursor, PROP_CURSOR, -1)
DEFINE_INT_PROP (selected, selected, PROP_SELECTED, -1)
DEFINE_INT_PROP (hovered, hovered, PROP_HOVERED, -1)
DEFINE_INT_PROP (color_by, color_by, PROP_COLOR_BY, 0)
DEFINE_INT_PROP (shared_scale, shared_scale, PROP_SHARED_SCALE, 0)
DEFINE_INT_PROP (dark, dark, PROP_DARK, 0)
