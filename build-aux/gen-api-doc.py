#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""libmemplan-1's API reference, one HTML page from the public headers'
own comments (no GObject introspection, so no gi-docgen): per header its
opening comment, then each declaration as written with the comment above it.

  gen-api-doc.py OUTPUT.html HEADER…"""
import html
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import c_decls  # noqa: E402 (beside this script)

out_path, headers = sys.argv[1], sys.argv[2:]
# the umbrella headers first, then the rest by name
ORDER = ["memplan-analysis.h", "workload.h", "buffers.h", "memplan-render.h", "mp-version.h"]
headers.sort(key=lambda p: (ORDER.index(os.path.basename(p)) if os.path.basename(p) in ORDER
                            else len(ORDER), os.path.basename(p)))
SKIP_LINE_RE = re.compile(r"^\s*(#\s*(pragma|include|if|endif|else|error)\b|G_BEGIN_DECLS|"
                          r"G_END_DECLS|G_DEFINE_AUTO\w*\s*\(.*\)\s*$)")


def comment_text(raw):
    """A C comment's words, without its stars."""
    body = re.sub(r"^/\*+|\*+/$", "", raw.strip())
    lines = [re.sub(r"^\s*\* ?", "", line) for line in body.splitlines()]
    return "\n".join(lines).strip()


def blocks(text):
    """('intro', comment) for the file's opening comment, then (comment, code)
    per top-level declaration or #define."""
    spans = [(a, b) for a, b, _ in c_decls.spans(text)]
    out, prev = [], 0
    for n, (a, b) in enumerate(spans + [(len(text), len(text))]):
        gap = text[prev:a]
        comments = list(re.finditer(r"/\*.*?\*/", gap, re.S))
        lead = ""
        for m in comments:
            words = comment_text(m.group(0))
            if words.startswith("SPDX"):
                continue
            # the comment right above the declaration is its own; others stand alone
            if gap[m.end():].strip() == "" and a < len(text):
                lead = words
            elif not out and n == 0 and not any(k == "intro" for k, _ in out):
                out.append(("intro", words))
            else:
                out.append((words, ""))
        for line in gap.splitlines():
            if re.match(r"^\s*#\s*define\b", line):
                out.append(("", line.strip()))
        if a < len(text):
            code = text[a:b]
            out.append((lead, code))
        prev = b
    return out


def symbol(code):
    m = re.search(r"([A-Za-z_]\w*)\s*\(", code.split("{")[0])
    if m and not code.lstrip().startswith("typedef"):
        return m.group(1)
    m = re.search(r"}\s*([A-Za-z_]\w*)\s*;\s*$", code) or re.search(r"([A-Za-z_]\w*)\s*;\s*$", code)
    return m.group(1) if m else None


parts, index = [], []
for path in headers:
    name = os.path.basename(path)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    parts.append('<h2 id="%s">%s</h2>' % (html.escape(name), html.escape(name)))
    for lead, code in blocks(text):
        if lead == "intro":
            parts.append("<p class=intro>%s</p>" % html.escape(code).replace("\n\n", "</p><p>"))
            continue
        code = "\n".join(line for line in code.splitlines() if not SKIP_LINE_RE.match(line))
        if not code.strip():
            if lead:
                parts.append("<p>%s</p>" % html.escape(lead))
            continue
        sym = symbol(code)
        anchor = ' id="%s"' % sym if sym else ""
        if sym:
            index.append((sym, name))
        if lead:
            parts.append("<p>%s</p>" % html.escape(lead))
        parts.append("<pre%s>%s</pre>" % (anchor, html.escape(code.strip("\n"))))

index_html = ", ".join('<a href="#%s">%s</a>' % (s, s) for s, _ in sorted(set(index)))
page = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>libmemplan-1 API reference</title>
<style>body{font-family:sans-serif;max-width:60em;margin:auto;padding:1em}
pre{background:#f4f4f4;padding:.5em;overflow-x:auto}p.intro{font-style:italic}</style>
</head><body>
<h1>libmemplan-1 API reference</h1>
<p>Generated from the public headers (<code>#include &lt;memplan-render.h&gt;</code>, which
includes <code>memplan-analysis.h</code>; <code>pkg-config --cflags --libs memplan-1</code>).
Every function marked <code>MP_AVAILABLE_IN_1_0</code> is exported by libmemplan-1.so.0.
Headers: %s</p>
<p>Symbols: %s</p>
%s
</body></html>
""" % (", ".join('<a href="#%s">%s</a>' % (os.path.basename(h), os.path.basename(h))
                 for h in headers), index_html, "\n".join(parts))
tmp = out_path + ".tmp"
with open(tmp, "w", encoding="utf-8") as f:
    f.write(page)
os.replace(tmp, out_path)
