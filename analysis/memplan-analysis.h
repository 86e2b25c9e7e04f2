/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* The engine: graph model, loaders, lifetimes, planners, validation. */
#include "mp-error.h"
#include "onnx.h"
#include "graph.h"
#include "lifetimes.h"
#include "plan.h"
#include "schedule.h"
#include "file-util.h"
#include "plan-io.h"
#include "planner.h"
#include "planner-trace.h"
#include "validate.h"
#include "time-index.h"
#include "gen.h"
#include "trace.h"
#include "pickle.h"
#include "report.h"
#include "report-compare.h"
#include "report-suite.h"
