#!/usr/bin/env bash
# Selection follows each metric's recorded direction: on a grid scored by AUC (larger is
# better) select picks the largest median, as a Python computation from the same files says;
# --minimize reverses it; several problem configurations get a problem column and one
# winners suite each, named beside the -o path.
source "$(dirname "$0")/lib.bash"
grid=tests/cli/suites/auc_grid.yaml
"$fedbench" run $grid --results "$scratch/r" -q

check_best() {  # check_best SELECT_JSON maximize(1|0)
  "$python" - "$scratch/r" "$1" "$2" <<'PY'
import json, os, sys, h5py, numpy as np
runs_dir, sel, maximize = sys.argv[1] + "/runs", json.loads(sys.argv[2]), sys.argv[3] == "1"
groups = {}
for n in os.listdir(runs_dir):
    with h5py.File(f"{runs_dir}/{n}") as f:
        t = f["trajectory"]
        ok = f.attrs["status"] in (b"ok", "ok")
        v = t["train_auc"][()][t["round"][()] <= 30][-1] if ok else (-np.inf if maximize else np.inf)
        params = tuple(sorted((k, f["params/solver"].attrs[k]) for k in f["params/solver"].attrs))
        groups.setdefault((f.attrs["solver"], params), []).append(v)
best = {}
for (solver, params), vals in groups.items():
    m = np.median(vals)
    if solver not in best or (m > best[solver][0] if maximize else m < best[solver][0]):
        best[solver] = (m, dict(params))
assert sel["direction"] == ("max" if maximize else "min"), sel["direction"]
assert len(sel["winners"]) == len(best)
for w in sel["winners"]:
    m, params = best[w["solver"]]
    assert abs(w["median"] - m) <= 1e-15 * abs(m), (w["solver"], w["median"], m)
    assert w["solver_params"] == {k: str(v) for k, v in params.items()}, (w["solver_params"], params)
print("selection matches:", {w["solver"]: w["median"] for w in sel["winners"]})
PY
}
checks=$((checks + 1))
out=$("$fedbench" select "$scratch/r" --metric train_auc --at rounds=30 --json) &&
  check_best "$out" 1 || { echo "FAIL: select --metric train_auc"; failures=$((failures + 1)); }
checks=$((checks + 1))
out=$("$fedbench" select "$scratch/r" --metric train_auc --at rounds=30 --minimize --json) &&
  check_best "$out" 0 || { echo "FAIL: select --minimize"; failures=$((failures + 1)); }
expect_ok 'largest wins' "$fedbench" select "$scratch/r" --metric train_auc --at rounds=30
expect_fail 2 "fedbench: give --maximize or --minimize, not both" \
  "$fedbench" select "$scratch/r" --at rounds=30 --maximize --minimize

# a second problem configuration in the same results directory
"$fedbench" run $grid -p clients=2 --results "$scratch/r" -q
mkdir -p "$scratch/w"
# (the suite's last run has the second only: --all shows both)
expect_ok '^problem +solver' "$fedbench" select "$scratch/r" --all --metric train_auc --at rounds=30 -o "$(realpath --relative-to=. "$scratch")"/w/x
checks=$((checks + 1))
if [ ! -f "$scratch/w/x-1.yaml" ] || [ ! -f "$scratch/w/x-2.yaml" ]; then
  echo "FAIL: winners suites x-1.yaml and x-2.yaml not written beside -o"; ls "$scratch/w"; failures=$((failures + 1))
fi
"$fedbench" select "$scratch/r" --all --metric train_auc --at rounds=30 -o "$scratch/winners" >/dev/null
checks=$((checks + 1))
[ -f "$scratch/winners-1.yaml" ] || { echo "FAIL: -o without extension"; failures=$((failures + 1)); }
finish
