#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# libmemplan-1 as another project sees it once installed: meson install into
# a temporary DESTDIR, then a C client compiled with nothing but
# `pkg-config --cflags --libs memplan-1` (the installed headers), and
# `import memplan` from the installed module. Prints TAP.
#   check-install-lib.sh BUILD_ROOT SOURCE_ROOT PREFIX LIBDIR DATADIR CC PYTHON PYTHON_DIR
# (CC is the compiler command, words split: "ccache cc" too)
set -u
build=$1 src=$2 prefix=$3 libdir=$4 datadir=$5 cc=$6 python=$7 pydir=$8

dest=$(mktemp -d "${TMPDIR:-/tmp}/memplan-lib-XXXXXX")
trap 'rm -rf "$dest"' EXIT
# shellcheck source=build-aux/tap-check.sh
. "$(dirname "$0")/tap-check.sh"
skip () { n=$((n + 1)); echo "ok $n $1 # SKIP $2"; }
abs () { case $1 in /*) echo "$dest$1" ;; *) echo "$dest$prefix/$1" ;; esac; }

echo "1..14"
check "meson install --destdir" meson install -C "$build" --destdir "$dest" --no-rebuild --quiet
lib=$(abs "$libdir")
inc=$dest$prefix/include/memplan-1
data=$(abs "$datadir")/memplan
check "libmemplan-1.so.0 installed with its soname" sh -c \
  "readelf -d '$lib/libmemplan-1.so.0' | grep -q 'SONAME.*\\[libmemplan-1.so.0\\]'"
# only the marked API is exported: no internal engine function, no protobuf-c
check "the API reference installed, naming mp_workload_open" \
  grep -q 'id="mp_workload_open"' "$(abs "$datadir")/doc/memplan-1/memplan-1-api.html"
check "libmemplan-1 exports mp_* functions only" sh -c \
  "nm -D --defined-only '$lib/libmemplan-1.so.0' | awk '{print \$3}' | grep -v '^mp_' | \
   grep -v '^_' | { ! grep .; }"
# the programs are clients: they link the library, and every engine
# function their code calls is exported. memplan-cli in two halves (issue
# 30): the whole CLI, a module for render and exec, links the library; the
# program that plans links the engine alone, statically, and no renderer
bin=$dest$prefix/bin
check "the installed memplan-cli-full module (and memplan) link libmemplan-1.so.0" sh -c \
  "for p in '$lib/memplan/memplan-cli-full.so' '$bin/memplan'; do [ -f \$p ] || continue; \
     readelf -d \$p | grep -q 'NEEDED.*\\[libmemplan-1.so.0\\]' || { echo \$p; exit 1; }; done"
check "the installed memplan-cli needs neither libmemplan-1 nor cairo nor GIO" sh -c \
  "! readelf -d '$bin/memplan-cli' | grep -E 'NEEDED.*(libmemplan-1|libcairo|libgio)'"
check "the installed memplan-cli renders through its installed module" sh -c \
  "'$bin/memplan-cli' render '$src/data/minimalloc/C.1048576.csv' -o '$dest/c.svg' && \
   grep -q '<svg' '$dest/c.svg'"
undefined=$(for a in cli/libmemplan-cli.a exec/libmemplan-exec.a app/libmemplan-gui.a \
                     cli/memplan-cli.p/main.c.o; do
              [ -f "$build/$a" ] && nm -u "$build/$a"
            done | awk '$2 ~ /^mp_/ {print $2}' | sort -u)
defined=$(for a in cli/libmemplan-cli.a exec/libmemplan-exec.a app/libmemplan-gui.a \
                   cli/memplan-cli.p/cli-full.c.o; do
            [ -f "$build/$a" ] && nm --defined-only "$build/$a"
          done | awk '$3 ~ /^mp_/ {print $3}' | sort -u)
exported=$(nm -D --defined-only "$lib/libmemplan-1.so.0" | awk '{print $3}' | sort -u)
missing=$(printf '%s\n' "$undefined" | grep -vxF "$defined" | grep -vxF "$exported")
check "every engine function memplan-cli, the executor and the app call is exported" \
  sh -c "[ -n '$undefined' ] && [ -z '$missing' ] || { echo 'not exported: $missing'; exit 1; }"

# pkg-config as a user's build would run it, pointed at the DESTDIR's copy
# of the .pc (its prefix moved there)
mkdir -p "$dest/pc"
sed "s|^prefix=.*|prefix=$dest$prefix|" "$lib/pkgconfig/memplan-1.pc" > "$dest/pc/memplan-1.pc"
export PKG_CONFIG_PATH="$dest/pc"
flags=$(pkg-config --cflags --libs memplan-1)
check "pkg-config --cflags --libs memplan-1" sh -c \
  "printf '%s\n' '$flags' | grep -q -- '-I$inc' && printf '%s\n' '$flags' | grep -q -- '-lmemplan-1'"
check "every installed header compiles on its own" sh -c \
  "for h in '$inc'/*.h; do printf '#include \"%s\"\n' \"\$(basename \$h)\" > '$dest/h.c'; \
     $cc $flags -Werror -Wall -fsyntax-only '$dest/h.c' || { echo \"\$h\"; exit 1; }; done"
# shellcheck disable=SC2086 # flags are words
check "a C client compiles against the installed library" \
  $cc -std=gnu11 -Wall -Werror -o "$dest/lib-client" "$src/tests/lib-client.c" $flags \
  -Wl,-rpath,"$lib"
check "the C client runs: buffers, errors, open, plan, judge, write, render" \
  "$dest/lib-client" "$data" "$dest"
# shellcheck disable=SC2086
check "examples/plan.c builds and draws the installed default graph" sh -c \
  "$cc -std=gnu11 -Wall -Werror -o '$dest/plan' '$src/examples/plan.c' $flags -Wl,-rpath,'$lib' && \
   '$dest/plan' '$data/default.json' '$dest/plan.png' && test -s '$dest/plan.png'"

if [ "$python" = none ]; then
  skip "python3 -c 'import memplan' against the installed module" "no Python module built"
  exit $failed
fi
case $pydir in /*) site=$dest$pydir ;; *) site=$dest$prefix/$pydir ;; esac
check "python3 -c 'import memplan' against the installed module" \
  env -u PYTHONPATH PYTHONPATH="$site" LD_LIBRARY_PATH="$lib" "$python" -c "
import memplan, os
assert memplan.__file__.startswith('$site'), memplan.__file__
r = memplan.plan([(10, 0, 2), (20, 1, 3), (5, 2, 4)], planner='greedy-by-size')
assert list(r.offsets) == [20, 0, 20] and r.arena == 30 and r.verdict == 'valid', r
w = memplan.open('$data/default.json')
assert w.plan('best-fit').valid
"
exit $failed
