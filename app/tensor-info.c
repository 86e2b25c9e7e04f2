/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

#include "tensor-info.h"

/* Consumers listed in a tooltip before "and N more". */
#define MAX_CONSUMERS 6
/* Op stack and Python frame lines of a traced allocation in a tooltip. */
#define MAX_ORIGIN_LINES 8

char *
mp_tensor_shape_string (const MpTensor *tensor)
{
  GString *s;

  if (tensor->n_dims == 0)
    return g_strdup ("—");
  s = g_string_new (NULL);
  for (guint d = 0; d < tensor->n_dims; d++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, d ? "×" : "", tensor->shape[d]);
  return g_string_free (s, FALSE);
}

/* A name from a file as markup: one line, controls and bidi overrides
 * shown (\x0a, \u202e), not obeyed, then escaped for Pango. */
static char *
markup_name (const char *name)
{
  g_autofree char *shown = mp_escape_name (name);

  return g_markup_escape_text (shown, -1);
}

static void
append_consumers (GString *s, const MpGraph *graph, guint tensor)
{
  guint n = 0;

  /* A scan of the ops: one hover, one pass, no index to keep up to date. */
  for (guint o = 0; o < graph->n_ops; o++)
    for (guint i = 0; i < graph->ops[o].n_inputs; i++)
      if (graph->ops[o].inputs[i] == tensor)
        {
          if (n < MAX_CONSUMERS)
            {
              g_autofree char *esc = markup_name (graph->ops[o].name);

              g_string_append_printf (s, "%s%s", n ? ", " : "", esc);
            }
          n++;
          break;
        }
  if (n == 0)
    g_string_append (s, "none");
  else if (n > MAX_CONSUMERS)
    g_string_append_printf (s, " and %u more", n - MAX_CONSUMERS);
}

gint
mp_plan_find_record (const MpPlan *plan, guint hint, guint tensor)
{
  /* Plans keep the lifetimes' record order, except those that measure
   * lifetimes their own way (multistream): then scan. */
  if (hint < plan->n_records && plan->records[hint].tensor == tensor)
    return hint;
  for (guint r = 0; r < plan->n_records; r++)
    if (plan->records[r].tensor == tensor)
      return r;
  return -1;
}

char *
mp_tensor_describe (const MpGraph *graph, const MpLifetimes *lifetimes, const MpPlan *plan,
                    guint tensor)
{
  const MpTensor  *t;
  GString         *s = g_string_new (NULL);
  g_autofree char *name = NULL;
  g_autofree char *shape = NULL;
  g_autofree char *size = NULL;
  gint             rec;

  g_return_val_if_fail (graph != NULL && tensor < graph->n_tensors, NULL);

  t = &graph->tensors[tensor];
  name = markup_name (t->name);
  shape = mp_tensor_shape_string (t);
  size = mp_format_bytes (t->size);
  g_string_append_printf (s, "<b>%s</b>\n", name);
  g_string_append_printf (s, "%s", mp_tensor_kind_to_string (t->kind));
  if (t->dtype != MP_DTYPE_NONE)
    g_string_append_printf (s, ", %s %s", mp_dtype_to_string (t->dtype), shape);
  g_string_append_printf (s, ", %s (%" G_GUINT64_FORMAT " bytes)", size, t->size);
  if (t->view_of >= 0)
    {
      g_autofree char *base = markup_name (graph->tensors[t->view_of].name);

      g_string_append_printf (s, "\nview of %s at +%" G_GUINT64_FORMAT, base, t->view_offset);
    }
  {
    /* an allocation of a PyTorch trace: its op, module and Python frames */
    g_autofree char *origin = mp_trace_describe_origin (graph, tensor, MAX_ORIGIN_LINES);
    g_autofree char *lines = origin ? mp_escape_text (origin) : NULL;
    g_autofree char *esc = lines ? g_markup_escape_text (lines, -1) : NULL;

    if (esc)
      g_string_append_printf (s, "\n%s", esc);
  }

  rec = lifetimes ? lifetimes->record_of[tensor] : -1;
  if (rec >= 0)
    {
      const MpUsage *u = &lifetimes->records[rec];
      gint           r = plan ? mp_plan_find_record (plan, (guint) rec, u->tensor) : -1;
      gboolean       groups = r >= 0 && plan->parallel;
      gint64         first, last;

      /* the plan's own steps (groups for a plan over the parallel schedule,
       * ranks for usage records), as the axis counts them; a file's own
       * times beside them where they differ */
      if (r >= 0)
        u = &plan->records[r];
      g_string_append_printf (s, "\nlive %s %u – %u", groups ? "parallel groups" : "steps",
                              u->first, u->last);
      mp_usage_times (graph, u, &first, &last);
      if (!groups && !graph->has_ops && (first != u->first || last != u->last))
        g_string_append_printf (s, " (times %" G_GINT64_FORMAT " – %" G_GINT64_FORMAT
                                " in the file)", first, last);
      if (r >= 0)
        {
          guint64          in_root = 0;
          guint64          offset;
          g_autofree char *off = NULL;

          mp_graph_view_root (graph, tensor, &in_root);
          offset = plan->offsets[r] + in_root;
          off = mp_format_bytes (offset);
          g_string_append_printf (s, "\noffset %s (%" G_GUINT64_FORMAT ") in %s", off, offset,
                                  plan->planner);
          {
            /* pinned, preferred offset met or missed, alignment, gaps */
            g_autofree char *why = mp_constraint_explain_record (graph, plan, (guint) r);
            g_autofree char *esc = why ? g_markup_escape_text (why, -1) : NULL;

            if (esc)
              g_string_append_printf (s, "\n%s", esc);
          }
        }
    }
  else
    g_string_append (s, "\nnot planned (lives outside the arena)");

  if (graph->has_ops)
    {
      g_string_append (s, "\nproduced by ");
      if (t->producer >= 0)
        {
          g_autofree char *op = markup_name (graph->ops[t->producer].name);

          g_string_append (s, op);
        }
      else
        g_string_append (s, "none (graph input)");
      g_string_append (s, "\nconsumed by ");
      append_consumers (s, graph, tensor);
    }
  return g_string_free (s, FALSE);
}
