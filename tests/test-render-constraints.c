/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The timeline's picture of per-buffer constraints (issue 28): a gap is a
 * hole of free space in the buffer's rectangle with its window as the band
 * that stays; a pinned buffer carries a pin mark at its top-right corner. */
#include <math.h>
#include <string.h>

#include "memplan-render.h"
#include "planner.h"
#include "test-constraint-data.h"

#define W 600
#define H 480

static const char pin_json[] = PIN_JSON;

typedef struct
{
  MpGraph         *graph;
  MpLifetimes     *lt;
  MpPlan          *plan;
  MpRenderIndex   *index;
  MpRenderLayout   layout;
  cairo_surface_t *surface;
} Picture;

/* greedy-by-size's plan of text, drawn bare over steps [0, 4) and
 * addresses [0, 128). */
static void
picture_draw (Picture *pic, const char *text, gboolean plan_inputs)
{
  g_autoptr (GError) error = NULL;
  MpLifetimeOptions lopts = { .plan_inputs = plan_inputs };
  MpPlannerOptions  popts = { .time_budget = 10 };
  MpRenderOptions   o = { 0 };
  cairo_t          *cr;

  pic->graph = mp_graph_parse_json (text, strlen (text), "c.json", &error);
  g_assert_no_error (error);
  pic->lt = mp_lifetimes_compute (pic->graph, &lopts, &error);
  g_assert_no_error (error);
  pic->plan = mp_planner_run (mp_planner_lookup ("greedy-by-size"), pic->graph, pic->lt, &popts,
                              NULL, &error);
  g_assert_no_error (error);
  pic->index = mp_render_index_new (pic->graph, pic->plan);
  o.flags = MP_RENDER_HIDE_TITLE | MP_RENDER_HIDE_LEGEND | MP_RENDER_HIDE_CURVE |
            MP_RENDER_HIDE_LABELS | MP_RENDER_HIDE_AXES;
  o.viewport = (MpViewport) { 0, pic->graph->n_ops, 0, 128 };
  pic->surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, W, H);
  cr = cairo_create (pic->surface);
  mp_render_plan (cr, pic->index, &o, W, H);
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
  cairo_destroy (cr);
  cairo_surface_flush (pic->surface);
  mp_render_layout (pic->index, &o, W, H, &pic->layout);
}

static void
picture_clear (Picture *pic)
{
  cairo_surface_destroy (pic->surface);
  mp_render_index_free (pic->index);
  mp_plan_free (pic->plan);
  mp_lifetimes_free (pic->lt);
  mp_graph_free (pic->graph);
}

static MpRgb
pixel_at (const Picture *pic, gdouble step, gdouble addr)
{
  gdouble       x, y;
  const guint8 *data = cairo_image_surface_get_data (pic->surface);
  guint32       v;

  mp_render_layout_to_device (&pic->layout, step, addr, &x, &y);
  g_assert_true (x >= 0 && x < W && y >= 0 && y < H);
  v = *(const guint32 *) (const void *) (data + (gint) y * cairo_image_surface_get_stride (
                                                   pic->surface) + (gint) x * 4);
  return (MpRgb) { (v >> 16 & 0xff) / 255.0, (v >> 8 & 0xff) / 255.0, (v & 0xff) / 255.0 };
}

static gboolean
same_color (MpRgb a, MpRgb b)
{
  return fabs (a.r - b.r) <= 2.5 / 255 && fabs (a.g - b.g) <= 2.5 / 255 &&
         fabs (a.b - b.b) <= 2.5 / 255;
}

/* Free space: the tint, the hatching, or an antialiased mix of the two. */
static gboolean
is_free (const MpPalette *p, MpRgb c)
{
  const gdouble e = 2.5 / 255;

  return c.r >= MIN (p->free.r, p->free_hatch.r) - e && c.r <= MAX (p->free.r, p->free_hatch.r) + e &&
         c.g >= MIN (p->free.g, p->free_hatch.g) - e && c.g <= MAX (p->free.g, p->free_hatch.g) + e &&
         c.b >= MIN (p->free.b, p->free_hatch.b) - e && c.b <= MAX (p->free.b, p->free_hatch.b) + e;
}

static void
test_gap_hole (void)
{
  const MpPalette *p = mp_palette_get (MP_THEME_LIGHT);
  Picture          pic = { 0 };

  picture_draw (&pic, GAPPY_JSON ("{\"from\":1,\"to\":3}"), FALSE);
  /* a itself at op 0, b over the hole's low part, the hole's top free */
  g_assert_true (same_color (pixel_at (&pic, 0.5, 32), p->keys[0]));
  g_assert_true (same_color (pixel_at (&pic, 1.5, 24), p->keys[0]));
  g_assert_true (is_free (p, pixel_at (&pic, 1.5, 56)));
  g_assert_true (is_free (p, pixel_at (&pic, 2.5, 56)));
  /* a again at op 3 */
  g_assert_true (same_color (pixel_at (&pic, 3.5, 32), p->keys[0]));
  picture_clear (&pic);
}

static void
test_gap_window (void)
{
  const MpPalette *p = mp_palette_get (MP_THEME_LIGHT);
  Picture          pic = { 0 };

  picture_draw (&pic, GAPPY_JSON ("{\"from\":1,\"to\":3,\"window\":[0,16]}"), FALSE);
  /* the window [0, 16) stays a's; b sits on it at 16 */
  g_assert_true (same_color (pixel_at (&pic, 1.5, 8), p->keys[0]));
  g_assert_true (same_color (pixel_at (&pic, 1.5, 40), p->keys[0]));
  picture_clear (&pic);
}

/* Pixels of the pin's head (the arena colour) near a buffer's top-right
 * corner, in a square of 28 pixels inside it. */
static guint
pin_pixels (const Picture *pic, const char *name)
{
  const MpPalette *p = mp_palette_get (MP_THEME_LIGHT);
  gint             r = pic->lt->record_of[mp_graph_find_tensor (pic->graph, name)];
  const MpUsage   *rec = &pic->plan->records[r];
  gdouble          x, y;
  guint            n = 0;
  const guint8    *data = cairo_image_surface_get_data (pic->surface);
  gint             stride = cairo_image_surface_get_stride (pic->surface);

  mp_render_layout_to_device (&pic->layout, rec->last + 1, pic->plan->offsets[r] + rec->bytes,
                              &x, &y);
  for (gint dy = 1; dy < 28; dy++)
    for (gint dx = 1; dx < 28; dx++)
      {
        guint32 v = *(const guint32 *) (const void *) (data + ((gint) y + dy) * stride +
                                                       ((gint) x - dx) * 4);
        MpRgb   c = { (v >> 16 & 0xff) / 255.0, (v >> 8 & 0xff) / 255.0, (v & 0xff) / 255.0 };

        n += same_color (c, p->arena);
      }
  return n;
}

static void
test_pin (void)
{
  Picture pic = { 0 };

  picture_draw (&pic, pin_json, TRUE);
  g_assert_cmpuint (pin_pixels (&pic, "x"), >, 20);
  g_assert_cmpuint (pin_pixels (&pic, "a"), ==, 0);
  picture_clear (&pic);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/render/constraints/gap-hole", test_gap_hole);
  g_test_add_func ("/render/constraints/gap-window", test_gap_window);
  g_test_add_func ("/render/constraints/pin", test_pin);
  return g_test_run ();
}
