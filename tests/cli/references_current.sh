#!/usr/bin/env bash
# The shipped smoke references are current for this code and were written by a committed build:
# a fresh clone's `fedbench check smoke` prints no note. After a change to a solver, a problem or
# the numerics, rewrite them from a clean tree (the curves themselves must still pass first):
#   fedbench check smoke --reference results/reference/smoke --update
# Like cli.catalogs it fails on any change of a solver's source, so scripts/mutants.py leaves it out.
source "$(dirname "$0")/lib.bash"
checks=$((checks + 1))
out=$("$fedbench" check smoke --reference results/reference/smoke -q) || { echo "FAIL: $out"; failures=$((failures + 1)); }
notes=$(grep '^note' <<<"$out" || true)
dirty=$("$python" -c '
import glob, h5py
print(" ".join(p for p in sorted(glob.glob("results/reference/smoke/runs/*.h5"))
               if str(h5py.File(p).attrs["git_commit"]).endswith("-dirty")))')
if [ -n "$notes" ] || [ -n "$dirty" ]; then
  echo "FAIL: the smoke references are not current or were written by a dirty tree: $notes $dirty"
  failures=$((failures + 1))
fi
finish
