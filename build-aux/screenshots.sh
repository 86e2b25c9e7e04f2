#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Regenerates screenshots/ from the real app window under Xvfb:
#   build-aux/screenshots.sh [BUILDDIR]     (default: build)
# Needs xvfb-run (package xvfb) and python3; builds nothing itself.
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
app="$build/app/memplan"
[ -x "$app" ] || { echo "screenshots: build the app first ($app is missing)" >&2; exit 2; }
mkdir -p screenshots
# the shots with no file show the default graph: this tree's, not an installed one
MEMPLAN_DATA_DIR=$PWD/data
export MEMPLAN_DATA_DIR

# One X server per shot; the light theme unless asked, whatever the desktop says.
run() {
  xvfb-run -a -s "-screen 0 1600x1300x24" "$@"
}
shot() {
  out=$1
  size=$2
  shift 2
  run "$app" --size "$size" --screenshot "screenshots/$out" "$@"
  echo "screenshots/$out"
}

# The default window at its default size: every planner, the Summary with
# every row and the winner starred, memory over time with the peak (parallel
# group 12: the default graph's two streams run concurrently, and every
# planner plans for that) under the cursor. The close-ups compare two planners.
two=naive,greedy-by-size
shot app-default.png 1280x860 --theme light --cursor 12
shot app-live-at-peak.png 1280x860 --theme light --cursor 12 --show-live
# 100,000 random tensors, zoomed to 300 steps: coverage drawn as intensity,
# so the free space between crowds of small buffers shows
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$build/cli/memplan-cli" gen random --tensors 100000 -o "$tmp/random-100k.json"
shot app-100k.png 1280x860 --theme light --planner greedy-by-size,best-fit \
  --steps 50000:50300 --cursor 50150 "$tmp/random-100k.json"
"$build/cli/memplan-cli" render "$tmp/random-100k.json" --planner greedy-by-size \
  --steps 50000:50300 -o screenshots/render-random-100k-zoom.png
echo "screenshots/render-random-100k-zoom.png"
# memplan-cli render's figures, as the README's Rendering section makes them
cli="$build/cli/memplan-cli"
"$cli" render data/default.json --color-by op -o screenshots/render-default.png
"$cli" render data/minimalloc/A.1048576.csv --planner all -o screenshots/render-minimalloc-A.png
"$cli" render data/teaching.json --planner all -o screenshots/render-teaching-all.png
# stacked: memory over time on top, the winner first, one byte scale
"$cli" render data/zoo/unet.json --planner all -o screenshots/render-unet-stacked.png
"$cli" render data/default.json --dark --steps 10:24 --highlight l1.q \
  -o screenshots/render-default-zoom-dark.png
echo "screenshots/render-*.png"
# Several memories: data/mcu-cnn.json declares 256 KiB of SRAM and PSRAM;
# one pane per memory, the capacity line, conv1 spilled to PSRAM
"$cli" render data/mcu-cnn.json -o screenshots/render-memories.png
echo "screenshots/render-memories.png"
shot app-memories.png 1280x1000 --theme light --planner greedy-by-size,best-fit,optimal \
  data/mcu-cnn.json
shot app-selected.png 1280x860 --planner $two --theme light --select l1.scores --cursor 30 \
  --show-live --color-by op
shot app-dark.png 1280x860 --planner $two --theme dark --select l2.probs --cursor 41
shot app-teaching.png 1280x860 --planner $two --theme light --select conv_out --cursor 2 \
  --show-live data/teaching.json
# An ONNX model (data/onnx/, made by build-aux/make-onnx-samples.py)
shot app-onnx.png 1280x860 --planner naive,greedy-by-size,best-fit --theme light \
  --select /layer2.0/Add_output_0 --cursor 14 data/onnx/resnet-mini.onnx
# a model with symbolic dimensions: the form that asks for them, then the
# plans once they are given (as --dim gives them); the first exits 2, the
# model not loaded
shot app-onnx-dims.png 1280x420 --theme light data/onnx/encoder-2x256.onnx || [ $? -eq 2 ]
shot app-onnx-encoder.png 1280x860 --planner naive,greedy-by-size,best-fit --theme light \
  --dim batch=8 --dim seq=128 --cursor 24 data/onnx/encoder-2x256.onnx
# The op order as a lever (issue 29): the Order page, the given order's
# curve over the best order's, the saving in the headline; and render --curves
# (planned for op order: the parallel groups follow the dependencies, not the order)
shot app-order.png 1280x860 --theme light --order best --planner greedy-by-size,optimal \
  --schedule sequential data/multistream.json
"$cli" render data/zoo/random-2000.json --order best --curves -W 1000 -H 450 \
  -o screenshots/render-order-curves.png
echo "screenshots/render-order-curves.png"
# A plan valid in op order that clashes when the two streams run together
# (planned for op order: by default every planner plans for the groups).
shot app-multistream.png 1280x860 --planner greedy-by-size,multistream --theme light \
  --select b.mid --cursor 1 --schedule sequential data/multistream.json
# Two towers on two streams: every planner plans for the parallel groups
# the streams run in, and the star is on a plan valid there (issue 33)
shot app-two-towers.png 1280x860 --theme light data/two-towers.json
shot app-two-towers-op-order.png 1280x860 --theme light --schedule sequential \
  data/two-towers.json
# teaching mode mid-way: the gap too small for query (greedy-by-size), the
# three small tensors packed into stem's old space
shot app-step-through.png 1280x860 --theme light --step-through greedy-by-size --step 4 \
  data/teaching/only-search.csv
shot app-step-through-gaps.png 1280x860 --theme light --step-through greedy-by-size --step 4 \
  data/teaching/size-beats-partition.csv
run python3 build-aux/x11-hover-shot.py screenshots/app-tooltip.png -- \
  "$app" --size 1280x860 --planner $two --theme light --hover l1.q
echo "screenshots/app-tooltip.png"
# a PyTorch trace: the tooltip names the op, module and Python frames
run python3 build-aux/x11-hover-shot.py screenshots/app-trace-tooltip.png -- \
  "$app" --size 1280x860 --planner greedy-by-size --theme light --hover "aten::clamp_min#2" \
  data/torch/small-cnn-trace.json.gz
echo "screenshots/app-trace-tooltip.png"
# the same trace by op: the backward convolutions hold the peak; the
# observed pane of a snapshot shows its allocator segment (the small CNN's
# snapshot, converted from a profiler trace, has none)
# (five planners: the Summary's rows give the tab room for four ops)
shot app-trace-by-op.png 1280x860 --planner naive,greedy-by-size,partition,best-fit,first-fit \
  --theme light --show-by-op data/torch/small-cnn-trace.json.gz
shot app-snapshot-segments.png 1280x860 --planner greedy-by-size --theme light --show-by-op \
  tests/data/snapshot.pickle
# issue 31: a big snapshot (300,000 actions, 97 MB) while it loads (the
# progress bar and Cancel) and at its first view: the observed timeline
# drawn, greedy-by-size still planning behind it
"$build/cli/memplan-cli" gen torch-snapshot -n 300000 -o "$tmp/snapshot-300k.pickle"
run "$app" --size 1280x860 --theme light --planner greedy-by-size \
  --screenshot-loading screenshots/app-snapshot --screenshot "$tmp/loaded.png" \
  "$tmp/snapshot-300k.pickle"
echo screenshots/app-snapshot-loading.png screenshots/app-snapshot-first-view.png
# issue 31: two runs compared (Compare With…, --compare): both live-bytes
# curves on one axis above the panes, B's bytes per op and B − A (by
# mp_trace_diff) in the By op tab; the recorded pair, one training step of
# a small transformer before and after activation checkpointing
shot app-compare.png 1280x860 --planner greedy-by-size --theme light --show-by-op \
  --compare data/torch/small-transformer-checkpoint.json.gz \
  data/torch/small-transformer-1step.json.gz
shot app-compare-dark.png 1280x860 --planner greedy-by-size --theme dark --show-by-op \
  --compare data/torch/small-transformer-checkpoint.json.gz \
  data/torch/small-transformer-1step.json.gz
