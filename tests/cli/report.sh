#!/usr/bin/env bash
# scripts/report.py (and `fedbench report`, which runs it on screened copies) on a small grid
# with diverged runs, a failed run and an unreadable file: one self-contained HTML page with
# interactive figures (the vendored uPlot), rendered in headless Chromium and checked on its
# DOM and its screenshot against the data (tests/cli/report_browser.py).
source "$(dirname "$0")/lib.bash"
results=$scratch/results
out=$scratch/out

expect_ok "" "$fedbench" run tests/cli/suites/mixed_grid.yaml --results "$results" -q --jobs 2

# A run with status error: the CLI offers no reliable way to make a solver throw mid-run, so
# the test writes one from a finished run (status, message, rows cut short), as the engine
# stores a run that threw. An unreadable file must be skipped with a warning.
failed_src=$results/$(awk -F'\t' '$5 == "auc" && $7 == "local-sgda" {print $NF; exit}' \
  "$results/manifest.tsv")
# Seed 99 in its configuration and identity, and under the id that identity hashes to: a run
# of its own, not a copy.
"$python" - "$failed_src" "$results/runs" scripts <<'PY'
import re, shutil, sys, h5py, numpy as np
sys.path.insert(0, sys.argv[3])
from fedbench_read import run_id
with h5py.File(sys.argv[1], "r") as f:
    identity = re.sub(r"\nseed: \d+\n", "\nseed: 99\n", str(f.attrs["identity"]))
path = f"{sys.argv[2]}/{run_id(identity)}.h5"
shutil.copy(sys.argv[1], path)
with h5py.File(path, "r+") as f:
    config = re.sub(r"\nseed: \d+\n", "\nseed: 99\n", str(f.attrs["config"]))
    f.attrs.update({"status": "error", "stop_reason": "error", "seed": np.uint64(99),
                    "message": "injected by the test: the solver threw at round 6",
                    "config": config, "identity": identity})
    t = f["trajectory"]
    for name in t:
        t[name].resize((2,))
    f.attrs["rounds"] = np.int64(t["round"][-1])
PY
echo "not an HDF5 file" >"$results/runs/ffffffffffffffff.h5"
# Neither planted file is a run of the suite: the reports below read them with --all.

checks=$((checks + 1))
if ! "$python" scripts/report.py "$results" --all -o "$out" >"$scratch/report.out" 2>"$scratch/report.err" ||
   grep -q Traceback "$scratch/report.err" ||
   ! grep -q "skipping .*ffffffffffffffff.h5" "$scratch/report.err"; then
  echo "FAIL: report.py on the results directory"; sed 's/^/  | /' "$scratch/report.out" "$scratch/report.err"
  failures=$((failures + 1))
fi
# `fedbench report` hands the script copies of the files its screen read (the script never opens
# a file from disk): the same page as the script on the directory itself, but for the time
# stamp, with the unreadable file named by fedbench and counted on the page.
checks=$((checks + 1))
if ! FEDBENCH_PYTHON="$python" "$fedbench" report "$results" --all -o "$scratch/out_cli" \
       >"$scratch/cli.out" 2>"$scratch/cli.err" ||
   ! grep -q "^fedbench: skipped: .*ffffffffffffffff.h5" "$scratch/cli.err" ||
   grep -q "fedbench_read: skipping" "$scratch/cli.err" ||
   ! grep -q "1 unreadable file skipped" "$scratch/out_cli/index.html" ||
   ! diff <(grep -v '^<p class=meta>Generated' "$out/index.html") \
          <(grep -v '^<p class=meta>Generated' "$scratch/out_cli/index.html") >"$scratch/cli.diff"; then
  echo "FAIL: fedbench report differs from report.py on the directory"
  sed 's/^/  | /' "$scratch/cli.out" "$scratch/cli.err"; head -c 2000 "$scratch/cli.diff"
  failures=$((failures + 1))
fi
# A configuration the script reads but fedbench scores none of (here a fedbench whose scores
# leave one solver out) is left out with a line and counted on the page, never the page's end.
cat >"$scratch/fedbench-partial" <<SH
#!/bin/sh
"$fedbench" "\$@" | "$python" -c 'import json, sys
d = json.load(sys.stdin)
d["all"] = [c for c in d["all"] if c["solver"] != "local-sgda"]
print(json.dumps(d))'
SH
chmod +x "$scratch/fedbench-partial"
checks=$((checks + 1))
if ! "$python" scripts/report.py "$results" -o "$scratch/out_partial" --fedbench "$scratch/fedbench-partial" \
       >"$scratch/partial.out" 2>"$scratch/partial.err" ||
   ! grep -q "^report.py: left out local-sgda on .*: fedbench scored none of its runs$" "$scratch/partial.err" ||
   ! grep -q "unreadable files\? skipped" "$scratch/out_partial/index.html"; then
  echo "FAIL: report.py with a configuration fedbench did not score"
  sed 's/^/  | /' "$scratch/partial.out" "$scratch/partial.err"; failures=$((failures + 1))
fi
expect_ok "wrote .*index.html" "$python" scripts/report.py "$results" --all -o "$scratch/out_target" \
  --target 'train_auc>=0.8' --target 'rel_error<=1e-3'
expect_fail 1 "report.py: --target: target 'auc=1': expected METRIC<=VALUE or METRIC>=VALUE" \
  "$python" scripts/report.py "$results" --all -o "$scratch/bad" --target 'auc=1'
# fedbench report refuses a column no run records, naming the valid ones, before drawing (the
# planted unreadable file is reported first).
refused() {  # refused WANT args...: exit 2, the last stderr line matching WANT, no page
  local want=$1 err rc
  shift
  checks=$((checks + 1))
  err=$("$fedbench" report "$results" --all -o "$scratch/refused" "$@" 2>&1 >/dev/null) && rc=0 || rc=$?
  if [ "$rc" != 2 ] || ! tail -n 1 <<<"$err" | grep -q -E -- "$want" || [ -e "$scratch/refused/index.html" ]; then
    echo "FAIL: report $*: exit $rc"; sed 's/^/  | /' <<<"$err"; failures=$((failures + 1))
  fi
}
refused "^fedbench: --metric nosuch: no run in $results records metric 'nosuch'; valid: objective, op_norm, rel_error, train_auc$" \
  --metric nosuch
refused "^fedbench: --target nosuch<=1: no run in $results records metric 'nosuch'; valid: " --target 'nosuch<=1'
refused "^fedbench: target 'auc=1' is not of the form METRIC<=VALUE or METRIC>=VALUE" --target 'auc=1'

# The page: one file that fetches nothing (the vendored uPlot, its licence and the figures'
# data inline), one interactive figure of four charts per problem configuration, every curve
# with data; the vendored files as SHA256SUMS records them.
checks=$((checks + 1))
if ! (cd scripts/report_assets && sha256sum --quiet -c SHA256SUMS); then
  echo "FAIL: scripts/report_assets differ from their SHA256SUMS"; failures=$((failures + 1))
fi
checks=$((checks + 1))
if ! "$python" - "$out/index.html" "$scratch/out_target/index.html" <<'PY'
import json, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
assert not re.search(r"<script[^>]*\ssrc=|<link|<img[^>]*src=\"(?!data:)|url\((?!data:)", page), "the page fetches something"
assert page.count("Permission is hereby granted") == 1 and "uPlot 1.6.32" in page, "uPlot or its licence missing"
figures = re.findall(r'<div class="fb-figure" id="([^"]*)".*?<script type="application/json" class="fb-data">(.*?)</script>', page, re.S)
assert len(figures) == 2, f"{len(figures)} figures, want one per problem configuration"
for fid, data in figures:
    spec = json.loads(data)
    assert [p["x_key"] for p in spec["panels"]] == ["round", "oracle_calls", "bytes", "wall_time"], fid
    for p in spec["panels"]:
        assert p["curves"] and len(p["x"]) > 1, (fid, p["x_key"])
        for c in p["curves"]:
            assert len(c["median"]) == len(p["x"]) and any(v is not None for v in c["median"]), (fid, c["label"])
            assert re.fullmatch(r"#[0-9a-f]{6}", c["color"]), c["color"]
for text in ["quadratic-game", "auc", "Final metrics", "rel_error ↓", "train_auc ↑",
             "Cost to reach a target", "by default the worst", "Diverged and failed runs",
             "injected by the test", "badge error", "badge diverged", "values tried",
             "step_size ∈ {0.1, 50}", "Environment", "fedbench_version", "git_commit",
             "1 unreadable file skipped"]:
    assert text in page, f"page lacks {text!r}"
target = open(sys.argv[2], encoding="utf-8").read()
for text in ["train_auc &gt;= 0.8", "rel_error &lt;= 0.001", "given with --target"]:
    assert text in target, f"page with --target lacks {text!r}"
PY
then echo "FAIL: index.html content"; failures=$((failures + 1)); fi

# Tables stay inside the page: each in its own box that scrolls sideways, long cells wrapping.
# The grid's seeds column holds how many seeds each configuration ran, counted here from the
# run files with h5py (a range "a–b" where a solver's configurations differ; the planted
# seed-99 run gives local-sgda on auc three).
checks=$((checks + 1))
if ! "$python" - "$out/index.html" "$results/runs" <<'PY'
import glob, re, sys, h5py
from collections import defaultdict
page = open(sys.argv[1], encoding="utf-8").read()
css = page[page.index("<style>"):page.index("</style>")]
assert re.search(r"\.table \{[^}]*overflow-x: auto", css), "no scrolling box for tables"
assert re.search(r"td \{[^}]*overflow-wrap: anywhere", css), "long cells do not wrap"
assert page.count("<table>") == page.count('<div class="table"><table>') > 0, "a table outside its box"
seeds = defaultdict(set)  # (problem, solver, solver params) -> seeds
for path in glob.glob(sys.argv[2] + "/*.h5"):
    try:
        f = h5py.File(path, "r")
    except OSError:
        continue  # the planted unreadable file
    with f:
        a = lambda k: f.attrs[k].decode() if isinstance(f.attrs[k], bytes) else str(f.attrs[k])
        params = tuple(sorted((k, str(v)) for k, v in f["params/solver"].attrs.items()))
        seeds[(a("problem"), a("solver"), params)].add(int(f.attrs["seed"]))
for section in page.split('<h2 id="s')[1:]:
    problem = re.match(r'\d+">([^<]*)', section)[1].strip()
    grid = section[section.index("<h3>Grid</h3>"):]
    cells = dict(re.findall(r'<tr><td class="nw">([^<]*)</td>.*?<span title="seeds [^"]*">([^<]*)</span>', grid))
    solvers = {s for (p, s, _) in seeds if p == problem}
    assert set(cells) == solvers, (problem, cells, solvers)
    for solver in solvers:
        counts = sorted({len(v) for (p, s, _), v in seeds.items() if (p, s) == (problem, solver)})
        want = str(counts[0]) if len(counts) == 1 else f"{counts[0]}–{counts[-1]}"
        assert cells[solver] == want, (problem, solver, cells[solver], want)
assert any(len(v) == 3 for v in seeds.values()), "the planted seed is not counted"
PY
then echo "FAIL: report tables (scrolling box, wrapping, seeds per configuration)"; failures=$((failures + 1)); fi

# Names from the data drawn as written: a solver named like a TeX macro and a parameter value
# with dollar signs (copies of the quadratic-game runs) must not stop matplotlib; the page is
# written and names them, escaped for HTML; plot.py draws them in legends, panel titles and
# axis labels (a column description and unit with dollar signs) and a title given with --title.
expect_ok " 0 failed" "$python" tests/python/test_output.py
odd=$scratch/odd
mkdir -p "$odd/runs" "$scratch/odd_plot"
awk -F'\t' '$5 == "quadratic-game" {print $NF}' "$results/manifest.tsv" |
  while read -r f; do cp "$results/$f" "$odd/runs/"; done
"$python" - "$odd/runs" <<'PY'
import glob, sys, h5py
for path in glob.glob(sys.argv[1] + "/*.h5"):
    with h5py.File(path, "r+") as f:
        solver = f.attrs["solver"]
        if (solver.decode() if isinstance(solver, bytes) else solver) == "gda":
            f.attrs["solver"] = r"$\undefinedmacro{x}$"
            params = f["params/solver"]
            if str(params.attrs["step_size"]) in ("50", "b'50'"):
                params.attrs["step_size"] = "50%_$x$"
        f["trajectory/op_norm"].attrs.update({"description": r"norm $\undefinedmacro{x}$",
                                              "unit": "50%_$x$"})
PY
odd_title='<b>$\undefinedmacro{x}$ 50%_$x$</b>'
checks=$((checks + 1))
"$python" scripts/report.py "$odd" -o "$scratch/odd_report" --title "$odd_title" >"$scratch/odd.out" 2>&1 && rc=0 || rc=$?
if [ $rc != 0 ] || grep -q Traceback "$scratch/odd.out" || ! "$python" - "$scratch/odd_report/index.html" <<'PY'
import json, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
figures = re.findall(r'<script type="application/json" class="fb-data">(.*?)</script>', page, re.S)
assert len(figures) == 1, f"{len(figures)} figures"
labels = {c["label"] for p in json.loads(figures[0])["panels"] for c in p["curves"]}
assert any(l.startswith(r"$\undefinedmacro{x}$") for l in labels), labels
for text in [r"$\undefinedmacro{x}$", "step_size ∈ {0.1, 50%_$x$}",
             r"<h1>&lt;b&gt;$\undefinedmacro{x}$ 50%_$x$&lt;/b&gt;</h1>"]:
    assert text in page, f"page lacks {text!r}"
PY
then echo "FAIL: report.py on runs named with dollar signs: exit $rc"; sed 's/^/  | /' "$scratch/odd.out" | tail -n 8
  failures=$((failures + 1))
fi
expect_ok "wrote .*one.png \(10 curves per panel, 10 runs, 1x1 panels\)" "$python" scripts/plot.py \
  "$scratch/odd_plot/one.png" "$odd" --y op_norm --title "$odd_title"
expect_ok "wrote .*panels.png \(2 curves per panel, 10 runs, 2x3 panels\)" "$python" scripts/plot.py \
  "$scratch/odd_plot/panels.png" "$odd" --y rel_error,op_norm --group solver,step_size --panel solver \
  --title "$odd_title"

# The scripts end with the fedbench that started them. alive PID: running (not a zombie).
alive() {
  local state
  state=$(awk '/^State:/ {print $2}' "/proc/$1/status" 2>/dev/null) && [ -n "$state" ] && [ "$state" != Z ]
}
gone_within() {  # gone_within SECONDS PID...: every PID ends within SECONDS
  local deadline=$((SECONDS + $1)) p
  shift
  for p in "$@"; do
    while alive "$p"; do
      [ $SECONDS -ge $deadline ] && return 1
      sleep 0.05
    done
  done
}
wait_for() {  # wait_for SECONDS COMMAND...: until COMMAND succeeds
  local deadline=$((SECONDS + $1))
  shift
  until "$@"; do
    [ $SECONDS -ge $deadline ] && return 1
    sleep 0.02
  done
}
no_temporaries() {  # no_temporaries DIR: no temporary file of publish (.NAME.XXXXXXXX.EXT) left
  [ -z "$(find "$1" -maxdepth 1 \( -name '.index.html.*' -o -name '.*.png' \))" ]
}
# fedbench report killed (SIGKILL) while report.py draws the page: report.py ends at once and
# writes nothing (else it would go on and write index.html seconds later). fedbench's own
# screened copies stay in the directory: nothing in fedbench runs after SIGKILL.
checks=$((checks + 1))
killed=$scratch/killed
FEDBENCH_PYTHON="$python" "$fedbench" report "$results" --all -o "$killed" >/dev/null 2>"$scratch/killed.err" &
parent=$!
child=
find_child() {  # fedbench forks from its main thread
  local p
  for p in $(cat "/proc/$parent/task/$parent/children" 2>/dev/null); do
    grep -qa report.py "/proc/$p/cmdline" 2>/dev/null && child=$p && return 0
  done
  return 1
}
# h5py is loaded just after the script noted its parent: kill from then on.
loaded_h5py() { grep -q h5py "/proc/$child/maps" 2>/dev/null; }
if ! wait_for 20 find_child || ! wait_for 20 loaded_h5py; then
  echo "FAIL: fedbench report started no report.py"; failures=$((failures + 1))
else
  kill -9 "$parent"
  wait "$parent" 2>/dev/null
  if ! gone_within 5 "$child" || [ -e "$killed/index.html" ] || ! no_temporaries "$killed"; then
    echo "FAIL: report.py outlived the fedbench report that started it (killed with SIGKILL)"
    ls -A "$killed" | sed 's/^/  | /'; sed 's/^/  | /' "$scratch/killed.err"
    failures=$((failures + 1))
  fi
  kill -9 "$child" 2>/dev/null
fi

# Started by another process, asked with FEDBENCH_EXIT_WITH_PARENT=1: killing that parent ends
# report.py while it waits for `fedbench select` (here a stand-in that sleeps), and the
# stand-in with it. Without the variable, a script started by hand outlives its parent (a shell
# that ends), and SIGTERM ends it cleanly (the stand-in killed, nothing written).
slow=$scratch/slow-fedbench
printf '#!/bin/sh\necho $$ >"%s"\nexec sleep 60\n' "$scratch/slow.pid" >"$slow"
chmod +x "$slow"
for mode in 1 unset; do
  checks=$((checks + 1))
  rm -f "$scratch/slow.pid" "$scratch/script.pid"
  out_dir=$scratch/parent_$mode
  mkdir -p "$out_dir"
  setting=()
  [ $mode = 1 ] && setting=(FEDBENCH_EXIT_WITH_PARENT=1)
  env -u FEDBENCH_EXIT_WITH_PARENT "${setting[@]}" bash -c '"$@" & echo $! >"'"$scratch/script.pid"'"; wait' \
    parent "$python" scripts/report.py "$results" --all -o "$out_dir" --fedbench "$slow" 2>"$scratch/parent.err" &
  parent=$!
  fail=
  if ! wait_for 20 test -s "$scratch/slow.pid"; then
    fail="report.py did not reach fedbench select"
  else
    script_pid=$(cat "$scratch/script.pid") slow_pid=$(cat "$scratch/slow.pid")
    kill -9 "$parent"
    wait "$parent" 2>/dev/null
    if [ $mode = 1 ]; then
      gone_within 5 "$script_pid" "$slow_pid" || fail="report.py or its child outlived its parent"
    else
      sleep 1
      if ! alive "$script_pid"; then fail="report.py started by hand ended with its parent"
      else
        kill -TERM "$script_pid"
        gone_within 5 "$script_pid" "$slow_pid" || fail="SIGTERM did not end report.py and its child"
      fi
    fi
    kill -9 "$script_pid" "$slow_pid" 2>/dev/null
  fi
  if [ -z "$fail" ] && { [ -e "$out_dir/index.html" ] || ! no_temporaries "$out_dir"; }; then
    fail="files left: $(ls -A "$out_dir")"
  fi
  if [ -n "$fail" ]; then
    echo "FAIL: FEDBENCH_EXIT_WITH_PARENT=$mode: $fail"; sed 's/^/  | /' "$scratch/parent.err"
    failures=$((failures + 1))
  fi
done

# Rendered in a real browser (tests/cli/report_browser.py): the page loads without a script
# error, every figure has its four charts with every curve, the embedded medians and bands are
# those of the run files, and the screenshot shows each curve's colour where its data puts it.
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
  echo "SKIPPED: browser rendering: chromium is not installed (scripts/install-deps.sh installs it)"
else
  browse() {  # browse PAGE ARGS...: headless Chromium at 1280x4000 CSS pixels, console to stderr
    local page=$1
    shift
    timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
      --disable-background-networking --disable-component-update --disable-sync --hide-scrollbars \
      --force-device-scale-factor=1 --enable-logging=stderr --v=0 \
      --user-data-dir="$(mktemp -d "$scratch/chromium.XXXXXX")" --window-size=1280,4000 "$@" \
      "file://$(realpath "$page")"
  }
  browse "$out/index.html" --dump-dom >"$out/dom.html" 2>"$out/console.txt"
  browse "$out/index.html" --screenshot="$(realpath -m "$out/shot.png")" >/dev/null 2>>"$out/console.txt"
  checks=$((checks + 1))
  if ! "$python" tests/cli/report_browser.py "$out/index.html" "$out/dom.html" "$out/shot.png" \
       "$out/console.txt" "$results/runs"; then
    echo "FAIL: the page in a browser ($out/shot.png)"; failures=$((failures + 1))
  fi
fi
finish
