#!/usr/bin/env bash
# Selection: the best configuration per solver by the median over seeds, checked against an
# independent computation in Python from the same files; the winners suite reruns them on
# the report seeds and validates.
source "$(dirname "$0")/lib.bash"
smoke=results/suites/smoke.yaml
"$fedbench" run $smoke --results "$scratch/r" -q

checks=$((checks + 1))
out=$("$fedbench" select "$scratch/r" --at rounds=40 --report-seeds 7,8) || { echo "FAIL: select"; failures=$((failures + 1)); }
if ! "$python" - "$scratch/r" "$out" <<'PY'
import os, sys, h5py, numpy as np
runs_dir, out = sys.argv[1] + "/runs", sys.argv[2]
groups = {}
for n in os.listdir(runs_dir):
    with h5py.File(f"{runs_dir}/{n}") as f:
        t = f["trajectory"]
        rows = t["round"][()] <= 40
        v = t["rel_error"][()][rows][-1] if f.attrs["status"] == "ok" else np.inf
        key = (f.attrs["solver"], tuple(sorted((k, f["params/solver"].attrs[k]) for k in f["params/solver"].attrs)))
        groups.setdefault(key, []).append(v)
best = {}
for (solver, params), vals in groups.items():
    m = np.median(vals)
    if solver not in best or m < best[solver][0]:
        best[solver] = (m, params)
for solver, (m, params) in best.items():
    line = next((l for l in out.splitlines() if l.startswith(solver + " ")), None)
    assert line is not None, f"{solver} missing from the table"
    for k, v in params:
        assert f"{k}={v} " in line + " ", f"{solver}: expected {k}={v} in: {line}"
    printed = float(line.split()[1])
    assert (np.isinf(m) and np.isinf(printed)) or abs(printed - m) <= 1e-5 * abs(m), (solver, printed, m)
PY
then failures=$((failures + 1)); echo "FAIL: select disagrees with the independent computation"; fi
expect_ok "7 runs valid: 0 done, 0 partial, 14 new|14 runs valid: 0 done, 0 partial, 14 new" \
  "$fedbench" plan "$scratch/r/winners.yaml" --results "$scratch/report"
expect_ok "^seeds: \[7, 8\]" cat "$scratch/r/winners.yaml"

# Several problem configurations: one winners suite per configuration, numbered, for a bare
# name, a relative path with a directory, and a missing directory (refused, nothing written).
cat > "$scratch/two-games.yaml" <<'YAML'
name: two-games
seeds: [0, 1]
rounds: 20
problems:
  - name: quadratic-game
    params: {clients: 5, samples: 10, dim: 5, heterogeneity: [0, 1]}
solvers:
  - name: gda
    params: {step_size: [0.01, 0.1]}
YAML
"$fedbench" run "$scratch/two-games.yaml" --results "$scratch/two" -q
mkdir -p "$scratch/w"
binary=$(realpath "$fedbench")
expect_ok "winners suite: winners-2.yaml" bash -c "cd '$scratch' && '$binary' select two --at rounds=20 -o winners"
expect_ok "winners suite: ./w/x-2.yaml" bash -c "cd '$scratch' && '$binary' select two --at rounds=20 -o ./w/x"
for f in winners-1.yaml winners-2.yaml w/x-1.yaml w/x-2.yaml; do
  expect_ok "5 runs valid" "$fedbench" plan "$scratch/$f" --results "$scratch/plan-$RANDOM"
done
expect_fail 2 "fedbench: cannot write $scratch/nodir/x-1.yaml: directory $scratch/nodir does not exist; create it first" \
  "$fedbench" select "$scratch/two" --at rounds=20 -o "$scratch/nodir/x"
expect_ok "area under log10 rel_error over rounds" "$fedbench" select "$scratch/r" --at auc -o "$scratch/w2.yaml"
expect_fail 2 "fedbench: --at 'round=3' is not one of rounds=R, samples=S, bytes=B or auc" \
  "$fedbench" select "$scratch/r" --at round=3
expect_fail 2 "fedbench: no finished runs under $scratch/empty/runs" \
  "$fedbench" select "$scratch/empty" --at auc

# Without --metric, select minimises the primary metric the runs recorded: hypergrad_norm on
# a bilevel problem (no rel_error column there), rel_error above.
cat > "$scratch/bilevel.yaml" <<'YAML'
name: bilevel
seeds: [0, 1]
rounds: 20
problems:
  - name: bilevel-quadratic
solvers:
  - name: fedbioacc
    params: {eta: [0.05, 0.1]}
  - name: fednest
YAML
"$fedbench" run "$scratch/bilevel.yaml" --results "$scratch/b" -q
expect_ok "^hypergrad_norm$" "$python" -c "
import glob, h5py
print(*{h5py.File(p).attrs['primary_metric'] for p in glob.glob('$scratch/b/runs/*.h5')})"
expect_ok "median over seeds of hypergrad_norm at rounds=20, smallest wins \\(3 configurations\\)" \
  "$fedbench" select "$scratch/b" --at rounds=20
# The report scripts group the seeds (and here the eta grid) by solver.
expect_ok "^\| fedbioacc \| 4/4 ok \| [0-9.e-]+ \|$" "$python" scripts/summary.py "$scratch/b" --at 20
expect_ok "^\| fednest \| 2/2 ok \| [0-9.e-]+ \| [0-9.e-]+ \| (not reached|[0-9]+) \|$" \
  "$python" scripts/summary.py "$scratch/b" --columns hyper_objective,hvp_calls --reach "hypergrad_norm<=0.5"
expect_ok "wrote $scratch/b.png" "$python" scripts/plot.py "$scratch/b.png" "$scratch"/b/runs/*.h5 \
  --group solver --y hypergrad_norm

# One directory, two problems with different metrics: a metric only the bilevel runs have
# scores those alone; --json lists every configuration with each seed's score (what `fedbench
# report` ranks by); --no-suite writes nothing.
mkdir -p "$scratch/mixed/runs"
cp "$scratch"/b/runs/*.h5 "$scratch"/r/runs/*.h5 "$scratch/mixed/runs/"
expect_ok "hypergrad_norm at rounds=20, smallest wins \\(3 configurations\\)" \
  "$fedbench" select "$scratch/mixed" --metric hypergrad_norm --at rounds=20 --no-suite
checks=$((checks + 1))
if [ -e "$scratch/mixed/winners.yaml" ]; then
  echo "FAIL: select --no-suite wrote a winners suite"; failures=$((failures + 1))
fi
expect_fail_like 2 "^fedbench: no run under $scratch/mixed/runs has the metric 'bogus'; columns: round, " \
  "$fedbench" select "$scratch/mixed" --metric bogus --at rounds=20
"$fedbench" select "$scratch/b" --at rounds=20 --json --no-suite >"$scratch/b.json"
expect_ok "^ok$" "$python" - "$scratch/b.json" "$scratch/b" <<'PY'
import glob, json, sys, h5py, numpy as np
sel = json.load(open(sys.argv[1]))
assert sel["winners_suites"] == [], sel["winners_suites"]
assert len(sel["all"]) == 3, len(sel["all"])
runs = {}
for p in glob.glob(sys.argv[2] + "/runs/*.h5"):
    with h5py.File(p) as f:
        t = f["trajectory"]
        v = t["hypergrad_norm"][()][t["round"][()] <= 20][-1] if f.attrs["status"] == "ok" else np.inf
        runs[(f.attrs["solver"], str(f["params/solver"].attrs.get("eta", "")), int(f.attrs["seed"]))] = v
for c in sel["all"]:
    assert c["participation"] == "full", c
    for seed, score in zip(c["seeds"], c["scores"]):
        want = runs[(c["solver"], c["solver_params"].get("eta", ""), seed)]
        assert abs(score - want) <= 1e-12 * abs(want), (c["solver"], seed, score, want)
    assert c["median"] == float(np.median(c["scores"])), c
print("ok")
PY
finish
