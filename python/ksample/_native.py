"""The shared library through cffi's ABI mode: `ffi` (the declarations of
lib/ksample.h), `lib` (libksample.so, loaded at import) and the one error
path, `check`.

Which library: $KSAMPLE_LIBRARY when set; else the one recorded when the
package was installed (pip install ./python finds it through pkg-config or the
build tree beside it: python/setup.py); else, running from a source checkout,
the checkout's build/; else the soname through the dynamic loader
(LD_LIBRARY_PATH, ldconfig).  Its version must be the header's.
"""

import os
from pathlib import Path

try:  # an installed package: the declarations compiled when it was built
    from ._ffi import ffi
    from ._config import HEADER_VERSION, LIBRARY
    try:
        from ._config import LIBRARY_FOUND
    except ImportError:  # recorded by an older setup.py
        LIBRARY_FOUND = None
except ImportError:  # a source checkout (PYTHONPATH=python): read the header now
    import cffi

    from ._header import cdef_source

    _HEADER = Path(__file__).resolve().parent.parent.parent / "lib" / "ksample.h"
    _src, _strings = cdef_source(_HEADER.read_text())
    ffi = cffi.FFI()
    ffi.cdef(_src)
    HEADER_VERSION = _strings["KS_VERSION"]
    LIBRARY = LIBRARY_FOUND = None

SONAME = "libksample.so." + ".".join(HEADER_VERSION.split(".")[:2])
# how python/setup.py found the library it recorded (ksample_build.find_library)
BUILD_TREE = "the source checkout's build folder"


def _candidates():
    env = os.environ.get("KSAMPLE_LIBRARY")
    if env:
        yield env, "$KSAMPLE_LIBRARY"
        return
    if LIBRARY:
        yield LIBRARY, "recorded when the package was installed (%s)" % (
            LIBRARY_FOUND or "found then")
    checkout = Path(__file__).resolve().parent.parent.parent / "build" / SONAME
    if checkout.exists():
        yield str(checkout), "the source checkout's build"
    yield SONAME, "the dynamic loader's search path"


# Never unloaded: at interpreter exit the lib object may be collected before
# the last Profile or Plan, whose destructors (ks_profile_free, ...) must still
# find the library's code mapped.
_FLAGS = ffi.RTLD_NOW | getattr(ffi, "RTLD_NODELETE", 0)


def _load():
    tried = []
    for path, why in _candidates():
        try:
            lib = ffi.dlopen(path, _FLAGS)
        except OSError as e:
            tried.append("%s (%s): %s" % (path, why, e))
            continue
        version = ffi.string(lib.ks_version()).decode()
        if version != HEADER_VERSION:
            raise ImportError("ksample: %s is version %s, but this package was made from "
                              "ksample.h %s: reinstall the package (pip install ./python) "
                              "or point KSAMPLE_LIBRARY at a %s build"
                              % (path, version, HEADER_VERSION, HEADER_VERSION))
        return lib, path, why
    raise ImportError("ksample: cannot load %s; tried:\n  %s\nBuild it (make build) or "
                      "install it (cmake --install build), then set KSAMPLE_LIBRARY or "
                      "reinstall the package" % (SONAME, "\n  ".join(tried)))


lib, LIBRARY_PATH, LIBRARY_SOURCE = _load()

if LIBRARY and LIBRARY_PATH == LIBRARY and LIBRARY_FOUND == BUILD_TREE:
    # pip install ./python found no installed library (pkg-config) and took
    # the checkout's build/: say so, since rebuilding or removing that folder
    # changes or breaks this package
    import warnings

    # (warn_explicit: no line of this file quoted under the message;
    # filterable as any UserWarning of module "ksample")
    warnings.warn_explicit("bound to %s, a build folder (no installed libksample seen by "
                           "pkg-config when the package was installed); install the library "
                           "(cmake --install build --prefix P) and reinstall with "
                           "PKG_CONFIG_PATH=P/lib/pkgconfig, or set KSAMPLE_LIBRARY" % LIBRARY,
                           UserWarning, "ksample", 0, module="ksample")

# status names from the header's enum: KS_ERR_USAGE -> "usage", ...
_STATUS = {value: name[len("KS_ERR_"):].lower() if name.startswith("KS_ERR_") else "ok"
           for value, name in ffi.typeof("ks_status").elements.items()}


class Error(Exception):
    """An error the library reported, with what it said.

    status: "usage", "io", "format", "nomem" or "internal" (code: the number,
    which is also the command line's exit code); file and line where the
    library names them ("" / 0 otherwise); message: its text.  str() is the
    command line's "file:line: message".
    """

    def __init__(self, code, file, line, column, message, text):
        super().__init__(text)
        self.code = code
        self.status = _STATUS.get(code, str(code))
        self.file = file
        self.line = line
        self.column = column
        self.message = message


def new_error():
    return ffi.new("ks_error *")


def error_from(err):
    buf = ffi.new("char[]", 2200)
    lib.ks_error_format(err, buf, len(buf))
    return Error(int(err.status), os.fsdecode(ffi.string(err.file)), int(err.line),
                 int(err.column), ffi.string(err.message).decode("utf-8", "replace"),
                 ffi.string(buf).decode("utf-8", "replace"))


def check(status, err):
    """Raises the library's error when status is not KS_OK."""
    if status != lib.KS_OK:
        if err.status == lib.KS_OK:  # a status without a message: say which
            err.status = status
            err.message = b"failed"
        raise error_from(err)


def require(value, cls, what):
    """value itself when it is a cls; a TypeError naming the argument
    otherwise (not an AttributeError from deep inside the package)."""
    if not isinstance(value, cls):
        raise TypeError("%s: a ksample.%s, got %s" % (what, cls.__name__, type(value).__name__))
    return value


def as_float(value, what):
    """float(value), or a TypeError naming the argument."""
    if isinstance(value, (bool, str, bytes)) or value is None:
        raise TypeError("%s: a number, got %r" % (what, value))
    try:
        return float(value)
    except (TypeError, ValueError):
        raise TypeError("%s: a number, got %r" % (what, value)) from None


def as_floats(values, what):
    """values as a float64 numpy array, or a TypeError naming the argument
    (a string, None or an object that holds no numbers)."""
    import numpy as np

    if isinstance(values, (str, bytes)) or values is None:
        raise TypeError("%s: numbers, got %s" % (what, type(values).__name__))
    try:
        return np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise TypeError("%s: numbers (%s)" % (what, e)) from None


def usage_error(text):
    """An Error of status "usage" raised by the package itself (the messages
    the command line writes in cli/ rather than the library)."""
    return Error(int(lib.KS_ERR_USAGE), "", 0, 0, text, text)


def text(cdata):
    """A C string as str ("" for NULL); bytes that are not UTF-8 become U+FFFD,
    as the library writes them in JSON."""
    return "" if cdata == ffi.NULL else ffi.string(cdata).decode("utf-8", "replace")


def c_bytes(value, what):
    """bytes for a C string, refusing a NUL byte: C would end the string
    there and read another path or name than the one given."""
    data = value if isinstance(value, bytes) else str(value).encode()
    if b"\0" in data:
        raise usage_error("%s %r holds a NUL byte" % (what, value))
    return data


def path_bytes(path, what="path"):
    data = os.fsencode(os.fspath(path))
    if b"\0" in data:
        raise usage_error("%s %r holds a NUL byte" % (what, os.fspath(path)))
    return data


def check_output(output, inputs):
    """The command line's check before writing (ks_path_check_output): the
    output is none of the inputs, lies inside no input folder or behind a
    link of one, and holds none."""
    if output is None:
        return
    keep = [ffi.new("char[]", path_bytes(i)) for i in inputs if i]
    array = ffi.new("const char *[]", keep) if keep else ffi.NULL
    err = new_error()
    check(lib.ks_path_check_output(path_bytes(output), array, len(keep), err), err)
