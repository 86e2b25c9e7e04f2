#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Compares memplan's simulation of PyTorch's CUDA caching allocator (the
"caching allocator (PyTorch's)" rows of `memplan-cli exec --baselines`)
with PyTorch's real allocator replaying the same sequence: every tensor
allocated (torch.empty, bytes) at its first step and freed after its last,
in step order, on one stream (one op at a time) or, with --concurrent, on
a torch.cuda.Stream per graph stream (the producer's), as the simulation
does. Prints both peaks (reserved, allocated) and the difference.

    python3 build-aux/torch-caching-compare.py MEMPLAN_CLI GRAPH [--concurrent]

Exit status: 0 compared, 1 an error, 77 skipped (torch is not importable,
or no CUDA device is usable), so CI without PyTorch passes over it.
"""

import json
import os
import subprocess
import sys
import tempfile


def run_json(cmd):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.json")
        rc = subprocess.run(cmd + ["--format", "json", "-o", out]).returncode
        if rc not in (0, 1):
            sys.exit(f"torch-caching-compare: {' '.join(cmd)} failed with exit {rc}")
        with open(out) as f:
            return json.load(f)


def main():
    args = [a for a in sys.argv[1:] if a != "--concurrent"]
    concurrent = "--concurrent" in sys.argv[1:]
    if len(args) != 2:
        sys.exit(__doc__)
    cli, graph_path = args
    try:
        import torch
    except ImportError:
        print("torch-caching-compare: skipped: torch is not importable")
        return 77
    if not torch.cuda.is_available():
        print("torch-caching-compare: skipped: torch sees no CUDA device")
        return 77

    # the sequence: naive's plan has every tensor's lifetime in op steps
    plan = run_json([cli, "plan", graph_path, "-p", "naive"])["plans"][0]
    with open(graph_path) as f:
        graph = json.load(f)
    producer_stream = {}
    for op in graph.get("ops", []):
        for name in op.get("outputs", []):
            producer_stream[name] = op.get("stream", 0)
    views = {t["name"]: t["view_of"] for t in graph["tensors"] if "view_of" in t}

    def root(name):
        while name in views:
            name = views[name]
        return name

    stream_of = {}
    for name, s in producer_stream.items():
        stream_of.setdefault(root(name), s)
    tensors = plan["tensors"]
    n_steps = max((t["last"] for t in tensors), default=-1) + 1

    # the simulation's figures, from the same program
    opts = [] if concurrent else ["--sequential"]
    sim = {}
    for run in run_json([cli, "exec", graph_path, "--backend", "cpu", "-p", "naive",
                         "--iterations", "1"] + opts)["runs"]:
        for b in run["baselines"]:
            sim[b["allocator"]] = b["bytes"]

    # the real allocator, from a clean state
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    streams = {}
    live = {}
    for step in range(n_steps):
        for t in tensors:
            if t["first"] == step:
                s = stream_of.get(t["name"], 0) if concurrent else 0
                if s not in streams:
                    streams[s] = torch.cuda.current_stream() if s == 0 else torch.cuda.Stream()
                with torch.cuda.stream(streams[s]):
                    live[t["name"]] = torch.empty(max(t["size"], 1), dtype=torch.uint8,
                                                  device="cuda")
        for t in tensors:
            if t["last"] == step and t["name"] in live:
                del live[t["name"]]
    torch.cuda.synchronize()
    real = {"reserved": torch.cuda.max_memory_reserved(),
            "allocated": torch.cuda.max_memory_allocated()}

    print(f"{graph['name']}: {len(tensors)} tensors over {n_steps} steps, "
          f"{'each on its producer stream' if concurrent else 'one stream'}; "
          f"torch {torch.__version__} on {torch.cuda.get_device_name()}")
    print(f"{'figure':<12} {'simulated':>16} {'PyTorch':>16} {'difference':>16}")
    for key in ("reserved", "allocated"):
        s = sim.get(f"caching allocator (PyTorch's) {key}")
        r = real[key]
        if s is None:
            print(f"{key:<12} {'(no row)':>16} {r:>16}")
            continue
        print(f"{key:<12} {s:>16} {r:>16} {r - s:>+16} ({100 * (r - s) / max(s, 1):+.2f}%)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
