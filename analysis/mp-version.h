/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* What libmemplan-1 exports. The library is compiled with hidden symbols, so
 * only a declaration marked here is part of its ABI; the mark also says
 * since which version it is there, as GLib's GLIB_AVAILABLE_IN_* do. A
 * public header's every function carries one (the house test checks); a
 * variable's mark stands in for its extern. */

#define MP_API_VERSION 1

#if defined(__GNUC__)
#define _MP_EXTERN __attribute__ ((visibility ("default"))) extern
#else
#define _MP_EXTERN extern
#endif

#define MP_AVAILABLE_IN_ALL _MP_EXTERN
#define MP_AVAILABLE_IN_1_0 _MP_EXTERN
