#!/usr/bin/python3
"""Reads a fedbench run file with h5py, as a user's own script would, and checks the documented
format (docs/hdf5-format.md) for any problem: root attributes, one extendible chunked 1-D
dataset per column, monotone counters, per-client totals that add up to the last row; and,
from format_version 2 on, the v2 extras (problem_kind, dim_x, env_* attributes, column
descriptions and units, metric directions, eval_time, the round dimension scale, /final)."""
import argparse
import sys

import h5py
import numpy as np

ROOT_ATTRS = ["format", "format_version", "fedbench_version", "git_commit", "compiler",
              "command_line", "config", "problem", "solver", "seed", "status", "stop_reason",
              "message", "rounds", "wall_time", "num_clients", "dim"]
V2_ROOT_ATTRS = {"problem_kind": str, "dim_x": int, "setup_time": float, "eval_time": float,
                 "env_cpu_model": str, "env_cores": int, "env_threads": int, "env_mpi_ranks": int,
                 "env_eigen_version": str, "env_hdf5_version": str, "env_compiler": str}
ORACLE = ["grad_x_calls", "grad_y_calls", "value_calls", "hvp_calls", "jvp_calls", "samples"]
COUNTERS = ORACLE + ["exchanges", "messages_up", "messages_down", "floats_up", "floats_down",
                     "bytes_up", "bytes_down"]
KINDS = ("index", "counter", "time", "metric")


def attr(obj, key, default=None):
    v = obj.attrs.get(key, default)
    return v.decode() if isinstance(v, bytes) else v


def client_totals(f, column):
    """/clients names its datasets like the columns (grad_x_calls) or by oracle kind (grad_x)."""
    for name in (column, column.removesuffix("_calls")):
        if name in f["clients"]:
            return f["clients"][name][()]
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--expect-rounds", type=int)
    ap.add_argument("--metric", default="", help="a metric that must be present "
                    "(default: the file's primary_metric)")
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
        version = int(attr(f, "format_version", 0))
        status = attr(f, "status")
        check(attr(f, "format") == "fedbench-trajectory", "format attribute")
        check(version in (1, 2), f"format_version is 1 or 2 (got {version})")
        check(status in ("ok", "diverged", "error"), "status value")
        check("problem:" in attr(f, "config", ""), "config text holds the problem")
        num_clients, dim = int(attr(f, "num_clients", 0)), int(attr(f, "dim", 0))

        t = f["trajectory"]
        columns = attr(t, "columns", "").split(",")
        check(columns[0] == "round", "round is the first column")
        check(set(columns) == set(t.keys()), "columns attribute lists every dataset")
        n = t["round"].shape[0] if "round" in t else 0
        check(n >= 1 or status == "error", "at least one row (round 0)")
        for name in columns:
            if name not in t:
                continue
            ds = t[name]
            check(ds.ndim == 1 and ds.shape[0] == n, f"{name} is 1-D with {n} rows")
            check(ds.chunks is not None and ds.maxshape == (None,), f"{name} is chunked and extendible")
            check(attr(ds, "kind") in KINDS, f"{name} has a kind attribute in {KINDS}")
        metrics = [c for c in columns if c in t and attr(t[c], "kind") == "metric"]
        if n:
            rounds = t["round"][()]
            check(rounds[0] == 0 and np.all(np.diff(rounds) > 0), "rounds start at 0 and increase")
            check(int(attr(f, "rounds")) >= rounds[-1], "rounds attribute covers the last row")
            if status != "error":
                check(int(attr(f, "rounds")) == rounds[-1], "the last row is the last round")
            for c in COUNTERS + ["wall_time"] + (["eval_time"] if version >= 2 else []):
                check(c in t and np.all(np.diff(t[c][()]) >= 0), f"{c} present and never decreasing")
            check(np.all(t["bytes_up"][()] >= 8 * t["floats_up"][()]), "bytes cover the floats up")
            check(np.all(t["bytes_down"][()] >= 8 * t["floats_down"][()]), "bytes cover the floats down")
        if args.expect_rounds is not None:
            check(n and t["round"][-1] == args.expect_rounds, f"last round is {args.expect_rounds}")
            check(int(attr(f, "rounds")) == args.expect_rounds, "rounds attribute")
        metric = args.metric or attr(f, "primary_metric", "rel_error")
        check(metric in metrics, f"metric {metric} present (metrics: {', '.join(metrics)})")
        if metric in metrics and n and status == "ok":
            m = t[metric][()]
            check(np.all(np.isfinite(m)), f"{metric} finite in a run that ended ok")
        if "rel_error" in metrics and n:
            check(abs(t["rel_error"][0] - 1.0) < 1e-12, "rel_error starts at 1")

        check(all(np.ndim(v) == 0 and np.issubdtype(np.asarray(v).dtype, np.floating)
                  for v in f["constants"].attrs.values()), "constants are real numbers")
        for group in ("params/problem", "params/solver"):
            check(group in f and all(isinstance(v, (str, bytes)) for v in f[group].attrs.values()),
                  f"{group} holds text attributes")
        sizes = f["partition/client_samples"][()]
        check(sizes.shape == (num_clients,) and sizes.min() >= 1,
              "partition/client_samples has one positive size per client")
        if "label_histogram" in f["partition"]:
            h = f["partition/label_histogram"][()]
            check(h.shape == (num_clients, f["partition/label_classes"].shape[0]) and
                  (h.sum(axis=1) == sizes).all(), "label histograms add up to the client sizes")
        for c in ORACLE:
            per_client = client_totals(f, c)
            check(per_client is not None and per_client.shape == (num_clients,),
                  f"clients/{c} has one total per client")
            if per_client is not None and n:
                check(per_client.sum() == t[c][-1], f"clients/{c} adds up to the last row")

        if version >= 2:
            for a, kind in V2_ROOT_ATTRS.items():
                v = attr(f, a)
                ok = isinstance(v, str) if kind is str else (
                    v is not None and np.issubdtype(np.asarray(v).dtype,
                                                    np.integer if kind is int else np.floating))
                check(ok, f"v2 root attribute {a} ({kind.__name__})")
            check(attr(f, "problem_kind") in ("minimax", "bilevel"), "problem_kind value")
            dim_x = int(attr(f, "dim_x", -1))
            check(0 < dim_x < dim, f"0 < dim_x ({dim_x}) < dim ({dim})")
            check("eval_time" in columns and attr(t["eval_time"], "kind") == "time",
                  "eval_time column of kind time")
            for name in columns:
                ds = t[name]
                check("description" in ds.attrs and "unit" in ds.attrs,
                      f"{name} has description and unit")
                if name in metrics:
                    check(attr(ds, "direction") in ("min", "max"), f"{name} has direction min|max")
            r = t["round"]
            check(attr(r, "CLASS") == "DIMENSION_SCALE" and attr(r, "NAME") == "round",
                  "round is a dimension scale named round")
            for name in columns[1:]:
                scales = t[name].dims[0].keys() if t[name].ndim == 1 else []
                check("round" in scales, f"{name} has the round scale on dimension 0")
            if "final" in f or status != "error":
                fin = f.get("final")
                check(fin is not None and "x" in fin and "y" in fin, "/final holds x and y")
                if fin is not None and "x" in fin and "y" in fin:
                    check(fin["x"].shape == (dim_x,), f"/final/x has dim_x = {dim_x} entries")
                    check(fin["y"].shape == (dim - dim_x,), f"/final/y has dim - dim_x = {dim - dim_x}")
                    if "y_star" in fin:
                        check(fin["y_star"].shape == fin["y"].shape, "/final/y_star has y's size")
                    check(int(attr(fin, "round", -1)) == int(attr(f, "rounds")),
                          "/final round is the rounds attribute")

    for what in failures:
        print("FAIL:", what)
    print(f"check_trajectory: {checks - len(failures)} passed, {len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
