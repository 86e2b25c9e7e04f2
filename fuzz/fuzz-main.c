/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer entry: one executable per loader, the loader named at build time
 * by MP_FUZZ_TARGET. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz-loaders.h"

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static const MpFuzzTarget *target;

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  /* a critical or warning is a bug found, like a crash */
  g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
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
