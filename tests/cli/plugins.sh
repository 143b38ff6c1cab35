#!/usr/bin/env bash
# Out-of-tree plug-ins, as a researcher makes one: fedbench installed into a scratch prefix,
# `new-solver` writes a project that is built against the prefix's CMake package (nothing of
# the source tree), its conformance test passes, the plug-in's solver is listed and described
# with its origin, runs in a suite beside a built-in solver, is selected and reported; its run
# files record the plug-in and go stale when the library changes. A mis-typed hook does not
# build (the contract's message), and a plug-in built against another fedbench is refused with
# both versions named. A problem from a plug-in (the guides' two files) runs too.
source "$(dirname "$0")/lib.bash"
build=$(cd "$(dirname "$fedbench")/.." && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
prefix=$scratch/prefix
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
cmake=$(sed -n 's/^CMAKE_COMMAND:INTERNAL=//p' "$build/CMakeCache.txt")
[ -x "$cmake" ] || cmake=cmake
ctest=$(dirname "$cmake")/ctest
[ -x "$ctest" ] || ctest=ctest
# Nothing of the caller's environment loads other plug-ins.
unset FEDBENCH_PLUGINS
export XDG_DATA_HOME=$scratch/xdg

checks=$((checks + 1))
if ! out=$("$cmake" --install "$build" --prefix "$prefix" 2>&1); then
  fail "cmake --install"; sed 's/^/  | /' <<<"$out" | tail -n 20; finish; exit
fi
fb=$prefix/bin/fedbench
cd "$scratch"

# The project, built against the installed package only.
expect_ok '^wrote proj/my_gda.cpp$' "$fb" new-solver my-gda --dir proj
expect_fail_like 2 '^fedbench: new-solver: proj exists; ' "$fb" new-solver my-gda --dir proj
expect_fail_like 2 "^fedbench: new-solver: 'My_GDA' is not a solver name" "$fb" new-solver My_GDA
configure() {  # configure SOURCE BUILD PREFIX
  "$cmake" -S "$1" -B "$2" -DCMAKE_PREFIX_PATH="$3" -DCMAKE_BUILD_TYPE=Release >/dev/null &&
    "$cmake" --build "$2" 2>&1
}
checks=$((checks + 1))
if ! out=$(configure proj proj/build "$prefix"); then
  fail "the new-solver project does not build"; sed 's/^/  | /' <<<"$out" | tail -n 30; finish; exit
fi
plugin=$scratch/proj/build/libmy_gda.so
expect_ok "all checks passed for solver my-gda" "$ctest" --test-dir proj/build -V
expect_ok '^my-gda  \[minimax\]' "$fb" --plugin "$plugin" list solvers
expect_ok "^  plug-in: my-gda 0.1.0 \($plugin\)$" "$fb" describe my-gda --plugin="$plugin"
expect_ok '"fingerprint":"[0-9a-f]{16}"' "$fb" --plugin "$plugin" list solvers --json
expect_ok "^  plug-in: my-gda 0.1.0" env FEDBENCH_PLUGINS="$scratch/proj/build" "$fb" describe my-gda
# Completion loads the plug-ins of the line being completed.
completes my-gda fedbench --plugin "$plugin" describe my-g
completes my-gda fedbench run --plugin="$plugin" --solver my-g
completes server_step= fedbench --plugin "$plugin" run --solver my-gda -s serv
completes run fedbench --plugin "$plugin" ru
completes proj/build/libmy_gda.so fedbench --plugin proj/build/libmy
mkdir -p "$XDG_DATA_HOME/fedbench/plugins" && cp "$plugin" "$XDG_DATA_HOME/fedbench/plugins/"
expect_ok "^  plug-in: my-gda 0.1.0 \($XDG_DATA_HOME/fedbench/plugins/libmy_gda.so\)" "$fb" describe my-gda
rm -r "$XDG_DATA_HOME/fedbench/plugins"
expect_fail_like 2 "^fedbench: unknown problem or solver 'my-gda'" "$fb" describe my-gda
# Plug-in places anyone could change are refused with the fix: a directory or a file writable by
# group or others (a sticky world-writable directory such as /tmp is fine), and, as root, a
# file another user owns. Without an absolute HOME no user directory is searched (never one
# below the working directory).
mkdir -p "$scratch/open-dir" && cp "$plugin" "$scratch/open-dir/" && chmod 0777 "$scratch/open-dir"
expect_fail 2 "fedbench: plug-in directory $scratch/open-dir is writable by group or others (mode 0777); anyone could change the code fedbench runs: chmod go-w $scratch/open-dir" \
  env FEDBENCH_PLUGINS="$scratch/open-dir" "$fb" describe my-gda
chmod 0755 "$scratch/open-dir" && chmod 0666 "$scratch/open-dir/libmy_gda.so"
expect_fail 2 "fedbench: plug-in $scratch/open-dir/libmy_gda.so is writable by group or others (mode 0666); anyone could change the code fedbench runs: chmod go-w $scratch/open-dir/libmy_gda.so" \
  "$fb" --plugin "$scratch/open-dir/libmy_gda.so" describe my-gda
chmod 0644 "$scratch/open-dir/libmy_gda.so"
expect_ok "^  plug-in: my-gda 0.1.0" "$fb" --plugin "$scratch/open-dir/libmy_gda.so" describe my-gda
mkdir -p "$scratch/sticky" && chmod 1777 "$scratch/sticky" && cp "$plugin" "$scratch/sticky/"
expect_ok "^  plug-in: my-gda 0.1.0" "$fb" --plugin "$scratch/sticky/libmy_gda.so" describe my-gda
if [ "$(id -u)" = 0 ]; then
  chown 65534 "$scratch/sticky/libmy_gda.so"
  expect_fail_like 2 "^fedbench: plug-in $scratch/sticky/libmy_gda.so is owned by another user \(uid 65534\)" \
    "$fb" --plugin "$scratch/sticky/libmy_gda.so" describe my-gda
fi
mkdir -p "$scratch/cwd/.local/share/fedbench/plugins" && cp "$plugin" "$scratch/cwd/.local/share/fedbench/plugins/"
expect_fail_like 2 "^fedbench: unknown problem or solver 'my-gda'" env -C "$scratch/cwd" -u XDG_DATA_HOME HOME= "$fb" describe my-gda
expect_fail_like 2 "^fedbench: unknown problem or solver 'my-gda'" env -C "$scratch/cwd" -u XDG_DATA_HOME -u HOME "$fb" describe my-gda
expect_fail_like 2 "^fedbench: plug-in nothing.so: no such file; " "$fb" --plugin nothing.so list solvers
expect_fail_like 2 "^fedbench: plug-in $prefix/lib/libfedbench.so.*: not a fedbench plug-in" \
  "$fb" --plugin "$(ls "$prefix"/lib/libfedbench.so.*.*.*)" list solvers

# A suite with the plug-in's solver beside a built-in one; select and report see both.
cat > mini.yaml <<'YAML'
name: mini
seeds: [1]
rounds: 30
eval: {every: 5}
problems:
  - name: quadratic-game
    params: {clients: 4, samples: 6, dim: 3}
solvers:
  - name: my-gda
    params:
      step_size: [0.01, 0.03]
  - name: local-gda
    params: {schedule: constant, step_size: 0.01}
YAML
expect_ok '^\[3/3\]' "$fb" --plugin "$plugin" run mini.yaml --results res --jobs 2
expect_ok 'my-gda' "$fb" --plugin "$plugin" select res --at rounds=30
expect_ok '.' "$fb" --plugin "$plugin" report res -o rep
checks=$((checks + 1))
grep -q 'my-gda' rep/index.html 2>/dev/null || fail "the report names no my-gda run"
run=$(ls res/*my-gda* 2>/dev/null | head -n 1)
[ -z "$run" ] && run=$(grep -l 'my-gda' $(find res -name '*.h5') | head -n 1)
attr() { "$python" -c 'import h5py, sys; print(h5py.File(sys.argv[1], "r").attrs[sys.argv[2]])' "$@"; }
expect_ok "^my-gda 0.1.0 \($plugin\)$" attr "$run" plugin_solver
expect_ok '^plugin:[0-9a-f]{16}$' attr "$run" code_solver
expect_ok "^plug-in:  solver from my-gda 0.1.0 \($plugin\)$" "$fb" --plugin "$plugin" show "$run"
expect_ok '3 done' "$fb" --plugin "$plugin" plan mini.yaml --results res

# A problem from a plug-in: the two files of fedbench's own guides (a solver and a problem,
# tests/plugin_guide) built as one plug-in against the installed package, run to the problem's
# closed-form saddle point; the run file names the plug-in for both.
mkdir -p guides
cp "$src/tests/plugin_guide/guide_gda.cpp" "$src/tests/plugin_guide/guide_scalar_game.cpp" guides/
printf '#include "plugin/plugin.hpp"\nFEDBENCH_PLUGIN("guides", "1.0");\n' > guides/plugin_id.cpp
cat > guides/CMakeLists.txt <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(guides LANGUAGES CXX)
find_package(fedbench REQUIRED)
fedbench_add_plugin(guides guide_gda.cpp guide_scalar_game.cpp plugin_id.cpp)
CMAKE
checks=$((checks + 1))
if ! out=$(configure guides guides/build "$prefix"); then
  fail "the guides' files do not build as a plug-in"; sed 's/^/  | /' <<<"$out" | tail -n 20
fi
guides=$scratch/guides/build/libguides.so
expect_ok "^  plug-in: guides 1.0 \($guides\)$" "$fb" --plugin "$guides" describe guide-scalar-game
expect_ok 'ok' "$fb" --plugin "$guides" run --problem guide-scalar-game --solver guide-gda \
  --rounds 600 --eval-every 600 -o guides.h5 -o guides.csv
checks=$((checks + 1))
"$python" - guides.csv <<'PY' || fail "guide-gda from a plug-in does not reach guide-scalar-game's saddle point"
import csv, sys
last = list(csv.DictReader(open(sys.argv[1])))[-1]
assert last["status"] == "ok" and float(last["rel_error"]) < 1e-20, last
PY
expect_ok "^guides 1.0 \($guides\)$" attr guides.h5 plugin_problem

# The plug-in changes (a new version of the library): its runs are stale, the built-in's are not.
sed -i 's/FEDBENCH_PLUGIN("my-gda", "0.1.0")/FEDBENCH_PLUGIN("my-gda", "0.1.1")/' proj/my_gda.cpp
"$cmake" --build proj/build >/dev/null 2>&1 || fail "rebuilding the plug-in"
expect_ok '2 stale' "$fb" --plugin "$plugin" plan mini.yaml --results res

# A mis-typed hook fails to build, with the contract's message.
cp -r proj bad && rm -rf bad/build
sed -i 's/void client_round(ClientCtx& c, Client& st, const Down& d, Up& up) const {/void client_round(ClientCtx\& c, Client\& st, Down\& d, Up\& up) const {/' bad/my_gda.cpp
checks=$((checks + 1))
if out=$(configure bad bad/build "$prefix"); then fail "a plug-in with a mis-typed client_round built"
elif ! grep -q 'solver: needs `void client_round(ClientCtx&, Client&, const Down&, Up&) const`' <<<"$out"; then
  fail "the build of a mis-typed hook does not name the contract"; grep -m3 error <<<"$out" | sed 's/^/  | /'
fi

# conform can fail: a Client declared scratch that keeps its iterate from one turn to the next
# gives other bits with one state per client than with one per running position.
cp -r proj leaky && rm -rf leaky/build
sed -i 's/    st.x = d.model;/    if (st.x.size() == 0) st.x = d.model;  \/\/ keeps its last iterate/' leaky/my_gda.cpp
checks=$((checks + 1))
configure leaky leaky/build "$prefix" >/dev/null || fail "building the leaky variant"
checks=$((checks + 1))
out=$("$fb" --plugin leaky/build/libmy_gda.so conform my-gda 2>&1) && rc=0 || rc=$?
if [ "$rc" != 1 ] || ! grep -q '^FAIL  client state: one per position gives the bits of one per client' <<<"$out"; then
  fail "conform passes a solver whose scratch Client keeps state (exit $rc)"; sed 's/^/  | /' <<<"$out"
fi

# A plug-in that crashes costs its own runs only: a suite runs a plug-in's runs in a process of
# their own, records each as "crashed" with how its process ended, and goes on; the built-in
# solver's run has the bits it has in a suite without the crashing one.
cp -r proj crashy && rm -rf crashy/build
sed -i 's/    st.x = d.model;/    if (c.round() == 1) std::raise(SIGSEGV);\n    st.x = d.model;/' crashy/my_gda.cpp
sed -i '0,/#include/s//#include <csignal>\n#include/' crashy/my_gda.cpp
checks=$((checks + 1))
configure crashy crashy/build "$prefix" >/dev/null || fail "building the crashing variant"
checks=$((checks + 1))
out=$("$fb" --plugin crashy/build/libmy_gda.so run mini.yaml --results crashed --jobs 2 2>&1) && rc=0 || rc=$?
if [ "$rc" != 1 ] || [ "$(grep -c ': crashed: its process was killed by signal 11 (Segmentation fault) (after round 0)$' <<<"$out")" != 2 ] ||
   ! grep -q '^suite mini: 3 runs: 3 finished now, .* 2 failed' <<<"$out"; then
  fail "a segfaulting plug-in in a suite (exit $rc)"; sed 's/^/  | /' <<<"$out"
fi
expect_ok '^crashed$' "$python" -c "
import h5py, glob
print(*sorted({h5py.File(f, 'r').attrs['status'] for f in glob.glob('crashed/runs/*.h5')
               if h5py.File(f, 'r').attrs['solver'] == 'my-gda'}))"
builtin=$(cd res/runs && "$python" -c "
import h5py, glob
print(*[f for f in glob.glob('*.h5') if h5py.File(f, 'r').attrs['solver'] == 'local-gda'])")
expect_ok '^max relative metric difference 0.000e\+00$' "$python" "$src/tests/python/compare_runs.py" \
  "res/runs/$builtin" "crashed/runs/$builtin" --rtol 0

# Built against another fedbench (the installed ABI header of an older version): refused.
cp -r "$prefix" other
sed -i 's/#define FEDBENCH_ABI_VERSION "[^"]*"/#define FEDBENCH_ABI_VERSION "0.0.9"/' \
  other/include/fedbench/plugin/plugin_abi.hpp
cp -r proj old && rm -rf old/build
checks=$((checks + 1))
configure old old/build "$scratch/other" >/dev/null || fail "building against the other prefix"
ours=$("$fb" --version | sed -n 's/^fedbench \([0-9.]*\).*/\1/p')
expect_fail_like 2 "^fedbench: plug-in $scratch/old/build/libmy_gda.so was built against fedbench 0.0.9 \(headers [0-9a-f]{16}\), this is fedbench $ours \(headers [0-9a-f]{16}\); rebuild it against this fedbench$" \
  "$fb" --plugin old/build/libmy_gda.so list solvers
finish
