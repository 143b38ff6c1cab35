#!/usr/bin/env bash
# scripts/report.py (and `fedbench report`, which runs it on screened copies) on a small grid
# with diverged runs, a failed run and an unreadable file: one self-contained HTML page whose embedded figures decode, rendered in headless Chromium
# and checked on the screenshot (the figures' coloured curves must be on the page).
source "$(dirname "$0")/lib.bash"
results=$scratch/results
out=$scratch/out

expect_ok "" "$fedbench" run tests/cli/suites/mixed_grid.yaml --results "$results" -q --jobs 2

# A run with status error: the CLI offers no reliable way to make a solver throw mid-run, so
# the test writes one from a finished run (status, message, rows cut short), as the engine
# stores a run that threw. An unreadable file must be skipped with a warning.
failed_src=$results/$(awk -F'\t' '$5 == "auc" && $7 == "local-sgda" {print $NF; exit}' \
  "$results/manifest.tsv")
cp "$failed_src" "$results/runs/00000000deadbeef.h5"
"$python" - "$results/runs/00000000deadbeef.h5" <<'PY'
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r+") as f:
    f.attrs.update({"status": "error", "stop_reason": "error", "seed": np.uint64(99),
                    "message": "injected by the test: the solver threw at round 6"})
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

# The page: one file, no script, nothing fetched, every figure a PNG data URI that decodes.
checks=$((checks + 1))
if ! "$python" - "$out/index.html" "$scratch/out_target/index.html" <<'PY'
import base64, io, re, sys
import matplotlib.image as mi
page = open(sys.argv[1], encoding="utf-8").read()
assert "<script" not in page.lower() and "http://" not in page and "https://" not in page
srcs = re.findall(r'<img src="([^"]*)"', page)
assert len(srcs) == 2, f"{len(srcs)} images, want one figure per problem configuration"
for src in srcs:
    assert src.startswith("data:image/png;base64,"), src[:40]
    img = mi.imread(io.BytesIO(base64.b64decode(src.split(",", 1)[1])), format="png")
    assert img.shape[0] > 400 and img.shape[1] > 800, img.shape
    rgb = img[..., :3]
    coloured = (rgb.max(axis=2) - rgb.min(axis=2)) > 0.25
    assert coloured.mean() > 0.005, f"figure has {coloured.mean():.4f} coloured pixels"
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

# Rendered in a real browser: the screenshot must show the figures' coloured curves. The same
# page with its images replaced by broken ones is the baseline (badges and links are coloured
# too), so the difference is what the figures drew.
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
  echo "SKIPPED: browser rendering: chromium is not installed (scripts/install-deps.sh installs it)"
else
  sed -E 's#src="data:image/png;base64,[^"]*"#src="data:image/png;base64,AAAA"#g' \
    "$out/index.html" >"$out/broken.html"
  shoot() {  # shoot PAGE PNG
    timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
      --disable-background-networking --disable-component-update --disable-sync --hide-scrollbars \
      --user-data-dir="$(mktemp -d "$scratch/chromium.XXXXXX")" --screenshot="$(realpath -m "$2")" \
      --window-size=1280,4000 "file://$(realpath "$1")" >/dev/null 2>&1
  }
  shoot "$out/index.html" "$out/shot.png"
  shoot "$out/broken.html" "$out/broken.png"
  checks=$((checks + 1))
  if ! "$python" - "$out/shot.png" "$out/broken.png" <<'PY'
import sys
import numpy as np
import matplotlib.image as mi

def coloured(path):
    rgb = mi.imread(path)[..., :3]
    hi, lo = rgb.max(axis=2), rgb.min(axis=2)
    mask = (hi - lo) > 0.25  # clearly coloured: curves, bands, markers (not text or grids)
    r, g, b = (rgb[..., k][mask] for k in range(3))
    span = (hi - lo)[mask]
    hue = np.where(hi[mask] == r, ((g - b) / span) % 6,
                   np.where(hi[mask] == g, (b - r) / span + 2, (r - g) / span + 4))
    hues = np.bincount((hue * 2).astype(int), minlength=12)  # 30-degree bins
    return rgb.shape, int(mask.sum()), int((hues > 200).sum())

shape, n, hues = coloured(sys.argv[1])
_, base, _ = coloured(sys.argv[2])
print(f"screenshot {shape}: {n} coloured pixels in {hues} hues; without figures {base}")
assert shape[0] >= 4000 and shape[1] >= 1200, shape
assert n - base > 10000, "the figures did not render"
assert hues >= 3, "fewer than three curve colours visible"
PY
  then echo "FAIL: the rendered page shows the figures ($out/shot.png)"; failures=$((failures + 1)); fi
fi
finish
