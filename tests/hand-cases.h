/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* The foundation issue's hand-worked greedy-by-size cases, as
 * (size, first, last) with inclusive steps; several test programs check
 * them from different sides (offsets, decisions, optimality). */

#include "test-util.h"

static const TestRecord case1[] = { { 16, 0, 1 }, { 8, 1, 2 }, { 64, 2, 3 }, { 32, 3, 4 },
                                    { 8, 4, 5 } };
static const TestRecord case2[] = { { 32, 0, 1 }, { 32, 1, 4 }, { 8, 2, 5 }, { 16, 3, 5 },
                                    { 8, 4, 5 },  { 64, 5, 7 }, { 8, 6, 8 }, { 8, 7, 8 },
                                    { 16, 8, 9 } };
/* Pisarchyk & Lee's running example (data/teaching/pisarchyk-lee.csv) */
static const TestRecord case3[] = { { 32, 0, 1 }, { 28, 1, 4 }, { 36, 2, 5 }, { 16, 3, 5 },
                                    { 8, 4, 5 },  { 64, 5, 7 }, { 10, 6, 8 }, { 40, 7, 8 } };
static const TestRecord case4[] = { { 56, 1, 1 }, { 40, 0, 1 }, { 64, 1, 1 }, { 152, 0, 0 },
                                    { 20, 1, 1 } };

/* Seven buffers where every heuristic, first-fit and all of best-of's
 * orders included, stops at 28 MiB and only the exact search reaches the
 * lower bound, 27 MiB (live at step 3: 6 + 7 + 7 + 7). */
#define MIB (G_GUINT64_CONSTANT (1) << 20)
static const TestRecord search_only[] = { { 6 * MIB, 3, 4 }, { 7 * MIB, 2, 3 },
                                          { 7 * MIB, 0, 0 }, { 6 * MIB, 0, 0 },
                                          { 7 * MIB, 3, 3 }, { 8 * MIB, 0, 2 },
                                          { 7 * MIB, 2, 4 } };
