/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libmemplan-1 from C: open any input, run planners, judge, write, draw.
 *   cc plan.c $(pkg-config --cflags --libs memplan-1) -o plan
 *   ./plan /usr/local/share/memplan/default.json plan.png */
#include <string.h>
#include <memplan-render.h>

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MpWorkload) w = NULL;
  g_autoptr (MpPlanRun) run = NULL;
  const MpPlannerInfo *infos[] = { mp_planner_lookup ("greedy-by-size"),
                                   mp_planner_lookup ("best-fit") };
  g_autofree char *json = NULL;
  MpRenderIndex   *index;
  MpRenderOptions  options = { 0 };
  gint             best;

  if (argc != 3)
    {
      g_printerr ("usage: %s INPUT OUT.png\n", argv[0]);
      return 2;
    }
  /* a graph, ONNX model, CSV, PyTorch trace or snapshot: by its content */
  if (!(w = mp_workload_open (argv[1], NULL, &error)))
    {
      g_printerr ("%s\n", error->message); /* names the file and what is wrong */
      return 1;
    }
  if (!(run = mp_workload_run (w, infos, G_N_ELEMENTS (infos), NULL, NULL, &error)))
    {
      g_printerr ("%s\n", error->message);
      return 1;
    }
  for (guint i = 0; i < run->plans->len; i++)
    {
      MpPlan          *plan = run->plans->pdata[i];
      g_autofree char *verdict = mp_plan_verdict (plan);

      g_print ("%-16s arena %" G_GUINT64_FORMAT " B, lower bound %" G_GUINT64_FORMAT " B: %s\n",
               plan->planner, plan->arena, plan->lower_bound, verdict);
    }
  best = mp_plans_best ((MpPlan * const *) run->plans->pdata, run->plans->len);
  if (best < 0)
    return 1;
  /* memplan.plan/1 JSON, as memplan-cli plan -f json writes it */
  json = mp_plan_to_json (w->graph, (MpPlan **) &run->plans->pdata[best], 1);
  g_print ("%zu bytes of JSON for %s\n", strlen (json), ((MpPlan *) run->plans->pdata[best])->planner);
  index = mp_render_index_new (w->graph, run->plans->pdata[best]);
  if (!mp_render_write_file (argv[2], MP_RENDER_FORMAT_PNG, &index, 1, &options, 1600, 1000,
                             &error))
    {
      g_printerr ("%s\n", error->message);
      mp_render_index_free (index);
      return 1;
    }
  mp_render_index_free (index);
  return 0;
}
