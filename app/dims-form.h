/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* One spin button per symbolic dimension of an ONNX model ("batch", "seq"):
 * what the window asks before it opens a model whose shapes need them. */
#define MP_TYPE_DIMS_FORM (mp_dims_form_get_type ())
G_DECLARE_FINAL_TYPE (MpDimsForm, mp_dims_form, MP, DIMS_FORM, GtkBox)

/* Emits "activate" when Enter is pressed in a spin button.
 * bound: "NAME=VALUE" strings already given (their values fill the form),
 * or NULL. */
GtkWidget *mp_dims_form_new          (const char         *file_name,
                                      const char * const *names,
                                      const char * const *bound);
/* FALSE when the form has no dimension of that name. */
gboolean   mp_dims_form_set_value    (MpDimsForm *self, const char *name, guint value);
/* "NAME=VALUE" for every name, in the form's order. */
GStrv      mp_dims_form_get_bindings (MpDimsForm *self);

G_END_DECLS
