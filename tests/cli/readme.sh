#!/usr/bin/env bash
# Every shell block of README.md runs as written (its `make` lines aside: they are the set-up
# this test runs under), in a scratch directory that sees the repository's suites, experiments,
# scripts and datasets, with this build's fedbench first on PATH and this build installed in
# $HOME/.local of a scratch home: an example that exits non-zero fails the test.
source "$(dirname "$0")/lib.bash"
root=$PWD
work=$scratch/work
mkdir -p "$work/results" "$scratch/bin"
ln -s "$root/results/suites" "$work/results/suites"
ln -s "$root/results/experiments" "$work/results/experiments"
ln -s "$root/scripts" "$work/scripts"
ln -s "$(realpath "$fedbench")" "$scratch/bin/fedbench"
data=${FEDBENCH_DATA:-$root/../shared/datasets}
# `make install PREFIX=$HOME/.local`, as the README's plug-in block assumes, into a scratch home.
home=$scratch/home
build=$(cd "$(dirname "$fedbench")/.." && pwd)
cmake=$(sed -n 's/^CMAKE_COMMAND:INTERNAL=//p' "$build/CMakeCache.txt")
[ -x "$cmake" ] || cmake=cmake
"$cmake" --install "$build" --prefix "$home/.local" >/dev/null

"$python" - "$root/README.md" "$scratch" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
n = 0
for block in re.findall(r"```sh\n(.*?)```", text, re.S):
    lines = [l for l in block.splitlines() if not l.startswith("make ")]
    if any(l.strip() and not l.lstrip().startswith("#") for l in lines):
        n += 1
        open(f"{sys.argv[2]}/block-{n}.sh", "w").write("\n".join(lines) + "\n")
PY
n=0
for file in "$scratch"/block-*.sh; do
  [ -e "$file" ] || continue
  n=$((n + 1))
  checks=$((checks + 1))
  if ! out=$(cd "$work" && HOME="$home" PATH="$scratch/bin:$PATH" FEDBENCH_DATA="$data" bash -euo pipefail "$file" 2>&1); then
    echo "FAIL: README block $(basename "$file" .sh) exits non-zero:"; sed 's/^/  | /' "$file"
    echo "  output:"; tail -n 15 <<<"$out" | sed 's/^/  | /'
    failures=$((failures + 1))
  fi
done
checks=$((checks + 1))
if [ "$n" -lt 1 ]; then echo "FAIL: no shell block found in README.md"; failures=$((failures + 1)); fi
# The examples that promise a stop reach it: the run with a target stops on it.
for file in run2.h5 auc.h5; do
  checks=$((checks + 1))
  stop=$(cd "$work" && "$fedbench" show "$file" 2>&1 | grep '^status:')
  grep -q '(target_reached)' <<<"$stop" || { echo "FAIL: README's $file does not stop at its target: $stop"; failures=$((failures + 1)); }
done
finish
