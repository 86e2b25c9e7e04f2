#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Regenerates the worked example in data/reports/ (see its README) with the
# real commands, from the repository root:
#   build-aux/make-example-reports.sh [BUILD_DIR]      (default: build)
# tests/test-example-reports.sh fails when base.json or new.json go stale.
set -eu
cd "$(dirname "$0")/.."
cli=${1:-build}/cli/memplan-cli

"$cli" suite data/ --dim batch=8 --dim seq=128 -o data/reports/base.json
"$cli" suite data/ --dim batch=8 --dim seq=128 --alignment 512 -o data/reports/new.json
# compare exits 1 here: the 512-byte alignment is a regression, on purpose
status=0
"$cli" compare data/reports/base.json data/reports/new.json --allow-different-options \
  --format markdown \
  -o data/reports/compare.md || status=$?
if [ "$status" -ne 1 ]; then
  echo "make-example-reports: compare exited $status, expected 1 (a regression)" >&2
  exit 1
fi
