#!/usr/bin/python3
"""Plots one metric of fedbench run files against a counter column.

    plot.py OUT.png FILE.h5|RESULTS_DIR... [--x round] [--y METRIC[,METRIC...]] [--title TEXT]
                   [--linear] [--group solver[,step_size,...]] [--panel KEY]

Each run is one curve, labelled by its solver and the parameters that differ between the
plotted runs. With --group KEYS (comma-separated: solver, problem, seed, participation, or any
parameter name such as step_size or solver.step_size), the runs of each combination of values
make one curve: the median over the runs still alive at each round, the min-max range shaded.
A run whose metric turns non-finite or absurd (diverged) ends there, marked with an 'x'.
x may be any column, or bytes (up + down) or oracle_calls (sum of the *_calls columns).
Metrics where higher is better (accuracy, AUC) use a linear axis. Several metrics in --y
(comma-separated) draw one row of panels each; --panel KEY draws one
column of panels per value of KEY (e.g. lambda or dataset), with one shared legend.
Names, values and titles are drawn as written (a '$' is a dollar sign, never mathtext).
The figure is written to a temporary file beside OUT and renamed over it. Started by fedbench,
the script ends when fedbench does (fedbench_read.exit_with_parent); SIGTERM ends it without
leaving a temporary file. Uses numpy, pandas, h5py and matplotlib (Agg)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# First of all: fedbench_read notes which process started this one.
import fedbench_read as fr  # noqa: E402

if __name__ == "__main__":
    # Before the slow imports: end with the fedbench process that started this one, and end
    # cleanly on SIGTERM.
    fr.exit_with_parent()
import argparse  # noqa: E402
import json  # noqa: E402
import textwrap  # noqa: E402

import fedbench_curves as fc  # noqa: E402
import matplotlib  # noqa: E402

matplotlib.use("Agg")
# Labels come from data and are drawn as plain text (fc.plain_label); a matplotlibrc asking
# for LaTeX would fail on any underscore in a parameter name.
matplotlib.rcParams["text.usetex"] = False
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import report_charts as RC  # noqa: E402

X_LABELS = {"round": "communication rounds", "bytes": "bytes sent (up + down)",
            "oracle_calls": "oracle calls (all kinds)", "samples": "samples (component gradients)",
            "wall_time": "solver time (s)"}
Y_LABELS = {"rel_error": "relative error ‖z − z*‖² / ‖z0 − z*‖²"}


def short(column):
    return column.split(".", 1)[1] if column.startswith(("problem.", "solver.")) else column


def run_labels(info):
    """Per run: solver plus the parameters that differ between the plotted runs (solver
    parameters compared within the solver), plus the seed only where labels would repeat."""
    problem_keys = [c for c in fr.varying_params(info) if c.startswith("problem.")]
    if info["participation"].nunique() > 1:
        problem_keys.append("participation")
    solver_keys = {s: [c for c in fr.varying_params(g) if c.startswith("solver.")]
                   for s, g in info.groupby("solver")}
    many_problems = info["problem"].nunique() > 1
    labels = []
    for _, row in info.iterrows():
        parts = ([row["problem"]] if many_problems else []) + [row["solver"]]
        for c in problem_keys + solver_keys[row["solver"]]:
            if not pd.isna(row[c]):
                parts.append(f"{short(c)}={fr.format_value(row[c])}")
        labels.append(" ".join(parts))
    labels = pd.Series(labels, index=info.index)
    dup = labels.duplicated(keep=False)
    labels[dup] = labels[dup] + " seed=" + info.loc[dup, "seed"].astype(str)
    return labels.tolist()


def group_label(keys, values):
    parts = []
    for k, v in zip(keys, values):
        parts.append(str(v) if k in ("solver", "problem") else f"{short(k)}={fr.format_value(v)}")
    return " ".join(parts)


def build_curves(runs, info, xcol, ycol, keys=(), log=True):
    """Curves to draw: [{label, members: [(round, x, y)], ended, diverged, total}], members cut
    where each run stopped being alive. keys: info columns that group runs into one curve."""
    ys = [r[ycol].to_numpy(float) for r in runs]
    limit = fc.absurd_limit(ys)
    cut = []
    for run, y in zip(runs, ys):
        n = fc.alive_rows(y, limit)
        y = y[:n].copy()
        if log:
            y[y <= 0] = np.nan  # log axes cannot show it; the run goes on
        cut.append((run["round"].to_numpy(float)[:n], run[xcol].to_numpy(float)[:n], y,
                    n < len(run) or run.attrs.get("status") != "ok"))
    statuses = [r.attrs.get("status") for r in runs]
    if not keys:
        return [{"label": lab, "members": [c[:3]], "ended": c[3], "total": 1, "diverged": int(c[3]),
                 "word": "error" if st == "error" else "diverged"}
                for lab, c, st in sorted(zip(run_labels(info), cut, statuses), key=lambda t: t[0])]
    curves = []
    for values, idx in info.groupby(list(keys), dropna=False, sort=True).groups.items():
        values = values if isinstance(values, tuple) else (values,)
        members = [cut[i] for i in idx]
        bad = sum(1 for m in members if m[3])
        curves.append({"label": group_label(keys, values), "members": [m[:3] for m in members],
                       "ended": bad == len(members), "total": len(members), "diverged": bad,
                       "word": "error" if any(statuses[i] == "error" for i in idx) else "diverged"})
    return curves


def draw(ax, curves, log, legend_suffix=True, colors=None):
    """Median line and min-max band of each curve; an 'x' where a curve ended by divergence.
    colors: one per curve (default: tab10, or tab20 beyond ten curves)."""
    cmap = plt.get_cmap("tab10" if len(curves) <= 10 else "tab20")
    for k, c in enumerate(curves):
        color = colors[k] if colors else cmap(k % cmap.N)
        x, y, low, high, alive = fc.median_curve(c["members"], log=log)
        label = c["label"]
        if legend_suffix and c["total"] > 1:
            label += f" (median of {c['total']})"
        if legend_suffix and c["diverged"]:
            label += (f" ({c['word']})" if c["total"] == 1
                      else f" ({c['diverged']}/{c['total']} {c['word']})")
        style = "-" if c["diverged"] == 0 else "--"
        ax.plot(x, y, style, color=color, label=fc.plain_label(label), linewidth=1.6)
        if c["total"] > 1 and len(x):
            ax.fill_between(x, low, high, color=color, alpha=0.15, linewidth=0)
        finite = np.flatnonzero(np.isfinite(y))
        if c["ended"] and len(finite):
            ax.plot(x[finite[-1]], y[finite[-1]], "x", color=color, markersize=9, mew=2)
    if log:
        ax.set_yscale("log")
    ax.grid(True, which="major", alpha=0.3)


def y_label(runs, ycol):
    meta = runs[0].attrs["columns_meta"].get(ycol, {})
    text = Y_LABELS.get(ycol) or meta.get("description") or ycol
    if meta.get("unit") not in (None, "", "1"):
        text += f" [{meta['unit']}]"
    arrow = {"min": "lower is better", "max": "higher is better"}.get(meta.get("direction"))
    text = f"{text} ({arrow})" if arrow else text
    return "\n".join(textwrap.wrap(text, 48))  # long descriptions would run off the figure


def write_data(args, drawn, colors, cmap, panel_key, runs, several_metrics):
    """The figure's panels as report_charts data (the same curves and colours as the PNG)."""
    panels = []
    for _, _, value, ycol, log, curves in drawn:
        hexes = [matplotlib.colors.to_hex(cmap(colors[c["label"]] % cmap.N)) for c in curves]
        # The legend's words for curves that ended early, as draw() puts them.
        labelled = [dict(c, label=c["label"] + ("" if not c["diverged"] else f" ({c['word']})" if c["total"] == 1
                                                 else f" ({c['diverged']}/{c['total']} {c['word']})"))
                    for c in curves]
        panel = RC.panel_data(labelled, hexes, args.x, X_LABELS.get(args.x, args.x), log)
        titles = ([group_label([panel_key], [value])] if panel_key is not None else []) + \
            ([ycol] if several_metrics else [])
        panel.update({"title": " · ".join(titles), "y_label": y_label(runs, ycol), "log": log})
        panels.append(panel)
    data = {"metric": drawn[0][3], "y_label": y_label(runs, drawn[0][3]), "title": args.title,
            "log": any(p["log"] for p in panels), "panels": panels}

    def write(tmp):
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(data, f, allow_nan=False)
    fr.publish(args.data, write)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("files", nargs="+", help="run files or results directories")
    ap.add_argument("--x", default="round", help="x column (round, samples, bytes, oracle_calls, "
                    "wall_time, any counter)")
    ap.add_argument("--y", default="", help="metric column(s), comma-separated (default: the runs' "
                    "primary metric)")
    ap.add_argument("--title", default="")
    ap.add_argument("--linear", action="store_true", help="linear y axis (default: log)")
    ap.add_argument("--group", default="", help="keys, comma-separated: one median curve per value")
    ap.add_argument("--panel", default="", help="key: one column of panels per value")
    ap.add_argument("--data", default="", help="also write the figure's curves as JSON, for the "
                    "interactive figure of report.py --figure-data")
    args = ap.parse_args()

    runs = [fr.add_derived(r) for r in fr.read_runs(args.files)]
    if not runs:
        sys.exit(f"plot.py: no readable run file in {' '.join(args.files)}")
    ycols = [c.strip() for c in args.y.split(",") if c.strip()] or \
        [pd.Series([r.attrs["primary_metric"] for r in runs]).mode()[0]]
    usable = []
    for r in runs:
        missing = [c for c in [args.x] + ycols if c not in r.columns]
        if missing:
            print(f"plot.py: skipping {r.attrs['path']}: no column {missing[0]!r}", file=sys.stderr)
        elif len(r) == 0:
            print(f"plot.py: skipping {r.attrs['path']}: no rows ({r.attrs.get('status')})",
                  file=sys.stderr)
        else:
            usable.append(r)
    if not usable:
        sys.exit(f"plot.py: nothing to plot: no run has rows and columns {args.x!r} and "
                 f"{', '.join(map(repr, ycols))}; columns: {', '.join(runs[0].columns)}")
    info = pd.DataFrame([fr.run_info(r) for r in usable])
    try:
        keys = [fr.resolve_key(info, k.strip()) for k in args.group.split(",") if k.strip()]
        panel_key = fr.resolve_key(info, args.panel.strip()) if args.panel.strip() else None
    except KeyError as e:
        sys.exit(f"plot.py: --group/--panel: {e.args[0]}")
    panels = ([(None, info.index)] if panel_key is None else
              list(info.groupby(panel_key, dropna=False, sort=True).groups.items()))

    ncols, nrows = len(panels), len(ycols)
    fig, axes = plt.subplots(nrows, ncols, squeeze=False,
                             figsize=(min(5.2 * ncols, 16) if ncols > 1 else 7, 4.3 * nrows))
    # Every panel's curves first, so that one label gets one colour in every panel.
    drawn = []  # (row, col, value, ycol, log, curves)
    for row, ycol in enumerate(ycols):
        # Accuracies and AUCs (higher is better, in [0, 1]) read best on a linear axis.
        log = not args.linear and usable[0].attrs["columns_meta"].get(ycol, {}).get("direction") != "max"
        if log and not any((r[ycol].to_numpy(float) > 0).any() for r in usable):
            print(f"plot.py: {ycol} has no positive value; using a linear axis", file=sys.stderr)
            log = False
        for col, (value, idx) in enumerate(panels):
            sub_runs = [usable[i] for i in idx]
            sub_info = info.loc[idx].reset_index(drop=True)
            drawn.append((row, col, value, ycol, log, build_curves(sub_runs, sub_info, args.x, ycol, keys, log)))
    colors = {}
    for *_, curves in drawn:
        for c in curves:
            colors.setdefault(c["label"], len(colors))
    cmap = plt.get_cmap("tab10" if len(colors) <= 10 else "tab20")
    total = max(len(curves) for *_, curves in drawn)
    for row, col, value, ycol, log, curves in drawn:
        ax = axes[row][col]
        draw(ax, curves, log, colors=[cmap(colors[c["label"]] % cmap.N) for c in curves])
        ax.set_xlabel(fc.plain_label(X_LABELS.get(args.x, args.x)))
        if col == 0:
            ax.set_ylabel(fc.plain_label(y_label(usable, ycol)))
        if panel_key is not None and row == 0:
            ax.set_title(fc.plain_label(group_label([panel_key], [value])), fontsize=10)
    many = total > 8
    if ncols * nrows == 1:
        axes[0][0].set_title(fc.plain_label("\n".join(textwrap.wrap(args.title, 70))))
        if many:
            axes[0][0].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
            fig.set_size_inches(10.5, 4.8)
        else:
            axes[0][0].legend(fontsize=8)
        fig.tight_layout()
    else:
        fig.suptitle(fc.plain_label("\n".join(textwrap.wrap(args.title, int(11 * fig.get_size_inches()[0])))))
        handles, labels, seen = [], [], set()  # every panel's curves, each label once
        for ax in axes.flat:
            for h, lab in zip(*ax.get_legend_handles_labels()):
                if lab not in seen:
                    seen.add(lab)
                    handles.append(h)
                    labels.append(lab)
        per_row = max(1, min(len(labels), int(fig.get_size_inches()[0] / 2.7)))
        fig.legend(handles, labels, fontsize=8, loc="lower center", ncol=per_row, bbox_to_anchor=(0.5, 0.0))
        rows_of_legend = (len(labels) + per_row - 1) // per_row
        fig.tight_layout(rect=(0, min(0.4, 0.05 * rows_of_legend + 0.02) / nrows, 1, 0.97))
    fr.publish(args.out, lambda tmp: fig.savefig(tmp, dpi=120))
    if args.data:
        write_data(args, drawn, colors, cmap, panel_key, usable, len(ycols) > 1)
    print(f"plot.py: wrote {args.out} ({total} curves per panel, {len(usable)} runs, "
          f"{nrows}x{ncols} panels)")


if __name__ == "__main__":
    main()
