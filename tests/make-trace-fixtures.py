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

# --- Compressed: what torch.profiler's export_chrome_trace("x.json.gz")
# writes (gzip.open over the JSON text), byte for byte reproducible.
import gzip  # noqa: E402

with open(os.path.join(HERE, "trace-two-devices.json"), "rb") as f:
    write("trace-two-devices.json.gz", gzip.compress(f.read(), compresslevel=9, mtime=0))
with open(os.path.join(HERE, "snapshot.pickle"), "rb") as f:
    write("snapshot.pickle.gz", gzip.compress(f.read(), mtime=0))


# --- Attribution: slices as the profiler writes them with with_stack=True
# and with_modules=True; two threads allocate at the same ts.
def slice_(cat, name, ts, dur, tid=1):
    return {"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": tid, "ts": ts, "dur": dur,
            "args": {}}


def tmem(ts, addr, nbytes, tid=1, dtype=1, did=0, reserved=2097152):
    e = mem(ts, addr, nbytes, 0, reserved, dtype, did)
    e["tid"] = tid
    return e


write("trace-attribution.json", json.dumps({"traceEvents": [
    slice_("python_function", "train.py(40): main", 0, 1000),
    slice_("python_function", "nn.Module: MLP_0", 5, 900),
    slice_("python_function", "model.py(12): forward", 10, 800),
    slice_("python_function", "nn.Module: Linear_0", 20, 200),
    slice_("cpu_op", "aten::linear", 30, 150),
    slice_("cpu_op", "aten::addmm", 40, 100),
    tmem(50, 0x1000, 4096),                        # aten::addmm in MLP_0.Linear_0
    slice_("cpu_op", "aten::empty", 45, 20, tid=2),
    tmem(50, 0x8000, 2048, tid=2),                 # the other thread's aten::empty
    slice_("cpu_op", "aten::relu", 300, 50),
    tmem(310, 0x2000, 4096),                       # aten::relu in MLP_0
    tmem(400, 0x1000, -4096),
    tmem(500, 0x2000, -4096),
    tmem(600, 0x8000, -2048, tid=2),
    tmem(950, 0x3000, 1024),                       # in main only, never freed
]}, indent=1))

# --- A DataLoader with workers: a batch arrives through shared memory
# (torch.multiprocessing's rebuild_storage_filename) between CPU blocks.
write("trace-dataloader.json", json.dumps({"traceEvents": [
    slice_("cpu_op", "aten::empty", 10, 10),
    tmem(12, 0x100000, 1 << 20, dtype=0, did=-1, reserved=0),
    slice_("python_function", "torch/multiprocessing/reductions.py(520): "
           "rebuild_storage_filename", 30, 20),
    tmem(35, 0x7f0000, 786432, dtype=0, did=-1, reserved=786432),
    slice_("cpu_op", "aten::add", 55, 10),
    tmem(60, 0x400000, 2 << 20, dtype=0, did=-1, reserved=0),
    tmem(70, 0x7f0000, -786432, dtype=0, did=-1, reserved=0),
    tmem(80, 0x100000, -(1 << 20), dtype=0, did=-1, reserved=0),
    tmem(90, 0x400000, -(2 << 20), dtype=0, did=-1, reserved=0),
]}, indent=1))

# profile_all_threads=True: ops on every thread, no [memory] event at all.
write("trace-all-threads.json", json.dumps({"traceEvents": [
    slice_("cpu_op", "aten::mm", 10, 5, tid=1), slice_("cpu_op", "aten::add", 12, 5, tid=7)]}))

# Non-standard JSON and an address past 2^63 (2^64 - 1).
write("trace-nan-ts.json", '{"traceEvents": [\n  {"ph": "i", "name": "[memory]", "ts": NaN, '
      '"args": {"Addr": 4096, "Bytes": 64}}]}\n')
write("trace-addr-overflow.json", json.dumps({"traceEvents": [
    mem(1, (1 << 64) - 1, 64, 64, 0)]}))

# --- Snapshots: blocks allocated before the trace began (PyTorch's viewer
# counts them live from the start), and impossible segments.
P = 0x7e0000000000
MiB = 1 << 20
pre = {
    "segments": [{"device": 0, "address": P, "total_size": 8 * MiB, "allocated_size": 3 * MiB,
                  "stream": 0, "segment_type": "large", "frames": [],
                  "blocks": [{"address": P, "size": MiB, "state": "active_allocated"},
                             {"address": P + MiB, "size": 2 * MiB, "state": "active_allocated"},
                             {"address": P + 3 * MiB, "size": MiB, "state": "inactive"}]}],
    "device_traces": [[
        entry("alloc", P + MiB, 2 * MiB, 1, mlp),
        entry("alloc", P + 3 * MiB, MiB, 2, mlp),
        entry("free_completed", P + 4 * MiB, 512 * 1024, 3),   # allocated before the trace
        entry("free_completed", P + 3 * MiB, MiB, 4, mlp),
    ]],
}
write("snapshot-pre-existing.pickle", pickle.dumps(pre, protocol=4))
huge = {"segments": [{"device": 0, "address": P, "total_size": 1 << 63 - 1, "blocks": []}],
        "device_traces": [[entry("alloc", P, 512, 1)]]}
write("snapshot-huge-segment.pickle", pickle.dumps(huge, protocol=4))
overlap = {"segments": [{"device": 0, "address": P, "total_size": 2 * MiB, "blocks": []},
                        {"device": 0, "address": P + MiB, "total_size": 2 * MiB, "blocks": []}],
           "device_traces": [[entry("alloc", P, 512, 1)]]}
write("snapshot-overlap.pickle", pickle.dumps(overlap, protocol=4))
