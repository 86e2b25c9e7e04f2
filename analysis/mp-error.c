/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "mp-error.h"

G_DEFINE_QUARK (mp-analysis-error-quark, mp_analysis_error)
