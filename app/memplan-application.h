/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define MP_APPLICATION_ID "org.memplan.Memplan"

#define MP_TYPE_APPLICATION (mp_application_get_type ())
G_DECLARE_FINAL_TYPE (MpApplication, mp_application, MP, APPLICATION, GtkApplication)

MpApplication *mp_application_new           (void);
/* The bundled graph opened when no file is given: in $MEMPLAN_DATA_DIR when
 * set (tests, `meson devenv`), else in the installed data folder. */
char          *mp_application_default_graph (void);
/* The exit status after run: non-zero when a --screenshot failed. */
int            mp_application_get_status    (MpApplication *self);

G_END_DECLS
