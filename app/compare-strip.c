/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

#include "compare-strip.h"

/* Buckets across a run: each holds the most live at any step in it, so a
 * 2M-step run draws as fast as a small one and no peak falls between. */
#define N_BUCKETS 2048
#define PLOT_HEIGHT 110

typedef struct
{
  char    *name;
  guint64  peak;
  guint    peak_step;
  guint    n_steps;
  guint    n_buckets; /* N_BUCKETS, or n_steps when fewer */
  guint64 *buckets;
} Curve;

struct _MpCompareStrip
{
  GtkWidget  parent_instance;
  GtkWidget *box;
  GtkLabel  *heading;
  GtkWidget *area;
  Curve      curves[2]; /* A, B */
  gboolean   shown;
  gboolean   dark;
};

G_DEFINE_FINAL_TYPE (MpCompareStrip, mp_compare_strip, GTK_TYPE_WIDGET)

static void
curve_clear (Curve *c)
{
  g_clear_pointer (&c->name, g_free);
  g_clear_pointer (&c->buckets, g_free);
  c->peak = 0;
  c->n_steps = 0;
}

/* The live bytes at each step from the lifetimes (a difference array), then
 * the most of them per bucket. */
static void
curve_set (Curve *c, MpPlanSet *set)
{
  const MpLifetimes *lt = mp_plan_set_get_lifetimes (set);
  g_autofree gint64 *delta = g_new0 (gint64, (gsize) lt->n_steps + 1);
  gint64             live = 0;

  curve_clear (c);
  c->name = g_path_get_basename (mp_plan_set_get_path (set));
  c->n_steps = lt->n_steps;
  c->n_buckets = MAX (MIN (lt->n_steps, N_BUCKETS), 1);
  c->buckets = g_new0 (guint64, c->n_buckets);
  for (guint r = 0; r < lt->n_records; r++)
    {
      delta[lt->records[r].first] += lt->records[r].bytes;
      delta[MIN (lt->records[r].last + 1, lt->n_steps)] -= lt->records[r].bytes;
    }
  for (guint s = 0; s < lt->n_steps; s++)
    {
      guint b = (guint) ((guint64) s * c->n_buckets / lt->n_steps);

      live += delta[s];
      c->buckets[b] = MAX (c->buckets[b], (guint64) live);
      if ((guint64) live > c->peak)
        {
          c->peak = live;
          c->peak_step = s;
        }
    }
}

static void
palette (MpCompareStrip *self, guint i, GdkRGBA *rgba)
{
  /* blue and orange: apart for the colour-blind, legible on both themes */
  static const GdkRGBA light[2] = { { 0.11, 0.44, 0.85, 1 }, { 0.90, 0.38, 0.0, 1 } };
  static const GdkRGBA dark[2] = { { 0.38, 0.63, 0.92, 1 }, { 1.0, 0.64, 0.28, 1 } };

  *rgba = self->dark ? dark[i] : light[i];
}

static void
draw_text (cairo_t *cr, GtkWidget *widget, const char *text, double x, double y, double align,
           const GdkRGBA *rgba)
{
  g_autoptr (PangoLayout) layout = gtk_widget_create_pango_layout (widget, text);
  int                     w, h;

  pango_layout_get_pixel_size (layout, &w, &h);
  gdk_cairo_set_source_rgba (cr, rgba);
  cairo_move_to (cr, x - align * w, y);
  pango_cairo_show_layout (cr, layout);
}

static void
draw (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  MpCompareStrip *self = data;
  guint64         top = MAX (MAX (self->curves[0].peak, self->curves[1].peak), 1);
  double          left = 74, right = width - 12, y0 = height - 20, y1 = 22;
  GdkRGBA         fg = self->dark ? (GdkRGBA) { 0.92, 0.92, 0.92, 1 }
                                  : (GdkRGBA) { 0.15, 0.15, 0.15, 1 };
  g_autofree char *top_text = mp_format_bytes (top);
  double          legend_x = left;

  if (!self->shown || right <= left)
    return;
  /* axes: bytes on the left, the share of each run below */
  gdk_cairo_set_source_rgba (cr, &fg);
  cairo_set_line_width (cr, 1);
  cairo_move_to (cr, left, y1);
  cairo_line_to (cr, left, y0);
  cairo_line_to (cr, right, y0);
  cairo_stroke (cr);
  draw_text (cr, GTK_WIDGET (area), top_text, left - 4, y1 - 8, 1, &fg);
  draw_text (cr, GTK_WIDGET (area), "0", left - 4, y0 - 8, 1, &fg);
  draw_text (cr, GTK_WIDGET (area), "start of each run", left, y0 + 2, 0, &fg);
  draw_text (cr, GTK_WIDGET (area), "end", right, y0 + 2, 1, &fg);
  for (guint i = 0; i < 2; i++)
    {
      const Curve     *c = &self->curves[i];
      GdkRGBA          rgba;
      g_autofree char *peak = NULL, *label = NULL;
      g_autoptr (PangoLayout) layout = NULL;
      int              w;

      if (c->buckets == NULL)
        continue;
      palette (self, i, &rgba);
      gdk_cairo_set_source_rgba (cr, &rgba);
      cairo_set_line_width (cr, i ? 2 : 2.5);
      if (i)
        cairo_set_dash (cr, (double[]) { 6, 3 }, 2, 0);
      for (guint b = 0; b < c->n_buckets; b++)
        {
          double x = left + (right - left) * (b + 0.5) / c->n_buckets;
          double y = y0 - (y0 - y1) * (double) c->buckets[b] / top;

          if (b == 0)
            cairo_move_to (cr, x, y);
          else
            cairo_line_to (cr, x, y);
        }
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
      /* the legend, one entry per run, in its colour */
      peak = mp_format_bytes (c->peak);
      label = g_strdup_printf ("%s  %s, peak %s", i ? "B ┅" : "A ━", c->name, peak);
      layout = gtk_widget_create_pango_layout (GTK_WIDGET (area), label);
      pango_layout_get_pixel_size (layout, &w, NULL);
      draw_text (cr, GTK_WIDGET (area), label, legend_x, 2, 0, &rgba);
      legend_x += w + 24;
    }
}

static void
update_heading (MpCompareStrip *self)
{
  const Curve     *a = &self->curves[0], *b = &self->curves[1];
  g_autofree char *pa = NULL, *pb = NULL, *diff = NULL, *text = NULL;
  guint64          d;

  if (!self->shown)
    {
      gtk_label_set_text (self->heading, "");
      return;
    }
  pa = mp_format_bytes (a->peak);
  pb = mp_format_bytes (b->peak);
  d = b->peak > a->peak ? b->peak - a->peak : a->peak - b->peak;
  diff = mp_format_bytes (d);
  if (d == 0)
    text = g_strdup_printf ("A: %s, peak %s · B: %s, peak %s · the same peak", a->name, pa,
                            b->name, pb);
  else
    text = g_strdup_printf ("A: %s, peak %s · B: %s, peak %s · B − A: %s%s (%+.1f%%); the By "
                            "op tab says which ops", a->name, pa, b->name, pb,
                            b->peak > a->peak ? "+" : "−", diff,
                            a->peak ? 100.0 * ((double) b->peak - a->peak) / a->peak : 100.0);
  gtk_label_set_text (self->heading, text);
}

static void
mp_compare_strip_dispose (GObject *object)
{
  MpCompareStrip *self = MP_COMPARE_STRIP (object);

  curve_clear (&self->curves[0]);
  curve_clear (&self->curves[1]);
  g_clear_pointer (&self->box, gtk_widget_unparent);
  G_OBJECT_CLASS (mp_compare_strip_parent_class)->dispose (object);
}

static void
mp_compare_strip_class_init (MpCompareStripClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = mp_compare_strip_dispose;
  gtk_widget_class_set_layout_manager_type (GTK_WIDGET_CLASS (klass), GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (GTK_WIDGET_CLASS (klass), "comparestrip");
}

static void
mp_compare_strip_init (MpCompareStrip *self)
{
  self->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  self->heading = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_xalign (self->heading, 0);
  gtk_label_set_ellipsize (self->heading, PANGO_ELLIPSIZE_END);
  gtk_widget_set_margin_start (GTK_WIDGET (self->heading), 6);
  self->area = gtk_drawing_area_new ();
  gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (self->area), PLOT_HEIGHT);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self->area), draw, self, NULL);
  gtk_box_append (GTK_BOX (self->box), GTK_WIDGET (self->heading));
  gtk_box_append (GTK_BOX (self->box), self->area);
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));
  gtk_widget_set_visible (GTK_WIDGET (self), FALSE);
}

GtkWidget *
mp_compare_strip_new (void)
{
  return g_object_new (MP_TYPE_COMPARE_STRIP, NULL);
}

void
mp_compare_strip_set_sets (MpCompareStrip *self, MpPlanSet *a, MpPlanSet *b)
{
  g_return_if_fail (MP_IS_COMPARE_STRIP (self));
  self->shown = a != NULL && b != NULL;
  if (self->shown)
    {
      curve_set (&self->curves[0], a);
      curve_set (&self->curves[1], b);
    }
  else
    {
      curve_clear (&self->curves[0]);
      curve_clear (&self->curves[1]);
    }
  gtk_widget_set_visible (GTK_WIDGET (self), self->shown);
  update_heading (self);
  gtk_widget_queue_draw (self->area);
}

void
mp_compare_strip_set_dark (MpCompareStrip *self, gboolean dark)
{
  g_return_if_fail (MP_IS_COMPARE_STRIP (self));
  self->dark = dark;
  gtk_widget_queue_draw (self->area);
}

const char *
mp_compare_strip_get_text (MpCompareStrip *self)
{
  g_return_val_if_fail (MP_IS_COMPARE_STRIP (self), NULL);
  return gtk_label_get_text (self->heading);
}
