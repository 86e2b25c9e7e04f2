#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The Python rows of build-aux/bench.sh (issue 32's targets):
memplan.plan of a CSV's buffers as (size, start, end) tuples, greedy-by-size,
against memplan-cli's own planning time for the same file; and the time
`import memplan` adds to an interpreter's start.

  PYTHONPATH=BUILD/python bench-python.py MEMPLAN_CLI RECORDS.CSV"""
import json
import os
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

with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "plan.json")
    start = time.perf_counter()
    subprocess.run([cli, "plan", "-p", "greedy-by-size", "-f", "json", "-o", out, csv_path],
                   check=True)
    cli_wall = time.perf_counter() - start
    with open(out, encoding="utf-8") as f:
        cli_plan = json.load(f)["plans"][0]

start = time.perf_counter()
result = memplan.plan(buffers, planner="greedy-by-size")
py_wall = time.perf_counter() - start
assert result.arena == cli_plan["arena"], (result.arena, cli_plan["arena"])
print("memplan.plan of %d tuples, greedy-by-size: %.2f s in all (planning %.2f s); "
      "memplan-cli plan: planning %.2f s (its time column), %.2f s in all with the CSV read; "
      "ratio to the CLI's planning time %.2f"
      % (len(buffers), py_wall, result.seconds, cli_plan["seconds"], cli_wall,
         py_wall / cli_plan["seconds"]))


def start_time(code, runs=30):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


bare, loaded = start_time("pass"), start_time("import memplan")
trace = subprocess.run([sys.executable, "-X", "importtime", "-c", "import memplan"],
                       capture_output=True, text=True, check=True).stderr
own = [line for line in trace.splitlines() if line.rstrip().endswith("| memplan")]
print("import memplan: %.1f ms more than python3 -c pass (median of 30 starts: %.1f ms, "
      "%.1f ms); -X importtime: %s"
      % ((loaded - bare) * 1e3, loaded * 1e3, bare * 1e3,
         own[0].split("|")[1].strip() + " us cumulative" if own else "?"))
