"""Methods and their parameters, read from the library's tables (ks_methods()
and each method's ks_param_def rows): the same rows that make the command
line's options, its --help, the validation and the plan's "params".  Nothing
here lists a method or a parameter."""

import numbers

from ._native import as_float, c_bytes, check, ffi, lib, new_error, text, usage_error

_TYPES = {int(lib.KS_PARAM_BOOL): "bool", int(lib.KS_PARAM_UINT): "uint",
          int(lib.KS_PARAM_REAL): "real", int(lib.KS_PARAM_CHOICE): "choice"}
_NEEDS = {name[len("KS_NEED_"):].lower(): int(getattr(lib, name))
          for name in dir(lib) if name.startswith("KS_NEED_")}


def _method_pointers():
    table = lib.ks_methods()
    i = 0
    while table[i] != ffi.NULL:
        yield table[i]
        i += 1


def _param(d):
    choices = []
    if d.type == lib.KS_PARAM_CHOICE:
        i = 0
        while d.choices[i] != ffi.NULL:
            choices.append(text(d.choices[i]))
            i += 1
    kind = _TYPES[int(d.type)]
    default = getattr(d, "def")
    return {
        "name": text(d.name),
        "keyword": text(d.name).replace("-", "_"),
        "type": kind,
        "min": d.min if kind in ("uint", "real") else None,
        "max": d.max if kind in ("uint", "real") else None,
        "default": (choices[int(default)] if kind == "choice" else bool(default)
                    if kind == "bool" else int(default) if kind == "uint" else default),
        "choices": choices or None,
        "arg": text(d.arg) or None,
        "help": text(d.help),
    }


def param_rows(defs, count):
    return [_param(defs[i]) for i in range(count)]


def methods():
    """Every method of the library, in its table's order (the first is the
    default): name, summary, default_key, needs (what inputs it needs) and
    params (each parameter's name, keyword, type, range, default, choices,
    help)."""
    out = []
    for m in _method_pointers():
        out.append({
            "name": text(m.name),
            "summary": text(m.summary),
            "default_key": text(lib.ks_key_to_string(m.default_key)),
            "needs": [n for n, bit in _NEEDS.items() if m.needs & bit],
            "params": param_rows(m.params, m.param_count),
        })
    return out


def method_names():
    return [text(m.name) for m in _method_pointers()]


def find_method(name):
    """The library's ks_method row named name, or the command line's error."""
    m = lib.ks_method_find(c_bytes(name, "method")) if isinstance(name, str) else ffi.NULL
    if m == ffi.NULL:
        names = method_names()
        names[0] += " (default)"
        raise usage_error("unknown method %r (%s)" % (name, ", ".join(names)))
    return m


def all_params():
    """Every distinct parameter name of every method -> its row."""
    out = {}
    for m in _method_pointers():
        for i in range(m.param_count):
            out.setdefault(text(m.params[i].name), _param(m.params[i]))
    return out


def value_text(row, value):
    """A Python value as the text the command line would pass."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        value = float(value)
        if row and row["type"] == "uint" and value.is_integer():
            return str(int(value))
        return repr(value)
    if isinstance(value, str):
        return value
    raise TypeError("parameter %s: %r is not a bool, number or string"
                    % (row["name"] if row else "?", value))


def shape_share(value):
    """key name+shape's shape share (--shape-share) checked: a number in [0, 1]."""
    share = as_float(value, "shape_share")
    if not 0 <= share <= 1:
        raise usage_error("shape_share must be a number in [0, 1], got %r" % (share,))
    return share


def make_params(method=None, epsilon=None, confidence=None, seed=None, key=None, strict=True,
                settings=None):
    """A ks_params from ks_params_init with what was given set; settings:
    {keyword or option name: value} of method parameters."""
    params = ffi.new("ks_params *")
    lib.ks_params_init(params)
    err = new_error()
    if method is not None:
        params.method = find_method(method).name  # the table's own string
    if epsilon is not None:
        params.epsilon = as_float(epsilon, "epsilon")
    if confidence is not None:
        params.confidence = as_float(confidence, "confidence")
    if seed is not None:
        if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
            raise usage_error("seed must be a non-negative integer, got %r" % (seed,))
        params.seed = int(seed)
    if key is not None:
        check(lib.ks_key_parse(c_bytes(key, "key"), ffi.addressof(params[0], "key"), err), err)
        params.key_given = 1
    params.strict = 1 if strict else 0
    settings = dict(settings or {})
    # key name+shape's share (--shape-share), a shared parameter, not a method's
    for name in ("shape_share", "shape-share"):
        if name in settings:
            params.shape_share = shape_share(settings.pop(name))
    rows = all_params()
    for keyword, value in settings.items():
        name = keyword.replace("_", "-")
        check(lib.ks_params_set(params, c_bytes(name, "parameter"),
                                c_bytes(value_text(rows.get(name), value), name), err), err)
    return params


def defaults():
    """What ks_params_init gives: the defaults of sample() and eval()."""
    p = ffi.new("ks_params *")
    lib.ks_params_init(p)
    return {"method": text(p.method), "epsilon": p.epsilon, "confidence": p.confidence,
            "seed": int(p.seed), "key": text(lib.ks_key_to_string(p.key))}
