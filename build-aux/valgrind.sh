#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The CLI under valgrind (memcheck) on the sample graphs, traces and bad
# inputs: every run must be free of invalid accesses, uses of uninitialised
# memory and leaks (definite or indirect). Suppressions cover library
# internals only: GLib's own file (its type system and caches) and
# build-aux/valgrind.supp (fontconfig's font cache, reached through pango).
#   build-aux/valgrind.sh            uses build/ (builds it when missing)
set -eu
cd "$(dirname "$0")/.."

if ! command -v valgrind >/dev/null; then
  echo "$0: valgrind is not installed (apt-get install valgrind)" >&2
  exit 2
fi
if [ ! -f build/build.ninja ]; then
  meson setup build
fi
meson compile -C build >/dev/null

cli=build/cli/memplan-cli
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
supp="--suppressions=build-aux/valgrind.supp"
[ -f /usr/share/glib-2.0/valgrind/glib.supp ] &&
  supp="$supp --suppressions=/usr/share/glib-2.0/valgrind/glib.supp"
export G_SLICE=always-malloc G_DEBUG=gc-friendly

failed=0
# check EXPECTED_STATUS ARGS…: runs the CLI under memcheck
check () {
  want=$1
  shift
  status=0
  # shellcheck disable=SC2086 # supp holds one or two options
  valgrind -q --tool=memcheck --leak-check=full --show-leak-kinds=definite,indirect \
    --errors-for-leak-kinds=definite,indirect --error-exitcode=99 $supp \
    "$cli" "$@" >"$out/stdout" 2>"$out/stderr" || status=$?
  if [ "$status" -ne "$want" ]; then
    echo "FAIL (exit $status, expected $want): memplan-cli $*"
    cat "$out/stderr"
    failed=1
  else
    echo "ok: memplan-cli $*"
  fi
}

check 0 plan data/teaching.json
check 0 plan data/default.json --planner all --format json -o "$out/plans.json"
check 0 validate data/default.json "$out/plans.json"
check 0 plan data/minimalloc/A.1048576.csv --format csv -p greedy-by-size -o "$out/plan.csv"
check 0 validate data/minimalloc/A.1048576.csv "$out/plan.csv"
check 0 plan data/zoo/resnet50.json
check 0 gen resnet50 -o "$out/resnet50.json"
check 0 gen random --tensors 500 --streams 2
check 0 import tests/data/snapshot.pickle
check 0 import tests/data/trace-two-devices.json --device cpu
check 0 render data/teaching.json -o "$out/teaching.png"
check 0 exec data/teaching.json -p greedy-by-size --backend cpu  # the CUDA driver is not ours to check
check 1 compare data/reports/base.json data/reports/new.json --allow-different-options
check 0 plan data/onnx/resnet-mini.onnx --planner all
check 0 plan data/onnx/mlp-no-shapes.onnx  # through libonnx's shape inference
check 0 import data/onnx/encoder-2x256.onnx --dim batch=2 --dim seq=8 -o "$out/encoder.json"
# bad inputs: a clean error, nothing leaked on the way out
check 2 plan tests/data/trace-truncated.json
check 2 plan tests/data/onnx-truncated.onnx
check 2 plan data/onnx/encoder-2x256.onnx
check 2 import tests/data/snapshot-truncated.pickle
check 2 plan tests/fuzz-regressions/graph-json/scalar-document.json
check 2 plan data/teaching.json -o data/teaching.json
check 2 validate data/teaching.json data/default.json
exit $failed
