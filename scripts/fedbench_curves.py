"""Curve arithmetic shared by plot.py, summary.py and report.py: where a run stops being
plottable (diverged), median curves over runs that are still alive, targets like
'metric>=value'; plain_label for text drawn by matplotlib. numpy only."""
import re

import numpy as np

DIVERGENCE_FACTOR = 1e10  # fedbench's default: a metric this far above its start is diverged
HARD_LIMIT = 1e100        # beyond this matplotlib's transforms overflow


def plain_label(text):
    """Text that matplotlib draws as written. Every string that comes from data (solver,
    problem and parameter values, suite and experiment titles, column names, descriptions and
    units) goes through this before a title, axis label, legend label or annotation: matplotlib
    reads the text between two unescaped dollar signs as mathtext, and a name like
    '$\\undefinedmacro{x}$' would end the drawing with a parse error. Each '$' becomes '\\$',
    which matplotlib draws as a plain dollar sign (other characters, backslashes included, are
    drawn as they are outside mathtext). Fixed labels that mean mathtext do not go through it."""
    return str(text).replace("$", r"\$")


def parse_target(text):
    """'metric<=value' or 'metric>=value' -> (metric, op, value)."""
    m = re.fullmatch(r"\s*([A-Za-z_][A-Za-z0-9_.]*)\s*(<=|>=)\s*(\S+)\s*", text or "")
    if not m:
        raise ValueError(f"target {text!r}: expected METRIC<=VALUE or METRIC>=VALUE")
    try:
        value = float(m.group(3))
    except ValueError:
        raise ValueError(f"target {text!r}: {m.group(3)!r} is not a number") from None
    return m.group(1), m.group(2), value


def meets(values, op, value):
    values = np.asarray(values, dtype=float)
    with np.errstate(invalid="ignore"):
        return values <= value if op == "<=" else values >= value


def absurd_limit(curves):
    """|y| above which a value counts as diverged: the divergence factor times the largest
    start value of the curves (or their typical size when they all start at 0)."""
    starts = [abs(y[np.isfinite(y)][0]) for y in curves if np.isfinite(y).any()]
    ref = max(starts, default=0.0)
    if ref == 0.0:
        finite = np.abs(np.concatenate([y[np.isfinite(y)] for y in curves] or [np.zeros(0)]))
        finite = finite[finite > 0]
        ref = float(np.median(finite)) if finite.size else 1.0
    return min(DIVERGENCE_FACTOR * ref, HARD_LIMIT)


def alive_rows(y, limit):
    """How many leading rows are plottable: the curve ends at the first non-finite or absurd
    value, so a diverged run stops where it diverged."""
    y = np.asarray(y, dtype=float)
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(y) | (np.abs(y) > limit)
    return int(np.argmax(bad)) if bad.any() else len(y)


def median_curve(members, log=False):
    """members: list of (round, x, y) arrays already cut where each run stopped being alive.
    Returns (x, median, low, high, alive) on the union of the rounds: at each round only the
    runs still alive then count, so one diverged seed does not cut the others short.
    Runs are interpolated (y in log10 when `log` and positive) between their own rows."""
    members = [(np.asarray(r, float), np.asarray(x, float), np.asarray(y, float))
               for r, x, y in members if len(r)]
    if not members:
        return (np.zeros(0),) * 4 + (np.zeros(0, int),)
    grid = np.unique(np.concatenate([r for r, _, _ in members]))
    xs = np.full((len(members), len(grid)), np.nan)
    ys = np.full_like(xs, np.nan)
    for i, (r, x, y) in enumerate(members):
        inside = (grid >= r[0]) & (grid <= r[-1])
        xs[i, inside] = np.interp(grid[inside], r, x)
        in_log = log and np.all(y > 0)
        yi = np.interp(grid[inside], r, np.log10(y) if in_log else y)
        ys[i, inside] = 10 ** yi if in_log else yi
    alive = np.sum(np.isfinite(ys), axis=0)
    keep = alive > 0
    xs, ys = xs[:, keep], ys[:, keep]
    return (np.nanmedian(xs, axis=0), np.nanmedian(ys, axis=0), np.nanmin(ys, axis=0),
            np.nanmax(ys, axis=0), alive[keep])


def first_reach(run, metric, op, value, columns=("round",)):
    """Values of `columns` at the first row of `run` (a DataFrame) that meets the target;
    inf when never met."""
    if metric not in run.columns:
        return {c: np.nan for c in columns}
    hit = np.flatnonzero(meets(run[metric].to_numpy(float), op, value))
    if not len(hit):
        return {c: np.inf for c in columns}
    return {c: float(run[c].iloc[hit[0]]) for c in columns}


def value_at_round(run, column, r):
    """The last recorded value of `column` at a round <= r (NaN when none)."""
    rows = np.flatnonzero(run["round"].to_numpy() <= r)
    return float(run[column].iloc[rows[-1]]) if len(rows) and column in run.columns else np.nan
