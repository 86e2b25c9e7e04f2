#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every file with a translatable string is listed in po/POTFILES, and every
listed file exists: a new .ui file or a new _() cannot miss the template.
Prints TAP.   check-potfiles.py SOURCE_ROOT"""
import os
import re
import sys

root = sys.argv[1]
marker = re.compile(r'translatable="yes"|\b_\("|\bN_\("|<summary>|^(Name|Comment|GenericName|Keywords)=', re.M)
with open(os.path.join(root, "po", "POTFILES"), encoding="utf-8") as f:
    listed = {line.strip() for line in f if line.strip() and not line.startswith("#")}

found = set()
for folder in ("app", "data"):
    for dirpath, _dirs, files in os.walk(os.path.join(root, folder)):
        for name in files:
            if not name.endswith((".c", ".ui", ".desktop", ".gschema.xml")):
                continue
            path = os.path.join(dirpath, name)
            with open(path, encoding="utf-8") as f:
                if marker.search(f.read()):
                    found.add(os.path.relpath(path, root))

missing = sorted(found - listed)
gone = sorted(p for p in listed if not os.path.exists(os.path.join(root, p)))
print("1..2")
print(("ok" if not missing else "not ok") + " 1 every file with translatable strings is in po/POTFILES")
for p in missing:
    print("# not listed: " + p)
print(("ok" if not gone else "not ok") + " 2 every file in po/POTFILES exists")
for p in gone:
    print("# missing: " + p)
sys.exit(1 if missing or gone else 0)
