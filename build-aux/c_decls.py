# SPDX-License-Identifier: GPL-3.0-or-later
"""The top-level declarations of a C header, found well enough for our
own headers: shared by tests/check-house.py (every public declaration is
exported) and build-aux/gen-api-doc.py (the API reference)."""
import re

MACRO_LINE_RE = re.compile(r"^[ \t]*(G_BEGIN_DECLS|G_END_DECLS|G_[A-Z_]+[ \t]*\([^;\n]*\))[ \t]*$",
                           re.M)


def _blank(m):
    return re.sub(r"[^\n]", " ", m.group(0))


def structure(text):
    """text with comments, preprocessor lines and G_* macro lines blanked,
    every offset kept."""
    s = re.sub(r"/\*.*?\*/|//[^\n]*", _blank, text, flags=re.S)
    s = re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", _blank, s, flags=re.M)
    return MACRO_LINE_RE.sub(_blank, s)


def spans(text):
    """(start, end, is_static_inline) of each top-level declaration."""
    s = structure(text)
    depth, start = 0, None
    for i, c in enumerate(s):
        if start is None and not c.isspace():
            start = i
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0 and s[start:i].lstrip().startswith("static"):
                yield start, i + 1, True
                start = None
        elif c == ";" and depth == 0:
            yield start, i + 1, False
            start = None
