/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-version.h"

#include "graph.h"
#include "onnx.h"
#include "trace.h"

G_BEGIN_DECLS

/* Every input memplan reads, recognised by its content (not its name). */
typedef enum
{
  MP_INPUT_GRAPH_JSON,   /* memplan.graph/1 */
  MP_INPUT_USAGE_CSV,    /* MiniMalloc usage records */
  MP_INPUT_CHROME_TRACE, /* PyTorch profiler, Chrome trace JSON */
  MP_INPUT_SNAPSHOT,     /* PyTorch memory snapshot pickle */
  MP_INPUT_ONNX,         /* an ONNX model */
} MpInputFormat;

/* How inputs that need a choice are read; zero is the default for each. */
typedef struct
{
  MpTraceOptions trace; /* the device, blocks older than the trace */
  MpOnnxOptions  onnx;  /* symbolic dimensions, views or copies */
} MpInputOptions;

MP_AVAILABLE_IN_1_0
const char *mp_input_format_name (MpInputFormat format);

/* The one recogniser: what data (the start of path, gzip inflated) holds,
 * by its content; FALSE, with an error saying what each format would
 * need, for none of them. The loaders, the memory estimate and the suites
 * all ask it. */
MP_AVAILABLE_IN_1_0
gboolean    mp_input_sniff       (const char *data, gsize length, const char *path,
                                  MpInputFormat *format, GError **error);
/* The same for a file's first bytes; FALSE for an unreadable file too. */
MP_AVAILABLE_IN_1_0
gboolean    mp_input_sniff_file  (const char *path, MpInputFormat *format);

/* What a file holds once read: a graph (with ops, or usage records) and, for
 * an allocator trace, the trace it came from, which owns the graph (the
 * trace's queries need it). */
typedef struct
{
  MpInputFormat format;
  MpGraph      *graph;   /* a trace's: trace->graph */
  MpTrace      *trace;   /* traces only */
  guint64      *offsets; /* a CSV's offset column (a plan), or NULL */
} MpInput;

/* Reads path once (gzip inflated) and parses it by its content (an .onnx
 * name is read as ONNX, so that a broken model gets the ONNX reader's
 * reason). options NULL: the defaults. A file that is none of the formats
 * gets an error saying what each would need. */
MP_AVAILABLE_IN_1_0
MpInput *mp_input_load  (const char *path, const MpInputOptions *options, GError **error);
MP_AVAILABLE_IN_1_0
MpInput *mp_input_parse (const char *data, gsize length, const char *path,
                         const MpInputOptions *options, GError **error);
MP_AVAILABLE_IN_1_0
void     mp_input_free  (MpInput *input);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MpInput, mp_input_free)

G_END_DECLS
