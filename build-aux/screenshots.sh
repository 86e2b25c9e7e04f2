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
  xvfb-run -a -s "-screen 0 1600x1000x24" "$@"
}
shot() {
  out=$1
  shift
  run "$app" --size 1280x860 --screenshot "screenshots/$out" "$@"
  echo "screenshots/$out"
}

shot app-default.png --theme light --cursor 14
shot app-selected.png --theme light --select l1.scores --cursor 30 --show-live --color-by op
shot app-dark.png --theme dark --select l2.probs --cursor 41
shot app-teaching.png --theme light --select conv_out --cursor 2 --show-live data/teaching.json
# teaching mode mid-way: the gap too small for query (greedy-by-size), the
# three small tensors packed into stem's old space
shot app-step-through.png --theme light --step-through greedy-by-size --step 4 \
  data/teaching/only-search.csv
shot app-step-through-gaps.png --theme light --step-through greedy-by-size --step 4 \
  data/teaching/size-beats-partition.csv
run python3 build-aux/x11-hover-shot.py screenshots/app-tooltip.png -- \
  "$app" --size 1280x860 --theme light --hover l1.q
echo "screenshots/app-tooltip.png"
