#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Every figure the README quotes, in one run (minutes; best on an idle machine):
#   build-aux/bench.sh [BUILDDIR]     (default: build)
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
cli="$build/app/cli/memplan-cli"
[ -x "$cli" ] || { echo "bench: build first ($cli is missing)" >&2; exit 2; }

echo "== $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== foundation: 1,000,000 tensors, graph JSON and usage records (CSV)"
"$cli" bench --planner naive,greedy-by-size
"$cli" bench --csv --planner naive,greedy-by-size
echo "== every planner at 100,000 tensors (two streams, so multistream has work)"
"$cli" bench -n 100000 -s 2 --planner all
echo "== optimal on the MiniMalloc challenging set"
"$cli" bench-optimal --capacity 1048576 data/minimalloc/A.1048576.csv \
  data/minimalloc/B.1048576.csv data/minimalloc/C.1048576.csv data/minimalloc/D.1048576.csv \
  data/minimalloc/E.1048576.csv
echo "== drawing"
"$cli" render --bench -n 100000
if [ -x "$build/app/memplan" ] && command -v xvfb-run >/dev/null 2>&1; then
  echo "== the app: open and frame times at 100,000 tensors"
  GSK_RENDERER=cairo xvfb-run -a -s "-screen 0 1600x1000x24" "$build/app/memplan" --benchmark
fi
