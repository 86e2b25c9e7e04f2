#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The house rules that a reviewer would otherwise check by eye. Prints TAP.

  check-house.py SOURCE_ROOT BUILD_ROOT CC [CC_ARGS...]

1. The layer boundary, by the compiler: with the flags each front-end's own
   sources are compiled with (read from the build's meson-info, so a stray
   -DMP_ANALYSIS_COMPILATION there would be caught), every header that carries
   a layer's internal guard must fail with that guard's #error, and every
   other header of analysis/, render/ and exec/ (memplan-analysis.h,
   memplan-render.h, memplan-exec.h among them) must compile, so the test
   can fail for a real reason.
2. Every source list of every meson.build is sorted.
3. No file of app/, cli/, render/ or exec/ includes a header internal to
   another layer (the compile check is the proof; this names the line).
4. Every function and variable declared in a public header of analysis/
   or render/ (those libmemplan-1 installs) carries MP_AVAILABLE_IN_*: the
   library hides every other symbol, so an unmarked one would not link."""
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile

src, build, cc = sys.argv[1], sys.argv[2], sys.argv[3:]
LAYERS = ("analysis", "render", "exec")
FRONT_ENDS = ("app", "cli", "render", "exec")
# the static libraries whose sources are a front-end's code
FRONT_END_TARGETS = ("memplan-cli", "memplan-gui")
GUARD_RE = re.compile(r"#\s*if\s+!\s*defined\s*\(?\s*(MP_[A-Z]+_COMPILATION)\s*\)?")
ERROR_RE = re.compile(r'#\s*error\s+"([^"]*)"')
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)

results = []


def check(ok, name, why=""):
    results.append((ok, name, why))


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def rel(path):
    return os.path.relpath(path, src)


def files_under(top, exts):
    for root, dirs, names in os.walk(os.path.join(src, top)):
        dirs.sort()
        for name in sorted(names):
            if name.endswith(exts):
                yield os.path.join(root, name)


# ---- which headers are internal, and to which layer ----

headers = {}  # basename -> (path, guard macro or None, #error text)
for layer in LAYERS:
    for path in files_under(layer, (".h",)):
        text = read(path)
        guard = GUARD_RE.search(text)
        if guard is None and re.search(r'#\s*include\s+"mp-internal\.h"', text):
            guard = GUARD_RE.search(read(os.path.join(src, "analysis", "mp-internal.h")))
            error = ERROR_RE.search(read(os.path.join(src, "analysis", "mp-internal.h")))
        else:
            error = ERROR_RE.search(text) if guard else None
        headers[os.path.basename(path)] = (path, guard and guard.group(1),
                                           error and error.group(1))

for name, (path, guard, error) in sorted(headers.items()):
    if guard and not error:
        check(False, "%s has an #error beside its guard %s" % (rel(path), guard),
              "no #error line found")

# ---- 1. the boundary, compiled ----


def front_end_flags():
    intro = os.path.join(build, "meson-info", "intro-targets.json")
    try:
        targets = json.loads(read(intro))
    except (OSError, ValueError) as e:
        sys.exit("Bail out! %s: cannot read the build's targets: %s" % (intro, e))
    found = {}
    for t in targets:
        if t["name"] in FRONT_END_TARGETS and t["type"] == "static library":
            for s in t["target_sources"]:
                if s["language"] == "c":
                    found[t["name"]] = s["parameters"]
    if "memplan-cli" not in found:
        sys.exit("Bail out! %s: no memplan-cli library in this build" % intro)
    return found


def include_dirs(flags):
    return {os.path.realpath(f[2:]) for f in flags if f.startswith("-I")}


def compile_header(flags, header):
    with tempfile.TemporaryDirectory(prefix="check-house-") as tmp:
        probe = os.path.join(tmp, "probe.c")
        with open(probe, "w", encoding="utf-8") as f:
            f.write('#include "%s"\n' % header)
        cmd = cc + flags + ["-fdiagnostics-color=never", "-fsyntax-only", probe]
        p = subprocess.run(cmd, cwd=build, capture_output=True, text=True)
    return p.returncode, p.stderr


jobs = []  # (test name, guard, #error text, future)
with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
    for target, flags in sorted(front_end_flags().items()):
        reach = include_dirs(flags)
        for name, (path, guard, error) in sorted(headers.items()):
            if os.path.realpath(os.path.dirname(path)) not in reach:
                continue  # not on this front-end's include path at all
            what = "%s: #include \"%s\"" % (target, name)
            if guard and any(f == "-D" + guard or f.startswith("-D%s=" % guard) for f in flags):
                jobs.append((what, guard, error, None))
            else:
                jobs.append((what, guard, error, pool.submit(compile_header, flags, name)))
    for what, guard, error, job in jobs:
        if job is None:
            check(False, what, "the front-end's flags define %s" % guard)
            continue
        rc, err = job.result()
        if guard:
            ok = rc != 0 and error is not None and error in err
            check(ok, "%s fails with the #error of %s" % (what, guard),
                  "" if ok else "exit %d, no '%s' in:\n%s" % (rc, error, err))
        else:
            check(rc == 0, "%s compiles (public)" % what, err)

# ---- 2. sorted source lists ----

TOKEN_RE = re.compile(r"""('''.*?'''|'(?:\\.|[^'\\\n])*'|\#[^\n]*|[A-Za-z_][A-Za-z0-9_]*|
                          [\[\](){}:,]|[^\s\[\](){}:,'\#A-Za-z_]+)""", re.S | re.X)
# what a list of names looks like: no flags, no format strings, no options
NAME_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.+/-]*$")
TARGET_CALLS = ("executable", "static_library", "shared_library", "shared_module", "library")


def tokens(text):
    out = []
    for m in TOKEN_RE.finditer(text):
        tok = m.group(0)
        if not tok.startswith("#"):
            line = text.count("\n", 0, m.start()) + 1
            out.append((tok, line))
    return out


def split_args(toks, i):
    """The top-level, comma-separated items from toks[i] (just after an
    opening bracket) to the matching close; returns (items, index after)."""
    depth, items, cur = 0, [], []
    while i < len(toks):
        tok = toks[i][0]
        if tok in "([{":
            depth += 1
        elif tok in ")]}":
            if depth == 0:
                if cur:
                    items.append(cur)
                return items, i + 1
            depth -= 1
        if tok == "," and depth == 0:
            items.append(cur)
            cur = []
        else:
            cur.append(toks[i])
        i += 1
    return items, i


def literal(item):
    if len(item) == 1 and item[0][0].startswith("'") and not item[0][0].startswith("'''"):
        return item[0][0][1:-1]
    return None


def name_runs(items, skip_first):
    """Runs of consecutive string literals that look like names."""
    runs, run = [], []
    for k, item in enumerate(items):
        if any(t[0] == ":" for t in item):
            break  # keyword arguments: the positional ones are over
        value = literal(item)
        if skip_first and k == 0:
            continue
        if value is not None and NAME_RE.match(value):
            run.append((value, item[0][1]))
        else:
            if len(run) > 1:
                runs.append(run)
            run = []
    if len(run) > 1:
        runs.append(run)
    return runs


def source_lists(text):
    """files(...) and install_data(...) arguments, a target's source
    arguments, and [...] lists whose every element is a name (test
    programs, fuzz targets)."""
    toks = tokens(text)
    for i, (tok, line) in enumerate(toks):
        if tok == "(" and i > 0 and toks[i - 1][0] in ("files", "install_data") + TARGET_CALLS:
            items, _ = split_args(toks, i + 1)
            yield from name_runs(items, toks[i - 1][0] in TARGET_CALLS)
        elif tok == "[":
            items, _ = split_args(toks, i + 1)
            values = [literal(it) for it in items]
            if len(values) > 1 and all(v is not None and NAME_RE.match(v) for v in values):
                yield [(v, it[0][1]) for v, it in zip(values, items)]


meson_files = sorted(p for top in os.listdir(src)
                     if os.path.isdir(os.path.join(src, top)) and not top.startswith(".")
                     and not os.path.exists(os.path.join(src, top, "meson-info"))
                     for p in files_under(top, ("meson.build",)))
meson_files.insert(0, os.path.join(src, "meson.build"))
for path in meson_files:
    if os.path.basename(path) != "meson.build":
        continue
    bad = []
    for run in source_lists(read(path)):
        names = [v for v, _ in run]
        for (a, line), (b, _) in zip(run, run[1:]):
            if a >= b:
                bad.append("line %d: '%s' comes before '%s'" % (line, a, b))
    check(not bad, "%s: source lists sorted" % rel(path), "\n".join(bad))

# ---- 3. no front-end includes another layer's internal header ----

for top in FRONT_ENDS:
    bad = []
    own = "MP_%s_COMPILATION" % top.upper()
    for path in files_under(top, (".c", ".h", ".cu", ".cc")):
        text = read(path)
        for m in INCLUDE_RE.finditer(text):
            header = headers.get(m.group(1))
            if header is None or header[1] is None or header[1] == own:
                continue
            layer = rel(header[0]).split(os.sep)[0]
            line = text.count("\n", 0, m.start()) + 1
            bad.append("%s:%d includes \"%s\", internal to %s/ (guarded by %s): %s"
                       % (rel(path), line, m.group(1), layer, header[1],
                          header[2] or "use its public header"))
    check(not bad, "%s/ includes no other layer's internal header" % top, "\n".join(bad))

# ---- 4. every public declaration is exported ----

sys.path.insert(0, os.path.join(src, "build-aux"))
import c_decls  # noqa: E402 (found through the source root)


def top_level_statements(text):
    """(line, statement) of each top-level declaration but static inline
    functions (nothing to export), its words joined by single spaces."""
    s = c_decls.structure(text)
    for start, end, inline in c_decls.spans(text):
        if not inline:
            yield s.count("\n", 0, start) + 1, " ".join(s[start:end - 1].split())


def declared_symbol(stmt):
    """The function or variable a statement declares, or None for a type."""
    if re.match(r"(typedef|struct|enum|union|static)\b", stmt) and "(" not in stmt.split("{")[0]:
        return None
    if re.match(r"(typedef|static)\b", stmt):
        return None
    m = re.search(r"([A-Za-z_]\w*)\s*\(", stmt)
    if m and not stmt.startswith("extern"):
        return m.group(1)
    m = re.search(r"([A-Za-z_]\w*)\s*(\[[^\]]*\]\s*)?$", stmt)
    return m.group(1) if m else None


for name, (path, guard, _) in sorted(headers.items()):
    layer = rel(path).split(os.sep)[0]
    if guard or layer not in ("analysis", "render") or name in ("mp-internal.h", "mp-version.h"):
        continue
    bad = []
    for line, stmt in top_level_statements(read(path)):
        symbol = declared_symbol(stmt)
        if symbol and not stmt.startswith("MP_AVAILABLE_IN_"):
            bad.append("%s:%d: %s is not marked MP_AVAILABLE_IN_1_0 (mp-version.h): the line "
                       "before it should say so" % (rel(path), line, symbol))
    check(not bad, "%s: every declaration is exported (MP_AVAILABLE_IN_*)" % rel(path),
          "\n".join(bad))

print("1..%d" % len(results))
for n, (ok, name, why) in enumerate(results, 1):
    print("%s %d - %s" % ("ok" if ok else "not ok", n, name))
    if not ok and why:
        for line in why.rstrip().splitlines():
            print("# " + line)
