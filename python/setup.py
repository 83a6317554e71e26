"""Builds the pure-Python package: ksample/_ffi.py from ksample.h (cffi,
ksample_build.py) and ksample/_config.py, which records the header's version
and the shared library found now (see ksample_build.find_library)."""

import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ksample_build  # noqa: E402

HEADER = ksample_build.find_header()
VERSION = ksample_build.header_version(HEADER)


class BuildPy(build_py):
    def run(self):
        super().run()
        library, found = ksample_build.find_library(VERSION)
        target = Path(self.build_lib) / "ksample" / "_config.py"
        target.write_text("# written by python/setup.py when the package was built\n"
                          "HEADER_VERSION = %r\nLIBRARY = %r\nLIBRARY_FOUND = %r\n"
                          % (VERSION, library, found))
        # pip shows this with -v only: `python3 -m ksample` says it after
        # installing, and importing warns when it is a build folder
        print("ksample: header %s; bound to the library %s (%s)"
              % (HEADER, library or "(by soname at import)", found), file=sys.stderr)


setup(version=VERSION, cffi_modules=["ksample_build.py:ffibuilder"],
      cmdclass={"build_py": BuildPy})
