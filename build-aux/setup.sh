#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# One command from a fresh Debian 12 machine to a running memplan:
#   build-aux/setup.sh run    install what is missing, build, open the app on the default graph
#                             (the CLI's plan table when there is no display)
#   build-aux/setup.sh test   install what is missing, build, run every test
# Safe to run again: it installs only what is missing and reuses the build.
set -eu

cd "$(dirname "$0")/.."
what=${1:-run}

packages="meson ninja-build pkg-config gcc libglib2.0-dev libjson-c-dev libgtk-4-dev
libcairo2-dev libpango1.0-dev zlib1g-dev libxml2-utils xvfb xauth dbus dbus-x11 python3
clang libclang-rt-14-dev valgrind appstream desktop-file-utils shared-mime-info gettext man-db
protobuf-c-compiler libprotobuf-c-dev libonnx-dev libprotobuf-dev protobuf-compiler g++
python3-dev python3-mesonpy"

missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "setup: installing$missing"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
fi

# The CUDA toolkit lives outside the default PATH on Debian; the executor's
# CUDA backend is built whenever nvcc is found.
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  PATH="$PATH:/usr/local/cuda/bin"
  export PATH
fi

if [ ! -f build/build.ninja ]; then
  meson setup build
fi
meson compile -C build

case "$what" in
  run)
    # The window on a desktop; the same comparison as text without a display,
    # or with one that does not answer (a stale DISPLAY over ssh, a container).
    if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -x build/app/memplan ]; then
      if build/app/memplan --check-display 2>/dev/null; then
        exec build/app/memplan data/default.json
      fi
      echo "setup: the display (DISPLAY=${DISPLAY:-} WAYLAND_DISPLAY=${WAYLAND_DISPLAY:-})" \
           "does not answer, so here is the default graph's plan table instead" >&2
    else
      echo "setup: no display (DISPLAY and WAYLAND_DISPLAY are unset), so here is the default" \
           "graph's plan table; on a desktop this command opens the memplan window" >&2
    fi
    exec build/cli/memplan-cli plan data/default.json
    ;;
  test)
    exec meson test -C build --print-errorlogs
    ;;
  *)
    echo "usage: $0 run|test" >&2
    exit 2
    ;;
esac
