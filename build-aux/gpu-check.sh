#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The executor's validation on a machine with an NVIDIA GPU, in two stages
# that each end within 10 minutes, and a one-page report.
#
#   build-aux/gpu-check.sh [--no-cuda] [--bundle DIR] [tests|runs|all] [BUILDDIR]
#
# tests: the exec tests (CPU backend); where a device is usable, the CUDA
#        tests, then compute-sanitizer (only where it says it can run here):
#        memcheck on the CUDA tests, racecheck, synccheck and initcheck on a
#        concurrent two-towers run.
# runs:  every zoo model with every planner on the CUDA backend, one op at
#        a time and on the graph's streams, each plan's verdict asserted
#        against the table below and against the CPU backend's (parity);
#        each data/ sample likewise; gpt2 batch 32 training; --bench on
#        resnet50 and bert-base; a 4.5 GiB arena; and an overlap planted in a
#        tensor of more than 32 GiB, which must be found at its byte.
#
# Binaries: the tree, built in BUILDDIR (default build-gpu) with the CUDA
# backend, when meson, nvcc and the dev packages are here; otherwise the
# bundle of build-aux/gpu-bundle.sh (--bundle DIR, or gpu-bundle/ in the
# tree). It says which.
#
# Writes OUT/report.md (OUT: BUILDDIR/gpu-check, or gpu-check-out/ beside
# the bundle): the device, the driver, the figures, PASS/FAIL per line;
# every run is listed, a failed one with its exit status and last lines.
# Exit status: 0 every line passed, 1 one failed, 77 no usable GPU here (or
# --no-cuda): the CUDA stages did not run.
set -u

srcdir=$(cd "$(dirname "$0")/.." && pwd)
PATH=$PATH:/usr/local/cuda/bin
export PATH
no_cuda=0 bundle='' stage=all builddir=''
while [ $# -gt 0 ]; do
  case $1 in
    --no-cuda) no_cuda=1; shift ;;
    --bundle) bundle=$2; shift 2 ;;
    --bundle=*) bundle=${1#--bundle=}; shift ;;
    tests|runs|all) stage=$1; shift ;;
    -h|--help) sed -n '3,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) builddir=$1; shift ;;
  esac
done
say () { printf 'gpu-check: %s\n' "$*"; }

# The expected verdicts: per zoo model and planner, the plan's verdict run
# one op at a time (in the order it was made for) and with the graph's
# streams concurrent. Only inception has several streams; every planner
# plans it for its parallel groups (--schedule concurrent, the default for
# several streams), so every plan is clean both ways. Made for op order
# (--schedule sequential) all but naive's and multistream's race on the
# device: the row inception-op-order runs them so and must see it.
EXPECTED='
resnet50      *                  clean  clean
mobilenet-v2  *                  clean  clean
bert-base     *                  clean  clean
gpt2          *                  clean  clean
unet          *                  clean  clean
inception     *                  clean  clean
inception-op-order  naive        clean  clean
inception-op-order  multistream  clean  clean
inception-op-order  *            clean  CORRUPT
'
MODELS="resnet50 mobilenet-v2 bert-base gpt2 unet inception"

expected () { # MODEL PLANNER COLUMN(3: one op at a time, 4: concurrent)
  printf '%s\n' "$EXPECTED" | awk -v m="$1" -v p="$2" -v c="$3" \
    '$1 == m && ($2 == p || $2 == "*") { v = $c; if ($2 == p) { print v; exit } } END { if (v != "") print v }' \
    | head -n 1
}

# 1. the binaries
if [ -z "$bundle" ] && [ -x "$srcdir/bin/memplan-cli" ] && [ -x "$srcdir/tests/test-exec" ]; then
  bundle=$srcdir   # this script is the bundle's own copy
fi
why_not_tree=
if [ -z "$bundle" ]; then
  if ! command -v meson >/dev/null 2>&1; then
    why_not_tree="meson is not installed"
  elif ! command -v nvcc >/dev/null 2>&1; then
    why_not_tree="nvcc is not installed"
  elif ! pkg-config --exists 'glib-2.0 >= 2.74' json-c cairo pangocairo 2>/dev/null; then
    why_not_tree="the dev packages are missing (pkg-config: glib-2.0 >= 2.74, json-c, cairo, pangocairo)"
  fi
  if [ -n "$why_not_tree" ]; then
    if [ -x "$srcdir/gpu-bundle/run.sh" ]; then
      bundle=$srcdir/gpu-bundle
    else
      say "the tree cannot build here ($why_not_tree) and there is no bundle:" \
          "make one on a build machine with build-aux/gpu-bundle.sh and copy it here"
      exit 1
    fi
  fi
fi
if [ -n "$bundle" ]; then
  bundle=$(cd "$bundle" && pwd)
  cli=$bundle/bin/memplan-cli
  testdir=$bundle/tests
  MEMPLAN_DATA_DIR=$bundle/data
  MEMPLAN_SOURCE_DIR=$bundle/src
  export MEMPLAN_DATA_DIR MEMPLAN_SOURCE_DIR
  LD_LIBRARY_PATH=$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export LD_LIBRARY_PATH
  out=${GPU_CHECK_OUT:-$(dirname "$bundle")/gpu-check-out}
  datadir=$bundle/data
  torchcmp=$bundle/torch-caching-compare.py
  source="the bundle in $bundle${why_not_tree:+ (the tree cannot build here: $why_not_tree)}"
else
  builddir=${builddir:-build-gpu}
  case $builddir in /*) ;; *) builddir=$srcdir/$builddir ;; esac
  if [ -d "$builddir/meson-private" ]; then
    meson configure "$builddir" -Dcuda=enabled >/dev/null || exit 1
  else
    meson setup "$builddir" "$srcdir" -Dcuda=enabled >/dev/null || exit 1
  fi
  meson compile -C "$builddir" || exit 1
  cli=$(find "$builddir" -path "$builddir/meson-*" -prune -o -type f -name memplan-cli -perm -u+x \
          -print | head -n 1)
  testdir=$builddir/tests
  out=${GPU_CHECK_OUT:-$builddir/gpu-check}
  datadir=$srcdir/data
  torchcmp=$srcdir/build-aux/torch-caching-compare.py
  source="the tree, built in $builddir"
fi
MEMPLAN_CLI=$cli
export MEMPLAN_CLI
say "binaries: $source"
mkdir -p "$out"
results=$out/results-$stage.tsv
: > "$results"

# record NAME PASS|FAIL|SKIP DETAIL: one line of the report
status=0
record () {
  printf '%s\t%s\t%s\n' "$1" "$2" "$3" >> "$results"
  say "$2 $1${3:+: $3}"
  [ "$2" = FAIL ] && status=1
  return 0
}
# the last lines of a failed command, for the report
tail_of () { tail -n 6 "$1" 2>/dev/null | tr '\t' ' ' | sed 's/$/ ⏎/' | tr -d '\n'; }
# run NAME LIMIT CMD...: a command's exit status, with its output kept
run () {
  name=$1 limit=$2
  shift 2
  rc=0
  timeout "$limit" "$@" > "$out/$name.log" 2>&1 || rc=$?
  return $rc
}

# 2. the device: the CUDA test says why not, in words
cuda=0
if [ $no_cuda = 1 ]; then
  reason="--no-cuda"
else
  first=$("$testdir/test-exec-cuda" 2>&1 | head -n 1)
  case $first in
    "1..0 # SKIP "*) reason=${first#1..0 \# SKIP } ;;
    *) cuda=1; reason= ;;
  esac
fi
device="no usable GPU ($reason)"
if [ $cuda = 1 ]; then
  device=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null \
             | head -n 1)
  device=${device:-unknown (no nvidia-smi)}
fi
say "device: $device"

stage_tests () {
  for t in test-exec test-exec-validate; do
    if run "$t" 540 "$testdir/$t"; then
      record "$t (CPU backend)" PASS "$(grep -c '^ok' "$out/$t.log") tests"
    else
      record "$t (CPU backend)" FAIL "exit $rc: $(tail_of "$out/$t.log")"
    fi
  done
  if [ $cuda = 0 ]; then
    record "CUDA tests and compute-sanitizer" SKIP "$device"
    return 0
  fi
  if run test-exec-cuda 540 "$testdir/test-exec-cuda"; then
    record "test-exec-cuda" PASS "$(grep -c '^ok' "$out/test-exec-cuda.log") tests"
  else
    record "test-exec-cuda" FAIL "exit $rc: $(tail_of "$out/test-exec-cuda.log")"
  fi

  # compute-sanitizer, where it says it can run: a probe on a tiny run; an
  # exit status other than its error exit code (99) is the tool failing
  # for a reason outside memplan (no debugger support, a driver mismatch)
  if ! command -v compute-sanitizer >/dev/null 2>&1; then
    record "compute-sanitizer" SKIP "not installed"
    return 0
  fi
  towers=$datadir/two-towers.json
  probe="$cli exec $datadir/teaching.json --backend cuda -p naive --iterations 1 --no-baselines"
  if ! run sanitizer-probe 120 compute-sanitizer --tool memcheck --error-exitcode 99 $probe \
     && [ $rc != 99 ]; then
    record "compute-sanitizer" SKIP "cannot run here (exit $rc): $(tail_of "$out/sanitizer-probe.log")"
    return 0
  fi
  if run memcheck 540 compute-sanitizer --tool memcheck --error-exitcode 99 \
       "$testdir/test-exec-cuda"; then
    record "memcheck on test-exec-cuda" PASS ""
  else
    record "memcheck on test-exec-cuda" FAIL "exit $rc: $(tail_of "$out/memcheck.log")"
  fi
  for tool in racecheck synccheck initcheck; do
    if run "$tool" 240 compute-sanitizer --tool "$tool" --error-exitcode 99 \
         "$cli" exec "$towers" --backend cuda -p multistream --no-baselines; then
      record "$tool on two-towers, multistream, concurrent" PASS ""
    else
      record "$tool on two-towers, multistream, concurrent" FAIL \
             "exit $rc: $(tail_of "$out/$tool.log")"
    fi
  done
}

# verdicts NAME: "planner clean|CORRUPT" lines of NAME.exec.json
verdicts () {
  python3 -c 'import json, sys
for r in json.load(open(sys.argv[1]))["runs"]:
    print(r["planner"], "clean" if r["clean"] else "CORRUPT", r.get("first_corruption", ""))' \
    "$out/$1.exec.json" 2>/dev/null
}

# exec_run NAME GRAPH LIMIT OPTIONS...: one CUDA run; a failed one is a line
# of its own, with its exit status and last lines
exec_run () {
  name=$1 graph=$2 limit=$3
  shift 3
  run "$name" "$limit" "$cli" exec "$graph" --backend cuda --format json \
    -o "$out/$name.exec.json" "$@"
  echo $rc > "$out/$name.rc"
  if [ $rc -gt 1 ] || [ ! -s "$out/$name.exec.json" ]; then
    record "$name" FAIL "exit $rc: $(tail_of "$out/$name.log")"
    return 1
  fi
  return 0
}

# check_verdicts NAME MODEL COLUMN: every plan's verdict against the table
check_verdicts () {
  bad=
  for line in $(verdicts "$1" | awk '{ print $1 "=" $2 }'); do
    want=$(expected "$2" "${line%%=*}" "$3")
    [ "${line#*=}" = "$want" ] || bad="$bad ${line%%=*} is ${line#*=}, expected $want;"
  done
  if [ -n "$bad" ]; then
    record "$1: verdicts" FAIL "$bad"
  else
    record "$1: verdicts" PASS "as the table says ($(verdicts "$1" | wc -l) plans)"
  fi
}

# parity NAME GRAPH OPTIONS...: the CPU backend on the same plans says the
# same per plan (and names the same first corruption, one op at a time)
parity () {
  name=$1 graph=$2
  shift 2
  timeout 300 "$cli" exec "$graph" --backend cpu --no-baselines --format json \
    -o "$out/$name.cpu.exec.json" "$@" > "$out/$name.cpu.log" 2>&1
  case "$*" in
    *--sequential*) a=$(verdicts "$name"); b=$(verdicts "$name.cpu") ;;
    *) a=$(verdicts "$name" | awk '{ print $1, $2 }'); b=$(verdicts "$name.cpu" | awk '{ print $1, $2 }') ;;
  esac
  if [ -n "$a" ] && [ "$a" = "$b" ]; then
    record "$name: CPU/CUDA parity" PASS ""
  else
    record "$name: CPU/CUDA parity" FAIL "CUDA: $(echo "$a" | tr '\n' ';') CPU: $(echo "$b" | tr '\n' ';')"
  fi
}

stage_runs () {
  if [ $cuda = 0 ]; then
    record "CUDA runs (zoo, samples, bench, big arenas)" SKIP "$device"
    return 0
  fi
  for m in $MODELS; do
    "$cli" gen "$m" -o "$out/$m.graph.json" > /dev/null
    if exec_run "$m.sequential" "$out/$m.graph.json" 120 -p all --sequential --no-baselines; then
      check_verdicts "$m.sequential" "$m" 3
      parity "$m.sequential" "$out/$m.graph.json" -p all --sequential
    fi
    if exec_run "$m" "$out/$m.graph.json" 120 -p all; then
      check_verdicts "$m" "$m" 4
      parity "$m" "$out/$m.graph.json" -p all
    fi
  done
  # made for op order, inception's plans race on its 4 concurrent streams
  if exec_run inception.op-order "$out/inception.graph.json" 120 -p all --schedule sequential \
       --no-baselines; then
    check_verdicts inception.op-order inception-op-order 4
    parity inception.op-order "$out/inception.graph.json" -p all --schedule sequential
  fi
  # the simulated caching allocator against PyTorch's own, where torch is
  if python3 -c 'import torch' > /dev/null 2>&1; then
    for m in $MODELS; do
      if run "$m.torch" 300 python3 "$torchcmp" "$cli" "$out/$m.graph.json"; then
        record "$m: caching allocator, simulated vs PyTorch's" PASS \
               "$(tail -n 2 "$out/$m.torch.log" | tr -s ' ' | tr '\n' ';')"
      elif [ $rc = 77 ]; then
        record "$m: caching allocator, simulated vs PyTorch's" SKIP "$(tail -n 1 "$out/$m.torch.log")"
      else
        record "$m: caching allocator, simulated vs PyTorch's" FAIL \
               "exit $rc: $(tail_of "$out/$m.torch.log")"
      fi
    done
  else
    record "caching allocator, simulated vs PyTorch's" SKIP "torch is not importable"
  fi
  for s in default teaching two-towers multistream; do
    [ -f "$datadir/$s.json" ] || continue
    if exec_run "sample-$s" "$datadir/$s.json" 120 -p all --sequential --no-baselines; then
      if [ "$(cat "$out/sample-$s.rc")" = 0 ]; then
        record "sample-$s: verdicts" PASS "every plan clean one op at a time"
      else
        record "sample-$s: verdicts" FAIL "a plan is corrupt one op at a time"
      fi
      parity "sample-$s" "$datadir/$s.json" -p all --sequential
    fi
  done

  # a 54.6 GiB arena that fits an 80 GB device; the cudaMalloc replay may
  # not, and its failure is a baseline row, never the verdict
  "$cli" gen gpt2 --batch 32 --training -o "$out/gpt2-b32-training.graph.json" > /dev/null
  if exec_run gpt2-b32-training "$out/gpt2-b32-training.graph.json" 300 \
       -p greedy-by-size,best-fit --sequential; then
    [ "$(cat "$out/gpt2-b32-training.rc")" = 0 ] \
      && record "gpt2-b32-training: verdicts" PASS "clean" \
      || record "gpt2-b32-training: verdicts" FAIL "exit $(cat "$out/gpt2-b32-training.rc")"
  fi
  # HBM, not L2: arena tensors scaled past the cache, one op at a time
  for m in resnet50 bert-base; do
    if exec_run "$m.bench" "$out/$m.graph.json" 300 --bench -p greedy-by-size --sequential \
         --no-baselines; then
      [ "$(cat "$out/$m.bench.rc")" = 0 ] && record "$m.bench: verdicts" PASS "clean" \
        || record "$m.bench: verdicts" FAIL "exit $(cat "$out/$m.bench.rc")"
    fi
  done

  # a 4.5 GiB arena holding a tensor of 2^31 + 64 one-byte elements
  cat > "$out/big.graph.json" <<'EOF'
{"format": "memplan.graph/1", "name": "big", "alignment": 256,
 "tensors": [
  {"name": "x", "size": 64, "kind": "input"},
  {"name": "big", "dtype": "u8", "shape": [2147483712]},
  {"name": "other", "size": 2684354560},
  {"name": "y", "size": 64, "kind": "output"}],
 "ops": [
  {"name": "make", "inputs": ["x"], "outputs": ["big"]},
  {"name": "next", "inputs": ["big"], "outputs": ["other"]},
  {"name": "join", "inputs": ["big", "other"], "outputs": ["y"]}]}
EOF
  if exec_run big "$out/big.graph.json" 300 -p greedy-by-size,naive; then
    [ "$(cat "$out/big.rc")" = 0 ] && record "big: verdicts" PASS "clean" \
      || record "big: verdicts" FAIL "exit $(cat "$out/big.rc")"
  fi

  # an overlap planted 32 GiB + 4099 bytes into a 34 GiB tensor: 'small' is
  # written there while 'huge' is live; 'use' must find it in the word
  # holding that byte, at byte 2^35 + 4096, overwritten by 'small'
  cat > "$out/huge.graph.json" <<'EOF'
{"format": "memplan.graph/1", "name": "huge", "alignment": 1,
 "tensors": [
  {"name": "x", "size": 64, "kind": "input"},
  {"name": "huge", "size": 36507222016},
  {"name": "small", "size": 4096},
  {"name": "y", "size": 64, "kind": "output"}],
 "ops": [
  {"name": "make", "inputs": ["x"], "outputs": ["huge"]},
  {"name": "put", "inputs": ["huge"], "outputs": ["small"]},
  {"name": "use", "inputs": ["huge", "small"], "outputs": ["y"]}]}
EOF
  printf 'id,lower,upper,size,offset\nhuge,0,3,36507222016,0\nsmall,1,3,4096,34359742467\ny,2,3,64,36507222016\n' \
    > "$out/huge.plan.csv"
  if exec_run huge "$out/huge.graph.json" 300 --plan "$out/huge.plan.csv" --sequential \
       --no-baselines; then
    found=$(verdicts huge | head -n 1)
    case $found in
      *"found tensor 'huge' corrupted at byte 34359742464: overwritten by tensor 'small'"*)
        record "huge: planted overlap found at its byte" PASS "${found#* CORRUPT }" ;;
      *) record "huge: planted overlap found at its byte" FAIL "${found:-no verdict}" ;;
    esac
  fi
}

case $stage in
  tests) stage_tests ;;
  runs) stage_runs ;;
  all) stage_tests; stage_runs ;;
esac

# 3. the report: every line of every stage run so far
report=$out/report.md
{
  echo "# memplan gpu-check"
  echo
  echo "- device (nvidia-smi: name, driver, memory): $device"
  echo "- binaries: $source"
  echo "- memplan: $("$cli" --version 2>/dev/null | head -n 1)"
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo
  echo "| check | result | detail |"
  echo "| --- | --- | --- |"
  cat "$out"/results-*.tsv 2>/dev/null | awk -F '\t' '{ printf "| %s | %s | %s |\n", $1, $2, $3 }'
} > "$report"
if [ $cuda = 1 ] && command -v python3 >/dev/null 2>&1; then
  python3 - "$out" >> "$report" <<'EOF'
import json, os, sys

out = sys.argv[1]
def size(n):
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:.1f} {unit}" if unit != "B" else f"{n} B"
        n /= 1024

print("\n## Figures (one op at a time, greedy-by-size on the zoo, every plan of the big runs; "
      "bandwidth over the free-running iterations, each one CUDA graph timed by events around "
      "its launch; all runs in OUT/*.exec.json)\n")
print("| run | planner | verdict | planned | measured arena | device peak | GB/s | % of peak "
      "| launches/iter |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
names = sorted(f[:-10] for f in os.listdir(out)
               if f.endswith(".exec.json") and not f.endswith(".cpu.exec.json"))
for name in names:
    if not (name.endswith(".sequential") or name.endswith(".bench") or name in ("big", "huge")
            or name.startswith("gpt2-b32")):
        continue
    with open(os.path.join(out, name + ".exec.json")) as f:
        runs = json.load(f)["runs"]
    for r in runs:
        # one page: the zoo's figures for greedy-by-size; the rest in the JSON
        if name.endswith(".sequential") and r["planner"] != "greedy-by-size":
            continue
        bw = r["bytes_moved"] / r["seconds"] if r["seconds"] > 0 else 0
        peak = r.get("peak_bandwidth", 0)
        print(f"| {name} | {r['planner']} | {'clean' if r['clean'] else 'CORRUPT'} "
              f"| {size(r['planned'])} | {size(r['measured'])} | {size(r['process_peak'])} "
              f"| {bw / 1e9:.1f} | {100 * bw / peak if peak else 0:.0f} "
              f"| {r['launches_per_iteration']} |")
for name in names:
    with open(os.path.join(out, name + ".exec.json")) as f:
        runs = json.load(f)["runs"]
    if runs and runs[0]["baselines"]:
        print(f"\n{name}, dynamic allocators on the same program: " + "; ".join(
            f"{b['allocator']} {b.get('error') or size(b['bytes'])}" for b in runs[0]["baselines"]))
EOF
fi
say "report: $report"
[ $status = 0 ] || exit 1
[ $cuda = 1 ] || { say "no CUDA stage ran: $reason"; exit 77; }
exit 0
