"""HTML pieces of report.py: the stylesheet, tables, number formats, the page, and figures
embedded as base64 PNG data URIs (the experiment's figure; the interactive ones are
report_charts.py's), so the page is one self-contained file (no network)."""
import base64
import html
import io
import math

import numpy as np

CSS = """
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
       color: #1f2328; background: #fff; margin: 0; }
main { max-width: 1180px; margin: 0 auto; padding: 24px 32px 64px; }
header { border-bottom: 2px solid #d0d7de; margin-bottom: 16px; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 21px; margin: 40px 0 4px; padding-top: 12px; border-top: 1px solid #d0d7de; }
h3 { font-size: 16px; margin: 24px 0 6px; color: #333; }
.meta, .note { color: #57606a; font-size: 13.5px; margin: 2px 0; }
.meta code, .note code, td code { font-size: 12.5px; background: #f6f8fa; padding: 1px 4px;
       border-radius: 4px; }
nav ul { columns: 2; margin: 8px 0 0; padding-left: 20px; }
.table { overflow-x: auto; max-width: 100%; margin: 6px 0 8px; }
table { border-collapse: collapse; font-size: 13.5px; }
th, td { padding: 4px 10px; border-bottom: 1px solid #e5e7eb; text-align: left; vertical-align: top; }
td { max-width: 60em; overflow-wrap: anywhere; }
th { background: #f3f4f6; font-weight: 600; border-bottom: 1px solid #d0d7de; white-space: nowrap; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr:hover td { background: #fafbfc; }
td.nw { white-space: nowrap; }
td.best { font-weight: 700; color: #0a3069; }
.badge { display: inline-block; padding: 0 7px; border-radius: 9px; font-size: 12px; font-weight: 600; }
.ok { background: #dafbe1; color: #116329; }
.diverged { background: #fff1c2; color: #7d4e00; }
.error { background: #ffebe9; color: #a40e26; }
figure { margin: 10px 0 4px; }
figure img { max-width: 100%; height: auto; border: 1px solid #e5e7eb; border-radius: 6px; }
figcaption { color: #57606a; font-size: 13px; margin-top: 4px; }
.grid2 { display: grid; grid-template-columns: 1fr 1fr; gap: 8px 28px; align-items: start; }
.msg { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12px; color: #57606a; }
"""

ARROW = {"min": "↓", "max": "↑"}


def esc(text):
    return html.escape(str(text), quote=True)


def fig_img(fig, alt, dpi=100):
    """A matplotlib figure as an <img> with a PNG data URI."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return f'<img src="data:image/png;base64,{data}" alt="{esc(alt)}">'


def num(v, digits=4):
    """A metric value: 4 significant digits, '—' when missing."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "—"
    if isinstance(v, (float, np.floating)) and math.isinf(v):
        return "∞" if v > 0 else "−∞"
    return f"{v:.{digits}g}"


def count(v, unit=""):
    """A counter (calls, bytes): exact below 10^5, else k/M/G/T with 3 digits."""
    if v is None or not np.isfinite(v):
        return "—"
    for factor, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(v) >= 1e5 and abs(v) >= factor:
            return f"{v / factor:.3g} {prefix}{unit}"
    return f"{int(round(v)):,}{' ' + unit if unit else ''}"


def plural(n, word):
    return f"{n} {word}{'' if n == 1 else 's'}"


def badge(status):
    cls = status if status in ("ok", "diverged", "error") else "error"
    return f'<span class="badge {cls}">{esc(status)}</span>'


def table(header, rows, numeric=(), raw=(), nowrap=()):
    """header: column titles; rows: lists of cells (text, escaped unless the column is in
    `raw`); numeric: column indices right-aligned; nowrap: columns kept on one line (names,
    badges). A cell may be (text, 'best') to bold it. Long cells wrap (anywhere, past 60em);
    a table still wider than the page scrolls inside its own box, not the page."""
    out = ['<div class="table"><table><thead><tr>']
    out += [f'<th class="num">{esc(h)}</th>' if i in numeric else f"<th>{esc(h)}</th>"
            for i, h in enumerate(header)]
    out.append("</tr></thead><tbody>")
    for row in rows:
        out.append("<tr>")
        for i, cell in enumerate(row):
            extra = []
            if isinstance(cell, tuple):
                cell, flag = cell
                extra.append(flag)
            if i in numeric:
                extra.append("num")
            if i in nowrap:
                extra.append("nw")
            cls = f' class="{" ".join(extra)}"' if extra else ""
            out.append(f"<td{cls}>{cell if i in raw else esc(cell)}</td>")
        out.append("</tr>")
    out.append("</tbody></table></div>")
    return "".join(out)


def page(title, body, scripts=""):
    """The whole page; `scripts` (styles and code of the figures) goes at the end of the body,
    so that it runs once the figures' containers exist."""
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{esc(title)}</title><style>{CSS}</style></head>\n"
            f"<body><main>\n{body}\n</main>\n{scripts}</body></html>\n")
