#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Every figure the README quotes, in one run (several minutes; best on an idle
# machine; CPU times move far less than wall times on a shared one):
#   build-aux/bench.sh [--long] [BUILDDIR]     (default: build)
# --long adds the exact search's long runs (about 18 minutes more): optimal
# at 10,000 random buffers for 10 s, at 100,000 buffers (random and
# long-lived) and on IOPDDL S, Y and SOMAS
# pangu-2.6B with a 60 s budget, and the minimisation of D with a 600 s
# budget, D and J minimised for 60 s next to the capacity search for just
# below what that found (60 s: minimising should never be above it), and the
# import of a 1 GB snapshot pickle. --peers adds OmniMalloc's one-pass
# heuristics on the same files (build-aux/omnimalloc-bench.py installs it in a
# throwaway virtual environment; PyPI must be reachable); --long --peers adds
# optimal 60 s next to OmniMalloc's supermalloc 60 s on every thread, on every
# instance (about 35 minutes more).
#   build-aux/bench.sh [--long] [--peers] [BUILDDIR]
set -eu
cd "$(dirname "$0")/.."
long=false
peers=false
while [ $# -gt 0 ]; do
  case $1 in
    --long) long=true ;;
    --peers) peers=true ;;
    *) break ;;
  esac
  shift
done
build=${1:-build}
cli="$build/cli/memplan-cli"
[ -x "$cli" ] || { echo "bench: build first ($cli is missing)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
heuristics=naive,greedy-by-size,greedy-by-breadth,partition,multistream,best-fit,first-fit

# CPU seconds and peak RSS of one command (python3's stdlib: no GNU time needed)
measure() {
  python3 -c 'import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print("CPU %.2f s, peak RSS %.0f MiB, exit %d" % (u.ru_utime + u.ru_stime, u.ru_maxrss / 1024, r.returncode))' "$@"
}

echo "== $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== 1,000,000 tensors: graph JSON load, and greedy-by-size on the graph; the three exact one-pass rules on usage records (CSV)"
"$cli" bench --planner naive,greedy-by-size
"$cli" bench --csv --planner naive,greedy-by-size,best-fit,first-fit
echo "== every planner at 100,000 tensors, random lifetimes (two streams, so multistream has work)"
"$cli" bench -n 100000 -s 2 --planner all
echo "== long lifetimes (length uniform up to the whole run): 10,000 and 30,000 for the growth exponent, then 100,000"
for n in 10000 30000; do
  "$cli" bench --csv -n "$n" --lifetimes long --planner greedy-by-size,best-fit,first-fit |
    grep -E '^(greedy|best|first)'
done
"$cli" bench --csv -n 100000 --lifetimes long --planner greedy-by-size,best-fit,first-fit,partition
echo "== 100,000 usage records, staircase (each lives from its step to the end)"
"$cli" bench --csv -n 100000 --lifetimes staircase --planner greedy-by-size,best-fit,first-fit,partition
echo "== plan: 1,000,000 tensors, every heuristic, the plan file written (-f json)"
"$cli" gen random --csv -n 1000000 -o "$tmp/records.csv"
printf 'usage records (CSV; five heuristics apply): '
measure "$cli" plan "$tmp/records.csv" --planner "$heuristics" -f json -o "$tmp/plan.json"
"$cli" gen random -n 1000000 -o "$tmp/graph.json"
printf 'graph (JSON; all seven): '
measure "$cli" plan "$tmp/graph.json" --planner "$heuristics" -f json -o "$tmp/plan.json"
# the library from Python (issue 32): the same 1,000,000 records as
# (size, start, end) tuples through memplan.plan, against the CLI's own
# planning time, and what `import memplan` adds to an interpreter's start
if [ -f "$build/python/memplan.cpython"*.so ]; then
  echo "== memplan.plan of 1,000,000 tuples (greedy-by-size) and import memplan"
  PYTHONPATH="$build/python" python3 build-aux/bench-python.py "$cli" "$tmp/records.csv"
fi
rm -f "$tmp"/*
if [ -x "$build/tests/test-planner-first-fit" ]; then
  echo "== first-fit against TensorFlow Lite Micro's GreedyMemoryPlanner (offset for offset)"
  "$build/tests/test-planner-first-fit" -p /analysis/planner/first-fit/matches-tflm | grep '^ok'
fi
# TFLITE_DRIVER: a driver built by build-aux/build-tflite-driver.sh
tflite_driver=${TFLITE_DRIVER:-$build/tflite-driver}
if [ -x "$tflite_driver" ]; then
  echo "== a plan process against TFLite GPU's greedy-by-size driver: CPU per process, A-E and 200 random"
  "$cli" gen random --csv -n 200 -o "$tmp/random-200.csv"
  python3 build-aux/bench-startup.py "$cli" "$tflite_driver" data/minimalloc/A.1048576.csv \
    data/minimalloc/B.1048576.csv data/minimalloc/C.1048576.csv data/minimalloc/D.1048576.csv \
    data/minimalloc/E.1048576.csv "$tmp/random-200.csv"
  rm -f "$tmp"/*
else
  echo "== skipped: a plan process against TFLite's driver (build it with build-aux/build-tflite-driver.sh TENSORFLOW_DIR, or set TFLITE_DRIVER)"
fi
echo "== best-of against the single-order heuristics: MiniMalloc A-K, IOPDDL G/S/Y, SOMAS, random 10k/100k"
r=tests/data/real
real="data/minimalloc/A.1048576.csv data/minimalloc/B.1048576.csv data/minimalloc/C.1048576.csv
  data/minimalloc/D.1048576.csv data/minimalloc/E.1048576.csv $r/F.1048576.csv $r/G.1048576.csv
  $r/H.1048576.csv $r/I.1048576.csv $r/J.1048576.csv $r/K.1048576.csv $r/iopddl-G_1.csv.gz
  $r/somas-resnet50.csv.gz $r/somas-pangu_2.6B.csv.gz $r/iopddl-S_1.csv.gz $r/iopddl-Y_1.csv.gz"
"$cli" gen random --csv -n 10000 -o "$tmp/random-10k.csv"
"$cli" gen random --csv -n 100000 -o "$tmp/random-100k.csv"
for f in $real "$tmp/random-10k.csv" "$tmp/random-100k.csv"; do
  "$cli" plan "$f" --planner greedy-by-size,best-fit,first-fit,best-of |
    grep -E '^[^ ]+: [0-9]+ tensors|^(greedy-by-size|best-fit|first-fit|best-of) |^best-of:'
  # in bytes, as OmniMalloc's figures below
  "$cli" plan "$f" --planner best-of -f csv |
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
      $col["size"] + $col["offset"] > top { top = $col["size"] + $col["offset"] }
      END { printf "best-of arena: %d bytes\n", top }'
done
if $peers; then
  echo "== OmniMalloc 1.0.0's one-pass heuristics on the same files (CPU of each call)"
  # shellcheck disable=SC2086
  python3 build-aux/omnimalloc-bench.py $real "$tmp/random-10k.csv" "$tmp/random-100k.csv"
fi
rm -f "$tmp"/random-10k.csv "$tmp"/random-100k.csv
echo "== optimal on the MiniMalloc challenging set (F-K from tests/data/real/)"
"$cli" bench-optimal --capacity 1048576 data/minimalloc/A.1048576.csv \
  data/minimalloc/B.1048576.csv data/minimalloc/C.1048576.csv data/minimalloc/D.1048576.csv \
  data/minimalloc/E.1048576.csv $r/F.1048576.csv $r/G.1048576.csv $r/H.1048576.csv \
  $r/I.1048576.csv $r/J.1048576.csv $r/K.1048576.csv
if $peers; then
  # the proofs (issue 30): the minimise rows above against supermalloc's wall
  # time to prove the same minima, on 2 threads (this machine's cores; with
  # fewer than 3 it never asks the lower bound itself) and on 6 (it does)
  echo "== OmniMalloc's supermalloc on A-C, E-I, K (10 s), 2 then 6 threads"
  ak="data/minimalloc/A.1048576.csv data/minimalloc/B.1048576.csv data/minimalloc/C.1048576.csv
    data/minimalloc/E.1048576.csv $r/F.1048576.csv $r/G.1048576.csv $r/H.1048576.csv
    $r/I.1048576.csv $r/K.1048576.csv"
  for threads in 2 6; do
    # shellcheck disable=SC2086
    python3 build-aux/omnimalloc-bench.py --supermalloc 10 --threads $threads $ak
  done
fi
echo "== SOMAS pangu-2.6B below best-of: the column move from best-of's plan (issue 30)"
python3 build-aux/pangu-column.py "$cli" $r/somas-pangu_2.6B.csv.gz
echo "== optimal on constrained B and C (issue 28): minimised, then at MiniMalloc's 1 MiB"
"$cli" bench-optimal --time-budget 60 --capacity 1048576 \
  tests/data/minimalloc-tests/constrained/B.csv tests/data/minimalloc-tests/constrained/C.csv
if $long; then
  echo "== optimal at scale: 10,000 random buffers, 10 s budget (target: the lower bound, proved)"
  "$cli" gen random --csv -n 10000 -o "$tmp/random-10k.csv"
  "$cli" bench-optimal --time-budget 10 "$tmp/random-10k.csv"
  echo "== optimal at scale: 100,000 random buffers, 10 s then 60 s (target at 60 s: 1.01x the lower bound)"
  "$cli" gen random --csv -n 100000 -o "$tmp/random-100k.csv"
  "$cli" bench-optimal --time-budget 10 "$tmp/random-100k.csv"
  "$cli" bench-optimal --time-budget 60 "$tmp/random-100k.csv" | sed 1d
  echo "== optimal at scale: 100,000 long-lived buffers, 60 s budget"
  "$cli" gen random --csv -n 100000 --lifetimes long -o "$tmp/long-100k.csv"
  "$cli" bench-optimal --time-budget 60 "$tmp/long-100k.csv"
  echo "== optimal at 60 s on the large real instances (IOPDDL S, Y; SOMAS pangu-2.6B): against best-of"
  "$cli" bench-optimal --time-budget 60 tests/data/real/iopddl-S_1.csv.gz \
    tests/data/real/iopddl-Y_1.csv.gz tests/data/real/somas-pangu_2.6B.csv.gz
  echo "== minimising D with a 600 s budget"
  "$cli" bench-optimal --time-budget 600 data/minimalloc/D.1048576.csv
  echo "== D, J: minimised for 60 s, then the capacity search just below it for 60 s"
  for f in data/minimalloc/D.1048576.csv $r/J.1048576.csv; do
    found=$("$cli" bench-optimal --time-budget 60 "$f" | tee /dev/stderr |
      awk 'NR == 2 { print $7 }')
    "$cli" bench-optimal --time-budget 60 --capacity $((found - 1)) "$f" | sed 1d
  done
  if $peers; then
    echo "== optimal 60 s, then OmniMalloc's supermalloc 60 s on every processor, every instance"
    # shellcheck disable=SC2086
    "$cli" bench-optimal --time-budget 60 $real
    # shellcheck disable=SC2086
    python3 build-aux/omnimalloc-bench.py --supermalloc 60 $real
  fi
  rm -f "$tmp"/*
fi
echo "== the op order (issue 29): every data/ graph, the ONNX samples, gen gpt2 --training, a 100,000-op random DAG"
"$cli" gen gpt2 --training -o "$tmp/gpt2-training.json"
"$cli" gen gpt2 --training --layers 2 --seq 128 -o "$tmp/gpt2-training-2x128.json"
"$cli" bench-order data/*.json data/zoo/*.json data/teaching/*.json data/onnx/resnet-mini.onnx \
  data/onnx/mlp-no-shapes.onnx "$tmp/gpt2-training.json" "$tmp/gpt2-training-2x128.json" \
  --random 100000
"$cli" bench-order --dim batch=8 --dim seq=128 data/onnx/encoder-2x256.onnx
rm -f "$tmp"/*
echo "== PyTorch traces at scale (issue 31): import of generated snapshots and a Chrome trace"
# The issue's rows are per file size: the generator writes about 323 bytes
# an action, so 564 MB is 1,744,000 actions and 1 GB 3,092,000 (--long).
# A row times `import F --by-op -o by-op.txt`: the whole read (pickle VM,
# pairing, lifetimes, the by-op aggregation) and a table of a few hundred
# lines; the records rows at 564 MB add writing every allocation, with its
# stack as JSON (import's default output, 906 MB, streamed as it is
# formatted), and as CSV.
snapshot_row() {
  "$cli" gen torch-snapshot -n "$1" -o "$tmp/snapshot.pickle$2"
  printf 'snapshot pickle%s, %s actions (%s MB), import --by-op: ' "$2" "$1" \
    "$(($(stat -c %s "$tmp/snapshot.pickle$2") / 1000000))"
  measure "$cli" import "$tmp/snapshot.pickle$2" --by-op -o "$tmp/by-op.txt"
  if [ "${3:-}" = records ]; then
    printf 'snapshot pickle%s, %s actions, import -o records.json (every allocation written): ' \
      "$2" "$1"
    measure "$cli" import "$tmp/snapshot.pickle$2" -o "$tmp/records.json"
    printf 'snapshot pickle%s, %s actions, import -f csv -o records.csv: ' "$2" "$1"
    measure "$cli" import "$tmp/snapshot.pickle$2" -f csv -o "$tmp/records.csv"
  fi
  rm -f "$tmp/snapshot.pickle$2" "$tmp/records.json" "$tmp/records.csv"
}
snapshot_row 100000 ""
snapshot_row 1000000 ""
snapshot_row 1744000 "" records
snapshot_row 1000000 .gz
if $long; then
  snapshot_row 3092000 ""
fi
# the import alone (the file is generated first, outside the timing):
# inflate, read, attribute to ops and frames, build the records, by-op
"$cli" gen torch-trace -n 1000000 -o "$tmp/trace.json.gz"
printf 'Chrome trace .json.gz, 1,000,000 [memory] events (%s MB; %s MB inflated), import --by-op: ' \
  "$(($(stat -c %s "$tmp/trace.json.gz") / 1000000))" \
  "$(($(gzip -dc "$tmp/trace.json.gz" | wc -c) / 1000000))"
measure "$cli" import "$tmp/trace.json.gz" --by-op -o "$tmp/by-op.txt"
# its load estimate is the streaming reader's, a byte a byte of the 465 MB
# it inflates to (it was 17, json-c's tree: 7.4 GiB, refused under 1G)
printf 'Chrome trace .json.gz, 1,000,000 events, import --by-op --max-memory 512M: '
measure "$cli" import "$tmp/trace.json.gz" --by-op --max-memory 512M -o "$tmp/by-op.txt"
rm -f "$tmp"/*
echo "== CPU profiler traces of one model over 1 and 5 steps (issue 31): the observed row"
# the same peak of live bytes, so the same observed figure (it once grew
# with the trace's length: 240 against 918 MiB)
for f in data/torch/small-transformer-1step.json.gz data/torch/small-transformer-5steps.json.gz; do
  printf '%s: ' "$f"
  "$cli" plan "$f" -p greedy-by-size | grep '^observed (no arena)'
done
echo "== two runs compared (issue 31): diff of two 1,000,000-action snapshots (seeds 1 and 2)"
"$cli" gen torch-snapshot -n 1000000 --seed 1 -o "$tmp/a.pickle"
"$cli" gen torch-snapshot -n 1000000 --seed 2 -o "$tmp/b.pickle"
printf 'diff, two 1,000,000-action snapshots: '
measure "$cli" diff "$tmp/a.pickle" "$tmp/b.pickle" -o "$tmp/diff.txt"
rm -f "$tmp"/*
echo "== drawing"
"$cli" render --bench -n 100000
if [ -x "$build/app/memplan" ] && command -v xvfb-run >/dev/null 2>&1; then
  echo "== the app: open and frame times at 100,000 tensors"
  GSK_RENDERER=cairo xvfb-run -a -s "-screen 0 1600x1000x24" "$build/app/memplan" --benchmark
  # issue 31: a 2,000,000-action snapshot (646 MB; with --long also the
  # 1 GB one, 3,092,000 actions), greedy-by-size beside the observed plan:
  # "first view drawn" (the observed pane, the planner still running) and
  # "every heuristic's pane drawn", each with the process's CPU seconds,
  # then the frames (main-thread CPU per frame is the figure to read)
  sizes=2000000
  if $long; then
    sizes="2000000 3092000"
  fi
  for n in $sizes; do
    echo "== the app at trace size (issue 31): a $n-action snapshot"
    "$cli" gen torch-snapshot -n "$n" -o "$tmp/snapshot-app.pickle"
    GSK_RENDERER=cairo xvfb-run -a -s "-screen 0 1600x1000x24" "$build/app/memplan" \
      --benchmark -p greedy-by-size "$tmp/snapshot-app.pickle"
    rm -f "$tmp"/*
  done
fi
