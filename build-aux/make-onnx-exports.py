#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Exports small models with PyTorch's two ONNX exporters into
tests/data/onnx-exports/, with the byte size of every node output as ONNX
Runtime computes it (issue 27). CI never runs this script; its output is
committed and tests/test-onnx.c checks memplan's size of every tensor
against the recorded figures exactly.

    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install torch onnx onnxruntime \\
        onnxscript transformers
    /tmp/venv/bin/python build-aux/make-onnx-exports.py [NAME…]

Every model has random weights from a tiny config (no download). For each
NAME and exporter (torchscript: dynamo=False at opset 17; dynamo: the
dynamo exporter's default opset) it writes NAME-EXPORTER.onnx with the
weights moved out as external data that is not shipped (memplan reads only
their dims), and NAME-EXPORTER.json: {"dims": {name: value}, "tensors":
{output name: bytes}}, run in ONNX Runtime at those dims with every
intermediate made a graph output. An export that fails is said and skipped.
"""
import json
import os
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
                   "onnx-exports")
BATCH, SEQ = 2, 7


class Fixed(torch.nn.Module):
    """A transformers model behind a forward of fixed positional inputs
    (TorchScript's exporter passes them by position) returning one tensor."""

    def __init__(self, model, key="last_hidden_state", mask=False):
        super().__init__()
        self.model, self.key, self.mask = model, key, mask

    def forward(self, x):
        # an explicit all-ones mask keeps transformers off torch.diff (its
        # packed-sequence check), which TorchScript cannot export at opset 17
        out = self.model(x, attention_mask=torch.ones_like(x)) if self.mask else self.model(x)
        return out[self.key] if isinstance(out, dict) or hasattr(out, "keys") else out[0]


def text_input(vocab):
    return torch.randint(0, vocab, (BATCH, SEQ))


def models():
    import transformers as tf

    def bert():
        cfg = tf.BertConfig(vocab_size=64, hidden_size=32, num_hidden_layers=1,
                            num_attention_heads=2, intermediate_size=64,
                            max_position_embeddings=32)
        return Fixed(tf.BertModel(cfg)), text_input(64), {0: "batch", 1: "seq"}

    def gpt2():
        cfg = tf.GPT2Config(vocab_size=64, n_embd=32, n_layer=1, n_head=2, n_positions=32,
                            use_cache=False)
        return Fixed(tf.GPT2Model(cfg), mask=True), text_input(64), {0: "batch", 1: "seq"}

    def llama():
        cfg = tf.LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64,
                             num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=1,
                             max_position_embeddings=32, use_cache=False)
        return Fixed(tf.LlamaModel(cfg), mask=True), text_input(64), {0: "batch", 1: "seq"}

    def t5_encoder():
        cfg = tf.T5Config(vocab_size=64, d_model=32, d_kv=16, d_ff=64, num_layers=1,
                          num_heads=2, use_cache=False)
        return Fixed(tf.T5EncoderModel(cfg)), text_input(64), {0: "batch", 1: "seq"}

    def whisper_encoder():
        cfg = tf.WhisperConfig(vocab_size=64, num_mel_bins=8, d_model=32, encoder_layers=1,
                               encoder_attention_heads=2, decoder_layers=1,
                               decoder_attention_heads=2, encoder_ffn_dim=64,
                               decoder_ffn_dim=64, max_source_positions=16, pad_token_id=0,
                               bos_token_id=1, eos_token_id=2, decoder_start_token_id=1)
        model = tf.WhisperModel(cfg).get_encoder()
        return Fixed(model), torch.randn(BATCH, 8, 32), {0: "batch"}

    def vit():
        cfg = tf.ViTConfig(image_size=32, patch_size=8, num_channels=3, hidden_size=32,
                           num_hidden_layers=1, num_attention_heads=2, intermediate_size=64)
        return Fixed(tf.ViTModel(cfg)), torch.randn(BATCH, 3, 32, 32), {0: "batch"}

    def cnn():
        import torchvision
        model = torchvision.models.resnet18(num_classes=10)
        return model, torch.randn(BATCH, 3, 32, 32), {0: "batch"}

    return {"bert": bert, "gpt2": gpt2, "llama": llama, "t5-encoder": t5_encoder,
            "whisper-encoder": whisper_encoder, "vit": vit,
            "resnet18": cnn}


def export(model, x, axes, exporter, path):
    model.eval()
    if exporter == "torchscript":
        torch.onnx.export(model, (x,), path, opset_version=17, dynamo=False,
                          input_names=["x"], output_names=["y"],
                          dynamic_axes={"x": axes})
    else:
        dims = {k: torch.export.Dim(v, min=1, max=64) for k, v in axes.items()}
        prog = torch.onnx.export(model, (x,), dynamo=True, input_names=["x"],
                                 output_names=["y"], dynamic_shapes={"x": dims})
        prog.save(path)


def bindings(model, x):
    dims = {}
    for d, dim in enumerate(model.graph.input[0].type.tensor_type.shape.dim):
        if dim.HasField("dim_param"):
            dims[dim.dim_param] = int(x.shape[d])
    return dims


def run_all_outputs(model, x):
    """Every node output's bytes, from ONNX Runtime."""
    names = [o for n in model.graph.node for o in n.output if o]
    known = {o.name for o in model.graph.output}
    m = onnx.ModelProto()
    m.CopyFrom(model)
    for name in names:
        if name not in known:
            m.graph.output.append(onnx.ValueInfoProto(name=name))
    sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    outs = sess.run(None, {sess.get_inputs()[0].name: x.numpy()})
    return {o.name: int(np.asarray(v).nbytes)
            for o, v in zip(sess.get_outputs(), outs) if o.name in set(names)}


def strip_weights(model, path):
    """Saves model with every weight in an external file, then removes that
    file: only the dims stay."""
    data = os.path.basename(path) + ".weights"
    # the dynamo exporter's stack traces and metadata: not what is tested
    for node in model.graph.node:
        node.doc_string = ""
        del node.metadata_props[:]
    del model.metadata_props[:]
    for info in list(model.graph.value_info) + list(model.graph.input) + list(model.graph.output):
        del info.metadata_props[:]
    onnx.save(model, path, save_as_external_data=True, all_tensors_to_one_file=True,
              location=data, size_threshold=256)
    os.unlink(os.path.join(os.path.dirname(path), data))


def main():
    os.makedirs(OUT, exist_ok=True)
    wanted = sys.argv[1:]
    torch.manual_seed(0)
    for name, make in models().items():
        if wanted and name not in wanted:
            continue
        for exporter in ("torchscript", "dynamo"):
            stem = "%s-%s" % (name, exporter)
            try:
                model, x, axes = make()
                with tempfile.TemporaryDirectory() as tmp:
                    raw = os.path.join(tmp, "m.onnx")
                    export(model, x, axes, exporter, raw)
                    full = onnx.load(raw)
                sizes = run_all_outputs(full, x)
                record = {"dims": bindings(full, x), "tensors": sizes}
                strip_weights(full, os.path.join(OUT, stem + ".onnx"))
                with open(os.path.join(OUT, stem + ".json"), "w") as f:
                    json.dump(record, f, indent=0, sort_keys=True)
                    f.write("\n")
                opset = max(o.version for o in full.opset_import if o.domain in ("", "ai.onnx"))
                print("%s: opset %d, %d nodes, %d outputs recorded, dims %s"
                      % (stem, opset, len(full.graph.node), len(sizes), record["dims"]))
            except Exception as e:  # noqa: BLE001 (say it and go on)
                print("%s: export failed: %s" % (stem, str(e).splitlines()[0][:200]))


if __name__ == "__main__":
    main()
