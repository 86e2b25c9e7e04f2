/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "memplan-window.h"

G_BEGIN_DECLS

/* The command line's requests for the first window, carried out once it has
 * planned (scripted-run.c). */
typedef struct
{
  GApplication *app;           /* quit when a request is done */
  char         *screenshot;    /* save the window (or the step-through) here */
  char         *select;
  char         *hover;         /* print where this tensor is drawn */
  char         *loading_shots; /* --screenshot-loading PREFIX */
  guint         loading_shot;  /* the next of them: 0 loading, 1 first view, 2 done */
  gint          cursor;        /* -1: leave it */
  gint          first_step;    /* --steps FIRST:LAST, the panes' step range; */
  gint          last_step;     /* last < first: all */
  gint          width;         /* of the step-through window; 0: default */
  gint          height;
  gboolean      show_live;
  gboolean      show_by_op;
  gboolean      benchmark;
  gint          bench_tensors;
  char         *bench_file;    /* the generated graph, removed by clear */
  gint64        started;       /* µs, when the command line was read */
  gdouble       heuristics_seconds; /* --benchmark: until every heuristic's pane was drawn */
  gboolean      heuristics_shown;   /* ... shown; drawn at the next frame */
  gdouble       first_view_seconds; /* --benchmark: until the first pane was drawn */
  gboolean      first_view_shown;
  gdouble       first_view_cpu;     /* the process's CPU seconds then (every thread) */
  gdouble       heuristics_cpu;
  gint          status;        /* exit status */
  char         *step_through;  /* teaching mode for this planner once planned */
  gint          step;          /* at this decision (from 1) */
} MpScriptedRun;

/* Carries out the requests when the window's first planning ends. */
void  mp_scripted_run_watch       (MpScriptedRun *self, MpWindow *window);
/* --benchmark without a file: a generated graph of bench_tensors tensors. */
char *mp_scripted_run_bench_graph (MpScriptedRun *self, GError **error);
void  mp_scripted_run_clear       (MpScriptedRun *self);

G_END_DECLS
