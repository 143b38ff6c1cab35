#!/usr/bin/env python3
"""Reads a fedbench trajectory file with h5py, as a user's own script would, and checks the
documented format (docs/hdf5-format.md): root attributes, one extendible chunked 1-D dataset
per column, monotone counters, per-client totals that add up to the last row."""
import argparse
import sys

import h5py
import numpy as np

ROOT_ATTRS = ["format", "format_version", "fedbench_version", "git_commit", "compiler",
              "command_line", "config", "problem", "solver", "seed", "status", "stop_reason",
              "message", "rounds", "wall_time", "num_clients", "dim"]
COUNTERS = ["grad_x_calls", "grad_y_calls", "value_calls", "hvp_calls", "jvp_calls", "samples",
            "exchanges", "messages_up", "messages_down", "floats_up", "floats_down",
            "bytes_up", "bytes_down"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--expect-rounds", type=int)
    ap.add_argument("--metric", default="rel_error")
    args = ap.parse_args()
    failures = []
    checks = 0

    def check(ok, what):
        nonlocal checks
        checks += 1
        if not ok:
            failures.append(what)

    with h5py.File(args.file, "r") as f:
        for a in ROOT_ATTRS:
            check(a in f.attrs, f"root attribute {a} missing")
        check(f.attrs.get("format") == "fedbench-trajectory", "format attribute")
        check(int(f.attrs.get("format_version", 0)) == 1, "format_version is 1")
        check(f.attrs.get("status") in ("ok", "diverged", "error"), "status value")
        check("problem:" in f.attrs.get("config", ""), "config text holds the problem")
        t = f["trajectory"]
        columns = t.attrs["columns"].split(",")
        check(columns[0] == "round", "round is the first column")
        check(set(columns) == set(t.keys()), "columns attribute lists every dataset")
        n = t["round"].shape[0]
        for name in columns:
            ds = t[name]
            check(ds.ndim == 1 and ds.shape[0] == n, f"{name} is 1-D with {n} rows")
            check(ds.chunks is not None and ds.maxshape == (None,),
                  f"{name} is chunked and extendible")
            check("kind" in ds.attrs, f"{name} has a kind attribute")
        rounds = t["round"][()]
        check(rounds[0] == 0 and np.all(np.diff(rounds) > 0), "rounds start at 0 and increase")
        if args.expect_rounds is not None:
            check(rounds[-1] == args.expect_rounds, f"last round is {args.expect_rounds}")
            check(int(f.attrs["rounds"]) == args.expect_rounds, "rounds attribute")
        for c in COUNTERS + ["wall_time"]:
            check(c in t and np.all(np.diff(t[c][()]) >= 0), f"{c} never decreases")
        check(np.all(t["bytes_up"][()] >= 8 * t["floats_up"][()]), "bytes cover the floats")
        check(args.metric in t, f"metric {args.metric} present")
        if args.metric in t:
            m = t[args.metric][()]
            check(np.all(np.isfinite(m)), f"{args.metric} finite")
            if args.metric == "rel_error":
                check(abs(m[0] - 1.0) < 1e-12, "rel_error starts at 1")
        for k in ("mu", "lipschitz", "cocoercivity"):
            check(k in f["constants"].attrs, f"constant {k} stored")
        check(len(f["params/solver"].attrs) > 0, "solver parameters stored")
        sizes = f["partition/client_samples"][()]
        check(sizes.shape == (int(f.attrs["num_clients"]),) and sizes.min() >= 1,
              "partition/client_samples has one positive size per client")
        if "label_histogram" in f["partition"]:
            h = f["partition/label_histogram"][()]
            check(h.shape == (sizes.shape[0], f["partition/label_classes"].shape[0]) and
                  (h.sum(axis=1) == sizes).all(), "label histograms add up to the client sizes")
        for c in ("grad_x_calls", "samples"):
            per_client = f["clients"][c][()]
            check(per_client.shape == (int(f.attrs["num_clients"]),), f"clients/{c} per client")
            check(per_client.sum() == t[c][-1], f"clients/{c} adds up to the last row")

    for what in failures:
        print("FAIL:", what)
    print(f"check_trajectory: {checks - len(failures)} passed, {len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
