/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <string.h>
#include <zlib.h>

#include "gen.h"

/* Files shaped like PyTorch's, at any size, for the import benchmarks: a
 * caching allocator's life (segments, then blocks allocated and freed in
 * them) written as torch.cuda.memory._dump_snapshot's pickle or as the
 * profiler's Chrome trace. Each action has its own Python stack of 8 to 24
 * frames, as PyTorch records them, picked from a few hundred code paths. */

#define N_SLOTS     1024                 /* blocks live at most */
#define SLOT_SIZE   ((guint64) 1 << 20)  /* each slot of a segment holds one block */
#define SEG_SLOTS   64                   /* slots per segment: 64 MiB segments */
#define N_PATHS     400                  /* distinct stacks */
#define BASE_ADDR   G_GUINT64_CONSTANT (0x7f3a00000000)

static const char *files[] = {
  "/usr/lib/python3/dist-packages/torch/nn/modules/module.py",
  "/usr/lib/python3/dist-packages/torch/nn/modules/conv.py",
  "/usr/lib/python3/dist-packages/torch/nn/modules/linear.py",
  "/usr/lib/python3/dist-packages/torch/nn/functional.py",
  "/usr/lib/python3/dist-packages/torch/_tensor.py",
  "/usr/lib/python3/dist-packages/torch/autograd/__init__.py",
  "/usr/lib/python3/dist-packages/torch/optim/adam.py",
  "/home/user/project/model.py",
  "/home/user/project/train.py",
};
static const char *names[] = {
  "_call_impl", "_wrapped_call_impl", "forward", "_conv_forward", "linear", "backward",
  "step", "_single_tensor_adam", "train_step", "main", "<module>", "attention", "mlp",
  "layer_norm", "dropout", "relu", "softmax", "run_backward",
};
static const char *ops[] = {
  "aten::empty", "aten::convolution", "aten::addmm", "aten::relu", "aten::mul",
  "aten::add", "aten::softmax", "aten::layer_norm", "aten::native_dropout", "aten::mm",
  "aten::copy_", "aten::clone",
};

typedef struct
{
  guint8 file, name;
  guint  line;
} Frame;

typedef struct
{
  GRand  *rand;
  Frame   paths[N_PATHS][24];
  guint8  depth[N_PATHS];
  guint64 size[N_SLOTS]; /* 0: free */
  guint   live[N_SLOTS]; /* slots in use, unordered */
  guint   n_live;
  guint   n_segments;
  guint64 allocated, reserved;
} Life;

typedef enum
{
  EV_SEGMENT,
  EV_ALLOC,
  EV_FREE_REQUESTED,
  EV_FREE_COMPLETED,
} EvKind;

typedef struct
{
  EvKind  kind;
  guint64 addr, size;
  guint   path;
} Ev;

static void
life_init (Life *l, guint64 seed)
{
  memset (l, 0, sizeof *l);
  l->rand = g_rand_new_with_seed ((guint32) seed ^ (guint32) (seed >> 32));
  for (guint p = 0; p < N_PATHS; p++)
    {
      l->depth[p] = g_rand_int_range (l->rand, 8, 25);
      for (guint f = 0; f < l->depth[p]; f++)
        {
          l->paths[p][f].file = g_rand_int_range (l->rand, 0, G_N_ELEMENTS (files));
          l->paths[p][f].name = g_rand_int_range (l->rand, 0, G_N_ELEMENTS (names));
          l->paths[p][f].line = g_rand_int_range (l->rand, 1, 2000);
        }
    }
}

/* The next action: a segment when the blocks outgrow the segments, else an
 * allocation or (as often, once many are live) a free in two steps. */
static void
life_next (Life *l, gboolean *pending_free, guint *pending_slot, Ev *ev)
{
  guint slot;

  ev->path = g_rand_int_range (l->rand, 0, N_PATHS);
  if (*pending_free)
    {
      *pending_free = FALSE;
      ev->kind = EV_FREE_COMPLETED;
      ev->addr = BASE_ADDR + *pending_slot * SLOT_SIZE;
      ev->size = l->size[*pending_slot];
      l->allocated -= ev->size;
      l->size[*pending_slot] = 0;
      return;
    }
  if (l->n_live > 0 && (l->n_live == N_SLOTS || g_rand_int_range (l->rand, 0, 100) <
                                                    (gint) (30 + 40 * l->n_live / N_SLOTS)))
    {
      guint k = g_rand_int_range (l->rand, 0, l->n_live);

      slot = l->live[k];
      l->live[k] = l->live[--l->n_live];
      ev->kind = EV_FREE_REQUESTED;
      ev->addr = BASE_ADDR + slot * SLOT_SIZE;
      ev->size = l->size[slot];
      *pending_free = TRUE;
      *pending_slot = slot;
      return;
    }
  /* the blocks fill the segments there are before another is mapped */
  slot = g_rand_int_range (l->rand, 0, MAX (l->n_segments, 1) * SEG_SLOTS);
  while (l->size[slot])
    slot = (slot + 1) % N_SLOTS;
  if (slot / SEG_SLOTS >= l->n_segments)
    {
      /* segments are allocated in address order: map this one first */
      ev->kind = EV_SEGMENT;
      ev->addr = BASE_ADDR + l->n_segments * SEG_SLOTS * SLOT_SIZE;
      ev->size = SEG_SLOTS * SLOT_SIZE;
      l->n_segments++;
      l->reserved += ev->size;
      return;
    }
  ev->kind = EV_ALLOC;
  ev->addr = BASE_ADDR + slot * SLOT_SIZE;
  ev->size = 512 * (guint64) g_rand_int_range (l->rand, 1, SLOT_SIZE / 512 + 1);
  l->size[slot] = ev->size;
  l->live[l->n_live++] = slot;
  l->allocated += ev->size;
}

/* Output, deflated to gzip when asked. */
typedef struct
{
  FILE    *out;
  gboolean gzip;
  z_stream z;
  guint8   buf[1 << 16];
  gboolean ok;
} Sink;

static void
sink_write (Sink *s, const void *data, gsize n, int flush)
{
  if (!s->ok)
    return;
  if (!s->gzip)
    {
      s->ok = n == 0 || fwrite (data, 1, n, s->out) == n;
      return;
    }
  s->z.next_in = (Bytef *) data;
  s->z.avail_in = n;
  do
    {
      s->z.next_out = s->buf;
      s->z.avail_out = sizeof s->buf;
      deflate (&s->z, flush);
      n = sizeof s->buf - s->z.avail_out;
      if (n && fwrite (s->buf, 1, n, s->out) != n)
        s->ok = FALSE;
    }
  while (s->ok && (s->z.avail_out == 0 || (flush == Z_FINISH && s->z.avail_in > 0)));
}

static void
sink_open (Sink *s, FILE *out, gboolean gzip)
{
  s->out = out;
  s->gzip = gzip;
  s->ok = TRUE;
  /* 15 + 16: a gzip header and trailer */
  if (gzip && deflateInit2 (&s->z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    s->ok = FALSE;
}

static gboolean
sink_close (Sink *s)
{
  if (s->gzip)
    {
      sink_write (s, "", 0, Z_FINISH);
      deflateEnd (&s->z);
    }
  return s->ok;
}

/* Pickle protocol 4 as Python writes it: every container and string
 * memoized, a string seen again read back from the memo. */
typedef struct
{
  Sink        sink;
  GString    *buf;
  GHashTable *strings; /* text -> memo index + 1 */
  guint       memo;
} Pickler;

static void
p_flush (Pickler *p, gboolean force)
{
  if (force || p->buf->len > (1 << 16))
    {
      sink_write (&p->sink, p->buf->str, p->buf->len, Z_NO_FLUSH);
      g_string_truncate (p->buf, 0);
    }
}

static void
p_op (Pickler *p, guint8 op)
{
  g_string_append_c (p->buf, op);
}

static void
p_memoize (Pickler *p)
{
  p_op (p, 0x94);
  p->memo++;
}

static void
p_uint (Pickler *p, guint64 v, guint bytes)
{
  for (guint i = 0; i < bytes; i++)
    g_string_append_c (p->buf, (char) ((v >> (8 * i)) & 0xff));
}

static void
p_get (Pickler *p, guint index)
{
  if (index < 256)
    {
      p_op (p, 'h');
      p_uint (p, index, 1);
    }
  else
    {
      p_op (p, 'j');
      p_uint (p, index, 4);
    }
}

static void
p_str (Pickler *p, const char *s)
{
  guint  known = GPOINTER_TO_UINT (g_hash_table_lookup (p->strings, s));
  gsize  n = strlen (s);

  if (known)
    {
      p_get (p, known - 1);
      return;
    }
  p_op (p, 0x8c); /* SHORT_BINUNICODE: the names here are short */
  p_uint (p, n, 1);
  g_string_append_len (p->buf, s, n);
  g_hash_table_insert (p->strings, (gpointer) s, GUINT_TO_POINTER (p->memo + 1));
  p_memoize (p);
}

static void
p_int (Pickler *p, guint64 v)
{
  if (v < 256)
    {
      p_op (p, 'K');
      p_uint (p, v, 1);
    }
  else if (v < 65536)
    {
      p_op (p, 'M');
      p_uint (p, v, 2);
    }
  else if (v < G_MAXINT32)
    {
      p_op (p, 'J');
      p_uint (p, v, 4);
    }
  else
    {
      p_op (p, 0x8a); /* LONG1 of 8 bytes: the top bit stays clear below 2^63 */
      p_uint (p, 8, 1);
      p_uint (p, v, 8);
    }
}

static void
p_frames (Pickler *p, const Life *l, guint path)
{
  p_op (p, ']');
  p_memoize (p);
  p_op (p, '(');
  for (guint f = 0; f < l->depth[path]; f++)
    {
      const Frame *fr = &l->paths[path][f];

      p_op (p, '}');
      p_memoize (p);
      p_op (p, '(');
      p_str (p, "filename");
      p_str (p, files[fr->file]);
      p_str (p, "line");
      p_int (p, fr->line);
      p_str (p, "name");
      p_str (p, names[fr->name]);
      p_op (p, 'u');
    }
  p_op (p, 'e');
}

gboolean
mp_gen_torch_snapshot (FILE *out, guint64 n_actions, guint64 seed, gboolean gzip)
{
  static const char *action_names[] = { "segment_alloc", "alloc", "free_requested",
                                        "free_completed" };
  Life       *l = g_new (Life, 1);
  Pickler     p = { { 0 } };
  gboolean    pending = FALSE, ok;
  guint       pending_slot = 0;
  guint64     t = 1000000;

  life_init (l, seed);
  sink_open (&p.sink, out, gzip);
  p.buf = g_string_sized_new (1 << 17);
  p.strings = g_hash_table_new (g_str_hash, g_str_equal);
  p_op (&p, 0x80);
  p_uint (&p, 4, 1);
  p_op (&p, '}');
  p_memoize (&p);
  p_op (&p, '(');
  p_str (&p, "device_traces");
  p_op (&p, ']');
  p_memoize (&p);
  p_op (&p, ']');
  p_memoize (&p);
  p_op (&p, '(');
  for (guint64 i = 0; i < n_actions; i++)
    {
      Ev ev;

      life_next (l, &pending, &pending_slot, &ev);
      p_op (&p, '}');
      p_memoize (&p);
      p_op (&p, '(');
      p_str (&p, "action");
      p_str (&p, action_names[ev.kind]);
      p_str (&p, "addr");
      p_int (&p, ev.addr);
      p_str (&p, "size");
      p_int (&p, ev.size);
      p_str (&p, "stream");
      p_int (&p, 0);
      p_str (&p, "time_us");
      p_int (&p, t += g_rand_int_range (l->rand, 1, 50));
      p_str (&p, "frames");
      p_frames (&p, l, ev.path);
      p_op (&p, 'u');
      if (i % 1000 == 999) /* APPENDS in batches of 1000, as pickle does */
        {
          p_op (&p, 'e');
          p_op (&p, '(');
        }
      p_flush (&p, FALSE);
    }
  p_op (&p, 'e');
  p_op (&p, 'a'); /* the device's list into device_traces */
  /* the segments alive at the end, their live blocks inside */
  p_str (&p, "segments");
  p_op (&p, ']');
  p_memoize (&p);
  p_op (&p, '(');
  for (guint s = 0; s < l->n_segments; s++)
    {
      p_op (&p, '}');
      p_memoize (&p);
      p_op (&p, '(');
      p_str (&p, "device");
      p_int (&p, 0);
      p_str (&p, "address");
      p_int (&p, BASE_ADDR + s * SEG_SLOTS * SLOT_SIZE);
      p_str (&p, "total_size");
      p_int (&p, SEG_SLOTS * SLOT_SIZE);
      p_str (&p, "stream");
      p_int (&p, 0);
      p_str (&p, "segment_type");
      p_str (&p, "large");
      p_str (&p, "blocks");
      p_op (&p, ']');
      p_memoize (&p);
      p_op (&p, '(');
      for (guint k = s * SEG_SLOTS; k < (s + 1) * SEG_SLOTS; k++)
        if (l->size[k] && !(pending && k == pending_slot))
          {
            p_op (&p, '}');
            p_memoize (&p);
            p_op (&p, '(');
            p_str (&p, "address");
            p_int (&p, BASE_ADDR + k * SLOT_SIZE);
            p_str (&p, "size");
            p_int (&p, l->size[k]);
            p_str (&p, "state");
            p_str (&p, "active_allocated");
            p_op (&p, 'u');
          }
      p_op (&p, 'e');
      p_op (&p, 'u');
      p_flush (&p, FALSE);
    }
  p_op (&p, 'e');
  p_op (&p, 'u');
  p_op (&p, '.');
  p_flush (&p, TRUE);
  ok = sink_close (&p.sink);
  g_string_free (p.buf, TRUE);
  g_hash_table_unref (p.strings);
  g_rand_free (l->rand);
  g_free (l);
  return ok;
}

/* The profiler's Chrome trace: per allocation, a cpu_op slice and its
 * Python frames around a [memory] instant event; frees are [memory]
 * events with negative bytes. n_events counts the [memory] events. */
gboolean
mp_gen_torch_trace (FILE *out, guint64 n_events, guint64 seed, gboolean gzip)
{
  Life    *l = g_new (Life, 1);
  Sink     sink = { 0 };
  GString *s = g_string_sized_new (1 << 17);
  gboolean pending = FALSE, ok;
  guint    pending_slot = 0;
  guint64  t = 1000000, done = 0;

  life_init (l, seed);
  sink_open (&sink, out, gzip);
  g_string_append (s, "{\"schemaVersion\": 1, \"traceEvents\": [\n");
  while (done < n_events)
    {
      Ev     ev;
      gint64 bytes;

      life_next (l, &pending, &pending_slot, &ev);
      if (ev.kind == EV_SEGMENT)
        continue; /* the profiler shows reserved totals, not segments */
      if (ev.kind == EV_FREE_REQUESTED)
        continue; /* one [memory] event per free */
      bytes = ev.kind == EV_ALLOC ? (gint64) ev.size : -(gint64) ev.size;
      t += g_rand_int_range (l->rand, 2, 40);
      if (ev.kind == EV_ALLOC)
        {
          guint depth = 2; /* with_stack's innermost frames: the file stays profiler-sized */

          g_string_append_printf (s, "%s{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", "
                                  "\"pid\": 1, \"tid\": 1, \"ts\": %" G_GUINT64_FORMAT ".5, "
                                  "\"dur\": 1}",
                                  done ? ",\n" : "", ops[ev.path % G_N_ELEMENTS (ops)], t - 1);
          for (guint f = 0; f < depth; f++)
            {
              const Frame *fr = &l->paths[ev.path][f];

              g_string_append_printf (s, ",\n{\"ph\": \"X\", \"cat\": \"python_function\", "
                                      "\"name\": \"%s(%u): %s\", \"pid\": 1, \"tid\": 1, "
                                      "\"ts\": %" G_GUINT64_FORMAT ", \"dur\": 3}",
                                      files[fr->file], fr->line, names[fr->name], t - 2);
            }
        }
      g_string_append_printf (s, "%s{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", "
                              "\"name\": \"[memory]\", \"pid\": 1, \"tid\": 1, \"ts\": %"
                              G_GUINT64_FORMAT ", \"args\": {\"Total Reserved\": %" G_GUINT64_FORMAT
                              ", \"Total Allocated\": %" G_GUINT64_FORMAT ", \"Bytes\": %"
                              G_GINT64_FORMAT ", \"Addr\": %" G_GUINT64_FORMAT ", \"Device Id\": 0,"
                              " \"Device Type\": 1}}",
                              done || ev.kind == EV_ALLOC ? ",\n" : "", t, l->reserved,
                              l->allocated, bytes, ev.addr);
      done++;
      if (s->len > (1 << 16))
        {
          sink_write (&sink, s->str, s->len, Z_NO_FLUSH);
          g_string_truncate (s, 0);
        }
    }
  g_string_append (s, "\n]}\n");
  sink_write (&sink, s->str, s->len, Z_NO_FLUSH);
  ok = sink_close (&sink);
  g_string_free (s, TRUE);
  g_rand_free (l->rand);
  g_free (l);
  return ok;
}
