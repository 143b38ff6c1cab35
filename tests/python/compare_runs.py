"""Compares two fedbench run files column by column: counters and the index exactly, metrics to a
relative tolerance (0: bit for bit), timing columns not at all. Prints the largest relative
difference of the metrics; exits 1 naming the first column that differs.

usage: compare_runs.py A.h5 B.h5 [--rtol 1e-12]"""
import argparse
import sys

import h5py
import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--rtol", type=float, default=0.0)
    ap.add_argument("--ignore", action="append", default=[],
                    help="a column to leave out of both files (e.g. a C++ solver's own diagnostic, "
                         "which a Python plug-in does not declare)")
    args = ap.parse_args()
    worst = 0.0
    with h5py.File(args.a, "r") as a, h5py.File(args.b, "r") as b:
        for f in (a, b):
            if f.attrs["status"] != "ok":
                sys.exit(f"{f.filename}: status {f.attrs['status']}")
        ta, tb = a["trajectory"], b["trajectory"]
        ca = sorted(c for c in ta if c not in args.ignore)
        cb = sorted(c for c in tb if c not in args.ignore)
        if ca != cb:
            sys.exit(f"different columns: {ca} vs {cb}")
        for name in ca:
            kind = ta[name].attrs.get("kind", "")
            if isinstance(kind, bytes):
                kind = kind.decode()
            x, y = ta[name][()], tb[name][()]
            if kind == "time":
                continue
            if x.shape != y.shape:
                sys.exit(f"column {name}: {x.shape} rows vs {y.shape}")
            if kind != "metric":
                if not np.array_equal(x, y):
                    sys.exit(f"column {name} ({kind}) differs")
                continue
            scale = np.maximum(np.abs(x), np.finfo(float).tiny)
            rel = float(np.max(np.abs(x - y) / scale)) if x.size else 0.0
            worst = max(worst, rel)
            if not rel <= args.rtol:
                sys.exit(f"metric {name}: relative difference {rel:.3e} > {args.rtol:g}")
    print(f"max relative metric difference {worst:.3e}")


if __name__ == "__main__":
    main()
