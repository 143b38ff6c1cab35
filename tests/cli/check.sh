#!/usr/bin/env bash
# CI regression of convergence curves: the stored smoke references pass; a perturbed
# reference fails with the column and round named; a tolerance band in log space accepts a
# small perturbation that the exact comparison rejects.
source "$(dirname "$0")/lib.bash"
smoke=results/suites/smoke.yaml

expect_ok "^20 passed, 0 failed" "$fedbench" check $smoke --reference results/reference/smoke -q

cp -r results/reference/smoke "$scratch/ref"
# the first run that finished (a diverged run's rel_error may be Inf, which a factor keeps)
victim=$("$python" - "$scratch/ref/runs" <<'PY'
import sys, os, h5py
for name in sorted(os.listdir(sys.argv[1])):
    with h5py.File(os.path.join(sys.argv[1], name), "r") as f:
        if f.attrs["status"] in (b"ok", "ok"):
            print(name)
            break
PY
)
"$python" - "$scratch/ref/runs/$victim" <<'PY'
import sys, h5py
with h5py.File(sys.argv[1], "r+") as f:
    f["trajectory/rel_error"][3] *= 1.01
PY
checks=$((checks + 1))
out=$("$fedbench" check $smoke --reference "$scratch/ref" -q) && rc=0 || rc=$?
if [ "$rc" != 1 ] || ! grep -q "^19 passed, 1 failed" <<<"$out" \
   || ! grep -q "FAIL ${victim%.h5} .*: rel_error differs first at round 15 .*; largest difference .* at round 15: .* (exact); final " <<<"$out"; then
  echo "FAIL: a perturbed reference was not caught (exit $rc)"; echo "$out" | tail -n 3
  failures=$((failures + 1))
fi
expect_ok "^20 passed, 0 failed" "$fedbench" check $smoke --reference "$scratch/ref" -q \
  --tolerance rel_error=0.01

# What a failing curve prints (largest deviation, its round, the band) and --json, against
# Python reading the fresh and the reference file: rel_error off at two rows, one reference
# removed (a run with no reference) and one planted under an id the suite lacks.
cp -r results/reference/smoke "$scratch/ref2"
removed=$(cd "$scratch/ref2/runs" && ls | grep -v "^$victim$" | head -n 1)
rm "$scratch/ref2/runs/$removed"
cp "$scratch/ref2/runs/$victim" "$scratch/ref2/runs/0000000000000000.h5"
"$python" - "$scratch/ref2/runs/$victim" <<'PY'
import sys, h5py
with h5py.File(sys.argv[1], "r+") as f:
    f["trajectory/rel_error"][3] *= 1.003
    f["trajectory/rel_error"][7] *= 1.08
PY
for band in exact 0.01; do
  tolerance=()
  [ $band != exact ] && tolerance=(--tolerance "rel_error=$band")
  "$fedbench" check $smoke --reference "$scratch/ref2" -q --results "$scratch/fresh-$band" \
    "${tolerance[@]}" --junit "$scratch/check-$band.xml" >"$scratch/check-$band.txt" && rc=0 || rc=$?
  "$fedbench" check $smoke --reference "$scratch/ref2" -q --results "$scratch/fresh-$band" \
    "${tolerance[@]}" --json >"$scratch/check-$band.json" && rc_json=0 || rc_json=$?
  checks=$((checks + 1))
  if [ "$rc" != 1 ] || [ "$rc_json" != 1 ] || ! "$python" - "$band" "$scratch/fresh-$band/runs/$victim" \
       "$scratch/ref2/runs/$victim" "$scratch/check-$band.txt" "$scratch/check-$band.json" \
       "${victim%.h5}" "${removed%.h5}" "$scratch/ref2" "$scratch/check-$band.xml" <<'PY'
import json, math, re, sys, h5py, numpy as np
import xml.etree.ElementTree as ET
band, fresh_file, ref_file, text_file, json_file, victim, removed, ref_dir, junit_file = sys.argv[1:]
with h5py.File(fresh_file) as f, h5py.File(ref_file) as r:
    a, b = f["trajectory/rel_error"][()], r["trajectory/rel_error"][()]
    rounds = f["trajectory/round"][()]
    columns = [c for c in f["trajectory"] if c not in ("wall_time", "eval_time")]
if band == "exact":
    k = int(np.argmax(np.abs(a - b)))
    low = high = b[k]
    outside = a != b
else:
    k = int(np.argmax(np.abs(np.log10(a / b))))
    low, high = b[k] * 10 ** -float(band), b[k] * 10 ** float(band)
    outside = np.abs(np.log10(a / b)) > float(band)
first = int(np.argmax(outside))
assert outside.any() and 0 < outside.sum() <= 2, outside
close = lambda x, y: math.isclose(float(x), float(y), rel_tol=1e-12)
near = lambda x, y: math.isclose(float(x), float(y), rel_tol=1e-5)  # 6 significant digits
text = open(text_file).read()
if band == "exact":
    m = re.search(rf"^FAIL {victim} \([^)]*\): rel_error differs first at round (\S+) \((\S+), reference (\S+); (\d+) rows? differ\); "
                  rf"largest difference (\S+) \(relative (\S+)\) at round (\S+): (\S+), reference (\S+) \(exact\); "
                  rf"final (\S+), reference (\S+)$", text, re.M)
    assert m, text
    assert close(m[1], rounds[first]) and close(m[2], a[first]) and close(m[3], b[first]) and int(m[4]) == outside.sum(), m.groups()
    assert near(m[5], abs(a[k] - b[k])) and near(m[6], abs(a[k] - b[k]) / abs(b[k])), m.groups()
    assert close(m[7], rounds[k]) and close(m[8], a[k]) and close(m[9], b[k]), m.groups()
    assert close(m[10], a[-1]) and close(m[11], b[-1]), m.groups()
else:
    m = re.search(rf"^FAIL {victim} \([^)]*\): rel_error leaves its band first at round (\S+) \((\S+), reference (\S+); (\d+) rows? outside\); "
                  rf"worst at round (\S+): (\S+), reference (\S+), (\S+) decades apart, (\S+) times the band of (\S+) decades "
                  rf"\(band \[(\S+), (\S+)\]\); final (\S+), reference (\S+)$", text, re.M)
    assert m, text
    decades = abs(math.log10(a[k] / b[k]))
    assert close(m[1], rounds[first]) and near(m[2], a[first]) and near(m[3], b[first]) and int(m[4]) == outside.sum(), m.groups()
    assert close(m[5], rounds[k]) and near(m[6], a[k]) and near(m[7], b[k]), m.groups()
    assert near(m[8], decades) and near(m[9], decades / float(band)) and close(m[10], band), m.groups()
    assert near(m[11], low) and near(m[12], high) and near(m[13], a[-1]) and near(m[14], b[-1]), m.groups()
assert re.search(rf"^FAIL {removed} \(.*\): no reference in {re.escape(ref_dir)}; create it with --update$", text, re.M), text
assert re.search(r"^note: 1 reference has no run in the suite .*: 0000000000000000.h5; --update --prune deletes them$", text, re.M), text
assert text.endswith("18 passed, 2 failed\n"), text[-200:]
j = json.load(open(json_file))
assert (j["passed"], j["failed"]) == (18, 2), (j["passed"], j["failed"])
assert j["runs_without_reference"] == [removed], j["runs_without_reference"]
assert j["references_without_run"] == ["0000000000000000.h5"], j["references_without_run"]
runs = {r["id"]: r for r in j["runs"]}
assert len(runs) == 20 and runs[removed]["verdict"] == "fail" and runs[removed]["curves"] == []
for rid, run in runs.items():
    if rid != removed:
        assert sorted(c["metric"] for c in run["curves"]) == sorted(columns), (rid, run["curves"])
        assert run["verdict"] == ("fail" if rid == victim else "pass"), rid
curve = next(c for c in runs[victim]["curves"] if c["metric"] == "rel_error")
assert curve["verdict"] == "fail" and close(curve["round"], rounds[k]), curve
assert close(curve["deviation"], abs(a[k] - b[k])) and close(curve["decades"], abs(math.log10(a[k] / b[k])))
assert close(curve["band"]["low"], low) and close(curve["band"]["high"], high), curve
assert curve["band"]["decades"] == (None if band == "exact" else float(band)), curve
assert close(curve["first_round"], rounds[first]) and close(curve["first_fresh"], a[first]), curve
assert close(curve["first_reference"], b[first]) and curve["rows_outside"] == outside.sum(), curve
assert close(curve["final_fresh"], a[-1]) and close(curve["final_reference"], b[-1]), curve
assert (curve["band_multiple"] is None) if band == "exact" else close(curve["band_multiple"], curve["decades"] / float(band)), curve
others = [c for c in runs[victim]["curves"] if c["metric"] != "rel_error"]
assert all(c["verdict"] == "pass" and c["deviation"] == 0 and c["first_round"] is None for c in others), others
# JUnit XML: one test case per run, the victim's and the removed reference's runs failed.
suites = ET.parse(junit_file).getroot()
assert suites.tag == "testsuites" and suites.get("tests") == "20" and suites.get("failures") == "2", suites.attrib
suite = suites.find("testsuite")
assert suite.get("name") == "smoke" and len(suite.findall("testcase")) == 20, suite.attrib
failed = {c.get("name").split()[0]: c.find("failure") for c in suite.findall("testcase") if c.find("failure") is not None}
assert sorted(failed) == sorted([victim, removed]), failed
assert failed[victim].get("message").startswith("rel_error "), failed[victim].attrib
assert failed[victim].text.split("\n")[1] == m[0].split(": ", 1)[1], (failed[victim].text, m[0])
assert failed[removed].get("message").startswith("no reference in "), failed[removed].attrib
notes = suite.find("system-out").text
assert "references with no run: 0000000000000000.h5" in notes, notes
PY
  then
    echo "FAIL: check's report of a deviating curve ($band)"; cat "$scratch/check-$band.txt"
    failures=$((failures + 1))
  fi
done
expect_fail 2 "fedbench: tolerance 'rel_error' is not of the form METRIC=BAND (BAND >= 0, in decades; METRIC may be *), e.g. rel_error=0.1" \
  "$fedbench" check $smoke --reference "$scratch/ref" --tolerance rel_error
expect_fail 2 "fedbench: reference directory $scratch/none does not exist; create it with --update" \
  "$fedbench" check $smoke --reference "$scratch/none"
expect_fail 2 "fedbench: --json reports a comparison; drop it with --update" \
  "$fedbench" check $smoke --reference "$scratch/ref" --update --json
expect_fail 2 "fedbench: --junit $scratch/no/dir/j.xml: directory $scratch/no/dir does not exist; create it or name another file" \
  "$fedbench" check $smoke --reference "$scratch/ref" --junit "$scratch/no/dir/j.xml"

# --update leaves files the suite never wrote alone unless told to delete them.
cp -r results/reference/smoke "$scratch/ref-update"
cp "$scratch/ref-update/runs/$victim" "$scratch/ref-update/runs/0000000000000000.h5"
expect_fail 2 "fedbench: $scratch/ref-update holds 1 run file that $smoke does not have (e.g. 0000000000000000.h5); add --prune to delete them, or update another directory" \
  "$fedbench" check $smoke --reference "$scratch/ref-update" --update -q
checks=$((checks + 1))
if [ ! -f "$scratch/ref-update/runs/0000000000000000.h5" ]; then
  echo "FAIL: a refused --update deleted a file"; failures=$((failures + 1))
fi
expect_ok "^updated 20 references" "$fedbench" check $smoke --reference "$scratch/ref-update" --update --prune -q
checks=$((checks + 1))
if [ -f "$scratch/ref-update/runs/0000000000000000.h5" ]; then
  echo "FAIL: --prune kept a foreign reference"; failures=$((failures + 1))
fi

# A reference written by a build of another instruction set is refused, not compared.
cp -r results/reference/smoke "$scratch/ref-isa"
"$python" - "$scratch/ref-isa/runs/$victim" <<'PY'
import sys, h5py
with h5py.File(sys.argv[1], "r+") as f:
    f.attrs["env_isa"] = "x86-64-v3"
PY
expect_fail 2 "fedbench: reference $scratch/ref-isa/runs/$victim was written by a x86-64-v3 build and this fedbench is a portable build; results compare bit for bit only within one instruction set: build with -DFEDBENCH_ISA=x86-64-v3 or write references for this build with --update" \
  "$fedbench" check $smoke --reference "$scratch/ref-isa" -q
# Interrupted in the middle of the suite (SIGINT, SIGTERM): the scratch results under $TMPDIR
# are removed, the check dies by the signal (exit status 130, 143) and the references are left
# as they were. Job control on: a background job of a script otherwise ignores SIGINT (and a
# signal ignored at start stays ignored).
long=$(dirname "$0")/suites/long.yaml
host=$(uname -n)
cp -r results/reference/smoke "$scratch/ref-signal"
reference_sums() { (cd "$scratch/ref-signal" && find . -type f -print0 | sort -z | xargs -0 sha256sum); }
sums_before=$(reference_sums)
# start_check TMP: a check of $long in the background ($pid) with its scratch directory in TMP,
# returned once it has written a run there ($running: that directory, empty if never seen)
start_check() {
  mkdir -p "$1"
  TMPDIR=$1 "$fedbench" check "$long" --reference "$scratch/ref-signal" --jobs 1 -q \
    >"$1.out" 2>"$1.err" &
  pid=$!
  running=
  for _ in $(seq 1 1000); do
    running=$(ls -d "$1/fedbench-check-$host-$pid-"?????? 2>/dev/null)
    [ -n "$running" ] && ls "$running"/runs/*.h5 >/dev/null 2>&1 && break
    sleep 0.01
  done
}
set -m
for sig in INT:130 TERM:143; do
  name=${sig%:*} want=${sig#*:}
  start_check "$scratch/tmp-$name"
  sleep 0.3
  kill -"$name" $pid
  wait $pid 2>/dev/null && rc=0 || rc=$?
  checks=$((checks + 1))
  if [ -z "$running" ] || [ "$rc" != "$want" ] || [ -n "$(ls -A "$scratch/tmp-$name")" ] ||
     ! grep -qx "fedbench: interrupted (SIG$name); removed $running" "$scratch/tmp-$name.err"; then
    echo "FAIL: check interrupted by SIG$name: exit $rc (want $want), scratch ${running:-never seen}, left in \$TMPDIR:"
    ls -A "$scratch/tmp-$name"; cat "$scratch/tmp-$name.err"; failures=$((failures + 1))
  fi
done
# SIGKILL leaves the directory; the next check removes it (its process is gone) but not one
# of a live process or of another host, and removes its own when it fails.
start_check "$scratch/tmp-KILL"
kill -KILL $pid
wait $pid 2>/dev/null
set +m
checks=$((checks + 1))
if [ -z "$running" ] || [ ! -d "$running" ]; then
  echo "FAIL: no scratch directory of the killed check (${running:-never seen})"; failures=$((failures + 1))
fi
mkdir "$scratch/tmp-KILL/fedbench-check-$host-$$-abcdef" "$scratch/tmp-KILL/fedbench-check-elsewhere-1-abcdef"
expect_fail 2 "fedbench: reference directory $scratch/none does not exist; create it with --update" \
  env TMPDIR="$scratch/tmp-KILL" "$fedbench" check $smoke --reference "$scratch/none"
checks=$((checks + 1))
left=$(ls -A "$scratch/tmp-KILL" | sort | tr '\n' ' ')
if [ "$left" != "$(printf '%s\n' "fedbench-check-$host-$$-abcdef" fedbench-check-elsewhere-1-abcdef | sort | tr '\n' ' ')" ]; then
  echo "FAIL: scratch directories left after the next check: $left"; failures=$((failures + 1))
fi
checks=$((checks + 1))
if [ "$(reference_sums)" != "$sums_before" ]; then
  echo "FAIL: an interrupted check changed its references"; failures=$((failures + 1))
fi
finish
