"""A report page as headless Chromium showed it (tests/cli/report.sh), against the data.

    report_browser.py PAGE DOM SCREENSHOT CONSOLE RUNS_DIR

PAGE: the report; DOM: Chromium's --dump-dom of it (after its scripts ran); SCREENSHOT: a
1280x4000 screenshot at device scale 1 (CSS pixel = image pixel), taken with the same window as
the DOM; CONSOLE: Chromium's log (console messages are its CONSOLE lines); RUNS_DIR: the run
files the page reports. Checks, each able to fail on its own:
  1. no console message and no script error (the page's code records them on <html>);
  2. every figure drew its charts (four for a section's, one per panel for the paper's figure),
     each with every curve of its data and a canvas;
  3. the data of every curve whose runs all ended ok is the median, min and max over the runs of
     its configuration (its label: the solver and the parameters that tell its configurations
     apart) at each round, read here with h5py;
  4. the screenshot shows each curve's colour where its data falls on that chart's scales
     (computed here from the plot area and ranges the page reports: linear, or log10 of the
     values on a log axis): at least 90% of all drawn points, and half of every curve's points
     that no curve drawn after it covers.
"""
import glob
import html
import json
import math
import re
import sys

import h5py
import matplotlib.image as mi
import numpy as np

page_path, dom_path, shot_path, console_path, runs_dir = sys.argv[1:]
page = open(page_path, encoding="utf-8").read()
dom = open(dom_path, encoding="utf-8").read()
console = open(console_path, encoding="utf-8", errors="replace").read()

# 1. Nothing went wrong in the page's scripts.
messages = [line for line in console.splitlines() if ":CONSOLE" in line]
assert not messages, "console messages:\n" + "\n".join(messages)
html_tag = re.search(r"<html[^>]*>", dom)[0]
assert "data-js-errors" not in html_tag, html_tag

# The figures' data as the page carries it, by figure id, and the problem of each section.
specs = {fid: json.loads(data) for fid, data in re.findall(
    r'<div class="fb-figure" id="([^"]*)".*?<script type="application/json" class="fb-data">(.*?)</script>',
    page, re.S)}
problems = dict(re.findall(r'<h2 id="s(\d+)">([^<]*?)\s*(?:<span|</h2>)', page))
# Each section's problem parameters, from the line under its heading: "k=v, k=v · participation".
section_params = {k: dict(item.split("=", 1) for item in html.unescape(text).split(", ") if "=" in item)
                  for k, text in re.findall(r'<h2 id="s(\d+)">.*?</h2>\s*<p class=meta>(.*?) · participation', page, re.S)}
sections = [fid for fid in specs if fid.startswith("fig")]  # the others: the paper's figure
assert sections and len(problems) == len(sections), (list(specs), problems)

# 2. Every figure drawn whole.
m = re.search(r'<html[^>]*data-figures-drawn="(\d+)"', dom)
assert m and int(m[1]) == len(specs), f"figures drawn: {m and m[1]}, in the page: {len(specs)}"
charts = {}  # figure id -> [attributes of each chart, in panel order]
for fid in specs:
    start = dom.index(f'id="{fid}"')
    block = dom[start:dom.find('class="fb-figure"', start + 1) if 'class="fb-figure"' in dom[start + 1:] else len(dom)]
    n = len(specs[fid]["panels"])
    assert re.search(rf'class="fb-figure" id="{fid}"[^>]*data-drawn="{n}"|data-drawn="{n}"[^>]*id="{fid}"', dom), fid
    found = []
    for tag in re.findall(r"<div [^>]*data-plot=[^>]*>", block):
        found.append(dict(re.findall(r'(data-[a-z-]+)="([^"]*)"', tag)))
    assert len(found) == n and (fid not in sections or n == 4), (fid, len(found), n)
    assert block.count("<canvas") >= n, (fid, block.count("<canvas"))
    for attrs, panel in zip(found, specs[fid]["panels"]):
        assert int(attrs["data-curves"]) == len(panel["curves"]), (fid, panel["x_key"], attrs)
    charts[fid] = found

# 3. The data against the run files (solvers with one configuration: their curve is all their runs).
def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)

runs = []
for path in glob.glob(runs_dir + "/*.h5"):
    try:
        f = h5py.File(path, "r")
    except OSError:
        continue  # an unreadable file the page skipped
    with f:
        runs.append({"problem": text(f.attrs["problem"]), "solver": text(f.attrs["solver"]),
                     "status": text(f.attrs["status"]),
                     "params": {k: text(v) for k, v in f["params/solver"].attrs.items()},
                     "problem_params": {k: text(v) for k, v in f["params/problem"].attrs.items()},
                     "columns": {k: f["trajectory"][k][()] for k in f["trajectory"]}})
compared = 0
for fid in sections:
    spec = specs[fid]
    problem, params = problems[fid[3:]], section_params.get(fid[3:], {})
    panel = spec["panels"][0]
    assert panel["x_key"] == "round"
    for curve in panel["curves"]:
        # The label: the solver, then the parameters that tell its configurations apart.
        solver, *given = curve["label"].split(" ")
        if not all(re.fullmatch(r"[a-z_]+=\S+", g) for g in given):
            continue  # a suffix such as "(diverged)": runs that did not all end ok
        given = dict(g.split("=", 1) for g in given)
        mine = [r for r in runs if r["problem"] == problem and r["solver"] == solver
                and all(r["params"].get(k) == v for k, v in given.items())
                and all(r["problem_params"].get(k) == v for k, v in params.items())]
        if not mine or any(r["status"] != "ok" for r in mine) or curve["runs"] != len(mine):
            continue  # runs that did not all end ok (the planted failed run)
        ys = np.array([r["columns"][spec["metric"]] for r in mine])
        rounds = mine[0]["columns"]["round"]
        assert all(np.array_equal(r["columns"]["round"], rounds) for r in mine)
        for x, med, low, high in zip(panel["x"], curve["median"], curve["low"], curve["high"]):
            k = int(np.flatnonzero(rounds == x)[0])
            for got, want in ((med, np.median(ys[:, k])), (low, ys[:, k].min()), (high, ys[:, k].max())):
                assert math.isclose(got, want, rel_tol=1e-6), (problem, curve["label"], x, got, want)
        compared += 1
assert compared >= 2, f"only {compared} curves compared with the run files"

# 4. The screenshot against the data.
image = mi.imread(shot_path)[..., :3]
assert image.shape[1] >= 1280 and image.shape[0] >= 4000, image.shape
hits = total = 0
for fid, spec in specs.items():
    for attrs, panel in zip(charts[fid], spec["panels"]):
        left, top, width, height = map(float, attrs["data-plot"].split(","))
        xmin, xmax = map(float, attrs["data-x-range"].split(","))
        ymin, ymax = map(float, attrs["data-y-range"].split(","))
        xlog, ylog = attrs["data-x-log"] == "1", attrs["data-y-log"] == "1"
        if top + height > image.shape[0]:
            continue  # below the screenshot
        # Every curve's drawn points in pixels: (row, column) per x, None where it has none.
        def pixel(x, y):
            if x is None or y is None or (xlog and x <= 0) or (ylog and y <= 0):
                return None
            X, Y = (math.log10(x) if xlog else x), (math.log10(y) if ylog else y)
            if not (xmin <= X <= xmax and ymin <= Y <= ymax):
                return None
            return (int(round(top + (ymax - Y) / (ymax - ymin) * height)),
                    int(round(left + (X - xmin) / (xmax - xmin) * width)))
        points = [[pixel(x, y) for x, y in zip(panel["x"], c["median"])] for c in panel["curves"]]
        for k, curve in enumerate(panel["curves"]):
            colour = np.array([int(curve["color"][i:i + 2], 16) / 255 for i in (1, 3, 5)])
            near = np.linalg.norm(image - colour, axis=2) < 0.12
            got = n = 0
            for at, p in enumerate(points[k]):
                if p is None:
                    continue
                i, j = p
                if near[max(i - 3, 0):i + 4, max(j - 3, 0):j + 4].any():
                    got, n = got + 1, n + 1
                elif not any(q[at] is not None and abs(q[at][0] - i) <= 3 for q in points[k + 1:]):
                    n += 1  # not under a curve drawn later: it should show
            hits, total = hits + got, total + n
            assert n < 3 or got >= n / 2, f"{fid} {panel['x_key']} {curve['label']}: colour at {got} of {n} points"
assert total > 50 and hits >= 0.9 * total, f"the curves' colour at {hits} of {total} points"
print(f"report_browser: {len(specs)} figures, {compared} curves equal to the run files, "
      f"colour at {hits} of {total} points of the screenshot")
