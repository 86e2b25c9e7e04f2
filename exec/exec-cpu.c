/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-exec"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "exec-private.h"

/* The CPU backend: buffers are anonymous mappings (so resident pages tell
 * what the arena really took), one thread per stream, condition variables
 * for the waits between streams. */
typedef struct
{
  MpExecBackend parent;
  guint8       *buf[MP_EXEC_N_BUFS];
  gsize         mapped[MP_EXEC_N_BUFS];
  guint         workers;   /* threads that ran at least one op */
  GThreadPool  *helpers;   /* cores left over by the streams share large regions */
  guint         n_split;
} MpExecCpu;

/* Regions this large are split across the helper threads, so that a
 * single-stream program still uses every core. */
#define SPLIT_MIN (G_GUINT64_CONSTANT (1) << 20)
#define MAX_SPLIT 16

typedef struct
{
  const MpExecProgram *program;
  guint8             **buf;
  MpExecCheck         *checks;
  GMutex               lock;
  GCond                progress;
  guint               *done;      /* per stream: steps completed */
  guint                slow;      /* the stream held back this iteration, or G_MAXUINT */
  gboolean             stagger;
  guint                workers;   /* threads that ran at least one op */
  guint                delay_us;
  GThreadPool         *helpers;
  guint                n_split;
  guint                epoch;
} Shared;

typedef struct
{
  MpExecRegion sub;
  guint8      *buf;
  guint64      size;
  MpExecCheck  check;
  gboolean     verify;
  GMutex      *lock;
  GCond       *cond;
  guint       *pending;
} Chunk;

static void run_chunk (gpointer data, gpointer user_data);

typedef struct
{
  Shared *shared;
  guint   stream;
} Worker;

static guint64
page_round (guint64 n)
{
  guint64 page = sysconf (_SC_PAGESIZE);

  return (n + page - 1) / page * page;
}

/* Reads a "Key:   N kB" line of /proc/self/status or /proc/meminfo. */
static guint64
proc_kib (const char *file, const char *key)
{
  g_autofree char *text = NULL;
  const char      *at;

  if (!g_file_get_contents (file, &text, NULL, NULL) || !(at = strstr (text, key)))
    return 0;
  return g_ascii_strtoull (at + strlen (key), NULL, 10) * 1024;
}

static guint64
resident_now (void)
{
  g_autofree char *text = NULL;
  char           **fields;
  guint64          pages = 0;

  if (!g_file_get_contents ("/proc/self/statm", &text, NULL, NULL))
    return 0;
  fields = g_strsplit (text, " ", 3);
  if (fields[0] && fields[1])
    pages = g_ascii_strtoull (fields[1], NULL, 10);
  g_strfreev (fields);
  return pages * sysconf (_SC_PAGESIZE);
}

static gboolean
cpu_prepare (MpExecBackend *self, const MpExecProgram *p, MpExecResult *result, GError **error)
{
  MpExecCpu *cpu = (MpExecCpu *) self;
  guint64    total = 0, available = proc_kib ("/proc/meminfo", "MemAvailable:");

  for (guint b = 0; b < MP_EXEC_N_BUFS; b++)
    total += page_round (p->size[b]);
  if (available && total > available)
    {
      g_autofree char *need = mp_format_bytes (total);
      g_autofree char *have = mp_format_bytes (available);

      g_set_error (error, MP_EXEC_ERROR, MP_EXEC_ERROR_NO_MEMORY,
                   "the plan needs %s (%" G_GUINT64_FORMAT " bytes) but only %s (%"
                   G_GUINT64_FORMAT " bytes) of memory is available", need, total, have,
                   available);
      return FALSE;
    }
  for (guint b = 0; b < MP_EXEC_N_BUFS; b++)
    {
      void *m;

      cpu->mapped[b] = page_round (MAX (p->size[b], 1));
      m = mmap (NULL, cpu->mapped[b], PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (m == MAP_FAILED)
        {
          g_autofree char *need = mp_format_bytes (cpu->mapped[b]);

          cpu->mapped[b] = 0;
          g_set_error (error, MP_EXEC_ERROR, MP_EXEC_ERROR_NO_MEMORY,
                       "cannot map %s for the %s: %s", need, b == MP_EXEC_BUF_ARENA ? "arena"
                       : b == MP_EXEC_BUF_HOST ? "inputs and params" : "workspace",
                       g_strerror (errno));
          return FALSE;
        }
      cpu->buf[b] = m;
    }
  /* cores the streams leave idle help with large regions */
  if (g_get_num_processors () > p->n_streams)
    {
      cpu->n_split = MIN (g_get_num_processors () - p->n_streams + 1, MAX_SPLIT);
      cpu->helpers = g_thread_pool_new (run_chunk, cpu, cpu->n_split - 1, TRUE, NULL);
    }
  if (cpu->helpers)
    result->device = g_strdup_printf ("CPU, %u stream thread%s + %u helper%s", p->n_streams,
                                      p->n_streams == 1 ? "" : "s", cpu->n_split - 1,
                                      cpu->n_split == 2 ? "" : "s");
  else
    result->device = g_strdup_printf ("CPU, %u stream thread%s", p->n_streams,
                                      p->n_streams == 1 ? "" : "s");
  return TRUE;
}

static void
run_chunk (gpointer data, gpointer user_data)
{
  Chunk *c = data;

  if (c->verify)
    mp_exec_verify (c->buf, c->size, &c->sub, &c->check);
  else
    mp_exec_fill (c->buf, &c->sub);
  if (user_data == NULL)
    return;
  g_mutex_lock (c->lock);
  if (--*c->pending == 0)
    g_cond_signal (c->cond);
  g_mutex_unlock (c->lock);
}

/* Writes or checks one region, split at word boundaries across the helper
 * threads when it is large; the first bad chunk holds the first bad byte. */
static void
touch (Shared *sh, const MpExecRegion *region, gboolean verify, MpExecCheck *check)
{
  MpExecRegion tagged = *region, *r = &tagged;
  guint8      *buf = sh->buf[r->buffer];
  guint64      size = sh->program->size[r->buffer];
  guint        n = sh->helpers && r->hi - r->lo >= SPLIT_MIN ? sh->n_split : 1;
  Chunk        chunks[MAX_SPLIT];
  GMutex       lock;
  GCond        cond;
  guint        pending = n - 1;
  guint64      step = (r->hi - r->lo) / n;

  tagged.tag = mp_exec_tag (sh->program, region, sh->epoch);
  if (n == 1)
    {
      if (verify)
        mp_exec_verify (buf, size, r, check);
      else
        mp_exec_fill (buf, r);
      return;
    }
  g_mutex_init (&lock);
  g_cond_init (&cond);
  for (guint i = 0; i < n; i++)
    {
      chunks[i] = (Chunk) { *r, buf, size, { G_MAXUINT64, { 0 } }, verify, &lock, &cond,
                            &pending };
      chunks[i].sub.lo = i == 0 ? r->lo : mp_align_up (r->lo + i * step, 8);
      chunks[i].sub.hi = i + 1 == n ? r->hi : mp_align_up (r->lo + (i + 1) * step, 8);
    }
  for (guint i = 1; i < n; i++)
    g_thread_pool_push (sh->helpers, &chunks[i], NULL);
  run_chunk (&chunks[0], NULL);
  g_mutex_lock (&lock);
  while (pending > 0)
    g_cond_wait (&cond, &lock);
  g_mutex_unlock (&lock);
  g_mutex_clear (&lock);
  g_cond_clear (&cond);
  if (verify)
    {
      check->bad = G_MAXUINT64;
      for (guint i = 0; i < n && check->bad == G_MAXUINT64; i++)
        *check = chunks[i].check;
    }
}

static void
run_step (Shared *sh, const MpExecStep *st)
{
  const MpExecProgram *p = sh->program;
  const MpExecRegion  *r = (const MpExecRegion *) p->regions->data;

  for (guint i = st->first_check; i < st->first_check + st->n_checks; i++)
    touch (sh, &r[i], TRUE, &sh->checks[i]);
  for (guint i = st->first_write; i < st->first_write + st->n_writes; i++)
    touch (sh, &r[i], FALSE, NULL);
  for (guint i = st->first_post; i < st->first_post + st->n_post; i++)
    touch (sh, &r[i], TRUE, &sh->checks[i]);
  for (guint i = st->first_refill; i < st->first_refill + st->n_refill; i++)
    touch (sh, &r[i], FALSE, NULL);
}

/* Blocks until the other streams completed what waits[first, first + n) ask. */
static void
wait_for (Shared *sh, guint first, guint n)
{
  if (n == 0)
    return;
  g_mutex_lock (&sh->lock);
  for (guint i = first; i < first + n; i++)
    {
      const MpExecWait *wt = &g_array_index (sh->program->waits, MpExecWait, i);

      while (sh->done[wt->stream] < wt->count)
        g_cond_wait (&sh->progress, &sh->lock);
    }
  g_mutex_unlock (&sh->lock);
}

static gpointer
run_stream (gpointer data)
{
  Worker              *w = data;
  Shared              *sh = w->shared;
  const MpExecProgram *p = sh->program;

  if (p->stream_first[w->stream + 1] > p->stream_first[w->stream])
    {
      g_mutex_lock (&sh->lock);
      sh->workers++;
      g_mutex_unlock (&sh->lock);
    }
  for (guint k = p->stream_first[w->stream]; k < p->stream_first[w->stream + 1]; k++)
    {
      const MpExecStep *st = &p->steps[p->stream_steps[k]];

      gboolean held = w->stream == sh->slow;

      wait_for (sh, st->first_wait, st->n_waits);
      if (held && sh->stagger)
        wait_for (sh, st->first_yield, st->n_yield);
      if (held && sh->delay_us)
        g_usleep (sh->delay_us);
      run_step (sh, st);
      g_mutex_lock (&sh->lock);
      sh->done[w->stream]++;
      g_cond_broadcast (&sh->progress);
      g_mutex_unlock (&sh->lock);
    }
  return NULL;
}

static gboolean
cpu_iterate (MpExecBackend *self, const MpExecProgram *p, guint epoch, guint slow,
             gboolean stagger, guint delay_us, MpExecCheck *checks, gdouble *seconds,
             GError **error)
{
  MpExecCpu         *cpu = (MpExecCpu *) self;
  const MpExecRegion *r = (const MpExecRegion *) p->regions->data;
  g_autofree guint   *done = g_new0 (guint, p->n_streams);
  g_autofree Worker  *workers = g_new (Worker, p->n_streams);
  g_autofree GThread **threads = g_new0 (GThread *, p->n_streams);
  Shared              sh = { p, cpu->buf, checks };
  gint64              start = g_get_monotonic_time ();

  sh.done = done;
  sh.epoch = epoch;
  sh.delay_us = delay_us;
  sh.slow = slow;
  sh.stagger = stagger;
  sh.helpers = cpu->helpers;
  sh.n_split = cpu->n_split;
  g_mutex_init (&sh.lock);
  g_cond_init (&sh.progress);

  for (guint i = p->first_setup; i < p->first_setup + p->n_setup; i++)
    if (epoch == 0 || r[i].buffer != MP_EXEC_BUF_HOST)
      touch (&sh, &r[i], FALSE, NULL);
  for (guint s = 0; s < p->n_streams; s++)
    {
      workers[s].shared = &sh;
      workers[s].stream = s;
    }
  /* stream 0 runs on the calling thread */
  for (guint s = 1; s < p->n_streams; s++)
    threads[s] = g_thread_new ("memplan-stream", run_stream, &workers[s]);
  run_stream (&workers[0]);
  for (guint s = 1; s < p->n_streams; s++)
    g_thread_join (threads[s]);
  for (guint i = p->first_final; i < p->first_final + p->n_final; i++)
    touch (&sh, &r[i], TRUE, &checks[i]);

  cpu->workers = MAX (cpu->workers, sh.workers);
  g_mutex_clear (&sh.lock);
  g_cond_clear (&sh.progress);
  *seconds = (g_get_monotonic_time () - start) / 1e6;
  return TRUE;
}

/* Resident bytes of a mapping: the pages the run really touched. */
static guint64
resident_of (void *addr, gsize length)
{
  gsize              page = sysconf (_SC_PAGESIZE), n = (length + page - 1) / page;
  g_autofree guchar *vec = g_new (guchar, MAX (n, 1));
  guint64            resident = 0;

  if (length == 0 || mincore (addr, length, vec) != 0)
    return 0;
  for (gsize i = 0; i < n; i++)
    resident += (vec[i] & 1) ? page : 0;
  return resident;
}

static void
cpu_measure (MpExecBackend *self, const MpExecProgram *p, MpExecResult *result)
{
  MpExecCpu *cpu = (MpExecCpu *) self;

  result->measured = (p->size[MP_EXEC_BUF_ARENA] ? resident_of (cpu->buf[MP_EXEC_BUF_ARENA],
                                                                cpu->mapped[MP_EXEC_BUF_ARENA])
                                                 : 0) +
                     (p->size[MP_EXEC_BUF_WORKSPACE]
                        ? resident_of (cpu->buf[MP_EXEC_BUF_WORKSPACE],
                                       cpu->mapped[MP_EXEC_BUF_WORKSPACE]) : 0);
  result->process_peak = proc_kib ("/proc/self/status", "VmHWM:");
  result->n_workers = cpu->workers;
}

/* malloc at each tensor's first step, free after its last: what glibc's
 * allocator holds (live usable bytes, heap + mmapped) and what becomes
 * resident. Every block is written so its pages are really committed. */
static void
cpu_baselines (MpExecBackend *self, const MpExecProgram *p, const MpLifetimes *lt, GArray *figures)
{
  guint               n = lt->n_records;
  g_autofree MpUsage *by_first = mp_exec_sorted_records (lt, TRUE);
  g_autofree MpUsage *by_last = mp_exec_sorted_records (lt, FALSE);
  g_autofree void   **block = g_new0 (void *, MAX (p->graph->n_tensors, 1));
  guint64             live = 0, live_peak = 0, heap_peak = 0, rss_peak = 0;
  guint64             rss0 = resident_now ();
  guint               f = 0, l = 0;

  for (guint step = 0; step < lt->n_steps; step++)
    {
      struct mallinfo2 mi;
      gboolean         grew = FALSE;

      for (; f < n && by_first[f].first == step; f++)
        {
          void *m = malloc (MAX (by_first[f].bytes, 1));

          if (m == NULL)
            {
              g_autofree char *why = g_strdup_printf ("out of memory: cannot allocate %"
                                                      G_GUINT64_FORMAT " bytes for tensor '%s'",
                                                      by_first[f].bytes,
                                                      p->graph->tensors[by_first[f].tensor].name);

              for (guint t = 0; t < p->graph->n_tensors; t++)
                free (block[t]);
              mp_exec_add_failed (figures, "malloc/free", why);
              return;
            }
          memset (m, 0x5a, by_first[f].bytes);
          block[by_first[f].tensor] = m;
          live += malloc_usable_size (m);
          grew = TRUE;
        }
      mi = mallinfo2 ();
      live_peak = MAX (live_peak, live);
      if (grew && mi.arena + mi.hblkhd > heap_peak)
        {
          heap_peak = mi.arena + mi.hblkhd;
          rss_peak = MAX (rss_peak, resident_now ());
        }
      for (; l < n && by_last[l].last == step; l++)
        {
          live -= malloc_usable_size (block[by_last[l].tensor]);
          free (block[by_last[l].tensor]);
          block[by_last[l].tensor] = NULL;
        }
    }
  mp_exec_add_figure (figures, "malloc/free: live bytes at peak", live_peak);
  mp_exec_add_figure (figures, "malloc/free: glibc heap + mmap at peak", heap_peak);
  mp_exec_add_figure (figures, "malloc/free: resident growth at peak",
                      rss_peak > rss0 ? rss_peak - rss0 : 0);
}

static void
cpu_release (MpExecBackend *self)
{
  MpExecCpu *cpu = (MpExecCpu *) self;

  if (cpu->helpers)
    g_thread_pool_free (cpu->helpers, FALSE, TRUE);
  cpu->helpers = NULL;
  for (guint b = 0; b < MP_EXEC_N_BUFS; b++)
    if (cpu->mapped[b])
      munmap (cpu->buf[b], cpu->mapped[b]);
  memset (cpu->mapped, 0, sizeof cpu->mapped);
}

static void
cpu_free (MpExecBackend *self)
{
  cpu_release (self);
  g_free (self);
}

MpExecBackend *
mp_exec_cpu_backend_new (GError **error)
{
  MpExecCpu *cpu = g_new0 (MpExecCpu, 1);

  cpu->parent.name = "cpu";
  cpu->parent.prepare = cpu_prepare;
  cpu->parent.iterate = cpu_iterate;
  cpu->parent.measure = cpu_measure;
  cpu->parent.release = cpu_release;
  cpu->parent.baselines = cpu_baselines;
  cpu->parent.free = cpu_free;
  return &cpu->parent;
}
