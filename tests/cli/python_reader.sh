#!/usr/bin/env bash
# The Python side on real runs: fedbench_read (load_run, load_results, varying_params) on a grid
# with a diverged run and a max-metric problem; plot.py and summary.py on it; check_trajectory.py
# on files of three problems; the v2 additions on converted copies (and on fedbench's own files
# once it writes version 2), including xarray's view of /trajectory.
source "$(dirname "$0")/lib.bash"
scripts=$PWD/scripts
results=$scratch/grid

expect_ok "" "$fedbench" run tests/cli/suites/mixed_grid.yaml --results "$results" -q --jobs 2 --solver proxskip-gda-fl --solver gda
expect_ok "status: ok" "$fedbench" run --problem hyper-logreg -p dataset=mushrooms --solver fedbioacc \
  --rounds 4 --eval-every 2 -o "$scratch/hl.h5"

expect_ok " 0 failed" "$python" tests/python/test_curves.py

py_check() {  # py_check 'what' python-args... : one check that passes when python exits 0
  local what=$1
  shift
  checks=$((checks + 1))
  local out
  if ! out=$("$python" "$@" 2>&1); then
    echo "FAIL: $what"
    sed 's/^/  | /' <<<"$out" | tail -n 20
    failures=$((failures + 1))
  fi
}

# load_results: one row per trajectory row of every run, counted independently with h5py.
py_check "load_results / load_run / varying_params" - "$scripts" "$results" <<'PY'
import glob, os, sys
import h5py, numpy as np
sys.path.insert(0, sys.argv[1])
import fedbench_read as fr
results = sys.argv[2]
files = sorted(glob.glob(os.path.join(results, "runs", "*.h5")))
assert len(files) == 16, len(files)
df = fr.load_results(results)
rows = {}
for p in files:
    with h5py.File(p, "r") as f:
        rows[os.path.basename(p)[:-3]] = f["trajectory/round"].shape[0]
assert len(df) == sum(rows.values()), (len(df), sum(rows.values()))
assert df.groupby("run_id").size().to_dict() == rows
for c in ["run_id", "problem", "solver", "seed", "status", "problem.dim", "problem.dataset",
          "solver.step_size", "round", "bytes_up", "rel_error", "train_auc"]:
    assert c in df.columns, c
assert set(df["status"]) == {"ok", "diverged"}, set(df["status"])
assert df.loc[df.problem == "auc", "problem.dim"].isna().all()
assert df.loc[df.problem == "auc", "problem.dataset"].eq("heart").all()
assert df["solver.step_size"].dtype.kind == "f"
q = df[(df.problem == "quadratic-game") & (df.solver == "gda")]
assert fr.varying_params(q) == ["solver.dual_step_size", "solver.step_size"], fr.varying_params(q)
assert "problem.dataset" in fr.varying_params(df)

run = fr.load_run(files[0])
a = run.attrs
for k in ["path", "problem", "solver", "seed", "status", "format_version", "primary_metric",
          "problem_params", "solver_params", "constants", "final", "columns_meta"]:
    assert k in a, k
assert list(run.columns) == list(a["columns_meta"]) and run.columns[0] == "round"
assert isinstance(a["seed"], int) and isinstance(a["solver"], str) and isinstance(a["wall_time"], float)
assert isinstance(a["solver_params"]["step_size"], (int, float))  # "50" reads as a number too
auc = fr.load_run(next(p for p in files if fr.load_run(p).attrs["problem"] == "auc"))
assert auc.attrs["columns_meta"]["train_auc"]["direction"] == "max"
assert auc.attrs["columns_meta"]["rel_error"]["direction"] == "min"
assert auc.attrs["columns_meta"]["bytes_up"]["kind"] == "counter"
if a["format_version"] == 1:
    assert a["final"] == {}
PY

# Unreadable files are skipped with one line on stderr, never a traceback.
mkdir -p "$scratch/mixed/runs"
cp "$results"/runs/*.h5 "$scratch/mixed/runs/"
echo "not hdf5" >"$scratch/mixed/runs/ffffffffffffffff.h5"  # under a run id: read, refused
checks=$((checks + 1))
err=$("$python" -c "import sys; sys.path.insert(0, '$scripts'); import fedbench_read as fr; \
print(len(fr.run_table('$scratch/mixed')))" 2>&1 >"$scratch/count.txt")
if [ "$(cat "$scratch/count.txt")" != 16 ] || [ "$(wc -l <<<"$err")" != 1 ] || \
   ! grep -q "skipping .*ffffffffffffffff.h5" <<<"$err"; then
  echo "FAIL: a corrupt file is skipped with one warning line"; echo "  $err"; failures=$((failures + 1))
fi

# plot.py: diverged runs in the grid, grouped by solver and by solver and step size.
for group in solver solver,step_size; do
  expect_ok "wrote" "$python" scripts/plot.py "$scratch/g_$group.png" "$results" --group "$group"
done
expect_ok "wrote" "$python" scripts/plot.py "$scratch/all.png" "$results"/runs/*.h5 --x bytes
expect_ok "wrote" "$python" scripts/plot.py "$scratch/auc.png" "$results" --y train_auc --linear \
  --group solver,step_size
py_check "plot.py wrote PNG images" - "$scratch" <<'PY'
import sys, matplotlib.image as mi
for name in ["g_solver.png", "g_solver,step_size.png", "all.png", "auc.png"]:
    img = mi.imread(f"{sys.argv[1]}/{name}")
    assert img.shape[0] > 300 and img.shape[1] > 500, (name, img.shape)
PY

# summary.py: '>=' and '<=' targets.
expect_ok "first round train_auc >= 0.8" "$python" scripts/summary.py "$results" \
  --columns train_auc --reach 'train_auc>=0.8'
expect_ok "\| gda 0.1 \| 4/4 ok" "$python" scripts/summary.py "$results" --group solver,step_size \
  --reach 'rel_error<=0.5'
# A diverged run counts as the worst value, as in select's medians: never a silent "-".
expect_ok "\| gda 50 \| 0/4 ok \| inf \| not reached \|" "$python" scripts/summary.py "$results" \
  --group solver,step_size --reach 'rel_error<=0.5'

# check_trajectory.py on files of three problems (one diverged).
file_of() {  # file_of PROBLEM SOLVER STATUS: one run file of the grid
  awk -F'\t' -v p="$1" -v s="$2" -v st="$3" '$5 == p && $7 == s && $2 == st {print $NF; exit}' \
    "$results/manifest.tsv"
}
auc_file=$results/$(file_of auc proxskip-gda-fl ok)
qg_file=$results/$(file_of quadratic-game proxskip-gda-fl ok)
div_file=$results/$(file_of quadratic-game gda diverged)
for f in "$auc_file" "$qg_file" "$div_file" "$scratch/hl.h5"; do
  expect_ok " 0 failed" "$python" tests/python/check_trajectory.py "$f"
done
expect_ok " 0 failed" "$python" tests/python/check_trajectory.py "$scratch/hl.h5" --expect-rounds 4 \
  --metric test_accuracy

# Version 2: the real files once fedbench writes them, and converted copies of version-1 files.
version=$("$python" -c "import h5py; print(int(h5py.File('$qg_file', 'r').attrs['format_version']))")
v2_files=()
if [ "$version" -ge 2 ]; then
  v2_files=("$auc_file" "$qg_file" "$scratch/hl.h5")
else
  echo "NOTE: fedbench writes format_version $version; the v2 checks (xarray's round dimension," \
       "/final, directions) run on converted copies only"
  "$python" tests/python/make_v2.py "$auc_file" "$scratch/auc_v2.h5"
  "$python" tests/python/make_v2.py "$scratch/hl.h5" "$scratch/hl_v2.h5" --y-star
  v2_files=("$scratch/auc_v2.h5" "$scratch/hl_v2.h5")
fi
for f in "${v2_files[@]}"; do
  expect_ok " 0 failed" "$python" tests/python/check_trajectory.py "$f"
  py_check "v2 reader and xarray on $f" - "$scripts" "$f" <<'PY'
import sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import fedbench_read as fr
run = fr.load_run(sys.argv[2])
a = run.attrs
assert a["format_version"] >= 2 and "eval_time" in run.columns
assert a["final"]["x"].shape == (a["dim_x"],) and a["final"]["y"].shape == (a["dim"] - a["dim_x"],)
for name, m in a["columns_meta"].items():
    assert "description" in m and "unit" in m, name
    assert m["kind"] != "metric" or m["direction"] in ("min", "max"), name
import xarray
try:
    import h5netcdf  # noqa: F401
    engine = "h5netcdf"
except ImportError:
    engine = "netcdf4"
ds = xarray.open_dataset(sys.argv[2], group="trajectory", engine=engine)
assert "round" in ds.dims, ds.dims
assert ds.sizes["round"] == len(run)
metric = a["primary_metric"]
assert np.array_equal(ds[metric].values, run[metric].values, equal_nan=True)
PY
done
# The checker itself catches a v2 file without a metric direction.
"$python" tests/python/make_v2.py "$auc_file" "$scratch/bad_v2.h5" 2>/dev/null || \
  cp "$auc_file" "$scratch/bad_v2.h5"
"$python" -c "import h5py
with h5py.File('$scratch/bad_v2.h5', 'r+') as f: del f['trajectory/train_auc'].attrs['direction']"
checks=$((checks + 1))
out=$("$python" tests/python/check_trajectory.py "$scratch/bad_v2.h5") && rc=0 || rc=$?
if [ "$rc" != 1 ] || [ "$(grep '^FAIL' <<<"$out")" != "FAIL: train_auc has direction min|max" ]; then
  echo "FAIL: check_trajectory.py finds the missing direction (exit $rc)"; echo "$out" | tail -n 5
  failures=$((failures + 1))
fi
finish
