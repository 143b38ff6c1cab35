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
   || ! grep -q "FAIL ${victim%.h5} .*column rel_error differs at round 15" <<<"$out"; then
  echo "FAIL: a perturbed reference was not caught (exit $rc)"; echo "$out" | tail -n 3
  failures=$((failures + 1))
fi
expect_ok "^20 passed, 0 failed" "$fedbench" check $smoke --reference "$scratch/ref" -q \
  --tolerance rel_error=0.01
expect_fail 2 "fedbench: tolerance 'rel_error' is not of the form METRIC=BAND (BAND >= 0, in decades; METRIC may be *), e.g. rel_error=0.1" \
  "$fedbench" check $smoke --reference "$scratch/ref" --tolerance rel_error
expect_fail 2 "fedbench: reference directory $scratch/none does not exist; create it with --update" \
  "$fedbench" check $smoke --reference "$scratch/none"

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
