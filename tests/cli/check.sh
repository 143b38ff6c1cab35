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
finish
