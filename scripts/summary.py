#!/usr/bin/env python3
"""Markdown table of a suite's runs: per group (by default the solver), the median over the
group's runs (seeds) of chosen columns at chosen rounds, and the first round at which a
metric reaches a threshold.

    summary.py RESULTS_DIR|FILE.h5... [--at 1000,4000] [--columns upper_value,test_accuracy]
               [--group solver] [--reach upper_value<=0.3355]

A value at round R is the last recorded row with round <= R. Runs that did not end "ok" are
listed as such and left out of the medians. Uses python3-h5py and numpy."""
import argparse
import glob
import os

import h5py
import numpy as np


def load(paths):
    runs = []
    for path in paths:
        with h5py.File(path, "r") as f:
            t = f["trajectory"]
            runs.append({"attrs": {k: f.attrs[k] for k in f.attrs},
                         "columns": {k: t[k][()] for k in t}})
    return runs


def at_round(run, column, r):
    rounds = run["columns"]["round"]
    rows = np.nonzero(rounds <= r)[0]
    return run["columns"][column][rows[-1]] if len(rows) else np.nan


def first_reach(run, column, threshold):
    hit = np.nonzero(run["columns"][column] <= threshold)[0]
    return run["columns"]["round"][hit[0]] if len(hit) else np.inf


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("inputs", nargs="+", help="a results directory (its runs/*.h5) or files")
    ap.add_argument("--at", default="", help="rounds, comma-separated (default: the last round)")
    ap.add_argument("--columns", default="", help="columns (default: the primary metric)")
    ap.add_argument("--group", default="solver", help="root attribute that names a group")
    ap.add_argument("--reach", default="", help="METRIC<=VALUE: first round reaching it")
    args = ap.parse_args()

    paths = []
    for item in args.inputs:
        paths += sorted(glob.glob(os.path.join(item, "runs", "*.h5"))) if os.path.isdir(item) else [item]
    if not paths:
        raise SystemExit(f"summary.py: no .h5 files in {args.inputs}")
    runs = load(paths)
    ok = [r for r in runs if r["attrs"]["status"] == "ok"]
    if not ok:
        raise SystemExit("summary.py: no run ended ok")
    columns = args.columns.split(",") if args.columns else [ok[0]["attrs"].get("primary_metric", "rel_error")]
    for c in columns + ["round"]:
        if c not in ok[0]["columns"]:
            raise SystemExit(f"summary.py: no column {c!r}; columns: {', '.join(ok[0]['columns'])}")
    last = int(max(r["columns"]["round"][-1] for r in ok))
    rounds = [int(float(r)) for r in args.at.split(",")] if args.at else [last]

    header = [args.group, "runs"] + [f"{c} @{r}" for r in rounds for c in columns]
    if args.reach:
        metric, value = args.reach.split("<=")
        header.append(f"first round {metric} <= {value}")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    groups = {}
    for run in runs:
        groups.setdefault(str(run["attrs"][args.group]), []).append(run)
    for name, members in sorted(groups.items()):
        good = [r for r in members if r["attrs"]["status"] == "ok"]
        cells = [name, f"{len(good)}/{len(members)} ok"]
        for r in rounds:
            for c in columns:
                vals = [at_round(run, c, r) for run in good]
                cells.append(f"{np.median(vals):.6g}" if vals else "-")
        if args.reach:
            hits = [first_reach(run, metric, float(value)) for run in good]
            med = np.median(hits) if hits else np.inf
            cells.append("not reached" if np.isinf(med) else f"{med:.0f}")
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
