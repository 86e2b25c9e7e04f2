#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes the PyTorch trace and snapshot fixtures of tests/test-trace.c into
tests/data/. Standard library only; run it from anywhere:

    python3 tests/make-trace-fixtures.py

The files are committed; rerun this after changing it. Every value is
chosen by hand so that test-trace.c can assert exact records."""

import collections
import json
import os
import pickle

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def write(name, data):
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(os.path.join(HERE, name), mode) as f:
        f.write(data)


def mem(ts, addr, nbytes, total, reserved, dtype=1, did=0):
    return {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": ts,
            "args": {"Addr": addr, "Bytes": nbytes, "Total Allocated": total,
                     "Total Reserved": reserved, "Device Type": dtype, "Device Id": did}}


# --- Chrome trace: cuda:0 and the CPU, one free without an allocation, one
# allocation never freed, other events in between, not sorted by ts.
cuda = [
    mem(10, 0x1000, 1024, 1024, 2097152),      # A
    mem(20, 0x1400, 2048, 3072, 2097152),      # B
    mem(30, 0x1000, -1024, 2048, 2097152),     # free A
    mem(40, 0x1000, 512, 2560, 2097152),       # C reuses A's address
    mem(50, 0x9000, -256, 2304, 2097152),      # a free whose allocation predates the trace
    mem(60, 0x200000, 4096, 6400, 4194304),    # D in a second segment, never freed
    mem(70, 0x1400, -2048, 4352, 4194304),     # free B
    mem(80, 0x1000, -512, 3840, 4194304),      # free C
]
cpu = [mem(15, 0x7f00, 64, 64, 0, dtype=0, did=-1),
       mem(25, 0x7f00, -64, 0, 0, dtype=0, did=-1)]
other = [{"ph": "X", "name": "aten::add", "pid": 1, "tid": 1, "ts": 12, "dur": 5, "args": {}},
         {"ph": "i", "name": "[memory]", "pid": 1, "tid": 1, "ts": 5,
          "args": {"Addr": 0x1000, "Bytes": 0, "Total Allocated": 0, "Total Reserved": 0,
                   "Device Type": 1, "Device Id": 0}}]
events = cuda[::-1] + cpu + other   # the importer sorts by ts
write("trace-two-devices.json", json.dumps(
    {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100"}],
     "traceEvents": events, "displayTimeUnit": "ms"}, indent=1))

# The Trace Event Format's bare-array form, device cuda:1.
write("trace-array.json", json.dumps([
    mem(1.5, 0x4000, 512, 512, 1048576, did=1),
    mem(2.5, 0x4200, 512, 1024, 1048576, did=1),
    mem(3.5, 0x4000, -512, 512, 1048576, did=1),
]))

# Malformed traces.
bad = [mem(10, 0x1000, 1024, 1024, 2097152), mem(20, 0x1000, -1024, 0, 2097152)]
bad[1]["args"]["Bytes"] = "-1024"
write("trace-bad-bytes.json", json.dumps({"traceEvents": bad}))
write("trace-huge-alloc.json", json.dumps({"traceEvents": [mem(1, 0x1000, 1 << 50, 0, 0)]}))
write("trace-no-memory.json", json.dumps({"traceEvents": other[:1]}))
write("trace-truncated.json", json.dumps({"traceEvents": cuda})[:200])

# --- Memory snapshot, as torch.cuda.memory._dump_snapshot() writes it.
S = 0x7f0000000000
train = [{"filename": "train.py", "line": 10, "name": "forward"},
         {"filename": "train.py", "line": 40, "name": "main"}]
mlp = [{"filename": "model.py", "line": 7, "name": "mlp"}]


def entry(action, addr, size, t, frames=None, **extra):
    e = {"action": action, "addr": addr, "size": size, "stream": 0, "time_us": t,
         "frames": frames if frames is not None else []}
    e.update(extra)
    return e


snapshot = {
    "segments": [{
        "device": 0, "address": S, "total_size": 2097152, "allocated_size": 1280,
        "active_size": 1280, "requested_size": 1280, "stream": 0, "segment_type": "large",
        "segment_pool_id": (0, 0), "is_expandable": False, "frames": train,
        "blocks": [{"address": S, "size": 768, "requested_size": 700,
                    "state": "active_allocated", "frames": train},
                   {"address": S + 1024, "size": 512, "requested_size": 512,
                    "state": "active_allocated", "frames": mlp}],
    }],
    "device_traces": [[
        entry("segment_alloc", S, 2097152, 1),
        entry("alloc", S, 1024, 2, train),                  # X
        entry("alloc", S + 1024, 512, 3, mlp),              # Y, never freed
        entry("free_requested", S, 1024, 4, train),
        entry("free_completed", S, 1024, 5, train),
        entry("alloc", S, 768, 6, train),                   # Z (shares X's frames: memo)
        entry("free_completed", S + 4096, 256, 7),          # no allocation in the trace
        {"action": "oom", "size": 1 << 40, "device_free": 0, "stream": 0, "time_us": 8.5,
         "frames": []},
        entry("snapshot", 0, 0, 9),
    ], []],
    "allocator_settings": {"PYTORCH_CUDA_ALLOC_CONF": None, "max_split_size": -1,
                           "handle": 1 << 70, "roundup": 512.0},
}
write("snapshot.pickle", pickle.dumps(snapshot, protocol=4))
write("snapshot-p2.pickle", pickle.dumps(snapshot, protocol=2))
data = pickle.dumps(snapshot, protocol=4)
write("snapshot-truncated.pickle", data[:len(data) // 2])

wrong = {"segments": [], "device_traces": [[entry("alloc", "0x7f00", 1024, 1)]]}
write("snapshot-wrong-type.pickle", pickle.dumps(wrong, protocol=4))
write("snapshot-empty.pickle", pickle.dumps({"segments": [], "device_traces": [[], []]},
                                            protocol=4))
write("snapshot-not-dict.pickle", pickle.dumps([1, 2, 3], protocol=4))
write("snapshot-no-traces.pickle", pickle.dumps({"segments": [], "device_traces": {}},
                                                protocol=4))
# Containers and numbers as protocols 2 and 4 write them (2 calls the
# container types through GLOBAL + REDUCE, 4 has opcodes of its own).
values = {"od": collections.OrderedDict(a=1, b=2), "s": {3}, "fs": frozenset({4}),
          "neg": -5, "big": -(1 << 70), "i62": 1 << 62, "n40": -(1 << 40), "t": (1, "x", None)}
write("pickle-values-p2.pickle", pickle.dumps(values, protocol=2))
write("pickle-values-p4.pickle", pickle.dumps(dict(values, b=b"xy"), protocol=4))
# Hand-assembled: a BINUNICODE of 5 bytes with 3 left; a BINUNICODE8 claiming
# 2^60 bytes; a call to os.system; an opcode outside the data subset.
write("pickle-cut-string.pickle", b"\x80\x02}q\x00(X\x05\x00\x00\x00act")
write("pickle-huge-length.pickle", b"\x80\x04\x8d" + (1 << 60).to_bytes(8, "little") + b"abc")
write("pickle-os-system.pickle", b"\x80\x02cos\nsystem\nq\x00X\x02\x00\x00\x00lsq\x01\x85q\x02Rq\x03.")
write("pickle-bad-opcode.pickle", b"\x80\x02\xff.")
