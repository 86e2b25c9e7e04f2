/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

#include <string.h>

#include "dims-form.h"

/* Large enough for any batch or sequence length a memory plan is made for;
 * the loader checks the products for overflow. */
#define MAX_DIM 1048576

struct _MpDimsForm
{
  GtkBox     parent_instance;
  GPtrArray *names;   /* char * */
  GPtrArray *spins;   /* GtkSpinButton *, one per name */
};

G_DEFINE_FINAL_TYPE (MpDimsForm, mp_dims_form, GTK_TYPE_BOX)

enum { SIGNAL_ACTIVATE, N_SIGNALS };
static guint signals[N_SIGNALS];

static void
spin_activate (MpDimsForm *self)
{
  g_signal_emit (self, signals[SIGNAL_ACTIVATE], 0);
}

static guint
bound_value (const char * const *bound, const char *name)
{
  gsize len = strlen (name);

  for (; bound && *bound; bound++)
    if (strncmp (*bound, name, len) == 0 && (*bound)[len] == '=')
      return (guint) CLAMP (g_ascii_strtoull (*bound + len + 1, NULL, 10), 1, MAX_DIM);
  return 1;
}

GtkWidget *
mp_dims_form_new (const char *file_name, const char * const *names, const char * const *bound)
{
  g_autofree char *text = g_strdup_printf ("%s has symbolic dimensions: give each a value.",
                                           file_name);
  MpDimsForm *self = g_object_new (MP_TYPE_DIMS_FORM, "orientation", GTK_ORIENTATION_HORIZONTAL,
                                   "spacing", 6, NULL);

  g_return_val_if_fail (names != NULL, NULL);

  gtk_box_append (GTK_BOX (self), gtk_label_new (text));
  for (guint i = 0; names[i]; i++)
    {
      GtkWidget *label = gtk_label_new (names[i]);
      GtkWidget *spin = gtk_spin_button_new_with_range (1, MAX_DIM, 1);

      gtk_widget_set_margin_start (label, 12);
      gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), bound_value (bound, names[i]));
      /* GtkSpinButton has no "activate" before GTK 4.14: its text has */
      g_signal_connect_swapped (gtk_editable_get_delegate (GTK_EDITABLE (spin)), "activate",
                                G_CALLBACK (spin_activate), self);
      gtk_accessible_update_relation (GTK_ACCESSIBLE (spin), GTK_ACCESSIBLE_RELATION_LABELLED_BY,
                                      label, NULL, -1);
      gtk_box_append (GTK_BOX (self), label);
      gtk_box_append (GTK_BOX (self), spin);
      g_ptr_array_add (self->names, g_strdup (names[i]));
      g_ptr_array_add (self->spins, spin);
    }
  return GTK_WIDGET (self);
}

gboolean
mp_dims_form_set_value (MpDimsForm *self, const char *name, guint value)
{
  g_return_val_if_fail (MP_IS_DIMS_FORM (self), FALSE);

  for (guint i = 0; i < self->names->len; i++)
    if (g_str_equal (self->names->pdata[i], name))
      {
        gtk_spin_button_set_value (self->spins->pdata[i], value);
        return TRUE;
      }
  return FALSE;
}

GStrv
mp_dims_form_get_bindings (MpDimsForm *self)
{
  g_autoptr (GStrvBuilder) b = g_strv_builder_new ();

  g_return_val_if_fail (MP_IS_DIMS_FORM (self), NULL);

  for (guint i = 0; i < self->names->len; i++)
    {
      g_autofree char *binding = NULL;

      /* a value typed but not yet committed with Enter counts too */
      gtk_spin_button_update (self->spins->pdata[i]);
      binding = g_strdup_printf ("%s=%d", (char *) self->names->pdata[i],
                                 gtk_spin_button_get_value_as_int (self->spins->pdata[i]));
      g_strv_builder_add (b, binding);
    }
  return g_strv_builder_end (b);
}

static void
mp_dims_form_finalize (GObject *object)
{
  MpDimsForm *self = MP_DIMS_FORM (object);

  g_ptr_array_unref (self->names);
  g_ptr_array_unref (self->spins);
  G_OBJECT_CLASS (mp_dims_form_parent_class)->finalize (object);
}

static void
mp_dims_form_class_init (MpDimsFormClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = mp_dims_form_finalize;
  /* Enter in a spin button: the values are given */
  signals[SIGNAL_ACTIVATE] = g_signal_new ("activate", G_TYPE_FROM_CLASS (klass),
                                           G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE,
                                           0);
}

static void
mp_dims_form_init (MpDimsForm *self)
{
  self->names = g_ptr_array_new_with_free_func (g_free);
  self->spins = g_ptr_array_new ();
}
