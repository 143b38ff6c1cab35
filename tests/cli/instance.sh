#!/usr/bin/env bash
# Results checked outside fedbench: `fedbench instance` writes the generated data, and numpy
# (with the run file's /final iterate) recomputes the last recorded metrics: the relative
# error of the quadratic game from the exported components, and the AUC of a stored linear
# model by a direct count over positive/negative pairs.
source "$(dirname "$0")/lib.bash"
game=(-p clients=4 -p samples=6 -p dim=3)

expect_ok '^written: ' "$fedbench" instance quadratic-game "${game[@]}" -o "$scratch/game.h5"
"$fedbench" run --problem quadratic-game "${game[@]}" --solver local-sgda -s schedule=constant \
  -s step_size=0.05 -s local_steps=3 --rounds 30 --eval-every 10 -q -o "$scratch/game_run.h5"
checks=$((checks + 1))
if ! "$python" - "$scratch/game.h5" "$scratch/game_run.h5" <<'PY'
import sys, h5py, numpy as np
inst, run = h5py.File(sys.argv[1]), h5py.File(sys.argv[2])
d = int(inst.attrs["dim_x"] + inst.attrs["dim_y"])
clients = inst["data/clients"]
# the global operator from the per-sample components, independently of the stored means
M = np.mean([np.mean(clients[c]["M"][()].reshape(-1, d, d), axis=0) for c in clients], axis=0)
zeta = np.mean([np.mean(clients[c]["zeta"][()], axis=0) for c in clients], axis=0)
z_star = np.linalg.solve(M, -zeta)
assert np.allclose(z_star, inst["solution"][()], rtol=1e-10, atol=1e-12), "exported solution"
z0 = inst["initial_point"][()]
z = np.concatenate([run["final/x"][()], run["final/y"][()]])
rel = np.sum((z - z_star) ** 2) / np.sum((z0 - z_star) ** 2)
stored = run["trajectory/rel_error"][-1]
assert abs(rel - stored) <= 1e-9 * stored, (rel, stored)
print(f"rel_error numpy {rel:.12e} file {stored:.12e}")
PY
then failures=$((failures + 1)); echo "FAIL: quadratic game recomputed from the instance"; fi

auc=(-p dataset=heart -p clients=3)
expect_ok '^written: ' "$fedbench" instance auc "${auc[@]}" -o "$scratch/auc.h5"
"$fedbench" run --problem auc "${auc[@]}" --solver local-sgda -s schedule=constant \
  -s step_size=0.05 --rounds 20 --eval-every 10 -q -o "$scratch/auc_run.h5"
checks=$((checks + 1))
if ! "$python" - "$scratch/auc.h5" "$scratch/auc_run.h5" <<'PY'
import sys, h5py, numpy as np
inst, run = h5py.File(sys.argv[1]), h5py.File(sys.argv[2])
X = inst["data/train/X"]
rows, cols = int(X.attrs["rows"]), int(X.attrs["cols"])
dense = np.zeros((rows, cols))
indptr, indices, data = X["indptr"][()], X["indices"][()], X["data"][()]
for r in range(rows):
    dense[r, indices[indptr[r]:indptr[r + 1]]] = data[indptr[r]:indptr[r + 1]]
y = inst["data/train/y"][()]
w = run["final/x"][()][:cols]
s = dense @ w
pos, neg = s[y > 0], s[y < 0]
diff = pos[:, None] - neg[None, :]
auc = (np.sum(diff > 0) + 0.5 * np.sum(diff == 0)) / (len(pos) * len(neg))
stored = run["trajectory/train_auc"][-1]
assert abs(auc - stored) < 1e-12, (auc, stored)
assert run["trajectory/train_auc"].attrs["direction"] in (b"max", "max")
print(f"train_auc count {auc:.15f} file {stored:.15f}")
PY
then failures=$((failures + 1)); echo "FAIL: AUC recomputed from the instance"; fi

expect_fail 2 "fedbench: problem quadratic-game: unknown parameter 'dim_per_player'; valid: b_max, clients, dim, heterogeneity, instance_seed, mu_max, mu_min, samples" \
  "$fedbench" instance quadratic-game -p dim_per_player=3 -o "$scratch/x.h5"
checks=$((checks + 1))
[ -e "$scratch/x.h5" ] && { echo "FAIL: a rejected instance wrote a file"; failures=$((failures + 1)); }
finish
