#!/usr/bin/env bash
# Suites: plan, grids, the same bytes for --jobs 1, --jobs 2 (whose last runs take the finished
# job's core mid-run) and mpirun -np 2, resume after
# SIGKILL, bad suite files rejected before any run with the line, CSV export.
source "$(dirname "$0")/lib.bash"
here=$(dirname "$0")
smoke=results/suites/smoke.yaml

expect_ok "20 runs valid: 0 done, 0 partial, 20 new" "$fedbench" plan $smoke --results "$scratch/j1"
expect_ok "20 finished now, 0 already done, 2 diverged, 0 failed" \
  "$fedbench" run $smoke --results "$scratch/j1" --jobs 1
expect_ok "0 finished now, 20 already done" "$fedbench" run $smoke --results "$scratch/j1"
expect_ok "20 runs valid: 20 done" "$fedbench" plan $smoke --results "$scratch/j1"
expect_ok "20 finished now, 0 already done" "$fedbench" run $smoke --results "$scratch/j1" --force
expect_ok "20 finished now" "$fedbench" run $smoke --results "$scratch/j2" --jobs 2
# Command-line grids replace the file's and apply to every solver declaring the key: two
# values of comm_prob double the 10 ProxSkip runs (6 + 2 + 2), the other 10 stay: 30.
expect_ok "suite smoke: 30 runs valid" "$fedbench" plan $smoke -s "comm_prob=0.2,logspace(0,0,1)" \
  --results "$scratch/cli"
expect_fail 2 "fedbench: no solver of the suite has a parameter 'bogus'" \
  "$fedbench" plan $smoke -s bogus=1,2
if command -v mpirun >/dev/null; then
  expect_ok "20 finished now" mpirun -np 2 --oversubscribe --allow-run-as-root \
    "$fedbench" run $smoke --results "$scratch/mpi" --jobs 1
fi

same_columns "$scratch/j1" "$scratch/j2"
[ -d "$scratch/mpi" ] && same_columns "$scratch/j1" "$scratch/mpi"

# mpirun beside another process on one directory: the ranks deal the runs among themselves
# from the whole suite (not from what each saw done at its start), so no run falls between
# them, and each summary counts its own: finished now + already done = the suite, and the
# runs finished now by both processes add up to the suite.
if command -v mpirun >/dev/null; then
  summary_counts() {  # "N finished now ... M already done" -> "N M"
    sed -n 's/.* runs: \([0-9]*\) finished now.*, \([0-9]*\) already done.*/\1 \2/p' "$1"
  }
  "$fedbench" run "$here/suites/long.yaml" --results "$scratch/shared" --jobs 1 >"$scratch/plain.out" 2>&1 &
  plain=$!
  mpirun -np 2 --oversubscribe --allow-run-as-root "$fedbench" run "$here/suites/long.yaml" \
    --results "$scratch/shared" --jobs 1 >"$scratch/mpi-shared.out" 2>&1
  wait $plain
  read -r mpi_now mpi_done < <(summary_counts "$scratch/mpi-shared.out")
  read -r plain_now plain_done < <(summary_counts "$scratch/plain.out")
  checks=$((checks + 1))
  if [ "$((mpi_now + mpi_done))" != 12 ] || [ "$((plain_now + plain_done))" != 12 ] ||
     [ "$((mpi_now + plain_now))" != 12 ]; then
    echo "FAIL: summaries of mpirun beside another process: mpirun $mpi_now + $mpi_done, plain $plain_now + $plain_done (want 12 each, 12 run in all)"
    cat "$scratch/mpi-shared.out" "$scratch/plain.out"; failures=$((failures + 1))
  fi
  results_intact "$scratch/shared"
fi

# SIGKILL in the middle, then rerun: the same final files as an uninterrupted run.
"$fedbench" run "$here/suites/long.yaml" --results "$scratch/killed" --jobs 1 -q &
pid=$!
# Kill as soon as two runs are finished (each takes ~0.3 s): well inside the suite.
for _ in $(seq 1 400); do
  [ "$(ls "$scratch/killed/runs" 2>/dev/null | grep -c '\.h5$')" -ge 2 ] && break
  sleep 0.02
done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
checks=$((checks + 1))
finished=$(ls "$scratch/killed/runs" | grep -c '\.h5$' || true)
if [ "$finished" -ge 12 ]; then echo "FAIL: the kill came too late ($finished runs done)"; failures=$((failures + 1)); fi
expect_ok "12 runs: $((12 - finished)) finished now, $finished already done" \
  "$fedbench" run "$here/suites/long.yaml" --results "$scratch/killed"
expect_ok "12 finished now" "$fedbench" run "$here/suites/long.yaml" --results "$scratch/whole"
same_columns "$scratch/killed" "$scratch/whole"
checks=$((checks + 1))
if ls "$scratch/killed/runs" | grep -q '\.part$'; then
  # a .part left by the kill is overwritten by the rerun, never read as finished
  stale=$(ls "$scratch/killed/runs" | grep '\.part$')
  for p in $stale; do [ -f "$scratch/killed/runs/${p%.part}" ] || { echo "FAIL: $p not redone"; failures=$((failures + 1)); }; done
fi

# Bad suite files: one line with file and line, exit 2, nothing run.
s=$here/suites
expect_fail 2 "fedbench: $s/bad_unknown_key.yaml:7: unknown key 'parms' in solver entry; valid: name, params, participation (did you mean 'params'?)" \
  "$fedbench" run $s/bad_unknown_key.yaml --results "$scratch/bad"
expect_fail 2 "fedbench: $s/bad_type.yaml:2: rounds = 'ten' is not a whole number from 0 to 9e18" \
  "$fedbench" run $s/bad_type.yaml --results "$scratch/bad"
expect_fail 2 "fedbench: $s/bad_empty_grid.yaml:7: solver gda step_size: empty grid" \
  "$fedbench" plan $s/bad_empty_grid.yaml --results "$scratch/bad"
expect_fail 2 "fedbench: $s/bad_yaml.yaml:3: malformed YAML: illegal block entry" \
  "$fedbench" run $s/bad_yaml.yaml --results "$scratch/bad"
expect_fail 2 "fedbench: $s/bad_dataset.yaml:5: problem robust-least-squares: cannot open dataset /nonexistent/a9a: No such file or directory (LIBSVM files are in ../shared/datasets/libsvm/)" \
  "$fedbench" run $s/bad_dataset.yaml --results "$scratch/bad"
expect_fail 2 "fedbench: $s/bad_value.yaml:5: solver proxskip-gda-fl: comm_prob = 0 violates 0 < comm_prob <= 1" \
  "$fedbench" run $s/bad_value.yaml --results "$scratch/bad"
checks=$((checks + 1))
if [ -d "$scratch/bad/runs" ] && [ -n "$(ls "$scratch/bad/runs")" ]; then echo "FAIL: a bad suite ran something"; failures=$((failures + 1)); fi
expect_fail 2 "fedbench: cannot open suite $s/missing.yaml: no such file or not readable" \
  "$fedbench" plan $s/missing.yaml

# Export: one long table pandas-style readers take directly.
"$fedbench" export "$scratch/j1" --csv -o "$scratch/all.csv"
checks=$((checks + 1))
if ! "$python" - "$scratch/all.csv" "$scratch/j1" <<'PY'
import csv, os, sys, h5py
rows = list(csv.DictReader(open(sys.argv[1])))
want = sum(h5py.File(f"{sys.argv[2]}/runs/{n}")["trajectory/round"].shape[0]
           for n in os.listdir(f"{sys.argv[2]}/runs"))
assert len(rows) == want, (len(rows), want)
for col in ("id", "status", "solver", "problem.clients", "solver.step_size", "seed", "round",
            "samples", "bytes_up", "rel_error"):
    assert col in rows[0], col
assert {r["solver"] for r in rows} >= {"proxskip-gda-fl", "local-sgda", "gda"}
assert any(r["status"] == "diverged" for r in rows)
PY
then failures=$((failures + 1)); echo "FAIL: CSV export"; fi
finish
