#!/usr/bin/env bash
# Paper experiments: --list names every experiment with its reference and substitutes; one
# quick variant runs end to end (tuning, selection, report seeds, figure, report) and its
# claims hold at the quick budget; a claim the runs contradict says so with its numbers, exit 1.
source "$(dirname "$0")/lib.bash"

expect_ok '^zhang2024-fig1a$' "$fedbench" reproduce --list
expect_ok 'reference: +Siqi Zhang, Sayantan Choudhury' "$fedbench" reproduce --list
expect_fail 2 "fedbench: unknown experiment 'zhang2024-fig1c'; valid: $("$fedbench" reproduce --list | grep -E '^[a-z0-9-]+$' | paste -sd, | sed 's/,/, /g') (did you mean 'zhang2024-fig1a'?)" \
  "$fedbench" reproduce zhang2024-fig1c

# Experiments with a quick variant measured at up to 20 s on 2 cores ("--quick: 9 s") run in
# `make test`, each as its own ctest entry (experiment.NAME, claims only); at least ten must.
# Out-of-scope ones are listed with their reason and refuse to run.
quick_ones=$("$fedbench" reproduce --list | awk '/^[a-z0-9-]+$/ { name = $0 }
  /\(--quick: [0-9.]+ s\)/ { match($0, /--quick: [0-9.]+/); t = substr($0, RSTART + 9, RLENGTH - 9); if (t + 0 <= 20) print name }')
if [ "$(wc -w <<<"$quick_ones")" -lt 10 ]; then
  echo "FAIL: fewer than 10 experiments have a quick variant under 20 s: $quick_ones"; failures=$((failures + 1))
fi
checks=$((checks + 1))
for name in $("$fedbench" reproduce --list | awk '/^[a-z0-9-]+$/ { name = $0 } /^  out of scope: / { print name }'); do
  checks=$((checks + 1))
  err=$("$fedbench" reproduce "$name" 2>&1 >/dev/null) && rc=0 || rc=$?
  if [ "$rc" != 2 ] || [[ "$err" != "fedbench: experiment '$name' is out of scope here: "?* ]]; then
    echo "FAIL: reproduce $name (out of scope): exit $rc: $err"; failures=$((failures + 1))
  fi
done
# One experiment end to end as a user runs it: the figure and the HTML report are drawn.
expect_ok '^4 hold, 0 contradicted, 0 not decided at the quick budget$' "$fedbench" reproduce zhang2024-fig7 --quick -o "$scratch/fig7"
checks=$((checks + 1))
if [ ! -s "$scratch/fig7/figure.png" ] || [ ! -s "$scratch/fig7/html/index.html" ]; then
  echo "FAIL: zhang2024-fig7: no figure or report"; failures=$((failures + 1))
fi
# A bilevel experiment's quick curves: its suite evaluates every 100 of 2000 rounds, which
# would leave 3 rows in 400 quick rounds; every quick run (as h5py reads them) has at least 11.
"$fedbench" reproduce zhang2025-fig1-ijcnn1 --quick -q --no-figure -o "$scratch/ijcnn1" >/dev/null
checks=$((checks + 1))
if ! "$python" - "$scratch/ijcnn1" <<'PY'
import glob, sys, h5py
quick = []
for path in glob.glob(sys.argv[1] + "/**/runs/*.h5", recursive=True):
    with h5py.File(path, "r") as f:
        if int(f.attrs["rounds"]) == 400:
            quick.append(len(f["trajectory/round"]))
assert quick and min(quick) >= 11, f"{len(quick)} quick runs, rows {sorted(set(quick))}"
PY
then echo "FAIL: a quick bilevel experiment records too few points"; failures=$((failures + 1)); fi
# The page a researcher would send, checked in the DOM headless Chromium builds from it: the
# experiment's title and full reference, every claim with its verdict and numbers, the figure on
# the paper's axes (interactive, from plot.py's figure.json), above the report's sections.
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
  echo "SKIPPED: the reproduce page in a browser: chromium is not installed (scripts/install-deps.sh installs it)"
else
  checks=$((checks + 1))
  browse() {  # browse ARGS...: the page in headless Chromium at 1280x4000 CSS pixels
    timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars \
      --force-device-scale-factor=1 --enable-logging=stderr --v=0 --window-size=1280,4000 \
      --user-data-dir="$(mktemp -d "$scratch/chromium.XXXXXX")" "$@" "file://$(realpath "$scratch/fig7/html/index.html")"
  }
  browse --dump-dom >"$scratch/fig7.dom" 2>"$scratch/fig7.console"
  browse --screenshot="$(realpath -m "$scratch/fig7.png")" >/dev/null 2>>"$scratch/fig7.console"
  reference=$("$fedbench" reproduce --list | awk '/^zhang2024-fig7$/ { f = 1 } f && /^  reference: / { sub(/^  reference: +/, ""); print; exit }')
  title=$("$fedbench" reproduce --list | awk '/^zhang2024-fig7$/ { getline; sub(/^  /, ""); print; exit }')
  claims=$(grep -c '^claim: ' "$scratch/fig7/claims.txt")
  if ! "$python" - "$scratch/fig7.dom" "$reference" "$title" "$claims" "$scratch/fig7/figure.json" <<'PY'
import html, json, re, sys
dom, reference, title, claims = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3], int(sys.argv[4])
panels = len(json.load(open(sys.argv[5]))["panels"])
text = html.unescape(dom)
h1 = re.search(r"<h1>(.*?)</h1>", text).group(1)
assert h1 == title + " (--quick)", h1
section = text[text.index('<section id="experiment">'):text.index("</section>")]
assert reference in section, "reference missing"
assert section.count('class="badge ok">holds at the quick budget') == claims, section.count('class="badge ok">holds')
assert f"Claims: {claims} hold, 0 contradicted, 0 not decided at the quick budget" in section
assert section.count("<details><summary>per seed (10)</summary>") == claims, "per-seed numbers missing"
assert f"By origin: the paper: {claims} holds, 0 contradicted, 0 inconclusive" in section, "counts by origin missing"
assert re.search(rf'<div class="fb-figure" id="paper-figure"[^>]*data-drawn="{panels}"', section), "no figure drawn"
assert text.index("</section>") < text.index('<h2 id="s1">'), "the experiment is not above the runs"
PY
  then echo "FAIL: the reproduce page of zhang2024-fig7 (DOM in $scratch/fig7.dom)"; failures=$((failures + 1)); fi
  # Its figures against the data, as for any report (the paper's figure included).
  checks=$((checks + 1))
  "$python" tests/cli/report_browser.py "$scratch/fig7/html/index.html" "$scratch/fig7.dom" "$scratch/fig7.png" \
    "$scratch/fig7.console" "$scratch/fig7/tuning/runs" >/dev/null ||
    { echo "FAIL: the reproduce page's figures in a browser ($scratch/fig7.png)"; failures=$((failures + 1)); }
fi
# make reproduce's driver: two experiments at a time, each line with its time, the total at the
# end; an unknown name is refused before anything runs.
checks=$((checks + 1))
src=$PWD fb=$(realpath "$fedbench")
out=$(mkdir -p "$scratch/both" && cd "$scratch/both" && "$python" "$src/scripts/reproduce_all.py" --fedbench "$fb" \
      --only zhang2024-fig7,zhang2024-fig8 --quick --no-figure 2>&1) || true
if [ "$(grep -c '^== zhang2024-fig[78]: exit 0, [0-9]* s (zhang2024-fig[78]: time ' <<<"$out")" != 2 ] ||
   ! grep -q '^== all 2 experiments: [0-9]* s wall, 2 at a time$' <<<"$out"; then
  echo "FAIL: reproduce_all.py on two quick experiments:"; sed 's/^/  | /' <<<"$out"; failures=$((failures + 1))
fi
expect_fail 1 "reproduce_all.py: --only nosuch: not a runnable experiment; see fedbench reproduce --list" \
  "$python" scripts/reproduce_all.py --fedbench "$fedbench" --only nosuch

# --no-figure: the same claims, nothing drawn.
expect_ok '^4 hold, 0 contradicted, 0 not decided at the quick budget$' "$fedbench" reproduce zhang2024-fig7 --quick --no-figure -q -o "$scratch/fig7-bare"
checks=$((checks + 1))
if [ -e "$scratch/fig7-bare/figure.png" ] || [ -e "$scratch/fig7-bare/html" ]; then
  echo "FAIL: --no-figure drew a figure or a report"; failures=$((failures + 1))
fi

# A claim the runs contradict: reported with its numbers, exit 1.
mkdir -p "$scratch/experiments"
cat >"$scratch/experiments/impossible.yaml" <<YAML
name: impossible
title: "Local GDA beats ProxSkip-GDA-FL"
reference: "none"
reproduces: "a claim that is false, to check that claims can fail"
suite: $PWD/results/suites/zhang2024-fig1a.yaml
quick: {rounds: 60}
claims:
  - text: "Local GDA is better than ProxSkip-GDA-FL"
    origin: fedbench
    better: {solver: local-gda, than: proxskip-gda-fl, metric: rel_error, at: 60}
  - text: "Local EG ends closer to ProxSkip-GDA-FL than to Local GDA"
    origin: fedbench
    closer: {solver: local-eg, to: proxskip-gda-fl, than: local-gda, metric: rel_error, at: 60}
  - text: "ProxSkip-GDA-FL with the communication probability of the suite beats Local GDA"
    origin: fedbench
    better: {solver: proxskip-gda-fl, than: local-gda, metric: rel_error, at: 60, where: {clients: 20}}
YAML
checks=$((checks + 1))
out=$(FEDBENCH_EXPERIMENTS="$scratch/experiments" "$fedbench" reproduce impossible --quick -q -o "$scratch/impossible") && rc=0 || rc=$?
if [ "$rc" != 1 ] || ! grep -q '^claim: Local GDA is better than ProxSkip-GDA-FL: contradicted at the quick budget (rel_error at round 60, n = 10 seeds paired: local-gda .* vs proxskip-gda-fl .*; holds on 0/10; worst seed ' <<<"$out" \
   || ! grep -q '^claim: Local EG ends closer to ProxSkip-GDA-FL than to Local GDA: holds at the quick budget (rel_error at round 60, n = 10 seeds paired: local-eg .*, to proxskip-gda-fl .*, than local-gda .*; holds on 10/10' <<<"$out" \
   || ! grep -q '^2 hold, 1 contradicted, 0 not decided at the quick budget$' <<<"$out"; then
  echo "FAIL: a false claim was not reported (exit $rc)"; echo "$out" | tail -n 3; failures=$((failures + 1))
fi
# --json: the same verdicts as one document on stdout (the runs are done: resumed, not rerun).
checks=$((checks + 1))
FEDBENCH_EXPERIMENTS="$scratch/experiments" "$fedbench" reproduce impossible --quick --json --no-figure \
  -o "$scratch/impossible" >"$scratch/impossible.json" && rc=0 || rc=$?
if [ "$rc" != 1 ] || ! "$python" - "$scratch/impossible.json" "$out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
text = [l for l in sys.argv[2].splitlines() if l.startswith("claim: ")]
assert d["name"] == "impossible" and (d["holds"], d["contradicted"], d["inconclusive"]) == (2, 1, 0), d
assert [c["line"] for c in d["claims"]] == text, d
assert [c["verdict"] for c in d["claims"]] == ["contradicted", "holds", "holds"], d
first = d["claims"][0]
assert first["evidence"]["n"] == 10 and len(first["units"]) == 10 and not any(u["holds"] for u in first["units"]), first
assert [s["label"] for s in first["sides"]] == ["local-gda", "proxskip-gda-fl"], first
PY
then echo "FAIL: reproduce --json (exit $rc)"; failures=$((failures + 1)); fi
# Verdicts as data: --record keeps the full run's verdict document; --status says it is current,
# and stale once what made it no longer matches (here a solver fingerprint edited in the file).
mkdir -p "$scratch/verdicts"
expect_fail 2 "fedbench: --record keeps full-budget verdicts only; drop --quick or --record" \
  "$fedbench" reproduce zhang2024-fig7 --quick --record "$scratch/verdicts"
expect_ok '^zhang2024-fig7: time [0-9.]+ (s|min) wall, [0-9.]+ (s|min) CPU \([0-9]+ cores; 60 runs, [0-9]+ found finished\)$' \
  "$fedbench" reproduce zhang2024-fig7 --no-figure -q -o "$scratch/fig7-full" --record "$scratch/verdicts"
checks=$((checks + 1))
if ! "$python" - "$scratch/verdicts/zhang2024-fig7.json" "$scratch/fig7-full/verdicts.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d == json.load(open(sys.argv[2])), "the recorded file differs from the run's own"
assert d["format"] == "fedbench-verdicts" and d["experiment"] == "zhang2024-fig7" and not d["quick"], d
assert d["paper_claims"] == {"holds": 4, "contradicted": 0, "inconclusive": 0}, d["paper_claims"]
assert d["seeds"]["report"] == list(range(10)) and d["seeds"]["tuning"] == [], d["seeds"]
c = d["claims"][0]
assert c["evidence"]["n"] == 10 and len(c["units"]) == 10 and all(len(u["values"]) == 2 for u in c["units"]), c
code = d["made_by"]["code"]
assert set(code["solvers"]) == {"proxskip-gda-fl", "local-gda", "local-eg"} and code["problems"].keys() == {"two-client-game"}, code
assert d["made_by"]["files"].keys() == {"experiments/zhang2024-fig7.yaml", "suites/zhang2024-fig7.yaml"}, d["made_by"]["files"]
t = d["timing"]  # 10 report seeds x 3 methods x 2 deltas (some copied from the runs above)
assert t["runs"] == 60 and 0 <= t["runs_found_finished"] <= 60 and t["cores"] >= 1 and t["jobs"] >= 1, t
assert 0 <= t["cpu_seconds"] and 0 <= t["wall_seconds"] < 600, t
PY
then echo "FAIL: the recorded verdict document"; failures=$((failures + 1)); fi
expect_ok '^zhang2024-fig7: paper.s claims 4 hold, 0 contradicted, 0 inconclusive; fedbench.s 0 hold, 0 contradicted, 0 inconclusive; recorded [0-9T:Z-]+ \(took [0-9.]+ (s|min), [0-9.]+ (s|min) CPU\); current$' \
  env FEDBENCH_VERDICTS="$scratch/verdicts" "$fedbench" reproduce --status
# A re-recording that runs nothing (every run found finished, as after a change to the verdict
# logic) keeps the time of the reproduce that ran the runs; one that ran them records its own.
mkdir -p "$scratch/alone" "$scratch/verdicts-alone"
"$fedbench" reproduce zhang2024-fig7 --no-figure -q -o "$scratch/alone/fig7" --record "$scratch/verdicts-alone" >/dev/null
cp "$scratch/verdicts-alone/zhang2024-fig7.json" "$scratch/first-record.json"
expect_ok '60 runs, 60 found finished\)$' \
  "$fedbench" reproduce zhang2024-fig7 --no-figure -q -o "$scratch/alone/fig7" --record "$scratch/verdicts-alone"
checks=$((checks + 1))
if ! "$python" - "$scratch/first-record.json" "$scratch/verdicts-alone/zhang2024-fig7.json" <<'PY'
import json, sys
first, second = (json.load(open(p))["timing"] for p in sys.argv[1:])
assert first["runs"] == 60 and first["runs_found_finished"] == 0, first
assert second == first, (first, second)
PY
then echo "FAIL: a re-recording replaced the measured time"; failures=$((failures + 1)); fi
expect_ok '^zhang2024-fig1a: no verdicts recorded' env FEDBENCH_VERDICTS="$scratch/verdicts" "$fedbench" reproduce --status
expect_ok '^\| zhang2024 \| \[`zhang2024-fig7`\]\(#zhang2024-fig7\) \| 4 / 0 / 0 \| none \| 10 \|$' \
  env FEDBENCH_VERDICTS="$scratch/verdicts" "$fedbench" reproduce --status --markdown
expect_ok '^\| `zhang2024-fig7` \| [0-9.]+ (s|min) \| [0-9.]+ (s|min) \| [0-9.]+ (s|min) \| 60 \([0-9]+\) \|$' \
  env FEDBENCH_VERDICTS="$scratch/verdicts" "$fedbench" reproduce --status --markdown
"$python" - "$scratch/verdicts/zhang2024-fig7.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["made_by"]["code"]["solvers"]["local-gda"] = "0123456789abcdef"
json.dump(d, open(sys.argv[1], "w"))
PY
expect_ok '^zhang2024-fig7: .*; stale \(code: solver local-gda changed\)$' \
  env FEDBENCH_VERDICTS="$scratch/verdicts" "$fedbench" reproduce --status
finish
