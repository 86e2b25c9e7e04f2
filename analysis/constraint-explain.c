/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

/* Post-hoc reasons for a constrained buffer's place: read off the plan
 * itself (its offsets and the records' constraints), so they hold for
 * every planner, traced or not. */

#include "constraint-explain.h"
#include "lifetimes.h"

static const char *
name_of (const MpGraph *graph, const MpUsage *r)
{
  return graph && r->tensor < graph->n_tensors ? graph->tensors[r->tensor].name : "?";
}

/* The first record that keeps r off offset x, or -1. */
static gint
blocker_at (const MpPlan *plan, guint r, guint64 x)
{
  for (guint j = 0; j < plan->n_records; j++)
    if (j != r && mp_usage_collide (&plan->records[r], x, &plan->records[j], plan->offsets[j],
                                    FALSE))
      return (gint) j;
  return -1;
}

/* The top of the highest buffer below r's offset that r could not overlap:
 * where r would sit without its alignment. */
static guint64
floor_below (const MpPlan *plan, guint r)
{
  const MpUsage *rec = &plan->records[r];
  guint64        x = plan->offsets[r], floor = 0;

  for (guint j = 0; j < plan->n_records; j++)
    {
      const MpUsage *o = &plan->records[j];
      gint64         size;

      if (j == r || plan->offsets[j] >= x || !mp_usage_effective_size (o, rec, FALSE, &size))
        continue;
      if (plan->offsets[j] + (guint64) MAX (size, 0) <= x)
        floor = MAX (floor, plan->offsets[j] + (guint64) MAX (size, 0));
    }
  return floor;
}

/* The records that use r's space during its gap k. */
static void
append_gap_users (GString *s, const MpGraph *graph, const MpPlan *plan, guint r, guint k)
{
  const MpUsage *rec = &plan->records[r];
  const MpGap   *g = &rec->gaps[k];
  MpUsage        whole = *rec;
  guint          n = 0;

  /* the same buffer without its gaps, over the gap alone */
  whole.n_gaps = 0;
  whole.first = (guint) g->first;
  whole.last = (guint) g->last;
  for (guint j = 0; j < plan->n_records; j++)
    if (j != r && mp_usage_collide (&whole, plan->offsets[r], &plan->records[j],
                                    plan->offsets[j], FALSE))
      {
        if (n < 3)
          g_string_append_printf (s, "%s%s", n ? ", " : "", name_of (graph, &plan->records[j]));
        n++;
      }
  if (n > 3)
    g_string_append_printf (s, " and %u more", n - 3);
}

char *
mp_constraint_explain_record (const MpGraph *graph, const MpPlan *plan, guint r)
{
  const MpUsage *rec;
  GString       *s;
  guint64        x;

  g_return_val_if_fail (plan != NULL && r < plan->n_records, NULL);
  rec = &plan->records[r];
  x = plan->offsets[r];
  s = g_string_new (NULL);
#define SEP() (s->len ? "; " : "")
  if (rec->flags & MP_USAGE_FIXED)
    g_string_append_printf (s, "pinned at %" G_GUINT64_FORMAT " (fixed_offset)", x);
  if ((rec->flags & MP_USAGE_PREFERRED) && rec->preferred == x)
    g_string_append_printf (s, "%sat its preferred offset %" G_GUINT64_FORMAT, SEP (), x);
  else if (rec->flags & MP_USAGE_PREFERRED)
    {
      gint b = blocker_at (plan, r, rec->preferred);

      if (b >= 0)
        g_string_append_printf (s, "%spreferred %" G_GUINT64_FORMAT " taken by %s, placed at %"
                                G_GUINT64_FORMAT, SEP (), rec->preferred,
                                name_of (graph, &plan->records[b]), x);
      else
        g_string_append_printf (s, "%spreferred %" G_GUINT64_FORMAT " not taken (free, but %s), "
                                "placed at %" G_GUINT64_FORMAT, SEP (), rec->preferred,
                                rec->preferred % MAX (rec->align, 1) ? "not aligned"
                                                                     : "the planner went lower",
                                x);
    }
  if (!(rec->flags & MP_USAGE_FIXED) && rec->align > 1 && rec->align > plan->alignment)
    {
      guint64 floor = floor_below (plan, r);

      if (floor < x && floor % rec->align != 0 && mp_align_up (floor, rec->align) == x)
        g_string_append_printf (s, "%saligned to %" G_GUINT64_FORMAT ": offset rounded up from %"
                                G_GUINT64_FORMAT, SEP (), rec->align, floor);
    }
  for (guint k = 0; k < rec->n_gaps; k++)
    {
      gsize before = s->len;

      g_string_append_printf (s, "%sduring its gap %" G_GINT64_FORMAT "–%" G_GINT64_FORMAT " ",
                              SEP (), rec->gaps[k].first, rec->gaps[k].last);
      {
        gsize names = s->len;

        append_gap_users (s, graph, plan, r, k);
        if (s->len == names)
          g_string_truncate (s, before);
        else
          g_string_append (s, rec->gaps[k].windowed ? " used its space outside its window"
                                                    : " used its space");
      }
    }
#undef SEP
  if (s->len == 0)
    {
      g_string_free (s, TRUE);
      return NULL;
    }
  return g_string_free (s, FALSE);
}

char *
mp_constraint_explain (const MpGraph *graph, const MpPlan *plan)
{
  GString *s = g_string_new (NULL);

  g_return_val_if_fail (plan != NULL, NULL);
  for (guint r = 0; r < plan->n_records; r++)
    {
      g_autofree char *why = mp_constraint_explain_record (graph, plan, r);

      if (why)
        g_string_append_printf (s, "%s: %s\n", name_of (graph, &plan->records[r]), why);
    }
  if (s->len == 0)
    {
      g_string_free (s, TRUE);
      return NULL;
    }
  return g_string_free (s, FALSE);
}
