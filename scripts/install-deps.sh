#!/usr/bin/env bash
# Installs every Debian package fedbench needs, only when missing (idempotent); with --runtime
# only those that building, installing and running it need (no test-only packages).
# Run as root (CI and the dev machines are root); otherwise prefixes sudo when available.
set -euo pipefail

# What building, installing and running fedbench needs (`--runtime`: make demo, make install).
packages=(
  build-essential cmake pkg-config
  ccache                   # compiler cache: rebuilds of unchanged objects (Makefile, clang tree)
  help2man bash-completion # man page and shell completion of `make install`
  libeigen3-dev            # all numerics
  libcli11-dev             # command line
  libhdf5-dev              # trajectory files (C API, our own RAII wrapper)
  libyaml-cpp-dev          # suite files
  libopenmpi-dev openmpi-bin  # distributed grids (optional: without them suites run in one process)
  zlib1g-dev               # .gz data files
  libbz2-dev               # .bz2 data files
  nlohmann-json3-dev       # JSON output
  python3 python3-h5py python3-matplotlib python3-numpy  # plotting, HDF5 read-back
  pybind11-dev python3-pybind11  # Python solvers and the fedbench module (lib/python, docs/python.md)
)
# What only the tests, benchmarks and the paper experiments need (the default adds them).
test_packages=(
  libarmadillo-dev         # independent LAPACK-backed reference in tests
  doctest-dev              # unit tests
  libbenchmark-dev         # micro-benchmarks
  dataset-fashion-mnist    # Fashion-MNIST idx files under /usr/share/datasets
  python3-pandas python3-xarray python3-h5netcdf  # scripts/fedbench_read.py, netCDF view test
  python3-yaml             # scripts/mutants.py reads the mutant list
  chromium                 # renders the HTML report in tests/cli/report.sh
)
if [ "${1:-}" = "--runtime" ]; then
  shift
else
  packages+=("${test_packages[@]}")
fi
packages+=("$@")  # extra ones from the caller: clang's sanitizer builds (Makefile, test-asan)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "install-deps: missing ${missing[*]}; run this script as root to install them" >&2
    exit 1
  fi
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
