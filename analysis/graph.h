/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-version.h"

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  MP_TENSOR_ACTIVATION,
  MP_TENSOR_INPUT,
  MP_TENSOR_PARAM,
  MP_TENSOR_OUTPUT,
  MP_TENSOR_N_KINDS
} MpTensorKind;

typedef enum
{
  MP_DTYPE_NONE, /* size given in bytes */
  MP_DTYPE_F64,
  MP_DTYPE_F32,
  MP_DTYPE_F16,
  MP_DTYPE_BF16,
  MP_DTYPE_F8,
  MP_DTYPE_I64,
  MP_DTYPE_I32,
  MP_DTYPE_I16,
  MP_DTYPE_I8,
  MP_DTYPE_U8,
  MP_DTYPE_BOOL,
  MP_DTYPE_N
} MpDType;

/* A time inside a buffer's lifetime when it occupies nothing, or only the
 * window [lo, hi) of its own space (MiniMalloc's gaps). first and last are
 * inclusive, in the graph's time units (steps once in an MpUsage). */
typedef struct
{
  gint64   first;
  gint64   last;
  gboolean windowed;
  guint64  lo;
  guint64  hi;
} MpGap;

/* A memory a graph or the command line declares (analysis/memories.h). */
typedef struct
{
  char   *name;
  guint64 capacity; /* bytes; 0: unbounded */
} MpMemory;

typedef struct
{
  char        *name;      /* in the graph's names chunk */
  guint64      size;        /* bytes, before alignment */
  MpTensorKind kind;
  MpDType      dtype;
  guint        n_dims;
  gint64      *shape;       /* NULL when n_dims == 0 */
  gint         view_of;     /* index of the tensor this is a view of, or -1 */
  guint64      view_offset; /* byte offset inside view_of */
  gint         producer;    /* index of the op that writes it, or -1 */
  gint         root;        /* owner of the storage (itself unless a view), -1 until checked */
  guint64      root_offset; /* this tensor's byte offset inside root */
  /* Explicit lifetime (inclusive steps) for usage-record inputs (CSV, traces);
   * -1 when the lifetime is derived from the ops. */
  gint64       first;
  gint64       last;
  /* Placement constraints. alignment: the buffer's own, 0 when only the
   * graph's applies; the offsets count only with their flag (a zeroed
   * tensor has none). */
  guint64      alignment;
  gboolean     has_fixed;
  guint64      fixed_offset;
  gboolean     has_preferred;
  guint64      preferred_offset;
  guint        gap_first;   /* its gaps: graph->gaps[gap_first .. gap_first + n_gaps) */
  guint        n_gaps;
  guint        memory;      /* 1 + its index in graph->memories; 0: any memory */
} MpTensor;

typedef struct
{
  char    *name;       /* in the graph's names chunk */
  guint   *inputs;
  guint    n_inputs;
  guint   *outputs;
  guint    n_outputs;
  guint    stream;
  guint64  workspace;
} MpOp;

typedef struct
{
  char       *name;      /* graph name; the file's base name when absent */
  char       *path;      /* file it was loaded from, or NULL */
  guint64     alignment; /* bytes, a power of two or 1 */
  MpTensor   *tensors;
  guint       n_tensors;
  MpOp       *ops;
  guint       n_ops;
  guint       n_steps;   /* n_ops, or the span of explicit lifetimes */
  gboolean    has_ops;   /* FALSE for usage records (CSV) */
  GHashTable *tensor_index; /* name -> index + 1 */
  GHashTable *op_index;     /* name -> index + 1 */
  GStringChunk *names;      /* the tensors' and ops' names: one block, not a malloc each */
  GPtrArray  *id_blocks;    /* the ops' input and output lists (mp_graph_alloc_ids) */
  guint       id_free;      /* unused entries at the end of the last block */
  GArray     *gaps;         /* MpGap: every tensor's lifetime gaps, or NULL */
  char       *note;         /* what the loader read but the planners do not use, or NULL */
  /* An imported trace's record of who allocated each tensor (read through
   * mp_trace_describe_origin), or NULL; freed with origins_free. */
  gpointer       origins;
  GDestroyNotify origins_free;
  /* The graph's own memories, fastest first ("memories" in graph JSON; a
   * tensor's "memory" is an index into them), or none. */
  MpMemory      *memories;
  guint          n_memories;
} MpGraph;

MP_AVAILABLE_IN_1_0
MpGraph    *mp_graph_new           (const char *name);
MP_AVAILABLE_IN_1_0
void        mp_graph_free          (MpGraph *graph);
MP_AVAILABLE_IN_1_0
gint        mp_graph_find_tensor   (const MpGraph *graph, const char *name);
MP_AVAILABLE_IN_1_0
gint        mp_graph_find_op       (const MpGraph *graph, const char *name);
MP_AVAILABLE_IN_1_0
guint       mp_graph_n_streams     (const MpGraph *graph);
MP_AVAILABLE_IN_1_0
gint        mp_graph_view_root     (const MpGraph *graph, guint tensor, guint64 *offset);

MP_AVAILABLE_IN_1_0
const char *mp_tensor_kind_to_string (MpTensorKind kind);
MP_AVAILABLE_IN_1_0
gboolean    mp_tensor_kind_from_string (const char *str, MpTensorKind *kind);
MP_AVAILABLE_IN_1_0
const char *mp_dtype_to_string     (MpDType dtype);
MP_AVAILABLE_IN_1_0
gboolean    mp_dtype_from_string   (const char *str, MpDType *dtype);
MP_AVAILABLE_IN_1_0
guint       mp_dtype_size          (MpDType dtype);

/* The one alignment rule, for every reader and for the lifetimes: a power of
 * two from 1 to MP_MAX_ALIGNMENT. */
#define MP_MAX_ALIGNMENT (G_GUINT64_CONSTANT (1) << 30)
MP_AVAILABLE_IN_1_0
gboolean    mp_alignment_valid     (guint64 alignment);
/* The one message for an alignment that breaks the rule, wherever it was
 * given: "WHAT must be a power of two from 1 to 2^30, got VALUE". */
MP_AVAILABLE_IN_1_0
char       *mp_alignment_message   (const char *what, const char *value);
/* The rule as a file's error ("PATH: alignment must be …"). */
MP_AVAILABLE_IN_1_0
gboolean    mp_graph_check_alignment (guint64 alignment, const char *path, GError **error);
/* The largest fixed or preferred offset a file may give: 2^48, far beyond
 * any device, so that offset plus size cannot wrap. */
#define MP_MAX_FIXED_OFFSET (G_GUINT64_CONSTANT (1) << 48)
/* Streams a graph may use: an op's "stream" is from 0 to MP_MAX_STREAMS - 1. */
#define MP_MAX_STREAMS 1024

/* Loaders: every error names the file and the tensor or op at fault. Any
 * input by its content: input.h; opened and planned: workload.h. */
MP_AVAILABLE_IN_1_0
MpGraph    *mp_graph_load_json     (const char *path, GError **error);
MP_AVAILABLE_IN_1_0
MpGraph    *mp_graph_parse_json    (const char *data, gsize length, const char *path, GError **error);
MP_AVAILABLE_IN_1_0
MpGraph    *mp_graph_parse_csv     (const char *data, gsize length, const char *path,
                                    guint64 **offsets_out, GError **error);

/* The graph as memplan.graph/1 JSON text (a graph with ops). */
MP_AVAILABLE_IN_1_0
char       *mp_graph_to_json       (const MpGraph *graph);

/* Elements in the params (bytes for a param without a dtype); their bytes
 * in *bytes when not NULL. */
MP_AVAILABLE_IN_1_0
guint64     mp_graph_count_params  (const MpGraph *graph, guint64 *bytes);

/* Checks the finished graph: names, producers, views. Loaders call it. */
MP_AVAILABLE_IN_1_0
gboolean    mp_graph_check         (MpGraph *graph, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MpGraph, mp_graph_free)

G_END_DECLS
