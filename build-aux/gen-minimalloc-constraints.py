#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Adds MiniMalloc's alignment, hint and gaps columns to a MiniMalloc CSV.

   build-aux/gen-minimalloc-constraints.py IN.csv OUT.csv [--seed N]

Deterministic for a seed (Python's random.Random). Every buffer of A-E is a
multiple of 1024 bytes long, so alignments up to 1024 keep the sizes and
bind only the offsets: a quarter of the buffers get 256, 512 or 1024. A
tenth get a hint (a multiple of their alignment below 512 KiB). A fifth of
those living at least 8 time units get one gap in the middle third of
their lifetime, half of them keeping the window [0, size/2). Gaps use
MiniMalloc's syntax with an exclusive upper end (src/converter.cc)."""
import argparse
import csv
import random


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("--seed", type=int, default=28)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    with open(args.input, newline="") as f:
        rows = list(csv.DictReader(f))
    with open(args.output, "w", newline="") as f:
        f.write("id,lower,upper,size,alignment,hint,gaps\n")
        for r in rows:
            lower, upper, size = int(r["lower"]), int(r["upper"]), int(r["size"])
            align = rng.choice((256, 512, 1024)) if rng.random() < 0.25 else 1
            hint = -1
            if rng.random() < 0.10:
                hint = rng.randrange(0, 512 * 1024 // max(align, 1024)) * max(align, 1024)
            gaps = ""
            if upper - lower >= 8 and rng.random() < 0.20:
                third = (upper - lower) // 3
                lo = lower + third + rng.randrange(0, max(third // 2, 1))
                hi = lo + max(third // 2, 1)
                gaps = f"{lo}-{hi}"
                if rng.random() < 0.5:
                    gaps += f"@0:{size // 2}"
            f.write(f"{r['id']},{lower},{upper},{size},{align},{hint},{gaps}\n")


if __name__ == "__main__":
    main()
