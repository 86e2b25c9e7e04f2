#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# One command on a machine with an NVIDIA GPU: builds memplan with the CUDA
# backend, prints the driver and device, runs the CUDA tests (under
# compute-sanitizer when it is installed), runs every zoo graph with every
# planner on the CUDA backend with the allocator baselines, runs an arena
# over 4 GiB holding a tensor of more than 2^31 elements, and writes a
# Markdown report of it all.
#
#   build-aux/gpu-check.sh [BUILDDIR]     (default: build-gpu)
#
# Exit status: 0 everything clean and as expected, 1 a check failed,
# 77 no usable GPU here (the build still ran, so the CUDA code compiles).
set -eu

srcdir=$(cd "$(dirname "$0")/.." && pwd)
builddir=${1:-build-gpu}
case $builddir in /*) ;; *) builddir=$srcdir/$builddir ;; esac
PATH=$PATH:/usr/local/cuda/bin
export PATH

say () { printf 'gpu-check: %s\n' "$*"; }

if ! command -v nvcc >/dev/null 2>&1; then
  say "nvcc not found (on PATH or in /usr/local/cuda/bin): install the CUDA toolkit"
  exit 1
fi

# 1. the build, with the CUDA backend required
if [ -d "$builddir/meson-private" ]; then
  meson configure "$builddir" -Dcuda=enabled >/dev/null
else
  meson setup "$builddir" "$srcdir" -Dcuda=enabled >/dev/null
fi
meson compile -C "$builddir"
cli=$builddir/cli/memplan-cli
cuda_test=$builddir/tests/test-exec-cuda

# 2. is there a device? The CUDA test says why not, in words.
first=$("$cuda_test" 2>&1 | head -n 1 || true)
case $first in
  "1..0 # SKIP "*)
    say "built the CUDA backend in $builddir, but there is no usable GPU here:" \
        "${first#1..0 \# SKIP }; nothing to run, no report written"
    exit 77 ;;
esac

out=$builddir/gpu-check
rm -rf "$out"
mkdir -p "$out"
report=$out/report.md

driver=unknown
if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader \
    | tee "$out/device.txt"
  driver=$(head -n 1 "$out/device.txt")
fi
say "nvcc: $(nvcc --version | tail -n 1)"

# 3. the CUDA tests, under compute-sanitizer when it is there
status=0
wrapper=
if command -v compute-sanitizer >/dev/null 2>&1; then
  wrapper="compute-sanitizer --error-exitcode 99 --tool memcheck"
  say "running the CUDA tests under $wrapper"
  meson test -C "$builddir" test-exec-cuda --wrapper "$wrapper" --print-errorlogs \
    --timeout-multiplier 10 || status=1
else
  say "compute-sanitizer not found: the CUDA tests run without it"
fi
meson test -C "$builddir" --suite exec --print-errorlogs || status=1

# 4. every zoo graph, every planner, with the baselines: once on the
#    graph's streams (op-order plans may race there: exit 1 is expected on
#    multi-stream graphs) and once one op at a time, where every plan must
#    be clean
run_exec () { # NAME GRAPH EXPECTED-MAX-EXIT EXEC-OPTIONS...
  name=$1 graph=$2 max=$3
  shift 3
  rc=0
  "$cli" exec "$graph" --backend cuda --format json -o "$out/$name.exec.json" "$@" \
    2>"$out/$name.err" || rc=$?
  echo "$rc" > "$out/$name.rc"
  say "$name: exit $rc"
  if [ "$rc" -gt "$max" ]; then
    cat "$out/$name.err" >&2
    status=1
  fi
}
models=$("$cli" gen --help | sed -n '/^Models:/,/^$/p' | awk 'NR > 1 && $1 != "random" && NF { print $1 }')
for m in $models; do
  "$cli" gen "$m" -o "$out/$m.graph.json"
  run_exec "$m" "$out/$m.graph.json" 1 --planner all
  run_exec "$m.sequential" "$out/$m.graph.json" 0 --planner all --sequential --no-baselines
done
# the issue's case: a 54.6 GiB arena that fits an 80 GB device, whose
# cudaMalloc replay may not; the verdict must survive it
"$cli" gen gpt2 --batch 32 --training -o "$out/gpt2-b32-training.graph.json"
run_exec gpt2-b32-training "$out/gpt2-b32-training.graph.json" 2 -p greedy-by-size,best-fit

# HBM, not L2: tensors scaled past the cache, one op at a time
for m in resnet50 bert-base; do
  run_exec "$m.bench" "$out/$m.graph.json" 2 --bench -p greedy-by-size --sequential --no-baselines
done

# 5. an arena over 4 GiB holding a tensor of 2^31 + 64 one-byte elements,
#    live together with another 2.5 GiB tensor
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
run_exec big "$out/big.graph.json" 0 -p greedy-by-size,naive

# 6. the report
python3 - "$out" "$report" "$driver" <<'EOF'
import json, os, sys

out, report, device = sys.argv[1:4]

def size(n):
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:.1f} {unit}" if unit != "B" else f"{n} B"
        n /= 1024

lines = ["# memplan gpu-check", "", f"Device (nvidia-smi: name, driver, memory): {device}", ""]
first = True
for name in sorted(f[:-10] for f in os.listdir(out) if f.endswith(".exec.json")):
    rc = open(os.path.join(out, name + ".rc")).read().strip()
    with open(os.path.join(out, name + ".exec.json")) as f:
        runs = json.load(f)["runs"]
    if first and runs:
        lines += [f"memplan's device line: {runs[0]['device']}", ""]
        first = False
    lines += [f"## {name} (exit {rc})", "",
              "| planner | verdict | planned | arena | measured | GB/s | % of peak | launches/iter |",
              "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in runs:
        bw = r["bytes_moved"] / r["seconds"] if r["seconds"] > 0 else 0
        peak = r.get("peak_bandwidth", 0)
        verdict = "clean" if r["clean"] else f"CORRUPT ({r['corrupted']})"
        if r["concurrent"] and not r["group_order"] and not r["clean"]:
            verdict += ", op-order plan on concurrent streams"
        lines.append(f"| {r['planner']} | {verdict} | {size(r['planned'])} | {size(r['arena'])} "
                     f"| {size(r['measured'])} | {bw / 1e9:.1f} | "
                     f"{100 * bw / peak if peak else 0:.0f} | {r['launches_per_iteration']} |")
    if runs and runs[0]["baselines"]:
        lines += ["", "| baseline (same program, allocate at first use) | peak |", "| --- | --- |"]
        for b in runs[0]["baselines"]:
            lines.append(f"| {b['allocator']} | {b.get('error') or size(b['bytes'])} |")
    lines.append("")
with open(report, "w") as f:
    f.write("\n".join(lines))
EOF
say "report: $report"
exit $status
