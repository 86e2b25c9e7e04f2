/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-version.h"

#include <glib.h>

G_BEGIN_DECLS

/* What loading and planning will cost in memory, told before the work
 * starts, so that a job too big for the machine is refused with the figure
 * instead of being killed (or swapping) halfway. The costs per byte and per
 * tensor were measured with memplan-cli bench (README, Hardening). */

/* Bytes of memory available (MemAvailable in /proc/meminfo); 0 if unknown. */
MP_AVAILABLE_IN_1_0
guint64  mp_memory_available        (void);
/* Reading path (file_size bytes), by its first bytes: a graph, records, a
 * trace or a snapshot each cost a measured multiple of their size. */
MP_AVAILABLE_IN_1_0
guint64  mp_memory_estimate_load    (const char *path, guint64 file_size);
/* The check before reading path: TRUE when its load estimate (stored in
 * *estimate, 0 for what is not a regular file: the reader refuses that)
 * fits under limit, as mp_memory_check; the error names "PATH: loading". */
MP_AVAILABLE_IN_1_0
gboolean mp_memory_check_load       (const char *path, guint64 limit, guint64 *estimate,
                                     GError **error);
/* A Chrome trace of length bytes that the streaming reader does not take
 * (fields of other types, or not well-formed JSON) read the old way: held
 * whole with its events read one at a time through json-c, or (tree) as
 * one json-c tree, the reader of last resort for a document that is not
 * well-formed, for its error message. */
MP_AVAILABLE_IN_1_0
guint64  mp_memory_estimate_chrome_fallback (guint64 length, gboolean tree);
/* Running planner on n_records records, above what loading took, the plan
 * included. */
MP_AVAILABLE_IN_1_0
guint64  mp_memory_estimate_plan    (const char *planner, guint64 n_records);
/* import: writing n_records allocations as JSON, whose ops and stack
 * frames hold text_bytes bytes in text_lines lines, or (csv) as CSV, whose
 * op names hold text_bytes bytes: the text, or the few MiB of buffer it
 * goes through to the file when it is longer. */
MP_AVAILABLE_IN_1_0
guint64  mp_memory_estimate_import  (guint64 n_records, guint64 text_bytes, guint64 text_lines,
                                     gboolean csv);
/* gen random and bench: the generated text of n_tensors tensors. */
MP_AVAILABLE_IN_1_0
guint64  mp_memory_estimate_generate (guint64 n_tensors);
/* TRUE when estimate fits under limit (0: the memory available, no check
 * when that is unknown); else an error naming what, the estimate, the
 * limit and the option that overrides it (--max-memory). */
MP_AVAILABLE_IN_1_0
gboolean mp_memory_check            (const char *what, guint64 estimate, guint64 limit,
                                     GError **error);
/* "512M", "8G", "1.5T", bytes without a unit; FALSE for anything else. */
MP_AVAILABLE_IN_1_0
gboolean mp_parse_size              (const char *text, guint64 *bytes);

G_END_DECLS
