#!/bin/sh
# pick-python.sh - prints the Python interpreter that has the modules named
# (default: cffi numpy), or prints why none has and fails.  $KSAMPLE_PYTHON
# when set; else Debian's /usr/bin/python3 (the one that sees the python3-*
# packages scripts/deps.sh installs); else python3 on the PATH.  On a fresh
# Debian 12 the two are the same; where python3 on the PATH is a pyenv or
# conda interpreter it does not see Debian's packages.
# usage: PY=$(sh scripts/pick-python.sh [module...]) || { echo "$PY"; ...; }
mods=${*:-cffi numpy}
why=""
for py in ${KSAMPLE_PYTHON:-/usr/bin/python3 python3}; do
    command -v "$py" >/dev/null 2>&1 || { why="$why; $py: not found"; continue; }
    missing=""
    for m in $mods; do
        "$py" -c "import $m" 2>/dev/null || missing="$missing $m"
    done
    if [ -z "$missing" ]; then
        command -v "$py"
        exit 0
    fi
    why="$why; $(command -v "$py") lacks$missing"
done
echo "no Python interpreter with $mods${why} (Debian: apt-get install python3-cffi python3-numpy python3-pytest)"
exit 1
