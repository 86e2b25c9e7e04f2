/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cli.h"
#include "cli-render.h"

/* --order on the CLI: what the order stage did, and each planner's arena in
 * the given order next to the chosen one, so the user sees which lever
 * (the order or the layout) gave what. */

gboolean
mp_cli_parse_order (const char *str, MpOrderMethod *method)
{
  g_autofree char *names = NULL;

  *method = MP_ORDER_GIVEN;
  if (str == NULL || mp_order_method_from_string (str, method))
    return TRUE;
  names = mp_order_method_names (", ");
  mp_cli_error ("unknown order '%s' (known: %s)", str, names);
  return FALSE;
}

char *
mp_cli_order_summary (const MpWorkload *w)
{
  const MpOrderResult *r = w->order;
  g_autofree char     *given = NULL, *peak = NULL, *saved = NULL;
  GString             *s;

  if (r == NULL)
    return NULL;
  given = mp_format_bytes (r->given_peak);
  peak = mp_format_bytes (r->peak);
  s = g_string_new (NULL);
  g_string_append_printf (s, "order %s", mp_order_method_name (r->method));
  if (r->method >= MP_ORDER_BEST)
    g_string_append_printf (s, " (%s)", r->chosen == MP_ORDER_OPTIMAL
                                          ? "search" : mp_order_method_name (r->chosen));
  g_string_append_printf (s, ": peak of live bytes %s in the given order, %s in this one (%.3f s)",
                          given, peak, r->seconds);
  if (r->peak < r->given_peak)
    {
      saved = mp_format_bytes (r->given_peak - r->peak);
      g_string_append_printf (s, ", %s (%.1f%%) saved", saved,
                              100.0 * (r->given_peak - r->peak) / r->given_peak);
    }
  if (r->method == MP_ORDER_OPTIMAL)
    {
      g_autofree char *lb = mp_format_bytes (r->lower_bound);

      if (r->proved)
        g_string_append (s, "; proved minimum");
      else
        g_string_append_printf (s, "; not proved, no order under %s", lb);
    }
  if (r->note)
    g_string_append_printf (s, "\nnote: %s", r->note);
  return g_string_free (s, FALSE);
}

gboolean
mp_cli_order_compare (GString *out, MpWorkload *w, MpPlanRun *run, MpCliPlanning *p)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MpWorkload) given = NULL;
  g_autoptr (MpPlanRun) given_run = NULL;
  g_autofree guint *identity = NULL;
  g_autofree char  *summary = mp_cli_order_summary (w);
  MpWorkloadOptions options;
  MpGraph          *copy;

  if (summary == NULL)
    return TRUE;
  g_string_append_printf (out, "%s\n", summary);
  identity = g_new (guint, MAX (w->given_graph->n_ops, 1));
  for (guint i = 0; i < w->given_graph->n_ops; i++)
    identity[i] = i;
  mp_cli_workload_options (p, &options);
  options.order = MP_ORDER_GIVEN;
  if (!(copy = mp_graph_reorder (w->given_graph, identity, &error)) ||
      !(given = mp_workload_new (copy, &options, &error)) ||
      !(given_run = mp_cli_run (given, p)))
    {
      if (error)
        mp_cli_error ("%s", error->message);
      return FALSE;
    }
  g_string_append_printf (out, "%-18s %14s %14s %14s %8s\n", "planner", "arena (given)",
                          "arena (order)", "saved", "share");
  for (guint i = 0; i < run->plans->len; i++)
    {
      MpPlan          *after = run->plans->pdata[i];
      MpPlan          *before = mp_plan_run_find (given_run, after->planner);
      g_autofree char *a = NULL, *b = NULL, *d = NULL;
      gboolean         less;

      if (before == NULL)
        continue;
      less = after->arena <= before->arena;
      b = mp_format_bytes (before->arena);
      a = mp_format_bytes (after->arena);
      d = mp_format_bytes (less ? before->arena - after->arena : after->arena - before->arena);
      if (!less)
        {
          char *neg = g_strconcat ("-", d, NULL);

          g_free (d);
          d = neg;
        }
      g_string_append_printf (out, "%-18s %14s %14s %14s %7.1f%%\n", after->planner, b, a, d,
                              before->arena ? 100.0 * ((gdouble) before->arena - after->arena) /
                                              before->arena : 0.0);
    }
  return TRUE;
}

/* render --curves only: not in the light program, which has no renderer */
#ifndef MP_CLI_LIGHT
gboolean
mp_cli_order_curves (MpWorkload *w, MpCliPlanning *p, const char *path, MpRenderFormat format,
                     const MpRenderOptions *options, gint width, gint height)
{
  g_autoptr (GError) error = NULL;
  const MpOrderResult *r = w->order;
  guint                n = w->given_graph->n_ops;
  g_autofree guint    *identity = g_new (guint, MAX (n, 1));
  g_autofree guint64  *given = g_new0 (guint64, MAX (n, 1));
  g_autofree guint64  *chosen = g_new0 (guint64, MAX (n, 1));

  for (guint i = 0; i < n; i++)
    identity[i] = i;
  mp_order_peak (w->given_graph, identity, p->plan_inputs, given);
  mp_order_peak (w->given_graph, r->order, p->plan_inputs, chosen);
  if (!mp_render_order_write (path, format, given, chosen, n, mp_order_method_name (r->method),
                              options, width, height, &error))
    {
      mp_cli_error ("%s", error->message);
      return FALSE;
    }
  return TRUE;
}
#endif
