#!/usr/bin/python3
"""One static HTML page that reports a fedbench results directory.

    report.py RESULTS_DIR -o OUT_DIR [--target 'METRIC<=V' | 'METRIC>=V']... [--metric M]
              [--title TEXT] [--source DIR --refused N] [--fedbench PATH]

Writes OUT_DIR/index.html, one self-contained file that opens offline: inline CSS, the figures
drawn in the browser by the vendored uPlot (report_charts.py: zoom, values under the cursor,
methods toggled from the legend, log axes, seed bands), the experiment's figure a base64 PNG.
Per problem configuration (problem, its parameters, participation): convergence of each
solver's best configuration against rounds, oracle calls, bytes and solver time; final metrics;
cost to reach a target; diverged and failed runs; the grid tried. Then the build environment.
The best configuration of a solver has the best median over seeds of the metric (the runs'
primary_metric unless --metric) at the last round every run that ended ok reached; diverged
and failed runs score worst. Those scores are fedbench's own (`fedbench select --json`, the
same function as selection and the experiments' claims): the fedbench binary is --fedbench,
else $FEDBENCH, else `fedbench` on PATH, else the source tree's build/bin/fedbench. Names and
values from the runs are drawn in the figures as written (a '$' is a dollar sign, never
mathtext) and escaped on the page. index.html is written to a temporary file and renamed over
the old one. Started by fedbench, the script ends when fedbench does
(fedbench_read.exit_with_parent); SIGTERM ends it without leaving a temporary file. Uses
numpy, pandas, h5py and matplotlib (Agg)."""
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
import base64  # noqa: E402
import datetime  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402

import fedbench_curves as fc  # noqa: E402
import matplotlib  # noqa: E402

matplotlib.use("Agg")
matplotlib.rcParams["text.usetex"] = False  # labels are plain text (fc.plain_label)
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import plot as fplot  # noqa: E402
import report_charts as RC  # noqa: E402
import report_html as H  # noqa: E402

PANELS = [("round", "communication rounds"), ("oracle_calls", "oracle calls (all kinds)"),
          ("bytes", "bytes sent (up + down)"), ("wall_time", "solver time (s)")]
ENV_ATTRS = {"fedbench_version": "fedbench version", "git_commit": "commit", "compiler": "compiler",
             "format_version": "run file format", "env_cpu_model": "CPU", "env_cores": "cores",
             "env_threads": "threads per run", "env_mpi_ranks": "MPI ranks",
             "env_eigen_version": "Eigen", "env_hdf5_version": "HDF5", "env_compiler": "compiler (run)",
             "setup_time": "setup time, all runs", "eval_time": "evaluation time, all runs",
             "wall_time": "solver time, all runs"}


def params_text(params, keys=None):
    keys = sorted(params) if keys is None else keys
    return ", ".join(f"{k}={fr.format_value(params[k])}" for k in keys if k in params) or "—"


def lower_median(values):
    """The ceil(n/2)-th smallest: the cost by which at least half of the seeds got there
    (a plain median of [40, inf] would say never)."""
    v = np.sort(np.asarray(values, float))
    return v[(len(v) - 1) // 2] if len(v) else np.nan


def fedbench_binary(given):
    here = os.path.dirname(os.path.abspath(__file__))
    for path in (given, os.environ.get("FEDBENCH"), shutil.which("fedbench"),
                 os.path.join(here, "..", "build", "bin", "fedbench")):
        if path and os.access(path, os.X_OK):
            return path
    sys.exit("report.py: cannot find the fedbench binary that scores the runs; "
             "give --fedbench PATH or set FEDBENCH")


def same_params(texts, values):
    """fedbench's parameter texts against the values the reader parsed (numbers by value)."""
    if set(texts) != set(values):
        return False
    for k, text in texts.items():
        if str(values[k]) == text:
            continue
        try:
            if float(text) != float(values[k]):
                return False
        except (TypeError, ValueError):
            return False
    return True


class Scores:
    """Every configuration's median over seeds as fedbench computes it (`fedbench select
    --json`): the metric at a round, failures worst. One call per (metric, round) asked."""

    def __init__(self, fedbench, results):
        self.fedbench, self.results, self.cache = fedbench, results, {}

    def medians(self, metric, rounds):
        key = (metric, rounds)
        if key not in self.cache:
            cmd = [self.fedbench, "select", self.results, "--metric", metric, "--at",
                   f"rounds={rounds}", "--json", "--no-suite"]
            done = subprocess.run(cmd, capture_output=True, text=True)
            if done.returncode != 0:
                sys.exit(f"report.py: {' '.join(cmd)} failed: {done.stderr.strip()}")
            self.cache[key] = json.loads(done.stdout)["all"]
        return self.cache[key]


class Section:
    """The runs of one problem configuration and what the page says about them."""

    def __init__(self, runs, metric_wanted, scores):
        self.runs = runs
        a = runs[0].attrs
        self.problem, self.problem_params = a.get("problem", "?"), a["problem_params"]
        self.participation = fr.run_info(runs[0])["participation"]
        metrics = [c for r in runs for c, m in r.attrs["columns_meta"].items() if m.get("kind") == "metric"]
        self.metrics = list(dict.fromkeys(metrics))
        primary = pd.Series([r.attrs["primary_metric"] for r in runs]).mode()[0]
        self.metric = metric_wanted if metric_wanted in self.metrics else primary
        self.direction = self.direction_of(self.metric)
        self.configs = {}  # (solver, params) -> runs (its seeds)
        for r in runs:
            key = (r.attrs.get("solver", "?"), tuple(sorted(r.attrs["solver_params"].items())))
            self.configs.setdefault(key, []).append(r)
        ok = [r for r in runs if r.attrs.get("status") == "ok" and len(r)]
        ends = {int(r["round"].iloc[-1]) for r in ok}
        self.common_round = min(ends) if ends else None
        self.same_end = len(ends) <= 1
        self.scores, unscored = self.fedbench_scores(scores)
        # A configuration fedbench scored none of (its files read here but not there) is left
        # out and counted with the unreadable files, never a reason for no page.
        self.left_out = [r for key in unscored for r in self.configs.pop(key)]
        for key in unscored:
            print(f"report.py: left out {key[0]} on {self.problem}: fedbench scored none of its runs",
                  file=sys.stderr)
        self.runs = [r for r in runs if not any(r is x for x in self.left_out)]
        self.best = {}
        for key in sorted(self.configs, key=lambda k: (self.rank_key(self.scores[k]), str(k))):
            self.best.setdefault(key[0], key)
        self.solvers = sorted(self.best, key=lambda s: (self.rank_key(self.scores[self.best[s]]), s))

    def direction_of(self, metric):
        for r in self.runs:
            if metric in r.attrs["columns_meta"]:
                return r.attrs["columns_meta"][metric].get("direction", "min")
        return fr.metric_direction(metric)

    def worst(self):
        return np.inf if self.direction == "min" else -np.inf

    def rank_key(self, score):
        return score if self.direction == "min" else -score

    def fedbench_scores(self, scores):
        """(solver, params) -> median, read from fedbench's scores of this section's problem
        configuration and participation. Without a round that every ok run reached (none ended
        ok), every configuration is worst."""
        if self.common_round is None:
            return {k: self.worst() for k in self.configs}, []
        found = {}
        for c in scores.medians(self.metric, self.common_round):
            if (c["problem"] != self.problem or not same_params(c["problem_params"], self.problem_params)
                    or c["participation"] != self.participation):
                continue
            key = next((k for k in self.configs
                        if k[0] == c["solver"] and same_params(c["solver_params"], dict(k[1]))), None)
            if key is None:
                continue
            median = self.worst() if c["median"] is None else c["median"]
            # Runs of one configuration with different budgets are separate configurations to
            # fedbench; the page keeps the best of them.
            if key not in found or self.rank_key(median) < self.rank_key(found[key]):
                found[key] = median
        return found, [k for k in self.configs if k not in found]

    def varied(self, solver):
        """Solver parameters that take several values in this section's grid."""
        runs = [r for (s, _), rs in self.configs.items() if s == solver for r in rs]
        info = pd.DataFrame([fr.run_info(r) for r in runs])
        return [c.split(".", 1)[1] for c in fr.varying_params(info) if c.startswith("solver.")]

    def best_label(self, solver):
        params = dict(self.best[solver][1])
        varied = self.varied(solver)
        return solver + ("" if not varied else " " + params_text(params, varied).replace(", ", " "))


def figure(sec, colors, figure_id):
    """Four interactive charts: the metric of each solver's best configuration (median and
    min-max over seeds) against rounds, oracle calls, bytes and solver time (report_charts)."""
    runs = [r for s in sec.solvers for r in sec.configs[sec.best[s]] if len(r)]
    runs = [r for r in runs if sec.metric in r.columns]
    if not runs:
        return "<p class=note>No run of this configuration has rows to plot.</p>"
    info = pd.DataFrame([fr.run_info(r) for r in runs])
    values = np.concatenate([r[sec.metric].to_numpy(float) for r in runs])
    limit = fc.absurd_limit([r[sec.metric].to_numpy(float) for r in runs])
    good = values[np.isfinite(values) & (np.abs(values) <= limit)]
    log = bool(sec.direction == "min" and good.size and good.min() > 0 and good.max() / good.min() > 100)
    panels = []
    for xcol, xlabel in PANELS:
        curves = fplot.build_curves(runs, info, xcol, sec.metric, ["solver"], log)
        solvers = [c["label"] for c in curves]  # grouped by solver: the label is its name
        for c, s in zip(curves, solvers):
            c["label"] = sec.best_label(s)
            if c["diverged"]:
                c["label"] += (f" ({c['word']})" if c["total"] == 1 else f" ({c['diverged']}/{c['total']} {c['word']})")
        panels.append(RC.panel_data(curves, [matplotlib.colors.to_hex(colors[s]) for s in solvers], xcol, xlabel, log))
    y_label = f"{sec.metric} {H.ARROW.get(sec.direction, '')}".strip()
    return RC.chart_html(figure_id, sec.metric, y_label, log, panels,
                         f"{sec.metric} of each solver's best configuration")


def final_table(sec):
    metrics = [sec.metric] + [m for m in sec.metrics if m != sec.metric]
    rows, columns = [], {m: [] for m in metrics}
    for rank, s in enumerate(sec.solvers, 1):
        runs = sec.configs[sec.best[s]]
        ok = [r for r in runs if r.attrs.get("status") == "ok" and len(r)]
        varied = sec.varied(s)
        row = [rank, s, params_text(dict(sec.best[s][1]), varied) if varied else "—",
               f"{len(ok)}/{len(runs)}",
               H.num(np.median([r["round"].iloc[-1] for r in ok]) if ok else np.nan, 6),
               H.num(np.median([r.attrs.get("wall_time", np.nan) for r in ok]) if ok else np.nan, 3)]
        for m in metrics:
            vals = [r[m].iloc[-1] for r in ok if m in r.columns]
            v = float(np.median(vals)) if vals else np.nan
            columns[m].append(v)
            row.append(v)
        rows.append(row)
    for j, m in enumerate(metrics):  # bold the best value of each metric
        vals = np.array(columns[m], float)
        if np.isfinite(vals).any():
            best = np.nanmin(vals) if sec.direction_of(m) == "min" else np.nanmax(vals)
            for i, row in enumerate(rows):
                v = row[6 + j]
                row[6 + j] = (H.num(v), "best") if v == best else H.num(v)
        else:
            for row in rows:
                row[6 + j] = H.num(row[6 + j])
    header = ["#", "solver", "best configuration", "seeds ok", "rounds", "time (s)"]
    header += [f"{m} {H.ARROW.get(sec.direction_of(m), '')}" for m in metrics]
    return H.table(header, rows, numeric={0, 3, 4, 5} | set(range(6, 6 + len(metrics))), nowrap={1})


def default_target(sec):
    """The worst of the solvers' best scores: a level every solver's best configuration
    reaches (at the median), so the table compares how fast each gets there."""
    scores = [sec.scores[sec.best[s]] for s in sec.solvers]
    finite = [v for v in scores if np.isfinite(v)]
    if not finite:
        return None
    value = max(finite) if sec.direction == "min" else min(finite)
    return sec.metric, "<=" if sec.direction == "min" else ">=", value


def target_table(sec, target):
    metric, op, value = target
    rows = []
    for s in sec.solvers:
        hits = []
        for r in sec.configs[sec.best[s]]:  # a run without rows or the metric never reaches it
            y = r[metric].to_numpy(float) if metric in r.columns else np.zeros(0)
            alive = r.iloc[:fc.alive_rows(y, fc.absurd_limit([y]))]  # not past divergence
            hits.append(fc.first_reach(alive, metric, op, value, ("round", "oracle_calls", "bytes"))
                        if len(alive) else dict.fromkeys(("round", "oracle_calls", "bytes"), np.inf))
        reached = sum(np.isfinite(h["round"]) for h in hits)
        cost = {c: lower_median([h[c] for h in hits]) for c in ("round", "oracle_calls", "bytes")}
        never = not np.isfinite(cost["round"])
        rows.append((cost["round"], [s, f"{reached}/{len(sec.configs[sec.best[s]])}",
                     "not reached" if never else H.count(cost["round"]),
                     "—" if never else H.count(cost["oracle_calls"]),
                     "—" if never else H.count(cost["bytes"], "B")]))
    rows = [row for _, row in sorted(rows, key=lambda t: (np.nan_to_num(t[0], nan=np.inf), t[1][0]))]
    return H.table(["solver", "seeds reaching", "rounds", "oracle calls", "bytes"], rows,
                   numeric={1, 2, 3, 4}, nowrap={0})


def failed_table(sec):
    bad = [r for r in sec.runs if r.attrs.get("status") != "ok"]
    if not bad:
        return "<p class=note>None: every run ended ok.</p>"
    rows = []
    for r in sorted(bad, key=lambda r: (r.attrs.get("solver", ""), str(r.attrs["solver_params"]))):
        a = r.attrs
        varied = sec.varied(a.get("solver"))
        rows.append([H.esc(a.get("solver", "")), H.esc(params_text(a["solver_params"], varied or None)),
                     H.esc(a.get("seed", "")), H.badge(a.get("status", "?")),
                     H.esc(a.get("stop_reason", "")), H.esc(a.get("rounds", "")),
                     f'<span class=msg>{H.esc(a.get("message", ""))}</span>',
                     f"<code>{H.esc(fr.run_info(r)['run_id'])}</code>"])
    return H.table(["solver", "configuration", "seed", "status", "stop reason", "rounds",
                    "message", "file"], rows, numeric={2, 5}, raw=set(range(8)), nowrap={0, 3})


def grid_table(sec):
    rows = []
    for s in sorted(sec.best):
        runs = [r for (sv, _), rs in sec.configs.items() if sv == s for r in rs]
        varied = sec.varied(s)
        values = {k: sorted({r.attrs["solver_params"].get(k) for r in runs}, key=lambda v: (str(type(v)), v))
                  for k in varied}
        fixed = {k: v for k, v in runs[0].attrs["solver_params"].items() if k not in varied}
        statuses = pd.Series([r.attrs.get("status") for r in runs]).value_counts()
        rows.append([H.esc(s), len({k for k in sec.configs if k[0] == s}),
                     "; ".join(f"{H.esc(k)} ∈ {{{H.esc(', '.join(fr.format_value(v) for v in vs))}}}"
                               for k, vs in values.items()) or "—",
                     f'<span class=msg>{H.esc(params_text(fixed))}</span>',
                     seeds_cell(sec, s),
                     " ".join(f"{H.badge(k)} {n}" for k, n in statuses.items())])
    return H.table(["solver", "configurations", "values tried", "fixed", "seeds per configuration", "runs"], rows,
                   numeric={1, 4}, raw=set(range(6)), nowrap={0, 5})


def seeds_cell(sec, solver):
    """How many seeds each configuration of `solver` ran ("2–3" where they differ); the seed
    values, which may be hundreds, only in the tooltip."""
    counts = sorted({len({r.attrs.get("seed") for r in rs}) for (sv, _), rs in sec.configs.items() if sv == solver})
    seeds = sorted({r.attrs.get("seed") for (sv, _), rs in sec.configs.items() if sv == solver for r in rs})
    text = str(counts[0]) if len(counts) == 1 else f"{counts[0]}–{counts[-1]}"
    return f'<span title="seeds {H.esc(", ".join(str(v) for v in seeds))}">{text}</span>'


def section_html(k, sec, targets, colors, heading, default_targets=True):
    out = [f'<h2 id="s{k}">{H.esc(sec.problem)}'
           + (f' <span class=note>· {H.esc(heading)}</span>' if heading else '') + '</h2>',
           f'<p class=meta>{H.esc(params_text(sec.problem_params))} · participation '
           f'<code>{H.esc(sec.participation or "?")}</code> · {H.plural(len(sec.runs), "run")}, '
           f'{H.plural(len(sec.best), "solver")}, {H.plural(len(sec.configs), "configuration")}</p>']
    arrow = "lowest" if sec.direction == "min" else "highest"
    when = "final" if sec.same_end else f"at round {sec.common_round} (the last round every ok run reached)"
    out.append(f"<h3>Convergence of each solver's best configuration</h3>"
               f"<figure>{figure(sec, colors, f'fig{k}')}<figcaption>Best configuration: {arrow} median over "
               f"seeds of <code>{H.esc(sec.metric)}</code> {when}; diverged and failed runs count as "
               f"worst. Line: median over the seeds still running (dashed: some diverged or failed, "
               f"the curve ends where they did); band: min–max over seeds. Oracle calls: all *_calls "
               f"columns summed over clients."
               f"</figcaption></figure>")
    out.append("<h3>Final metrics (median over seeds that ended ok)</h3>" + final_table(sec))
    out.append("<p class=note>↓ lower is better, ↑ higher is better; bold: best per column; "
               "time: seconds of solver work, evaluation excluded.</p>")
    given = [t for t in targets if t[0] in sec.metrics]
    chosen = given or ([default_target(sec)] if default_targets and default_target(sec) else [])
    out.append("<h3>Cost to reach a target</h3>")
    if not chosen and not default_targets:
        out.append("<p class=note>No target: the experiment's claims state no threshold for these runs.</p>")
    elif not chosen:
        out.append("<p class=note>No target: no solver's best configuration has a finite value.</p>")
    for t in chosen:
        why = ("given with --target" if given else
               f"by default the worst of the solvers' best median {H.esc(t[0])} {when}, a level "
               f"every solver's best configuration reaches; --target METRIC&lt;=V or &gt;=V "
               f"overrides")
        out.append(f"<p class=meta>Target <code>{H.esc(t[0])} {H.esc(t[1])} {H.num(t[2])}</code> "
                   f"({why}). Costs are the first recorded row meeting it, the median over the "
                   f"seeds (the ⌈n/2⌉-th smallest, so half of the seeds got there).</p>")
        out.append(target_table(sec, t))
    out.append("<h3>Diverged and failed runs</h3>" + failed_table(sec))
    out.append("<h3>Grid</h3>" + grid_table(sec))
    return "\n".join(out)


def distinguishing_params(sections):
    """Per section, the problem parameters (and participation) whose values differ between the
    sections of its problem: what tells sections headed by one problem name apart."""
    out = []
    for s in sections:
        same = [t for t in sections if t.problem == s.problem]
        keys = sorted({k for t in same for k in t.problem_params})
        varied = [k for k in keys if len({str(t.problem_params.get(k)) for t in same}) > 1]
        text = params_text({k: s.problem_params.get(k) for k in varied}) if varied else ""
        if len({t.participation for t in same}) > 1:
            text = (text + ", " if text else "") + f"participation {s.participation}"
        out.append(text)
    return out


def claim_seeds_html(claim):
    """Every seed's numbers of one claim (each side's value, the margin, whether it holds)."""
    units = claim.get("units") or []
    if not units:
        return ""
    sides = [s["label"] for s in claim.get("sides") or []]
    head = "".join(f"<th>{H.esc(s)}</th>" for s in sides)
    body = "".join(
        f"<tr><td>{H.esc(u['unit'])}</td>"
        + "".join(f'<td class=num>{H.num(v)}</td>' for v in u["values"])
        + f'<td class=num>{H.num(u["margin"])}</td><td>{"yes" if u["holds"] else "no"}</td></tr>'
        for u in units)
    return (f"<details><summary>per seed ({len(units)})</summary><table><tr><th>unit</th>{head}"
            f"<th>{H.esc(claim.get('margin', 'margin'))}</th><th>holds</th></tr>{body}</table></details>")


def experiment_html(exp, figure_path, figure_data=None):
    """The page's head when it reports a paper experiment: the reference, what is reproduced,
    the substitutes, every claim with its verdict and numbers, the figure on the paper's axes."""
    out = ['<section id="experiment"><h2>What this reproduces</h2>',
           f'<p><b>Reference.</b> {H.esc(exp.get("reference", ""))}</p>',
           f'<p><b>Reproduces.</b> {H.esc(exp.get("reproduces", ""))}</p>',
           f'<p><b>Substitutes.</b> {H.esc(exp.get("substitutes") or "none")}</p>']
    for label, key in (("Follows the authors' code", "follows_code"), ("Follows the paper's text", "follows_paper")):
        items = exp.get(key) or []
        if items:
            out.append(f"<p><b>{label}.</b></p><ul>" + "".join(f"<li>{H.esc(x)}</li>" for x in items) + "</ul>")
    claims = exp.get("claims") or []
    out.append(f'<h3>Claims: {H.esc(exp.get("tally", ""))}</h3>')
    by_origin = {}
    for c in claims:
        by_origin.setdefault(c.get("origin", "paper"), []).append(c["verdict"])
    counts = "; ".join(
        f'{"the paper" if origin == "paper" else "fedbench own"}: '
        + ", ".join(f'{v.count(w)} {w}' for w in ("holds", "contradicted", "inconclusive"))
        for origin, v in sorted(by_origin.items(), key=lambda kv: kv[0] != "paper"))
    out.append(f"<p class=meta>By origin: {H.esc(counts)}</p>")
    out.append("<p class=meta>Each claim is judged seed by seed: holds or contradicted when a confidence interval "
               "of the median per-seed margin lies wholly on one side of the claim's threshold, inconclusive "
               "when it straddles it or fewer than 5 seeds pair up. Open a claim for its per-seed numbers.</p>")
    badge = {"holds": "ok", "contradicted": "error", "inconclusive": "diverged"}
    rows = []
    for c in claims:
        word = c["verdict"]
        if exp.get("quick"):
            word = "not decided at the quick budget" if word == "inconclusive" else word + " at the quick budget"
        rows.append([f'<span class="badge {badge.get(c["verdict"], "error")}">{H.esc(word)}</span>',
                     H.esc(c.get("origin", "paper")), H.esc(c["line"]) + claim_seeds_html(c)])
    out.append(H.table(["verdict", "origin", "claim, with its evidence"], rows, raw={0, 2}))
    diagnosis = exp.get("diagnosis") or []
    if diagnosis:
        out.append("<h3>Diagnosis runs (variants; they never decide the verdict)</h3><ul>"
                   + "".join(f"<li>{H.esc(x)}</li>" for x in diagnosis) + "</ul>")
    if figure_data:
        out.append("<h3>Figure on the paper's axes</h3><figure>" + RC.chart_html(
            "paper-figure", figure_data["metric"], figure_data["y_label"], figure_data["log"],
            figure_data["panels"], exp.get("title", "figure")) + "</figure>")
    elif figure_path and os.path.exists(figure_path):
        with open(figure_path, "rb") as f:
            data = base64.b64encode(f.read()).decode("ascii")
        out.append(f'<h3>Figure on the paper\'s axes</h3><figure><img src="data:image/png;base64,{data}" '
                   f'alt="{H.esc(exp.get("title", "figure"))}"></figure>')
    out.append("</section>")
    return "\n".join(out)


def environment_html(runs):
    rows = []
    for a, label in ENV_ATTRS.items():
        vals = [r.attrs[a] for r in runs if a in r.attrs]
        if not vals:
            continue
        if a.endswith("_time"):  # seconds: summed over the runs
            text = H.esc(H.num(float(np.nansum(vals)), 3) + " s")
        else:  # one value, or each value with its number of runs
            counts = pd.Series([str(v) for v in vals]).value_counts()
            text = "; ".join(H.esc(f"{v} ({n} runs)" if len(counts) > 1 else v) for v, n in counts.items())
        rows.append([f"{H.esc(label)} <code>{H.esc(a)}</code>", text])
    return '<h2 id="env">Environment</h2>' + H.table(["attribute", "value"], rows, raw={0, 1})


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("results", help="results directory (runs/*.h5)")
    ap.add_argument("-o", "--out", required=True, help="output directory for index.html")
    ap.add_argument("--shown-as", help="the page's name in the closing line (fedbench moves it there)")
    ap.add_argument("--target", action="append", default=[], help="METRIC<=V or METRIC>=V")
    ap.add_argument("--metric", default="", help="metric that ranks configurations and is plotted")
    ap.add_argument("--title", default="")
    ap.add_argument("--all", action="store_true", help="every run file of RESULTS_DIR, also those "
                    "of older configurations its suites no longer have (suite.tsv)")
    # `fedbench report` hands this script copies of the run files it screened: the directory
    # the page names, and how many files it refused there.
    ap.add_argument("--source", default="", help="results directory to name on the page "
                    "(default: RESULTS_DIR)")
    ap.add_argument("--stale", type=int, default=0, help="runs that fedbench found stale (made by "
                    "other code or from other data than the build that reports them)")
    ap.add_argument("--stale-example", default="", help="with --stale: the first one's id and reason")
    ap.add_argument("--refused", type=int, default=0, help="run files refused before this script "
                    "ran (counted with the unreadable ones)")
    ap.add_argument("--fedbench", default="", help="the fedbench binary whose `select --json` "
                    "scores the configurations")
    ap.add_argument("--experiment", default="", help="JSON of the paper experiment the runs reproduce "
                    "(written by `fedbench reproduce`): reference, claims and verdicts, figure")
    ap.add_argument("--figure", default="", help="with --experiment: its figure (PNG), embedded")
    ap.add_argument("--figure-data", default="", help="with --experiment: its figure's curves (plot.py "
                    "--data), drawn interactively instead of the PNG")
    ap.add_argument("--no-default-target", action="store_true", help="no cost-to-target table unless "
                    "--target gives one")
    args = ap.parse_args()
    source = os.path.abspath(args.source or args.results)
    try:
        targets = [fc.parse_target(t) for t in args.target]
    except ValueError as e:
        sys.exit(f"report.py: --target: {e}")
    files = fr.run_files(args.results, args.all)
    runs = [fr.add_derived(r) for r in fr.read_runs(files)]
    if not runs:
        sys.exit(f"report.py: no readable run file in {source}")

    groups = {}
    for r in runs:
        key = (r.attrs.get("problem", "?"), str(sorted(r.attrs["problem_params"].items())),
               fr.run_info(r)["participation"])
        groups.setdefault(key, []).append(r)
    scores = Scores(fedbench_binary(args.fedbench), args.results)
    sections = [Section(groups[k], args.metric, scores) for k in sorted(groups)]
    left_out = [r for sec in sections for r in sec.left_out]
    runs = [r for r in runs if not any(r is x for x in left_out)]
    sections = [sec for sec in sections if sec.configs]
    if not sections:
        sys.exit("report.py: fedbench scored none of the runs; nothing to report")
    solvers = sorted({r.attrs.get("solver", "?") for r in runs})
    cmap = plt.get_cmap("tab10" if len(solvers) <= 10 else "tab20")
    colors = {s: cmap(i % cmap.N) for i, s in enumerate(solvers)}

    skipped = len(files) - len(runs) + args.refused  # the left-out runs included
    status = pd.Series([r.attrs.get("status", "?") for r in runs]).value_counts()
    exp = None
    if args.experiment:
        with open(args.experiment, encoding="utf-8") as f:
            exp = json.load(f)
    title = args.title or (exp and exp.get("title")) or f"fedbench report: {os.path.basename(source)}"
    now = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    body = [f"<header><h1>{H.esc(title)}</h1>",
            f"<p class=meta>Generated {H.esc(now)} from <code>{H.esc(source)}"
            f"</code></p><p class=meta>{H.plural(len(runs), 'run')}: "
            + " ".join(f"{H.badge(k)} {n}" for k, n in status.items())
            + (f" · {skipped} unreadable file{'s' if skipped > 1 else ''} skipped" if skipped else "")
            + f" · {H.plural(len(sections), 'problem configuration')} · {H.plural(len(solvers), 'solver')}"
            "</p>"
            + (f'<p class=meta><span class="badge error">stale</span> {H.plural(args.stale, "run")} made by '
               f'other code or from other data than the fedbench that drew this page (e.g. '
               f'{H.esc(args.stale_example)}); <code>fedbench run SUITE</code> reruns them</p>'
               if args.stale else "")
            + "</header>",
            "<nav><ul>" + ('<li><a href="#experiment">What this reproduces</a></li>' if exp else "") + "".join(
                f'<li><a href="#s{k}">{H.esc(s.problem)}</a> <span class=note>'
                f'{H.esc(params_text(s.problem_params))}</span></li>' for k, s in enumerate(sections, 1))
            + '<li><a href="#env">Environment</a></li></ul></nav>']
    if exp:
        figure_data = None
        if args.figure_data and os.path.exists(args.figure_data):
            with open(args.figure_data, encoding="utf-8") as f:
                figure_data = json.load(f)
        body.append(experiment_html(exp, args.figure, figure_data))
    headings = distinguishing_params(sections)
    body += [section_html(k, s, targets, colors, headings[k - 1], not args.no_default_target)
             for k, s in enumerate(sections, 1)]
    body.append(environment_html(runs))
    os.makedirs(args.out, exist_ok=True)
    out = os.path.join(args.out, "index.html")
    body = "\n".join(body)
    page = H.page(title, body, RC.page_assets() if 'class="fb-figure"' in body else "")

    def write(tmp):
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(page)
    fr.publish(out, write)
    print(f"report.py: wrote {args.shown_as or out} ({len(runs)} runs, {len(sections)} problem configurations)")


if __name__ == "__main__":
    main()
