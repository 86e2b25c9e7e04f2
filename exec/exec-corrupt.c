/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-exec"

#include "exec-private.h"

/* A victim for record x: a tensor already live when x is first written and
 * still read afterwards, so moving x onto it must show as corruption. */
static gint
find_victim (const MpPlan *plan, guint x)
{
  const MpUsage *rx = &plan->records[x];

  for (guint y = 0; y < plan->n_records; y++)
    {
      const MpUsage *ry = &plan->records[y];

      if (y != x && ry->bytes > 0 && ry->first < rx->first && ry->last > rx->first)
        return y;
    }
  return -1;
}

gboolean
mp_exec_corrupt_plan (const MpGraph *graph, MpPlan *plan, const char *name, char **moved_out,
                      char **victim_out, GError **error)
{
  gint x = -1, y = -1;

  g_return_val_if_fail (graph && plan, FALSE);

  if (name)
    {
      gint t = mp_graph_find_tensor (graph, name);

      if (t < 0)
        {
          g_set_error (error, MP_EXEC_ERROR, MP_EXEC_ERROR_INVALID,
                       "cannot corrupt tensor '%s': graph '%s' has no such tensor", name,
                       graph->name);
          return FALSE;
        }
      t = mp_graph_view_root (graph, t, NULL);
      for (guint i = 0; i < plan->n_records && x < 0; i++)
        if (plan->records[i].tensor == (guint) t)
          x = i;
      if (x < 0)
        {
          g_set_error (error, MP_EXEC_ERROR, MP_EXEC_ERROR_INVALID,
                       "cannot corrupt tensor '%s': it is not in the arena", name);
          return FALSE;
        }
      if (plan->records[x].bytes == 0 || (y = find_victim (plan, x)) < 0)
        {
          g_set_error (error, MP_EXEC_ERROR, MP_EXEC_ERROR_INVALID,
                       "cannot corrupt tensor '%s': no other tensor is live when it is written "
                       "and read after it", name);
          return FALSE;
        }
    }
  else
    for (guint i = 0; i < plan->n_records && y < 0; i++)
      if (plan->records[i].bytes > 0 && (y = find_victim (plan, i)) >= 0)
        x = i;
  if (y < 0)
    {
      g_set_error (error, MP_EXEC_ERROR, MP_EXEC_ERROR_INVALID,
                   "cannot corrupt the plan of graph '%s': no tensor is written while another "
                   "is live and still to be read", graph->name);
      return FALSE;
    }

  plan->offsets[x] = plan->offsets[y];
  mp_plan_finish (plan);
  plan->checked = FALSE;
  if (moved_out)
    *moved_out = g_strdup (graph->tensors[plan->records[x].tensor].name);
  if (victim_out)
    *victim_out = g_strdup (graph->tensors[plan->records[y].tensor].name);
  return TRUE;
}
