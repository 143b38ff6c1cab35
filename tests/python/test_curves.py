#!/usr/bin/python3
"""Unit checks of the curve arithmetic behind plot.py, summary.py and report.py (no files
needed): targets, where a diverged run ends, medians over the runs still alive."""
import os
import sys

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import fedbench_curves as fc  # noqa: E402
import fedbench_read as fr  # noqa: E402

checks = failures = 0


def check(ok, what):
    global checks, failures
    checks += 1
    if not ok:
        failures += 1
        print("FAIL:", what)


check(fc.parse_target("test_accuracy>=0.9") == ("test_accuracy", ">=", 0.9), "parse >=")
check(fc.parse_target(" rel_error <= 1e-6 ") == ("rel_error", "<=", 1e-6), "parse <=")
for bad in ("rel_error=1", "rel_error<=x", "<=1"):
    try:
        fc.parse_target(bad)
        check(False, f"{bad!r} refused")
    except ValueError:
        check(True, "")

# A run that blows up ends at its last sane row; a huge value and inf both end it.
y = np.array([1.0, 0.5, 0.1, 3e12, np.inf])
check(fc.alive_rows(y, fc.absurd_limit([y])) == 3, "diverged run ends before 3e12")
check(fc.alive_rows(np.array([1.0, np.nan, 0.1]), 1e10) == 1, "NaN ends a run")
check(fc.absurd_limit([np.zeros(3), np.array([0.0, -2.0, -4.0])]) == 3e10,
      "curves starting at 0: scale from their typical size")

# Median over the runs still alive: one run stops at round 4, the others go on to round 8.
members = [(np.array([0, 4, 8]), np.array([0, 40, 80]), np.array([1.0, 0.1, 0.01])),
           (np.array([0, 4, 8]), np.array([0, 40, 80]), np.array([1.0, 0.3, 0.03])),
           (np.array([0, 4]), np.array([0, 40]), np.array([1.0, 0.2]))]
x, med, low, high, alive = fc.median_curve(members, log=True)
check(list(alive) == [3, 3, 2], f"alive counts {alive}")
check(np.allclose(med, [1.0, 0.2, 0.02]), f"medians over the alive runs {med}")
check(np.allclose(low, [1, 0.1, 0.01]) and np.allclose(high, [1, 0.3, 0.03]), "band")
check(np.allclose(x, [0, 40, 80]), "x is the median x")
# Different evaluation schedules are interpolated onto the union of rounds.
x, med, *_ = fc.median_curve([(np.array([0, 10]), np.array([0, 10]), np.array([1.0, 1e-2])),
                              (np.array([0, 5, 10]), np.array([0, 5, 10]), np.array([1.0, 0.1, 1e-2]))],
                             log=True)
check(np.allclose(med, [1, 0.1, 1e-2]), f"log interpolation {med}")

run = pd.DataFrame({"round": [0, 2, 4, 6], "acc": [0.5, 0.7, 0.9, 0.95], "bytes": [0, 10, 20, 30]})
check(fc.first_reach(run, "acc", ">=", 0.9, ("round", "bytes")) == {"round": 4.0, "bytes": 20.0},
      "first row reaching >=")
check(fc.first_reach(run, "acc", "<=", 0.4)["round"] == np.inf, "never reached is inf")
check(fc.value_at_round(run, "acc", 5) == 0.9, "value at round 5 is the row of round 4")

check(fr.metric_direction("test_accuracy") == "max" and fr.metric_direction("train_auc") == "max"
      and fr.metric_direction("hypergrad_norm") == "min", "v1 directions")
df = pd.DataFrame({"solver.step_size": [0.1, 0.1, 1.0], "solver.local_steps": [5, 5, 5],
                   "problem.dim": [3, 3, 3], "solver.comm_prob": [np.nan] * 3, "round": [0, 1, 2]})
check(fr.varying_params(df) == ["solver.step_size"], f"varying {fr.varying_params(df)}")
check(fr.resolve_key(df, "step_size") == "solver.step_size" and fr.resolve_key(df, "dim") == "problem.dim",
      "bare parameter names resolve")

print(f"test_curves: {checks - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)
