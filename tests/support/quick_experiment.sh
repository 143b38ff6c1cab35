#!/usr/bin/env bash
# One paper experiment's quick variant (runs and claims, no figure), as a ctest entry:
#   quick_experiment.sh FEDBENCH NAME OUTPUT_DIR
# The experiment must run end to end and evaluate every claim at the quick budget: exit 0, or
# 1 when the quick runs contradict a claim (a verdict of the quick budget only, never a test
# failure); one line per claim of the file, each saying it is a quick verdict, none without
# runs. Bad input or a crash (exit 2 or more) fails.
set -u
fedbench=$1 name=$2 out=$3
"$fedbench" reproduce "$name" --quick -q --no-figure -o "$out"
rc=$?
if [ "$rc" -gt 1 ] || [ ! -s "$out/claims.txt" ]; then
  echo "experiment $name did not run end to end (exit $rc)"
  exit 1
fi
claims=$("$fedbench" reproduce --list | awk -v n="$name" '$0 == n { f = 1 } f && /^  claims: / { sub(/^  claims: +/, ""); sub(/;.*/, ""); print; exit }')
lines=$(grep -c '^claim: ' "$out/claims.txt")
quick=$(grep -c '^claim: .*: \(holds\|contradicted\) at the quick budget (\|^claim: .*: not decided at the quick budget (' "$out/claims.txt")
if [ "$lines" != "$claims" ] || [ "$quick" != "$claims" ] || grep -q '(no runs of ' "$out/claims.txt"; then
  echo "experiment $name: $claims claims, $lines claim lines, $quick marked as quick verdicts"
  grep -n '(no runs of ' "$out/claims.txt" | head -n 3
  exit 1
fi
exit 0
