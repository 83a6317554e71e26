#!/bin/sh
# python.sh - the Python package's tests (python/tests, pytest) against this
# build's shared library and command, with the interpreter
# scripts/pick-python.sh picks (named in the output).  Skips (77) when no
# interpreter has cffi, numpy and pytest.
# usage: tests/python.sh BUILD_DIR SOURCE_ROOT
B=$1
ROOT=$(cd "$2" && pwd)
if ! PY=$(sh "$ROOT/scripts/pick-python.sh" cffi numpy pytest); then
    echo "SKIP: $PY"
    exit 77
fi
VERSION=$(sed -n 's/^#define KS_VERSION "\(.*\)"/\1/p' "$ROOT/lib/ksample.h")
echo "python: $PY ($("$PY" --version 2>&1))"
# the package from the source tree, over this build's library and command;
# nothing written into the tree (no __pycache__, no .pytest_cache)
KSAMPLE_LIBRARY="$(cd "$B" && pwd)/libksample.so.${VERSION%.*}" \
KSAMPLE_CLI="$(cd "$B" && pwd)/ksample" \
PYTHONPATH="$ROOT/python" PYTHONDONTWRITEBYTECODE=1 \
    exec "$PY" -m pytest -q -p no:cacheprovider "$ROOT/python/tests"
