#!/usr/bin/env bash
# A real run written to HDF5, read back by `fedbench show` and by python3-h5py as a user's
# own script would; the same seed gives the same columns with 1 and 2 threads.
source "$(dirname "$0")/lib.bash"
small=(-p clients=4 -p samples=5 -p dim=3)

expect_ok "status: ok" "$fedbench" run --problem quadratic-game --solver proxskip-sgda-fl \
  --rounds 50 --seed 3 --threads 1 -o "$scratch/a.h5" "${small[@]}"
expect_ok "status: ok" "$fedbench" run --problem quadratic-game --solver proxskip-sgda-fl \
  --rounds 50 --seed 3 --threads 2 -o "$scratch/b.h5" "${small[@]}"
expect_ok "passed" "$python" tests/python/check_trajectory.py "$scratch/a.h5" --expect-rounds 50 --metric rel_error
expect_ok "solver: *\"?proxskip-sgda-fl|proxskip-sgda-fl" "$fedbench" show "$scratch/a.h5"
checks=$((checks + 1))
if ! "$python" - "$scratch/a.h5" "$scratch/b.h5" <<'PY'
import sys, h5py, numpy as np
a, b = (h5py.File(p, "r") for p in sys.argv[1:3])
for name in a["trajectory"]:
    if name in ("wall_time", "eval_time"):
        continue
    if not np.array_equal(a["trajectory"][name][()], b["trajectory"][name][()]):
        sys.exit(f"column {name} differs between 1 and 2 threads")
PY
then failures=$((failures + 1)); echo "FAIL: thread-count determinism through HDF5"; fi

# A diverging run is a result: status diverged, exit 0, file written.
expect_ok "status: diverged" "$fedbench" run --problem quadratic-game --solver gda -s step_size=80 \
  --rounds 300 -o "$scratch/div.h5" "${small[@]}"
expect_ok "diverged" "$fedbench" show "$scratch/div.h5"

# --time-limit bounds the run's wall clock, evaluations included: with an exact bilevel
# evaluation every round (tens of ms each), 10^6 rounds stop at the limit long before their end.
"$fedbench" run --problem hyper-logreg -p dataset=a9a --solver fedbioacc --rounds 1000000 --eval-every 1 \
  --time-limit 1 -q -o "$scratch/limit.h5" > /dev/null 2>&1
expect_ok "stop_reason: time_limit" "$python" - "$scratch/limit.h5" <<'PY'
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    clock = f["trajectory/wall_time"][()] + f["trajectory/eval_time"][()]
    spent = clock[-1]
    rounds = int(f["trajectory/round"][-1])
    reason = f.attrs["stop_reason"]
    reason = reason.decode() if isinstance(reason, bytes) else reason
    # stopped within a round and an evaluation or two of the limit, however long those take
    # on this build (a sanitizer's evaluation can take seconds)
    step = max([clock[0]] + [b - a for a, b in zip(clock, clock[1:])])
    ok = reason == "time_limit" and rounds < 1000000 and spent < 1 + 2 * step + 0.5
    print(f"stop_reason: {reason}" if ok else f"bad: {reason}, {rounds} rounds, {spent} s")
PY

expect_ok "proxskip-vip-fl" "$fedbench" list solvers
expect_ok "dim +int +20" "$fedbench" list problems
expect_ok "comm_prob +real +theory" "$fedbench" describe proxskip-gda-fl
finish
