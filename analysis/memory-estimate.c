/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <gio/gio.h>
#include <glib/gstdio.h>

#include "file-util.h"
#include "input.h"
#include "memory-estimate.h"
#include "mp-error.h"

/* Peak memory per byte of input, measured (README, Hardening): a generated
 * graph of 1,000,000 tensors (97 MB) peaks at 425 MiB with its text, 4.6x,
 * and a 1.1 GB real one at 6.5 GB; records (28 MB) at 256 MiB, 9.6x. A
 * Chrome trace is read as it inflates (trace-chrome.c's fast path): a
 * generated one of 1,000,000 events (465 MB) peaks at 228 MiB, 0.5x, one
 * of 100,000 (46 MB) at 33 MiB, 0.7x; one the fast path does not take is
 * held whole and its events read one at a time, 1.4x and 1.6x, or, not
 * well-formed, read as one json-c tree, 12x (a real 331 MB trace took
 * 5.4 GB, 16x), each checked again before it starts. A snapshot pickle
 * is read as it goes and costs what its allocations keep: 1,000,000
 * actions with their stacks (323 MB) peak at 219 MiB, 0.7x, but 100,000
 * allocations sharing one stack (7.5 MB) at 49 MiB, 6.6x; a gzip one is
 * inflated first and counted at its inflated size. */
#define LOAD_GRAPH_PER_BYTE    6
#define LOAD_CSV_PER_BYTE      10
#define LOAD_TRACE_PER_BYTE    1
#define LOAD_TRACE_WHOLE       2
#define LOAD_TRACE_TREE        17
#define LOAD_SNAPSHOT_PER_BYTE 7

/* Peak bytes per record of each planner above loading, measured on
 * bench -n 1000000 -p NAME, rounded up by a quarter; a plan it keeps is
 * counted in. */
static const struct
{
  const char *planner;
  guint64     per_record;
} plan_costs[] = {
  { "naive", 32 },         { "greedy-by-size", 208 }, { "greedy-by-breadth", 256 },
  { "partition", 128 },    { "multistream", 264 },    { "best-fit", 240 },
  { "optimal", 320 },
  /* four members at a time, each with its own offsets, order and index */
  { "best-of", 720 },
};
/* a planner not in the table (a new one) is taken as the costliest */
#define PLAN_DEFAULT_PER_RECORD 320

/* import's output above loading: the records go to the file as they are
 * formatted (trace-write.c), so what they take is a buffer of at most
 * IMPORT_BUFFER bytes, or less when the whole text is shorter. The text:
 * a JSON record is about 300 bytes with its keys and numbers, a line of
 * its ops and frames 12 more, a byte of their text 1 (escapes: up to 6);
 * a CSV record about 40 bytes, its op's name once or twice (quotes);
 * rounded up. */
#define IMPORT_BUFFER          ((4 << 20) + 65536)
#define IMPORT_JSON_PER_RECORD 384
#define IMPORT_JSON_PER_LINE   16
#define IMPORT_JSON_PER_BYTE   2
#define IMPORT_CSV_PER_RECORD  64
#define IMPORT_CSV_PER_BYTE    2

/* gen's text: about 97 bytes per tensor and op, in a GString that may
 * double as it grows. */
#define GENERATE_PER_TENSOR 200

guint64
mp_memory_available (void)
{
  g_autofree char *text = NULL;
  const char      *line;
  guint64          kib;

  if (!g_file_get_contents ("/proc/meminfo", &text, NULL, NULL) ||
      (line = strstr (text, "MemAvailable:")) == NULL ||
      sscanf (line, "MemAvailable: %" G_GUINT64_FORMAT " kB", &kib) != 1)
    return 0;
  return kib * 1024;
}

/* The input's kind as the reader will see it (mp_input_sniff). */
static guint64
load_factor (const char *path)
{
  MpInputFormat format;

  if (!mp_input_sniff_file (path, &format))
    return LOAD_CSV_PER_BYTE; /* the reader refuses it at once */
  switch (format)
    {
    case MP_INPUT_SNAPSHOT:
      return LOAD_SNAPSHOT_PER_BYTE;
    case MP_INPUT_CHROME_TRACE:
      return LOAD_TRACE_PER_BYTE;
    case MP_INPUT_GRAPH_JSON:
      return LOAD_GRAPH_PER_BYTE;
    case MP_INPUT_ONNX:
      /* the bytes held; the reader estimates its parse from the protobuf
       * messages and fields it counts first (onnx-scan.c), more closely
       * than a factor on the size can */
      return 1;
    case MP_INPUT_USAGE_CSV:
    default:
      return LOAD_CSV_PER_BYTE;
    }
}

guint64
mp_memory_estimate_load (const char *path, guint64 file_size)
{
  guint64 factor = load_factor (path);

  return file_size > G_MAXUINT64 / factor ? G_MAXUINT64 : file_size * factor;
}

/* What a gzip file inflates to, from its trailer (ISIZE: the last
 * member's size mod 4 GiB; the reader refuses more than 2 GiB anyway); 0
 * for any other file. The compressed size would let a 13 MB file that
 * inflates to half a gigabyte past --max-memory. */
static guint64
inflated_size (const char *path)
{
  g_autoptr (GFile)            file = NULL;
  g_autoptr (GFileInputStream) in = NULL;
  guint8                       trailer[4];
  gsize                        n = 0;

  if (!mp_file_is_gzip (path))
    return 0;
  file = g_file_new_for_path (path);
  if (!(in = g_file_read (file, NULL, NULL)) ||
      !g_seekable_seek (G_SEEKABLE (in), -4, G_SEEK_END, NULL, NULL) ||
      !g_input_stream_read_all (G_INPUT_STREAM (in), trailer, 4, &n, NULL, NULL) || n != 4)
    return 0;
  return (guint64) trailer[0] | (guint64) trailer[1] << 8 | (guint64) trailer[2] << 16 |
         (guint64) trailer[3] << 24;
}

gboolean
mp_memory_check_load (const char *path, guint64 limit, guint64 *estimate, GError **error)
{
  g_autofree char *what = NULL;
  GStatBuf         st;

  *estimate = 0;
  if (g_stat (path, &st) != 0 || !S_ISREG (st.st_mode))
    return TRUE; /* the reader says why */
  *estimate = mp_memory_estimate_load (path, MAX ((guint64) st.st_size, inflated_size (path)));
  what = g_strdup_printf ("%s: loading", path);
  return mp_memory_check (what, *estimate, limit, error);
}

guint64
mp_memory_estimate_chrome_fallback (guint64 length, gboolean tree)
{
  guint64 factor = tree ? LOAD_TRACE_TREE : LOAD_TRACE_WHOLE;

  return length > G_MAXUINT64 / factor ? G_MAXUINT64 : length * factor;
}

guint64
mp_memory_estimate_plan (const char *planner, guint64 n_records)
{
  guint64 per_record = PLAN_DEFAULT_PER_RECORD;

  for (guint i = 0; i < G_N_ELEMENTS (plan_costs); i++)
    if (g_str_equal (plan_costs[i].planner, planner))
      per_record = plan_costs[i].per_record;
  return n_records * per_record;
}

guint64
mp_memory_estimate_import (guint64 n_records, guint64 text_bytes, guint64 text_lines,
                           gboolean csv)
{
  guint64 text = csv ? n_records * IMPORT_CSV_PER_RECORD + text_bytes * IMPORT_CSV_PER_BYTE
                     : n_records * IMPORT_JSON_PER_RECORD + text_lines * IMPORT_JSON_PER_LINE +
                         text_bytes * IMPORT_JSON_PER_BYTE;

  return MIN (text, IMPORT_BUFFER);
}

guint64
mp_memory_estimate_generate (guint64 n_tensors)
{
  return n_tensors * GENERATE_PER_TENSOR;
}

gboolean
mp_memory_check (const char *what, guint64 estimate, guint64 limit, GError **error)
{
  g_autofree char *need = NULL;
  g_autofree char *have = NULL;
  guint64          available = limit ? limit : mp_memory_available ();

  if (available == 0 || estimate <= available)
    return TRUE;
  need = mp_format_bytes (estimate);
  have = mp_format_bytes (available);
  if (limit)
    g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_MEMORY,
                 "%s needs about %s of memory, more than the limit of %s set by --max-memory",
                 what, need, have);
  else
    g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_MEMORY,
                 "%s needs about %s of memory, more than the %s available; --max-memory=SIZE "
                 "overrides the check (e.g. --max-memory=%" G_GUINT64_FORMAT "G)",
                 what, need, have, (estimate >> 30) + 1);
  return FALSE;
}

gboolean
mp_parse_size (const char *text, guint64 *bytes)
{
  static const char units[] = "KMGT";
  char             *end;
  gdouble           v;
  const char       *unit;
  guint             shift = 0;

  if (text == NULL || !g_ascii_isdigit (*text))
    return FALSE;
  v = g_ascii_strtod (text, &end);
  if (*end != '\0')
    {
      if ((unit = strchr (units, g_ascii_toupper (*end))) == NULL || *end == '\0')
        return FALSE;
      shift = 10 * (unit - units + 1);
      end++;
      if (g_ascii_toupper (*end) == 'I')
        end++;
      if (g_ascii_toupper (*end) == 'B')
        end++;
      if (*end != '\0')
        return FALSE;
    }
  v = ldexp (v, shift);
  if (!isfinite (v) || v >= 18446744073709551616.0)
    return FALSE;
  *bytes = (guint64) v;
  return TRUE;
}
