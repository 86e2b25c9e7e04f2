/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

/* An ONNX model whose symbolic dimensions are unbound: the form in an info
 * bar that asks for them, and the bindings the next load passes on. */

#include "dims-form.h"
#include "memplan-window-private.h"

void
mp_window_dims_clear (MpWindow *self)
{
  if (self->dims_bar)
    gtk_box_remove (GTK_BOX (gtk_widget_get_parent (self->dims_bar)), self->dims_bar);
  self->dims_bar = NULL;
  self->dims_form = NULL;
}

static void
dims_bar_response (GtkInfoBar *bar, int response, MpWindow *self)
{
  if (response != GTK_RESPONSE_OK)
    {
      mp_window_dims_clear (self);
      return;
    }
  g_strfreev (self->dims);
  self->dims = mp_dims_form_get_bindings (MP_DIMS_FORM (self->dims_form));
  mp_window_dims_clear (self);
  self->opening = TRUE;
  mp_window_start_build (self, TRUE);
}

static void
dims_form_activate (MpWindow *self)
{
  gtk_info_bar_response (GTK_INFO_BAR (self->dims_bar), GTK_RESPONSE_OK);
}

/* An ONNX model that needs its symbolic dimensions bound: ask for them
 * instead of showing the loader's error (which names them for the CLI). */
gboolean
mp_window_ask_dims (MpWindow *self, const GError *error)
{
  g_autofree char *path = self->file ? g_file_get_path (self->file) : NULL;
  g_auto (GStrv) names = NULL;
  g_autofree char *base = NULL;
  GtkWidget       *open_button;
  guint            unbound = 0;

  if (path == NULL || !g_error_matches (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_INVALID) ||
      !mp_onnx_sniff_file (path) || !(names = mp_onnx_symbolic_dims (path, NULL)))
    return FALSE;
  for (guint i = 0; names[i]; i++)
    {
      g_autofree char *prefix = g_strconcat (names[i], "=", NULL);
      gboolean         bound = FALSE;

      for (guint j = 0; self->dims && self->dims[j] && !bound; j++)
        bound = g_str_has_prefix (self->dims[j], prefix);
      unbound += !bound;
    }
  /* every name has a value and it still fails: the error says why */
  if (unbound == 0)
    return FALSE;
  mp_window_dims_clear (self);
  gtk_info_bar_set_revealed (self->error_bar, FALSE);
  base = g_path_get_basename (path);
  self->dims_form = mp_dims_form_new (base, (const char * const *) names,
                                      (const char * const *) self->dims);
  self->dims_bar = gtk_info_bar_new ();
  gtk_info_bar_set_message_type (GTK_INFO_BAR (self->dims_bar), GTK_MESSAGE_QUESTION);
  gtk_info_bar_add_child (GTK_INFO_BAR (self->dims_bar), self->dims_form);
  open_button = gtk_info_bar_add_button (GTK_INFO_BAR (self->dims_bar), "_Open", GTK_RESPONSE_OK);
  gtk_widget_add_css_class (open_button, "suggested-action");
  gtk_info_bar_set_show_close_button (GTK_INFO_BAR (self->dims_bar), TRUE);
  g_signal_connect (self->dims_bar, "response", G_CALLBACK (dims_bar_response), self);
  g_signal_connect_swapped (self->dims_form, "activate", G_CALLBACK (dims_form_activate), self);
  gtk_widget_insert_after (self->dims_bar, gtk_widget_get_parent (GTK_WIDGET (self->error_bar)),
                           GTK_WIDGET (self->error_bar));
  gtk_label_set_text (self->empty_label, "Give the model's dimensions above and press Open.");
  gtk_stack_set_visible_child_name (self->stack, "empty");
  return TRUE;
}

void
mp_window_set_dims (MpWindow *self, const char * const *dims)
{
  g_return_if_fail (MP_IS_WINDOW (self));

  g_strfreev (self->dims);
  self->dims = g_strdupv ((char **) dims);
}

GtkWidget *
mp_window_get_dims_form (MpWindow *self)
{
  g_return_val_if_fail (MP_IS_WINDOW (self), NULL);
  return self->dims_form;
}
