/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <string.h>

#include "file-util.h"
#include "graph-private.h"
#include "input.h"
#include "trace-private.h"

/* The profiler writes deviceProperties and other keys before traceEvents,
 * and a graph may hold long lists before its "format". */
#define SNIFF_BYTES (256 * 1024)

const char *
mp_input_format_name (MpInputFormat format)
{
  switch (format)
    {
    case MP_INPUT_GRAPH_JSON:
      return "memplan graph";
    case MP_INPUT_USAGE_CSV:
      return "usage records";
    case MP_INPUT_CHROME_TRACE:
      return "PyTorch profiler trace";
    case MP_INPUT_SNAPSHOT:
      return "PyTorch memory snapshot";
    case MP_INPUT_ONNX:
      return "ONNX model";
    }
  g_return_val_if_reached ("?");
}

static const char *
skip_space (const char *p, const char *end)
{
  /* a UTF-8 byte-order mark, as spreadsheet programs write */
  if (end - p >= 3 && memcmp (p, "\xef\xbb\xbf", 3) == 0)
    p += 3;
  while (p < end && g_ascii_isspace (*p))
    p++;
  return p;
}

static gboolean
contains (const char *data, gsize length, const char *needle)
{
  return g_strstr_len (data, MIN (length, SNIFF_BYTES), needle) != NULL;
}

/* A trace's own markers: "traceEvents", or a list of events with "ph" and
 * "ts" (the Trace Event Format's bare array). A graph names its format. */
gboolean
mp_input_sniff (const char *data, gsize length, const char *path, MpInputFormat *format,
                GError **error)
{
  const char *end = data + length;
  const char *p = skip_space (data, end);

  if (length >= 2 && (guint8) data[0] == 0x80 && data[1] >= 2 && data[1] <= 5)
    {
      *format = MP_INPUT_SNAPSHOT;
      return TRUE;
    }
  if (mp_onnx_sniff (data, length) || (path && g_str_has_suffix (path, ".onnx")))
    {
      *format = MP_INPUT_ONNX;
      return TRUE;
    }
  if (p < end && *p == '{')
    {
      *format = contains (data, length, "\"traceEvents\"") &&
                    !contains (data, length, "\"memplan.graph/1\"")
                  ? MP_INPUT_CHROME_TRACE
                  : MP_INPUT_GRAPH_JSON;
      return TRUE;
    }
  if (p < end && *p == '[')
    {
      const char *q = skip_space (p + 1, end);

      /* an empty list is an empty trace: the trace reader says so */
      if ((q < end && *q == ']') ||
          (q < end && *q == '{' && contains (data, length, "\"ph\"") &&
           contains (data, length, "\"ts\"")))
        {
          *format = MP_INPUT_CHROME_TRACE;
          return TRUE;
        }
    }
  else if (p == end)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_PARSE, path, "empty file");
      return FALSE;
    }
  else if (g_ascii_isalpha (*p) && memchr (p, ',', MIN ((gsize) (end - p), 4096)) != NULL)
    {
      *format = MP_INPUT_USAGE_CSV;
      return TRUE;
    }
  mp_set_file_error (error, MP_ANALYSIS_ERROR_FORMAT, path,
                     "not an input memplan reads: a graph is a JSON object with \"format\": "
                     "\"memplan.graph/1\"; a PyTorch profiler trace is a JSON object with "
                     "\"traceEvents\" (or a JSON list of events with \"ph\" and \"ts\"); a "
                     "memory snapshot is a pickle; an ONNX model is a protobuf ModelProto; usage "
                     "records are a CSV with the header 'id,lower,upper,size'");
  return FALSE;
}

void
mp_input_free (MpInput *input)
{
  if (input == NULL)
    return;
  if (input->trace)
    input->graph = NULL; /* the trace's */
  g_clear_pointer (&input->trace, mp_trace_free);
  g_clear_pointer (&input->graph, mp_graph_free);
  g_free (input->offsets);
  g_free (input);
}

MpInput *
mp_input_parse (const char *data, gsize length, const char *path, const MpInputOptions *options,
                GError **error)
{
  static const MpInputOptions defaults = { 0 };
  const MpTraceOptions       *trace = &(options ? options : &defaults)->trace;
  g_autoptr (MpInput) input = g_new0 (MpInput, 1);

  if (!mp_input_sniff (data, length, path, &input->format, error))
    return NULL;
  if (trace->device && input->format != MP_INPUT_CHROME_TRACE &&
      input->format != MP_INPUT_SNAPSHOT)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                         "a device (%s) was asked for, but this is a %s, not a PyTorch trace",
                         trace->device, mp_input_format_name (input->format));
      return NULL;
    }
  if (options && options->onnx.dims && options->onnx.dims[0] && !options->onnx.lenient_dims &&
      input->format != MP_INPUT_ONNX)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                         "a dimension was bound (--dim %s), but this is a %s: only ONNX models "
                         "have symbolic dimensions to bind", options->onnx.dims[0],
                         mp_input_format_name (input->format));
      return NULL;
    }
  switch (input->format)
    {
    case MP_INPUT_GRAPH_JSON:
      input->graph = mp_graph_parse_json (data, length, path, error);
      break;
    case MP_INPUT_USAGE_CSV:
      input->graph = mp_graph_parse_csv (data, length, path, &input->offsets, error);
      break;
    case MP_INPUT_ONNX:
      input->graph = mp_onnx_parse (data, length, path, &(options ? options : &defaults)->onnx,
                                    error);
      break;
    case MP_INPUT_CHROME_TRACE:
    case MP_INPUT_SNAPSHOT:
      if ((input->trace = mp_trace_parse_full (data, length, path, trace, error)))
        input->graph = input->trace->graph;
      break;
    }
  if (input->graph == NULL)
    return NULL;
  return g_steal_pointer (&input);
}

gboolean
mp_input_sniff_file (const char *path, MpInputFormat *format)
{
  g_autofree char *head = NULL;
  gsize            n;

  return mp_read_file_head (path, SNIFF_BYTES, &head, &n) &&
         mp_input_sniff (head, n, path, format, NULL);
}

MpInput *
mp_input_load (const char *path, const MpInputOptions *options, GError **error)
{
  g_autofree char *data = NULL;
  gsize            length;

  g_return_val_if_fail (path != NULL, NULL);
  /* a snapshot or a trace of gigabytes: read as it goes, not held whole */
  if (mp_trace_streams (path) &&
      !(options && options->onnx.dims && options->onnx.dims[0] && !options->onnx.lenient_dims))
    {
      static const MpInputOptions defaults = { 0 };
      g_autoptr (MpInput) input = g_new0 (MpInput, 1);

      if (!mp_input_sniff_file (path, &input->format))
        input->format = MP_INPUT_SNAPSHOT;
      input->trace = mp_trace_load_full (path, &(options ? options : &defaults)->trace, error);
      if (input->trace == NULL)
        return NULL;
      input->graph = input->trace->graph;
      return g_steal_pointer (&input);
    }
  if (!mp_read_file (path, &data, &length, error))
    return NULL;
  return mp_input_parse (data, length, path, options, error);
}
