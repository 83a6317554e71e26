#!/bin/sh
# python_install.sh - the README's way in, from scratch: cmake --install into
# a temporary prefix, a virtual environment over the interpreter that has
# Debian's python3-cffi and python3-numpy (--system-site-packages), pip
# install --no-build-isolation --no-index of the package (offline: it finds
# the installed library through pkg-config and records it), then the README's
# one-liner run as `python3` from the repository's root: it prints the
# summary `ksample sample` prints.  pip builds in the folder it is given, so it
# is given a copy of python/ (and lib/ksample.h beside it, where setup.py
# looks), and nothing is written into the repository.
# usage: tests/python_install.sh BUILD_DIR SOURCE_ROOT
KS=python_install
B=$1
ROOT=$(cd "$2" && pwd)
. "$(dirname "$0")/lib.sh"
if ! PY=$(sh "$ROOT/scripts/pick-python.sh" cffi numpy); then
    echo "SKIP: $PY"
    exit 77
fi
if ! "$PY" -c "import ensurepip, setuptools" 2>/dev/null; then
    echo "SKIP: $PY cannot make a virtual environment with pip and setuptools (Debian: python3-venv python3-setuptools)"
    exit 77
fi
echo "python: $PY ($("$PY" --version 2>&1))"
unset KSAMPLE_LIBRARY KSAMPLE_HEADER PYTHONPATH
VERSION=$(sed -n 's/^#define KS_VERSION "\(.*\)"/\1/p' "$ROOT/lib/ksample.h")
expect 0 cmake --install "$B" --prefix "$T/prefix"
PC=$(dirname "$(find "$T/prefix" -name ksample.pc | head -1)")
LIB="$(dirname "$PC")/libksample.so.${VERSION%.*}"
expect 0 "$PY" -m venv --system-site-packages "$T/venv"
mkdir -p "$T/src/lib"
cp -r "$ROOT/python" "$T/src/python"
rm -rf "$T/src/python/build" "$T/src/python"/*.egg-info
cp "$ROOT/lib/ksample.h" "$T/src/lib/"
expect 0 env PKG_CONFIG_PATH="$PC" "$T/venv/bin/pip" install --no-build-isolation --no-index "$T/src/python"
grep -q "^LIBRARY = '$LIB'" "$T"/venv/lib/python3*/site-packages/ksample/_config.py ||
    bad "the package did not record $LIB: $(cat "$T"/venv/lib/python3*/site-packages/ksample/_config.py)"
rm -rf "$T/src" # the installed package stands alone
cd "$ROOT" || exit 1
# the package plans as the command does (NCCL left out: ks_profile_leave_out_comm);
# its summary is the command's summary line (beside the command's notes)
expect 0 "$T/prefix/bin/ksample" sample examples/casio-like-50k.csv.xz -o "$T/cli.json"
line=$(sed -n 's/^ksample: \(root: .*\)/\1/p' "$T/err")
expect 0 env PATH="$T/venv/bin:$PATH" python3 -c "import ksample; print(ksample.sample(ksample.read('examples/casio-like-50k.csv.xz')))"
[ "$(cat "$T/out")" = "$line" ] || bad "python3 printed '$(cat "$T/out")', wanted '$line'"
expect 0 env PATH="$T/venv/bin:$PATH" python3 -c "import ksample; print(ksample.__file__); print(ksample.LIBRARY_PATH)"
grep -q "^$T/venv/lib/python3.*/site-packages/ksample/__init__.py$" "$T/out" || bad "imported $(head -1 "$T/out")"
grep -qx "$LIB" "$T/out" || bad "loaded $(tail -1 "$T/out")"
expect 0 env PATH="$T/venv/bin:$PATH" python3 -c "import ksample; ksample.sample(ksample.read('examples/casio-like-50k.csv.xz')).to_json('$T/py.json')"
cmp -s "$T/cli.json" "$T/py.json" || bad "the installed package's plan differs from the installed command's"
# python3 -m ksample says which library the package is bound to, and how
expect 0 env PATH="$T/venv/bin:$PATH" python3 -m ksample
grep -qx "library: $LIB" "$T/out" || bad "python3 -m ksample: $(cat "$T/out")"
grep -q "^found: .*pkg-config" "$T/out" || bad "python3 -m ksample: $(cat "$T/out")"
# without an installed library pkg-config sees (another prefix), pip takes
# the checkout's build/: importing says so (issue 34), naming the library
mkdir -p "$T/src2/lib" "$T/src2/build"
cp -r "$ROOT/python" "$T/src2/python"
rm -rf "$T/src2/python/build" "$T/src2/python"/*.egg-info
cp "$ROOT/lib/ksample.h" "$T/src2/lib/"
cp "$LIB" "$T/src2/build/"
expect 0 "$PY" -m venv --system-site-packages "$T/venv2"
expect 0 env PKG_CONFIG_PATH=/nonexistent "$T/venv2/bin/pip" install --no-build-isolation --no-index "$T/src2/python"
expect 0 env PATH="$T/venv2/bin:$PATH" python3 -c "import ksample"
grep -q "bound to $T/src2/build/libksample.so.${VERSION%.*}, a build folder" "$T/err" || bad "no word of the build folder: $(cat "$T/err")"
summary
