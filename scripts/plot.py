#!/usr/bin/env python3
"""Plots one metric of fedbench trajectory files against a counter column.

    plot.py OUT.png FILE.h5... [--x round] [--y rel_error] [--title TEXT] [--linear]

Each file is one curve, labelled by its file name (without .h5). Runs that diverged or failed
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
    args = ap.parse_args()

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for path in sorted(args.files):
        with h5py.File(path, "r") as f:
            t = f["trajectory"]
            if args.y not in t or args.x not in t:
                raise SystemExit(f"plot.py: {path} has no column {args.y!r} or {args.x!r}; "
                                 f"columns: {t.attrs['columns']}")
            x, y = t[args.x][()], t[args.y][()]
            status = f.attrs["status"]
        label = os.path.basename(path)[:-3] if path.endswith(".h5") else os.path.basename(path)
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
