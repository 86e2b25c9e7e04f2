/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-internal.h"

#include "optimal-search.h"

G_BEGIN_DECLS

/* Shared by the search and its bounds. */
int   mp_opt_cmp_u32     (const void *a, const void *b);
int   mp_opt_cmp_u64     (const void *a, const void *b);
/* How many of the n sorted values are below t. */
guint mp_opt_count_below (const guint *sorted, guint n, guint t);

G_END_DECLS
