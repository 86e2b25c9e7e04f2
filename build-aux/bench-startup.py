#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The start-up row of bench.sh (issue 30): the CPU (user + sys) of a whole
`memplan-cli plan FILE -p greedy-by-size -f csv` process against a peer's
driver of TFLite GPU's greedy-by-size on the same file, writing the same
offsets (build-aux/build-tflite-driver.sh). Loops of LOOPS processes of each,
taken in turn, ROUNDS times; medians.

  bench-startup.py MEMPLAN_CLI TFLITE_DRIVER FILE...
"""
import resource
import statistics
import subprocess
import sys

LOOPS = 100
ROUNDS = 5


def cpu_of_loop(argv):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    for _ in range(LOOPS):
        subprocess.run(argv, stdout=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    cli, driver, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    print("%-24s %8s %14s %14s %7s" % ("file", "buffers", "memplan ms", "TFLite ms", "ratio"))
    for path in files:
        with open(path, encoding="utf-8") as f:
            n = sum(1 for _ in f) - 1
        ours = [cli, "plan", path, "-p", "greedy-by-size", "-f", "csv"]
        theirs = [driver, path]
        a, b = [], []
        for _ in range(ROUNDS):
            a.append(cpu_of_loop(ours))
            b.append(cpu_of_loop(theirs))
        ma, mb = statistics.median(a) / LOOPS * 1e3, statistics.median(b) / LOOPS * 1e3
        name = path.rsplit("/", 1)[-1]
        print("%-24s %8d %14.2f %14.2f %6.2fx" % (name, n, ma, mb, ma / mb))


main()
