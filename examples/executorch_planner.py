#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""memplan as an ExecuTorch-style memory-planning algorithm: sizes and
lifetimes in, offsets out, through any memplan planner.

ExecuTorch's MemoryPlanningPass(memory_planning_algo=...) calls an
algorithm with the tensor specs to place; each spec has allocated_memory
(bytes), lifetime = [first, last] (inclusive node indices) and receives
mem_offset. MemplanAlgorithm does that job on plain lists, so it needs no
torch; the adapter at the bottom shows the three lines that bind it to
specs. Run it: python3 examples/executorch_planner.py"""
import memplan


class MemplanAlgorithm:
    """A callable planner: algo(sizes, lifetimes, alignment) -> (offsets, arena)."""

    def __init__(self, planner="greedy-by-size", time_budget=None):
        self.planner = planner
        self.time_budget = time_budget

    def __call__(self, sizes, lifetimes, alignment=16):
        # lifetimes are inclusive [first, last]; memplan's end is exclusive
        buffers = [(size, first, last + 1) for size, (first, last) in zip(sizes, lifetimes)]
        result = memplan.plan(buffers, planner=self.planner, alignment=alignment,
                              time_budget=self.time_budget)
        if not result.valid:
            raise memplan.Error(result.verdict)
        return list(result.offsets), result.arena


def plan_specs(specs, algo, alignment=16):
    """What a memory_planning_algo does with ExecuTorch TensorSpecs."""
    offsets, arena = algo([s.allocated_memory for s in specs], [s.lifetime for s in specs],
                          alignment)
    for spec, offset in zip(specs, offsets):
        spec.mem_offset = offset
    return arena


if __name__ == "__main__":
    # a small MLP's activations: x -> h1 -> h2 -> y, and a residual kept alive
    sizes = [4096, 16384, 16384, 4096, 4096]
    lifetimes = [[0, 1], [1, 2], [2, 3], [3, 4], [0, 4]]
    for name in ("naive", "greedy-by-size", "best-fit", "optimal"):
        offsets, arena = MemplanAlgorithm(name, time_budget=1)(sizes, lifetimes)
        print("%-15s arena %6d B  offsets %s" % (name, arena, offsets))
