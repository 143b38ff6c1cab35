#!/usr/bin/env python3
"""Writes docs/results.md's table of measured numbers from the recorded verdict files.

Every number between the markers <!-- results-table --> and <!-- /results-table --> of
docs/results.md comes from results/verdicts/NAME.json (written by `make reproduce`): for each
experiment, each of the paper's claims with its verdict, both medians, the paired interval and n,
then fedbench's own claims and the diagnosis runs (variants) counted. An experiment without a
verdict file gets a row that says so. scripts/catalogs.sh runs this; tests/cli/catalogs.sh fails
when the committed page differs from what the files say.

    python3 scripts/results_table.py VERDICTS_DIR EXPERIMENTS_DIR PAGE_IN PAGE_OUT [STATUS]

STATUS: the output of `fedbench reproduce --status`; a file it calls stale gets its row marked.
"""
import glob
import json
import os
import sys

BEGIN, END = "<!-- results-table -->", "<!-- /results-table -->"


def number(x):
    """Four significant digits, as the verdict lines print them."""
    if x is None:
        return "n/a"
    return f"{x:.4g}"


def medians(claim):
    sides = claim.get("sides", [])
    return " vs ".join(f"{s['label']} {number(s.get('median'))}" for s in sides)


def interval(claim):
    ev = claim.get("evidence", {})
    iv = ev.get("interval")
    n = ev.get("n", 0)
    if ev.get("seed_free"):
        return f"exact (the runs do not depend on the seed), n = {n}"
    if not iv:
        return f"n = {n}"
    return (f"{claim.get('margin', 'margin')} {number(ev.get('median'))}, "
            f"{100 * iv['coverage']:.1f}% interval [{number(iv['low'])}, {number(iv['high'])}], n = {n}")


def cell(text):
    return text.replace("|", "\\|").replace("\n", " ")


def claim_line(claim):
    return (f"**{claim['verdict']}**: {cell(claim['text'])} ({cell(medians(claim))}; "
            f"{cell(interval(claim))})")


def tally(counts):
    return f"{counts['holds']} hold, {counts['contradicted']} contradicted, {counts['inconclusive']} inconclusive"


def staleness(status_path):
    """NAME -> why, for the files `fedbench reproduce --status` calls stale."""
    out = {}
    if not status_path:
        return out
    with open(status_path) as f:
        for line in f:
            name, _, rest = line.partition(": ")
            if rest.rstrip().endswith(")") and "; stale (" in rest:
                out[name] = rest.rsplit("; stale (", 1)[1].rstrip()[:-1]
    return out


def experiment_rows(verdicts_dir, experiments_dir, stale, page_dir):
    names = sorted(os.path.splitext(os.path.basename(p))[0]
                   for p in glob.glob(os.path.join(experiments_dir, "*.yaml")))
    rows = []
    for name in names:
        path = os.path.join(verdicts_dir, name + ".json")
        if not os.path.exists(path):
            rows.append(f"| `{name}` | not recorded: `make reproduce ONLY={name}` | | |")
            continue
        with open(path) as f:
            doc = json.load(f)
        claims = doc.get("claims", [])
        paper = [c for c in claims if c.get("origin") == "paper"]
        own = [c for c in claims if c.get("origin") != "paper"]
        seeds = doc.get("seeds", {})
        report = seeds.get("report", [])
        lines = "<br>".join(claim_line(c) for c in paper) or "none"
        own_text = tally(doc["extra_claims"]) if own else "none"
        variants = doc.get("variants", [])
        if variants:
            held = sum(1 for v in variants for c in v.get("claims", []) if c.get("verdict") == "holds")
            total = sum(len(v.get("claims", [])) for v in variants)
            own_text += f"; diagnoses: {len(variants)} variant(s), {held} of {total} claims hold"
        mark = f" (stale: {cell(stale[name])}; not this code's numbers)" if name in stale else ""
        figure = f"img/experiments/{name}.png"
        link = f" ([figure]({figure}))" if os.path.exists(os.path.join(page_dir, figure)) else ""
        rows.append(f"| [`{name}`](catalog/verdicts.md#{name}){link} | {tally(doc['paper_claims'])}{mark}<br>{lines} | "
                    f"{own_text} | {len(report)} |")
    return rows


def main():
    verdicts_dir, experiments_dir, page_in, page_out = sys.argv[1:5]
    stale = staleness(sys.argv[5] if len(sys.argv) > 5 else None)
    with open(page_in) as f:
        page = f.read()
    if BEGIN not in page or END not in page:
        sys.exit(f"results_table.py: {page_in} has no {BEGIN} ... {END} markers; add them where the table goes")
    table = [BEGIN,
             "| experiment | the paper's claims: verdict, medians, paired interval, n | fedbench's own claims | report seeds |",
             "|---|---|---|---|"]
    table += experiment_rows(verdicts_dir, experiments_dir, stale, os.path.dirname(os.path.abspath(page_in)))
    table.append(END)
    head, rest = page.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    with open(page_out + ".tmp", "w") as f:
        f.write(head + "\n".join(table) + tail)
    os.replace(page_out + ".tmp", page_out)


if __name__ == "__main__":
    main()
