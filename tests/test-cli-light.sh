#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The light memplan-cli (issue 30, cli/meson.build): a plan process loads
# neither the renderer's libraries nor GIO; GIO comes when the engine needs
# it (a cancellable, a gzip input); render and exec run in the whole CLI's module.
# Prints TAP.
#   test-cli-light.sh SOURCE_ROOT MEMPLAN_CLI [SANITIZE]
# (b_sanitize: a sanitized build may link libstdc++ into every program,
# as build-aux/sanitize.sh does for clang's ASan)
set -u
src=$1 cli=$2 sanitize=${3:-none}
cxx='|libstdc\+\+'
[ "$sanitize" = none ] || cxx=
tmp=$(mktemp -d "${TMPDIR:-/tmp}/memplan-light-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$src" || exit 1
csv=data/minimalloc/C.1048576.csv

echo "1..7"
n=0
check() {
  n=$((n + 1))
  what=$1
  shift
  if "$@" >"$tmp/out" 2>&1; then
    echo "ok $n $what"
  else
    echo "not ok $n $what"
    sed 's/^/# /' "$tmp/out"
  fi
}
# the libraries a process opened, by LD_DEBUG's own words
loaded() {
  LD_DEBUG=files "$@" 2>&1 >/dev/null | sed -n 's/.*file=\([^ ]*\) .*generating link map.*/\1/p'
}

check "plan needs none of cairo, pango, X11, GIO, GObject, libstdc++, libmemplan-1" sh -c \
  "! LD_TRACE_LOADED_OBJECTS=1 '$cli' | grep -E 'libcairo|libpango|libX11|libgio|libgobject$cxx|libmemplan-1'"
loaded "$cli" plan "$csv" -p greedy-by-size -f csv >"$tmp/one"
check "a one-planner plan process opens none of them either" sh -c \
  "grep -q libglib '$tmp/one' && ! grep -E 'libcairo|libgio|libgobject$cxx|memplan' '$tmp/one'"
"$cli" plan "$csv" -p greedy-by-size -f csv >"$tmp/plain.csv"
gzip -c "$csv" >"$tmp/C.csv.gz"
check "a gzip input (GIO opened on demand) plans to the same offsets" sh -c \
  "'$cli' plan '$tmp/C.csv.gz' -p greedy-by-size -f csv | cmp - '$tmp/plain.csv'"
loaded "$cli" plan "$tmp/C.csv.gz" -p greedy-by-size -f csv >"$tmp/gz"
check "that gzip input opened GIO (its size, read through a GFile)" grep -q libgio "$tmp/gz"
check "render runs in the module" sh -c \
  "'$cli' render '$csv' -p greedy-by-size -o '$tmp/c.svg' && grep -q '<svg' '$tmp/c.svg'"
check "help exec runs in the module" sh -c "'$cli' help exec | grep -q 'memplan-cli exec'"
cp "$cli" "$tmp/memplan-cli"
check "without the module, render says so and exits 3" sh -c \
  "'$tmp/memplan-cli' render '$csv' -o '$tmp/d.svg' 2>'$tmp/err'; test \$? = 3 &&
   grep -q 'memplan-cli: cannot load memplan-cli-full.so (render, exec): not found in $tmp' '$tmp/err'"
