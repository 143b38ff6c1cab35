#!/usr/bin/python3
"""Markdown table of a suite's runs: per group (by default the solver), the median over the
group's runs (seeds) of chosen columns at chosen rounds, and the first round at which a
metric reaches a threshold.

    summary.py RESULTS_DIR|FILE.h5... [--at 1000,4000] [--columns upper_value,test_accuracy]
               [--group solver[,step_size]] [--reach 'upper_value<=0.3355' | 'test_accuracy>=0.9']

A value at round R is the last recorded row with round <= R; a run that did not end "ok" (or
reads NaN) counts as the worst value of the column's direction, so a group's median is the
score `fedbench select` and the experiments' claims give it (lib/results/score.hpp). The runs
column says how many ended ok; the first-reach median counts failed runs as never reaching.
Uses the fedbench_read module (numpy, pandas, h5py)."""
import argparse
import os
import sys

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fedbench_curves as fc  # noqa: E402
import fedbench_read as fr  # noqa: E402


def is_ok(run):
    return run.attrs.get("status") == "ok" and len(run) > 0


def scored_value(run, column, r):
    """The column at round r as fedbench scores it: the worst value of its direction for a run
    that did not end ok or reads NaN."""
    value = fc.value_at_round(run, column, r) if is_ok(run) else np.nan
    if np.isnan(value):
        direction = run.attrs["columns_meta"].get(column, {}).get("direction", "min")
        return -np.inf if direction == "max" else np.inf
    return value


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("inputs", nargs="+", help="a results directory (its runs/*.h5) or files")
    ap.add_argument("--at", default="", help="rounds, comma-separated (default: the last round)")
    ap.add_argument("--columns", default="", help="columns (default: the primary metric)")
    ap.add_argument("--group", default="solver", help="keys naming a group, comma-separated "
                    "(solver, problem, seed or a parameter)")
    ap.add_argument("--reach", default="", help="METRIC<=VALUE or METRIC>=VALUE: first round reaching it")
    args = ap.parse_args()

    runs = fr.read_runs(args.inputs)
    if not runs:
        sys.exit(f"summary.py: no readable .h5 files in {' '.join(args.inputs)}")
    ok = [r for r in runs if r.attrs.get("status") == "ok" and len(r)]
    if not ok:
        sys.exit("summary.py: no run ended ok")
    reach = None
    if args.reach:
        try:
            reach = fc.parse_target(args.reach)
        except ValueError as e:
            sys.exit(f"summary.py: --reach: {e}")
    columns = args.columns.split(",") if args.columns else [ok[0].attrs["primary_metric"]]
    # Runs of several problems have different metrics: a column must exist in some run, and a
    # run without it is left out of that column's medians.
    present = set().union(*(r.columns for r in ok))
    for c in columns + ["round"] + ([reach[0]] if reach else []):
        if c not in present:
            sys.exit(f"summary.py: no column {c!r}; columns: {', '.join(sorted(present))}")
    last = int(max(r["round"].iloc[-1] for r in ok))
    rounds = [int(float(r)) for r in args.at.split(",")] if args.at else [last]

    info = pd.DataFrame([fr.run_info(r) for r in runs])
    try:
        keys = [fr.resolve_key(info, k.strip()) for k in args.group.split(",") if k.strip()]
    except KeyError as e:
        sys.exit(f"summary.py: --group: {e.args[0]}")
    header = [",".join(k.split(".", 1)[-1] for k in keys), "runs"]
    header += [f"{c} @{r}" for r in rounds for c in columns]
    if reach:
        header.append(f"first round {reach[0]} {reach[1]} {reach[2]:g}")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for values, idx in info.groupby(keys, dropna=False, sort=True).groups.items():
        values = values if isinstance(values, tuple) else (values,)
        members = [runs[i] for i in idx]
        good = [r for r in members if is_ok(r)]
        cells = [" ".join(fr.format_value(v) for v in values), f"{len(good)}/{len(members)} ok"]
        for r in rounds:
            for c in columns:
                vals = [scored_value(run, c, r) for run in members if c in run.columns]
                cells.append(f"{np.median(vals):.6g}" if vals else "-")
        if reach:
            hits = [fc.first_reach(run, *reach)["round"] if is_ok(run) else np.inf
                    for run in members if reach[0] in run.columns]
            med = np.median(hits) if hits else np.inf
            cells.append("-" if not hits else "not reached" if not np.isfinite(med) else f"{med:.0f}")
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
