#!/usr/bin/env bash
# Paper experiments: --list names every experiment with its reference and substitutes; the
# quick variant of each runs end to end (tuning, selection, report seeds, figure, report) and
# its claims pass; a claim that does not hold fails with its numbers and exit 1.
source "$(dirname "$0")/lib.bash"

expect_ok '^zhang2024-fig1a$' "$fedbench" reproduce --list
expect_ok 'reference: +Siqi Zhang, Sayantan Choudhury' "$fedbench" reproduce --list
expect_fail 2 "fedbench: unknown experiment 'zhang2024-fig1c'; valid: $("$fedbench" reproduce --list | grep -E '^[a-z0-9-]+$' | paste -sd, | sed 's/,/, /g') (did you mean 'zhang2024-fig1a'?)" \
  "$fedbench" reproduce zhang2024-fig1c

for name in $("$fedbench" reproduce --list | grep -E '^[a-z0-9-]+$'); do
  expect_ok '^[0-9]+ passed, 0 failed$' "$fedbench" reproduce "$name" --quick -q -o "$scratch/$name"
  checks=$((checks + 1))
  if [ ! -s "$scratch/$name/figure.png" ] || [ ! -s "$scratch/$name/html/index.html" ]; then
    echo "FAIL: $name: no figure or report"; failures=$((failures + 1))
  fi
done

# A claim the run cannot meet: reported with its numbers, exit 1.
mkdir -p "$scratch/experiments"
cat >"$scratch/experiments/impossible.yaml" <<YAML
name: impossible
title: "Local GDA beats ProxSkip-GDA-FL"
reference: "none"
reproduces: "a claim that is false, to check that claims can fail"
suite: $PWD/results/suites/zhang2024-fig1a.yaml
quick: {rounds: 60}
claims:
  - text: "Local GDA is better than ProxSkip-GDA-FL"
    better: {solver: local-gda, than: proxskip-gda-fl, metric: rel_error, at: 60}
YAML
checks=$((checks + 1))
out=$(FEDBENCH_EXPERIMENTS="$scratch/experiments" "$fedbench" reproduce impossible --quick -q -o "$scratch/impossible") && rc=0 || rc=$?
if [ "$rc" != 1 ] || ! grep -q '^claim: Local GDA is better than ProxSkip-GDA-FL: FAILED (rel_error at round 60: local-gda .* vs proxskip-gda-fl ' <<<"$out" \
   || ! grep -q '^0 passed, 1 failed$' <<<"$out"; then
  echo "FAIL: a false claim was not reported (exit $rc)"; echo "$out" | tail -n 3; failures=$((failures + 1))
fi
finish
