"""Interactive figures of report.py: the curves as data (JSON inside the page) drawn in the
browser by uPlot (github.com/leeoniya/uPlot, MIT; vendored from npm under report_assets/, see
report_assets/README.md), with zoom (drag; double-click resets), values under the cursor,
methods toggled by clicking the legend, log or linear axes, and the seed band (min-max over
seeds) of every median curve. The library, its stylesheet and licence notice and our drawing
code (report_charts.js) are inlined once per page, so the page stays one file that opens
offline. numpy only (plus the page helpers)."""
import json
import math
import os

import numpy as np

import fedbench_curves as fc
import report_html as H

ASSETS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "report_assets")
MAX_POINTS = 400  # per curve: a page of many sections stays a few MB


def _number(v):
    """7 significant digits (the page draws pixels, not digits); None for NaN and infinities."""
    v = float(v)
    return float(f"{v:.7g}") if math.isfinite(v) else None


def _thin(n):
    """Indices of at most MAX_POINTS of n rows, evenly spaced, first and last kept."""
    if n <= MAX_POINTS:
        return np.arange(n)
    return np.unique(np.round(np.linspace(0, n - 1, MAX_POINTS)).astype(int))


def panel_data(curves, colors, x_key, x_label, log):
    """One chart: a shared x grid (the union of the curves' x values) and, per curve, its median
    and (over more than one run) its min and max on that grid, null where the curve has no row.
    curves: plot.build_curves output with final labels; colors: one hex colour per curve."""
    lines = []
    for c, color in zip(curves, colors):
        x, med, low, high, _ = fc.median_curve(c["members"], log=log)
        keep = _thin(len(x))
        lines.append((c, color, x[keep], med[keep], low[keep], high[keep]))
    grid = np.unique(np.concatenate([line[2] for line in lines] or [np.zeros(0)]))
    grid = grid[np.isfinite(grid)]
    out = {"x_key": x_key, "x_label": x_label, "x": [_number(v) for v in grid], "curves": []}
    for c, color, x, med, low, high in lines:
        at = {float(v): i for i, v in enumerate(x)}

        def aligned(values):
            return [_number(values[at[float(g)]]) if float(g) in at else None for g in grid]

        out["curves"].append({"label": c["label"], "color": color, "dashed": bool(c["diverged"]),
                              "runs": c["total"], "median": aligned(med),
                              "low": aligned(low) if c["total"] > 1 else None,
                              "high": aligned(high) if c["total"] > 1 else None})
    return out


def chart_html(figure_id, metric, y_label, log, panels, alt):
    """The figure's container and its data; report_charts.js draws one chart per panel."""
    data = json.dumps({"metric": metric, "y_label": y_label, "log": bool(log), "panels": panels},
                      separators=(",", ":"), allow_nan=False)
    data = data.replace("</", "<\\/")  # a label holding "</script>" cannot end the block
    return (f'<div class="fb-figure" id="{H.esc(figure_id)}" role="img" aria-label="{H.esc(alt)}">'
            f'<div class="fb-controls"><label><input type="checkbox" class="fb-logy"{" checked" if log else ""}> '
            f'log y</label> <label><input type="checkbox" class="fb-logx"> log x</label> '
            f'<label><input type="checkbox" class="fb-bands" checked> seed bands (min-max)</label> '
            f'<span class="note">drag to zoom, double-click to reset, click a legend entry to hide it</span></div>'
            f'<div class="fb-charts"></div>'
            f'<script type="application/json" class="fb-data">{data}</script>'
            f'<noscript><p class="note">The figures need JavaScript.</p></noscript></div>')


def _asset(name):
    with open(os.path.join(ASSETS, name), encoding="utf-8") as f:
        return f.read()


def page_assets():
    """What a page with charts carries once: uPlot's stylesheet and code with its licence
    notice, our styles and drawing code."""
    licence = _asset("uPlot.LICENSE").strip().replace("*/", "* /")
    return (f"<style>{_asset('uPlot.min.css')}\n{_asset('report_charts.css')}</style>\n"
            f"<script>/*! uPlot {_asset('uPlot.VERSION').strip()} (github.com/leeoniya/uPlot)\n{licence}\n*/\n"
            f"{_asset('uPlot.iife.min.js')}</script>\n<script>{_asset('report_charts.js')}</script>\n")
