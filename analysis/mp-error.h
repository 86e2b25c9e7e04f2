/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-version.h"

#include <glib.h>

G_BEGIN_DECLS

#define MP_ANALYSIS_ERROR (mp_analysis_error_quark ())

typedef enum
{
  MP_ANALYSIS_ERROR_IO,          /* file cannot be read or written */
  MP_ANALYSIS_ERROR_PARSE,       /* not JSON / not CSV */
  MP_ANALYSIS_ERROR_FORMAT,      /* wrong or missing "format" */
  MP_ANALYSIS_ERROR_INVALID,     /* well-formed but semantically wrong */
  MP_ANALYSIS_ERROR_UNSUPPORTED, /* e.g. a planner that needs ops on a CSV: skipped */
  MP_ANALYSIS_ERROR_MEMORY,      /* the work would need more memory than the limit */
} MpAnalysisError;

MP_AVAILABLE_IN_1_0
GQuark mp_analysis_error_quark (void);

/* Sets error to "PATH: message"; every loader error goes through here so
 * that the user always learns which file is at fault. A cancelled job fails
 * with G_IO_ERROR_CANCELLED (g_cancellable_set_error_if_cancelled). */
MP_AVAILABLE_IN_1_0
void   mp_set_file_error (GError    **error,
                          gint        code,
                          const char *path,
                          const char *format,
                          ...) G_GNUC_PRINTF (4, 5);

G_END_DECLS
