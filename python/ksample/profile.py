"""Profiles: ksample.read() and the Profile it returns."""

import math
import os
from dataclasses import dataclass

import numpy as np

from . import _params
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

    @property
    def selection(self):
        """The selection the launches were read with (read(select=...)), ""
        when none."""
        return text(self._p.selection)

    @property
    def launch_ids(self):
        """Each launch's id in the program (its place among the file's
        launches): uint64, a view of the library's memory when the profile
        is a selection, else 0..n-1."""
        if self._p.launch_id == ffi.NULL:
            return np.arange(len(self), dtype=np.uint64)
        return view(self._p, self._p.launch_id, len(self), np.uint64)

    @property
    def comm(self):
        """The communication kernels, as `ksample info` reports them: a
        CommSummary (launches 0 when there are none).  comm_summary() takes
        more patterns, as --comm-pattern."""
        return self.comm_summary()

    def comm_summary(self, comm_patterns=()):
        """The CommSummary with comm_patterns (substrings, or '*' patterns
        over the whole name, ignoring case) beside the built-in list."""
        array, keep, count = _patterns(comm_patterns)
        c = ffi.new("ks_comm_summary *")
        err = new_error()
        check(lib.ks_comm_summarise(self._p, array, count, c, err), err)
        try:
            return comm_summary_of(c)
        finally:
            lib.ks_comm_summary_free(c)

    def kernel_names(self):
        """Each launch's kernel name (a new object array)."""
        return np.array(self.names, dtype=object)[self.name_ids]

    def grid(self):
        """Each launch's grid (x, y, z) as an n x 3 array (a copy), or None."""
        return None if self.dims is None else self.dims[self.dims_ids, :3]

    def block(self):
        """Each launch's block (x, y, z) as an n x 3 array (a copy), or None."""
        return None if self.dims is None else self.dims[self.dims_ids, 3:]

    def groups(self, key=None, shape_share=0.0):
        """Launches grouped by a key ("name", "name-notemplate",
        "name+grid+block", "name+shape"; default "name") as the methods group
        them: (group_of: uint32 array over the library's memory, labels: list,
        sizes: array), groups numbered by first appearance.  shape_share:
        name+shape's (--shape-share; a plan's is plan.params["shape_share"];
        0, the default here: every shape its own groups)."""
        err = new_error()
        k = ffi.new("ks_key *")
        check(lib.ks_key_parse(c_bytes(key or "name", "key"), k, err), err)
        g = ffi.new("ks_groups *")
        check(lib.ks_groups_build_shapes(self._p, k[0], _params.shape_share(shape_share), g,
                                         err), err)
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


def read(path, *, format=None, device=None, name_kind=None, metrics=None, bbv=None,
         traces=None, nvtx=None, select=None):
    """Reads a profile as `ksample info PATH` and `ksample sample PATH` do:
    the format is detected from the content (format= forces one, see
    ksample.formats()); gzip, xz and zstd are decompressed.  device: keep
    one GPU's kernels; name_kind: nsys SQLite "demangled", "short" or
    "mangled"; metrics (Nsight Compute CSV), bbv (Photon bbv.csv) and traces
    (Accel-Sim trace folder) are joined launch by launch, as --metrics, --bbv
    and --traces do; nvtx: the NVTX ranges of nsys's nvtx_gpu_proj_trace CSV
    report (--nvtx).

    select: the part of the run to plan on, as the command's --step,
    --range, --time-window and --launches give it, in the selection
    language `eval --truth-select` takes and a plan records (docs/llm.md):
    items joined by ';', all of which a launch must meet -- "step=A" or
    "step=A-B" (ProfilerStep#A to #B), "range=NAME" (an annotation or NVTX
    range; "NAME*" a prefix; repeated: inside any), "time=A-B" (ns after the
    first launch), "launches=A-B" (launch ids).  `--step 552 --range
    '## forward ##'` is select="step=552;range=## forward ##".  Launch ids
    stay the program's (Profile.launch_ids, and the ids of plans drawn on
    it).  The start times stay (what the communication summary's overlap
    needs, as the command reads them).  Raises ksample.Error with the file
    and line of what is wrong."""
    opt = ffi.new("ks_read_options *")
    lib.ks_read_options_init(opt)
    opt.keep_start = True
    keep = []
    if format is not None:
        keep.append(ffi.new("char[]", c_bytes(format, "format")))
        opt.format = keep[-1]
    if device is not None:
        opt.device = int(device)
    if name_kind is not None:
        keep.append(ffi.new("char[]", c_bytes(name_kind, "name_kind")))
        opt.name_kind = keep[-1]
    if select is not None:
        if not isinstance(select, str):
            raise TypeError("select: a selection such as \"step=5;range=## forward ##\", got %s"
                            % type(select).__name__)
        keep.append(ffi.new("char[]", c_bytes(select, "select")))
        opt.select = keep[-1]
    given = {"metrics": metrics, "bbv": bbv, "traces": traces, "nvtx": nvtx}
    src = ffi.new("ks_read_sources *")
    for name, value in given.items():
        if value is not None:
            keep.append(ffi.new("char[]", path_bytes(value, name)))
            setattr(src, name, keep[-1])
    err = new_error()
    out = ffi.new("ks_profile **")
    check(lib.ks_profile_read_sources(path_bytes(path), opt, src, out, err), err)
    pointer = ffi.gc(out[0], lib.ks_profile_free)
    return Profile(pointer, [os.fspath(path)] + [os.fspath(v) for v in given.values() if v])


@dataclass(frozen=True)
class CommSummary:
    """The communication kernels of a profile (NCCL, RCCL, NVSHMEM, the
    serving frameworks' all-reduce, and the patterns given), as `ksample
    info` prints them: launches, their time (ns), the profile's kernel time
    (total_ns), their share of it, the part of their time during which
    kernels on other streams ran (overlap_ns; None without start times), and
    kernels: (name, launches, ns) by time, largest first."""

    launches: int
    time_ns: float
    total_ns: float
    share: float
    overlap_ns: object
    kernels: tuple


def _patterns(comm_patterns):
    """(array for the library, what keeps its strings alive, count)."""
    if isinstance(comm_patterns, (str, bytes)):
        comm_patterns = [comm_patterns]
    keep = [ffi.new("char[]", c_bytes(p, "comm_patterns")) for p in comm_patterns]
    array = ffi.new("const char *[]", keep) if keep else ffi.NULL
    return array, keep, len(keep)


def comm_summary_of(c):
    """A CommSummary from a ks_comm_summary."""
    kernels = tuple((text(c.names[k]), int(c.name_launches[k]), c.name_ns[k])
                    for k in range(c.name_count))
    return CommSummary(int(c.launches), c.time_ns, c.total_ns,
                       c.time_ns / c.total_ns if c.total_ns > 0 else 0.0,
                       None if math.isnan(c.overlap_ns) else c.overlap_ns, kernels)


def formats():
    """The input formats this library reads (for read(format=...))."""
    names = lib.ks_reader_names()
    out, i = [], 0
    while names[i] != ffi.NULL:
        out.append(text(names[i]))
        i += 1
    return out
