#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs one libFuzzer target for a given time:
#   build-aux/fuzz.sh TARGET SECONDS [libFuzzer options…]
# TARGET: graph-json, minimalloc-csv, chrome-trace, snapshot-pickle, plan, report,
# onnx (the readers), all-planners, explain, render, cli, compare (what comes
# after them), gzip (the file reader under them all).
# Builds build-fuzz/ with clang (-Dfuzzing=true: ASan, UBSan, libFuzzer) on
# first use. Seeds come from data/, tests/data/, tests/fuzz-seeds/ and the
# kept crash inputs in tests/fuzz-regressions/TARGET; the growing corpus
# lives in build-fuzz/corpus/TARGET and crash inputs land in
# build-fuzz/artifacts/TARGET/. Exit status: 0 when nothing was found.
set -eu
cd "$(dirname "$0")/.."

if [ $# -lt 2 ]; then
  echo "usage: $0 TARGET SECONDS [libFuzzer options…]" >&2
  exit 2
fi
target=$1
seconds=$2
shift 2
build=${MEMPLAN_FUZZ_BUILD:-build-fuzz}
# absolute: the cli target works in a scratch folder of its own
case "$build" in
  /*) ;;
  *) build=$PWD/$build ;;
esac

case "$target" in
  graph-json)      seeds="data/*.json data/zoo/*.json" ;;
  minimalloc-csv)  seeds="data/minimalloc/*.csv" ;;
  chrome-trace)    seeds="tests/data/trace-*.json" ;;
  snapshot-pickle) seeds="tests/data/*.pickle" ;;
  plan)            seeds="tests/fuzz-seeds/plan/*" ;;
  report)          seeds="data/reports/*.json" ;;
  all-planners|explain)
                   seeds="data/*.json data/teaching/*.csv data/minimalloc/example.12.csv tests/data/trace-*.json tests/data/*.pickle" ;;
  render)          seeds="tests/fuzz-seeds/plan/*" ;;
  cli)             seeds="tests/fuzz-seeds/cli/*" ;;
  onnx)            seeds="data/onnx/*.onnx tests/data/onnx-*.onnx tests/data/onnx-exports/*.onnx" ;;
  compare)         seeds="tests/fuzz-seeds/compare/* tests/fuzz-seeds/plan/plans.json" ;;
  gzip)            seeds="tests/fuzz-seeds/gzip/* tests/data/*.gz" ;;
  *)
    echo "$0: unknown target '$target'" >&2
    exit 2
    ;;
esac

if [ ! -f "$build/build.ninja" ]; then
  CC=clang meson setup "$build" -Dfuzzing=true -Dgui=disabled -Dcuda=disabled
fi
meson compile -C "$build" "fuzz-$target" >/dev/null

seed_dir="$build/seeds/$target"
rm -rf "$seed_dir"
mkdir -p "$seed_dir" "$build/corpus/$target" "$build/artifacts/$target"
# shellcheck disable=SC2086 # the globs are meant to expand
cp $seeds "$seed_dir/"
if [ -d "tests/fuzz-regressions/$target" ]; then
  find "tests/fuzz-regressions/$target" -type f -exec cp {} "$seed_dir/" \;
fi

# Inputs up to 64 KiB; up to 1 MiB for one target per reader (all-planners
# reads graphs, records, traces and snapshots; plan; report), where memory
# amplification and quadratic costs show.
case "$target" in
  all-planners|plan|report) max_len=1048576 ;;
  *)                        max_len=65536 ;;
esac
# the CLI's messages on every run would drown libFuzzer's report
case "$target" in
  cli) set -- -close_fd_mask=2 "$@" ;;
esac

# GLib's slice allocator hides leaks from LeakSanitizer; UBSan stops at the
# first report. A single allocation over 256 MiB from one input is a
# hostile-size bug, reported like a crash; so is a 10 s input.
export G_SLICE=always-malloc
# fontconfig's font cache behind pango (render, cli) is never freed
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$PWD/build-aux/lsan.supp:print_suppressions=0}"
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
exec "$build/fuzz/fuzz-$target" \
  -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=256 \
  -max_len="$max_len" -print_final_stats=1 \
  -artifact_prefix="$build/artifacts/$target/" \
  "$@" "$build/corpus/$target" "$seed_dir"
