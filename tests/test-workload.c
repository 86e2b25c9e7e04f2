/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The one planner loop (mp_workload_run): the same plans on one thread or
 * many, in the order asked; its events; the handles that own the plans;
 * skipped and failed planners; the memory limit; cancellation; the
 * asynchronous run's progress on the caller's context. */
#include <gio/gio.h>

#include "memplan-analysis.h"
#include "test-util.h"

static MpWorkload *
open_sample (const char *relative, guint64 max_memory)
{
  g_autofree char   *path = test_data_path (relative);
  g_autoptr (GError) error = NULL;
  MpWorkloadOptions  options = { .max_memory = max_memory };
  MpWorkload        *w = mp_workload_open (path, &options, &error);

  g_assert_no_error (error);
  return w;
}

/* Every planner but the search, in table order. */
static GPtrArray *
heuristics (void)
{
  guint                n;
  const MpPlannerInfo *infos = mp_planners (&n);
  GPtrArray           *out = g_ptr_array_new ();

  for (guint i = 0; i < n; i++)
    if (!(infos[i].traits & MP_PLANNER_SEARCHES))
      g_ptr_array_add (out, (gpointer) &infos[i]);
  return out;
}

typedef struct
{
  GArray  *events;   /* MpRunEvent */
  GArray  *indices;  /* guint */
  GThread *thread;   /* where the events must come */
  guint    searching;
} Events;

static void
record_event (const MpRunProgress *p, gpointer data)
{
  Events *e = data;

  g_assert_true (g_thread_self () == e->thread);
  if (p->event == MP_RUN_SEARCHING)
    {
      g_assert_nonnull (p->search);
      g_assert_cmpuint (p->search->arena, >=, p->search->lower_bound);
      e->searching++;
      return;
    }
  g_array_append_val (e->events, p->event);
  g_array_append_val (e->indices, p->index);
  if (p->event == MP_RUN_DONE)
    {
      g_assert_nonnull (p->plan);
      g_assert_true (p->plan->checked);
      g_assert_cmpstr (p->plan->planner, ==, p->planner->name);
    }
}

/* STARTED i, DONE i, STARTED i + 1, …: each planner starts after the one
 * before it is done, whatever ran in parallel. */
static void
assert_in_order (const Events *e, guint n)
{
  g_assert_cmpuint (e->events->len, ==, 2 * n);
  for (guint i = 0; i < n; i++)
    {
      g_assert_cmpint (g_array_index (e->events, MpRunEvent, 2 * i), ==, MP_RUN_STARTED);
      g_assert_cmpint (g_array_index (e->events, MpRunEvent, 2 * i + 1), ==, MP_RUN_DONE);
      g_assert_cmpuint (g_array_index (e->indices, guint, 2 * i), ==, i);
      g_assert_cmpuint (g_array_index (e->indices, guint, 2 * i + 1), ==, i);
    }
}

/* The first n plans of each are the same (n = 0: all, as many in each). */
static void
assert_same_plans (const MpPlanRun *a, const MpPlanRun *b, guint n)
{
  if (n == 0)
    {
      g_assert_cmpuint (a->plans->len, ==, b->plans->len);
      n = a->plans->len;
    }
  for (guint i = 0; i < n; i++)
    {
      const MpPlan *p = a->plans->pdata[i], *q = b->plans->pdata[i];

      g_assert_cmpstr (p->planner, ==, q->planner);
      g_assert_cmpuint (p->arena, ==, q->arena);
      g_assert_cmpint (p->valid, ==, q->valid);
      g_assert_cmpmem (p->offsets, sizeof (guint64) * p->n_records, q->offsets,
                       sizeof (guint64) * q->n_records);
    }
}

static void
test_threads (void)
{
  g_autoptr (MpWorkload) w = open_sample ("zoo/unet.json", 0);
  g_autoptr (GPtrArray) infos = heuristics ();
  g_autoptr (GArray) events = g_array_new (FALSE, FALSE, sizeof (MpRunEvent));
  g_autoptr (GArray) indices = g_array_new (FALSE, FALSE, sizeof (guint));
  Events             e = { events, indices, g_thread_self () };
  MpRunOptions       one = { .n_threads = 1 };
  MpRunOptions       many = { .n_threads = 4, .progress = record_event, .progress_data = &e };
  g_autoptr (GError) error = NULL;
  g_autoptr (MpPlanRun) a = mp_workload_run (w, (const MpPlannerInfo * const *) infos->pdata,
                                             infos->len, &one, NULL, &error);
  g_autoptr (MpPlanRun) b = NULL;

  g_assert_no_error (error);
  b = mp_workload_run (w, (const MpPlannerInfo * const *) infos->pdata, infos->len, &many, NULL,
                       &error);
  g_assert_no_error (error);
  g_assert_cmpuint (a->plans->len, ==, infos->len);
  assert_same_plans (a, b, 0);
  assert_in_order (&e, infos->len);
  g_assert_true (a->all_valid);
  g_assert_cmpuint (a->skipped->len, ==, 0);
  g_assert_null (a->handles);
}

/* A handle from plan_made owns its plan: each is made once, on some
 * thread, and freed once when the run goes. */
typedef struct
{
  MpPlan *plan;
  gint   *alive;
} Handle;

static gpointer
make_handle (MpWorkload *w, MpPlan *plan, gpointer data)
{
  Handle *h = g_new (Handle, 1);

  g_assert_true (plan->checked);
  h->plan = plan;
  h->alive = data;
  g_atomic_int_inc (h->alive);
  return h;
}

static void
free_handle (gpointer data)
{
  Handle *h = data;

  g_atomic_int_add (h->alive, -1);
  mp_plan_free (h->plan);
  g_free (h);
}

static void
test_handles (void)
{
  g_autoptr (MpWorkload) w = open_sample ("default.json", 0);
  g_autoptr (GPtrArray) infos = heuristics ();
  gint               alive = 0;
  MpRunOptions       options = { .n_threads = 0, .plan_made = make_handle,
                                 .handle_free = free_handle, .plan_made_data = &alive };
  g_autoptr (GError) error = NULL;
  MpPlanRun         *run = mp_workload_run (w, (const MpPlannerInfo * const *) infos->pdata,
                                            infos->len, &options, NULL, &error);

  g_assert_no_error (error);
  g_assert_cmpint (alive, ==, (gint) infos->len);
  g_assert_cmpuint (run->handles->len, ==, run->plans->len);
  for (guint i = 0; i < run->plans->len; i++)
    g_assert_true (((Handle *) run->handles->pdata[i])->plan == run->plans->pdata[i]);
  mp_plan_run_free (run);
  g_assert_cmpint (alive, ==, 0);
}

/* Usage records have no ops: a planner that needs them is skipped with its
 * reason, told as a DONE without a plan, and the others run. */
static void
skip_event (const MpRunProgress *p, gpointer data)
{
  if (p->event == MP_RUN_DONE && p->plan == NULL)
    {
      g_assert_error (p->error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_UNSUPPORTED);
      (*(guint *) data)++;
    }
}

static void
test_skipped (void)
{
  g_autoptr (MpWorkload) w = open_sample ("minimalloc/example.12.csv", 0);
  const MpPlannerInfo *infos[] = { mp_planner_lookup ("greedy-by-size"),
                                   mp_planner_lookup ("greedy-by-breadth"),
                                   mp_planner_lookup ("first-fit") };
  guint              skipped = 0;
  MpRunOptions       options = { .progress = skip_event, .progress_data = &skipped };
  g_autoptr (GError) error = NULL;
  g_autoptr (MpPlanRun) run = mp_workload_run (w, infos, G_N_ELEMENTS (infos), &options, NULL,
                                               &error);

  g_assert_no_error (error);
  g_assert_cmpuint (skipped, ==, 1);
  g_assert_cmpuint (run->plans->len, ==, 2);
  g_assert_cmpuint (run->skipped->len, ==, 1);
  g_assert_true (run->skipped->pdata[0] == infos[1]);
  g_assert_nonnull (strstr (run->reasons->pdata[0], "greedy-by-breadth"));
  g_assert_cmpstr (((MpPlan *) run->plans->pdata[1])->planner, ==, "first-fit");
}

/* The memory limit is the workload's: the load is refused before the file
 * is read, the planners before they run, each with its own error code. */
static void
test_memory (void)
{
  g_autofree char   *path = test_data_path ("default.json");
  g_autoptr (GError) error = NULL;
  MpWorkloadOptions  tiny = { .max_memory = 1 };
  g_autoptr (MpWorkload) w = mp_workload_open (path, &tiny, &error);
  g_autoptr (MpPlanRun) run = NULL;
  const MpPlannerInfo *info = mp_planner_lookup ("naive");

  g_assert_null (w);
  g_assert_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_MEMORY);
  g_assert_true (g_str_has_prefix (error->message, path));
  g_assert_nonnull (strstr (error->message, ": loading needs about "));
  g_clear_error (&error);

  w = open_sample ("default.json", G_MAXUINT64);
  w->max_memory = 1;
  run = mp_workload_run (w, &info, 1, NULL, NULL, &error);
  g_assert_null (run);
  g_assert_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_MEMORY);
  g_assert_nonnull (strstr (error->message, ": planning "));
  g_clear_error (&error);

  w->max_memory = G_MAXUINT64;
  run = mp_workload_run (w, &info, 1, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (run->plans->len, ==, 1);
}

static void
test_cancelled (void)
{
  g_autoptr (MpWorkload) w = open_sample ("default.json", 0);
  g_autoptr (GPtrArray) infos = heuristics ();
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  MpRunOptions       options = { .n_threads = 2 };
  g_autoptr (GError) error = NULL;
  g_autoptr (MpPlanRun) run = NULL;

  g_cancellable_cancel (cancellable);
  run = mp_workload_run (w, (const MpPlannerInfo * const *) infos->pdata, infos->len, &options,
                         cancellable, &error);
  g_assert_null (run);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

static void
async_done (GObject *source, GAsyncResult *result, gpointer data)
{
  *(GAsyncResult **) data = g_object_ref (result);
}

/* The asynchronous run tells its progress on the caller's context, the
 * search's among it (D is not proved within the budget, so the search runs
 * past the second after which it reports), and gives the same plans as the
 * synchronous one. */
static void
test_async (void)
{
  g_autoptr (MpWorkload) w = open_sample ("minimalloc/D.1048576.csv", 0);
  const MpPlannerInfo *infos[] = { mp_planner_lookup ("first-fit"),
                                   mp_planner_lookup ("best-fit"),
                                   mp_planner_lookup ("optimal") };
  g_autoptr (GArray) events = g_array_new (FALSE, FALSE, sizeof (MpRunEvent));
  g_autoptr (GArray) indices = g_array_new (FALSE, FALSE, sizeof (guint));
  Events             e = { events, indices, g_thread_self () };
  MpRunOptions       options = { .planner.time_budget = 1.5, .n_threads = 2,
                                 .progress = record_event, .progress_data = &e };
  MpRunOptions       sync = { .planner.time_budget = 1.5 };
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (MpPlanRun) run = NULL;
  g_autoptr (MpPlanRun) again = NULL;

  mp_workload_run_async (w, infos, G_N_ELEMENTS (infos), &options, NULL, async_done, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  run = mp_workload_run_finish (result, &error);
  g_assert_no_error (error);
  assert_in_order (&e, G_N_ELEMENTS (infos));
  /* the heuristics' plans are the synchronous run's, exactly */
  again = mp_workload_run (w, infos, 2, &sync, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (run->plans->len, ==, 3);
  assert_same_plans (run, again, 2); /* the search's plan depends on the clock */
  g_assert_cmpuint (e.searching, >=, 1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analysis/workload/run/threads", test_threads);
  g_test_add_func ("/analysis/workload/run/handles", test_handles);
  g_test_add_func ("/analysis/workload/run/skipped", test_skipped);
  g_test_add_func ("/analysis/workload/run/memory", test_memory);
  g_test_add_func ("/analysis/workload/run/cancelled", test_cancelled);
  g_test_add_func ("/analysis/workload/run/async", test_async);
  return g_test_run ();
}
