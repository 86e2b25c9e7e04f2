#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes the ONNX inputs that once crashed memplan (issue 27) into
tests/fuzz-regressions/onnx/, and two fuzz seeds in the forms exporters
write into tests/data/, byte by byte (the standard library only: the onnx
package refuses to write some of them).

    python3 build-aux/make-onnx-regressions.py

- crash-maxpool-strides-0.onnx: MaxPool with strides [0, 0]; libonnx's
  shape inference divided by the stride (SIGFPE).
- crash-reshape-short-raw-data.onnx: a Reshape whose shape initializer has
  dims [4] of INT64 and 2 bytes of raw_data; libonnx read past them
  (SIGSEGV).
- crash-nested-5000.onnx: a value_info type nested sequence_type{elem_type}
  5,000 deep; protobuf-c's recursion ran off the stack (SIGSEGV).

tests/test-onnx.c makes the same three models itself and checks the exact
messages; tests/test-fuzz-regressions.c feeds these files to the fuzz
target.

The seeds (build-aux/fuzz.sh onnx starts from tests/data/onnx-*.onnx):
- onnx-export-shapes.onnx: TorchScript's shape subgraph (Shape, Gather,
  Unsqueeze, Concat, Reshape, ConstantOfShape, Range, Expand), which the
  folding pass (analysis/onnx-fold.c) evaluates;
- onnx-dynamo-dims.onnx: dimensions as expressions ("Min(512, seq)"), as
  the dynamo exporter writes them. Both use the fuzz target's names, batch
  and seq.
"""
import os

FLOAT, INT64 = 1, 7


def varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def f_varint(field, n):
    return varint(field << 3) + varint(n)


def f_bytes(field, b):
    b = b.encode() if isinstance(b, str) else b
    return varint(field << 3 | 2) + varint(len(b)) + b


def tensor_type(elem, dims):
    shape = b"".join(f_bytes(1, f_varint(1, d) if isinstance(d, int) else f_bytes(2, d))
                     for d in dims)
    return f_bytes(1, f_varint(1, elem) + f_bytes(2, shape))


def value_info(name, elem, dims=None):
    return f_bytes(1, name) + (f_bytes(2, tensor_type(elem, dims)) if dims else b"")


def attr_ints(name, values):
    return f_bytes(1, name) + f_varint(20, 7) + f_bytes(8, b"".join(varint(v) for v in values))


def attr_int(name, value):
    return f_bytes(1, name) + f_varint(20, 2) + f_varint(3, value)


def constant(name, values, scalar=False):
    t = (b"" if scalar else f_bytes(1, varint(len(values)))) + f_varint(2, INT64)
    t += f_bytes(7, b"".join(varint(v) for v in values))
    value = f_bytes(1, "value") + f_varint(20, 4) + f_bytes(5, t)
    return node("Constant", [], [name], name, [value])


def node(op, inputs, outputs, name, attrs=()):
    return (b"".join(f_bytes(1, i) for i in inputs) + b"".join(f_bytes(2, o) for o in outputs)
            + f_bytes(3, name) + f_bytes(4, op) + b"".join(f_bytes(5, a) for a in attrs))


def model(nodes, x_dims, inits=(), value_infos=(), outputs=("y",)):
    g = (b"".join(f_bytes(1, n) for n in nodes) + f_bytes(2, "g")
         + b"".join(f_bytes(5, t) for t in inits)
         + f_bytes(11, value_info("x", FLOAT, x_dims))
         + b"".join(f_bytes(12, o if isinstance(o, bytes) else value_info(o, FLOAT))
                    for o in outputs)
         + b"".join(f_bytes(13, v) for v in value_infos))
    return f_varint(1, 8) + f_bytes(8, f_bytes(1, "") + f_varint(2, 17)) + f_bytes(7, g)


def main():
    out = os.path.join(os.path.dirname(__file__), "..", "tests", "fuzz-regressions", "onnx")
    nested = tensor_type(FLOAT, [1])
    for _ in range(5000):
        nested = f_bytes(4, f_bytes(1, nested))
    samples = {
        "crash-maxpool-strides-0.onnx": model(
            [node("MaxPool", ["x"], ["y"], "pool",
                  [attr_ints("kernel_shape", [2, 2]), attr_ints("strides", [0, 0])])],
            [1, 1, 4, 4]),
        "crash-reshape-short-raw-data.onnx": model(
            [node("Reshape", ["x", "shape"], ["y"], "reshape")], [2, 2],
            inits=[f_bytes(1, varint(4)) + f_varint(2, INT64) + f_bytes(8, "shape")
                   + f_bytes(9, b"\x01\x00")]),
        "crash-nested-5000.onnx": model(
            [node("Relu", ["x"], ["y"], "relu")], [1],
            value_infos=[f_bytes(1, "v") + f_bytes(2, nested)]),
    }
    for name, data in samples.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
        print(name, len(data), "bytes")
    seeds = {
        "onnx-export-shapes.onnx": model(
            [node("Shape", ["x"], ["s"], "shape"), constant("c0", [0], True),
             constant("c1", [1], True), constant("ax", [0]), constant("c4", [4]),
             constant("c2", [2]),
             node("Gather", ["s", "c0"], ["b"], "g0"), node("Gather", ["s", "c1"], ["q"], "g1"),
             node("Unsqueeze", ["b", "ax"], ["ub"], "u0"),
             node("Unsqueeze", ["q", "ax"], ["uq"], "u1"),
             node("Concat", ["ub", "uq", "c4", "c2"], ["shp"], "cat", [attr_int("axis", 0)]),
             node("Reshape", ["x", "shp"], ["y"], "reshape"),
             node("Concat", ["ub", "uq"], ["bs"], "cat2", [attr_int("axis", 0)]),
             node("ConstantOfShape", ["bs"], ["ones"], "cos"),
             node("Range", ["c0", "q", "c1"], ["pos"], "range"),
             node("Unsqueeze", ["pos", "ax"], ["pos2"], "u2"),
             node("Expand", ["pos2", "bs"], ["posx"], "expand")],
            ["batch", "seq", 8], outputs=("y", "ones", "posx")),
        "onnx-dynamo-dims.onnx": model(
            [node("Relu", ["x"], ["y"], "relu")], ["batch", "Min(512, seq)", "batch*seq + 1"],
            outputs=(value_info("y", FLOAT, ["batch", "Min(512, seq)", "batch*seq + 1"]),)),
    }
    data_dir = os.path.join(os.path.dirname(__file__), "..", "tests", "data")
    for name, data in seeds.items():
        with open(os.path.join(data_dir, name), "wb") as f:
            f.write(data)
        print(name, len(data), "bytes")


if __name__ == "__main__":
    main()
