#!/usr/bin/env bash
# Machine-readable output: --json on show, plan, select, list, describe, reproduce --list, data
# list and data verify, and the JSON files of run -o and export, parse as JSON (Python's json
# module) and say what the tables and files say, also for names with a byte that is not UTF-8;
# `--solver`/`--problem` run or plan only part of a suite.
source "$(dirname "$0")/lib.bash"
smoke=results/suites/smoke.yaml

json_ok() {  # json_ok 'python expression on d' cmd...
  local expr=$1
  shift
  checks=$((checks + 1))
  local out
  if ! out=$("$@" 2>&1) || ! "$python" -c "import json,os,sys; d=json.loads(sys.stdin.read()); assert $expr, d" "$scratch/table.txt" <<<"$out"; then
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

# A file name with a Latin-1 byte (not UTF-8): still valid JSON, the byte as U+FFFD.
latin=$'caf\xe9'
cp "$scratch/r/runs/$run" "$scratch/$latin.h5"
json_ok 'd["id"] == "caf\ufffd" and d["summary"]["status"] == "ok"' "$fedbench" show "$scratch/$latin.h5" --json
json_ok 'd[0]["id"] == "caf\ufffd"' "$fedbench" export "$scratch/$latin.h5" --format json
"$fedbench" run --problem quadratic-game --solver gda --rounds 3 -q -o "$scratch/$latin.json" -o "$scratch/$latin.csv"
json_ok 'd["id"] == "caf\ufffd" and len(d["rows"]) == 4 and d["header"]["command_line"].endswith("caf\ufffd.csv")' \
  cat "$scratch/$latin.json"
mkdir -p "$scratch/$latin"
json_ok 'd["search_path"][0]["path"].endswith("caf\ufffd") and d["search_path"][0]["exists"] and d["search_path"][0]["origin"]' env FEDBENCH_DATA="$scratch/$latin" "$fedbench" data list --json

# list and describe: the entries of the catalogs, the rows of the parameter tables.
catalog_rows() { grep -c '^| `' "docs/catalog/$1.md"; }
json_ok "len(d) == $(catalog_rows solvers) and all(p['name'] and p['type'] for e in d for p in e['params'])" \
  "$fedbench" list solvers --json
json_ok "len(d) == $(catalog_rows problems) and {e['family'] for e in d} == {'minimax', 'bilevel'}" \
  "$fedbench" list problems --json
"$fedbench" describe proxskip-gda-fl >"$scratch/table.txt"
json_ok 'd["name"] == "proxskip-gda-fl" and d["constants_read"] and {p["name"] for p in d["params"]} == {l.split()[0] for l in open(sys.argv[1]).read().split("description\n")[1].splitlines() if l.startswith("  ") and not l.startswith("  theory")}' \
  "$fedbench" describe proxskip-gda-fl --json
"$fedbench" describe quadratic-game >"$scratch/table.txt"
json_ok 'd["constants"] and all(float(l.split()[1]) == c["value"] for c in d["constants"] for l in open(sys.argv[1]) if l.startswith("    ") and l.split()[:1] == [c["name"]])' \
  "$fedbench" describe quadratic-game --json
json_ok 'd["constants"] is None and "covtype" in d["constants_error"]' "$fedbench" describe auc -p dataset=covtype --json

# reproduce --list: one entry per experiment file.
json_ok 'sorted(e["name"] for e in d) == sorted(f[:-5] for f in os.listdir("results/experiments") if f.endswith(".yaml")) and all(e["valid"] for e in d)' \
  "$fedbench" reproduce --list --json

# data verify: each file of heart checked, as many as the table counts.
n=$("$fedbench" data verify heart | sed -n 's/^\([0-9]*\) files checked.*/\1/p')
json_ok "d['problems'] == 0 and d['checked'] == len(d['files']) == $n and all(f['ok'] and f['dataset'] == 'heart' for f in d['files'])" \
  "$fedbench" data verify heart --json
finish
