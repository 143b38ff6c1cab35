#!/usr/bin/env bash
# The generated catalogs under docs/catalog, the README's verdict table and docs/results.md's
# table of measured numbers are what the
# registries, experiment files and recorded verdict files (results/verdicts) say today:
# regenerated into scratch and compared; a stale one fails with the command that fixes it.
source "$(dirname "$0")/lib.bash"
bash scripts/catalogs.sh "$fedbench" "$scratch/catalog" "$scratch/README.md" "$scratch/results.md"
for f in solvers.md problems.md experiments.md verdicts.md; do
  checks=$((checks + 1))
  if ! diff -u "docs/catalog/$f" "$scratch/catalog/$f" >"$scratch/$f.diff"; then
    echo "FAIL: docs/catalog/$f is stale; run make catalogs"; head -n 20 "$scratch/$f.diff"
    failures=$((failures + 1))
  fi
done
checks=$((checks + 1))
if ! diff -u README.md "$scratch/README.md" >"$scratch/README.diff"; then
  echo "FAIL: README.md's verdict table disagrees with results/verdicts; run make catalogs"
  head -n 20 "$scratch/README.diff"; failures=$((failures + 1))
fi
checks=$((checks + 1))
if ! diff -u docs/results.md "$scratch/results.md" >"$scratch/results.diff"; then
  echo "FAIL: docs/results.md's table of measured numbers disagrees with results/verdicts; run make catalogs"
  head -n 20 "$scratch/results.diff"; failures=$((failures + 1))
fi
# The table is there at all: the markers and one row per experiment that is not out of scope.
checks=$((checks + 1))
rows=$(sed -n '/^<!-- verdicts-summary -->$/,/^<!-- \/verdicts-summary -->$/p' README.md | grep -c '^| [a-z]*[0-9][0-9]* | ')
experiments=$("$fedbench" reproduce --list | grep -c '^  claims: ')
if [ "$rows" != "$experiments" ]; then
  echo "FAIL: README.md's verdict table has $rows rows for $experiments experiments"; failures=$((failures + 1))
fi
finish
