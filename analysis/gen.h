/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <stdio.h>

#include "mp-version.h"

#include <glib.h>

G_BEGIN_DECLS

/* The shape of the random lifetimes; each makes a different planner work
 * hard (README, Speed). */
typedef enum
{
  MP_GEN_LIFETIMES_RANDOM,    /* mostly short, a few long (skip connections) */
  MP_GEN_LIFETIMES_LONG,      /* length uniform up to the whole run: ~n/2 live at the end */
  MP_GEN_LIFETIMES_STAIRCASE, /* each tensor lives from its op to the end: all live at last */
} MpGenLifetimes;

typedef struct
{
  guint   n_tensors;  /* one op per tensor */
  guint   n_streams;  /* ops spread round-robin in chunks over streams */
  guint64 seed;
  gdouble long_share; /* share of long-lived tensors (default 0.05) */
  MpGenLifetimes lifetimes;
} MpGenRandomOptions;

/* "random", "long" or "staircase"; FALSE for anything else. */
MP_AVAILABLE_IN_1_0
gboolean mp_gen_lifetimes_from_string (const char *name, MpGenLifetimes *lifetimes);

/* A random graph with realistic lifetimes: most tensors are read by the next
 * one to three ops, a few live for thousands of steps (skip connections,
 * saved activations), so the live set stays in the low thousands at any size.
 * Returns memplan.graph/1 JSON, or MiniMalloc CSV when csv is TRUE. */
MP_AVAILABLE_IN_1_0
char *mp_gen_random (const MpGenRandomOptions *options, gboolean csv, gsize *length);

/* The model zoo: well-known architectures op by op with their published
 * shapes. Zero fields take the model's defaults. */
typedef struct
{
  guint    batch;    /* default 1 */
  guint    seq;      /* bert-base 128, gpt2 1024 */
  guint    layers;   /* bert-base 12, gpt2 12 */
  gint     dtype;    /* an MpDType for floating tensors; 0: f32 */
  gboolean training; /* gpt2: forward, loss and backward */
  MpGenRandomOptions random;
} MpGenZooOptions;

typedef struct
{
  const char *name;
  const char *description;
} MpGenZooModel;

MP_AVAILABLE_IN_1_0
const MpGenZooModel *mp_gen_zoo_models (guint *n_models);
/* memplan.graph/1 JSON of a model; an unknown model or an option the model
 * does not take is an error. */
MP_AVAILABLE_IN_1_0
char *mp_gen_zoo (const char *model, const MpGenZooOptions *options, gsize *length,
                  GError **error);

/* PyTorch-shaped files for the import benchmarks (gen-torch.c), written to
 * out, gzip-compressed when gzip is TRUE: a memory snapshot pickle of
 * n_actions trace entries (segment_alloc, alloc, free_requested,
 * free_completed, each with 8 to 24 Python frames), or a profiler Chrome
 * trace of n_events [memory] events. FALSE when a write failed. */
MP_AVAILABLE_IN_1_0
gboolean mp_gen_torch_snapshot (FILE *out, guint64 n_actions, guint64 seed, gboolean gzip);
MP_AVAILABLE_IN_1_0
gboolean mp_gen_torch_trace    (FILE *out, guint64 n_events, guint64 seed, gboolean gzip);

G_END_DECLS
