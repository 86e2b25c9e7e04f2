/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

#include "text-cell.h"

/* GTK 4.8's list views keep about 200 rows bound, far more than are shown:
 * a jump of the live list rebinds them all, and a GtkLabel whose text
 * changes asks for a new size, so every bound row was measured again
 * (about 10 ms for the 1,400 cells at 1 GB). This cell's height is the
 * font's line and its width the column's, so new text only asks for a
 * redraw, and only the rows shown are drawn. */

struct _MpTextCell
{
  GtkWidget    parent_instance;
  char        *text;
  gboolean     numeric;
  PangoLayout *layout; /* made when first drawn */
};

G_DEFINE_FINAL_TYPE (MpTextCell, mp_text_cell, GTK_TYPE_WIDGET)

static void
mp_text_cell_measure (GtkWidget *widget, GtkOrientation orientation, int for_size, int *minimum,
                      int *natural, int *minimum_baseline, int *natural_baseline)
{
  *minimum = *natural = 0;
  if (orientation == GTK_ORIENTATION_VERTICAL)
    {
      PangoFontMetrics *metrics =
        pango_context_get_metrics (gtk_widget_get_pango_context (widget), NULL, NULL);

      *minimum = *natural = PANGO_PIXELS_CEIL (pango_font_metrics_get_height (metrics));
      pango_font_metrics_unref (metrics);
    }
}

static void
mp_text_cell_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  MpTextCell    *self = MP_TEXT_CELL (widget);
  int            width = gtk_widget_get_width (widget);
  int            height = gtk_widget_get_height (widget);
  PangoRectangle logical;
  GdkRGBA        color;

  if (self->text == NULL || *self->text == '\0' || width <= 0)
    return;
  if (self->layout == NULL)
    {
      self->layout = gtk_widget_create_pango_layout (widget, self->text);
      if (self->numeric)
        {
          /* what the .numeric class asks of a label: tabular figures */
          PangoAttrList *attrs = pango_attr_list_new ();

          pango_attr_list_insert (attrs, pango_attr_font_features_new ("tnum"));
          pango_layout_set_attributes (self->layout, attrs);
          pango_attr_list_unref (attrs);
        }
      else
        pango_layout_set_ellipsize (self->layout, PANGO_ELLIPSIZE_END);
    }
  pango_layout_set_width (self->layout, self->numeric ? -1 : width * PANGO_SCALE);
  pango_layout_get_pixel_extents (self->layout, NULL, &logical);
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &color);
  G_GNUC_END_IGNORE_DEPRECATIONS
  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot,
                          &GRAPHENE_POINT_INIT (self->numeric ? width - logical.width : 0,
                                                (height - logical.height) / 2));
  gtk_snapshot_append_layout (snapshot, self->layout, &color);
  gtk_snapshot_restore (snapshot);
}

static void
mp_text_cell_system_setting_changed (GtkWidget *widget, GtkSystemSetting setting)
{
  MpTextCell *self = MP_TEXT_CELL (widget);

  /* a new font or font options: the layout is made again */
  g_clear_object (&self->layout);
  GTK_WIDGET_CLASS (mp_text_cell_parent_class)->system_setting_changed (widget, setting);
  gtk_widget_queue_resize (widget);
}

static void
mp_text_cell_finalize (GObject *object)
{
  MpTextCell *self = MP_TEXT_CELL (object);

  g_free (self->text);
  g_clear_object (&self->layout);
  G_OBJECT_CLASS (mp_text_cell_parent_class)->finalize (object);
}

static void
mp_text_cell_class_init (MpTextCellClass *klass)
{
  GObjectClass   *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = mp_text_cell_finalize;
  widget_class->measure = mp_text_cell_measure;
  widget_class->snapshot = mp_text_cell_snapshot;
  widget_class->system_setting_changed = mp_text_cell_system_setting_changed;
  gtk_widget_class_set_css_name (widget_class, "label");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_LABEL);
}

static void
mp_text_cell_init (MpTextCell *self)
{
}

GtkWidget *
mp_text_cell_new (gboolean numeric)
{
  MpTextCell *self = g_object_new (MP_TYPE_TEXT_CELL, NULL);

  self->numeric = numeric;
  if (numeric)
    gtk_widget_add_css_class (GTK_WIDGET (self), "numeric");
  return GTK_WIDGET (self);
}

void
mp_text_cell_set_text (MpTextCell *self, const char *text)
{
  g_return_if_fail (MP_IS_TEXT_CELL (self));

  if (g_strcmp0 (self->text, text) == 0)
    return;
  g_free (self->text);
  self->text = g_strdup (text);
  if (self->layout)
    pango_layout_set_text (self->layout, text ? text : "", -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  text ? text : "", -1);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

const char *
mp_text_cell_get_text (MpTextCell *self)
{
  g_return_val_if_fail (MP_IS_TEXT_CELL (self), NULL);
  return self->text;
}
