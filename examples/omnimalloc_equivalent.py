#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The job of OmniMalloc's om.allocate(pool, allocator=..., validate=True),
done with memplan, for a user coming from OmniMalloc.

  OmniMalloc                                  memplan
  ------------------------------------------  --------------------------------------------
  om.Allocation(id, size, start, end)         a (size, start, end) tuple, or any object
                                              with size, start and end attributes
  om.Pool(allocations)                        a list of them
  om.allocate(pool, allocator="greedy")       memplan.plan(buffers, planner="greedy-by-size")
  allocator="first_fit" / "best_fit"          planner="first-fit" / "best-fit"
  allocator="minimalloc" (exact)              planner="optimal", time_budget=seconds
  running several allocators to compare       memplan.plan(buffers, planner="all") -> dict
  validate=True                               memplan.validate(buffers, offsets), also done
                                              by every plan: result.valid, result.verdict
  pool.size / peak after allocation           result.arena (result.lower_bound: no plan
                                              needs less)
  allocation.offset                           result.offsets[i] (array of int64)

end is exclusive in both. Run it: python3 examples/omnimalloc_equivalent.py"""
import random

import memplan


def allocate(buffers, allocator="greedy-by-size", validate=True):
    """om.allocate's shape: offsets for buffers; raises on an invalid plan."""
    result = memplan.plan(buffers, planner=allocator)
    if validate:
        memplan.validate(buffers, result.offsets)  # raises memplan.Error naming an overlap
    return result


if __name__ == "__main__":
    rng = random.Random(7)
    pool = []
    for _ in range(2000):
        start = rng.randrange(1000)
        pool.append((rng.randrange(64, 1 << 16), start, start + rng.randrange(1, 50)))
    for name, result in sorted(memplan.plan(pool, planner="all", time_budget=2).items()):
        print("%-15s arena %9d B  %.3f x lower bound  %s"
              % (name, result.arena, result.arena / result.lower_bound, result.verdict))
    best = allocate(pool, "best-fit")
    print("best-fit offsets of the first five:", list(best.offsets[:5]))
