"""cffi's out-of-line ABI mode: at build time, the declarations of ksample.h
(read by ksample/_header.py) become the module ksample._ffi, so importing the
package parses nothing and needs no compiler.  Used by setup.py
(cffi_modules); find_header() and find_library() are setup.py's too."""

import importlib.util
import os
import re
import subprocess
from pathlib import Path

import cffi

HERE = Path(__file__).resolve().parent


def _pkg_config(variable):
    try:
        out = subprocess.run(["pkg-config", "--variable=" + variable, "ksample"],
                             capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return out.stdout.strip() or None


def find_header():
    """$KSAMPLE_HEADER; else this repository's lib/ksample.h; else the
    installed one (pkg-config's includedir)."""
    if os.environ.get("KSAMPLE_HEADER"):
        return Path(os.environ["KSAMPLE_HEADER"])
    repo = HERE.parent / "lib" / "ksample.h"
    if repo.exists():
        return repo
    includedir = _pkg_config("includedir")
    if includedir and (Path(includedir) / "ksample.h").exists():
        return Path(includedir) / "ksample.h"
    raise SystemExit("ksample: cannot find ksample.h: set KSAMPLE_HEADER, or install the "
                     "library (cmake --install build) where pkg-config sees it")


def header_version(header):
    m = re.search(r'^#define KS_VERSION "([^"]+)"', header.read_text(), re.M)
    return m.group(1)


# how the library was found, as ksample/_native.py names it
BUILD_TREE = "the source checkout's build folder"


def find_library(version):
    """The shared library the package will load (recorded in
    ksample/_config.py) and how it was found: $KSAMPLE_LIBRARY; else an
    installed one that pkg-config knows; else this repository's build/; else
    None (the dynamic loader's search path at import)."""
    soname = "libksample.so." + ".".join(version.split(".")[:2])
    if os.environ.get("KSAMPLE_LIBRARY"):
        return os.path.abspath(os.environ["KSAMPLE_LIBRARY"]), "$KSAMPLE_LIBRARY"
    libdir = _pkg_config("libdir")
    if libdir and (Path(libdir) / soname).exists():
        return str(Path(libdir) / soname), "pkg-config"
    built = HERE.parent / "build" / soname
    if built.exists():
        return str(built), BUILD_TREE
    return None, "the dynamic loader's search path at import"


def _header_module():
    spec = importlib.util.spec_from_file_location("_ksample_header",
                                                  HERE / "ksample" / "_header.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ffibuilder = cffi.FFI()
ffibuilder.cdef(_header_module().cdef_source(find_header().read_text())[0])
ffibuilder.set_source("ksample._ffi", None)

if __name__ == "__main__":
    ffibuilder.compile(verbose=True)
