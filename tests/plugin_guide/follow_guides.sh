#!/usr/bin/env bash
# docs/adding-a-solver.md and docs/adding-a-problem.md followed literally: in a copy of the
# tracked tree, guide_gda.cpp goes to lib/solvers/minimax/ and guide_scalar_game.cpp to
# problems/minimax/ (one file each, nothing else edited), the copy is built, and then
#   - both are in the registry, with the constants the solver's preset reads observed;
#   - the solver reaches the problem's closed-form saddle point (rel_error < 1e-20);
#   - the solver equals the registered `gda` with dual step = step, bit for bit (its iterates);
#   - the unit tests that loop over the registry pass with both in it;
#   - the catalogs are stale until `make catalogs` (scripts/catalogs.sh), then fresh;
#   - an edit of the solver file, rebuilt, makes its stored runs stale and no others.
# Objects compile through ccache when it is there: only the two new files miss the cache of a
# build of the same tree. Usage: follow_guides.sh SCRATCH [PYTHON]
source "$(dirname "$0")/../cli/lib.bash" unused "$1" "${2:-/usr/bin/python3}"
src=$(cd "$(dirname "$0")/../.." && pwd)
tree=$scratch/tree
copy_tree "$src" "$tree"
cp "$src/tests/plugin_guide/guide_gda.cpp" "$tree/lib/solvers/minimax/guide_gda.cpp"
cp "$src/tests/plugin_guide/guide_scalar_game.cpp" "$tree/problems/minimax/guide_scalar_game.cpp"

launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR=$tree CCACHE_NOHASHDIR=1
fi
cmake -S "$tree" -B "$tree/build" -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >"$scratch/cmake.log" 2>&1 ||
  { tail -n 20 "$scratch/cmake.log"; exit 1; }
cmake --build "$tree/build" -j "$(nproc)" --target fedbench fedbench_tests >"$scratch/build.log" 2>&1 ||
  { grep -E -A5 'error|Error' "$scratch/build.log" | head -n 40; exit 1; }
fb=$tree/build/bin/fedbench

expect_ok '^ *guide-gda ' "$fb" list solvers
expect_ok '^ *guide-scalar-game ' "$fb" list problems
expect_ok 'cocoercivity' "$fb" describe guide-gda
expect_ok 'cocoercivity +2 ' "$fb" describe guide-scalar-game -p mu=1

# Theory step 1/(2 ell) contracts: the closed-form saddle point, to rounding.
"$fb" run --problem guide-scalar-game --solver guide-gda --rounds 600 --eval-every 600 -q -o "$scratch/run.csv"
checks=$((checks + 1))
if ! "$python" - "$scratch/run.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
last = rows[-1]
assert last["status"] == "ok" and int(last["round"]) == 600, last
assert float(rows[0]["rel_error"]) == 1.0 and float(last["rel_error"]) < 1e-20, last["rel_error"]
PY
then echo "FAIL: guide-gda does not reach the saddle point of guide-scalar-game"; failures=$((failures + 1)); fi

# The reduction stated in guide_gda.cpp: gda with its dual step equal to the primal one.
for solver in guide-gda gda; do
  extra=()
  [ "$solver" = gda ] && extra=(-s dual_step_size=0.1)
  "$fb" run --problem guide-scalar-game -p clients=5 -p mu=0.5 --solver "$solver" -s step_size=0.1 "${extra[@]}" \
    --rounds 50 -q --trace-iterates "$scratch/$solver.trace"
done
checks=$((checks + 1))
cmp -s "$scratch/guide-gda.trace" "$scratch/gda.trace" ||
  { echo "FAIL: guide-gda and gda (dual step = step) differ"; failures=$((failures + 1)); }

# A rebuilt solver file makes its stored runs stale, and only its runs (build-time fingerprints).
cat >"$scratch/suite.yaml" <<YAML
name: guide
seeds: [1, 2]
rounds: 20
problems:
  - name: guide-scalar-game
solvers:
  - name: guide-gda
  - name: gda
YAML
"$fb" run "$scratch/suite.yaml" --results "$scratch/results" -q
echo "// an edit after the runs" >>"$tree/lib/solvers/minimax/guide_gda.cpp"
cmake --build "$tree/build" -j "$(nproc)" --target fedbench >>"$scratch/build.log" 2>&1
expect_ok "^stale \\(2\\): code: solver guide-gda changed \\(lib/solvers/minimax/guide_gda.cpp\\)$" \
  "$fb" plan "$scratch/suite.yaml" --results "$scratch/results"
expect_ok "runs valid: 2 done, 0 partial, 0 new, 2 stale" "$fb" plan "$scratch/suite.yaml" --results "$scratch/results"

# The unit tests, several of which loop over the registries, now with the two new entries.
checks=$((checks + 1))
(cd "$tree" && build/bin/fedbench_tests --minimal >"$scratch/unit.log" 2>&1) ||
  { echo "FAIL: unit tests with the new entries"; grep -E -B2 -A8 'ERROR|FAILED' "$scratch/unit.log" | head -n 60;
    failures=$((failures + 1)); }

# The catalogs follow the registry: stale now, fresh after the documented command.
checks=$((checks + 1))
bash "$tree/tests/cli/catalogs.sh" "$fb" "$scratch/catalogs-before" "$python" >/dev/null 2>&1 &&
  { echo "FAIL: the catalogs did not notice the new solver and problem"; failures=$((failures + 1)); }
(cd "$tree" && bash scripts/catalogs.sh "$fb" docs/catalog >/dev/null)
expect_ok 'guide-gda' grep -h guide docs/catalog/solvers.md "$tree/docs/catalog/solvers.md"
expect_ok 'guide-scalar-game' cat "$tree/docs/catalog/problems.md"
checks=$((checks + 1))
(cd "$tree" && bash tests/cli/catalogs.sh "$fb" "$scratch/catalogs-after" "$python" >"$scratch/catalogs.log" 2>&1) ||
  { echo "FAIL: catalogs stale after scripts/catalogs.sh"; cat "$scratch/catalogs.log"; failures=$((failures + 1)); }
finish
