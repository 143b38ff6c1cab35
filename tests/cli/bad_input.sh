#!/usr/bin/env bash
# Bad input: one line naming the thing and the valid choices, exit 2, before any work, and an
# existing output file is left untouched.
source "$(dirname "$0")/lib.bash"
small=(-p clients=3 -p samples=4 -p dim=2)

# The valid names are the registry's (`fedbench list`), so adding a solver or problem edits no test.
solvers=$("$fedbench" list solvers | awk '/^[a-z]/ { print $1 }' | paste -sd, | sed 's/,/, /g')
problems=$("$fedbench" list problems | awk '/^[a-z]/ { print $1 }' | paste -sd, | sed 's/,/, /g')
expect_fail 2 "fedbench: unknown solver 'proxskp-gda-fl'; valid: $solvers (did you mean 'proxskip-gda-fl'?)" \
  "$fedbench" run --problem quadratic-game --solver proxskp-gda-fl
expect_fail 2 "fedbench: unknown problem 'quadratic'; valid: $problems" \
  "$fedbench" run --problem quadratic --solver gda
expect_fail 2 "fedbench: solver gda: unknown parameter 'stepsize'; valid: batch_size, dual_step_size, step_size (did you mean 'step_size'?)" \
  "$fedbench" run --problem quadratic-game --solver gda -s stepsize=0.1
expect_fail 2 "fedbench: solver proxskip-vip-fl: comm_prob = 0 violates 0 < comm_prob <= 1" \
  "$fedbench" run --problem quadratic-game --solver proxskip-vip-fl -s comm_prob=0
expect_fail 2 "fedbench: solver local-sgda: local_steps = '2.5' is not an integer" \
  "$fedbench" run --problem quadratic-game --solver local-sgda -s local_steps=2.5
expect_fail 2 "fedbench: problem quadratic-game: clients = 0 violates 1 <= clients" \
  "$fedbench" run --problem quadratic-game --solver gda --clients 0 -p samples=3
expect_fail 2 "fedbench: participation 'half' is not valid; use full, uniform:M (M distinct clients per round), bernoulli:Q (each client joins with probability 0 < Q <= 1), iid:M (M uniform draws with replacement, the theory's i.i.d. clients) or dropout:M:R (M distinct candidates, of which M - floor(U R M) respond, U uniform on [0, 1), 0 <= R < 1)" \
  "$fedbench" run --problem quadratic-game --solver gda --participation half
expect_fail 2 "fedbench: solver fedgda-gt: step_size = 'fast' is not a finite number or 'theory'" \
  "$fedbench" run --problem quadratic-game --solver fedgda-gt -s step_size=fast
expect_fail 2 "fedbench: solver gda: 'step_size' is not of the form key=value" \
  "$fedbench" run --problem quadratic-game --solver gda -s step_size
expect_fail 2 "fedbench: target 'rel_error<1e-3' is not of the form METRIC<=VALUE or METRIC>=VALUE, e.g. rel_error<=1e-10 or test_accuracy>=0.9" \
  "$fedbench" run --problem quadratic-game --solver gda --target 'rel_error<1e-3'
# run and report take targets through one parser: report refuses the same text before any work.
expect_fail 2 "fedbench: target 'rel_error<1e-3' is not of the form METRIC<=VALUE or METRIC>=VALUE, e.g. rel_error<=1e-10 or test_accuracy>=0.9" \
  "$fedbench" report "$scratch" --target 'rel_error<1e-3'

# A rejected run must not touch an existing output file.
echo "precious" > "$scratch/keep.h5"
expect_fail 2 "fedbench: solver gda: unknown parameter 'bogus'; valid: batch_size, dual_step_size, step_size" \
  "$fedbench" run --problem quadratic-game --solver gda -s bogus=1 -o "$scratch/keep.h5" "${small[@]}"
checks=$((checks + 1))
if [ "$(cat "$scratch/keep.h5")" != "precious" ]; then echo "FAIL: output file was touched"; failures=$((failures + 1)); fi

expect_fail 2 "fedbench: cannot open $scratch/missing.h5: no such file" "$fedbench" show "$scratch/missing.h5"
expect_fail 2 "fedbench: solver adafbio: AdaFBiO finishes each synchronisation in the next round on every client; use --participation full" \
  "$fedbench" run --problem bilevel-quadratic --solver adafbio --participation uniform:2 --rounds 3
# Sizes that cannot be had are refused at once with one line, not attempted.
expect_fail_like 2 "^fedbench: --threads 100000 is more than 1024 threads per run; use at most the machine's cores \([0-9]+ here\)$" \
  "$fedbench" run --problem two-client-game --solver gda -s step_size=0.1 --rounds 2 --threads 100000
expect_fail_like 2 "^fedbench: problem quadratic-game: clients x samples x \(4 dim\^2 \+ 2 dim\) = 1000000000 x 100 x 1640 numbers need [0-9.e+]+ bytes of memory, this machine has [0-9.e+]+; use smaller sizes$" \
  "$fedbench" run --problem quadratic-game -p clients=1000000000 --solver gda -s step_size=0.1 --rounds 2
expect_fail 2 "fedbench: problem quadratic-game: clients = '3000000000' is out of range (at most 2147483647)" \
  "$fedbench" run --problem quadratic-game -p clients=3000000000 --solver gda -s step_size=0.1 --rounds 2
# A user's LIBSVM file with one huge feature index: refused at once with the line, not densified.
printf '1 10000000:1\n-1 1:1\n' > "$scratch/wide.libsvm"
expect_fail 2 "fedbench: $scratch/wide.libsvm:1: feature index 10000000 gives robust-least-squares 10000000 features (x has one entry per feature, rows are dense); it takes at most 100000" \
  "$fedbench" run --problem robust-least-squares -p source=libsvm -p "path=$scratch/wide.libsvm" --solver gda -s step_size=0.1 --rounds 2
printf '1 2147483647:1' > "$scratch/huge.libsvm"
expect_fail 2 "fedbench: $scratch/huge.libsvm:1: feature index 2147483647 is past the limit of 268435456 features" \
  "$fedbench" run --problem robust-least-squares -p source=libsvm -p "path=$scratch/huge.libsvm" --solver gda -s step_size=0.1 --rounds 2
finish
