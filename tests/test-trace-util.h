/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Shared by the trace tests: the fixtures of tests/data, written by
 * tests/make-trace-fixtures.py. */

#include <glib.h>
#include "memplan-analysis.h"

static inline char *
fixture (const char *name)
{
  const char *src = g_getenv ("MEMPLAN_SOURCE_DIR");

  g_assert_nonnull (src);
  return g_build_filename (src, "tests", "data", name, NULL);
}

static inline MpTrace *
load_trace (const char *name, const MpTraceOptions *options)
{
  g_autofree char *path = fixture (name);
  GError          *error = NULL;
  MpTrace         *trace = mp_trace_load_full (path, options, &error);

  g_assert_no_error (error);
  return trace;
}
