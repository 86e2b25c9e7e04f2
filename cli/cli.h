/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>
#include "memplan-analysis.h"

G_BEGIN_DECLS

/* Exit statuses shared by every subcommand. */
enum
{
  MP_EXIT_OK = 0,
  MP_EXIT_FAILED = 1,    /* the job ran and found a problem (invalid plan, regression) */
  MP_EXIT_BAD_INPUT = 2, /* unreadable or malformed input, bad usage */
  MP_EXIT_UNAVAILABLE = 3, /* exec: the backend asked for cannot run here, or failed */
};

typedef struct
{
  const char *name;
  const char *summary;
  int (*run) (int argc, char **argv);
} MpCliCommand;

/* The whole program: main() (main.c) and the CLI fuzz target call it. */
int  mp_cli_main     (int argc, char **argv);
int  mp_cli_plan     (int argc, char **argv);
int  mp_cli_validate (int argc, char **argv);
int  mp_cli_bench    (int argc, char **argv);
int  mp_cli_gen      (int argc, char **argv);
int  mp_cli_import   (int argc, char **argv);
int  mp_cli_suite    (int argc, char **argv);
int  mp_cli_compare  (int argc, char **argv);
int  mp_cli_diff     (int argc, char **argv);
int  mp_cli_exec     (int argc, char **argv);
int  mp_cli_render   (int argc, char **argv);
int  mp_cli_bench_optimal (int argc, char **argv);
int  mp_cli_bench_order (int argc, char **argv);
int  mp_cli_explain  (int argc, char **argv);
/* The light program (cli-full.c): whether the command line is one for the
 * whole CLI (render, exec), and running it there. */
gboolean mp_cli_needs_full (int argc, char **argv);
int      mp_cli_full_main  (int argc, char **argv);

/* Prints "memplan-cli: message" on stderr. */
void mp_cli_error    (const char *format, ...) G_GNUC_PRINTF (1, 2);
/* Parses options; on error or bad positional count prints usage and returns FALSE. */
gboolean mp_cli_parse (GOptionContext *context, int *argc, char ***argv, int min_args,
                       int max_args);
/* Writes to path atomically, or to stdout when path is NULL or "-". */
gboolean mp_cli_output (const char *path, const char *contents, GError **error);
/* The same for text meant for a terminal (tables, explanations, Markdown):
 * control characters in names shown escaped, \x1b (mp_escape_text). */
gboolean mp_cli_output_text (const char *path, const char *text, GError **error);
/* The same for bytes that may hold NULs (pictures). */
gboolean mp_cli_output_bytes (const char *path, const char *data, gsize length, GError **error);
/* Writes what printf left buffered now (progress lines of a long run);
 * FALSE when standard output cannot take it, which it has reported. */
gboolean mp_cli_flush_stdout (void);
/* mp_cli_output's refusals alone (an input file, a directory), for writers
 * of their own; NULL and "-" (standard output) pass. */
gboolean mp_cli_check_output (const char *path, GError **error);
/* An input named by an option rather than by position (exec --plan), which
 * -o must not replace either. */
void     mp_cli_add_input    (const char *path);
/* --alignment: 0 (the graph's own) or a power of two up to 2^30; says why not. */
gboolean mp_cli_check_alignment (gint64 alignment);
/* The one range check of numeric options: TRUE when min <= value <= max,
 * else it prints "--OPTION must be from MIN to MAX, not VALUE". A double
 * that is not a number or infinite is refused. */
gboolean mp_cli_check_int    (const char *option, gint64 value, gint64 min, gint64 max);
gboolean mp_cli_check_double (const char *option, gdouble value, gdouble min, gdouble max);
/* Tensors a generated graph may have (gen random, bench, render --bench). */
#define MP_CLI_MAX_TENSORS 100000000
/* Parses "--planner a,b" or "all" into planner infos. */
GPtrArray *mp_cli_planners (char **names, GError **error);

/* The bytes each op of a trace allocated and held at its peak, heaviest at
 * the peak first: import --by-op and plan --by-op (cli-by-op.c). */
char *mp_cli_by_op_table (const MpTrace *trace);

/* The planning options (cli-options.c), by concern. */
typedef enum
{
  MP_CLI_PLANNERS  = 1 << 0, /* --planner */
  MP_CLI_LIFETIMES = 1 << 1, /* --alignment, --plan-inputs */
  MP_CLI_SCHEDULE  = 1 << 2, /* --max-parallel-ops */
  MP_CLI_SEARCH    = 1 << 3, /* --time-budget, --capacity */
  MP_CLI_DEVICE    = 1 << 4, /* --device */
  MP_CLI_MODEL     = 1 << 5, /* --dim, --views-as-copies (ONNX) */
  MP_CLI_ORDER     = 1 << 6, /* --order, --order-budget */
  MP_CLI_CONCURRENCY = 1 << 7, /* --schedule concurrent|sequential */
  MP_CLI_ALL_PLANNING = 0xff,
} MpCliPlanningFlags;

typedef struct
{
  const char        *default_planners; /* "a,b"; NULL: all */
  char             **planner_names;
  gint64             alignment;
  gboolean           plan_inputs;
  gint               max_parallel;
  gdouble            budget;
  gint64             capacity;
  char              *device;
  char             **dims;             /* ONNX: "NAME=VALUE" */
  gboolean           views_as_copies;
  gboolean           drop_pre_existing; /* traces: leave out blocks from before the trace */
  GPtrArray         *infos;            /* const MpPlannerInfo *, after the check */
  char              *max_memory;       /* --max-memory SIZE, or NULL: the memory available */
  guint64            load_estimate;    /* what opening the input was estimated to take */
  char              *order;            /* --order METHOD, or NULL: given */
  gdouble            order_budget;     /* --order-budget S */
  MpOrderMethod      order_method;     /* after the check */
  char              *schedule;         /* --schedule NAME, or NULL: concurrent where streams are */
  MpPlanSchedule     plan_schedule;    /* after the check */
  /* private */
  MpCliPlanningFlags flags;
  char              *planner_help;
  char              *budget_help;
  GArray            *entries;
  gboolean           progressed;
} MpCliPlanning;

/* plan --memory: per planner, each memory's arena and what spilled
 * (cli-memories.c); FALSE with error on a bad --memory. */
GArray  *mp_cli_memories    (const MpGraph *graph, char **specs, GError **error);
GPtrArray *mp_cli_spills    (const MpWorkload *w, const MpPlanRun *run,
                             const MpCliPlanning *planning, char **specs, GError **error);
void     mp_cli_spill_table (GString *out, const MpWorkload *w, const MpPlanRun *run,
                             GPtrArray *spills);

void        mp_cli_add_planning     (GOptionContext *context, MpCliPlanning *p,
                                     MpCliPlanningFlags flags);
/* After parsing: ranges and planner names; prints why not. */
gboolean    mp_cli_planning_check   (MpCliPlanning *p);
void        mp_cli_workload_options (const MpCliPlanning *p, MpWorkloadOptions *options);
void        mp_cli_planner_options  (MpCliPlanning *p, MpPlannerOptions *options);
/* --max-memory SIZE, one help text for every subcommand that reads a file. */
#define MP_CLI_MAX_MEMORY_ENTRY(ptr) \
  { "max-memory", 0, 0, G_OPTION_ARG_STRING, (ptr), "Refuse work estimated to need more than " \
    "SIZE (512M, 8G; default: the memory available)", "SIZE" }
/* Refuses work estimated to need more memory than --max-memory (text, or
 * NULL: the memory available); prints why, with the estimate. */
gboolean    mp_cli_check_memory     (const char *what, guint64 estimate, const char *max_memory);
/* The same before reading path, whose estimate goes to *load_estimate. */
gboolean    mp_cli_check_load_memory (const char *path, const char *max_memory,
                                      guint64 *load_estimate);
/* The same for work on what was loaded: under --max-memory, the load
 * estimate counts too. */
gboolean    mp_cli_check_more_memory (const char *what, guint64 estimate, guint64 load_estimate,
                                      const char *max_memory);
/* The same for running the planners infos (const MpPlannerInfo *) on the
 * opened workload (mp_workload_check_memory), and for the chosen planners. */
gboolean    mp_cli_check_planners_memory (GPtrArray *infos, MpWorkload *workload);
gboolean    mp_cli_check_plan_memory (MpCliPlanning *p, MpWorkload *workload);
/* Opens path through the engine; prints the error. */
MpWorkload *mp_cli_open             (const char *path, MpCliPlanning *p);
/* --order NAME (NULL: given) into *method; prints why not. */
gboolean    mp_cli_parse_order      (const char *str, MpOrderMethod *method);
/* What the order stage did (--order other than given), a line or two for
 * a table; NULL when the order is the given one. */
char       *mp_cli_order_summary    (const MpWorkload *workload);
/* The summary, then each planner of run next to its arena in the given
 * order (planned again here); TRUE when there is no order to compare. */
gboolean    mp_cli_order_compare    (GString *out, MpWorkload *workload, MpPlanRun *run,
                                     MpCliPlanning *p);
/* Runs the chosen planners; prints the error. */
MpPlanRun  *mp_cli_run              (MpWorkload *workload, MpCliPlanning *p);
void        mp_cli_planning_clear   (MpCliPlanning *p);

typedef struct
{
  char       *output;
  char       *format;
  /* private */
  const char *formats;
  char       *format_help;
  GArray     *entries;
} MpCliOutput;

/* -o FILE, and --format when formats ("table, json, csv") is given. */
void        mp_cli_add_output       (GOptionContext *context, MpCliOutput *o, const char *formats);
gboolean    mp_cli_output_check     (MpCliOutput *o);
gboolean    mp_cli_output_is        (const MpCliOutput *o, const char *format);
void        mp_cli_output_clear     (MpCliOutput *o);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (MpCliPlanning, mp_cli_planning_clear)
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (MpCliOutput, mp_cli_output_clear)

G_END_DECLS
