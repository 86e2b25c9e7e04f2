#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Runs the README's quick tour as written: the shell block after the
'<!-- tour -->' marker, line by line in one bash, from the source root. Each
command must exit 0, or 1 where its comment says "exits 1". Prints TAP.

  test-tour.py SOURCE_ROOT BUILD_ROOT

The tour names the build folder "$src/build"; a build elsewhere (the
sanitizer builds) is substituted for it."""
import os
import re
import shlex
import subprocess
import sys
import tempfile

src, build = sys.argv[1], sys.argv[2]
with open(os.path.join(src, "README.md"), encoding="utf-8") as f:
    readme = f.read()
m = re.search(r"<!-- tour -->\s*```sh\n(.*?)```", readme, re.S)
if not m:
    print("1..0 # SKIP no tour")
    print("Bail out! README.md has no '<!-- tour -->' shell block")
    sys.exit(1)

lines = [l for l in m.group(1).split("\n") if l.strip() and not l.lstrip().startswith("#")]
script = ["log=$(mktemp)"]
for i, line in enumerate(lines, 1):
    expect = 1 if re.search(r"#\s*exits 1\b", line) else 0
    command = line.replace("$src/build", build)
    script += [
        "{ %s\n} >\"$log\" 2>&1" % command,
        "s=$?",
        "if [ $s -eq %d ]; then echo %s; else echo %s; sed 's/^/# /' \"$log\"; fi"
        % (expect, shlex.quote("ok %d %s" % (i, line)),
           shlex.quote("not ok %d %s" % (i, line)) + "\" (exit $s, expected %d)\"" % expect),
    ]
script.append("rm -f \"$log\"")
print("1..%d" % len(lines), flush=True)
with tempfile.TemporaryDirectory(prefix="memplan-tour-") as tmp:
    # the tour's mktemp -d lands in here and goes with it
    env = dict(os.environ, TMPDIR=tmp)
    result = subprocess.run(["bash", "-c", "\n".join(script)], cwd=src, env=env,
                            capture_output=True, text=True)
sys.stdout.write(result.stdout)
if result.stderr:
    sys.stdout.write("".join("# " + l + "\n" for l in result.stderr.splitlines()))
sys.exit(1 if "\nnot ok" in "\n" + result.stdout else 0)
