"""The C declarations the package uses: lib/ksample.h itself.

cffi's cdef() takes plain C declarations, so the public header is read as it
is, with what a C preprocessor would do and cffi cannot done here: comments,
the include guard, the C++ and GCC-only blocks, #include and #pragma lines,
macros that are not plain integers (KS_VERSION is kept aside as a string),
integer suffixes, and the bodies of the header's static inline helpers.  No
declaration is written a second time in Python, so a struct's layout can not
drift from the library's: cffi lays the structs out from the same text the
compiler did.

This module imports nothing from the package (the build script loads it by
path, before the package exists).
"""

import re

_KEPT_BLOCKS = {"ifndef KSAMPLE_H": True, "ifdef __cplusplus": False,
                "if defined(__GNUC__)": False}


def _strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return text.replace("\\\n", " ")


def _drop_inline_bodies(src):
    out, pos = [], 0
    while True:
        start = src.find("static inline", pos)
        if start < 0:
            out.append(src[pos:])
            return "".join(out)
        brace = src.index("{", start)
        depth, k = 0, brace
        while True:
            if src[k] == "{":
                depth += 1
            elif src[k] == "}":
                depth -= 1
                if depth == 0:
                    break
            k += 1
        out.append(src[pos:start])
        pos = k + 1


def cdef_source(text):
    """(declarations for cffi.FFI.cdef, {name: value} of the string macros)."""
    lines, stack, strings = [], [], {}
    for line in _strip_comments(text).split("\n"):
        s = line.strip()
        if not s.startswith("#"):
            if all(stack):
                lines.append(line)
            continue
        d = " ".join(s[1:].split())
        if d.startswith(("if ", "ifdef ", "ifndef ")):
            if d not in _KEPT_BLOCKS:
                raise ValueError("ksample.h: cannot read '#%s' (python/ksample/_header.py "
                                 "knows the blocks %s)" % (d, ", ".join(_KEPT_BLOCKS)))
            stack.append(_KEPT_BLOCKS[d])
        elif d.startswith("endif"):
            stack.pop()
        elif d.startswith("define ") and all(stack):
            m = re.match(r"define\s+(\w+)\s+(.*)$", d)
            if not m:
                continue
            name, value = m.group(1), m.group(2).strip()
            if re.fullmatch(r"-?\d+[uUlL]*", value):
                lines.append("#define %s %s" % (name, value.rstrip("uUlL")))
            elif re.fullmatch(r'"[^"\\]*"', value):
                strings[name] = value[1:-1]
    src = _drop_inline_bodies("\n".join(lines))
    src = re.sub(r"\b(\d+)[uU][lL]*\b", r"\1", src)
    # the one type the header takes from <signal.h>: an int on every
    # platform glibc supports
    if re.search(r"\bsig_atomic_t\b", src):
        src = "typedef int sig_atomic_t;\n" + src
    return src, strings
