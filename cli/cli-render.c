/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cli-render.h"

/* "A:B", inclusive steps, into a viewport's step range. */
/* render with memories: one pane per memory of plan's planner, fastest
 * first, the spilled tensors marked; the panes draw *spill's plans, so
 * free the panes first. NULL and error set on bad memories or a planner
 * that fails. */
static GPtrArray *
spill_panes (MpWorkload *w, const MpPlan *plan, const MpCliPlanning *planning,
                    char **specs, MpSpill **spill, GError **error)
{
  g_autoptr (GArray) memories = mp_cli_memories (w->graph, specs, error);
  const MpPlannerInfo *info = mp_planner_lookup (plan->planner);
  MpPlannerOptions     options = { 0 };
  GPtrArray           *panes;

  if (memories == NULL || info == NULL)
    return NULL;
  options.time_budget = planning->budget;
  options.max_parallel_ops = MAX (planning->max_parallel, 0);
  if (!(*spill = mp_spill_plan (w->graph, w->lifetimes, info, (MpMemory *) memories->data,
                                memories->len, &options, NULL, error)))
    return NULL;
  panes = g_ptr_array_new_with_free_func ((GDestroyNotify) mp_render_index_free);
  for (guint k = 0; k < (*spill)->n_memories; k++)
    {
      g_autoptr (GArray) moved = g_array_new (FALSE, FALSE, sizeof (guint));
      MpPlan        **p = &(*spill)->plans[k];
      MpRenderIndex  *index;

      if (*p == NULL)
        *p = mp_plan_new_records (plan->planner, NULL, 0, w->lifetimes->n_steps,
                                  w->lifetimes->alignment);
      for (guint i = 0; i < (*spill)->n_records; i++)
        if ((*spill)->memory_of[i] == k && (*spill)->spilled[i])
          g_array_append_val (moved, w->lifetimes->records[i].tensor);
      mp_workload_judge (w, *p);
      index = mp_render_index_new (w->graph, *p);
      mp_render_index_set_memory (index, (*spill)->memories[k].name,
                                  (*spill)->memories[k].capacity,
                                  (const guint *) (void *) moved->data, moved->len);
      g_ptr_array_add (panes, index);
    }
  return panes;
}

static gboolean
parse_steps (const char *str, MpViewport *viewport)
{
  g_auto (GStrv) parts = g_strsplit (str, ":", -1);
  guint64        a, b;

  if (g_strv_length (parts) != 2 ||
      !g_ascii_string_to_unsigned (parts[0], 10, 0, G_MAXUINT32, &a, NULL) ||
      !g_ascii_string_to_unsigned (parts[1], 10, 0, G_MAXUINT32, &b, NULL) || a > b)
    {
      mp_cli_error ("--steps: expected FIRST:LAST with FIRST <= LAST (e.g. 10:40), got '%s'", str);
      return FALSE;
    }
  viewport->step_min = a;
  viewport->step_max = b + 1;
  return TRUE;
}

static gboolean
parse_highlight (const MpGraph *graph, char **names, GArray *out)
{
  for (guint i = 0; names && names[i]; i++)
    {
      g_auto (GStrv) parts = g_strsplit (names[i], ",", -1);

      for (guint j = 0; parts[j]; j++)
        {
          gint t;

          if (*parts[j] == '\0')
            continue;
          if ((t = mp_graph_find_tensor (graph, parts[j])) < 0)
            {
              mp_cli_error ("%s: --highlight: no tensor named '%s'",
                            graph->path ? graph->path : graph->name, parts[j]);
              return FALSE;
            }
          g_array_append_val (out, t);
        }
    }
  return TRUE;
}

int
mp_cli_render (int argc, char **argv)
{
  g_auto (MpCliPlanning) planning = { .default_planners = "greedy-by-size" };
  g_auto (GStrv) highlight_names = NULL;
  g_autofree char *output = NULL;
  g_autofree char *color_by = NULL;
  g_autofree char *theme = NULL;
  g_autofree char *steps = NULL;
  g_autofree char *plans_path = NULL;
  g_auto (GStrv)   memory_specs = NULL;
  g_autoptr (MpSpill) spill = NULL;
  gint             width = 1600, height = 0;
  gboolean         dark = FALSE, shared_scale = FALSE, bench = FALSE, curves = FALSE;
  g_autofree char *scale = NULL;
  g_autofree guint *order = NULL;
  gint             bench_tensors = 100000;
  g_autofree char *page = NULL;
  MpRenderOutput   out = { MP_PAGE_A4, FALSE, 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (MpWorkload) w = NULL;
  g_autoptr (MpPlanRun) run = NULL;
  g_autoptr (GPtrArray) loaded = NULL;
  GPtrArray       *plans;
  const MpGraph   *graph;
  g_autoptr (GPtrArray) indices = g_ptr_array_new_with_free_func ((GDestroyNotify) mp_render_index_free);
  g_autoptr (GArray) highlight = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GOptionContext) ctx = NULL;
  MpRenderOptions  options = { 0 };
  MpRenderFormat   format = MP_RENDER_FORMAT_PNG;
  gboolean         all_valid = TRUE;
  guint            n_ranked;
  GOptionEntry     entries[] = {
    { "plans", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_FILENAME, &plans_path, "Same as --plan",
      "PLANFILE" },
    { "plan", 0, 0, G_OPTION_ARG_FILENAME, &plans_path, "Draw the plans of this plan file "
      "(memplan-cli plan --format json, or a CSV with offsets) instead of running planners",
      "PLANFILE" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Picture to write (atomically): .png, "
      ".svg or .pdf", "OUT" },
    { "width", 'W', 0, G_OPTION_ARG_INT, &width, "Width in pixels (PNG) or points (default 1600)",
      "W" },
    { "height", 'H', 0, G_OPTION_ARG_INT, &height, "Height (default 1000; 380 + 330 per plan when "
      "stacked)", "H" },
    { "page", 0, 0, G_OPTION_ARG_STRING, &page, "PDF and SVG paper, landscape: a4 (default), "
      "letter, or none (--width × --height points)", "PAGE" },
    { "one-page", 0, 0, G_OPTION_ARG_NONE, &out.one_page, "PDF: every plan on one page "
      "(default: one plan a page)", NULL },
    { "dpi", 0, 0, G_OPTION_ARG_DOUBLE, &out.dpi, "PNG: resolution; the picture keeps its layout "
      "in dpi/96 times the pixels (default 96)", "DPI" },
    { "color-by", 'c', 0, G_OPTION_ARG_STRING, &color_by, "Colour key: kind, op, stream, size "
      "(default: kind for graphs, op for usage records)", "KEY" },
    { "theme", 't', 0, G_OPTION_ARG_STRING, &theme, "light (default) or dark", "THEME" },
    { "dark", 0, 0, G_OPTION_ARG_NONE, &dark, "Same as --theme dark", NULL },
    { "steps", 0, 0, G_OPTION_ARG_STRING, &steps, "Show only steps FIRST to LAST (inclusive)",
      "FIRST:LAST" },
    { "highlight", 0, 0, G_OPTION_ARG_STRING_ARRAY, &highlight_names, "Follow these tensors: "
      "drawn framed, every other dimmed (repeatable or comma-separated)", "TENSOR" },
    { "scale", 0, 0, G_OPTION_ARG_STRING, &scale, "Stacked plans: common (default: one byte "
      "scale for all, so sizes compare at a glance) or own (each plan its own arena)", "SCALE" },
    { "shared-scale", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_NONE, &shared_scale,
      "Same as --scale common", NULL },
    { "curves", 0, 0, G_OPTION_ARG_NONE, &curves, "With --order: draw the live bytes over time "
      "of the given order and of the chosen one on one axis, with the saving, instead of plans",
      NULL },
    { "memory", 0, 0, G_OPTION_ARG_STRING_ARRAY, &memory_specs, "A memory, fastest first, "
      "repeated (NAME or NAME=SIZE; default: the graph's \"memories\"): draw the best plan's "
      "planner one pane per memory, with each capacity and the spilled tensors", "NAME[=SIZE]" },
    { "bench", 0, 0, G_OPTION_ARG_NONE, &bench, "Time drawing frames of a generated graph "
      "instead (no FILE)", NULL },
    { "tensors", 'n', 0, G_OPTION_ARG_INT, &bench_tensors, "--bench: tensors in the generated "
      "graph (default 100000)", "N" },
    { NULL }
  };

  ctx = g_option_context_new ("FILE — draw plans of a graph (JSON, ONNX), usage records (CSV), or a "
                              "PyTorch trace or snapshot");
  g_option_context_set_summary (ctx, "Draws each tensor as a rectangle from its first to its last "
                                     "step at its offset, with the arena and lower-bound lines, "
                                     "the live bytes per step and the free space.");
  mp_cli_add_planning (ctx, &planning, MP_CLI_ALL_PLANNING);
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!mp_cli_parse (ctx, &argc, &argv, 0, 1))
    return MP_EXIT_BAD_INPUT;
  if (argc != (bench ? 1 : 2))
    {
      mp_cli_error (bench ? "--bench draws a generated graph: give no FILE"
                          : "which graph? give one FILE (see --help)");
      return MP_EXIT_BAD_INPUT;
    }

  if (color_by && !mp_color_by_from_string (color_by, &options.color_by))
    {
      mp_cli_error ("unknown colour key '%s' (known: kind, op, stream, size)", color_by);
      return MP_EXIT_BAD_INPUT;
    }
  if (dark || (theme && g_str_equal (theme, "dark")))
    options.theme = MP_THEME_DARK;
  else if (theme && !g_str_equal (theme, "light"))
    {
      mp_cli_error ("unknown theme '%s' (known: light, dark)", theme);
      return MP_EXIT_BAD_INPUT;
    }
  if (steps && !parse_steps (steps, &options.viewport))
    return MP_EXIT_BAD_INPUT;
  if (page && !mp_render_page_from_string (page, &out.page))
    {
      mp_cli_error ("unknown page '%s' (known: a4, letter, none)", page);
      return MP_EXIT_BAD_INPUT;
    }
  if (out.dpi != 0 && (out.dpi < 24 || out.dpi > 1200))
    {
      mp_cli_error ("--dpi must be between 24 and 1200");
      return MP_EXIT_BAD_INPUT;
    }
  if (scale && !g_str_equal (scale, "common") && !g_str_equal (scale, "own"))
    {
      mp_cli_error ("unknown scale '%s' (known: common, own)", scale);
      return MP_EXIT_BAD_INPUT;
    }
  if (scale && shared_scale && g_str_equal (scale, "own"))
    {
      mp_cli_error ("--shared-scale and --scale own exclude each other");
      return MP_EXIT_BAD_INPUT;
    }
  /* stacked plans compare only on one scale: naive's 696 MiB must look
   * taller than optimal's 191 MiB */
  options.shared_scale = scale == NULL || g_str_equal (scale, "common");
  if (bench)
    {
      if (!mp_cli_check_int ("--tensors", bench_tensors, 1, MP_CLI_MAX_TENSORS))
        return MP_EXIT_BAD_INPUT;
      return mp_cli_render_bench (bench_tensors, width, height > 0 ? height : 1000, &options,
                                  output);
    }

  if (output == NULL)
    {
      mp_cli_error ("choose the picture to write with -o OUT.png, OUT.svg or OUT.pdf");
      return MP_EXIT_BAD_INPUT;
    }
  if (!mp_render_format_from_path (output, &format, &error) ||
      !mp_cli_check_output (output, &error))
    {
      mp_cli_error ("%s", error->message);
      return MP_EXIT_BAD_INPUT;
    }
  if (plans_path && memory_specs)
    {
      mp_cli_error ("--memory plans each memory: it does not go with --plan");
      return MP_EXIT_BAD_INPUT;
    }
  if (plans_path && planning.planner_names)
    {
      mp_cli_error ("--plan and --planner exclude each other");
      return MP_EXIT_BAD_INPUT;
    }
  if (!mp_cli_planning_check (&planning))
    return MP_EXIT_BAD_INPUT;

  if (curves && (planning.order_method == MP_ORDER_GIVEN || plans_path))
    {
      mp_cli_error ("--curves compares the given order with another: choose it with --order "
                    "(and no --plan)");
      return MP_EXIT_BAD_INPUT;
    }
  if (!(w = mp_cli_open (argv[1], &planning)))
    return MP_EXIT_BAD_INPUT;
  if (curves)
    return mp_cli_order_curves (w, &planning, output, format, &options, width,
                                height > 0 ? height : 500)
             ? MP_EXIT_OK : MP_EXIT_BAD_INPUT;
  graph = w->graph;
  /* usage records have one kind: tell neighbours apart by start step instead */
  if (color_by == NULL && !graph->has_ops)
    options.color_by = MP_COLOR_BY_OP;
  if (!parse_highlight (graph, highlight_names, highlight))
    return MP_EXIT_BAD_INPUT;
  options.highlight = (const guint *) (void *) highlight->data;
  options.n_highlight = highlight->len;

  if (plans_path)
    {
      if (!(loaded = mp_plan_load (plans_path, graph, w->lifetimes, &error)))
        {
          mp_cli_error ("%s", error->message);
          return MP_EXIT_BAD_INPUT;
        }
      plans = loaded;
      for (guint i = 0; i < plans->len; i++)
        mp_workload_judge (w, plans->pdata[i]);
    }
  else
    {
      if (!mp_cli_check_plan_memory (&planning, w))
        return MP_EXIT_BAD_INPUT;
      if (!(run = mp_cli_run (w, &planning)))
        return MP_EXIT_FAILED;
      for (guint i = 0; i < run->reasons->len; i++)
        mp_cli_error ("skipped: %s", (const char *) run->reasons->pdata[i]);
      plans = run->plans;
    }
  if (plans->len == 0)
    {
      mp_cli_error ("%s: no plan to draw", argv[1]);
      return MP_EXIT_BAD_INPUT;
    }
  /* the winner first, then by the same rule (one plan: nothing to rank) */
  order = g_new (guint, plans->len);
  n_ranked = mp_plans_rank ((MpPlan * const *) plans->pdata, plans->len, order);
  for (guint k = 0; k < plans->len; k++)
    {
      MpPlan *p = plans->pdata[order[k]];

      all_valid &= p->valid;
      g_ptr_array_add (indices, mp_render_index_new (graph, p));
      if (p == w->observed)
        mp_render_index_set_segments (indices->pdata[k], w->trace);
      /* a plan file's spill: each memory's plan with its capacity line */
      if (p->memory)
        mp_render_index_set_memory (indices->pdata[k], p->memory, p->capacity, NULL, 0);
      if (plans->len > 1 && k < n_ranked)
        mp_render_index_set_rank (indices->pdata[k], k + 1);
    }

  /* several memories: the winner's planner, one pane per memory instead */
  if (!plans_path && (memory_specs || graph->n_memories))
    {
      GPtrArray *panes = spill_panes (w, plans->pdata[order[0]], &planning, memory_specs,
                                             &spill, &error);

      if (panes == NULL)
        {
          mp_cli_error ("%s", error->message);
          return MP_EXIT_BAD_INPUT;
        }
      g_ptr_array_unref (indices);
      indices = panes;
      all_valid = TRUE;
      for (guint k = 0; k < spill->n_memories; k++)
        all_valid &= spill->plans[k]->valid;
      plans = g_ptr_array_new ();
      for (guint k = 0; k < spill->n_memories; k++)
        g_ptr_array_add (plans, spill->plans[k]);
      loaded = plans; /* NULL before: no --plan; the spill owns the plans */
      /* the strip would show the first memory's live bytes as the graph's */
      options.flags |= MP_RENDER_HIDE_CURVE;
      if (height <= 0)
        height = 130 + 400 * (gint) spill->n_memories;
    }
  /* stacked: the memory strip over the plans, then a band per plan */
  if (height <= 0)
    height = plans->len == 1 ? 1000 : MIN (130 + 250 + 330 * (gint) plans->len, 20000);
  if (!mp_render_write_output (output, format, (MpRenderIndex * const *) indices->pdata,
                               indices->len, &options, &out, width, height, &error))
    {
      mp_cli_error ("%s", error->message);
      return MP_EXIT_BAD_INPUT;
    }
  if (!all_valid)
    {
      for (guint i = 0; i < plans->len; i++)
        {
          MpPlan          *p = plans->pdata[i];
          g_autofree char *verdict = mp_plan_verdict (p);

          if (!p->valid)
            mp_cli_error ("%s: drawn anyway: %s", p->planner, verdict);
        }
      return MP_EXIT_FAILED;
    }
  return MP_EXIT_OK;
}
