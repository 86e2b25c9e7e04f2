/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <string.h>

#include "gen.h"

gboolean
mp_gen_lifetimes_from_string (const char *name, MpGenLifetimes *lifetimes)
{
  static const char *const names[] = { "random", "long", "staircase" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_strcmp0 (name, names[i]) == 0)
      {
        *lifetimes = (MpGenLifetimes) i;
        return TRUE;
      }
  return FALSE;
}

/* Tensor i's span in steps after its own op. */
static guint
draw_span (GRand *rand, MpGenLifetimes shape, gdouble long_share, guint n)
{
  switch (shape)
    {
    case MP_GEN_LIFETIMES_LONG:
      return g_rand_int_range (rand, 0, (gint32) MIN (n, G_MAXINT32));
    case MP_GEN_LIFETIMES_STAIRCASE:
      return n;
    case MP_GEN_LIFETIMES_RANDOM:
    default:
      if (g_rand_double (rand) < long_share)
        return g_rand_int_range (rand, 200, 60000);
      return 1 + (g_rand_double (rand) < 0.7 ? 0 : g_rand_int_range (rand, 1, 3));
    }
}

char *
mp_gen_random (const MpGenRandomOptions *options, gboolean csv, gsize *length)
{
  static const char *const shape_suffix[] = { "", "-long", "-staircase" };
  guint              n = options->n_tensors;
  guint              streams = MAX (options->n_streams, 1);
  gdouble            long_share = options->long_share > 0 ? options->long_share : 0.05;
  g_autoptr (GRand)  rand = g_rand_new_with_seed ((guint32) (options->seed ^ (options->seed >> 32)));
  g_autofree guint  *last = g_new (guint, MAX (n, 1));
  g_autofree guint64 *size = g_new (guint64, MAX (n, 1));
  g_autofree guint  *n_readers = g_new0 (guint, (gsize) n + 1);
  g_autofree guint  *readers = NULL; /* CSR: tensors read by each op */
  g_autofree guint  *fill = NULL;
  GString           *s = g_string_sized_new (csv ? 32 * (gsize) n : 110 * (gsize) n);

  for (guint i = 0; i < n; i++)
    {
      guint   span = draw_span (rand, options->lifetimes, long_share, n);
      gdouble mantissa;

      last[i] = (guint) MIN ((guint64) i + span, (guint64) n - 1);
      /* log-uniform from 1 KiB to 4 MiB, like activations of small and large
       * layers; two statements, since C leaves the order of calls within one
       * expression open and the graph must not depend on the compiler */
      mantissa = g_rand_double_range (rand, 1.0, 2.0);
      size[i] = (guint64) (1024.0 * mantissa * (gdouble) (1u << g_rand_int_range (rand, 0, 12)));
      if (last[i] > i)
        n_readers[last[i]]++;
    }

  if (csv)
    {
      g_string_append (s, "id,lower,upper,size\n");
      for (guint i = 0; i < n; i++)
        g_string_append_printf (s, "t%u,%u,%u,%" G_GUINT64_FORMAT "\n", i, i, last[i] + 1,
                                size[i]);
      *length = s->len;
      return g_string_free (s, FALSE);
    }

  /* prefix sums -> CSR offsets */
  fill = g_new0 (guint, (gsize) n + 1);
  for (guint j = 0, acc = 0; j <= n; j++)
    {
      guint c = j < n ? n_readers[j] : 0;
      n_readers[j] = acc;
      acc += c;
    }
  readers = g_new (guint, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    if (last[i] > i)
      readers[n_readers[last[i]] + fill[last[i]]++] = i;

  g_string_append_printf (s, "{\"format\":\"memplan.graph/1\",\"name\":\"random-%u-s%u-seed%"
                          G_GUINT64_FORMAT "%s\",\"alignment\":64,\n\"tensors\":[\n"
                          "{\"name\":\"x\",\"size\":4096,\"kind\":\"input\"}",
                          n, streams, options->seed, shape_suffix[options->lifetimes]);
  for (guint i = 0; i < n; i++)
    g_string_append_printf (s, ",\n{\"name\":\"t%u\",\"size\":%" G_GUINT64_FORMAT "%s}", i,
                            size[i], i + 1 == n ? ",\"kind\":\"output\"" : "");
  g_string_append (s, "],\n\"ops\":[\n");
  for (guint j = 0; j < n; j++)
    {
      guint begin = n_readers[j], end = n_readers[j + 1];

      g_string_append_printf (s, "%s{\"name\":\"op%u\",\"inputs\":[", j ? ",\n" : "", j);
      if (j == 0)
        g_string_append (s, "\"x\"");
      for (guint k = begin; k < end; k++)
        g_string_append_printf (s, "%s\"t%u\"", (k > begin || j == 0) ? "," : "", readers[k]);
      g_string_append_printf (s, "],\"outputs\":[\"t%u\"]", j);
      /* streams take chunks of 16 consecutive ops so that chains stay local */
      if (streams > 1)
        g_string_append_printf (s, ",\"stream\":%u", (j / 16) % streams);
      g_string_append_c (s, '}');
    }
  g_string_append (s, "]}\n");
  *length = s->len;
  return g_string_free (s, FALSE);
}
