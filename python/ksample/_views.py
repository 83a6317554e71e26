"""numpy arrays over the library's memory, without a copy.

An array made here has as its base a small object that holds the owner of the
memory (a cffi pointer whose collection frees the profile or plan), so the
memory lives as long as any array viewing it, whatever happens to the Profile
or Plan object.  The arrays are read-only: the library's data is not changed
behind its back.
"""

import numpy as np

from ._native import ffi


class _Memory:
    """What numpy sees: the __array_interface__ of a block of the library's
    memory, and the owner that keeps it alive."""

    __slots__ = ("__array_interface__", "owner")


def view(owner, pointer, count, dtype):
    """count items of dtype at pointer, owned by owner, as a read-only array."""
    dtype = np.dtype(dtype)
    if count == 0 or pointer == ffi.NULL:
        a = np.empty(0, dtype)
        a.flags.writeable = False
        return a
    m = _Memory()
    m.owner = owner
    m.__array_interface__ = {
        "version": 3,
        "shape": (count * dtype.itemsize,),
        "typestr": "|u1",
        "data": (int(ffi.cast("uintptr_t", pointer)), True),
    }
    raw = np.asarray(m)
    return raw.view(dtype) if dtype != raw.dtype else raw


def struct_dtype(ctype, fields):
    """A numpy dtype laid out as the C struct ctype (offsets and size from the
    header's declaration); fields: (name, numpy type) of the members shown."""
    return np.dtype({
        "names": [name for name, _ in fields],
        "formats": [np.dtype(t) for _, t in fields],
        "offsets": [ffi.offsetof(ctype, name) for name, _ in fields],
        "itemsize": ffi.sizeof(ctype),
    })


def address(array):
    """Where an array's data starts (for tests and for checking no copy)."""
    return array.__array_interface__["data"][0]
