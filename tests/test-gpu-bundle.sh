#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The GPU bundle runs where only its own folder is: build-aux/gpu-bundle.sh
# packages this build (--from: a second build with the CUDA runtime static
# would take minutes here; the GPU machine's bundle is built the same way
# but for that step), the folder is copied to a scratch prefix, every
# library its binaries load must resolve inside it (bar glibc and the
# driver), and run.sh runs there with an empty environment (PATH, and the
# LD_LIBRARY_PATH run.sh sets): the CPU tests pass and, the CUDA stages
# skipped, it exits 77.
#   test-gpu-bundle.sh SOURCE_ROOT BUILD_ROOT
set -u
src=$1 build=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
n=0 failed=0
ok () { n=$((n + 1)); echo "ok $n - $1"; }
not_ok () { n=$((n + 1)); failed=1; echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }
echo "1..3"

if sh "$src/build-aux/gpu-bundle.sh" --from "$build" "$scratch/made" > "$scratch/bundle.log" 2>&1; then
  cp -R "$scratch/made" "$scratch/prefix"
  rm -rf "$scratch/made"
  stray=
  for b in "$scratch"/prefix/bin/* "$scratch"/prefix/tests/*; do
    stray="$stray$(LD_LIBRARY_PATH=$scratch/prefix/lib ldd "$b" | awk -v lib="$scratch/prefix/lib/" '
      $2 == "=>" && $1 !~ /^(linux-vdso|ld-linux|libc\.so|libm\.so|libmvec|libpthread|libdl\.so|librt\.so|libresolv|libutil\.so|libcuda\.so|libnvidia-)/ && index($3, lib) != 1 { printf " %s=>%s", $1, $3 }')"
  done
  if [ -z "$stray" ]; then
    ok "bundle written; every library its binaries load resolves inside its lib/"
  else
    not_ok "libraries resolved outside the bundle:$stray"
  fi
else
  not_ok "gpu-bundle.sh failed" "$(tail -n 5 "$scratch/bundle.log")"
fi

rc=0
env -i PATH=/usr/bin:/bin HOME="$scratch" ${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} \
  ${LSAN_OPTIONS:+LSAN_OPTIONS=$LSAN_OPTIONS} ${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} \
  sh "$scratch/prefix/run.sh" --no-cuda tests > "$scratch/run.log" 2>&1 || rc=$?
if [ $rc = 77 ]; then
  ok "run.sh --no-cuda tests in a scratch prefix: exit 77"
else
  not_ok "run.sh --no-cuda tests: exit $rc, not 77" "$(tail -n 8 "$scratch/run.log")"
fi

report=$scratch/gpu-check-out/report.md
if grep -q '^| test-exec (CPU backend) | PASS |' "$report" 2>/dev/null &&
   grep -q '^| test-exec-validate (CPU backend) | PASS |' "$report" &&
   grep -q '^- device (nvidia-smi: name, driver, memory): no usable GPU (--no-cuda)$' "$report"; then
  ok "report.md: both CPU test programs PASS, no GPU"
else
  not_ok "report.md lacks its lines" "$(cat "$report" 2>/dev/null | head -n 12)"
fi
exit $failed
