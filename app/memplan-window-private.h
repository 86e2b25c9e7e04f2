/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* What the window's files share: memplan-window.c (the GObject, planning
 * and the panes), -actions.c, -budget.c, -by-op.c, -dims.c, -dnd.c,
 * -planners.c, -search.c, -settings.c and -status.c, one concern each. */

#include "memplan-window.h"
#include "summary-table.h"
#include "trace-diff.h"

G_BEGIN_DECLS

struct _MpWindow
{
  GtkApplicationWindow parent_instance;

  /* Template widgets */
  GtkMenuButton      *planners_button;
  GtkBox             *planners_box;
  GtkWidget          *busy_box;
  GtkSpinner         *spinner;
  GtkLabel           *busy_label;
  GtkProgressBar     *progress_bar;   /* the file read, then the planners done */
  GtkLabel           *title_label;
  GtkLabel           *subtitle_label;
  GtkSearchBar       *search_bar;
  GtkSearchEntry     *search_entry;
  GtkLabel           *search_status;
  GtkInfoBar         *error_bar;
  GtkLabel           *error_label;
  GtkInfoBar         *notice_bar;
  GtkLabel           *notice_label;
  GtkStack           *stack;
  GtkLabel           *empty_label;
  GtkBox             *panes_box;
  GtkBox             *plans_box;
  GtkPaned           *paned;
  GtkAdjustment      *cursor_adjustment;
  GtkLabel           *cursor_label;
  GtkNotebook        *notebook;
  MpSummaryTable     *summary_table;
  GtkLabel           *status_label;
  GMenu              *recent_section; /* Open Recent, from the recent-files key */

  /* Borrowed references: widgets made in code, owned by their parents */
  GtkWidget          *memory_strip;
  GtkWidget          *live_list;
  GtkWidget          *by_op_view;
  GtkWidget          *compare_strip;  /* A and B on one axis, shown while comparing */
  GtkWidget          *order_view;
  GtkWidget          *dims_bar;       /* asks for the dimensions (a GtkInfoBar), or NULL */
  GtkWidget          *dims_form;      /* in dims_bar */

  /* Owned references */
  MpViewState        *state;
  MpPlanSet          *set;
  GPtrArray          *views;          /* the panes (MpPlanView), in table order */
  GHashTable         *enabled;        /* planner names (static strings) */
  GSimpleActionGroup *planner_actions;
  GFile              *file;
  GFile              *prev_file;      /* shown before the open now loading, or NULL */
  GStrv               prev_dims;      /* its dimensions */
  guint               progress_source; /* polls how much of the file is read */
  GFileMonitor       *monitor;
  GCancellable       *cancellable;    /* of the running build, or NULL */
  GSettings          *settings;       /* bound by mp_window_bind_settings, or NULL */
  GStrv               dims;           /* the ONNX model's bindings, "NAME=VALUE", or NULL */
  MpPlanSet          *compare_set;    /* B, compared with the shown set, or NULL */
  MpTraceDiff        *compare_diff;   /* mp_trace_diff of A's file and B's */
  char               *compare_a;      /* A's path when compared */
  GCancellable       *compare_cancellable; /* of B's load, or NULL */
  guint               compare_generation;

  /* Planning */
  guint               generation;     /* of the newest build; older results are dropped */
  guint               reload_source;
  gboolean            reloading;
  gboolean            new_graph;      /* the running build loads a file */
  gboolean            opening;        /* it is mp_window_open's: the file joins Open Recent */
  gdouble             time_budget;    /* optimal: seconds */
  gboolean            op_order;       /* plan for op order, not the streams' parallel groups */
  const char         *replan;         /* a planner to run again at the next build, or NULL */

  /* View */
  guint               split_rows;     /* Summary rows the split was placed for */
  gboolean            list_chosen;    /* a click chose the listed plan (else: the best) */
  gint                search_from;
  gboolean            syncing_cursor;
};


/* memplan-window.c: plans again (load: reads the file first) off the UI thread. */
void     mp_window_start_build           (MpWindow *self, gboolean load);

/* memplan-window-actions.c: the win.* actions and their key bindings. */
void     mp_window_class_install_actions (GtkWidgetClass *widget_class);

/* memplan-window-budget.c: a new budget replans optimal, when it is shown. */
void     mp_window_set_time_budget       (MpWindow *self, gdouble seconds);
void     mp_window_set_op_order          (MpWindow *self, gboolean op_order);

/* memplan-window-by-op.c: the tab, and whether it shows for this set. */
void     mp_window_by_op_init            (MpWindow *self);
void     mp_window_by_op_update          (MpWindow *self, MpPlanSet *set);

/* memplan-window-compare.c: B beside A. */
void     mp_window_compare_init          (MpWindow *self);
void     mp_window_compare_update        (MpWindow *self);
void     mp_window_compare_dispose       (MpWindow *self);

/* memplan-window-dims.c: asks for an ONNX model's unbound dimensions when
 * they are why it failed to load (FALSE: show the error instead). */
gboolean mp_window_ask_dims              (MpWindow *self, const GError *error);
void     mp_window_dims_clear            (MpWindow *self);

/* memplan-window-dnd.c */
void     mp_window_dnd_init              (MpWindow *self);

/* memplan-window-planners.c: the Planners menu; the names enabled, in the
 * planners' order. */
void     mp_window_planners_init         (MpWindow *self);
GStrv    mp_window_dup_enabled_planners  (MpWindow *self);

/* memplan-window-search.c */
void     mp_window_class_add_search      (GtkWidgetClass *widget_class);

/* memplan-window-settings.c: after a file opened, the desktop's recent
 * files and the recent-files key; after it failed to open, out of the key. */
void     mp_window_note_opened           (MpWindow *self);
void     mp_window_forget_recent         (MpWindow *self);

/* memplan-window-status.c: the status line and the step slider's label. */
void     mp_window_class_add_status      (GtkWidgetClass *widget_class);
void     mp_window_update_status         (MpWindow *self);
void     mp_window_update_cursor_label   (MpWindow *self);

G_END_DECLS
