#!/usr/bin/env bash
# The install route of a user without root (docs/install.md), in a copy of the tree:
#   cmake -S . -B b -DFEDBENCH_TESTS=OFF && cmake --build b && cmake --install b --prefix ~/.local
# configured with doctest, Google Benchmark, Armadillo and MPI hidden from CMake (so that it
# needs only the runtime libraries; the same configure with the tests on must fail, or hiding
# them proves nothing), then, as that user from another directory with a fresh HOME: a shipped
# suite by name, a dataset fetched by name (from a file:// mirror of the test data: no network
# here) and the README's AUC example on it, and a quick paper experiment.
# Objects compile through ccache with the commands of the main build (same relative paths).
source "$(dirname "$0")/lib.bash"
src=$(cd "$(dirname "$0")/../.." && pwd)
data=${FEDBENCH_DATA:-$src/../shared/datasets}
data=$(cd "$data" && pwd)
tree=$scratch/tree
copy_tree "$src" "$tree"
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR=$tree CCACHE_NOHASHDIR=1
fi
hidden=(-DCMAKE_DISABLE_FIND_PACKAGE_doctest=ON -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON
        -DCMAKE_DISABLE_FIND_PACKAGE_Armadillo=ON -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON)

# The control: with the tests on, hiding their packages breaks the configure.
checks=$((checks + 1))
if cmake -S "$tree" -B "$scratch/control" -DFEDBENCH_TESTS=ON "${hidden[@]}" >"$scratch/control.log" 2>&1; then
  fail "configure with FEDBENCH_TESTS=ON succeeded with doctest, benchmark and Armadillo hidden"
fi

checks=$((checks + 1))
if ! cmake -S "$tree" -B "$tree/b" -DCMAKE_BUILD_TYPE=Release -DFEDBENCH_TESTS=OFF "${hidden[@]}" "${launcher[@]}" \
  >"$scratch/cmake.log" 2>&1; then
  fail "configure with FEDBENCH_TESTS=OFF and only the runtime packages"; tail -n 20 "$scratch/cmake.log"
  finish; exit
fi
checks=$((checks + 1))
grep -q "OpenMPI not found: fedbench runs suites in one process" "$scratch/cmake.log" ||
  fail "configure without MPI does not say that suites run in one process"
checks=$((checks + 1))
if ! cmake --build "$tree/b" -j "$(nproc)" >"$scratch/build.log" 2>&1; then
  fail "cmake --build of the runtime-only configuration"; grep -E -A5 'error|Error' "$scratch/build.log" | head -n 30
  finish; exit
fi
checks=$((checks + 1))
[ ! -e "$tree/b/bin/fedbench_tests" ] && [ ! -e "$tree/b/bin/fedbench_bench" ] ||
  fail "FEDBENCH_TESTS=OFF built test or benchmark programs"

home=$scratch/home
mkdir -p "$home" "$scratch/user/elsewhere"  # not beside the scratch shared/ link
checks=$((checks + 1))
HOME=$home cmake --install "$tree/b" --prefix "$home/.local" >"$scratch/install.log" 2>&1 ||
  { fail "cmake --install into ~/.local"; tail -n 20 "$scratch/install.log"; finish; exit; }

# As the user: the installed fedbench first on PATH, nothing of this checkout's environment.
as_user() {
  (cd "$scratch/user/elsewhere" && env -u FEDBENCH_DATA -u FEDBENCH_EXPERIMENTS -u FEDBENCH_SCRIPTS -u XDG_DATA_HOME \
    -u XDG_CACHE_HOME HOME="$home" PATH="$home/.local/bin:$PATH" "$@")
}
expect_ok "^$home/.local/bin/fedbench\$" as_user bash -c 'command -v fedbench'
expect_ok '^suite smoke: 20 runs' as_user fedbench run smoke --jobs 2
expect_ok "missing libsvm/heart_scale: fedbench data get heart" as_user fedbench data list
expect_ok "^got +$home/.local/share/fedbench/datasets/libsvm/heart_scale \\(270 rows, SHA-256 as registered\\)" \
  as_user fedbench data get heart --mirror "file://$data"
expect_ok 'train_auc' as_user bash -c 'fedbench run --problem auc -p dataset=heart -p clients=4 --solver sgda \
  -s step_size=0.1 --rounds 200 --target "train_auc>=0.85" -q -o auc.csv && head -n 1 auc.csv'
expect_ok '^[0-9]+ hold, 0 contradicted' as_user fedbench reproduce zhang2024-fig1a --quick -q --no-figure
finish
