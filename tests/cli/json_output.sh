#!/usr/bin/env bash
# Machine-readable output: --json on show, plan, select and data list parses as JSON and says
# what the tables say; `--solver`/`--problem` run or plan only part of a suite.
source "$(dirname "$0")/lib.bash"
smoke=results/suites/smoke.yaml

json_ok() {  # json_ok 'python expression on d' cmd...
  local expr=$1
  shift
  checks=$((checks + 1))
  local out
  if ! out=$("$@" 2>&1) || ! "$python" -c "import json,sys; d=json.loads(sys.stdin.read()); assert $expr, d" <<<"$out"; then
    echo "FAIL: $* (json: $expr)"; sed 's/^/  | /' <<<"$out" | head -n 8; failures=$((failures + 1))
  fi
}

json_ok 'len(d["runs"]) == 20 and all(r["state"] == "new" for r in d["runs"])' \
  "$fedbench" plan $smoke --results "$scratch/r" --json
json_ok '{r["solver"] for r in d["runs"]} == {"gda"} and len(d["runs"]) == 2' \
  "$fedbench" plan $smoke --results "$scratch/r" --solver gda --json
json_ok '{r["solver"] for r in d["runs"]} == {"gda", "local-eg"}' \
  "$fedbench" plan $smoke --results "$scratch/r" --solver gda --solver local-eg --json
expect_fail 2 "fedbench: $smoke has no solver 'gdaa'; it has: proxskip-gda-fl, proxskip-sgda-fl, proxskip-l-svrgda-fl, local-sgda, local-eg, fedgda-gt, gda (did you mean 'gda'?)" \
  "$fedbench" plan $smoke --solver gdaa

"$fedbench" run $smoke --results "$scratch/r" --solver fedgda-gt -q
json_ok 'sum(r["state"] == "done" for r in d["runs"]) == 2' "$fedbench" plan $smoke --results "$scratch/r" --json
run=$(ls "$scratch/r/runs" | head -n 1)
json_ok 'd["summary"]["status"] == "ok" and len(d["rows"]) == 13 and d["header"]["metrics"]["rel_error"]["direction"] == "min" and len(d["summary"]["final"]["x"]) == 3' \
  "$fedbench" show "$scratch/r/runs/$run" --json
json_ok 'd["direction"] == "min" and d["winners"][0]["solver"] == "fedgda-gt" and len(d["winners"][0]["seeds"]) == 2' \
  "$fedbench" select "$scratch/r" --at rounds=60 --json -o "$scratch/w.yaml"
json_ok 'any(x["name"] == "a9a" for x in d["datasets"]) and all("present" in f for x in d["datasets"] for f in x["files"])' \
  "$fedbench" data list --json
json_ok 'len(d) == 2 and all(len(r["rows"]) == 13 for r in d)' "$fedbench" export "$scratch/r" --format json
finish
