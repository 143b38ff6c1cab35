#!/usr/bin/env bash
# The generated catalogs under docs/catalog are what the registries and experiment files say
# today: regenerated into scratch and compared; a stale one fails with the command that fixes it.
source "$(dirname "$0")/lib.bash"
bash scripts/catalogs.sh "$fedbench" "$scratch/catalog"
for f in solvers.md problems.md experiments.md; do
  checks=$((checks + 1))
  if ! diff -u "docs/catalog/$f" "$scratch/catalog/$f" >"$scratch/$f.diff"; then
    echo "FAIL: docs/catalog/$f is stale; run make catalogs"; head -n 20 "$scratch/$f.diff"
    failures=$((failures + 1))
  fi
done
finish
