/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include "order-private.h"
#include "file-util.h"
#include "text-util.h"

/* The order in words: what each method reached, which ops moved (the
 * fewest ops whose moving explains the new order: all but a longest run
 * that kept its relative order) and what that saved at the peak. */

#define MAX_MOVED_LINES 20

/* Marks in kept the ops of a longest subsequence of order that is
 * increasing in given index (patience sorting). */
static void
longest_kept (const guint *order, guint n, guint8 *kept)
{
  g_autofree guint *tail = g_new (guint, MAX (n, 1)); /* step of the smallest tail per length */
  g_autofree guint *prev = g_new (guint, MAX (n, 1));
  guint             len = 0;

  for (guint s = 0; s < n; s++)
    {
      guint lo = 0, hi = len;

      while (lo < hi)
        {
          guint mid = (lo + hi) / 2;

          if (order[tail[mid]] < order[s])
            lo = mid + 1;
          else
            hi = mid;
        }
      prev[s] = lo > 0 ? tail[lo - 1] : G_MAXUINT;
      tail[lo] = s;
      len = MAX (len, lo + 1);
    }
  for (guint s = len ? tail[len - 1] : G_MAXUINT; s != G_MAXUINT; s = prev[s])
    kept[order[s]] = 1;
}

static void
append_bytes (GString *out, guint64 bytes)
{
  g_autofree char *b = mp_format_bytes (bytes);

  g_string_append (out, b);
}

char *
mp_order_explain (const MpGraph *graph, const MpOrderResult *r, gboolean plan_inputs)
{
  g_autoptr (MpOrderProblem) pb = NULL;
  GString            *out = g_string_new (NULL);
  guint               n = r->n_ops;
  g_autofree guint   *given = g_new (guint, MAX (n, 1));
  g_autofree guint   *pos = g_new (guint, MAX (n, 1));
  g_autofree guint64 *live_given = g_new0 (guint64, MAX (n, 1));
  g_autofree guint64 *live_new = g_new0 (guint64, MAX (n, 1));
  g_autofree guint8  *kept = g_new0 (guint8, MAX (n, 1));
  guint               peak_given = 0, peak_new = 0, n_moved = 0, shown = 0;
  g_autofree char    *peak_op = NULL;
  g_autofree char    *new_peak_op = NULL;

  g_return_val_if_fail (graph != NULL && r != NULL && r->n_ops == graph->n_ops, NULL);

  pb = mp_order_problem_new (graph, plan_inputs);
  for (guint i = 0; i < n; i++)
    {
      given[i] = i;
      pos[r->order[i]] = i;
    }
  mp_order_problem_peak (pb, given, live_given);
  mp_order_problem_peak (pb, r->order, live_new);
  for (guint s = 0; s < n; s++)
    {
      if (live_given[s] > live_given[peak_given])
        peak_given = s;
      if (live_new[s] > live_new[peak_new])
        peak_new = s;
    }

  g_string_append_printf (out, "Order %s", mp_order_method_name (r->method));
  if (r->method >= MP_ORDER_BEST)
    g_string_append_printf (out, " (%s)", r->chosen == MP_ORDER_OPTIMAL
                                            ? "found by the search"
                                            : mp_order_method_name (r->chosen));
  g_string_append (out, ": peak of live bytes ");
  append_bytes (out, r->given_peak);
  g_string_append (out, " in the given order, ");
  append_bytes (out, r->peak);
  g_string_append (out, " in this one");
  if (r->peak < r->given_peak)
    {
      g_string_append (out, ": ");
      append_bytes (out, r->given_peak - r->peak);
      g_string_append_printf (out, " (%.1f%%) saved.\n",
                              100.0 * (r->given_peak - r->peak) / r->given_peak);
    }
  else
    g_string_append (out, ": no order the methods found beats the given one.\n");

  g_string_append (out, "Each method's peak:");
  for (guint m = MP_ORDER_GIVEN; m <= MP_ORDER_OPTIMAL; m++)
    if (r->peaks[m] != G_MAXUINT64)
      {
        g_string_append_printf (out, " %s ", mp_order_method_name (m));
        append_bytes (out, r->peaks[m]);
        g_string_append (out, ";");
      }
  g_string_truncate (out, out->len - 1);
  g_string_append (out, ".\n");
  if (r->method == MP_ORDER_OPTIMAL)
    {
      if (r->proved)
        g_string_append_printf (out, "The search proved this peak the minimum over every order "
                                "(%" G_GUINT64_FORMAT " sets of ops kept, %.2f s).\n", r->states,
                                r->seconds);
      else
        {
          g_string_append (out, "Not proved: no order goes under ");
          append_bytes (out, r->lower_bound);
          g_string_append_printf (out, " (%" G_GUINT64_FORMAT " sets of ops kept, %.2f s).\n",
                                  r->states, r->seconds);
        }
    }
  if (r->note)
    g_string_append_printf (out, "Note: %s.\n", r->note);
  if (n == 0)
    return g_string_free (out, FALSE);

  peak_op = mp_escape_name (graph->ops[peak_given].name);
  new_peak_op = mp_escape_name (graph->ops[r->order[peak_new]].name);
  g_string_append_printf (out, "The given order peaks at step %u, op '%s', with ", peak_given,
                          peak_op);
  append_bytes (out, live_given[peak_given]);
  g_string_append_printf (out, " live; in this order op '%s' runs at step %u with ",
                          peak_op, pos[peak_given]);
  append_bytes (out, live_new[pos[peak_given]]);
  g_string_append (out, " live");
  if (live_new[pos[peak_given]] < live_given[peak_given])
    {
      g_string_append (out, " (");
      append_bytes (out, live_given[peak_given] - live_new[pos[peak_given]]);
      g_string_append (out, " less)");
    }
  g_string_append_printf (out, ".\nThis order peaks at step %u, op '%s', with ", peak_new,
                          new_peak_op);
  append_bytes (out, live_new[peak_new]);
  g_string_append (out, " live.\n");

  longest_kept (r->order, n, kept);
  for (guint o = 0; o < n; o++)
    n_moved += !kept[o];
  if (n_moved == 0)
    {
      g_string_append (out, "No op moved.\n");
      return g_string_free (out, FALSE);
    }
  g_string_append_printf (out, "%u %s moved (the others keep their relative order):\n", n_moved,
                          n_moved == 1 ? "op" : "ops");
  for (guint s = 0; s < n && shown < MAX_MOVED_LINES; s++)
    {
      guint o = r->order[s];

      if (kept[o])
        continue;
      g_autofree char *op = mp_escape_name (graph->ops[o].name);
      g_autofree char *before = s > 0 ? mp_escape_name (graph->ops[r->order[s - 1]].name) : NULL;

      g_string_append_printf (out, "  op '%s': step %u -> %u", op, o, s);
      if (s > 0)
        g_string_append_printf (out, ", now after '%s'", before);
      else
        g_string_append (out, ", now first");
      g_string_append (out, "; live bytes while it runs ");
      append_bytes (out, live_given[o]);
      g_string_append (out, " -> ");
      append_bytes (out, live_new[s]);
      g_string_append (out, "\n");
      shown++;
    }
  if (shown < n_moved)
    g_string_append_printf (out, "  … and %u more\n", n_moved - shown);
  return g_string_free (out, FALSE);
}
