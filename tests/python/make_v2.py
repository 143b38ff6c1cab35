#!/usr/bin/python3
"""Writes a format-version-2 copy of a version-1 run file (test fixture only): the v2 root
attributes, column descriptions, units and metric directions, an eval_time column, the round
dimension scale and /final. Lets the Python readers' v2 paths be tested on files of any build.

    make_v2.py IN_V1.h5 OUT_V2.h5 [--dim-x N] [--y-star]"""
import argparse
import shutil

import h5py
import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--dim-x", type=int, default=0, help="default: half of dim")
    ap.add_argument("--y-star", action="store_true", help="also write /final/y_star")
    args = ap.parse_args()
    shutil.copyfile(args.src, args.dst)
    with h5py.File(args.dst, "r+") as f:
        if int(f.attrs["format_version"]) != 1:
            raise SystemExit(f"make_v2: {args.src} is not a version-1 file")
        dim = int(f.attrs["dim"])
        dim_x = args.dim_x or dim // 2
        f.attrs["format_version"] = np.int64(2)
        f.attrs["problem_kind"] = "bilevel" if "hypergrad_norm" in f["trajectory"] else "minimax"
        f.attrs["dim_x"] = np.int64(dim_x)
        f.attrs["setup_time"] = 0.01
        f.attrs["eval_time"] = 0.002
        for k, v in {"env_cpu_model": "Test CPU", "env_eigen_version": "3.4.0",
                     "env_hdf5_version": "1.10.8", "env_compiler": "GNU 12.2.0"}.items():
            f.attrs[k] = v
        for k in ("env_cores", "env_threads", "env_mpi_ranks"):
            f.attrs[k] = np.int64(1)
        t = f["trajectory"]
        columns = t.attrs["columns"].split(",")
        n = t["round"].shape[0]
        t.create_dataset("eval_time", data=np.linspace(0.0, 0.002, n), maxshape=(None,), chunks=True)
        t["eval_time"].attrs["kind"] = "time"
        columns.insert(columns.index("wall_time") + 1, "eval_time")
        t.attrs["columns"] = ",".join(columns)
        for name in columns:
            ds = t[name]
            ds.attrs["description"] = f"{name} (test description)"
            ds.attrs["unit"] = "s" if ds.attrs["kind"] == "time" else "1"
            if ds.attrs["kind"] == "metric":
                better_high = "accuracy" in name or "auc" in name
                ds.attrs["direction"] = "max" if better_high else "min"
        t["round"].make_scale("round")
        for name in columns[1:]:
            t[name].dims[0].attach_scale(t["round"])
        fin = f.create_group("final")
        fin.attrs["round"] = np.int64(f.attrs["rounds"])
        fin["x"] = np.zeros(dim_x)
        fin["y"] = np.ones(dim - dim_x)
        if args.y_star:
            fin["y_star"] = np.ones(dim - dim_x)


if __name__ == "__main__":
    main()
