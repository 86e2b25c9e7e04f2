#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds the TFLite peer of bench.sh's start-up row: build-aux/tflite-driver.cc
# around TFLite GPU's GreedyBySizeAssignment, compiled from a TensorFlow
# source folder (its sources are not in this repository):
#   build-aux/build-tflite-driver.sh [--stable] TENSORFLOW_DIR [OUTPUT]
# (default OUTPUT: build/tflite-driver, build/tflite-driver-stable)
# Only these files of TENSORFLOW_DIR are read (a sparse checkout will do):
#   tensorflow/lite/delegates/gpu/common/memory_management/greedy_by_size_assignment.cc
#   tensorflow/lite/delegates/gpu/common/memory_management/internal.{h,cc}
#   tensorflow/lite/delegates/gpu/common/memory_management/types.h
#   tensorflow/lite/delegates/gpu/common/{types,util}.h
# Needs g++ and Debian's libabsl-dev, linked statically as TFLite's Bazel
# build links Abseil, so that the peer pays no more start-up than it must.
# The header of the assignment is written here with the signature of the .cc
# (its own pulls in TFLite's status macros), and fp16.h, which types.h
# includes for a type the assignment does not use, as declarations only.
# --stable builds a second driver for checking the rule, not for timing:
# TFLite sorts by size with std::sort, whose order among equal sizes is
# libstdc++'s; memplan's sort is stable (AITemplate's rule). With
# std::stable_sort in a copy of the .cc, the offsets must equal memplan's
# byte for byte.
set -eu
stable=false
[ "${1:-}" = --stable ] && { stable=true; shift; }
[ $# -ge 1 ] || { echo "usage: $0 [--stable] TENSORFLOW_DIR [OUTPUT]" >&2; exit 2; }
tf=$1
here=$(cd "$(dirname "$0")" && pwd)
out=${2:-$here/../build/tflite-driver$($stable && echo -stable || :)}
mm=tensorflow/lite/delegates/gpu/common/memory_management
for f in $mm/greedy_by_size_assignment.cc $mm/internal.h $mm/internal.cc $mm/types.h \
         tensorflow/lite/delegates/gpu/common/types.h tensorflow/lite/delegates/gpu/common/util.h; do
  [ -f "$tf/$f" ] || { echo "$0: $tf/$f is missing" >&2; exit 1; }
done
pkg-config --exists absl_status || { echo "$0: install libabsl-dev" >&2; exit 1; }
shim=$(mktemp -d)
trap 'rm -rf "$shim"' EXIT
mkdir -p "$shim/$mm"
cat >"$shim/$mm/greedy_by_size_assignment.h" <<'H'
#pragma once
#include <vector>
#include "absl/status/status.h"
#include "tensorflow/lite/delegates/gpu/common/memory_management/types.h"
namespace tflite {
namespace gpu {
absl::Status GreedyBySizeAssignment(const std::vector<TensorUsageRecord<size_t>>& usage_records,
                                    size_t base_addr_align_bytes, OffsetsAssignment* assignment);
}  // namespace gpu
}  // namespace tflite
H
cat >"$shim/fp16.h" <<'H'
#pragma once
#include <cstdint>
uint16_t fp16_ieee_from_fp32_value(float f);
float fp16_ieee_to_fp32_value(uint16_t h);
H
cc=$tf/$mm/greedy_by_size_assignment.cc
if $stable; then
  sed 's/std::sort(ordered_records/std::stable_sort(ordered_records/' "$cc" >"$shim/gbs.cc"
  grep -q 'std::stable_sort(ordered_records' "$shim/gbs.cc" ||
    { echo "$0: $cc: no std::sort(ordered_records to make stable" >&2; exit 1; }
  cc=$shim/gbs.cc
fi
# Debian's Abseil archives, in pkg-config's order, linked statically
absl=$(pkg-config --static --libs-only-l absl_status)
g++ -std=c++17 -O2 -DNDEBUG -I"$shim" -I"$tf" -o "$out" \
  "$here/tflite-driver.cc" "$cc" "$tf/$mm/internal.cc" \
  -Wl,-Bstatic $absl -Wl,-Bdynamic
echo "$out"
