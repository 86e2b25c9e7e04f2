#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The Python rows of build-aux/bench.sh (issue 32's targets):
memplan.plan of a CSV's buffers as (size, start, end) tuples, greedy-by-size,
against memplan-cli's own planning time for the same file; and the time
`import memplan` adds to an interpreter's start.

  PYTHONPATH=BUILD/python bench-python.py MEMPLAN_CLI RECORDS.CSV"""
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import memplan

cli, csv_path = sys.argv[1], sys.argv[2]

with open(csv_path, encoding="utf-8") as f:
    header = f.readline().strip().split(",")
    col = {name: header.index(name) for name in ("size", "lower", "upper")}
    buffers = []
    for line in f:
        v = line.split(",")
        buffers.append((int(v[col["size"]]), int(v[col["lower"]]), int(v[col["upper"]])))

# wall times move with the machine's load; CPU times (one thread each: one
# planner) far less, so both are given
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "plan.json")
    start = time.perf_counter()
    subprocess.run([cli, "plan", "-p", "greedy-by-size", "-f", "json", "-o", out, csv_path],
                   check=True)
    cli_wall = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cli_cpu = usage.ru_utime + usage.ru_stime
    with open(out, encoding="utf-8") as f:
        cli_plan = json.load(f)["plans"][0]

start, start_cpu = time.perf_counter(), time.process_time()
result = memplan.plan(buffers, planner="greedy-by-size")
py_wall, py_cpu = time.perf_counter() - start, time.process_time() - start_cpu
assert result.arena == cli_plan["arena"], (result.arena, cli_plan["arena"])
print("memplan.plan of %d tuples, greedy-by-size: %.2f s wall (planning %.2f s), %.2f s CPU; "
      "memplan-cli plan: planning %.2f s (its time column), %.2f s wall and %.2f s CPU in all "
      "with the CSV read; ratio to the CLI's planning time %.2f (wall), to its whole CPU time "
      "%.2f" % (len(buffers), py_wall, result.seconds, py_cpu, cli_plan["seconds"], cli_wall,
                cli_cpu, py_wall / cli_plan["seconds"], py_cpu / cli_cpu))


def start_time(code, runs=30):
    """the fastest of runs starts (the least disturbed by other load), and
    the median CPU time of one start, which load moves far less"""
    times, cpu = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        times.append(time.perf_counter() - t)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return min(times), statistics.median(cpu)


def import_time(runs=10):
    best = None
    for _ in range(runs):
        trace = subprocess.run([sys.executable, "-X", "importtime", "-c", "import memplan"],
                               capture_output=True, text=True, check=True).stderr
        for line in trace.splitlines():
            if line.rstrip().endswith("| memplan"):
                us = int(line.split("|")[1])
                best = us if best is None else min(best, us)
    return best


(bare, bare_cpu), (loaded, loaded_cpu) = start_time("pass"), start_time("import memplan")
print("import memplan: %.1f ms (-X importtime, cumulative, fastest of 10); %.1f ms of CPU more "
      "than python3 -c pass (median of 30); an interpreter's start %.1f ms with it, %.1f ms "
      "without (fastest of 30)"
      % (import_time() / 1e3, (loaded_cpu - bare_cpu) * 1e3, loaded * 1e3, bare * 1e3))
