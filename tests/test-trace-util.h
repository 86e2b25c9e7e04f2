/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Shared by the trace tests: loading the fixtures of tests/data, written by
 * tests/make-trace-fixtures.py. */

#include <glib.h>
#include "test-util.h"

static inline MpTrace *
load_trace (const char *name, const MpTraceOptions *options)
{
  g_autofree char *path = test_fixture_path (name);
  GError          *error = NULL;
  MpTrace         *trace = mp_trace_load_full (path, options, &error);

  g_assert_no_error (error);
  return trace;
}
