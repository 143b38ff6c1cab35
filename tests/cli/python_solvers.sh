#!/usr/bin/env bash
# Python solvers run by fedbench's engine (docs/python.md). tests/python/py_local_gda.py, a
# transcription of local-gda, writes the run file of the C++ solver: metrics to 1e-12 (relative),
# counters and communication identical, on quadratic-game with partial participation (and, with
# minibatches under iid sampling, the run file of local-sgda), and tests/python/py_fedmbo.py that
# of fedmbo on bilevel-quadratic; by --plugin
# and inside a suite (`- python: FILE`); at --threads 1 and 2 its files are bit for bit the same
# but the timing columns. A change to the .py file makes its finished run stale. A Python
# exception in a hook ends the run with status error and the message; a bad file is one line.
# Neither fedbench nor libfedbench.so links libpython, and without the embedding host a .py
# plug-in is refused in one line.
# Then the `fedbench` module from plain python3 (tests/python/test_module.py).
source "$(dirname "$0")/lib.bash"
here=$(cd "$(dirname "$0")/../.." && pwd)
fedbench=$(cd "$(dirname "$fedbench")" && pwd)/$(basename "$fedbench")  # the suite part runs elsewhere
module_dir=$(cd "$(dirname "$fedbench")/../lib/python" 2>/dev/null && pwd) || module_dir=
if [ -z "$module_dir" ] || [ ! -e "$(dirname "$fedbench")/../lib/libfedbench_python.so" ]; then
  echo "SKIP: fedbench was built without Python support (pybind11)"; exit 0
fi
plugin=$here/tests/python/py_local_gda.py
compare() { "$python" "$here/tests/python/compare_runs.py" "$@"; }
problem=(--problem quadratic-game -p clients=6 -p samples=10 -p dim=5)

# ---- --plugin: the decay schedule with theory values, a constant step, and minibatches drawn
# by the engine's streams under iid sampling (a client may run twice in a round) against
# local-sgda. Each case: C++ solver | participation | solver parameters.
for case in "local-gda|uniform:3|-s local_steps=5" \
            "local-gda|uniform:3|-s local_steps=4 -s schedule=constant -s step_size=0.2" \
            "local-sgda|iid:4|-s local_steps=3 -s batch_size=2"; do
  IFS='|' read -r cpp participation solver_params <<<"$case"
  run=("${problem[@]}" --participation "$participation" --rounds 30 --seed 3 -q)
  # shellcheck disable=SC2086
  "$fedbench" run "${run[@]}" --solver "$cpp" $solver_params -o "$scratch/c.h5"
  # shellcheck disable=SC2086
  "$fedbench" run --plugin "$plugin" "${run[@]}" --solver py-local-gda $solver_params --threads 1 -o "$scratch/py1.h5"
  expect_ok 'max relative metric difference' compare "$scratch/c.h5" "$scratch/py1.h5" --rtol 1e-12
  # shellcheck disable=SC2086
  "$fedbench" run --plugin "$plugin" "${run[@]}" --solver py-local-gda $solver_params --threads 2 -o "$scratch/py2.h5"
  expect_ok 'difference 0.000e\+00' compare "$scratch/py1.h5" "$scratch/py2.h5"
done
# FedMBO (bilevel, two exchanges a round with the same clients, state kept between them, the
# "neumann-k" stream) against the C++ fedmbo, deterministic and randomized Neumann sums.
for solver_params in "" "-s neumann=randomized -s batch_size=3"; do
  run=(--problem bilevel-quadratic -p clients=4 -p samples=8 --participation uniform:3 --rounds 12 --seed 4
       --eval-every 1 -q)
  # shellcheck disable=SC2086
  "$fedbench" run "${run[@]}" --solver fedmbo $solver_params -o "$scratch/mbo.h5"
  # shellcheck disable=SC2086
  "$fedbench" run --plugin "$here/tests/python/py_fedmbo.py" "${run[@]}" --solver py-fedmbo $solver_params \
    --threads 2 -o "$scratch/py_mbo.h5"
  # neumann_ratio: the C++ solver's own diagnostic column, which the plug-in does not declare.
  expect_ok 'max relative metric difference' compare "$scratch/mbo.h5" "$scratch/py_mbo.h5" --rtol 1e-12 \
    --ignore neumann_ratio
done

# The run file names the plug-in and fingerprints its file.
expect_ok '^test-local-gda 1.0 \(.*py_local_gda.py\) plugin:[0-9a-f]{16}$' "$python" -c "
import h5py; f = h5py.File('$scratch/py2.h5'); print(f.attrs['plugin_solver'], f.attrs['code_solver'])"

# ---- a suite with both solvers; the Python file relative to the suite file
mkdir -p "$scratch/suite"
cp "$plugin" "$scratch/suite/gda.py"
cat >"$scratch/suite/both.yaml" <<'YAML'
name: both
seeds: [3]
rounds: 30
participation: "uniform:3"
problems:
  - name: quadratic-game
    params: {clients: 6, samples: 10, dim: 5}
solvers:
  - name: local-gda
    params: {local_steps: 5}
  - python: gda.py
    params: {local_steps: 5}
YAML
cd "$scratch/suite"
expect_ok '2 runs' "$fedbench" run both.yaml --jobs 2 --results out
checks=$((checks + 1))
files=(out/runs/*.h5)
if [ ${#files[@]} != 2 ] || ! compare "${files[0]}" "${files[1]}" --rtol 1e-12 >/dev/null; then
  echo "FAIL: the suite's local-gda and py-local-gda runs differ"; failures=$((failures + 1))
fi
expect_ok '2 done' "$fedbench" plan both.yaml --results out
echo "# an edit" >>gda.py
expect_ok 'stale \(1\): .*py-local-gda' "$fedbench" plan both.yaml --results out
sed 's/python: gda.py/python: gda.py\n    name: gda/' both.yaml >picked.yaml
expect_fail_like 2 "picked.yaml:[0-9]+: .*declares no solver 'gda'; it declares: py-local-gda" \
  "$fedbench" plan picked.yaml --results out
cd - >/dev/null

# ---- a helper module beside the solver file imports (the file's directory is on sys.path)
mkdir -p "$scratch/helped"
printf 'def step(x, g, gamma):\n    return x - gamma * g\n' >"$scratch/helped/gda_steps.py"
sed -e 's/^import numpy as np$/import numpy as np\nfrom gda_steps import step/' \
    -e 's/x -= self.step_at(client.round \* K + k) \* g/x = step(x, g, self.step_at(client.round * K + k))/' \
    -e 's/"py-local-gda"/"py-helped-gda"/' "$plugin" >"$scratch/helped/helped.py"
(cd "$scratch" && "$fedbench" run --plugin helped/helped.py "${problem[@]}" --solver py-helped-gda -s local_steps=5 \
   --participation uniform:3 --rounds 30 --seed 3 -q -o "$scratch/helped.h5")
"$fedbench" run "${problem[@]}" --solver local-gda -s local_steps=5 --participation uniform:3 --rounds 30 --seed 3 -q \
  -o "$scratch/c.h5"
expect_ok 'max relative metric difference' compare "$scratch/c.h5" "$scratch/helped.h5" --rtol 1e-12

# ---- errors: a hook's exception ends the run; a bad file is refused in one line
cat >"$scratch/fails.py" <<'PY'
class Fails:
    name = "py-fails"
    summary = "raises in round 2"
    def server_begin(self, server, down): down["model"] = server.model
    def client_round(self, client, state, down, up):
        if client.round == 2:
            raise ValueError("round two")
        up["model"] = down["model"]
    def server_end(self, server, uploads): pass
fedbench_plugin = {"name": "fails", "version": "0", "solvers": [Fails]}
PY
"$fedbench" run --plugin "$scratch/fails.py" "${problem[@]}" --solver py-fails --rounds 5 -q -o "$scratch/fails.h5"
expect_ok "^error solver py-fails, client_round: ValueError: round two \(fails.py:7\)$" "$python" -c "
import h5py; f = h5py.File('$scratch/fails.h5'); print(f.attrs['status'], f.attrs['message'])"
# A hook that never returns: the first SIGTERM (or Ctrl-C) ends fedbench after the grace period
# (5 s) even though the engine never gets to check it, with the signal's exit status.
sed -e 's/"py-fails"/"py-hangs"/' -e 's/raise ValueError("round two")/import time; time.sleep(3600)/' \
  "$scratch/fails.py" >"$scratch/hangs.py"
timeout -s KILL 30 "$fedbench" run --plugin "$scratch/hangs.py" "${problem[@]}" --solver py-hangs --rounds 5 -q -o "$scratch/hangs.h5" \
  2>"$scratch/hangs.err" &
hang_pid=$!
sleep 2
kill -TERM "$hang_pid"
start=$(date +%s)
wait "$hang_pid" && rc=0 || rc=$?
checks=$((checks + 1))
if [ "$rc" != 143 ] || [ $(( $(date +%s) - start )) -gt 12 ] || [ -e "$scratch/hangs.h5" ] ||
   ! grep -q "^fedbench: still running after the signal's grace period; stopping now$" "$scratch/hangs.err"; then
  echo "FAIL: a hanging Python hook and SIGTERM: exit $rc after $(( $(date +%s) - start )) s (want 143 within 12 s)"
  cat "$scratch/hangs.err"; failures=$((failures + 1))
fi
# With a time limit, a hook that never returns ends the run alone: `run` stops 5 s after the
# limit with one line and exit 124 (nothing published); a suite runs each plug-in run in a
# process of its own and records a hang as "timeout", an exit or a segfault as "crashed" with
# how the process ended, and its other runs have the bits they have without the bad ones.
start=$(date +%s)
"$fedbench" run --plugin "$scratch/hangs.py" "${problem[@]}" --solver py-hangs --rounds 5 --run-timeout 1 -q \
  -o "$scratch/hangs.h5" 2>"$scratch/hangs.err" && rc=0 || rc=$?
checks=$((checks + 1))
if [ "$rc" != 124 ] || [ $(( $(date +%s) - start )) -gt 15 ] || [ -e "$scratch/hangs.h5" ] ||
   ! grep -q "^fedbench: the run of py-hangs is still going 5 s after its limit of 1 s" "$scratch/hangs.err"; then
  echo "FAIL: a hanging Python hook with --run-timeout 1: exit $rc after $(( $(date +%s) - start )) s (want 124)"
  cat "$scratch/hangs.err"; failures=$((failures + 1))
fi
cat >"$scratch/bad.py" <<'PY'
import ctypes, os, time
class Misbehaves:
    summary = "misbehaves in round 2"
    def server_begin(self, server, down): down["model"] = server.model
    def client_round(self, client, state, down, up):
        if client.round == 2:
            self.misbehave()
        up["model"] = down["model"]
    def server_end(self, server, uploads): server.model[:] = uploads[0]["model"] * 0.5
class Hangs(Misbehaves):
    name = "py-sleeps"
    def misbehave(self): time.sleep(3600)
class Exits(Misbehaves):
    name = "py-exits"
    def misbehave(self): os._exit(3)
class Segfaults(Misbehaves):
    name = "py-segfaults"
    def misbehave(self): ctypes.string_at(0)
class Fine(Misbehaves):
    name = "py-fine"
    def misbehave(self): pass
fedbench_plugin = {"name": "bad", "version": "0", "solvers": [Hangs, Exits, Segfaults, Fine]}
PY
suite_with() {  # suite_with NAME SOLVER...: a suite file of those solvers, 2 seeds, 6 rounds
  local name=$1; shift
  printf 'name: %s\nseeds: [1, 2]\nrounds: 6\nrun_timeout: 2\nproblems:\n  - name: quadratic-game\n    params: {clients: 3, dim: 2}\nsolvers:\n' "$name"
  for s in "$@"; do printf '  - name: %s\n' "$s"; done
}
suite_with bad gda py-fine py-sleeps py-exits py-segfaults >"$scratch/bad.yaml"
suite_with good gda py-fine >"$scratch/good.yaml"
start=$(date +%s)
(cd "$scratch" && "$fedbench" run --plugin bad.py bad.yaml --jobs 2 >bad.out 2>&1) && rc=0 || rc=$?
checks=$((checks + 1))
if [ "$rc" != 1 ] || [ $(( $(date +%s) - start )) -gt 40 ] ||
   ! grep -q '^suite bad: 10 runs: 10 finished now, 0 already done, 0 diverged, 6 failed' "$scratch/bad.out"; then
  echo "FAIL: a suite with misbehaving Python solvers: exit $rc after $(( $(date +%s) - start )) s"
  sed 's/^/  | /' "$scratch/bad.out"; failures=$((failures + 1))
fi
expect_ok '^py-exits crashed its process exited with code 3 before the run was written \(after round 2\) 2$
^py-fine ok  2$
^py-segfaults crashed its process was killed by signal 11 \(Segmentation fault\) \(after round 2\) 2$
^py-sleeps timeout killed after [0-9]+ s: it ran past the limit of 2 s per run \(--run-timeout\) and did not stop within 5 s 2$' \
  "$python" -c "
import collections, glob, h5py
seen = collections.Counter()
for f in glob.glob('$scratch/results/bad/runs/*.h5'):
    a = h5py.File(f, 'r').attrs
    if a['solver'] != 'gda': seen[(a['solver'], a['status'], a['message'])] += 1
for (solver, status, message), n in sorted(seen.items()): print(solver, status, message, n)"
(cd "$scratch" && "$fedbench" run --plugin bad.py good.yaml -q)
for f in "$scratch"/results/good/runs/*.h5; do
  expect_ok '^max relative metric difference 0.000e\+00$' compare "$f" "$scratch/results/bad/runs/$(basename "$f")" --rtol 0
done
# A built-in solver checks the limit between rounds: status timeout, in the run's own process.
"$fedbench" run "${problem[@]}" --solver gda --rounds 100000000 --eval-every 100000 --run-timeout 0.5 -q \
  -o "$scratch/slow.h5" && rc=0 || rc=$?
expect_ok '^timeout still running after' "$python" -c "
import h5py; a = h5py.File('$scratch/slow.h5', 'r').attrs; print(a['status'], a['message'])"
checks=$((checks + 1)); [ "$rc" = 1 ] || { echo "FAIL: a run past --run-timeout exits $rc (want 1)"; failures=$((failures + 1)); }
echo 'x = 1 / 0' >"$scratch/broken.py"
expect_fail 2 "fedbench: plug-in $scratch/broken.py: ZeroDivisionError: division by zero (broken.py:1)" \
  "$fedbench" list solvers --plugin "$scratch/broken.py"
echo 'x = 1' >"$scratch/plain.py"
expect_fail_like 2 "plug-in $scratch/plain.py: not a fedbench solver file" "$fedbench" list solvers --plugin "$scratch/plain.py"
sed 's/"py-local-gda"/"local-gda"/' "$plugin" >"$scratch/clash.py"
expect_fail_like 2 "solver 'local-gda' is already registered by fedbench; rename it" \
  "$fedbench" list solvers --plugin "$scratch/clash.py"

# ---- neither the executable nor libfedbench.so links libpython; without the host (a copy of
# libfedbench.so elsewhere), a .py plug-in is one line that says what is missing
lib_dir=$(dirname "$fedbench")/../lib
for f in "$fedbench" "$lib_dir/libfedbench.so"; do
  checks=$((checks + 1))
  if ldd "$f" | grep -q libpython; then echo "FAIL: $f links libpython"; failures=$((failures + 1)); fi
done
mkdir -p "$scratch/bare"
cp -L "$lib_dir"/libfedbench.so.*.* "$scratch/bare/"
(cd "$scratch/bare" && for f in libfedbench.so.*.*.*; do ln -sf "$f" "${f%.*}"; done)
expect_fail_like 2 "^fedbench: plug-in $plugin: Python solvers need fedbench's Python support \\(pybind11 at build time\\).*; install pybind11-dev python3-pybind11 and rebuild fedbench$" \
  env LD_LIBRARY_PATH="$scratch/bare" "$fedbench" list solvers --plugin "$plugin"

# ---- `new-solver --python`: the file passes conform, and its suite (4 Python runs beside 16
# built-in ones, two at a time: several runs enter Python at once) finishes and reports.
(cd "$scratch" && "$fedbench" new-solver my-py --python --dir newpy >/dev/null)
expect_ok 'all checks passed for solver my-py' "$fedbench" --plugin "$scratch/newpy/my_py.py" conform my-py
expect_ok '20 finished now, 0 already done, 0 diverged, 0 failed' \
  bash -c 'cd "$1" && timeout 120 "$2" run suite.yaml --jobs 2' _ "$scratch/newpy" "$fedbench"
expect_ok 'report:' bash -c 'cd "$1" && "$2" --plugin my_py.py report results/my-py-vs-baselines' \
  _ "$scratch/newpy" "$fedbench"

# ---- the module from plain python3
expect_ok '^module ok' env PYTHONPATH="$module_dir" "$python" "$here/tests/python/test_module.py" "$fedbench"

echo "python_solvers: $checks checks, $failures failures"
[ "$failures" = 0 ]
