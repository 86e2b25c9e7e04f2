/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "memplan-window.h"

G_BEGIN_DECLS

/* What leaves the window as files: the comparison picture, the plans, a
 * screenshot, and the save dialogs that ask where. */
typedef enum
{
  MP_EXPORT_VIEW,  /* PNG, SVG or PDF of every pane */
  MP_EXPORT_PLANS, /* JSON of every plan, or CSV of the one selected in Summary */
} MpExportKind;

/* The comparison of every pane, as the view shows it, to PNG, SVG or PDF. */
gboolean mp_window_export_view      (MpWindow *self, const char *path, GError **error);
/* Every plan as JSON, or the plan selected in the Summary tab as CSV, by
 * extension; CSV with no plan selected is an error asking for one. */
gboolean mp_window_export_plans     (MpWindow *self, const char *path, GError **error);
/* The window as it is drawn now, to a PNG file. */
gboolean mp_window_screenshot       (MpWindow *self, const char *path, GError **error);
/* Writes path as the save dialog does and says what it wrote (which plan,
 * for CSV) in the notice bar, or shows the error; FALSE on error. */
gboolean mp_window_save             (MpWindow *self, MpExportKind kind, const char *path);
/* Asks where to save (a modal dialog), writes, and reports in the window. */
void     mp_window_run_save_dialog  (MpWindow *self, MpExportKind kind);
void     mp_file_chooser_add_filter (GtkFileChooser *chooser, const char *name,
                                     const char *pattern);

G_END_DECLS
