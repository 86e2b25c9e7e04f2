#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""`import memplan` from the build tree (PYTHONPATH set by meson test):
every planner gives the CLI's very offsets, errors carry the engine's
message, and a million buffers are planned. Standard library only.

  test-python.py SOURCE_ROOT MEMPLAN_CLI"""
import array
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import unittest

import memplan

SRC, CLI = sys.argv[1], sys.argv[2]
del sys.argv[1:3]
DATA = os.path.join(SRC, "data")
CSV_SAMPLES = ["minimalloc/A.1048576.csv", "minimalloc/B.1048576.csv",
               "teaching/size-beats-partition.csv", "teaching/pisarchyk-lee.csv"]
GRAPH_SAMPLES = ["default.json", "multistream.json", "teaching/breadth-beats-size.json"]
# a heuristic's offsets are deterministic; the search's only once it is proved
HEURISTICS = [p for p in memplan.planners() if p != "optimal"]


def cli_plan(path, planner, *extra):
    out = subprocess.run([CLI, "plan", "-p", planner, "-f", "json", *extra, path],
                         capture_output=True, text=True)
    if out.returncode not in (0, 1):
        raise AssertionError("%s: %s" % (path, out.stderr))
    return json.loads(out.stdout)


def read_csv(path):
    with open(path, encoding="utf-8") as f:
        header = f.readline().strip().split(",")
        rows = [dict(zip(header, line.strip().split(","))) for line in f if line.strip()]
    return [(int(r["size"]), int(r["lower"]), int(r["upper"])) for r in rows]


class Buffers(unittest.TestCase):
    def test_hand_worked(self):
        # by size: 20 B at 0; 10 B and 5 B above it, never live together
        r = memplan.plan([(10, 0, 2), (20, 1, 3), (5, 2, 4)], planner="greedy-by-size")
        self.assertIsInstance(r.offsets, array.array)
        self.assertEqual(list(r.offsets), [20, 0, 20])
        self.assertEqual((r.planner, r.arena, r.lower_bound), ("greedy-by-size", 30, 30))
        self.assertEqual((r.verdict, r.valid), ("valid", True))
        self.assertEqual(memplan.validate([(10, 0, 2), (20, 1, 3), (5, 2, 4)], r.offsets), 30)

    def test_default_planner_and_alignment(self):
        r = memplan.plan([(10, 0, 2), (20, 1, 3)])
        self.assertEqual(r.planner, "first-fit")
        # slots of 64 B (first-fit takes the larger first); the arena
        # counts the top buffer's own bytes
        r = memplan.plan([(10, 0, 2), (20, 1, 3)], alignment=64)
        self.assertEqual(list(r.offsets), [64, 0])
        self.assertEqual(r.arena, 64 + 10)

    def test_any_iterable(self):
        class Buf:
            def __init__(self, size, start, end):
                self.size, self.start, self.end = size, start, end

        want = memplan.plan([(10, 0, 2), (20, 1, 3)]).offsets
        self.assertEqual(memplan.plan([Buf(10, 0, 2), Buf(20, 1, 3)]).offsets, want)
        self.assertEqual(memplan.plan(b for b in [(10, 0, 2), [20, 1, 3]]).offsets, want)
        empty = memplan.plan([])
        self.assertEqual((len(empty.offsets), empty.arena, empty.valid), (0, 0, True))

    def test_all(self):
        results = memplan.plan([(10, 0, 2), (20, 1, 3)], planner="all", time_budget=1)
        # the planners that need ops are left out of usage records
        self.assertEqual(sorted(results), sorted(set(memplan.planners())
                                                 - {"greedy-by-breadth", "multistream"}))
        self.assertTrue(all(r.valid and r.arena == 30 for name, r in results.items()
                            if name != "naive"))
        self.assertEqual(results["naive"].arena, 30)

    def test_same_offsets_as_cli(self):
        for sample in CSV_SAMPLES:
            path = os.path.join(DATA, sample)
            buffers = read_csv(path)
            for planner in HEURISTICS + ["optimal"]:
                if planner in ("greedy-by-breadth", "multistream"):
                    continue
                with self.subTest(sample=sample, planner=planner):
                    want = cli_plan(path, planner)["plans"][0]
                    if planner == "optimal" and not want.get("proved_optimal", False):
                        continue
                    got = memplan.plan(buffers, planner=planner)
                    self.assertEqual(list(got.offsets), [t["offset"] for t in want["tensors"]])
                    self.assertEqual((got.arena, got.lower_bound),
                                     (want["arena"], want["lower_bound"]))

    def test_million(self):
        buffers = [(1 + i % 1000, i, i + 3) for i in range(1_000_000)]
        r = memplan.plan(buffers, planner="greedy-by-size")
        self.assertEqual(len(r.offsets), 1_000_000)
        self.assertTrue(r.valid)
        self.assertGreaterEqual(r.arena, r.lower_bound)
        self.assertEqual(memplan.validate(buffers, r.offsets), r.arena)

    def test_threads(self):
        # planning drops the GIL: two threads plan side by side and agree
        buffers = read_csv(os.path.join(DATA, CSV_SAMPLES[0]))
        results = []
        threads = [threading.Thread(target=lambda: results.append(
            memplan.plan(buffers, planner="best-fit").arena)) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(len(set(results)), 1)


class Errors(unittest.TestCase):
    def check(self, message, *args, **kwargs):
        with self.assertRaises(memplan.Error) as cm:
            memplan.plan(*args, **kwargs)
        self.assertEqual(str(cm.exception), message)

    def test_error_is_exception(self):
        self.assertTrue(issubclass(memplan.Error, Exception))

    def test_bad_buffers(self):
        self.check("buffer 1: end 2 must be greater than start 3 (end is exclusive)",
                   [(10, 0, 2), (10, 3, 2)])
        self.check("buffer 0: size must be from 1 to 2^48 bytes, got 0", [(0, 0, 2)])
        self.check("buffer 0: size must be from 1 to 2^48, got -4", [(-4, 0, 2)])
        with self.assertRaises(TypeError) as cm:
            memplan.plan([(10, 0, "2")])
        self.assertEqual(str(cm.exception), "buffer 0: end must be an int, not str")
        with self.assertRaises(TypeError):
            memplan.plan(5)

    def test_bad_options(self):
        self.check("unknown planner 'fastest' (known: naive, greedy-by-size, greedy-by-breadth, "
                   "partition, multistream, best-fit, first-fit, optimal, best-of, all)",
                   [(1, 0, 1)], planner="fastest")
        self.check("alignment must be a power of two from 1 to 2^30, got 3",
                   [(1, 0, 1)], alignment=3)
        self.check("time_budget must be from 0 to 1e9 seconds, got -1",
                   [(1, 0, 1)], planner="optimal", time_budget=-1)

    def test_needs_ops(self):
        with self.assertRaises(memplan.Error) as cm:
            memplan.plan([(1, 0, 1)], planner="multistream")
        self.assertIn("multistream", str(cm.exception))

    def test_validate_names_the_overlap(self):
        with self.assertRaises(memplan.Error) as cm:
            memplan.validate([(10, 0, 2), (20, 1, 3)], [0, 5])
        self.assertEqual(str(cm.exception),
                         "tensors '0' (offset 0, 10 bytes, steps 0-1) and '1' (offset 5, "
                         "20 bytes, steps 1-2) overlap at step 1 in bytes [5, 10)")
        with self.assertRaises(memplan.Error) as cm:
            memplan.validate([(10, 0, 2)], [0, 5])
        self.assertEqual(str(cm.exception), "2 offsets for 1 buffers")

    def test_open_missing(self):
        with self.assertRaises(memplan.Error) as cm:
            memplan.open("/nonexistent/graph.json")
        self.assertIn("/nonexistent/graph.json", str(cm.exception))


class Workload(unittest.TestCase):
    def test_same_offsets_as_cli(self):
        for sample in GRAPH_SAMPLES:
            path = os.path.join(DATA, sample)
            w = memplan.open(path)
            for planner in HEURISTICS:
                with self.subTest(sample=sample, planner=planner):
                    want = cli_plan(path, planner)["plans"][0]
                    got = w.plan(planner)
                    names = [t.name for t in w.tensors]
                    self.assertEqual(dict(zip(names, got.offsets)),
                                     {t["name"]: t["offset"] for t in want["tensors"]})
                    self.assertEqual((got.arena, got.valid), (want["arena"], want["valid"]))
                    # multistream's bound is over parallel groups, not op order
                    self.assertEqual(got.lower_bound, want["lower_bound"])
                    if planner != "multistream":
                        self.assertEqual(w.lower_bound, want["lower_bound"])

    def test_threads(self):
        # one workload planned from two threads at once: its runs take turns
        w = memplan.open(os.path.join(DATA, "default.json"))
        results = []
        threads = [threading.Thread(target=lambda: results.append(
            list(w.plan("best-fit").offsets))) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(len(results), 4)
        self.assertTrue(all(r == results[0] for r in results))

    def test_tensors(self):
        w = memplan.open(os.path.join(DATA, "default.json"))
        self.assertEqual((w.name, w.format), ("encoder-4x512", "memplan graph"))
        t = w.tensors[0]
        self.assertEqual((t.name, t.size, t.first, t.last, t.op),
                         ("embed.out", 2097152, 0, 11, "embed"))
        csv = memplan.open(os.path.join(DATA, "teaching", "size-beats-partition.csv"))
        self.assertIsNone(csv.tensors[0].op)

    def test_to_json_and_render(self):
        path = os.path.join(DATA, "default.json")
        w = memplan.open(path)
        doc = json.loads(w.to_json(planners=["greedy-by-size", "best-fit"]))
        self.assertEqual(doc["format"], "memplan.plan/1")
        self.assertEqual([p["planner"] for p in doc["plans"]], ["greedy-by-size", "best-fit"])
        with tempfile.TemporaryDirectory() as tmp:
            png = os.path.join(tmp, "plan.png")
            w.render(png, planners="best-fit")
            with open(png, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
            svg = os.path.join(tmp, "plans.svg")
            w.render(svg, planners=["naive", "best-fit"])
            self.assertTrue(os.path.getsize(svg) > 0)
            with self.assertRaises(memplan.Error) as cm:
                w.render(os.path.join(tmp, "plan.gif"))
            self.assertIn("plan.gif", str(cm.exception))


class Examples(unittest.TestCase):
    """examples/ and the README's Python block run with nothing but memplan."""

    def test_readme(self):
        with open(os.path.join(SRC, "README.md"), encoding="utf-8") as f:
            block = re.search(r"<!-- python-example -->\s*```python\n(.*?)```", f.read(), re.S)
        self.assertIsNotNone(block, "README.md has no '<!-- python-example -->' block")
        with tempfile.TemporaryDirectory() as tmp:
            os.symlink(os.path.abspath(DATA), os.path.join(tmp, "data"))
            out = subprocess.run([sys.executable, "-c", block.group(1)], cwd=tmp,
                                 capture_output=True, text=True)
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertTrue(os.path.getsize(os.path.join(tmp, "plans.svg")) > 0)
        self.assertEqual(out.stdout.splitlines()[:4],
                         ["array('q', [20, 0, 20])", "30 30 valid True",
                          "array('q', [0, 64, 0])", "30"])

    def run_example(self, *args):
        return subprocess.run([sys.executable, os.path.join(SRC, "examples", args[0]), *args[1:]],
                              capture_output=True, text=True)

    def test_executorch_and_omnimalloc(self):
        out = self.run_example("executorch_planner.py")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("greedy-by-size  arena  36864 B  offsets [16384, 0, 16384, 0, 32768]",
                      out.stdout)
        out = self.run_example("omnimalloc_equivalent.py")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("best-fit offsets of the first five", out.stdout)

    def test_regression_fails_on_growth(self):
        folder = os.path.join(DATA, "teaching")
        with tempfile.TemporaryDirectory() as tmp:
            base = os.path.join(tmp, "base.json")
            out = self.run_example("regression.py", folder, "--save", base, "--baseline", base)
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertIn("PASS", out.stdout)
            with open(base, encoding="utf-8") as f:
                arenas = json.load(f)
            arenas["search-only.csv"]["best-fit"] //= 2
            with open(base, "w", encoding="utf-8") as f:
                json.dump(arenas, f)
            out = self.run_example("regression.py", folder, "--baseline", base)
            self.assertEqual(out.returncode, 1, out.stderr)
            self.assertIn("GREW search-only.csv: best-fit: arena", out.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
