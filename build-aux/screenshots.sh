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

# Every planner on the default graph needs a tall window to stay legible;
# the close-ups compare two planners, so the panes have room for labels.
two=naive,greedy-by-size
shot app-default.png 1500x1280 --theme light --cursor 14
shot app-selected.png 1280x860 --planner $two --theme light --select l1.scores --cursor 30 \
  --show-live --color-by op
shot app-dark.png 1280x860 --planner $two --theme dark --select l2.probs --cursor 41
shot app-teaching.png 1280x860 --planner $two --theme light --select conv_out --cursor 2 \
  --show-live data/teaching.json
# A plan valid in op order that clashes when the two streams run together.
shot app-multistream.png 1280x860 --planner greedy-by-size,multistream --theme light \
  --select b.mid --cursor 1 data/multistream.json
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
