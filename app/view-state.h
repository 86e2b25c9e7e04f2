/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

/* What every pane shares: the visible step range, the step cursor, the
 * selected and hovered tensor, the colour key and the address scale. Panes
 * watch it, so zoom, pan and selection move them together. */
#define MP_TYPE_VIEW_STATE (mp_view_state_get_type ())
G_DECLARE_FINAL_TYPE (MpViewState, mp_view_state, MP, VIEW_STATE, GObject)

MpViewState *mp_view_state_new              (void);

/* A new graph: n_steps steps, everything visible, nothing selected. */
void         mp_view_state_reset            (MpViewState *self, guint n_steps);
guint        mp_view_state_get_n_steps      (MpViewState *self);
void         mp_view_state_get_steps        (MpViewState *self, gdouble *min, gdouble *max);
void         mp_view_state_set_steps        (MpViewState *self, gdouble min, gdouble max);
/* factor > 1 zooms in, keeping step `around` where it is on screen. */
void         mp_view_state_zoom             (MpViewState *self, gdouble factor, gdouble around);
void         mp_view_state_pan              (MpViewState *self, gdouble steps);
void         mp_view_state_fit              (MpViewState *self);
/* Scrolls (without zooming) so that [first, last + 1) is in view. */
void         mp_view_state_reveal           (MpViewState *self, guint first, guint last);

gint         mp_view_state_get_cursor       (MpViewState *self);
void         mp_view_state_set_cursor       (MpViewState *self, gint step);
gint         mp_view_state_get_selected     (MpViewState *self);
void         mp_view_state_set_selected     (MpViewState *self, gint tensor);
gint         mp_view_state_get_hovered      (MpViewState *self);
void         mp_view_state_set_hovered      (MpViewState *self, gint tensor);
gint         mp_view_state_get_color_by     (MpViewState *self);
void         mp_view_state_set_color_by     (MpViewState *self, gint color_by);
gboolean     mp_view_state_get_shared_scale (MpViewState *self);
void         mp_view_state_set_shared_scale (MpViewState *self, gboolean shared);
gboolean     mp_view_state_get_dark         (MpViewState *self);
void         mp_view_state_set_dark         (MpViewState *self, gboolean dark);

G_END_DECLS
