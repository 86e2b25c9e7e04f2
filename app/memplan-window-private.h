/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* What memplan-window.c and memplan-window-actions.c share. */

#include "memplan-window.h"
#include "summary-table.h"

G_BEGIN_DECLS

struct _MpWindow
{
  GtkApplicationWindow parent_instance;

  /* template children */
  GtkMenuButton   *planners_button;
  GtkBox          *planners_box;
  GtkWidget       *busy_box;
  GtkSpinner      *spinner;
  GtkLabel        *busy_label;
  GtkLabel        *title_label;
  GtkLabel        *subtitle_label;
  GtkSearchBar    *search_bar;
  GtkSearchEntry  *search_entry;
  GtkLabel        *search_status;
  GtkInfoBar      *error_bar;
  GtkLabel        *error_label;
  GtkInfoBar      *notice_bar;
  GtkLabel        *notice_label;
  GtkStack        *stack;
  GtkLabel        *empty_label;
  GtkBox          *panes_box;
  GtkBox          *plans_box;
  GtkPaned        *paned;
  GtkWidget       *memory_strip;
  guint            split_rows;     /* Summary rows the split was placed for */
  gboolean         list_chosen;    /* a click chose the listed plan (else: the best) */
  GtkAdjustment   *cursor_adjustment;
  GtkLabel        *cursor_label;
  GtkNotebook     *notebook;
  MpSummaryTable  *summary_table;
  GtkLabel        *status_label;

  GtkWidget       *live_list;
  GtkWidget       *by_op_view;
  GtkWidget       *order_view;
  MpViewState     *state;
  MpPlanSet       *set;
  GPtrArray       *views;
  GHashTable      *enabled;        /* planner names (static strings) */
  GSimpleActionGroup *planner_actions;

  GFile           *file;
  GFileMonitor    *monitor;
  guint            reload_source;
  GCancellable    *cancellable;
  guint            generation;     /* of the newest build; older results are dropped */
  gboolean         reloading;
  gint             search_from;
  gboolean         syncing_cursor;
  gboolean         new_graph;      /* the running build loads a file */
  gboolean         opening;        /* it is mp_window_open's: the file joins Open Recent */
  guint            time_budget;    /* optimal: seconds */
  const char      *replan;         /* a planner to run again at the next build, or NULL */
  GStrv            dims;           /* the ONNX model's bindings, "NAME=VALUE", or NULL */
  GtkWidget       *dims_bar;       /* asks for them (a GtkInfoBar), or NULL */
  GtkWidget       *dims_form;      /* in dims_bar */
  GSettings       *settings;       /* bound by mp_window_bind_settings, or NULL */
  GMenu           *recent_section; /* Open Recent, from the recent-files key */
};

#define MP_WINDOW_DEFAULT_TIME_BUDGET 10
/* Plans again (load: reads the file first) off the UI thread. */
void mp_window_start_build           (MpWindow *self, gboolean load);
/* Installs the win.* actions and their key bindings (class_init). */
void mp_window_class_install_actions (GtkWidgetClass *widget_class);
/* After a file opened: the desktop's recent files and the recent-files key;
 * after it failed to open: out of the key (memplan-window-settings.c). */
void mp_window_note_opened           (MpWindow *self);
void mp_window_forget_recent         (MpWindow *self);

G_END_DECLS
