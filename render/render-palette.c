/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-render"

#include "render-private.h"

#define RGB(hex) { ((hex) >> 16 & 0xff) / 255.0, ((hex) >> 8 & 0xff) / 255.0, ((hex) & 0xff) / 255.0 }

/* Categories: the Okabe–Ito set, distinguishable under the common colour
 * vision deficiencies; size classes: viridis, a ramp that stays ordered in
 * grey scale. */
#define OKABE_ITO                                                                 \
  RGB (0x56b4e9), RGB (0xe69f00), RGB (0x009e73), RGB (0xcc79a7), RGB (0x0072b2),  \
    RGB (0xd55e00), RGB (0xf0e442), RGB (0x999999)
/* Planners: Paul Tol's "muted" scheme on light backgrounds and his "light"
 * scheme (one hue changed, to keep nine apart) on dark ones, both made for
 * colour-blind readers (P. Tol, "Colour Schemes", SRON/EPS/TN/09-002); the
 * tenth (best-of) from his "vibrant" scheme, orange and magenta, the
 * furthest of it from the others. */
#define TOL_MUTED                                                                 \
  RGB (0x332288), RGB (0x88ccee), RGB (0x44aa99), RGB (0x117733), RGB (0x999933),  \
    RGB (0xddcc77), RGB (0xcc6677), RGB (0x882255), RGB (0xee7733), RGB (0xaa4499)
#define TOL_LIGHT                                                                 \
  RGB (0x77aadd), RGB (0x99ddff), RGB (0x44bb99), RGB (0xbbcc33), RGB (0xeedd88),  \
    RGB (0xee8866), RGB (0xffaabb), RGB (0xcc99ff), RGB (0xee3377), RGB (0xdddddd)
#define VIRIDIS                                                                   \
  RGB (0x440154), RGB (0x414487), RGB (0x2a788e), RGB (0x22a884), RGB (0x7ad151),  \
    RGB (0xfde725)

static const MpPalette palettes[MP_THEME_N] = {
  [MP_THEME_LIGHT] = {
    .background = RGB (0xffffff),
    .foreground = RGB (0x1c1c1c),
    .grid = RGB (0xe4e6ea),
    .free = RGB (0xf1f2f5),
    .free_hatch = RGB (0xd9dce3),
    .outline = RGB (0x2b2b2b),
    .arena = RGB (0x1c1c1c),
    .lower_bound = RGB (0xd55e00),
    .curve = RGB (0x0072b2),
    .peak = RGB (0xd55e00),
    .highlight = RGB (0x000000),
    .keys = { OKABE_ITO },
    .sizes = { VIRIDIS },
    .planners = { TOL_MUTED },
    .dim = 0.75,
  },
  [MP_THEME_DARK] = {
    .background = RGB (0x1d1f23),
    .foreground = RGB (0xe8e8e8),
    .grid = RGB (0x30343a),
    .free = RGB (0x272a30),
    .free_hatch = RGB (0x363b43),
    .outline = RGB (0x0e0f11),
    .arena = RGB (0xf2f2f2),
    .lower_bound = RGB (0xff9a4d),
    .curve = RGB (0x56b4e9),
    .peak = RGB (0xff9a4d),
    .highlight = RGB (0xffffff),
    .keys = { OKABE_ITO },
    .sizes = { VIRIDIS },
    .planners = { TOL_LIGHT },
    .dim = 0.7,
  },
};

const MpPalette *
mp_palette_get (MpTheme theme)
{
  g_return_val_if_fail (theme < MP_THEME_N, &palettes[MP_THEME_LIGHT]);
  return &palettes[theme];
}

MpRgb
mp_planner_color (const MpPalette *palette, const MpPlan *plan)
{
  guint                n;
  const MpPlannerInfo *infos = mp_planners (&n);
  const MpPlannerInfo *info = mp_planner_lookup (plan->planner);

  G_STATIC_ASSERT (MP_PALETTE_N_PLANNERS >= 1);
  if (mp_plan_traits (plan) & MP_PLANNER_OBSERVED)
    return palette->planners[MP_PALETTE_N_PLANNERS - 1];
  if (info == NULL || (guint) (info - infos) >= MP_PALETTE_N_PLANNERS - 1)
    return palette->foreground;
  return palette->planners[info - infos];
}

/* Tensor kinds on the category keys: activations sky blue (the bulk),
 * params orange, inputs bluish green, outputs vermillion. */
guint
mp_kind_color (MpTensorKind kind)
{
  static const guint8 keys[MP_TENSOR_N_KINDS] = {
    [MP_TENSOR_ACTIVATION] = 0,
    [MP_TENSOR_PARAM] = 1,
    [MP_TENSOR_INPUT] = 2,
    [MP_TENSOR_OUTPUT] = 5,
  };

  g_return_val_if_fail (kind < MP_TENSOR_N_KINDS, 0);
  return keys[kind];
}

MpRgb
mp_palette_color (const MpPalette *palette, guint c)
{
  g_assert (c < MP_N_COLORS);
  return c < MP_PALETTE_N_KEYS ? palette->keys[c] : palette->sizes[c - MP_PALETTE_N_KEYS];
}

MpRgb
mp_rgb_mix (MpRgb a, MpRgb b, gdouble t)
{
  MpRgb out = { a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t, a.b + (b.b - a.b) * t };

  return out;
}

gdouble
mp_rgb_luminance (MpRgb c)
{
  return 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b;
}

void
mp_cairo_set_rgb (cairo_t *cr, MpRgb c)
{
  cairo_set_source_rgb (cr, c.r, c.g, c.b);
}

void
mp_cairo_set_rgba (cairo_t *cr, MpRgb c, gdouble alpha)
{
  cairo_set_source_rgba (cr, c.r, c.g, c.b, alpha);
}

static const char *color_by_names[MP_COLOR_BY_N] = { "kind", "op", "stream", "size" };

const char *
mp_color_by_to_string (MpColorBy color_by)
{
  g_return_val_if_fail (color_by < MP_COLOR_BY_N, "kind");
  return color_by_names[color_by];
}

gboolean
mp_color_by_from_string (const char *str, MpColorBy *color_by)
{
  for (guint i = 0; i < MP_COLOR_BY_N; i++)
    if (g_str_equal (str, color_by_names[i]))
      {
        *color_by = i;
        return TRUE;
      }
  return FALSE;
}
