/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer entry: one executable per loader, the loader named at build time
 * by MP_FUZZ_TARGET. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz-loaders.h"

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static const MpFuzzTarget *target;

static GLogWriterOutput
abort_on_warning (GLogLevelFlags level, const GLogField *fields, gsize n_fields, gpointer data)
{
  g_log_writer_standard_streams (level, fields, n_fields, data);
  if (level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING))
    abort ();
  return G_LOG_WRITER_HANDLED;
}

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  /* a critical or warning is a bug found, like a crash: abort (libFuzzer
   * keeps the input) rather than GLib's breakpoint trap (it would not) */
  g_log_set_writer_func (abort_on_warning, NULL, NULL);
  target = mp_fuzz_target_lookup (MP_FUZZ_TARGET);
  if (target == NULL)
    abort ();
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (GError) error = NULL;
  gboolean ok = target->feed ((const char *) data, size, "fuzz-input", &error);

  /* a refusal must say why */
  if (!ok && error == NULL)
    abort ();
  return 0;
}
