#!/usr/bin/env bash
# One paper experiment's quick variant (runs and claims, no figure), as a ctest entry:
#   quick_experiment.sh FEDBENCH NAME OUTPUT_DIR claims|mechanics
# claims: every quick claim must pass (exit 0). mechanics: the experiment must run end to end
# and evaluate every claim (exit 0, or 1 when a claim fails: its verdict belongs to the full
# budget); bad input or a crash (exit 2 or more) fails.
set -u
fedbench=$1 name=$2 out=$3 check=$4
"$fedbench" reproduce "$name" --quick -q --no-figure -o "$out"
rc=$?
if [ "$check" = claims ]; then exit "$rc"; fi
if [ "$rc" -le 1 ] && [ -s "$out/claims.txt" ]; then exit 0; fi
echo "experiment $name did not run end to end (exit $rc)"
exit 1
