/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-exec"

#include "exec-private.h"

/* Built without nvcc: the CUDA backend is never usable, and says why. */
#define NO_CUDA "memplan was built without CUDA support (nvcc not found, or -Dcuda=disabled)"

MpExecBackend *
mp_exec_cuda_backend_new (gint device, GError **error)
{
  g_set_error_literal (error, MP_EXEC_ERROR, MP_EXEC_ERROR_UNAVAILABLE, NO_CUDA);
  return NULL;
}

gboolean
mp_exec_cuda_available (char **reason)
{
  if (reason)
    *reason = g_strdup (NO_CUDA);
  return FALSE;
}

guint64
mp_exec_cuda_cache_bytes (gint device)
{
  return 0;
}
