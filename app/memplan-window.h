/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>
#include "plan-set.h"
#include "view-state.h"

G_BEGIN_DECLS

#define MP_TYPE_WINDOW (mp_window_get_type ())
G_DECLARE_FINAL_TYPE (MpWindow, mp_window, MP, WINDOW, GtkApplicationWindow)

MpWindow    *mp_window_new                 (GtkApplication *application);
/* Loads a graph and plans it off the UI thread; errors show in the window. */
void         mp_window_open                (MpWindow *self, GFile *file);
/* Runs only these planners (NULL: all); replans the open graph. */
void         mp_window_set_planners        (MpWindow *self, const char * const *planners);
gboolean     mp_window_get_planner_enabled (MpWindow *self, const char *planner);
void         mp_window_set_planner_enabled (MpWindow *self, const char *planner, gboolean enabled);
gboolean     mp_window_get_busy            (MpWindow *self);
/* Stops the build (Cancel, Esc); a load stops at once, the window back on
 * the file it showed before (the worker's result is dropped). */
void         mp_window_cancel              (MpWindow *self);
/* Loads file as B, to compare the shown input (A) with: both live-bytes
 * curves on one axis, both peaks and the difference, B's bytes per op in
 * the By op tab (memplan-window-compare.c). */
void         mp_window_compare             (MpWindow *self, GFile *file);
void         mp_window_compare_stop        (MpWindow *self);
/* B's set once loaded, or NULL. */
MpPlanSet   *mp_window_get_compare_set     (MpWindow *self);
/* Both peaks and the difference, in words; "" when not comparing. */
const char  *mp_window_get_compare_text    (MpWindow *self);
/* The busy bar: the file read, then the planners done; 1 when idle. */
gdouble      mp_window_get_progress        (MpWindow *self);
MpPlanSet   *mp_window_get_plan_set        (MpWindow *self);
MpViewState *mp_window_get_state           (MpWindow *self);
/* The plan panes, top to bottom (MpPlanView). */
GPtrArray   *mp_window_get_plan_views      (MpWindow *self);
gboolean     mp_window_summaries_pending   (MpWindow *self);
GtkWidget   *mp_window_get_summary_table   (MpWindow *self);
GtkWidget   *mp_window_get_live_list       (MpWindow *self);
/* The "By op" tab: where the memory went, per op. */
GtkWidget   *mp_window_get_by_op_view      (MpWindow *self);
/* The message of the error bar, or NULL when none is shown. */
const char  *mp_window_get_error           (MpWindow *self);
const char  *mp_window_get_notice          (MpWindow *self);
/* The words beside the Step slider ("step 14 (op fc2): 18.0 MiB live"). */
const char  *mp_window_get_cursor_text     (MpWindow *self);
/* The status line. */
const char  *mp_window_get_status_text     (MpWindow *self);
/* Brings the "Live at step" tab to the front. */
void         mp_window_show_live_list      (MpWindow *self);
void         mp_window_show_by_op          (MpWindow *self);
/* Finds a tensor (selects it) or an op (moves the step cursor) by name, as
 * the search entry does; returns FALSE when nothing matches. */
gboolean     mp_window_search              (MpWindow *self, const char *text);
/* Shows a message in the error bar, or in the notice bar. */
void         mp_window_show_error          (MpWindow *self, const char *message);
void         mp_window_show_notice         (MpWindow *self, const char *message);
/* Binds the window to the org.memplan.Memplan settings: size, planners,
 * colour key, scale, the optimal budget and the Open Recent menu are read
 * now and stored on every change. g_settings_unbind a property to let a
 * command-line option override it for this run without storing it. */
void         mp_window_bind_settings       (MpWindow *self, GSettings *settings);
/* Binds an ONNX model's symbolic dimensions ("NAME=VALUE", as --dim) for the
 * file opened next; opening another file forgets them. */
/* Plans in this op order (given, best, optimal) and shows the Order page. */
void         mp_window_set_order           (MpWindow *self, MpOrderMethod order);
void         mp_window_set_dims            (MpWindow *self, const char * const *dims);
/* The form asking an ONNX model's symbolic dimensions (MpDimsForm, inside a
 * GtkInfoBar whose GTK_RESPONSE_OK opens the model with them), or NULL when
 * none is shown. */
GtkWidget   *mp_window_get_dims_form       (MpWindow *self);
/* Sets the shortcuts of the window's actions (memplan-window-actions.c). */
void         mp_window_add_accels          (GtkApplication *application);
/* Export, save and screenshots: window-export.h. */

G_END_DECLS
