#!/bin/sh
# Installs the Debian 12 packages ksample builds with, when any is missing.
# Run as root (or with sudo available).  The same list by hand:
#   apt-get install -y cmake make gcc pkg-config zlib1g-dev liblzma-dev \
#     libzstd-dev libyajl-dev libsqlite3-dev libxxhash-dev libcmocka-dev sqlite3 xz-utils zstd \
#     clang libclang-rt-14-dev liblapacke-dev libopenblas-dev \
#     python3-cffi python3-numpy python3-pytest python3-pip python3-venv python3-pandas \
#     python3-matplotlib
# (the python3-* ones: the Python package, its tests and examples/plot_strata.py)
#
# usage: scripts/deps.sh [--test]
#   --test  also the packages only some tests use (TEST_PKGS: a private Slurm
#           for tests/slurm.sh, Chromium for tests/report.sh), installed once,
#           up front, by `make test`: two tests installing at the same moment
#           made one lose the package lock and skip.  Best effort: a test
#           whose packages could not be installed skips.
set -e
PKGS="cmake make gcc pkg-config zlib1g-dev liblzma-dev libzstd-dev libyajl-dev libsqlite3-dev libxxhash-dev libcmocka-dev sqlite3 xz-utils zstd gzip xxhash clang libclang-rt-14-dev liblapacke-dev libopenblas-dev python3-cffi python3-numpy python3-pytest python3-pip python3-venv python3-pandas python3-matplotlib"
TEST_PKGS="slurm-wlm munge chromium"

# the packages of the list $1 that are not installed
missing_of() {
  for p in $1; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || printf ' %s' "$p"
  done
}

# apt-get install $1 as root or through sudo; apt waits for the package lock
# (another install, unattended upgrades) instead of failing at once
install_pkgs() {
  SUDO=""
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
      echo "ksample: missing packages:$1; run as root: apt-get install -y$1" >&2
      return 1
    fi
  fi
  export DEBIAN_FRONTEND=noninteractive
  if [ -z "${UPDATED:-}" ]; then
    $SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq || return 1
    UPDATED=1
  fi
  $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq $1 >/dev/null
}

missing=$(missing_of "$PKGS")
if [ -n "$missing" ]; then
  echo "ksample: installing Debian packages:$missing" >&2
  install_pkgs "$missing"
fi
if [ "${1:-}" = --test ]; then
  missing=$(missing_of "$TEST_PKGS")
  if [ -n "$missing" ]; then
    echo "ksample: installing the packages some tests use:$missing" >&2
    install_pkgs "$missing" ||
      echo "ksample: could not install$missing; the tests that need them will skip" >&2
  fi
fi
exit 0
