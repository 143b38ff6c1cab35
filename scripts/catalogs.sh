#!/usr/bin/env bash
# Writes the generated catalogs (docs/catalog/: solvers, problems, experiments, verdicts) from
# the registries, the experiment files and the recorded verdict files (results/verdicts), with
# the fedbench binary given (default build/bin/fedbench), into DIR (default docs/catalog), and
# README.md's verdict table (the summary of verdicts.md, between its markers) into README_OUT
# (default README.md itself), and docs/results.md's table of measured numbers (between its
# markers, scripts/results_table.py) into RESULTS_OUT (default docs/results.md itself).
# `make catalogs`; tests/cli/catalogs.sh fails when the committed ones differ.
#
#   [VERDICTS=DIR] bash scripts/catalogs.sh [FEDBENCH] [DIR] [README_OUT] [RESULTS_OUT]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
fedbench=${1:-$root/build/bin/fedbench}
dir=${2:-$root/docs/catalog}
readme_out=${3:-$root/README.md}
results_out=${4:-$root/docs/results.md}
verdicts=${VERDICTS:-$root/results/verdicts}
mkdir -p "$dir"
cd "$root"
"$fedbench" list solvers --markdown >"$dir/solvers.md"
"$fedbench" list problems --markdown >"$dir/problems.md"
FEDBENCH_EXPERIMENTS=$root/results/experiments "$fedbench" reproduce --list --markdown >"$dir/experiments.md"
FEDBENCH_EXPERIMENTS=$root/results/experiments FEDBENCH_VERDICTS=$verdicts \
  "$fedbench" reproduce --status --markdown >"$dir/verdicts.md"
# The summary table, its links made relative to the README, replaces the README's own.
summary=$(sed -n '/^<!-- verdicts-summary -->$/,/^<!-- \/verdicts-summary -->$/p' "$dir/verdicts.md" |
  sed 's|](#|](docs/catalog/verdicts.md#|')
SUMMARY=$summary awk '
  /^<!-- verdicts-summary -->$/ { print ENVIRON["SUMMARY"]; skip = 1; next }
  /^<!-- \/verdicts-summary -->$/ { skip = 0; next }
  !skip { print }' "$root/README.md" >"$readme_out.tmp"
mv "$readme_out.tmp" "$readme_out"
status=$(mktemp)
FEDBENCH_EXPERIMENTS=$root/results/experiments FEDBENCH_VERDICTS=$verdicts "$fedbench" reproduce --status >"$status"
python3 "$root/scripts/results_table.py" "$verdicts" "$root/results/experiments" "$root/docs/results.md" "$results_out" "$status"
rm -f "$status"
