#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Makes the ONNX samples in data/onnx/ and the bad inputs in tests/data/.

    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install onnx
    /tmp/venv/bin/python build-aux/make-onnx-samples.py [--layers N OUT.onnx]

Weights are not shipped: every weight initializer keeps its dims but points
to an external data file that does not exist, so each model is a few KB and
proves that memplan opens a model without its weights. Only the small int64
shape constants that Reshape needs are stored inline (shape inference reads
them). The models are written at IR version 8 / opset 17, what Debian 12's
libonnx 1.12 reads. CI never runs this script; its output is committed, and
the figures it prints are the ones tests/test-onnx.c checks.

With --layers N OUT, writes only a transformer encoder of N layers to OUT
(for timing large models, not committed).
"""
import os
import sys

import onnx
from onnx import TensorProto, helper, numpy_helper, shape_inference

OPSET = 17
IR_VERSION = 8
ALIGNMENT = 64  # memplan's default for graphs
VIEW_OPS = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"}
ELEM_SIZE = {TensorProto.FLOAT: 4, TensorProto.INT64: 8, TensorProto.FLOAT16: 2}


class Builder:
    def __init__(self, name):
        self.name = name
        self.nodes = []
        self.inits = []
        self.counter = 0

    def weight(self, name, dims):
        t = TensorProto()
        t.name = name
        t.data_type = TensorProto.FLOAT
        t.dims.extend(dims)
        t.data_location = TensorProto.EXTERNAL
        for key, value in (("location", self.name + ".weights"), ("offset", "0"),
                           ("length", str(4 * _prod(dims)))):
            entry = t.external_data.add()
            entry.key, entry.value = key, value
        self.inits.append(t)
        return name

    def int64s(self, name, values):
        import numpy as np
        self.inits.append(numpy_helper.from_array(np.array(values, dtype=np.int64), name))
        return name

    def node(self, op, inputs, name, n_outputs=1, **attrs):
        outputs = [name + "_output_%d" % i for i in range(n_outputs)]
        self.nodes.append(helper.make_node(op, inputs, outputs, name=name, **attrs))
        return outputs[0] if n_outputs == 1 else outputs

    def model(self, inputs, outputs, infer=True):
        graph = helper.make_graph(self.nodes, self.name, inputs, outputs, self.inits)
        model = helper.make_model(graph, producer_name="memplan make-onnx-samples.py",
                                  opset_imports=[helper.make_opsetid("", OPSET)])
        model.ir_version = IR_VERSION
        if infer:
            model = shape_inference.infer_shapes(model, strict_mode=True)
        return model


def _prod(dims):
    n = 1
    for d in dims:
        n *= d
    return n


def cnn():
    """A resnet-like CNN: stem, two basic blocks at 32 channels, a strided
    block to 64 with a 1x1 projection, global pooling and a classifier."""
    b = Builder("resnet-mini")
    x = "image"

    def conv(inp, cin, cout, name, k=3, stride=1):
        w = b.weight(name + ".weight", [cout, cin, k, k])
        bias = b.weight(name + ".bias", [cout])
        return b.node("Conv", [inp, w, bias], "/" + name.replace(".", "/") + "/Conv",
                      kernel_shape=[k, k], strides=[stride, stride], pads=[k // 2] * 4)

    def block(inp, cin, cout, name, stride=1):
        h = conv(inp, cin, cout, name + ".conv1", stride=stride)
        h = b.node("Relu", [h], "/%s/relu1/Relu" % name)
        h = conv(h, cout, cout, name + ".conv2")
        skip = inp if stride == 1 and cin == cout else conv(inp, cin, cout, name + ".downsample",
                                                            k=1, stride=stride)
        h = b.node("Add", [h, skip], "/%s/Add" % name)
        return b.node("Relu", [h], "/%s/relu2/Relu" % name)

    h = conv(x, 3, 32, "stem")
    h = b.node("Relu", [h], "/stem/Relu")
    h = block(h, 32, 32, "layer1.0")
    h = block(h, 32, 32, "layer1.1")
    h = block(h, 32, 64, "layer2.0", stride=2)
    h = b.node("GlobalAveragePool", [h], "/pool/GlobalAveragePool")
    h = b.node("Flatten", [h], "/Flatten", axis=1)
    w = b.weight("fc.weight", [10, 64])
    bias = b.weight("fc.bias", [10])
    b.nodes.append(helper.make_node("Gemm", [h, w, bias], ["logits"], name="/fc/Gemm", transB=1))
    return b.model([helper.make_tensor_value_info(x, TensorProto.FLOAT, [8, 3, 64, 64])],
                   [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [8, 10])])


def transformer(layers=2, d=256, heads=4, ff=1024):
    """A pre-norm transformer encoder over [batch, seq, d] with symbolic batch
    and seq; attention heads are split and merged with Reshape/Transpose."""
    b = Builder("encoder-%dx%d" % (layers, d))
    dh = d // heads
    split = b.int64s("shape_split_heads", [0, 0, heads, dh])
    merge = b.int64s("shape_merge_heads", [0, 0, d])
    h = "hidden"

    def linear(inp, cin, cout, name):
        w = b.weight(name + ".weight", [cin, cout])
        bias = b.weight(name + ".bias", [cout])
        p = "/" + name.replace(".", "/")
        return b.node("Add", [b.node("MatMul", [inp, w], p + "/MatMul"), bias], p + "/Add")

    def norm(inp, name):
        scale = b.weight(name + ".weight", [d])
        bias = b.weight(name + ".bias", [d])
        return b.node("LayerNormalization", [inp, scale, bias],
                      "/" + name.replace(".", "/") + "/LayerNormalization", axis=-1)

    for i in range(layers):
        p = "layers.%d" % i
        x = norm(h, p + ".norm1")
        qkv = []
        for part in ("q", "k", "v"):
            t = linear(x, d, d, "%s.attn.%s_proj" % (p, part))
            t = b.node("Reshape", [t, split], "/%s/attn/%s/Reshape" % (p, part))
            perm = [0, 2, 3, 1] if part == "k" else [0, 2, 1, 3]
            qkv.append(b.node("Transpose", [t], "/%s/attn/%s/Transpose" % (p, part), perm=perm))
        scores = b.node("MatMul", qkv[:2], "/%s/attn/MatMul" % p)
        scale = b.weight("%s.attn.scale" % p, [1])
        scores = b.node("Mul", [scores, scale], "/%s/attn/Mul" % p)
        probs = b.node("Softmax", [scores], "/%s/attn/Softmax" % p, axis=-1)
        ctx = b.node("MatMul", [probs, qkv[2]], "/%s/attn/MatMul_1" % p)
        ctx = b.node("Transpose", [ctx], "/%s/attn/Transpose" % p, perm=[0, 2, 1, 3])
        ctx = b.node("Reshape", [ctx, merge], "/%s/attn/Reshape" % p)
        h = b.node("Add", [h, linear(ctx, d, d, p + ".attn.out_proj")], "/%s/Add" % p)
        x = norm(h, p + ".norm2")
        x = b.node("Relu", [linear(x, d, ff, p + ".ff1")], "/%s/ff/Relu" % p)
        h = b.node("Add", [h, linear(x, ff, d, p + ".ff2")], "/%s/Add_1" % p)
    b.nodes.append(helper.make_node("Identity", [norm(h, "norm")], ["encoded"], name="/Identity"))
    shape = ["batch", "seq", d]
    return b.model([helper.make_tensor_value_info("hidden", TensorProto.FLOAT, shape)],
                   [helper.make_tensor_value_info("encoded", TensorProto.FLOAT, shape)])


def mlp_without_value_info():
    """No value_info and an output without a shape: memplan must run ONNX's
    shape inference to size the activations."""
    b = Builder("mlp-no-shapes")
    h = "x"
    for i, (cin, cout) in enumerate(((784, 512), (512, 256), (256, 10))):
        w = b.weight("fc%d.weight" % i, [cout, cin])
        bias = b.weight("fc%d.bias" % i, [cout])
        h = b.node("Gemm", [h, w, bias], "/fc%d/Gemm" % i, transB=1)
        if i < 2:
            h = b.node("Relu", [h], "/fc%d/Relu" % i)
    h = b.node("Softmax", [h], "/Softmax", axis=-1)
    b.nodes[-1].output[0] = "probs"
    return b.model([helper.make_tensor_value_info("x", TensorProto.FLOAT, [32, 784])],
                   [helper.make_tensor_value_info("probs", TensorProto.FLOAT, None)],
                   infer=False)


def with_if():
    """A graph with an If node: control flow memplan refuses."""
    then_out = helper.make_tensor_value_info("then_y", TensorProto.FLOAT, [4])
    else_out = helper.make_tensor_value_info("else_y", TensorProto.FLOAT, [4])
    then_g = helper.make_graph([helper.make_node("Relu", ["x"], ["then_y"], name="then_relu")],
                               "then", [], [then_out])
    else_g = helper.make_graph([helper.make_node("Neg", ["x"], ["else_y"], name="else_neg")],
                               "else", [], [else_out])
    nodes = [
        helper.make_node("ReduceSum", ["x"], ["s"], name="/sum", keepdims=0),
        helper.make_node("Greater", ["s", "zero"], ["cond"], name="/cond"),
        helper.make_node("If", ["cond"], ["y"], name="/branch", then_branch=then_g,
                         else_branch=else_g),
    ]
    zero = helper.make_tensor("zero", TensorProto.FLOAT, [], [0.0])
    graph = helper.make_graph(nodes, "with-if",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])],
                              [zero])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = IR_VERSION
    return model


def _tiny(nodes, name, functions=()):
    vi = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [4]) for n in ("x", "h", "y")]
    graph = helper.make_graph(nodes, name, [vi[0]], [vi[2]], value_info=[vi[1]])
    model = helper.make_model(graph, functions=list(functions),
                              opset_imports=[helper.make_opsetid("", OPSET),
                                             helper.make_opsetid("local", 1)])
    model.ir_version = IR_VERSION
    return model


def unsorted():
    """Two nodes in the wrong order: ONNX requires topological order."""
    return _tiny([helper.make_node("Neg", ["h"], ["y"], name="/neg"),
                  helper.make_node("Relu", ["x"], ["h"], name="/relu")], "unsorted")


def with_function():
    """A node calling a model-local function, which memplan does not expand."""
    fn = helper.make_function("local", "DoubleRelu", ["a"], ["b"],
                              [helper.make_node("Relu", ["a"], ["t"]),
                               helper.make_node("Relu", ["t"], ["b"])],
                              [helper.make_opsetid("", OPSET)])
    return _tiny([helper.make_node("Relu", ["x"], ["h"], name="/relu"),
                  helper.make_node("DoubleRelu", ["h"], ["y"], name="/double", domain="local")],
                 "with-function", [fn])


def empty_input_name():
    """A graph input with an empty name: ONNX names every graph-level value
    ("" only stands for a node's optional input or output left out)."""
    model = _tiny([helper.make_node("Relu", [""], ["y"], name="/relu")], "empty-name")
    model.graph.input[0].name = ""
    return model


def _value_types(model, bindings):
    types = {}
    g = model.graph
    for vi in list(g.input) + list(g.value_info) + list(g.output):
        tt = vi.type.tensor_type
        types[vi.name] = (tt.elem_type, [bindings[dim.dim_param] if dim.dim_param else
                                         dim.dim_value for dim in tt.shape.dim])
    return types


def lower_bound(model, bindings={}):
    """memplan's lower bound computed from the model's value_info alone:
    activations live from their node to their last reader, graph outputs
    to the last node, views share their base's storage, sizes are rounded
    up to the alignment; the largest sum over the nodes."""
    g = model.graph
    types = _value_types(model, bindings)
    params = {t.name for t in g.initializer}
    inputs = {v.name for v in g.input} - params
    outputs = {v.name for v in g.output}
    root, first, last, size = {}, {}, {}, {}
    n = len(g.node)
    for step, node in enumerate(g.node):
        for name in node.output:
            elem, dims = types[name]
            if node.op_type in VIEW_OPS:
                root[name] = root.get(node.input[0], node.input[0])
                continue
            root[name] = name
            size[name] = -(-ELEM_SIZE[elem] * _prod(dims) // ALIGNMENT) * ALIGNMENT
            first[name] = step
        for name in list(node.input) + list(node.output):
            r = root.get(name, name)
            if r in params or r in inputs or not name:
                continue
            last[r] = n - 1 if name in outputs or r in outputs else max(last.get(r, step), step)
    live = [0] * n
    for r, s in size.items():
        for step in range(first[r], last.get(r, first[r]) + 1):
            live[step] += s
    return max(live)


def params(model):
    return sum(_prod(t.dims) for t in model.graph.initializer)


def save(model, path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(model.SerializeToString())
    print("%s: %d nodes, %d parameters, %d bytes" % (path, len(model.graph.node), params(model),
                                                     os.path.getsize(path)))


def main():
    root = os.path.relpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    if len(sys.argv) == 4 and sys.argv[1] == "--layers":
        save(transformer(layers=int(sys.argv[2]), d=768, heads=12, ff=3072), sys.argv[3])
        return
    data = os.path.join(root, "data", "onnx")
    tests = os.path.join(root, "tests", "data")
    cnn_model = cnn()
    save(cnn_model, os.path.join(data, "resnet-mini.onnx"))
    print("  lower bound from value_info at alignment %d: %d bytes" % (ALIGNMENT,
                                                                      lower_bound(cnn_model)))
    model = transformer()
    save(model, os.path.join(data, "encoder-2x256.onnx"))
    print("  lower bound at batch=8, seq=128: %d bytes" % lower_bound(model, {"batch": 8,
                                                                            "seq": 128}))
    save(mlp_without_value_info(), os.path.join(data, "mlp-no-shapes.onnx"))
    save(with_if(), os.path.join(tests, "onnx-if.onnx"))
    save(unsorted(), os.path.join(tests, "onnx-unsorted.onnx"))
    save(with_function(), os.path.join(tests, "onnx-function.onnx"))
    save(empty_input_name(), os.path.join(tests, "onnx-empty-input-name.onnx"))
    blob = cnn_model.SerializeToString()
    with open(os.path.join(tests, "onnx-truncated.onnx"), "wb") as f:
        f.write(blob[: len(blob) // 2])
    with open(os.path.join(tests, "onnx-not-a-model.onnx"), "w") as f:
        f.write("This is a text file with an .onnx name, not an ONNX model.\n")


if __name__ == "__main__":
    main()
