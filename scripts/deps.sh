#!/bin/sh
# Installs the Debian 12 packages ksample builds with, when any is missing.
# Run as root (or with sudo available).  The same list by hand:
#   apt-get install -y cmake make gcc pkg-config zlib1g-dev liblzma-dev \
#     libzstd-dev libyajl-dev libsqlite3-dev libxxhash-dev libcmocka-dev sqlite3 xz-utils zstd \
#     clang libclang-rt-14-dev liblapacke-dev libopenblas-dev \
#     python3-cffi python3-numpy python3-pytest python3-pip python3-venv python3-pandas \
#     python3-matplotlib
# (the python3-* ones: the Python package, its tests and examples/plot_strata.py)
set -e
PKGS="cmake make gcc pkg-config zlib1g-dev liblzma-dev libzstd-dev libyajl-dev libsqlite3-dev libxxhash-dev libcmocka-dev sqlite3 xz-utils zstd gzip xxhash clang libclang-rt-14-dev liblapacke-dev libopenblas-dev python3-cffi python3-numpy python3-pytest python3-pip python3-venv python3-pandas python3-matplotlib"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "ksample: installing Debian packages:$missing" >&2
SUDO=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
    echo "ksample: missing packages:$missing; run as root: apt-get install -y$missing" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq $missing >/dev/null
