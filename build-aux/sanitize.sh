#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The whole test suite again, built with AddressSanitizer and
# UndefinedBehaviorSanitizer in build-asan/ (GCC); the first report fails the
# run. With SANITIZE_CC=clang the same in build-asan-clang/, with clang's
# float-cast-overflow check too, which GCC's build does not make (a
# double out of an integer's range, converted: --time-budget inf was one).
#   [SANITIZE_CC=clang] build-aux/sanitize.sh [meson test options…]
set -eu
cd "$(dirname "$0")/.."

build=build-asan
cc=${CC:-cc}
cxx=${CXX:-c++}
extra=""
if [ "${SANITIZE_CC:-}" = clang ]; then
  build=build-asan-clang
  # C++ too (the ONNX inference module): one ASan runtime in a process
  cc=clang
  cxx=clang++
  # libstdc++ linked in from the start: clang's ASan resolves the C++
  # exception interceptor (__cxa_throw) when the process starts, and libonnx,
  # which throws, only comes later with the inference module
  extra="-Dc_args=-fsanitize=float-cast-overflow -Dc_link_args=['-fsanitize=float-cast-overflow','-Wl,--no-as-needed,-lstdc++,--as-needed']"
fi
if [ ! -f "$build/build.ninja" ]; then
  # shellcheck disable=SC2086 # one option per word
  CC=$cc CXX=$cxx meson setup "$build" -Db_sanitize=address,undefined -Db_lundef=false $extra
fi
meson compile -C "$build"

# GLib's slice allocator would hide leaks from LeakSanitizer. The app's
# tests run with GTK's GL renderer off: Mesa's driver (llvmpipe under Xvfb)
# leaves an allocation from unloaded code that LSan cannot attribute, and the
# app draws with cairo either way. fontconfig's cache: build-aux/lsan.supp.
export G_SLICE=always-malloc
export GDK_DEBUG="${GDK_DEBUG:-gl-disable}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$PWD/build-aux/lsan.supp:print_suppressions=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1:check_initialization_order=1}"
exec meson test -C "$build" --print-errorlogs --timeout-multiplier 3 "$@"
