#!/usr/bin/env bash
# Writes the generated catalogs (docs/catalog/: solvers, problems, experiments) from the
# registries and the experiment files, with the fedbench binary given (default
# build/bin/fedbench), into DIR (default docs/catalog). `make catalogs`; tests/cli/catalogs.sh
# fails when the committed ones differ.
#
#   bash scripts/catalogs.sh [FEDBENCH] [DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
fedbench=${1:-$root/build/bin/fedbench}
dir=${2:-$root/docs/catalog}
mkdir -p "$dir"
cd "$root"
"$fedbench" list solvers --markdown >"$dir/solvers.md"
"$fedbench" list problems --markdown >"$dir/problems.md"
FEDBENCH_EXPERIMENTS=$root/results/experiments "$fedbench" reproduce --list --markdown >"$dir/experiments.md"
