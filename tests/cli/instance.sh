#!/usr/bin/env bash
# Results checked outside fedbench: `fedbench instance` writes the generated data, and numpy
# (with the run file's /final iterate) recomputes the last recorded metrics: the relative
# error of the quadratic game from the exported components, the AUC of a stored linear model
# by a direct count over positive/negative pairs, hyper-logreg's validation loss and model
# accuracy from the exported split, the matrix game's duality gap, and the WGAN's Phi.
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
shape = X.attrs["shape"]  # two integers (scipy.sparse's shape), not text
assert shape.dtype.kind == "i" and tuple(shape) == (len(X["indptr"]) - 1, cols), shape
assert X["indices"][()].max() < cols
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

# hyper-logreg: the upper-level (validation) loss f(x, y) at the final model and the model's
# test accuracy, from the exported rows, labels and split.
logreg=(-p dataset=mushrooms -p clients=4)
expect_ok '^written: ' "$fedbench" instance hyper-logreg "${logreg[@]}" -o "$scratch/logreg.h5"
"$fedbench" run --problem hyper-logreg "${logreg[@]}" --solver fedbioacc --rounds 4 --eval-every 2 \
  -q -o "$scratch/logreg_run.h5"
checks=$((checks + 1))
if ! "$python" - "$scratch/logreg.h5" "$scratch/logreg_run.h5" <<'PY'
import sys, h5py, numpy as np
inst, run = h5py.File(sys.argv[1]), h5py.File(sys.argv[2])
data = inst["data"]
X = data["X"]
rows, cols = int(X.attrs["rows"]), int(X.attrs["cols"])
indptr, indices, values = X["indptr"][()], X["indices"][()], X["data"][()]
A = np.zeros((rows, cols))
for r in range(rows):
    A[r, indices[indptr[r]:indptr[r + 1]]] = values[indptr[r]:indptr[r + 1]]
labels = data["labels"][()].astype(int)
classes, columns = int(data["classes"][0]), int(data["columns"][0])
assert columns == classes == 2, (classes, columns)
d = int(inst.attrs["dim_x"])
assert d == cols and int(inst.attrs["dim_y"]) == d * columns
clients = data["clients"]
M = int(inst.attrs["num_clients"])
train = [clients[str(i)]["train_rows"][()] for i in range(M)]
valid = [clients[str(i)]["validation_rows"][()] for i in range(M)]
test = data["test_rows"][()]
# every row in exactly one set; the lower-level sizes are the instance's client_samples
every = np.concatenate(train + valid + [test])
assert np.array_equal(np.sort(every), np.arange(rows)), "split is not a partition of X"
assert [len(t) for t in train] == list(inst["client_samples"][()])
assert int(run["final/x"].shape[0]) == d
Y = run["final/y"][()].reshape(d, columns)  # feature-major: y[q, k] at q*c + k
logits = A @ Y
top = logits.max(axis=1)
ce = top + np.log(np.exp(logits - top[:, None]).sum(axis=1)) - logits[np.arange(rows), labels]
upper = np.mean([ce[v].mean() for v in valid])
stored = run["trajectory/upper_value"][-1]
assert abs(upper - stored) <= 1e-10 * abs(stored), (upper, stored)
accuracy = np.mean(np.argmax(logits[test], axis=1) == labels[test])
stored_accuracy = run["trajectory/model_test_accuracy"][-1]
assert abs(accuracy - stored_accuracy) <= 1e-12, (accuracy, stored_accuracy)
assert run["trajectory/round"][-1] == 4
print(f"upper_value numpy {upper:.15e} file {stored:.15e}; "
      f"model_test_accuracy numpy {accuracy:.15f} file {stored_accuracy:.15f}")
PY
then failures=$((failures + 1)); echo "FAIL: hyper-logreg recomputed from the instance"; fi

# matrix-game: the duality gap of the final iterate from the per-client payoff matrices.
matrix=(-p clients=5 -p dim=6 -p weights=entry -p identical_clients=false -p instance_seed=3)
expect_ok '^written: ' "$fedbench" instance matrix-game "${matrix[@]}" -o "$scratch/matrix.h5"
"$fedbench" run --problem matrix-game "${matrix[@]}" --solver local-sgda -s schedule=constant \
  -s step_size=0.05 -s local_steps=2 --rounds 30 --eval-every 10 -q -o "$scratch/matrix_run.h5"
checks=$((checks + 1))
if ! "$python" - "$scratch/matrix.h5" "$scratch/matrix_run.h5" <<'PY'
import sys, h5py, numpy as np
inst, run = h5py.File(sys.argv[1]), h5py.File(sys.argv[2])
clients = inst["data/clients"]
A = [clients[str(i)]["A"][()] for i in range(int(inst.attrs["num_clients"]))]
assert not np.allclose(A[0], A[1]), "identical_clients=false gave identical matrices"
Abar = np.mean(A, axis=0)
assert np.allclose(Abar, inst["data/global/A"][()], rtol=1e-14, atol=0), "exported mean"
x, y = run["final/x"][()], run["final/y"][()]
assert abs(x.sum() - 1) < 1e-12 and abs(y.sum() - 1) < 1e-12 and x.min() >= 0 and y.min() >= 0, "not on the simplex"
gap = np.max(Abar.T @ x) - np.min(Abar @ y)
stored = run["trajectory/duality_gap"][-1]
assert gap > 0 and abs(gap - stored) <= 1e-10 * stored, (gap, stored)
assert run["trajectory/round"][-1] == 30
print(f"duality_gap numpy {gap:.15e} file {stored:.15e}")
PY
then failures=$((failures + 1)); echo "FAIL: matrix-game duality gap recomputed from the instance"; fi

# wgan-gaussian: Phi = (A^2 + B^2) / (4 lambda) from the exported real data and generator noise.
wgan=(-p clients=3 -p samples=40 -p paired=false)
expect_ok '^written: ' "$fedbench" instance wgan-gaussian "${wgan[@]}" -o "$scratch/wgan.h5"
"$fedbench" run --problem wgan-gaussian "${wgan[@]}" --solver local-sgda -s schedule=constant \
  -s step_size=0.05 --rounds 20 --eval-every 10 -q -o "$scratch/wgan_run.h5"
checks=$((checks + 1))
if ! "$python" - "$scratch/wgan.h5" "$scratch/wgan_run.h5" <<'PY'
import sys, h5py, numpy as np
inst, run = h5py.File(sys.argv[1]), h5py.File(sys.argv[2])
data = inst["data"]
real, noise, lam = data["real"][()], data["noise"][()], data["lambda"][0]
assert real.shape == noise.shape == (3, 40)
mu, sigma = run["final/x"][()]
G = mu + sigma * noise
A = np.mean(real.mean(axis=1) - G.mean(axis=1))
B = np.mean((real ** 2).mean(axis=1) - (G ** 2).mean(axis=1))
phi = (A * A + B * B) / (4 * lam)
stored = run["trajectory/phi"][-1]
assert abs(phi - stored) <= 1e-10 * abs(stored), (phi, stored)
print(f"phi numpy {phi:.15e} file {stored:.15e}")
PY
then failures=$((failures + 1)); echo "FAIL: wgan-gaussian Phi recomputed from the instance"; fi

# --clients M is -p clients=M, as in run: the instance holds M clients (counted by h5py), the
# same bytes of data as the -p form, and the flag wins over -p as it does in run.
expect_ok '^written: ' "$fedbench" instance quadratic-game --clients 5 -p samples=6 -p dim=3 -o "$scratch/c5.h5"
expect_ok '^written: ' "$fedbench" instance quadratic-game -p clients=5 -p samples=6 -p dim=3 -o "$scratch/p5.h5"
expect_ok '^written: ' "$fedbench" instance quadratic-game -p clients=2 --clients 5 -p samples=6 -p dim=3 -o "$scratch/w5.h5"
checks=$((checks + 1))
if ! "$python" - "$scratch/c5.h5" "$scratch/p5.h5" "$scratch/w5.h5" <<'PY'
import sys, h5py, numpy as np
files = [h5py.File(f) for f in sys.argv[1:]]
for f in files:
    assert len(f["data/clients"]) == 5, (f.filename, len(f["data/clients"]))
    for c in f["data/clients"]:
        assert np.array_equal(f["data/clients"][c]["M"][()], files[1]["data/clients"][c]["M"][()]), c
PY
then failures=$((failures + 1)); echo "FAIL: instance --clients is not -p clients"; fi

expect_fail 2 "fedbench: problem quadratic-game: unknown parameter 'dim_per_player'; valid: b_max, clients, dim, heterogeneity, instance_seed, mu_max, mu_min, samples, x0, y0" \
  "$fedbench" instance quadratic-game -p dim_per_player=3 -o "$scratch/x.h5"
checks=$((checks + 1))
[ -e "$scratch/x.h5" ] && { echo "FAIL: a rejected instance wrote a file"; failures=$((failures + 1)); }
finish
