#!/usr/bin/env bash
# An experiment whose claims its runs could never answer (a solver, parameter or metric they
# lack, a negative round, a round past the budget, an inverted band) is refused before anything
# runs: exit 2, one line naming the file and the claim's line, no output directory. In a copied
# experiments directory (FEDBENCH_EXPERIMENTS) such a file is listed as invalid by --list, which
# still lists every other experiment and exits 2.
source "$(dirname "$0")/lib.bash"

mkdir -p "$scratch/results"
cp -r results/experiments results/suites "$scratch/results/"
export FEDBENCH_EXPERIMENTS=$scratch/results/experiments
"$fedbench" reproduce --list >"$scratch/clean.txt"
"$fedbench" reproduce --list --markdown >"$scratch/clean.md"

# bad CLAIM: an experiment zz-bad on zhang2024-fig7's suite whose one claim (line 8) is CLAIM.
bad() {
  printf '%s\n' "name: zz-bad" "title: t" "reference: r" "reproduces: r" "suite: ../suites/zhang2024-fig7.yaml" \
    "claims:" "  # the one claim" "  - text: bad" "    $1" "    origin: fedbench" >"$FEDBENCH_EXPERIMENTS/zz-bad.yaml"
}
# refused WHY CLAIM: reproduce zz-bad exits 2 with one line "FILE:8: claim 'bad': WHY" and
# writes nothing.
refused() {
  bad "$2"
  expect_fail_like 2 "^fedbench: $FEDBENCH_EXPERIMENTS/zz-bad.yaml:8: claim 'bad': $1" \
    "$fedbench" reproduce zz-bad --no-figure -o "$scratch/out"
  checks=$((checks + 1))
  if [ -e "$scratch/out" ] || [ -e results/reproduce/zz-bad ]; then
    echo "FAIL: an output directory was made for a refused experiment ($2)"; failures=$((failures + 1))
  fi
}
refused "than 'local-gd' has no runs in .*zhang2024-fig7.yaml; use one of local-eg, local-gda, proxskip-gda-fl \(did you mean 'local-gda'\?\)$" \
  "better: {solver: proxskip-gda-fl, than: local-gd, metric: rel_error, at: 9}"
refused "where key 'delt' is not a parameter of the problems or of local-gda; use one of .*delta" \
  "below: {solver: local-gda, metric: rel_error, at: 9, value: 1, where: {delt: 0}}"
refused "at -1 is negative" "below: {solver: local-gda, metric: rel_error, at: -1, value: 1}"
refused "at 400 is past the 10 rounds of local-gda's runs; use at most 10$" \
  "below: {solver: local-gda, metric: rel_error, at: 400, value: 1}"
refused "the band is inverted \(value 0.6 > high 0.2\)" \
  "within: {solver: local-gda, metric: rel_error, at: 9, value: 0.6, high: 0.2}"
refused "metric 'rel_eror' is not a column of any run" "below: {solver: local-gda, metric: rel_eror, at: 9, value: 1}"
# A metric of other problems: refused once the suite's problem is built, still before any run.
refused "metric 'test_accuracy' is not recorded by the problems of .*zhang2024-fig7.yaml; use one of" \
  "above: {solver: local-gda, metric: test_accuracy, at: 9, value: 0.5}"

# --list: the bad file is marked with its error, every other experiment is listed as before.
bad "better: {solver: proxskip-gda-fl, than: local-gd, metric: rel_error, at: 9}"
expect_fail_like 2 "^fedbench: 1 experiment file is invalid" "$fedbench" reproduce --list
"$fedbench" reproduce --list >"$scratch/list.txt" 2>/dev/null
expect_ok "^  invalid: $FEDBENCH_EXPERIMENTS/zz-bad.yaml:8: claim 'bad': than 'local-gd' has no runs" \
  cat "$scratch/list.txt"
checks=$((checks + 1))
if ! diff <(sed '/^zz-bad$/,/^$/d' "$scratch/list.txt") "$scratch/clean.txt" >/dev/null; then
  echo "FAIL: --list with an invalid file does not list the others as before"; failures=$((failures + 1))
fi
"$fedbench" reproduce --list --markdown >"$scratch/list.md" 2>/dev/null
expect_ok "^\| \`zz-bad\` \| invalid: .*zz-bad.yaml:8: claim 'bad'" cat "$scratch/list.md"
checks=$((checks + 1))
if ! diff <(grep -v '^| `zz-bad`' "$scratch/list.md") "$scratch/clean.md" >/dev/null; then
  echo "FAIL: --list --markdown with an invalid file changes the other rows"; failures=$((failures + 1))
fi
# Another experiment is still found (here: an unknown name lists the valid ones, not zz-bad).
expect_fail_like 2 "^fedbench: unknown experiment 'zz-nope'; valid: huang2022.*zhang2025-fig5$" \
  "$fedbench" reproduce zz-nope
# A file that is not even YAML is listed too.
printf 'name: [\n' >"$FEDBENCH_EXPERIMENTS/zz-bad.yaml"
expect_ok "^  invalid: .*zz-bad.yaml" sh -c '"$0" reproduce --list 2>/dev/null; true' "$fedbench"
finish
