#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# data/reports/base.json and new.json must be what build-aux/make-example-reports.sh
# makes today: the same graphs, planners and arenas (timings aside). Prints TAP.
#   test-example-reports.sh SOURCE_ROOT MEMPLAN_CLI
set -u
src=$1 cli=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/memplan-reports-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$src" || exit 1

echo "1..2"
n=0 failed=0
for what in "base.json:" "new.json:--alignment 512"; do
  name=${what%%:*} opts=${what#*:}
  n=$((n + 1))
  # shellcheck disable=SC2086 # opts is empty or two words
  "$cli" suite data/ --dim batch=8 --dim seq=128 $opts -o "$tmp/$name" >/dev/null 2>"$tmp/err" || { cat "$tmp/err"; }
  out=$("$cli" compare "data/reports/$name" "$tmp/$name" 2>&1)
  verdict=$(printf '%s\n' "$out" | tail -n 1)
  case $verdict in
    "PASS: nothing changed"*)
      if printf '%s\n' "$out" | grep -q "input file changed"; then
        verdict="a graph file changed since the report was made"
      else
        echo "ok $n data/reports/$name is current"; continue
      fi ;;
  esac
  echo "not ok $n data/reports/$name is stale ($verdict): run build-aux/make-example-reports.sh"
  printf '%s\n' "$out" | sed 's/^/# /'
  failed=1
done
exit $failed
