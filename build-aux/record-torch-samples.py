#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Records the PyTorch samples shipped in data/torch/ (CI does not need
PyTorch; rerun this after changing it):

    python3 -m venv /tmp/torch && /tmp/torch/bin/pip install torch
    /tmp/torch/bin/python build-aux/record-torch-samples.py [cnn] [transformer]

(no argument: both sets)

- small-cnn-trace.json.gz: the profiler's Chrome trace of two training
  steps of a small CNN on the CPU, with profile_memory, record_shapes,
  with_stack and with_modules on, written by export_chrome_trace (gzip).
- small-cnn-snapshot.pickle: the same profile as a memory snapshot,
  through PyTorch's own conversion (torch.cuda._memory_viz), as
  memory_viz's "profile" view builds it.
- with a CUDA device, also small-cnn-cuda-snapshot.pickle: a real caching
  allocator snapshot (torch.cuda.memory._dump_snapshot) of the same steps.
- small-transformer-1step.json.gz and small-transformer-checkpoint.json.gz:
  one training step of a small transformer on the CPU, before and after
  activation checkpointing (torch.utils.checkpoint around each layer),
  the pair `memplan-cli diff` compares in the README.
- small-transformer-5steps.json.gz: five steps of the same model, whose
  observed figure must match the one-step trace's (tests/test-diff.py).
"""

import os
import pickle
import sys

import torch
import torch.utils.checkpoint
from torch import nn
from torch.cuda import _memory_viz

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "torch")


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        x = torch.relu(self.conv1(x))
        x = torch.relu(self.conv2(x))
        return self.fc(torch.flatten(self.pool(x), 1))


def train_steps(model, device, steps):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(8, 3, 32, 32, device=device)
    y = torch.randint(0, 10, (8,), device=device)
    for _ in range(steps):
        opt.zero_grad(set_to_none=True)
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()


class SmallTransformer(nn.Module):
    """Two encoder layers, d_model 64, 4 heads, on 8 sequences of 64 tokens."""

    def __init__(self, checkpoint):
        super().__init__()
        self.checkpoint = checkpoint
        self.embed = nn.Embedding(1000, 64)
        self.layers = nn.ModuleList(
            nn.TransformerEncoderLayer(64, 4, dim_feedforward=256, dropout=0.0, batch_first=True)
            for _ in range(2))
        self.head = nn.Linear(64, 1000)

    def forward(self, tokens):
        x = self.embed(tokens)
        for layer in self.layers:
            if self.checkpoint:
                # the layer's activations are recomputed in backward, not kept
                x = torch.utils.checkpoint.checkpoint(layer, x, use_reentrant=False)
            else:
                x = layer(x)
        return self.head(x)


def transformer_steps(model, steps):
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    tokens = torch.randint(0, 1000, (8, 64))
    for _ in range(steps):
        opt.zero_grad(set_to_none=True)
        logits = model(tokens)
        loss = nn.functional.cross_entropy(logits.reshape(-1, 1000), tokens.reshape(-1))
        loss.backward()
        opt.step()


def record_transformer():
    for name, checkpoint, steps in (("small-transformer-1step", False, 1),
                                    ("small-transformer-checkpoint", True, 1),
                                    ("small-transformer-5steps", False, 5)):
        torch.manual_seed(0)
        model = SmallTransformer(checkpoint)
        transformer_steps(model, 1)  # warm up, as for the CNN
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU],
                                    profile_memory=True, record_shapes=False,
                                    with_stack=False) as prof:
            transformer_steps(model, steps)
        prof.export_chrome_trace(os.path.join(OUT, name + ".json.gz"))


def main():
    os.makedirs(OUT, exist_ok=True)
    which = sys.argv[1:] or ["cnn", "transformer"]
    if "transformer" in which:
        record_transformer()
    if "cnn" in which:
        record_cnn()
    print("wrote", sorted(os.listdir(OUT)), "with torch", torch.__version__, file=sys.stderr)


def record_cnn():
    torch.manual_seed(0)
    model = SmallCNN()
    train_steps(model, "cpu", 1)  # warm up: lazy initialisation stays out of the trace
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU],
                                profile_memory=True, record_shapes=True, with_stack=True,
                                with_modules=True) as prof:
        train_steps(model, "cpu", 2)
    prof.export_chrome_trace(os.path.join(OUT, "small-cnn-trace.json.gz"))
    snapshot = _memory_viz._profile_to_snapshot(prof)
    with open(os.path.join(OUT, "small-cnn-snapshot.pickle"), "wb") as f:
        pickle.dump(snapshot, f)
    if torch.cuda.is_available():
        cuda = SmallCNN().cuda()
        train_steps(cuda, "cuda", 1)
        torch.cuda.memory._record_memory_history(max_entries=100000)
        train_steps(cuda, "cuda", 2)
        torch.cuda.memory._dump_snapshot(os.path.join(OUT, "small-cnn-cuda-snapshot.pickle"))
        torch.cuda.memory._record_memory_history(enabled=None)


if __name__ == "__main__":
    main()
