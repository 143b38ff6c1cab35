#!/usr/bin/env bash
# Views scoped to what was asked: after a suite is edited and rerun into the same directory,
# select, export and report use exactly its current runs (the older configuration's files are left out
# and counted, --all includes them, prune deletes them); two suites sharing a directory are
# both in view; a run of some entries only (--solver) changes nothing; select says when it
# replaces a winners file.
source "$(dirname "$0")/lib.bash"
results=$scratch/results
write_suite() {  # write_suite FILE DIM
  cat >"$1" <<YAML
name: scoped
seeds: [1, 2]
rounds: 10
problems:
  - name: quadratic-game
    params: {clients: 3, samples: 4, dim: $2}
solvers:
  - name: gda
    params: {step_size: 0.1}
  - name: local-sgda
    params: {step_size: 0.05}
YAML
}
ids() {  # ids ARGS...: the distinct run ids of `fedbench export ARGS --csv`
  "$fedbench" export "$@" --csv 2>/dev/null | awk -F, 'NR > 1 {print $1}' | sort -u | wc -l
}
dims() {  # dims ARGS...: the distinct values of problem.dim in the export
  "$fedbench" export "$@" --csv 2>/dev/null |
    awk -F, 'NR == 1 {for (i = 1; i <= NF; ++i) if ($i == "problem.dim") c = i; next} {print $c}' | sort -u | tr '\n' ' '
}
write_suite "$scratch/suite.yaml" 3
expect_ok "4 finished now" "$fedbench" run "$scratch/suite.yaml" --results "$results" --jobs 2
write_suite "$scratch/suite.yaml" 4
"$fedbench" run "$scratch/suite.yaml" --results "$results" -q --jobs 2
checks=$((checks + 1))
[ "$(ls "$results"/runs/*.h5 | wc -l)" = 8 ] || { echo "FAIL: want 8 run files on disk"; failures=$((failures + 1)); }

# export and select: the suite's 4 current runs, the other 4 counted.
checks=$((checks + 1))
[ "$(ids "$results")" = 4 ] && [ "$(dims "$results")" = "4 " ] ||
  { echo "FAIL: export shows $(ids "$results") runs of dims $(dims "$results"), want 4 of dim 4"; failures=$((failures + 1)); }
expect_ok "^fedbench: $results: 4 run files are not in the runs of the suites last run here \\(older configurations, suite.tsv\\): left out; --all includes them, \`fedbench prune $results\` deletes them$" \
  "$fedbench" export "$results" --csv
checks=$((checks + 1))
[ "$(ids "$results" --all)" = 8 ] && [ "$(dims "$results" --all)" = "3 4 " ] ||
  { echo "FAIL: export --all shows $(ids "$results" --all) runs"; failures=$((failures + 1)); }
expect_ok "^gda +[0-9.e+-]+ +2  " "$fedbench" select "$results" --at rounds=10 --no-suite
expect_ok "^quadratic-game\\(clients=3,dim=3\\) gda " "$fedbench" select "$results" --at rounds=10 --no-suite --all
checks=$((checks + 1))
"$fedbench" select "$results" --at rounds=10 --no-suite --json 2>/dev/null | "$python" -c '
import json, sys
sys.exit(any(c["problem_params"].get("dim") == "3" for c in json.load(sys.stdin)["all"]))' ||
  { echo "FAIL: select used a run of the older configuration"; failures=$((failures + 1)); }

# report: the page counts the suite's 4 runs; with --all the 8.
for mode in scoped all; do
  checks=$((checks + 1))
  flags=(); want=4
  [ $mode = all ] && flags=(--all) && want=8
  FEDBENCH_PYTHON="$python" "$fedbench" report "$results" "${flags[@]}" -o "$scratch/report-$mode" >/dev/null 2>&1
  grep -q "<p class=meta>$want runs:" "$scratch/report-$mode/index.html" 2>/dev/null ||
    { echo "FAIL: report ($mode) does not show $want runs"; failures=$((failures + 1)); }
done

# The Python reader scopes a results directory the same way.
checks=$((checks + 1))
"$python" - scripts "$results" <<'PY' 2>/dev/null || { echo "FAIL: fedbench_read.run_files is not scoped"; failures=$((failures + 1)); }
import sys
sys.path.insert(0, sys.argv[1])
import fedbench_read as fr
assert len(fr.run_files(sys.argv[2])) == 4
assert len(fr.run_files(sys.argv[2], all_runs=True)) == 8
assert len(fr.read_runs(sys.argv[2])) == 4
PY

# select says when it replaces its winners file.
expect_ok "^winners suite: $results/winners.yaml$" "$fedbench" select "$results" --at rounds=10
expect_ok "^winners suite: $results/winners.yaml \\(replaced the previous one; -o writes elsewhere\\)$" \
  "$fedbench" select "$results" --at rounds=10

# A run of some entries only leaves the recorded suite alone.
"$fedbench" run "$scratch/suite.yaml" --results "$results" -q --solver gda -p dim=5
checks=$((checks + 1))
[ "$(ids "$results")" = 4 ] || { echo "FAIL: a --solver run changed the view"; failures=$((failures + 1)); }

# A second suite sharing the directory: both in view.
sed 's/^name: scoped/name: other/; s/dim: 4/dim: 6/' "$scratch/suite.yaml" >"$scratch/other.yaml"
"$fedbench" run "$scratch/other.yaml" --results "$results" -q
checks=$((checks + 1))
[ "$(dims "$results")" = "4 6 " ] || { echo "FAIL: two suites of one directory: dims $(dims "$results")"; failures=$((failures + 1)); }

# prune: lists, then deletes exactly the files no recorded suite has (dim 3, and the dim 5 runs).
expect_ok "^$results: 6 run files not in its suites \\(nothing deleted: --dry-run\\)$" "$fedbench" prune "$results" --dry-run
checks=$((checks + 1))
[ "$(ls "$results"/runs/*.h5 | wc -l)" = 14 ] || { echo "FAIL: --dry-run deleted files"; failures=$((failures + 1)); }
expect_ok "^delete $results/runs/[0-9a-f]{16}.h5$" "$fedbench" prune "$results"
checks=$((checks + 1))
[ "$(ls "$results"/runs/*.h5 | wc -l)" = 8 ] && [ "$(ids "$results" --all)" = 8 ] &&
  [ "$(($(wc -l <"$results/manifest.tsv") - 1))" = 8 ] ||
  { echo "FAIL: prune left $(ls "$results"/runs/*.h5 | wc -l) files"; failures=$((failures + 1)); }
expect_fail 2 "fedbench: $scratch is not a results directory (no runs/); give the directory a suite ran into" \
  "$fedbench" prune "$scratch"
finish
