#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds google/minimalloc's CLI from a source tree, for the parity checks of
# issue 28 (tests/data/minimalloc-tests/ and the test that runs MiniMalloc on
# memplan's CSV). Debian 12 packages only: g++, pkg-config and libabsl-dev.
#
#   build-aux/build-minimalloc.sh SOURCE_DIR [OUTPUT_BINARY]
#
# Debian 12's abseil (20220623) predates absl/log, which MiniMalloc's
# main.cc and solver.cc include; tiny stand-ins for LOG, DLOG and the two
# setup calls are written next to the binary, and its abseil is built with
# its own string_view, so converter.cc's one std::string_view loop variable
# is read as absl::string_view (a copy of the file; the source is left
# alone). The solver itself is built unchanged. Upstream's CMakeLists wants its abseil submodule; a direct g++
# line avoids it. The binary reads --input, --capacity, --output (see
# src/main.cc).
set -eu

src=${1:?usage: build-minimalloc.sh SOURCE_DIR [OUTPUT_BINARY]}
out=${2:-$src/build-memplan/minimalloc}
test -f "$src/src/solver.cc" || { echo "$src: not a MiniMalloc source tree (no src/solver.cc)" >&2; exit 1; }
shim=$(dirname "$out")/absl-log-shim
mkdir -p "$shim/absl/log"

cat > "$shim/absl/log/log.h" <<'SHIM'
#pragma once
#include <iostream>
#include "absl/base/log_severity.h"
namespace memplan_shim {
struct Null { template <typename T> Null &operator<< (const T &) { return *this; } };
struct Line
{
  ~Line () { std::cerr << std::endl; }
  template <typename T> Line &operator<< (const T &v) { std::cerr << v; return *this; }
};
}
#define LOG(severity) (memplan_shim::Line () << #severity ": ")
#define DLOG(severity) (memplan_shim::Null ())
SHIM
cat > "$shim/absl/log/globals.h" <<'SHIM'
#pragma once
#include "absl/base/log_severity.h"
namespace absl {
inline void SetStderrThreshold (absl::LogSeverityAtLeast) {}
inline void EnableLogPrefix (bool) {}
}
SHIM
cat > "$shim/absl/log/initialize.h" <<'SHIM'
#pragma once
namespace absl { inline void InitializeLog () {} }
SHIM

sed 's/const std::string_view& record/const absl::string_view\& record/' \
  "$src/src/converter.cc" > "$shim/converter.cc"

libs=$(pkg-config --libs absl_flags absl_flags_parse absl_statusor absl_strings absl_str_format \
       absl_time absl_raw_hash_set absl_hash)
# shellcheck disable=SC2086
g++ -std=c++20 -O2 -DNDEBUG -I"$shim" -I"$src/src" \
  "$shim/converter.cc" "$src/src/minimalloc.cc" "$src/src/solver.cc" "$src/src/sweeper.cc" \
  "$src/src/validator.cc" "$src/src/main.cc" -o "$out" $libs
echo "built $out"
