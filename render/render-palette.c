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
    .dim = 0.7,
  },
};

const MpPalette *
mp_palette_get (MpTheme theme)
{
  g_return_val_if_fail (theme < MP_THEME_N, &palettes[MP_THEME_LIGHT]);
  return &palettes[theme];
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
