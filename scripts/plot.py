#!/usr/bin/env python3
"""Plots one metric of fedbench trajectory files against a counter column.

    plot.py OUT.png FILE.h5... [--x round] [--y rel_error] [--title TEXT] [--linear]
                   [--group solver]

Each file is one curve, labelled by its file name (without .h5). With --group ATTR (a root
attribute, e.g. solver), the files of each value of ATTR (the seeds of a suite) make one
curve, their median row by row, with the range shaded. Runs that diverged or failed
are drawn dashed and marked in the legend. Uses python3-h5py and python3-matplotlib (Agg)."""
import argparse
import os

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("files", nargs="+")
    ap.add_argument("--x", default="round", help="x column (round, samples, bytes_up, ...)")
    ap.add_argument("--y", default="rel_error", help="metric column")
    ap.add_argument("--title", default="")
    ap.add_argument("--linear", action="store_true", help="linear y axis (default: log)")
    ap.add_argument("--group", default="", help="root attribute: one median curve per value")
    args = ap.parse_args()

    curves = {}  # label -> (list of x arrays, list of y arrays, statuses)
    for path in sorted(args.files):
        with h5py.File(path, "r") as f:
            t = f["trajectory"]
            if args.y not in t or args.x not in t:
                raise SystemExit(f"plot.py: {path} has no column {args.y!r} or {args.x!r}; "
                                 f"columns: {t.attrs['columns']}")
            if args.group and args.group not in f.attrs:
                raise SystemExit(f"plot.py: {path} has no attribute {args.group!r}")
            label = str(f.attrs[args.group]) if args.group else (
                os.path.basename(path)[:-3] if path.endswith(".h5") else os.path.basename(path))
            xs, ys, statuses = curves.setdefault(label, ([], [], []))
            xs.append(t[args.x][()])
            ys.append(t[args.y][()])
            statuses.append(f.attrs["status"])

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for label, (xs, ys, statuses) in sorted(curves.items()):
        rows = min(len(y) for y in ys)  # seeds that stopped early shorten the curve
        x = np.median([v[:rows] for v in xs], axis=0)
        y = np.median([v[:rows] for v in ys], axis=0)
        if len(ys) > 1:
            low, high = np.min([v[:rows] for v in ys], axis=0), np.max([v[:rows] for v in ys], axis=0)
            ax.fill_between(x, low, high, alpha=0.15)
            label += f" (median of {len(ys)})"
        status = "ok" if all(s == "ok" for s in statuses) else next(s for s in statuses if s != "ok")
        style = "-" if status == "ok" else "--"
        if status != "ok":
            label += f" ({status})"
        if not args.linear:
            y = np.where(y > 0, y, np.nan)  # log axes cannot show 0
        ax.plot(x, y, style, label=label, linewidth=1.5)
    if not args.linear:
        ax.set_yscale("log")
    ax.set_xlabel("communication rounds" if args.x == "round" else args.x)
    ax.set_ylabel({"rel_error": "relative error ||z - z*||² / ||z0 - z*||²"}.get(args.y, args.y))
    ax.set_title(args.title)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print(f"plot.py: wrote {args.out}")


if __name__ == "__main__":
    main()
