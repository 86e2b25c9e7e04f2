/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-exec"

#include <string.h>

#include "exec-pattern.h"
#include "exec-private.h"

G_DEFINE_QUARK (mp-exec-error-quark, mp_exec_error)

gboolean
mp_exec_backend_from_string (const char *str, MpExecBackendKind *kind)
{
  static const char *names[] = { "auto", "cpu", "cuda" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (str && g_str_equal (str, names[i]))
      {
        *kind = (MpExecBackendKind) i;
        return TRUE;
      }
  return FALSE;
}

void
mp_exec_add_figure (GArray *figures, const char *label, guint64 bytes)
{
  MpExecFigure f = { g_strdup (label), bytes, NULL };

  g_array_append_val (figures, f);
}

void
mp_exec_add_failed (GArray *figures, const char *label, const char *error)
{
  MpExecFigure f = { g_strdup (label), 0, g_strdup (error) };

  g_array_append_val (figures, f);
}

static void
clear_figure (gpointer data)
{
  g_free (((MpExecFigure *) data)->label);
  g_free (((MpExecFigure *) data)->error);
}

void
mp_exec_result_free (MpExecResult *r)
{
  if (r == NULL)
    return;
  g_free (r->backend);
  g_free (r->device);
  g_free (r->note);
  g_free (r->planner);
  g_free (r->first_corruption);
  g_clear_pointer (&r->baselines, g_array_unref);
  g_free (r);
}

static MpExecBackend *
open_backend (MpExecBackendKind kind, gint device, char **note, GError **error)
{
  g_autoptr (GError) cuda_error = NULL;
  MpExecBackend     *b;

  if (kind == MP_EXEC_BACKEND_CPU)
    return mp_exec_cpu_backend_new (error);
  if ((b = mp_exec_cuda_backend_new (device, &cuda_error)))
    return b;
  if (kind == MP_EXEC_BACKEND_CUDA)
    {
      g_propagate_error (error, g_steal_pointer (&cuda_error));
      return NULL;
    }
  *note = g_strdup_printf (MP_EXEC_NO_DEVICE_NOTE " (%s)", cuda_error->message);
  return mp_exec_cpu_backend_new (error);
}

/* "parallel group 3 (ops 'a', 'b')": the group a barrier step closes. */
static char *
describe_group (const MpExecProgram *p, guint barrier)
{
  g_autoptr (GString) ops = g_string_new (NULL);
  guint               group = p->steps[barrier].group / 2, n = 0;

  for (guint i = 0; i < barrier; i++)
    if (p->steps[i].group == 2 * group && n++ < 3)
      g_string_append_printf (ops, "%s'%s'", n > 1 ? ", " : "",
                              p->graph->ops[p->steps[i].op].name);
  if (n > 3)
    g_string_append_printf (ops, " and %u more", n - 3);
  return g_strdup_printf ("parallel group %u (op%s %s)", group, n == 1 ? "" : "s", ops->str);
}

/* Names the first corruption of an iteration: the earliest region in
 * execution order, the op that checked it, and whose data it found. */
static void
describe (const MpExecProgram *p, MpExecResult *result, guint index, const MpExecCheck *c,
          guint epoch)
{
  const MpExecRegion *r = &g_array_index (p->regions, MpExecRegion, index);
  const MpGraph      *g = p->graph;
  guint               found_epoch = epoch;
  guint               id = mp_exec_identify (p, index, c, epoch, &found_epoch);
  g_autofree char    *what = NULL;
  g_autofree char    *found = NULL;
  g_autofree char    *who = id ? mp_exec_id_name (p, id) : NULL;
  g_autofree char    *when = NULL;
  gint                step = -1;
  gboolean            after = FALSE;
  /* the start of the first bad word: both backends find the same byte, and
   * two tensors' words at one index differ only from their fifth byte */
  guint64             at = MAX (r->lo, c->bad & ~G_GUINT64_CONSTANT (7)) - r->lo;

  for (guint i = 0; i < p->n_steps && step < 0; i++)
    {
      const MpExecStep *st = &p->steps[i];

      after = index >= st->first_post && index < st->first_post + st->n_post;
      if (after || (index >= st->first_check && index < st->first_check + st->n_checks))
        step = i;
    }
  if (r->tensor == G_MAXUINT)
    what = g_strdup ("its workspace");
  else
    what = g_strdup_printf ("%s '%s'", g->tensors[r->tensor].kind == MP_TENSOR_OUTPUT
                            ? "output" : "tensor", g->tensors[r->tensor].name);
  if (found_epoch != epoch)
    when = g_strdup_printf (" (its data of iteration %u)", found_epoch + 1);
  if (id == r->id)
    found = g_strdup_printf ("its own data of iteration %u, not of iteration %u: a write is "
                             "missing", found_epoch + 1, epoch + 1);
  else if (id)
    found = g_strdup_printf ("overwritten by %s%s", who, when ? when : "");
  else
    {
      guint64 word = 0, start = mp_pattern_window_start (r->base + c->bad);
      guint64 w0 = (r->base + c->bad) & ~G_GUINT64_CONSTANT (7);

      for (guint k = 0; k < 8 && w0 + k - start < MP_PATTERN_WINDOW; k++)
        word |= (guint64) c->window[w0 + k - start] << (8 * k);
      found = g_strdup_printf ("holds 0x%016" G_GINT64_MODIFIER "x, data of no tensor", word);
    }

  result->first_tensor = r->tensor == G_MAXUINT ? -1 : (gint) r->tensor;
  result->first_op = step >= 0 && p->steps[step].op != MP_EXEC_BARRIER
                     ? (gint) p->steps[step].op : -1;
  result->first_overwriter = id >= 1 && id <= g->n_tensors && id != r->id ? (gint) id - 1 : -1;
  /* a check after the op: its own outputs, or the group's, overwrote the tensor */
  if (step >= 0 && p->steps[step].op == MP_EXEC_BARRIER)
    {
      g_autofree char *group = describe_group (p, step);

      result->first_corruption = g_strdup_printf ("after %s ran, %s was corrupted at byte %"
                                                  G_GUINT64_FORMAT ": %s", group, what, at,
                                                  found);
    }
  else if (step >= 0 && after && r->tensor != G_MAXUINT)
    result->first_corruption = g_strdup_printf ("after op '%s' ran, %s was corrupted at byte %"
                                                G_GUINT64_FORMAT ": %s",
                                                g->ops[result->first_op].name, what, at, found);
  else if (step >= 0)
    result->first_corruption = g_strdup_printf ("op '%s' found %s corrupted at byte %"
                                                G_GUINT64_FORMAT ": %s",
                                                g->ops[result->first_op].name, what, at, found);
  else
    result->first_corruption = g_strdup_printf ("the final check found %s corrupted at byte %"
                                                G_GUINT64_FORMAT ": %s", what, at,
                                                found);
}

/* Which stream is held back in an iteration: none in the first (free) run,
 * then each in turn; without staggering, the delayed one rotates. */
static guint
slow_stream (const MpExecProgram *p, const MpExecOptions *options, guint iteration)
{
  if (!p->concurrent)
    return G_MAXUINT;
  if (!options->no_stagger)
    return iteration == 0 ? G_MAXUINT : (iteration - 1) % p->n_streams;
  return options->delay_us ? iteration % p->n_streams : G_MAXUINT;
}

MpExecResult *
mp_exec_run (const MpGraph *graph, const MpLifetimes *lifetimes, const MpPlan *plan,
             const MpExecOptions *options, GCancellable *cancellable, GError **error)
{
  static const MpExecOptions defaults = { 0 };
  g_autoptr (MpExecResult) result = g_new0 (MpExecResult, 1);
  g_autoptr (GHashTable) corrupted = g_hash_table_new (NULL, NULL);
  g_autofree MpExecCheck *checks = NULL;
  MpExecProgram *program;
  MpExecBackend *backend;
  gboolean       ok = TRUE;

  g_return_val_if_fail (graph && lifetimes && plan, NULL);
  if (options == NULL)
    options = &defaults;

  if (!(backend = open_backend (options->backend,
                                options->pick_device ? (gint) options->device : -1,
                                &result->note, error)))
    return NULL;
  if (!(program = mp_exec_program_new (graph, lifetimes, plan, options, error)))
    {
      backend->free (backend);
      return NULL;
    }
  result->backend = g_strdup (backend->name);
  result->planner = g_strdup (plan->planner);
  result->concurrent = program->concurrent;
  result->group_order = program->group_order;
  result->n_streams = program->n_streams;
  result->n_groups = program->n_groups;
  result->iterations = options->iterations ? options->iterations
                       : program->concurrent && !options->no_stagger ? 1 + program->n_streams : 1;
  result->first_tensor = result->first_op = result->first_overwriter = -1;
  result->baselines = g_array_new (FALSE, FALSE, sizeof (MpExecFigure));
  g_array_set_clear_func (result->baselines, clear_figure);
  result->planned = program->size[MP_EXEC_BUF_ARENA] + program->size[MP_EXEC_BUF_WORKSPACE];
  result->arena = program->size[MP_EXEC_BUF_ARENA];
  result->workspace = lifetimes->workspace;
  result->n_ws_slots = program->n_ws_slots;

  checks = g_new (MpExecCheck, MAX (program->regions->len, 1));
  if (!backend->prepare (backend, program, result, error))
    ok = FALSE;

  for (guint it = 0; ok && it < result->iterations; it++)
    {
      gdouble seconds = 0;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        {
          ok = FALSE;
          break;
        }
      for (guint i = 0; i < program->regions->len; i++)
        checks[i].bad = G_MAXUINT64;
      if (!backend->iterate (backend, program, it, slow_stream (program, options, it),
                             program->concurrent && !options->no_stagger, options->delay_us,
                             checks, &seconds, error))
        {
          ok = FALSE;
          break;
        }
      for (guint i = 0; i < program->regions->len; i++)
        {
          const MpExecRegion *r = &g_array_index (program->regions, MpExecRegion, i);

          if (checks[i].bad == G_MAXUINT64)
            continue;
          g_hash_table_add (corrupted, GUINT_TO_POINTER (r->id));
          if (result->first_corruption == NULL)
            describe (program, result, i, &checks[i], it);
        }
      /* a held or delayed stream's waits are no traffic: only the free runs
       * count toward the bandwidth */
      if (slow_stream (program, options, it) == G_MAXUINT)
        {
          result->bytes_moved += program->bytes_per_iteration +
                                 (it == 0 ? program->bytes_host : 0);
          result->seconds += seconds;
          result->timed_iterations++;
        }
    }
  result->n_corrupted = g_hash_table_size (corrupted);

  if (ok)
    backend->measure (backend, program, result);
  /* the verdict is in; the replays get the memory the arena held, and one
   * that fails is a row of its own, never the run's result */
  backend->release (backend);
  if (ok && options->baselines)
    {
      guint64 reserved, allocated;

      backend->baselines (backend, program, lifetimes, result->baselines);
      mp_exec_caching_sim (graph, lifetimes, !program->concurrent, &reserved, &allocated);
      mp_exec_add_figure (result->baselines, "caching allocator (PyTorch's) reserved", reserved);
      mp_exec_add_figure (result->baselines, "caching allocator (PyTorch's) allocated", allocated);
    }
  backend->free (backend);
  mp_exec_program_free (program);
  return ok ? g_steal_pointer (&result) : NULL;
}
