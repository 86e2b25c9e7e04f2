/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-render"

/* The rectangles, with the level of detail of fast timeline tools: only the
 * records of the visible step range (a stabbing query plus a binary search),
 * rectangles of at least a pixel each way snapped to whole pixels and
 * filled in one path per colour, and thinner items merged into a coverage
 * grid painted as one image whose opacity is each pixel's coverage (the
 * share of its bytes × steps that is live), so free space between crowds of
 * small buffers stays as visible as it is large. */

#include <math.h>
#include <string.h>
#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "render-private.h"

/* Labels cost a text measurement each; past this many per frame the rest
 * go unlabelled (they are far too small to read at such a zoom anyway). */
#define MAX_LABEL_TRIES 3000

typedef struct
{
  gint32 x0, y0, x1, y1;
  guint  record;
  guint8 slot;
  guint8 outline;
  guint8 highlighted;
  guint8 sets_arena; /* reaches the arena's top */
} Box;

typedef struct
{
  const MpRenderIndex   *index;
  const MpRenderLayout  *layout;
  const guint8          *colors;    /* this key's colour per record */
  const guint8          *highlight; /* per graph tensor, or NULL */
  gdouble                sx, sy;    /* pixels per step, per byte */
  gdouble                px0, py1;  /* plot left, plot bottom */
  GArray                *boxes;
  GArray                *marked;    /* records with gaps or a fixed offset (guint) */
  /* coverage grid over the plot, for sub-pixel items */
  gint                   gx, gy, gw, gh;
  gfloat                *cover;      /* coverage of each pixel */
  gfloat                *diff;       /* per row: coverage steps of long thin runs */
  guint8                *point_slot; /* colour + 1 of narrow items, per pixel */
  guint8                *run_slot;   /* colour + 1 of the run starting at a pixel */
  gint                   bx0, by0, bx1, by1; /* bounding box of touched cells */
} Frame;

static void
add_cover (Frame *f, gdouble xa, gdouble xb, gdouble ya, gdouble yb, guint8 slot)
{
  gint    c0 = (gint) floor (xa) - f->gx, c1 = (gint) ceil (xb) - f->gx;
  gint    r0 = (gint) floor (ya) - f->gy, r1 = (gint) ceil (yb) - f->gy;
  gsize   cells = (gsize) f->gw * f->gh;
  gdouble first_ox, last_ox;

  if (f->cover == NULL)
    {
      f->cover = g_new0 (gfloat, cells);
      f->diff = g_new0 (gfloat, (gsize) (f->gw + 1) * f->gh);
      f->point_slot = g_new0 (guint8, cells);
      f->run_slot = g_new0 (guint8, cells);
      f->bx0 = f->gw;
      f->by0 = f->gh;
      f->bx1 = f->by1 = 0;
    }
  c0 = MAX (c0, 0);
  r0 = MAX (r0, 0);
  c1 = MIN (c1, f->gw);
  r1 = MIN (r1, f->gh);
  if (c0 >= c1 || r0 >= r1)
    return;
  first_ox = MIN (xb, f->gx + c0 + 1) - MAX (xa, f->gx + c0);
  last_ox = MIN (xb, f->gx + c1) - MAX (xa, f->gx + c1 - 1);
  for (gint r = r0; r < r1; r++)
    {
      gfloat  oy = (gfloat) (MIN (yb, f->gy + r + 1) - MAX (ya, f->gy + r));
      gsize   k = (gsize) r * f->gw;
      gfloat *row = f->cover + k;

      if (c1 - c0 <= 2)
        {
          row[c0] += (gfloat) first_ox * oy;
          f->point_slot[k + c0] = slot + 1;
          if (c1 - c0 == 2)
            {
              row[c1 - 1] += (gfloat) last_ox * oy;
              f->point_slot[k + c1 - 1] = slot + 1;
            }
          continue;
        }
      /* a long thin buffer (the common case zoomed in on big plans): its
       * ends exactly, its middle as a step in the row's running sum, so it
       * costs O(1) whatever its length */
      row[c0] += (gfloat) first_ox * oy;
      row[c1 - 1] += (gfloat) last_ox * oy;
      f->diff[(gsize) r * (f->gw + 1) + c0 + 1] += oy;
      f->diff[(gsize) r * (f->gw + 1) + c1 - 1] -= oy;
      f->run_slot[k + c0] = slot + 1;
    }
  f->bx0 = MIN (f->bx0, c0);
  f->by0 = MIN (f->by0, r0);
  f->bx1 = MAX (f->bx1, c1);
  f->by1 = MAX (f->by1, r1);
}

/* One rectangle of record r, [lo, hi) over steps [first, end): a box when
 * it spans a pixel each way; thinner items (a small tensor living long, a
 * short one) merge into the coverage grid, where a one-pixel line would
 * paint the free space around it over. */
static void
emit (Frame *f, guint r, gdouble first, gdouble end, gdouble lo, gdouble hi, gboolean hl,
      guint8 slot)
{
  const MpPlan       *plan = f->index->plan;
  const MpViewport   *v = &f->layout->viewport;
  const MpRenderRect *p = &f->layout->plot;
  gdouble             xa, xb, ya, yb;

  xa = MAX (f->px0 + (first - v->step_min) * f->sx, p->x);
  xb = MIN (f->px0 + (end - v->step_min) * f->sx, p->x + p->width);
  ya = MAX (f->py1 - (hi - v->addr_min) * f->sy, p->y);
  yb = MIN (f->py1 - (lo - v->addr_min) * f->sy, p->y + p->height);
  if (xb <= xa || yb <= ya)
    return;

  if ((xb - xa >= 1 && yb - ya >= 1) || hl)
    {
      Box b;

      b.x0 = (gint32) round (xa);
      b.x1 = MAX ((gint32) round (xb), b.x0 + 1);
      b.y0 = (gint32) round (ya);
      b.y1 = MAX ((gint32) round (yb), b.y0 + 1);
      if (hl)
        {
          /* a followed tensor is never lost at any zoom: at least 3 pixels */
          if (b.x1 - b.x0 < 3)
            {
              gint32 mid = (b.x0 + b.x1) / 2;

              b.x0 = mid - 1;
              b.x1 = mid + 2;
            }
          if (b.y1 - b.y0 < 3)
            {
              gint32 mid = (b.y0 + b.y1) / 2;

              b.y0 = mid - 1;
              b.y1 = mid + 2;
            }
        }
      b.record = r;
      b.slot = slot;
      b.outline = b.x1 - b.x0 >= 4 && b.y1 - b.y0 >= 4;
      b.highlighted = hl;
      b.sets_arena = hi == (gdouble) plan->arena;
      g_array_append_val (f->boxes, b);
    }
  else
    add_cover (f, xa, xb, ya, yb, slot);
}

static void
visit (guint r, gpointer user_data)
{
  Frame               *f = user_data;
  const MpPlan        *plan = f->index->plan;
  const MpUsage       *rec = &plan->records[r];
  const MpViewport    *v = &f->layout->viewport;
  gdouble              lo = (gdouble) plan->offsets[r], hi = lo + (gdouble) rec->bytes;
  gboolean             hl = FALSE;
  guint8               slot = f->colors[r];
  gdouble              from = rec->first;

  if (hi <= v->addr_min || lo >= v->addr_max || rec->bytes == 0)
    return;
  if (f->highlight)
    {
      hl = f->highlight[rec->tensor];
      if (!hl)
        slot += MP_N_COLORS;
    }
  if (rec->n_gaps || (rec->flags & MP_USAGE_FIXED))
    g_array_append_val (f->marked, r);
  /* a gap is a hole: the rectangle in pieces around it, its window (the
   * bytes it keeps) as a thinner piece */
  for (guint k = 0; k < rec->n_gaps; k++)
    {
      const MpGap *g = &rec->gaps[k];

      emit (f, r, from, (gdouble) g->first, lo, hi, hl, slot);
      if (g->windowed && g->hi > g->lo)
        emit (f, r, (gdouble) g->first, (gdouble) g->last + 1, lo + (gdouble) g->lo,
              lo + (gdouble) g->hi, hl, slot);
      from = (gdouble) g->last + 1;
    }
  emit (f, r, from, (gdouble) rec->last + 1, lo, hi, hl, slot);
}

static void
slot_colors (const MpPalette *palette, MpRgb *fill, MpRgb *outline)
{
  for (guint s = 0; s < MP_N_SLOTS; s++)
    {
      MpRgb c = mp_palette_color (palette, s % MP_N_COLORS);

      if (s >= MP_N_COLORS)
        c = mp_rgb_mix (c, palette->background, palette->dim);
      fill[s] = c;
      outline[s] = mp_rgb_mix (c, palette->outline, s >= MP_N_COLORS ? 0.25 : 0.45);
    }
}

static void
fill_boxes (cairo_t *cr, const Frame *f, const MpPalette *palette)
{
  MpRgb  fill[MP_N_SLOTS], outline[MP_N_SLOTS];
  guint  count[MP_N_SLOTS + 1] = { 0 };
  guint  n = f->boxes->len;
  Box   *boxes = (Box *) (void *) f->boxes->data;
  g_autofree guint *order = g_new (guint, MAX (n, 1));

  slot_colors (palette, fill, outline);
  /* bucket by colour: one path and one fill per colour */
  for (guint i = 0; i < n; i++)
    count[boxes[i].slot + 1]++;
  for (guint s = 0; s < MP_N_SLOTS; s++)
    count[s + 1] += count[s];
  {
    guint pos[MP_N_SLOTS];

    memcpy (pos, count, sizeof pos);
    for (guint i = 0; i < n; i++)
      order[pos[boxes[i].slot]++] = i;
  }

  /* outlines first as whole boxes, then the insides over them */
  for (guint s = 0; s < MP_N_SLOTS; s++)
    {
      gboolean any = FALSE;

      for (guint k = count[s]; k < count[s + 1]; k++)
        {
          const Box *b = &boxes[order[k]];

          if (b->outline)
            {
              cairo_rectangle (cr, b->x0, b->y0, b->x1 - b->x0, b->y1 - b->y0);
              any = TRUE;
            }
        }
      if (any)
        {
          mp_cairo_set_rgb (cr, outline[s]);
          cairo_fill (cr);
        }
    }
  for (guint s = 0; s < MP_N_SLOTS; s++)
    {
      if (count[s] == count[s + 1])
        continue;
      for (guint k = count[s]; k < count[s + 1]; k++)
        {
          const Box *b = &boxes[order[k]];
          gint       in = b->outline ? 1 : 0;

          cairo_rectangle (cr, b->x0 + in, b->y0 + in, b->x1 - b->x0 - 2 * in,
                           b->y1 - b->y0 - 2 * in);
        }
      mp_cairo_set_rgb (cr, fill[s]);
      cairo_fill (cr);
    }

  /* the buffers that set the arena: a bar in the arena line's colour on
   * their top edge, so what to move to shrink the arena stands out */
  mp_cairo_set_rgb (cr, palette->arena);
  for (guint i = 0; i < n; i++)
    if (boxes[i].sets_arena)
      cairo_rectangle (cr, boxes[i].x0, boxes[i].y0, boxes[i].x1 - boxes[i].x0,
                       MIN (4, boxes[i].y1 - boxes[i].y0));
  cairo_fill (cr);

  /* followed tensors: a strong frame */
  cairo_set_line_width (cr, 2.0);
  mp_cairo_set_rgb (cr, palette->highlight);
  for (guint i = 0; i < n; i++)
    if (boxes[i].highlighted)
      cairo_rectangle (cr, boxes[i].x0 + 1, boxes[i].y0 + 1, boxes[i].x1 - boxes[i].x0 - 2,
                       boxes[i].y1 - boxes[i].y0 - 2);
  cairo_stroke (cr);
}

/* Row r of the grid's bounding box: each pixel's coverage (0 where no
 * colour reached it) and colour + 1. */
static void
cover_row (const Frame *f, gint r, gint w, gfloat *cov, guint8 *slots)
{
  gsize         k = (gsize) (r + f->by0) * f->gw + f->bx0;
  const gfloat *diff = f->diff + (gsize) (r + f->by0) * (f->gw + 1) + f->bx0;
  gfloat        run = 0;
  guint8        run_slot = 0;

  for (gint c = 0; c < w; c++, k++)
    {
      run += diff[c];
      if (f->run_slot[k])
        run_slot = f->run_slot[k];
      slots[c] = f->point_slot[k] ? f->point_slot[k] : run_slot;
      cov[c] = slots[c] ? f->cover[k] + run : 0;
    }
}

/* The coverage turned into whole pixels where items crowd: down each
 * column the coverage is summed and a pixel painted solid once half a pixel
 * has gathered, the rest carried on; where the crowd ends (nothing in the
 * pixel below) the carry is painted as opacity. A column keeps its live
 * share, and gaps thinner than a pixel add up to free pixels instead of a
 * uniform tint that reads as solid (the app's 100k panes: every pixel 70%
 * live). Buffers are horizontal, so neighbouring columns agree: stripes,
 * not noise. Row by row, with the next row read ahead. */
static cairo_surface_t *
cover_image (const Frame *f, const MpPalette *palette)
{
  const gfloat      empty = 0.5f / 255;
  MpRgb             fill[MP_N_SLOTS], outline[MP_N_SLOTS];
  g_autofree guint32 *premul = g_new (guint32, MP_N_SLOTS * 256);
  g_autofree gfloat  *rows = NULL;
  g_autofree guint8  *row_slots = NULL;
  g_autofree gfloat  *carry = NULL;
  gint              w = f->bx1 - f->bx0, h = f->by1 - f->by0, stride;
  gfloat           *cur, *next;
  guint8           *cur_slot, *next_slot;
  cairo_surface_t  *img;
  guint8           *data;
  gboolean          any = FALSE;

  if (f->cover == NULL || w <= 0 || h <= 0)
    return NULL;
  slot_colors (palette, fill, outline);
  /* premultiplied ARGB of every colour at every alpha */
  for (guint s = 0; s < MP_N_SLOTS; s++)
    for (guint a = 0; a < 256; a++)
      premul[s * 256 + a] = a << 24 | (guint32) (fill[s].r * a + 0.5) << 16 |
                            (guint32) (fill[s].g * a + 0.5) << 8 | (guint32) (fill[s].b * a + 0.5);

  rows = g_new (gfloat, 2 * (gsize) w);
  row_slots = g_new (guint8, 2 * (gsize) w);
  carry = g_new0 (gfloat, w);
  cur = rows, next = rows + w;
  cur_slot = row_slots, next_slot = row_slots + w;
  cover_row (f, 0, w, cur, cur_slot);

  img = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, w, h);
  stride = cairo_image_surface_get_stride (img);
  cairo_surface_flush (img);
  data = cairo_image_surface_get_data (img);
  for (gint r = 0; r < h; r++)
    {
      guint32 *out = (guint32 *) (void *) (data + (gsize) r * stride);

      if (r + 1 < h)
        cover_row (f, r + 1, w, next, next_slot);
      else
        memset (next, 0, (gsize) w * sizeof *next);
      for (gint c = 0; c < w; c++)
        {
          gfloat a;

          if (cur[c] < empty)
            {
              out[c] = 0;
              carry[c] = 0;
              continue;
            }
          carry[c] += MIN (cur[c], 1.0f);
          if (next[c] < empty)
            {
              a = MIN (carry[c], 1.0f);
              carry[c] = 0;
            }
          else
            {
              a = carry[c] >= 0.5f ? 1.0f : 0.0f;
              carry[c] -= a;
            }
          if (a < empty)
            {
              out[c] = 0;
              continue;
            }
          /* opacity is coverage, gathered: a column 30% live shows 30% colour */
          out[c] = premul[(cur_slot[c] - 1) * 256 + (guint) lround (255 * a)];
          any = TRUE;
        }
      { gfloat *t = cur; cur = next; next = t; }
      { guint8 *t = cur_slot; cur_slot = next_slot; next_slot = t; }
    }
  cairo_surface_mark_dirty (img);
  if (!any)
    g_clear_pointer (&img, cairo_surface_destroy);
  return img;
}

/* The image at x, y (its top-left pixel) in whole pixels; filtered only
 * where it is stretched. */
static void
paint_image (cairo_t *cr, cairo_surface_t *img, gint x, gint y, cairo_filter_t filter)
{
  cairo_set_source_surface (cr, img, x, y);
  cairo_pattern_set_filter (cairo_get_source (cr), filter);
  cairo_rectangle (cr, x, y, cairo_image_surface_get_width (img),
                   cairo_image_surface_get_height (img));
  cairo_fill (cr);
}

static void
paint_cover (cairo_t *cr, const Frame *f, const MpPalette *palette)
{
  cairo_surface_t *img = cover_image (f, palette);

  if (img)
    {
      paint_image (cr, img, f->gx + f->bx0, f->gy + f->by0, CAIRO_FILTER_NEAREST);
      cairo_surface_destroy (img);
    }
}

static void
draw_labels (cairo_t *cr, const Frame *f, const MpPalette *palette, MpText *text)
{
  const MpGraph *graph = f->index->graph;
  const MpPlan  *plan = f->index->plan;
  const Box     *boxes = (const Box *) (const void *) f->boxes->data;
  MpRgb          fill[MP_N_SLOTS], outline[MP_N_SLOTS];
  gdouble        px = text->px;
  guint          tries = 0;

  slot_colors (palette, fill, outline);
  for (guint i = 0; i < f->boxes->len && tries < MAX_LABEL_TRIES; i++)
    {
      const Box  *b = &boxes[i];
      const char *name = graph->tensors[plan->records[b->record].tensor].name;
      gdouble     w = b->x1 - b->x0 - 6, h = b->y1 - b->y0 - 2, tw, th;
      MpRgb       ink;

      /* cheap reject before measuring: a glyph is at least ~0.45 em wide */
      if (w < px * 2 || h < px * 1.1 || strlen (name) * px * 0.45 > w)
        continue;
      tries++;
      mp_text_set (text, name, FALSE);
      mp_text_size (text, &tw, &th);
      if (tw > w || th > h + 2)
        continue;
      ink = mp_rgb_luminance (fill[b->slot]) > 0.45 ? (MpRgb) { 0.08, 0.08, 0.08 }
                                                    : (MpRgb) { 1, 1, 1 };
      mp_cairo_set_rgba (cr, ink, b->slot >= MP_N_COLORS ? 0.55 : 1.0);
      mp_text_draw (text, cr, b->x0 + 3, b->y0 + (b->y1 - b->y0 - th) / 2);
    }
}

static void
frame_init (Frame *f, const MpRenderIndex *index, const MpRenderLayout *layout,
            const guint8 *colors, const guint8 *highlight)
{
  const MpViewport   *v = &layout->viewport;
  const MpRenderRect *p = &layout->plot;

  f->index = index;
  f->layout = layout;
  f->colors = colors;
  f->highlight = highlight;
  f->sx = p->width / (v->step_max - v->step_min);
  f->sy = p->height / (v->addr_max - v->addr_min);
  f->px0 = p->x;
  f->py1 = p->y + p->height;
  f->gx = (gint) floor (p->x);
  f->gy = (gint) floor (p->y);
  f->gw = (gint) ceil (p->x + p->width) - f->gx;
  f->gh = (gint) ceil (p->y + p->height) - f->gy;
  f->boxes = g_array_sized_new (FALSE, FALSE, sizeof (Box), 1024);
  f->marked = g_array_new (FALSE, FALSE, sizeof (guint));
}

static void
frame_clear (Frame *f)
{
  g_clear_pointer (&f->boxes, g_array_unref);
  g_clear_pointer (&f->marked, g_array_unref);
  g_clear_pointer (&f->cover, g_free);
  g_clear_pointer (&f->diff, g_free);
  g_clear_pointer (&f->point_slot, g_free);
  g_clear_pointer (&f->run_slot, g_free);
}

/* Every record drawn in steps [lo, hi): live at lo, then those starting
 * after it, in that order (the summary's pixels equal the exact ones). */
static void
collect (Frame *f, guint lo, guint hi)
{
  guint begin, end;

  mp_render_index_foreach_at (f->index, lo, visit, f);
  mp_render_index_first_range (f->index, lo + 1, hi, &begin, &end);
  for (guint i = begin; i < end; i++)
    visit (f->index->by_first[i], f);
}

/* The level-of-detail summary (mp_render_index_set_summary): the whole
 * step range drawn once at one scale with step 0 at x = 0, its coverage
 * painted into an image and its boxes kept, so a frame at that scale
 * shifts them into place: pixels, not buffers. */
struct _MpRenderLod
{
  gdouble          sx, sy, addr_min, plot_y, plot_height;
  guint            color_by;
  MpTheme          theme;
  cairo_surface_t *img;        /* the coverage, or NULL where none */
  gint             img_x, img_y;
  GArray          *boxes;      /* Box, unhighlighted colours */
  GArray          *marked;     /* records with gaps or a fixed offset */
  guint           *by_tensor;  /* (tensor, record) pairs sorted, for highlights */
};

/* A summary wider than this many pixels is not made (memory). */
#define LOD_MAX_WIDTH 16384

void
mp_render_lod_free (MpRenderLod *lod)
{
  g_clear_pointer (&lod->img, cairo_surface_destroy);
  g_clear_pointer (&lod->boxes, g_array_unref);
  g_clear_pointer (&lod->marked, g_array_unref);
  g_free (lod->by_tensor);
  g_free (lod);
}

/* Whether the summary is for this view's addresses, height and colours:
 * then it can stand in, stretched, for a view at another scale. */
static gboolean
lod_stretches (const MpRenderLod *lod, const Frame *f, const MpRenderOptions *options)
{
  const MpRenderLayout *layout = f->layout;

  return lod->sy == f->sy && lod->addr_min == layout->viewport.addr_min &&
         lod->plot_y == layout->plot.y && lod->plot_height == layout->plot.height &&
         lod->color_by == (guint) options->color_by && lod->theme == options->theme;
}

static gboolean
lod_matches (const MpRenderLod *lod, const Frame *f, const MpRenderOptions *options)
{
  /* a pan moves both ends of the step range: the scale may differ in its
   * last bits, which over LOD_MAX_WIDTH pixels is far below one */
  return fabs (lod->sx - f->sx) <= 1e-9 * f->sx && lod_stretches (lod, f, options);
}

static MpRenderLod *
lod_new (const Frame *pane, const MpRenderOptions *options, const MpPalette *palette)
{
  const MpRenderIndex *index = pane->index;
  MpRenderLod         *lod = g_new0 (MpRenderLod, 1);
  MpRenderLayout       whole = *pane->layout;
  Frame                f = { 0 };

  lod->sx = pane->sx;
  lod->sy = pane->sy;
  lod->addr_min = whole.viewport.addr_min;
  lod->plot_y = whole.plot.y;
  lod->plot_height = whole.plot.height;
  lod->color_by = options->color_by;
  lod->theme = options->theme;
  whole.viewport.step_min = 0;
  whole.viewport.step_max = index->n_steps;
  whole.plot.x = 0;
  whole.plot.width = index->n_steps * pane->sx;
  frame_init (&f, index, &whole, pane->colors, NULL);
  f.sx = pane->sx;
  collect (&f, 0, index->n_steps);
  if ((lod->img = cover_image (&f, palette)))
    {
      lod->img_x = f.gx + f.bx0;
      lod->img_y = f.gy + f.by0;
    }
  lod->boxes = g_steal_pointer (&f.boxes);
  lod->marked = g_steal_pointer (&f.marked);
  frame_clear (&f);
  return lod;
}

static int
cmp_pair (const void *a, const void *b)
{
  const guint *x = a, *y = b;

  return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : (x[1] > y[1]) - (x[1] < y[1]);
}

/* The records of the followed tensors, drawn as the exact path draws them. */
static void
lod_highlighted (MpRenderLod *lod, Frame *f, const MpRenderOptions *options)
{
  const MpRenderIndex *index = f->index;

  if (lod->by_tensor == NULL)
    {
      lod->by_tensor = g_new (guint, 2 * (gsize) MAX (index->n, 1));
      for (guint r = 0; r < index->n; r++)
        {
          lod->by_tensor[2 * r] = index->plan->records[r].tensor;
          lod->by_tensor[2 * r + 1] = r;
        }
      qsort (lod->by_tensor, index->n, 2 * sizeof (guint), cmp_pair);
    }
  for (guint i = 0; i < options->n_highlight; i++)
    {
      guint a = 0, b = index->n, t = options->highlight[i];

      while (a < b)
        {
          guint mid = a + (b - a) / 2;

          if (lod->by_tensor[2 * mid] < t)
            a = mid + 1;
          else
            b = mid;
        }
      for (; a < index->n && lod->by_tensor[2 * a] == t; a++)
        visit (lod->by_tensor[2 * a + 1], f);
    }
}

/* A summary's box moved (and, stretched, scaled) into the view: NULL
 * when it falls outside. */
static gboolean
place_box (Box *b, gdouble k, gdouble ox, gint left, gint right)
{
  if (k != 1)
    {
      /* stretched: at least a pixel wide, as every box is drawn */
      gint x0 = (gint) floor (b->x0 * k + ox);

      b->x1 = MAX ((gint) ceil (b->x1 * k + ox), x0 + 1);
      b->x0 = x0;
    }
  else
    {
      b->x0 += (gint) ox;
      b->x1 += (gint) ox;
    }
  if (b->x1 <= left || b->x0 >= right)
    return FALSE;
  b->x0 = MAX (b->x0, left);
  b->x1 = MIN (b->x1, right);
  return TRUE;
}

/* The pane drawn from the summary: the coverage image and the boxes shifted
 * by whole pixels to the step range in view; when the summary was made at
 * another scale (it stands in while the new one is made), stretched to
 * this one. */
static void
draw_from_lod (cairo_t *cr, MpRenderLod *lod, Frame *f, const MpRenderOptions *options,
               const MpPalette *palette, MpText *text)
{
  const MpRenderRect *p = &f->layout->plot;
  gdouble             k = lod_matches (lod, f, options) ? 1 : f->sx / lod->sx;
  gdouble             ox = p->x - f->layout->viewport.step_min * f->sx;
  gint                left = (gint) lround (p->x), right = (gint) lround (p->x + p->width);
  const Box          *boxes = (const Box *) (const void *) lod->boxes->data;

  if (k == 1)
    ox = lround (ox);
  if (lod->img)
    {
      cairo_save (cr);
      cairo_translate (cr, ox, 0);
      cairo_scale (cr, k, 1);
      paint_image (cr, lod->img, lod->img_x, lod->img_y,
                   k == 1 ? CAIRO_FILTER_NEAREST : CAIRO_FILTER_BILINEAR);
      if (f->highlight)
        {
          /* the unfollowed dimmed as the exact path's slot colours are:
           * mixed with the background by palette->dim where they cover */
          mp_cairo_set_rgba (cr, palette->background, palette->dim);
          cairo_mask_surface (cr, lod->img, lod->img_x, lod->img_y);
        }
      cairo_restore (cr);
    }
  for (guint i = 0; i < lod->boxes->len; i++)
    {
      Box b = boxes[i];

      if (!place_box (&b, k, ox, left, right))
        continue;
      if (f->highlight)
        {
          if (f->highlight[f->index->plan->records[b.record].tensor])
            continue; /* drawn below as followed */
          b.slot += MP_N_COLORS;
        }
      g_array_append_val (f->boxes, b);
    }
  if (f->highlight)
    lod_highlighted (lod, f, options);
  fill_boxes (cr, f, palette);
  mp_render_draw_constraints (cr, f->index, options, f->layout,
                              (const guint *) (void *) lod->marked->data, lod->marked->len,
                              f->colors, f->highlight);
  if (!(options->flags & MP_RENDER_HIDE_LABELS))
    draw_labels (cr, f, palette, text);
}

/* A summary to make on the summary's thread: the view's layout and keys. */
struct _MpRenderLodJob
{
  MpRenderLayout  layout;
  MpRenderOptions options; /* only its colour key and theme */
  const guint8   *colors;
};

/* about a frame at 60 Hz */
#define LOD_DELAY_US 20000

static gpointer
lod_thread (gpointer data)
{
  MpRenderIndex *index = data;

#ifdef __linux__
  /* a background job: the frame being drawn, and the display server, must
   * not wait for it on a busy machine (Linux's nice is per thread) */
  (void) setpriority (PRIO_PROCESS, (id_t) syscall (SYS_gettid), 10);
#endif
  g_mutex_lock (&index->lod_lock);
  while (index->lod_want != NULL)
    {
      MpRenderLodJob *job;
      Frame           pane = { 0 };
      MpRenderLod    *lod;

      /* the frame that asked is drawn first, from the stretched summary,
       * without this thread beside it; a scale asked meanwhile (a zoom
       * still going on) replaces this one */
      g_mutex_unlock (&index->lod_lock);
      g_usleep (LOD_DELAY_US);
      g_mutex_lock (&index->lod_lock);
      job = g_steal_pointer (&index->lod_want);
      if (job == NULL)
        break; /* stopped meanwhile */
      g_mutex_unlock (&index->lod_lock);
      frame_init (&pane, index, &job->layout, job->colors, NULL);
      lod = lod_new (&pane, &job->options, mp_palette_get (job->options.theme));
      frame_clear (&pane);
      g_free (job);
      g_mutex_lock (&index->lod_lock);
      if (index->summary)
        {
          g_clear_pointer (&index->lod, mp_render_lod_free);
          index->lod = lod;
        }
      else
        mp_render_lod_free (lod);
    }
  /* the thread touches nothing after this: it can be joined under the lock */
  index->lod_busy = FALSE;
  g_mutex_unlock (&index->lod_lock);
  return NULL;
}

static gboolean
job_matches (const MpRenderLodJob *job, const Frame *f, const MpRenderOptions *options)
{
  const MpRenderLayout *a = &job->layout, *b = f->layout;

  return a->plot.width == b->plot.width && a->plot.height == b->plot.height &&
         a->plot.y == b->plot.y && a->viewport.step_max - a->viewport.step_min ==
                                     b->viewport.step_max - b->viewport.step_min &&
         a->viewport.addr_min == b->viewport.addr_min &&
         a->viewport.addr_max == b->viewport.addr_max && job->colors == f->colors &&
         job->options.color_by == options->color_by && job->options.theme == options->theme;
}

/* Asks the summary's thread for this view's summary (under lod_lock). */
static void
lod_request (MpRenderIndex *index, const Frame *f, const MpRenderOptions *options)
{
  MpRenderLodJob *job;

  if (index->lod_busy && index->lod_asked != NULL && job_matches (index->lod_asked, f, options))
    return;
  job = g_new0 (MpRenderLodJob, 1);
  job->layout = *f->layout;
  job->options.color_by = options->color_by;
  job->options.theme = options->theme;
  job->colors = f->colors;
  g_free (index->lod_asked);
  index->lod_asked = g_memdup2 (job, sizeof *job);
  g_free (index->lod_want);
  index->lod_want = job;
  if (!index->lod_busy)
    {
      if (index->lod_thread != NULL)
        g_thread_join (index->lod_thread);
      index->lod_busy = TRUE;
      index->lod_thread = g_thread_new ("memplan-summary", lod_thread, index);
    }
}

void
mp_render_lod_stop (MpRenderIndex *index)
{
  g_mutex_lock (&index->lod_lock);
  g_clear_pointer (&index->lod_want, g_free);
  g_clear_pointer (&index->lod_asked, g_free);
  g_mutex_unlock (&index->lod_lock);
  if (index->lod_thread != NULL)
    g_thread_join (g_steal_pointer (&index->lod_thread));
}

/* Whether this view is drawn from the summary, made or remade here, or
 * asked of its thread with the last one stretched meanwhile: under
 * index->lod_lock, held by the caller. */
static gboolean
use_lod (cairo_t *cr, MpRenderIndex *index, const Frame *f, const MpRenderOptions *options,
         const MpPalette *palette, gdouble s0, gdouble s1)
{
  gdouble              width = index->n_steps * f->sx;
  cairo_surface_type_t type = cairo_surface_get_type (cairo_get_target (cr));

  /* a vector export (PDF, SVG) is drawn exactly, at its own resolution */
  if (type == CAIRO_SURFACE_TYPE_PDF || type == CAIRO_SURFACE_TYPE_SVG ||
      type == CAIRO_SURFACE_TYPE_PS)
    return FALSE;

  /* zoomed in further the exact walk meets a quarter of the buffers or
   * fewer, and a summary would cost more pixels than it saves */
  if (!index->summary || width > LOD_MAX_WIDTH || width > 4 * f->layout->plot.width ||
      index->n * ((s1 - s0) / index->n_steps) < index->lod_min_records)
    return FALSE;
  if (index->lod == NULL || !lod_matches (index->lod, f, options))
    {
      if (index->lod_async && index->lod != NULL && lod_stretches (index->lod, f, options))
        {
          lod_request (index, f, options);
          return TRUE;
        }
      g_clear_pointer (&index->lod, mp_render_lod_free);
      index->lod = lod_new (f, options, palette);
    }
  return TRUE;
}

void
mp_render_draw_timeline (cairo_t *cr, const MpRenderIndex *index, const MpRenderOptions *options,
                         const MpRenderLayout *layout, MpText *text)
{
  const MpPalette    *palette = mp_palette_get (options->theme);
  const MpViewport   *v = &layout->viewport;
  const MpRenderRect *p = &layout->plot;
  g_autofree guint8  *highlight = NULL;
  /* the summary is a cache: made under its lock, whatever the caller's const */
  MpRenderIndex      *mutable = (MpRenderIndex *) index;
  Frame               f = { 0 };
  gdouble             s0 = MAX (v->step_min, 0), s1 = MIN (v->step_max, index->n_steps);

  if (index->n == 0 || s1 <= s0 || p->width < 1 || p->height < 1)
    return;
  if (options->highlight && options->n_highlight > 0)
    {
      highlight = g_new0 (guint8, MAX (index->graph->n_tensors, 1));
      for (guint i = 0; i < options->n_highlight; i++)
        if (options->highlight[i] < index->graph->n_tensors)
          highlight[options->highlight[i]] = 1;
    }

  frame_init (&f, index, layout, index->color + (gsize) options->color_by * index->n, highlight);
  cairo_save (cr);
  cairo_rectangle (cr, p->x, p->y, p->width, p->height);
  cairo_clip (cr);
  g_mutex_lock (&mutable->lod_lock);
  if (use_lod (cr, mutable, &f, options, palette, s0, s1))
    {
      draw_from_lod (cr, mutable->lod, &f, options, palette, text);
      g_mutex_unlock (&mutable->lod_lock);
    }
  else
    {
      g_mutex_unlock (&mutable->lod_lock);
      /* live at the left edge, then those that start inside the view */
      collect (&f, (guint) floor (s0), (guint) ceil (s1));
      paint_cover (cr, &f, palette);
      fill_boxes (cr, &f, palette);
      mp_render_draw_constraints (cr, index, options, layout,
                                  (const guint *) (void *) f.marked->data, f.marked->len,
                                  f.colors, highlight);
      if (!(options->flags & MP_RENDER_HIDE_LABELS))
        draw_labels (cr, &f, palette, text);
    }
  cairo_restore (cr);
  frame_clear (&f);
}
