/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <glib/gstdio.h>

#include "memplan-analysis.h"
#include "gen.h"
#include "trace-private.h"
#include "test-util.h"

/* The Chrome trace reader at speed (issue 31): its fast path reads each
 * event's fields straight from the text through a window as the file
 * inflates, and gives up on anything but plain JSON of the expected types,
 * leaving it to the reader it replaced. Whatever the input, all three
 * (that reader, the fast path on the text in memory, the fast path through
 * a window of a few bytes, plain or gzip) must agree: the same trace or
 * the same error, word for word. */

/* Everything a trace says, as text, or the error. */
static char *
describe (MpTrace *trace, GError *error)
{
  GString *s = g_string_new (NULL);

  if (trace == NULL)
    {
      g_assert_nonnull (error);
      g_string_append_printf (s, "error %d: %s", error->code, error->message);
      return g_string_free (s, FALSE);
    }
  g_assert_null (error);
  g_string_append_printf (s, "%s, %u allocations, %u events, reserved %" G_GUINT64_FORMAT
                          ", live %" G_GUINT64_FORMAT ", arena %" G_GUINT64_FORMAT "\n",
                          trace->device, trace->n_allocations, trace->n_events,
                          trace->reserved_peak, trace->live_peak, trace->observed_arena);
  for (guint d = 0; trace->devices && trace->devices[d]; d++)
    g_string_append_printf (s, "device %s\n", trace->devices[d]);
  for (guint t = 0; t < trace->n_allocations; t++)
    {
      const MpTensor    *x = &trace->graph->tensors[t];
      const MpTraceSite *site = &trace->sites[t];

      g_string_append_printf (s, "%s %" G_GUINT64_FORMAT " [%" G_GINT64_FORMAT ", %"
                              G_GINT64_FORMAT "] @%" G_GUINT64_FORMAT " +%" G_GUINT64_FORMAT
                              " op=%s ops=%s module=%s frames=%s\n",
                              x->name, x->size, x->first, x->last, trace->addresses[t],
                              trace->observed[t], site->op, site->ops, site->module,
                              site->frames);
    }
  mp_trace_free (trace);
  return g_string_free (s, FALSE);
}

static char *
parse_text (const char *data, gsize length, const char *path, gboolean fast)
{
  GError  *error = NULL;
  MpTrace *trace;
  char    *text;

  mp_trace_chrome_set_fast_path (fast, 0);
  trace = mp_trace_parse_full (data, length, path, NULL, &error);
  text = describe (trace, error);
  g_clear_error (&error);
  mp_trace_chrome_set_fast_path (TRUE, 0);
  return text;
}

static char *
load_path (const char *path, gsize window)
{
  GError  *error = NULL;
  MpTrace *trace;
  char    *text;

  mp_trace_chrome_set_fast_path (TRUE, window);
  trace = mp_trace_load_full (path, NULL, &error);
  text = describe (trace, error);
  g_clear_error (&error);
  mp_trace_chrome_set_fast_path (TRUE, 0);
  return text;
}

static void
write_gzip (const char *path, const char *data, gsize length)
{
  g_autoptr (GZlibCompressor) z = g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, 6);
  g_autoptr (GConverterOutputStream) out = NULL;
  g_autoptr (GOutputStream) mem = g_memory_output_stream_new_resizable ();
  gsize                     written;

  out = G_CONVERTER_OUTPUT_STREAM (g_converter_output_stream_new (mem, G_CONVERTER (z)));
  g_assert_true (g_output_stream_write_all (G_OUTPUT_STREAM (out), data, length, &written, NULL,
                                            NULL));
  g_assert_true (g_output_stream_close (G_OUTPUT_STREAM (out), NULL, NULL));
  g_assert_true (g_file_set_contents (path,
                                      g_memory_output_stream_get_data (
                                        G_MEMORY_OUTPUT_STREAM (mem)),
                                      g_memory_output_stream_get_data_size (
                                        G_MEMORY_OUTPUT_STREAM (mem)),
                                      NULL));
}

/* The four readings of data agree; returns what they say. */
static char *
assert_agree (const char *data, gsize length, gsize window, gboolean gzip)
{
  g_autofree char *path = test_tmp_path ("trace.json");
  g_autofree char *gz_path = test_tmp_path ("trace.json.gz");
  g_autofree char *slow = NULL, *fast = NULL, *stream = NULL;

  g_assert_true (g_file_set_contents (path, data, length, NULL));
  slow = parse_text (data, length, path, FALSE);
  fast = parse_text (data, length, path, TRUE);
  stream = load_path (path, window);
  g_assert_cmpstr (fast, ==, slow);
  g_assert_cmpstr (stream, ==, slow);
  g_unlink (path);
  if (gzip)
    {
      g_autofree char *slow_gz = NULL, *stream_gz = NULL;
      g_autofree char *gz_data = NULL;
      gsize            gz_length;

      write_gzip (gz_path, data, length);
      g_assert_true (g_file_get_contents (gz_path, &gz_data, &gz_length, NULL));
      /* the same text through the reader of old, from the .gz */
      mp_trace_chrome_set_fast_path (FALSE, 0);
      {
        GError  *error = NULL;
        MpTrace *trace = mp_trace_load_full (gz_path, NULL, &error);

        slow_gz = describe (trace, error);
        g_clear_error (&error);
      }
      stream_gz = load_path (gz_path, window);
      g_assert_cmpstr (stream_gz, ==, slow_gz);
      g_unlink (gz_path);
    }
  return g_steal_pointer (&slow);
}

/* Every committed trace, and every window from 1 byte to 40. */
static void
test_fixtures_agree (void)
{
  static const char *names[] = { "trace-addr-overflow.json", "trace-all-threads.json",
                                 "trace-array.json",         "trace-attribution.json",
                                 "trace-bad-bytes.json",     "trace-dataloader.json",
                                 "trace-huge-alloc.json",    "trace-nan-ts.json",
                                 "trace-no-memory.json",     "trace-truncated.json",
                                 "trace-two-devices.json" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = test_fixture_path (names[i]);
      g_autofree char *data = NULL;
      gsize            length;

      g_assert_true (g_file_get_contents (path, &data, &length, NULL));
      for (gsize window = 1; window <= 40; window += 3)
        g_free (assert_agree (data, length, window, window == 1));
    }
}

/* The recorded traces of real models (gzip, megabytes inflated). */
static void
test_recorded_agree (void)
{
  static const char *names[] = { "torch/small-cnn-trace.json.gz",
                                 "torch/small-transformer-1step.json.gz" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_build_filename (MEMPLAN_TEST_DATA_DIR, names[i], NULL);
      g_autofree char *data = NULL;
      gsize            length;
      g_autofree char *text = NULL;

      g_assert_true (mp_read_file (path, &data, &length, NULL));
      text = assert_agree (data, length, 4096, TRUE);
      g_assert_false (g_str_has_prefix (text, "error"));
    }
}

/* Hand-made cases, worked by hand: what json-c's tree would make of them. */
static void
test_hand_made (void)
{
  /* a name written with escapes; "pid" 1 and "1" are one thread; the last
   * of a field written twice counts; an element that is not an object */
  static const char doc[] =
    "{\"traceEvents\": [ 7, \"x\", null,\n"
    " {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::\\u0061dd\", \"pid\": \"1\","
    " \"tid\": 2, \"ts\": 1.5e1, \"dur\": 10},\n"
    " {\"name\": \"junk\", \"name\": \"[memory]\", \"ph\": \"i\", \"pid\": 1, \"tid\": 2,"
    " \"ts\": 20, \"args\": {\"Addr\": 5, \"Addr\": 4096, \"Bytes\": 64}},\n"
    " {\"name\": \"[memory]\", \"pid\": 1, \"tid\": 2, \"ts\": 30,"
    " \"args\": {\"Addr\": 4096, \"Bytes\": -64, \"Device Type\": 1, \"Device Id\": 0}}\n"
    "], \"other\": {\"deep\": [[[]]]}}\n";
  static const char array[] =
    "[{\"name\": \"[memory]\", \"ph\": \"i\", \"pid\": 1, \"tid\": 1, \"ts\": 3, "
    "\"args\": {\"Addr\": 8, \"Bytes\": 16, \"Device Type\": 0}}]";
  static const char twice[] =
    "{\"traceEvents\": [], \"traceEvents\": [{\"name\": \"[memory]\", \"ts\": 1, "
    "\"args\": {\"Addr\": 0, \"Bytes\": 1}}]}";
  static const char not_plain[] =
    "{\"traceEvents\": [{\"name\": \"[memory]\", \"ts\": 1, \"args\": {\"Addr\": 0, "
    "\"Bytes\": 1}},]}";

  for (gsize window = 1; window <= 64; window *= 2)
    {
      g_autofree char *a = assert_agree (doc, sizeof doc - 1, window, window == 8);
      g_autofree char *b = assert_agree (array, sizeof array - 1, window, FALSE);
      g_autofree char *c = assert_agree (twice, sizeof twice - 1, window, FALSE);
      g_autofree char *d = assert_agree (not_plain, sizeof not_plain - 1, window, FALSE);

      g_assert_nonnull (strstr (a, "cuda:0, 1 allocations"));
      g_assert_nonnull (strstr (a, " 64 [0, 0] @4096 +0 op=aten::add ops=aten::add "));
      g_assert_nonnull (strstr (b, "cpu, 1 allocations"));
      g_assert_nonnull (strstr (b, " 16 [0, 0] @8 "));
      /* the last "traceEvents" is the list read */
      g_assert_nonnull (strstr (c, "cuda:0, 1 allocations"));
      g_assert_false (g_str_has_prefix (d, "error"));
    }
}

/* Random damage to a generated trace: every reading agrees on each. */
static void
test_mutants_agree (void)
{
  static const char  alphabet[] = "{}[],:\"\\/0123456789.eE+-ntrufals u\x80\xc3\xa9\n\t";
  g_autoptr (GRand)  rand = g_rand_new_with_seed (31);
  char              *base = NULL;
  gsize              base_length = 0;
  FILE              *out = open_memstream (&base, &base_length);
  guint              errors = 0;

  g_assert_true (mp_gen_torch_trace (out, 40, 3, FALSE));
  g_assert_cmpint (fclose (out), ==, 0);
  for (guint m = 0; m < 300; m++)
    {
      g_autoptr (GString) s = g_string_new_len (base, base_length);
      g_autofree char *text = NULL;
      guint            edits = g_rand_int_range (rand, 1, 4);

      for (guint e = 0; e < edits; e++)
        {
          gsize at = g_rand_int_range (rand, 0, s->len);

          switch (g_rand_int_range (rand, 0, 4))
            {
            case 0: g_string_erase (s, at, g_rand_int_range (rand, 1, 8)); break;
            case 1: s->str[at] = alphabet[g_rand_int_range (rand, 0, sizeof alphabet - 1)]; break;
            case 2:
              g_string_insert_c (s, at, alphabet[g_rand_int_range (rand, 0, sizeof alphabet - 1)]);
              break;
            default:
              {
                gsize n = MIN ((gsize) g_rand_int_range (rand, 1, 200), s->len - at);
                g_autofree char *copy = g_strndup (s->str + at, n);

                g_string_insert_len (s, g_rand_int_range (rand, 0, s->len), copy, n);
              }
              break;
            }
        }
      text = assert_agree (s->str, s->len, g_rand_int_range (rand, 1, 300), m % 10 == 0);
      errors += g_str_has_prefix (text, "error");
    }
  /* both kinds were met */
  g_assert_cmpuint (errors, >, 30);
  g_assert_cmpuint (errors, <, 290);
  free (base);
}

/* Two gzip members joined: the trailer announces the last one's size, the
 * figure the memory estimate used, and the read stops past it, as a
 * snapshot's does. */
static void
test_gzip_joined (void)
{
  g_autofree char *path = test_fixture_path ("trace-two-devices.json");
  g_autofree char *a_path = test_tmp_path ("a.json.gz");
  g_autofree char *b_path = test_tmp_path ("b.json.gz");
  g_autofree char *joined = test_tmp_path ("joined.json.gz");
  g_autofree char *data = NULL, *a = NULL, *b = NULL, *both = NULL;
  gsize            length, a_length, b_length, half;
  g_autoptr (GError) error = NULL;
  g_autoptr (MpTrace) trace = NULL;

  g_assert_true (g_file_get_contents (path, &data, &length, NULL));
  half = length / 2;
  write_gzip (a_path, data, half);
  write_gzip (b_path, data + half, length - half);
  g_assert_true (g_file_get_contents (a_path, &a, &a_length, NULL));
  g_assert_true (g_file_get_contents (b_path, &b, &b_length, NULL));
  both = g_malloc (a_length + b_length);
  memcpy (both, a, a_length);
  memcpy (both + a_length, b, b_length);
  g_assert_true (g_file_set_contents (joined, both, a_length + b_length, NULL));
  trace = mp_trace_load_full (joined, NULL, &error);
  g_assert_null (trace);
  g_assert_nonnull (strstr (error->message, "bytes its size trailer announces, which the "
                                            "memory estimate (--max-memory) counted on"));
  g_assert_true (g_str_has_prefix (error->message, joined));
  g_unlink (a_path);
  g_unlink (b_path);
  g_unlink (joined);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analysis/chrome-stream/fixtures", test_fixtures_agree);
  g_test_add_func ("/analysis/chrome-stream/recorded", test_recorded_agree);
  g_test_add_func ("/analysis/chrome-stream/hand-made", test_hand_made);
  g_test_add_func ("/analysis/chrome-stream/mutants", test_mutants_agree);
  g_test_add_func ("/analysis/chrome-stream/gzip-joined", test_gzip_joined);
  return g_test_run ();
}
