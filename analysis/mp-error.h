/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define MP_ANALYSIS_ERROR (mp_analysis_error_quark ())

typedef enum
{
  MP_ANALYSIS_ERROR_IO,          /* file cannot be read or written */
  MP_ANALYSIS_ERROR_PARSE,       /* not JSON / not CSV */
  MP_ANALYSIS_ERROR_FORMAT,      /* wrong or missing "format" */
  MP_ANALYSIS_ERROR_INVALID,     /* well-formed but semantically wrong */
  MP_ANALYSIS_ERROR_UNSUPPORTED, /* e.g. a planner that needs ops on a CSV */
  MP_ANALYSIS_ERROR_CANCELLED,
} MpAnalysisError;

GQuark mp_analysis_error_quark (void);

G_END_DECLS
