#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Beat best-of on SOMAS pangu-2.6B with one column move (issue 30).

best-of's plan of tests/data/real/somas-pangu_2.6B.csv.gz leaves exactly one
hole at the peak step (40 MiB), and the arena above it is a slab of
long-lived buffers.  Over the whole run that hole's address column holds
only a few short buffers that start after the peak.  The move:

  1. the column's occupants go to the bottom of the arena, stacked from
     offset 0 in order of their start (the peak's bottom buffer ends the
     step after the peak, so those addresses are free when they start);
  2. the top slab, every buffer lying wholly in [arena - w, arena) for the
     column's width w, moves down into the column as one rigid block (its
     own packing is kept, and the column is then free over the whole run);
  3. every other buffer is placed again by greedy-by-size with its old
     offset as its preferred offset (MiniMalloc CSV `hint`), the occupants
     and a whole-run stand-in for the slab fixed (`fixed_offset`): the
     long-lived buffers the occupants displace climb, and the rest stays.

Then, while some address range is free over the whole run (what the slab
left of the column), the slab above the arena minus its width drops into it
the same way.  The result is checked by `memplan-cli validate`.

Usage: build-aux/pangu-column.py MEMPLAN_CLI [INSTANCE] [-o PLAN.csv]
"""

import argparse
import csv
import io
import os
import subprocess
import sys
import tempfile


def read_plan(text):
    plan = {}
    for row in csv.DictReader(io.StringIO(text)):
        plan[int(row['id'])] = (int(row['lower']), int(row['upper']),
                                int(row['size']), int(row['offset']))
    return plan


def run(cli, *args):
    proc = subprocess.run([cli, *args], capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f'pangu-column: {" ".join(args)}: exit {proc.returncode}: {proc.stderr.strip()}')
    return proc.stdout


def peak_step(plan):
    delta = {}
    for lower, upper, size, _ in plan.values():
        delta[lower] = delta.get(lower, 0) + size
        delta[upper] = delta.get(upper, 0) - size
    live, best, best_t = 0, -1, None
    for t in sorted(delta):
        live += delta[t]
        if live > best:
            best, best_t = live, t
    return best_t, best


def holes_at(plan, t, arena):
    spans = sorted((o, o + s) for lo, up, s, o in plan.values() if lo <= t < up)
    holes, top = [], 0
    for a, b in spans:
        if a > top:
            holes.append((top, a))
        top = max(top, b)
    if top < arena:
        holes.append((top, arena))
    return holes


def drop_slabs(plan):
    """Move the top slab into a column free over the whole run while that lowers the arena."""
    while True:
        arena = max(o + s for _, _, s, o in plan.values())
        spans = sorted((o, o + s) for _, _, s, o in plan.values())
        free, top = [], 0
        for a, b in spans:
            if a > top:
                free.append((a - top, top))
            top = max(top, b)
        if not free:
            return
        width, col = max(free)
        floor = arena - width
        moved = {i: (lo, up, s, col + o - floor) for i, (lo, up, s, o) in plan.items()
                 if o >= floor}
        rest = [o + s for i, (_, _, s, o) in plan.items() if i not in moved]
        if not moved or max(rest + [o + s for _, _, s, o in moved.values()]) >= arena:
            return
        plan.update(moved)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('cli')
    ap.add_argument('instance', nargs='?', default='tests/data/real/somas-pangu_2.6B.csv.gz')
    ap.add_argument('-o', '--output', help='write the plan (MiniMalloc CSV with offsets)')
    args = ap.parse_args()

    base = read_plan(run(args.cli, 'plan', args.instance, '--planner', 'best-of', '-f', 'csv'))
    arena = max(o + s for _, _, s, o in base.values())
    t, peak = peak_step(base)
    holes = holes_at(base, t, arena)
    print(f'best-of: arena {arena}, peak of live bytes {peak} at step {t}, '
          f'holes there {[(a, b - a) for a, b in holes]}')
    if len(holes) != 1:
        sys.exit(f'pangu-column: {args.instance}: expected one hole at step {t}, found {len(holes)}')
    col, col_end = holes[0]
    width = col_end - col

    occupants = sorted((i for i, (lo, up, s, o) in base.items() if o < col_end and o + s > col),
                       key=lambda i: (base[i][0], i))
    if any(base[i][0] <= t for i in occupants):
        sys.exit(f'pangu-column: {args.instance}: a buffer in the column is live at the peak')
    fixed, bottom = {}, 0
    for i in occupants:
        fixed[i] = bottom
        bottom += base[i][2]
    slab_floor = arena - width
    slab = {i for i, (_, _, _, o) in base.items() if o >= slab_floor}
    print(f'column [{col}, {col_end}) ({width} B): occupants {occupants} to offset 0; '
          f'slab of {len(slab)} buffers above {slab_floor} into the column')

    horizon = max(up for _, up, _, _ in base.values())
    stand_in = max(base) + 1
    with tempfile.TemporaryDirectory() as tmp:
        moved = os.path.join(tmp, 'moved.csv')
        with open(moved, 'w') as f:
            f.write('id,lower,upper,size,hint,fixed_offset\n')
            for i, (lo, up, s, o) in sorted(base.items()):
                if i in slab:
                    continue
                if i in fixed:
                    f.write(f'{i},{lo},{up},{s},-1,{fixed[i]}\n')
                else:
                    f.write(f'{i},{lo},{up},{s},{o},-1\n')
            f.write(f'{stand_in},0,{horizon},{width},-1,{col}\n')
        rest = read_plan(run(args.cli, 'plan', moved, '--planner', 'greedy-by-size', '-f', 'csv'))

        new = {i: (lo, up, s, col + o - slab_floor if i in slab else rest[i][3])
               for i, (lo, up, s, o) in base.items()}
        drop_slabs(new)
        new = {i: o for i, (_, _, _, o) in new.items()}
        out = args.output or os.path.join(tmp, 'plan.csv')
        with open(out, 'w') as f:
            f.write('id,lower,upper,size,offset\n')
            for i, (lo, up, s, _) in sorted(base.items()):
                f.write(f'{i},{lo},{up},{s},{new[i]}\n')
        verdict = run(args.cli, 'validate', args.instance, out).strip()
    print(verdict)
    new_arena = max(new[i] + base[i][2] for i in base)
    moved_count = sum(1 for i in base if i not in slab and new[i] != base[i][3])
    print(f'arena {arena} -> {new_arena} ({arena - new_arena} B lower); '
          f'{len(slab)} slab buffers and {moved_count} others moved')
    return 0 if new_arena < arena else 1


if __name__ == '__main__':
    sys.exit(main())
