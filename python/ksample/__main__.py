"""python3 -m ksample: which library this package is bound to, and why
(pip install ./python records one; see ksample/_native.py)."""

import ksample
from ksample import _native

print("ksample %s (package %s)" % (ksample.__version__, ksample.__file__))
print("library: %s" % _native.LIBRARY_PATH)
print("found: %s" % _native.LIBRARY_SOURCE)
