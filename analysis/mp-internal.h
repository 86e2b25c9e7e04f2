/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Included first by every engine-internal header: outside the engine (the
 * library's own sources, its tests and fuzz targets, which define
 * MP_ANALYSIS_COMPILATION) an internal header does not compile, so the
 * front-ends reach the engine through memplan-analysis.h only. */
#if !defined (MP_ANALYSIS_COMPILATION)
#error "this header is internal to the engine (analysis/): include memplan-analysis.h"
#endif
