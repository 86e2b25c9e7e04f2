#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# A relocatable folder that runs the GPU validation on a machine that has
# the NVIDIA driver and nothing else of ours: no compiler, no meson, none of
# Debian's dev packages, no network.
#
#   build-aux/gpu-bundle.sh [--from BUILDDIR] [OUTDIR]      (default OUTDIR: gpu-bundle)
#
# It builds memplan-cli and the exec tests with the CUDA backend and the
# CUDA runtime linked statically (-cudart=static) in build-bundle/, or with
# --from packages an existing build as it is (what the suite's test does:
# it has no time for a second build), then copies into OUTDIR:
#   bin/memplan-cli (and its module memplan-cli-full.so), tests/test-exec{,-validate,-cuda}
#   lib/       every shared library they load (ldd), except glibc's and the
#              driver's (libcuda, which must match the kernel module)
#   data/, src/tests/data   the samples and fixtures the tests read
#   torch-caching-compare.py
#   gpu-check.sh, run.sh    run.sh sets LD_LIBRARY_PATH to lib/ and runs
#                           gpu-check.sh on these binaries, with its arguments
#   MANIFEST   the commit, nvcc, and where every library was found
# Exit status: 0 written, 1 failed (a library not found, the CUDA runtime
# linked dynamically, a build error).
set -eu

srcdir=$(cd "$(dirname "$0")/.." && pwd)
from=
while [ $# -gt 0 ]; do
  case $1 in
    --from) from=$2; shift 2 ;;
    --from=*) from=${1#--from=}; shift ;;
    -h|--help) sed -n '3,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) break ;;
  esac
done
out=${1:-$srcdir/gpu-bundle}
say () { printf 'gpu-bundle: %s\n' "$*"; }
die () { say "$*" >&2; exit 1; }

if [ -z "$from" ]; then
  PATH=$PATH:/usr/local/cuda/bin
  command -v nvcc >/dev/null 2>&1 || die "nvcc not found (on PATH or in /usr/local/cuda/bin)"
  from=$srcdir/build-bundle
  if [ -d "$from/meson-private" ]; then
    meson configure "$from" -Dcuda=enabled -Dcuda_link_args=-cudart=static >/dev/null
  else
    meson setup "$from" "$srcdir" -Dcuda=enabled -Dcuda_link_args=-cudart=static \
      --buildtype=debugoptimized >/dev/null
  fi
  meson compile -C "$from"
fi
[ -f "$from/build.ninja" ] || die "$from is no meson build folder"

# the binaries, wherever the tree keeps them (cli/, tests/)
find_bin () {
  found=$(find "$from" -path "$from/meson-*" -prune -o -type f -name "$1" -perm -u+x -print \
            | head -n 1)
  [ -n "$found" ] || die "no $1 in $from: build it first"
  printf '%s\n' "$found"
}

rm -rf "$out"
mkdir -p "$out/bin" "$out/tests" "$out/lib" "$out/src/tests"
cp "$(find_bin memplan-cli)" "$out/bin/"
# the whole CLI's module (render, exec), which memplan-cli looks for beside
# itself first (cli/cli-full.c), where the build has one
module=$(find "$from" -path "$from/meson-*" -prune -o -type f -name memplan-cli-full.so -print |
         head -n 1)
[ -z "$module" ] || cp "$module" "$out/bin/"
for t in test-exec test-exec-validate test-exec-cuda; do
  cp "$(find_bin "$t")" "$out/tests/"
done

# glibc's libraries come with the system and must match its ld.so; the
# driver's libcuda must match the kernel module: neither travels
skip='^(linux-vdso|linux-gate|ld-linux|libc\.so|libm\.so|libmvec|libpthread|libdl\.so|librt\.so|libresolv|libutil\.so|libcuda\.so|libnvidia-)'
{
  echo "memplan $(git -C "$srcdir" describe --always --dirty 2>/dev/null || echo unknown)"
  echo "built from $from"
  command -v nvcc >/dev/null 2>&1 && echo "nvcc: $(nvcc --version | tail -n 1)"
  echo "libraries (ldd on the build machine):"
} > "$out/MANIFEST"
# the programs link libmemplan-1 from the build's lib/ ($ORIGIN/../lib
# finds it only once it is copied)
from_lib=$(cd "$from" && pwd)/lib
bldd () { LD_LIBRARY_PATH=$from_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} ldd "$1"; }
for b in "$out"/bin/* "$out"/tests/*; do
  if bldd "$b" | grep -q 'libcudart\.so'; then
    die "$(basename "$b") loads libcudart.so: build it with -cudart=static"
  fi
  bldd "$b" | while read -r name arrow path rest; do
    case $arrow in
      "=>") ;;
      *) continue ;;
    esac
    [ "$path" = "not" ] && die "$(basename "$b"): $name not found"
    if printf '%s\n' "$name" | grep -Eq "$skip"; then
      continue
    fi
    if [ ! -e "$out/lib/$name" ]; then
      cp -L "$path" "$out/lib/$name"
      echo "  $name <- $path" >> "$out/MANIFEST"
    fi
  done
done

cp -R "$srcdir/data" "$out/data"
cp -R "$srcdir/tests/data" "$out/src/tests/data"
cp "$srcdir/build-aux/gpu-check.sh" "$out/gpu-check.sh"
cp "$srcdir/build-aux/torch-caching-compare.py" "$out/torch-caching-compare.py"
cat > "$out/run.sh" <<'EOF'
#!/bin/sh
# The GPU validation on the bundled binaries: gpu-check.sh's arguments
# (tests | runs | all, --no-cuda); the shared libraries come from lib/.
here=$(cd "$(dirname "$0")" && pwd)
LD_LIBRARY_PATH=$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
exec sh "$here/gpu-check.sh" --bundle "$here" "$@"
EOF
chmod +x "$out/run.sh" "$out/gpu-check.sh"
say "wrote $out ($(du -sh "$out" | cut -f1), $(ls "$out/lib" | wc -l) libraries): run $out/run.sh"
