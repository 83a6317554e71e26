"""Profiles: ksample.read() and the Profile it returns."""

import os

import numpy as np

from ._native import c_bytes, check, ffi, lib, new_error, path_bytes, text
from ._views import view


class Profile:
    """Kernel launches in launch order (id 0..n-1), as the library read them.

    The columns are numpy arrays over the library's own memory (no copy,
    read-only): durations (int64 ns), name_ids (uint32, into names), metrics
    ({column: float64 array, NaN where the input had no value}), and, when
    the input gave launch dimensions, dims_ids (uint32, into dims: one row
    (grid x, y, z, block x, y, z) per distinct pair).  names is a list of the
    interned kernel names.
    """

    def __init__(self, pointer, files=()):
        self._p = pointer  # freed with ks_profile_free once nothing views it
        self._files = [f for f in files if f]  # the input and its second sources
        p = pointer
        n = int(p.n)
        self.durations = view(pointer, p.duration_ns, n, np.int64)
        self.name_ids = view(pointer, p.name_id, n, np.uint32)
        self.names = [text(p.names[i]) for i in range(p.name_count)]
        self.metrics = {}
        self.metric_units = {}
        for i in range(p.metric_count):
            col = p.metrics[i]
            name = text(col.name)
            self.metrics[name] = view(pointer, col.values, n, np.float64)
            self.metric_units[name] = text(col.unit) or None
        if p.dims_id != ffi.NULL:
            self.dims_ids = view(pointer, p.dims_id, n, np.uint32)
            self.dims = view(pointer, p.dims, 6 * int(p.dims_count), np.uint32).reshape(-1, 6)
        else:
            self.dims_ids = self.dims = None

    def __len__(self):
        return int(self._p.n)

    @property
    def source_path(self):
        return os.fsdecode(ffi.string(self._p.source_path))

    @property
    def source_format(self):
        return text(self._p.source_format)

    @property
    def source_xxh128(self):
        """XXH3-128 of the input file's bytes, as xxh128sum prints it."""
        return text(self._p.source_xxh128)

    @property
    def device_name(self):
        return text(self._p.device_name)

    @property
    def duration_source(self):
        return text(self._p.duration_source)

    @property
    def total_ns(self):
        return lib.ks_profile_total_ns(self._p)

    def kernel_names(self):
        """Each launch's kernel name (a new object array)."""
        return np.array(self.names, dtype=object)[self.name_ids]

    def grid(self):
        """Each launch's grid (x, y, z) as an n x 3 array (a copy), or None."""
        return None if self.dims is None else self.dims[self.dims_ids, :3]

    def block(self):
        """Each launch's block (x, y, z) as an n x 3 array (a copy), or None."""
        return None if self.dims is None else self.dims[self.dims_ids, 3:]

    def groups(self, key=None):
        """Launches grouped by a key ("name", "name-notemplate",
        "name+grid+block"; default "name") as the methods group them:
        (group_of: uint32 array over the library's memory, labels: list,
        sizes: array), groups numbered by first appearance."""
        err = new_error()
        k = ffi.new("ks_key *")
        check(lib.ks_key_parse(c_bytes(key or "name", "key"), k, err), err)
        g = ffi.new("ks_groups *")
        check(lib.ks_groups_build(self._p, k[0], g, err), err)
        owner = ffi.gc(g, lib.ks_groups_free)
        labels = [text(g.labels[i]) for i in range(g.count)]
        sizes = view(owner, g.size, int(g.count), np.dtype("=u%d" % ffi.sizeof("size_t")))
        return view(owner, g.group_of, len(self), np.uint32), labels, sizes

    def to_pandas(self):
        """A DataFrame: duration_ns, name (categorical), and the metric
        columns (pandas copies what it is given)."""
        import pandas as pd

        data = {"duration_ns": self.durations,
                "name": pd.Categorical.from_codes(self.name_ids.astype(np.int64), self.names)}
        data.update(self.metrics)
        return pd.DataFrame(data)

    def __repr__(self):
        return "<ksample.Profile: %d launches of %d kernels, %.6g ms of GPU time, %s (%s)>" % (
            len(self), len(self.names), self.total_ns / 1e6, self.source_path,
            self.source_format)


_SOURCES = (("metrics", lib.KS_SOURCE_METRICS), ("bbv", lib.KS_SOURCE_BBV),
            ("traces", lib.KS_SOURCE_TRACES))


def read(path, *, format=None, device=None, name_kind=None, metrics=None, bbv=None,
         traces=None):
    """Reads a profile as `ksample info PATH` does: the format is detected
    from the content (format= forces one, see ksample.formats()); gzip, xz
    and zstd are decompressed.  device: keep one GPU's kernels; name_kind:
    nsys SQLite "demangled", "short" or "mangled"; metrics (Nsight Compute
    CSV), bbv (Photon bbv.csv) and traces (Accel-Sim trace folder) are joined
    launch by launch, as --metrics, --bbv and --traces do.  Raises
    ksample.Error with the file and line of what is wrong."""
    opt = ffi.new("ks_read_options *")
    lib.ks_read_options_init(opt)
    keep = []
    if format is not None:
        keep.append(ffi.new("char[]", c_bytes(format, "format")))
        opt.format = keep[-1]
    if device is not None:
        opt.device = int(device)
    if name_kind is not None:
        keep.append(ffi.new("char[]", c_bytes(name_kind, "name_kind")))
        opt.name_kind = keep[-1]
    err = new_error()
    out = ffi.new("ks_profile **")
    check(lib.ks_profile_read(path_bytes(path), opt, out, err), err)
    pointer = ffi.gc(out[0], lib.ks_profile_free)
    given = {"metrics": metrics, "bbv": bbv, "traces": traces}
    for name, source in _SOURCES:
        if given[name] is not None:
            check(lib.ks_profile_attach(pointer, source, path_bytes(given[name], name), err),
                  err)
    return Profile(pointer, [os.fspath(path)] + [os.fspath(v) for v in given.values() if v])


def formats():
    """The input formats this library reads (for read(format=...))."""
    names = lib.ks_reader_names()
    out, i = [], 0
    while names[i] != ffi.NULL:
        out.append(text(names[i]))
        i += 1
    return out
