/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  guint   n_tensors;  /* one op per tensor */
  guint   n_streams;  /* ops spread round-robin in chunks over streams */
  guint64 seed;
  gdouble long_share; /* share of long-lived tensors (default 0.05) */
} MpGenRandomOptions;

/* A random graph with realistic lifetimes: most tensors are read by the next
 * one to three ops, a few live for thousands of steps (skip connections,
 * saved activations), so the live set stays in the low thousands at any size.
 * Returns memplan.graph/1 JSON, or MiniMalloc CSV when csv is TRUE. */
char *mp_gen_random (const MpGenRandomOptions *options, gboolean csv, gsize *length);

G_END_DECLS
