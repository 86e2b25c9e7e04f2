#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes a memory snapshot pickle of N allocations, each freed at once, all
sharing one stack (a pickle memo reference, as PyTorch writes them): the
input behind the README's import figures (Hardening, memory estimate).

    python3 tests/make-big-snapshot.py N FRAMES OUT.pickle

FRAMES: 2 (train.py's two frames), 20 (eighteen long module frames
before them), 32 (six-byte frames), 0 (no stack). Standard library only."""

import pickle
import sys

n, kind, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
S = 0x7f0000000000
frames = {0: [],
          2: [{"filename": "train.py", "line": 10, "name": "forward"},
              {"filename": "train.py", "line": 40, "name": "main"}]}
frames[20] = [{"filename": "lib/torch/nn/modules/module.py", "line": 1500 + k,
               "name": "_call_impl"} for k in range(18)] + frames[2]
frames[32] = [{"filename": "", "line": 0, "name": ""}] * 32
stack = frames[kind]
trace = [{"action": "segment_alloc", "addr": S, "size": 1 << 30, "stream": 0, "time_us": 0,
          "frames": []}]
for i in range(n):
    a = S + (i % 4096) * 65536
    for action, t in (("alloc", 2 * i + 1), ("free_completed", 2 * i + 2)):
        trace.append({"action": action, "addr": a, "size": 4096, "stream": 0, "time_us": t,
                      "frames": stack})
snapshot = {"segments": [{"device": 0, "address": S, "total_size": 1 << 30,
                          "allocated_size": 0, "active_size": 0, "requested_size": 0,
                          "stream": 0, "segment_type": "large", "segment_pool_id": (0, 0),
                          "is_expandable": False, "frames": [], "blocks": []}],
            "device_traces": [trace]}
with open(out, "wb") as f:
    f.write(pickle.dumps(snapshot, protocol=4))
