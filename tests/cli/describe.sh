#!/usr/bin/env bash
# `describe`: a problem lists the constants its instance publishes (name, value, meaning), a
# solver the constants its theory presets read; `step_size` is accepted by every solver as the
# alias of its primary step and never appears in a run's canonical parameters.
source "$(dirname "$0")/lib.bash"

expect_ok '^    mu +0\.4[0-9]+ +strong monotonicity' "$fedbench" describe quadratic-game
expect_ok '^    cocoercivity_sample_max +[0-9.e+-]+ +max over samples' "$fedbench" describe quadratic-game
expect_ok '^    heterogeneity ' "$fedbench" describe quadratic-game -p heterogeneity=0.5
expect_ok '^    lipschitz_g_client_max ' "$fedbench" describe bilevel-quadratic
expect_ok 'theory presets read the problem constants: mu, cocoercivity_client_max, cocoercivity_sample_max' \
  "$fedbench" describe proxskip-gda-fl
expect_ok 'theory presets read no problem constant' "$fedbench" describe sagda
expect_ok '^  step_size +alias +.*sets eta_xl and eta_yl' "$fedbench" describe sagda

# Every problem lists the constants its default instance publishes (or says it has none).
for problem in $("$fedbench" list problems | grep -E '^[a-z]' | cut -d' ' -f1); do
  expect_ok '^  (constants of this instance|publishes no constants)' "$fedbench" describe "$problem"
done

# Every solver takes step_size; the run stores the targets only.
for solver in $("$fedbench" list solvers | grep -E '^[a-z]' | cut -d' ' -f1); do
  expect_ok '^  step_size ' "$fedbench" describe "$solver"
done
small=(-p clients=3 -p samples=4 -p dim=2 --rounds 3 -q)
"$fedbench" run --problem quadratic-game --solver sagda -s step_size=0.05 "${small[@]}" -o "$scratch/alias.h5"
"$fedbench" run --problem quadratic-game --solver sagda -s eta_xl=0.05 -s eta_yl=0.05 "${small[@]}" -o "$scratch/explicit.h5"
expect_ok '^      eta_xl: 0.05' "$fedbench" show "$scratch/alias.h5"
checks=$((checks + 1))
# the configuration and the trajectory, without file name, command line and timings
same_run() { "$fedbench" show "$1" | grep -v -E '^(file|command|rounds):|wall_time|eval_time'; }
if [ "$(same_run "$scratch/alias.h5")" != "$(same_run "$scratch/explicit.h5")" ]; then
  echo "FAIL: step_size=0.05 and eta_xl=eta_yl=0.05 differ"; failures=$((failures + 1))
fi
expect_fail 2 "fedbench: solver sagda: give step_size or eta_xl, not both (step_size sets eta_xl and eta_yl)" \
  "$fedbench" run --problem quadratic-game --solver sagda -s step_size=0.1 -s eta_xl=0.1 "${small[@]}"
finish
