/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-exec"

#include <string.h>

#include "exec-cuda-kernels.h"
#include "exec-private.h"

/* The CUDA backend: the same program as the CPU's, captured from one host
 * thread onto one cudaStream_t per graph stream, with an event recorded
 * after every step and waited on where the program says; each iteration is
 * then replayed as one CUDA graph, so launch-bound programs measure memory
 * traffic, not launch overhead. */
typedef struct
{
  MpExecBackend parent;
  MpCuda       *cu;
  guint64       arena_taken;
  guint64       all_taken;
  guint         launches;     /* in the last iteration */
} MpExecCuda;

static gboolean
failed (int rc, const char *err, GError **error)
{
  if (rc == 0)
    return FALSE;
  g_set_error (error, MP_EXEC_ERROR,
               rc == MP_CUDA_NO_MEMORY ? MP_EXEC_ERROR_NO_MEMORY : MP_EXEC_ERROR_FAILED,
               "%s", err);
  return TRUE;
}

static gboolean
cuda_prepare (MpExecBackend *self, const MpExecProgram *p, MpExecResult *result, GError **error)
{
  MpExecCuda              *c = (MpExecCuda *) self;
  guint                    n = p->regions->len;
  g_autofree MpCudaRegion *regions = g_new (MpCudaRegion, MAX (n, 1));
  char                     err[512] = "";

  for (guint i = 0; i < n; i++)
    {
      const MpExecRegion *r = &g_array_index (p->regions, MpExecRegion, i);

      regions[i] = (MpCudaRegion) { r->buffer, r->tag, r->base, r->lo, r->hi };
    }
  if (failed (mp_cuda_setup (c->cu, p->size, regions, n, p->n_streams, p->n_steps,
                             &c->arena_taken, &c->all_taken, err, sizeof err), err, error))
    return FALSE;
  result->device = g_strdup (mp_cuda_device_name (c->cu));
  return TRUE;
}

/* One step on its stream: its waits, checks, writes, post-checks, then the
 * event the later steps wait on. */
static guint32
tag_of (const MpExecProgram *p, guint region, guint epoch)
{
  return mp_exec_tag (p, &g_array_index (p->regions, MpExecRegion, region), epoch);
}

static int
enqueue_step (MpExecCuda *c, const MpExecProgram *p, guint k, guint epoch, gboolean held,
              gboolean stagger, guint delay_us, char *err, size_t len)
{
  const MpExecStep *st = &p->steps[k];
  guint             end = held && stagger ? st->n_waits + st->n_yield : st->n_waits;
  int               rc = 0;

  for (guint n = 0; rc == 0 && n < end; n++)
    {
      guint             i = n < st->n_waits ? st->first_wait + n
                                            : st->first_yield + n - st->n_waits;
      const MpExecWait *w = &g_array_index (p->waits, MpExecWait, i);
      guint             step = p->stream_steps[p->stream_first[w->stream] + w->count - 1];

      rc = mp_cuda_wait (c->cu, st->stream, step, err, len);
    }
  if (rc == 0 && held && delay_us)
    rc = mp_cuda_delay (c->cu, st->stream, delay_us, err, len);
  for (guint i = st->first_check; rc == 0 && i < st->first_check + st->n_checks; i++)
    rc = mp_cuda_check (c->cu, st->stream, i, tag_of (p, i, epoch), err, len);
  for (guint i = st->first_write; rc == 0 && i < st->first_write + st->n_writes; i++)
    rc = mp_cuda_fill (c->cu, st->stream, i, tag_of (p, i, epoch), err, len);
  for (guint i = st->first_post; rc == 0 && i < st->first_post + st->n_post; i++)
    rc = mp_cuda_check (c->cu, st->stream, i, tag_of (p, i, epoch), err, len);
  for (guint i = st->first_refill; rc == 0 && i < st->first_refill + st->n_refill; i++)
    rc = mp_cuda_fill (c->cu, st->stream, i, tag_of (p, i, epoch), err, len);
  if (rc == 0)
    rc = mp_cuda_record (c->cu, st->stream, k, err, len);
  return rc;
}

/* The iteration's work, captured: setup writes, the steps group by group
 * (a held stream's step waits for the other steps of its group, so it is
 * enqueued after them), then the final checks on stream 0 once every stream
 * has joined it. */
static int
enqueue_iteration (MpExecCuda *c, const MpExecProgram *p, guint epoch, guint slow,
                   gboolean stagger, guint delay_us, char *err, size_t len)
{
  int rc = 0;

  for (guint i = p->first_setup; rc == 0 && i < p->first_setup + p->n_setup; i++)
    if (epoch == 0 || g_array_index (p->regions, MpExecRegion, i).buffer != MP_EXEC_BUF_HOST)
      rc = mp_cuda_fill (c->cu, 0, i, tag_of (p, i, epoch), err, len);
  if (rc == 0)
    rc = mp_cuda_fan_out (c->cu, err, len);
  for (guint a = 0, b; rc == 0 && a < p->n_steps; a = b)
    {
      for (b = a; b < p->n_steps && p->steps[b].group == p->steps[a].group; b++)
        ;
      for (guint pass = 0; rc == 0 && pass < 2; pass++)
        for (guint k = a; rc == 0 && k < b; k++)
          {
            gboolean held = p->steps[k].stream == slow;

            if ((pass == 1) == (held && stagger))
              rc = enqueue_step (c, p, k, epoch, held, stagger, delay_us, err, len);
          }
    }
  if (rc == 0)
    rc = mp_cuda_join (c->cu, err, len);
  for (guint i = p->first_final; rc == 0 && i < p->first_final + p->n_final; i++)
    rc = mp_cuda_check (c->cu, 0, i, tag_of (p, i, epoch), err, len);
  return rc;
}

static gboolean
cuda_iterate (MpExecBackend *self, const MpExecProgram *p, guint epoch, guint slow,
              gboolean stagger, guint delay_us, MpExecCheck *checks, gdouble *seconds,
              GError **error)
{
  MpExecCuda *c = (MpExecCuda *) self;
  char        err[512] = "";

  G_STATIC_ASSERT (sizeof (MpExecCheck) == sizeof (MpCudaCheck));
  if (failed (mp_cuda_reset_checks (c->cu, err, sizeof err), err, error) ||
      failed (mp_cuda_capture_begin (c->cu, err, sizeof err), err, error))
    return FALSE;
  if (failed (enqueue_iteration (c, p, epoch, slow, stagger, delay_us, err, sizeof err), err,
              error))
    {
      mp_cuda_capture_abort (c->cu);
      return FALSE;
    }
  if (failed (mp_cuda_capture_run (c->cu, seconds, err, sizeof err), err, error) ||
      failed (mp_cuda_sync (c->cu, err, sizeof err), err, error) ||
      failed (mp_cuda_read_checks (c->cu, (MpCudaCheck *) checks, err, sizeof err), err, error))
    return FALSE;
  c->launches = mp_cuda_launches (c->cu);
  return TRUE;
}

static void
cuda_measure (MpExecBackend *self, const MpExecProgram *p, MpExecResult *result)
{
  MpExecCuda *c = (MpExecCuda *) self;

  /* the arena's own allocation, and the most device memory the run held
   * (buffers, streams, events, the instantiated graph) */
  result->measured = c->arena_taken;
  result->process_peak = MAX (c->all_taken, mp_cuda_peak_taken (c->cu));
  result->n_workers = p->n_streams;
  result->launches = c->launches;
  result->peak_bandwidth = mp_cuda_peak (c->cu);
}

static void
cuda_release (MpExecBackend *self)
{
  mp_cuda_release (((MpExecCuda *) self)->cu);
}

/* One replay; a failure becomes the row, naming the tensor it failed on. */
static gboolean
replay (MpExecCuda *c, const MpExecProgram *p, gboolean pool, const MpCudaReplay *ev, guint n_ev,
        const char *label, GArray *figures, guint64 *a, guint64 *b)
{
  char     err[512] = "";
  uint32_t at = 0;
  int      rc = mp_cuda_replay (c->cu, pool, ev, n_ev, p->graph->n_tensors, a, b, &at, err,
                                sizeof err);
  g_autofree char *why = NULL;

  if (rc == 0)
    return TRUE;
  if (at < n_ev && rc == MP_CUDA_NO_MEMORY)
    {
      g_autofree char *size = mp_format_bytes (ev[at].bytes);

      why = g_strdup_printf ("out of memory allocating %s for tensor '%s' (%s)", size,
                             p->graph->tensors[ev[at].tensor].name, err);
    }
  else if (at < n_ev)
    why = g_strdup_printf ("%s, at tensor '%s'", err, p->graph->tensors[ev[at].tensor].name);
  else
    why = g_strdup (err);
  mp_exec_add_failed (figures, label, why);
  return FALSE;
}

static void
cuda_baselines (MpExecBackend *self, const MpExecProgram *p, const MpLifetimes *lt,
                GArray *figures)
{
  MpExecCuda              *c = (MpExecCuda *) self;
  guint                    n = lt->n_records;
  g_autofree MpUsage      *by_first = mp_exec_sorted_records (lt, TRUE);
  g_autofree MpUsage      *by_last = mp_exec_sorted_records (lt, FALSE);
  g_autofree MpCudaReplay *ev = g_new (MpCudaReplay, MAX (2 * n, 1));
  g_autofree guint        *stream = g_new0 (guint, MAX (p->graph->n_tensors, 1));
  guint                    n_ev = 0, f = 0, l = 0;
  guint64                  a = 0, b = 0;

  /* a tensor lives on the stream of the op that makes it */
  for (guint i = 0; p->concurrent && i < p->n_steps; i++)
    {
      const MpOp *op = p->steps[i].op == MP_EXEC_BARRIER ? NULL : &p->graph->ops[p->steps[i].op];

      for (guint k = 0; op && k < op->n_outputs; k++)
        stream[mp_graph_view_root (p->graph, op->outputs[k], NULL)] = p->steps[i].stream;
    }
  for (guint step = 0; step < lt->n_steps; step++)
    {
      for (; f < n && by_first[f].first == step; f++)
        ev[n_ev++] = (MpCudaReplay) { by_first[f].tensor, 1, by_first[f].bytes,
                                      stream[by_first[f].tensor] };
      for (; l < n && by_last[l].last == step; l++)
        ev[n_ev++] = (MpCudaReplay) { by_last[l].tensor, 0, 0, stream[by_last[l].tensor] };
    }
  if (replay (c, p, FALSE, ev, n_ev, "cudaMalloc/cudaFree", figures, &a, &b))
    mp_exec_add_figure (figures, "cudaMalloc/cudaFree: device memory at peak", a);
  if (replay (c, p, TRUE, ev, n_ev, "cudaMallocAsync pool", figures, &a, &b))
    {
      mp_exec_add_figure (figures, "cudaMallocAsync pool: reserved at peak", a);
      mp_exec_add_figure (figures, "cudaMallocAsync pool: used at peak", b);
    }
}

static void
cuda_free (MpExecBackend *self)
{
  mp_cuda_close (((MpExecCuda *) self)->cu);
  g_free (self);
}

MpExecBackend *
mp_exec_cuda_backend_new (gint device, GError **error)
{
  MpCuda     *cu = NULL;
  MpExecCuda *c;
  char        err[512] = "";

  if (mp_cuda_open (&cu, device, err, sizeof err) != 0)
    {
      g_set_error (error, MP_EXEC_ERROR, MP_EXEC_ERROR_UNAVAILABLE, "%s", err);
      return NULL;
    }
  c = g_new0 (MpExecCuda, 1);
  c->cu = cu;
  c->parent.name = "cuda";
  c->parent.prepare = cuda_prepare;
  c->parent.iterate = cuda_iterate;
  c->parent.measure = cuda_measure;
  c->parent.release = cuda_release;
  c->parent.baselines = cuda_baselines;
  c->parent.free = cuda_free;
  return &c->parent;
}

gboolean
mp_exec_cuda_available (char **reason)
{
  g_autoptr (GError) error = NULL;
  MpExecBackend *b = mp_exec_cuda_backend_new (-1, &error);

  if (b)
    {
      b->free (b);
      return TRUE;
    }
  if (reason)
    *reason = g_strdup (error->message);
  return FALSE;
}

guint64
mp_exec_cuda_cache_bytes (gint device)
{
  char     err[512] = "";
  uint64_t bytes = 0;

  return mp_cuda_l2_bytes (device, &bytes, err, sizeof err) == 0 ? bytes : 0;
}
