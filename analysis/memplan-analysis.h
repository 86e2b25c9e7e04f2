/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* The engine as the front-ends see it: open any input, run planners and
 * judge each plan (workload.h), write what came out, and the suites, reports
 * and generators. Loaders, lifetimes and the validator stay behind the
 * workload; tests include their own headers. */
#include "mp-version.h"
#include "mp-error.h"
#include "workload.h"
#include "buffers.h"
#include "file-util.h"
#include "text-util.h"
#include "memories.h"
#include "memory-estimate.h"
#include "plan-io.h"
#include "plan-rank.h"
#include "plan-table.h"
#include "decision-trace.h"
#include "constraint-explain.h"
#include "gen.h"
#include "report.h"
#include "report-compare.h"
#include "report-suite.h"
#include "trace-diff.h"
