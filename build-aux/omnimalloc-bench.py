#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""OmniMalloc's figures on the same CSV files as memplan's, for bench.sh.

    build-aux/omnimalloc-bench.py [--allocators a,b,...]
                                  [--supermalloc SECONDS [--threads N]] FILE.csv[.gz]...

Installs omnimalloc (PyPI, Apache-2.0) into a throwaway virtual environment
under $TMPDIR on first use (or uses OMNIMALLOC_VENV if set) and re-runs itself
there. For each file (MiniMalloc's CSV form id,lower,upper,size, half-open
lifetimes; gzip read too) prints, per allocator, the arena (its peak), the
ratio to the lower bound (the largest sum of sizes live at one step) and the
CPU and wall time of the call. Default allocators: OmniMalloc's one-pass
heuristics. --supermalloc SECONDS runs only its branch-and-bound search,
`supermalloc`, with that timeout on every processor (its threads; it returns
early once it proves its peak minimal), the row issue 30 compares `optimal`
with; --threads N gives it N threads instead (with fewer than 3 it never asks
the lower bound itself: one rung per preorder, the incumbent's).
CI never runs this.
"""
import csv
import gzip
import os
import subprocess
import sys
import tempfile
import time

HEURISTICS = ("greedy", "greedy_by_size", "greedy_by_duration", "greedy_by_area",
              "greedy_by_conflict", "greedy_by_conflict_size", "greedy_by_start",
              "greedy_by_all", "best_fit", "omni")


def ensure_venv():
    try:
        import omnimalloc  # noqa: F401
        return
    except ImportError:
        pass
    venv = os.environ.get("OMNIMALLOC_VENV") or os.path.join(tempfile.gettempdir(),
                                                             "memplan-omnimalloc-venv")
    py = os.path.join(venv, "bin", "python")
    if not os.path.exists(py):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([py, "-m", "pip", "install", "-q", "omnimalloc==1.0.0"], check=True)
    os.execv(py, [py] + sys.argv)


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", newline="") as f:
        rows = list(csv.DictReader(f))
    return [(r["id"], int(r["lower"]), int(r["upper"]), int(r["size"])) for r in rows]


def lower_bound(rows):
    events = {}
    for _, lo, up, size in rows:
        events[lo] = events.get(lo, 0) + size
        events[up] = events.get(up, 0) - size
    live = best = 0
    for t in sorted(events):
        live += events[t]
        best = max(best, live)
    return best


def main():
    ensure_venv()
    import omnimalloc as om

    args = sys.argv[1:]
    allocators = HEURISTICS
    if args[:1] == ["--allocators"]:
        allocators = tuple(args[1].split(","))
        args = args[2:]
    if args[:1] == ["--supermalloc"]:
        # a fresh allocator per file: the name alone would take its 3 s default
        seconds = float(args[1])
        threads = os.cpu_count()
        args = args[2:]
        if args[:1] == ["--threads"]:
            threads = int(args[1])
            args = args[2:]
        allocators = ((lambda: om.allocators.SupermallocAllocator(
            timeout=seconds, num_threads=threads)),)
    for path in args:
        rows = load(path)
        bound = lower_bound(rows)
        allocs = [om.Allocation(id=i, size=s, start=lo, end=up)
                  for i, (_, lo, up, s) in enumerate(rows)]
        print("%s: %d buffers, lower bound %d" % (os.path.basename(path), len(rows), bound))
        for name in allocators:
            allocator, label = name, name
            if callable(name):
                allocator = name()
                label = "supermalloc %gs %dt" % (seconds, threads)
            t0, w0 = time.process_time(), time.monotonic()
            verdict = ""
            try:
                if callable(name):
                    # solve() keeps the search's own verdict: proved or out of time
                    result = allocator.solve(tuple(allocs))
                    placed = result.allocations
                    verdict = "  proved" if result.proved_optimal else "  unproved, bound %d" % (
                        result.lower_bound)
                else:
                    placed = om.allocate(allocs, allocator)
            except Exception as e:  # a peer's failure is a figure too
                print("  %-24s failed: %s" % (label, str(e).splitlines()[0][:80]))
                continue
            # process_time counts every thread of the process: the C++ core's too
            cpu, wall = time.process_time() - t0, time.monotonic() - w0
            arena = max((a.offset + a.size for a in placed), default=0)
            print("  %-24s %14d  %.4fx  CPU %.3f s  wall %.3f s%s"
                  % (label, arena, arena / bound if bound else 1, cpu, wall, verdict))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
