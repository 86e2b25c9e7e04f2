/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* One entry per file loader that memplan exposes to untrusted input. The
 * same feed functions serve the libFuzzer targets (fuzz/fuzz-main.c) and the
 * regression test over the crash inputs (tests/test-fuzz-regressions.c). */
typedef struct
{
  const char *name; /* also the directory under tests/fuzz-regressions/ */
  /* Parses data as the loader would read it from path; TRUE when it loaded,
   * FALSE with *error set when it refused the input. Never crashes. */
  gboolean (*feed) (const char *data, gsize length, const char *path, GError **error);
} MpFuzzTarget;

const MpFuzzTarget *mp_fuzz_targets       (guint *n_targets);
const MpFuzzTarget *mp_fuzz_target_lookup (const char *name);

G_END_DECLS
