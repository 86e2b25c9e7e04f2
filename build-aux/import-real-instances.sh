#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Copies the real allocation instances of cappadokes/idealloc (MIT licence,
# its benchmarks/ folder) into tests/data/real/: MiniMalloc's challenging F-K
# (A-E are in data/minimalloc/), and three IOPDDL contest graphs and two
# MindSpore SOMAS graphs, gzipped (memplan reads .gz). They are already in
# MiniMalloc's CSV form id,lower,upper,size; the script checks the header and
# that every row has four non-negative integers with lower < upper.
#   build-aux/import-real-instances.sh IDEALLOC_CHECKOUT
# CI never runs this; its output is committed.
set -eu
src=${1:?usage: import-real-instances.sh IDEALLOC_CHECKOUT}
cd "$(dirname "$0")/.."
check() {
  awk -F, 'NR == 1 { if ($0 != "id,lower,upper,size") { print FILENAME ": header " $0; exit 1 }; next }
    NF != 4 || $2 !~ /^[0-9]+$/ || $3 !~ /^[0-9]+$/ || $4 !~ /^[0-9]+$/ || $2 + 0 >= $3 + 0 {
      print FILENAME ":" NR ": not id,lower,upper,size with lower < upper"; bad = 1; exit 1 }' "$1"
}
for x in F G H I J K; do
  check "$src/benchmarks/minimalloc/$x.1048576.csv"
  cp "$src/benchmarks/minimalloc/$x.1048576.csv" tests/data/real/
done
for f in iopddl/G_1 iopddl/S_1 iopddl/Y_1 somas_tensors/pangu_2.6B somas_tensors/resnet50; do
  base=$(basename "$f")
  case $f in iopddl/*) out="iopddl-$base" ;; *) out="somas-$base" ;; esac
  check "$src/benchmarks/$f.csv"
  gzip -9n < "$src/benchmarks/$f.csv" > "tests/data/real/$out.csv.gz"
done
