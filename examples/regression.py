#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Plans every model of a folder and fails when an arena grew: a memory
regression gate in a dozen lines of Python.

  python3 examples/regression.py FOLDER --save baseline.json   # record
      [--dim batch=8 --dim seq=128]                             # ONNX dimensions
  python3 examples/regression.py FOLDER --baseline baseline.json [--tolerance 0.5]

Exit 0 when nothing grew by more than the tolerance (percent), 1 when
something did (each named), 2 when a model cannot be read."""
import argparse
import json
import os
import sys

import memplan

EXTENSIONS = (".json", ".csv", ".onnx", ".pickle", ".gz")
PLANNERS = ["greedy-by-size", "best-fit", "first-fit"]


def open_model(path, dims):
    # the dimensions bind the ONNX models that have them, as `memplan-cli suite --dim` does
    if dims and path.endswith((".onnx", ".onnx.gz")):
        try:
            return memplan.open(path, dims=dims)
        except memplan.Error:
            pass
    return memplan.open(path)


def plan_folder(folder, dims):
    arenas = {}
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(root, name)
            if not name.endswith(EXTENSIONS):
                continue
            try:
                workload = open_model(path, dims)
            except memplan.Error as e:
                if name.endswith(".json"):  # plans and reports among the graphs
                    continue
                print("regression: %s" % e, file=sys.stderr)
                sys.exit(2)
            results = workload.plan(PLANNERS)
            arenas[os.path.relpath(path, folder)] = {p: r.arena for p, r in results.items()}
    return arenas


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder")
    ap.add_argument("--save")
    ap.add_argument("--baseline")
    ap.add_argument("--tolerance", type=float, default=0.5)
    ap.add_argument("--dim", action="append", default=[], metavar="NAME=VALUE",
                    help="bind an ONNX model's symbolic dimension (repeatable)")
    args = ap.parse_args()
    dims = {name: int(value) for name, value in (d.split("=", 1) for d in args.dim)}
    arenas = plan_folder(args.folder, dims or None)
    if args.save:
        with open(args.save, "w", encoding="utf-8") as f:
            json.dump(arenas, f, indent=1, sort_keys=True)
        print("%d models planned into %s" % (len(arenas), args.save))
    if not args.baseline:
        return 0
    with open(args.baseline, encoding="utf-8") as f:
        base = json.load(f)
    grew = []
    for model, planners in sorted(base.items()):
        for planner, old in sorted(planners.items()):
            new = arenas.get(model, {}).get(planner)
            if new is None:
                grew.append("%s: %s: no longer planned" % (model, planner))
            elif new > old * (1 + args.tolerance / 100):
                grew.append("%s: %s: arena %d -> %d B (+%.1f%%)"
                            % (model, planner, old, new, 100.0 * (new - old) / old))
    for line in grew:
        print("GREW " + line)
    print("%s: %d models, %d arenas grew" % ("FAIL" if grew else "PASS", len(base), len(grew)))
    return 1 if grew else 0


if __name__ == "__main__":
    sys.exit(main())
