#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The whole test suite again, built with AddressSanitizer and
# UndefinedBehaviorSanitizer in build-asan/; the first report fails the run.
#   build-aux/sanitize.sh [meson test options…]
set -eu
cd "$(dirname "$0")/.."

if [ ! -f build-asan/build.ninja ]; then
  meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false
fi
meson compile -C build-asan

# GLib's slice allocator would hide leaks from LeakSanitizer.
export G_SLICE=always-malloc
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1:check_initialization_order=1}"
exec meson test -C build-asan --print-errorlogs --timeout-multiplier 3 "$@"
