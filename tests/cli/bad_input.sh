#!/usr/bin/env bash
# Bad input: one line naming the thing and the valid choices, exit 2, before any work, and an
# existing output file is left untouched.
source "$(dirname "$0")/lib.bash"
here=$(dirname "$0")
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
expect_fail 2 "fedbench: solver local-sgda: local_steps = '2.5' is not a whole number" \
  "$fedbench" run --problem quadratic-game --solver local-sgda -s local_steps=2.5
expect_fail 2 "fedbench: problem quadratic-game: clients = 0 violates 1 <= clients" \
  "$fedbench" run --problem quadratic-game --solver gda -p clients=0 -p samples=3
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
expect_fail_like 2 "^fedbench: --threads = '100000' is not a whole number from 1 to 1024; use at most the machine's cores \([0-9]+ here\) \(see fedbench --help\)$" \
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
# Integer options take the suite files' limits, refused while the command line is read (before
# any work, no output file): not a number, not whole, out of range, past 64 bits, negative.
whole() { echo "fedbench: $1 = '$2' is not a whole number from $3 to $4 (see fedbench --help)"; }
run_gda=("$fedbench" run --problem quadratic-game --solver gda)
expect_fail 2 "$(whole --rounds 9300000000000000000 0 9e18)" "${run_gda[@]}" --rounds 9300000000000000000 -o "$scratch/never.csv"
checks=$((checks + 1))
if [ -e "$scratch/never.csv" ]; then echo "FAIL: a refused run wrote its output"; failures=$((failures + 1)); fi
expect_fail 2 "$(whole --rounds 99999999999999999999 0 9e18)" "${run_gda[@]}" --rounds 99999999999999999999
expect_fail 2 "$(whole --rounds -1 0 9e18)" "${run_gda[@]}" --rounds -1
expect_fail 2 "$(whole --rounds 1.5 0 9e18)" "${run_gda[@]}" --rounds 1.5
expect_fail 2 "$(whole --rounds 0x10 0 9e18)" "${run_gda[@]}" --rounds 0x10
expect_fail 2 "$(whole --rounds ten 0 9e18)" "${run_gda[@]}" --rounds ten
expect_fail 2 "$(whole --rounds '1\x0a2' 0 9e18)" "${run_gda[@]}" --rounds $'1\n2'
expect_fail 2 "$(whole --seed -1 0 9223372036854775807)" "${run_gda[@]}" --seed -1
expect_fail 2 "$(whole --seed 18446744073709551615 0 9223372036854775807)" "${run_gda[@]}" --seed 18446744073709551615
expect_fail 2 "$(whole --eval-every 0 1 9e18)" "${run_gda[@]}" --eval-every 0
expect_fail 2 "$(whole --eval-log 0 1 2147483647)" "${run_gda[@]}" --eval-log 0
expect_fail 2 "$(whole --eval-log 4294967296 1 2147483647)" "${run_gda[@]}" --eval-log 4294967296
expect_fail 2 "$(whole --max-samples -1 0 9e18)" "${run_gda[@]}" --max-samples -1
expect_fail 2 "$(whole --max-bytes 1e19 0 9e18)" "${run_gda[@]}" --max-bytes 1e19
expect_fail 2 "$(whole --clients 0 1 2147483647)" "${run_gda[@]}" --clients 0
expect_fail 2 "$(whole --clients 3000000000 1 2147483647)" "${run_gda[@]}" --clients 3000000000
expect_fail_like 2 "^fedbench: --threads = '0' is not a whole number from 1 to 1024; use at most the machine's cores \([0-9]+ here\) \(see fedbench --help\)$" \
  "${run_gda[@]}" --threads 0
expect_fail 2 "$(whole --jobs 0 1 1024)" "$fedbench" run "$here/suites/long.yaml" --jobs 0
expect_fail 2 "$(whole --jobs 5000 1 1024)" "$fedbench" check "$here/suites/long.yaml" --reference "$scratch" --jobs 5000
expect_fail 2 "$(whole --jobs -3 1 1024)" "$fedbench" reproduce zhang2024-fig7 --jobs -3
expect_fail 2 "$(whole --clients 0 1 2147483647)" "$fedbench" data partition a9a --clients 0
expect_fail 2 "$(whole --seed -1 0 9223372036854775807)" "$fedbench" data partition a9a --seed -1
# The limits themselves and the suite files' spellings are taken; digits are decimal (010 is ten).
expect_ok "^rounds: 10 " "${run_gda[@]}" --rounds 010 --seed 9223372036854775807 "${small[@]}"
expect_ok "^rounds: 10 " "${run_gda[@]}" --rounds 1e1 --eval-every 1e1 --max-samples 9e18 "${small[@]}"
# One rule for whole numbers everywhere (options, -p/-s values, a suite file's rounds, seeds and
# parameters, participation counts): +3, 3.0 and 3e0 read as 3, and a suite written with them
# has the same run id as one written with 3; 0x3, 2.5 and " 3" are refused by each with "is not
# a whole number".
whole_suite() {  # whole_suite SEED ROUNDS CLIENTS STEPS
  printf 'name: w\nseeds: [%s]\nrounds: %s\nproblems:\n  - name: quadratic-game\n    params: {clients: %s, samples: 4, dim: 2}\nsolvers:\n  - name: local-sgda\n    params: {local_steps: %s}\n' "$@"
}
whole_suite 3 3 3 3 >"$scratch/whole-plain.yaml"
plain_id=$("$fedbench" plan "$scratch/whole-plain.yaml" --results "$scratch/whole-results" | awk 'NR == 2 { print $1 }')
for v in +3 3.0 3e0; do
  expect_ok "^status: ok" "${run_gda[@]}" --rounds "$v" "${small[@]}"
  "$fedbench" run --problem quadratic-game --solver local-sgda --rounds 2 -p clients="$v" -p samples=4 -p dim=2 \
    -s local_steps="$v" --participation "uniform:$v" -q -o "$scratch/whole.h5"
  expect_ok "^ +local_steps: 3$" "$fedbench" show "$scratch/whole.h5"
  expect_ok "^ +clients: 3$" "$fedbench" show "$scratch/whole.h5"
  whole_suite "$v" "$v" "$v" "$v" >"$scratch/whole.yaml"
  expect_ok "^$plain_id " "$fedbench" plan "$scratch/whole.yaml" --results "$scratch/whole-results"
done
for v in 0x3 2.5 " 3"; do
  expect_fail 2 "$(whole --rounds "$v" 0 9e18)" "${run_gda[@]}" --rounds "$v"
  expect_fail 2 "fedbench: solver local-sgda: local_steps = '$v' is not a whole number" \
    "$fedbench" run --problem quadratic-game --solver local-sgda -s local_steps="$v"
  expect_fail 2 "fedbench: problem quadratic-game: clients = '$v' is not a whole number" \
    "$fedbench" run --problem quadratic-game --solver gda -p clients="$v"
  whole_suite 3 "'$v'" 3 3 >"$scratch/whole-bad.yaml"
  expect_fail_like 2 "rounds = '$v' is not a whole number from 0 to 9e18$" "$fedbench" plan "$scratch/whole-bad.yaml"
  whole_suite "'$v'" 3 3 3 >"$scratch/whole-bad.yaml"
  expect_fail_like 2 "seed = '$v' is not a whole number from 0 to 9223372036854775807$" "$fedbench" plan "$scratch/whole-bad.yaml"
done

# A suite's name is its default results directory's (results/NAME): one line and exit 2 for a
# name a directory cannot have, whether written or taken from the file's name.
suite_body='problems: [{name: quadratic-game}]\nsolvers: [{name: gda}]\nrounds: 2\n'
printf "name: \"\"\n$suite_body" >"$scratch/empty-name.yaml"
printf "name: \"a\\\\nb\"\n$suite_body" >"$scratch/newline-name.yaml"
printf "name: ../up\n$suite_body" >"$scratch/slash-name.yaml"
printf "$suite_body" >"$scratch/.yaml"
printf "$suite_body" >"$scratch/my suite.yaml"
rule="use letters, digits, '-', '_', '.'"
expect_fail 2 "fedbench: $scratch/empty-name.yaml:1: name \"\" is empty; a suite's name is a directory name (results/NAME): $rule" \
  "$fedbench" plan "$scratch/empty-name.yaml"
expect_fail 2 "fedbench: $scratch/newline-name.yaml:1: name \"a\\nb\" has a newline; a suite's name is a directory name (results/NAME): $rule" \
  "$fedbench" run "$scratch/newline-name.yaml"
expect_fail 2 "fedbench: $scratch/slash-name.yaml:1: name \"../up\" has '/'; a suite's name is a directory name (results/NAME): $rule" \
  "$fedbench" run "$scratch/slash-name.yaml" --results "$scratch/elsewhere"
expect_fail 2 "fedbench: $scratch/.yaml: a suite without 'name' is named after its file, and \"\" is empty; add name: NAME with letters, digits, '-', '_', '.'" \
  "$fedbench" plan "$scratch/.yaml"
expect_fail 2 "fedbench: $scratch/my suite.yaml: a suite without 'name' is named after its file, and \"my suite\" has a space; add name: NAME with letters, digits, '-', '_', '.'" \
  "$fedbench" plan "$scratch/my suite.yaml"
checks=$((checks + 1))
if [ -e "$scratch/elsewhere" ] || [ -e $'results/a\nb' ]; then echo "FAIL: a refused suite made a directory"; failures=$((failures + 1)); fi
# An experiment name becomes directory names too; the winners suite select writes is named after
# the results directory in those characters only, so it loads whatever that directory is called.
expect_fail 2 "fedbench: experiment name \"a\\nb\" has a newline; experiment names are of letters, digits, '-', '_', '.' (fedbench reproduce --list)" \
  "$fedbench" reproduce $'a\nb'
printf 'name: tiny\nseeds: [0, 1]\nrounds: 2\nproblems: [{name: two-client-game}]\nsolvers: [{name: gda, params: {step_size: [0.1, 0.2]}}]\n' >"$scratch/tiny.yaml"
expect_ok "finished now" "$fedbench" run "$scratch/tiny.yaml" --results "$scratch/my results"
expect_ok "winners suite" "$fedbench" select "$scratch/my results" --at rounds=2
expect_ok "suite my_results-winners" "$fedbench" plan "$scratch/my results/winners.yaml"
# A results directory with a file in its way is bad input; one the disk refuses is a refused
# write (exit 1, tests/cli/faults.sh).
expect_fail 2 "fedbench: cannot create results directory $scratch/keep.h5/runs: Not a directory" \
  "$fedbench" run "$scratch/tiny.yaml" --results "$scratch/keep.h5" -q
# A suite file that is a directory, a FIFO (never waited on: the command runs under timeout) or
# too large is one line and exit 2.
mkdir -p "$scratch/suite-dir.yaml"
expect_fail 2 "fedbench: cannot open suite $scratch/suite-dir.yaml: it is a directory; give a YAML file" \
  "$fedbench" plan "$scratch/suite-dir.yaml"
mkfifo "$scratch/suite-fifo.yaml"
expect_fail 2 "fedbench: cannot open suite $scratch/suite-fifo.yaml: not a regular file (a FIFO, device or socket); give a YAML file" \
  timeout -s KILL 20 "$fedbench" run "$scratch/suite-fifo.yaml"
truncate -s 17M "$scratch/huge.yaml"
expect_fail 2 "fedbench: cannot open suite $scratch/huge.yaml: 17825792 bytes, more than a suite file may have (16 MiB)" \
  "$fedbench" plan "$scratch/huge.yaml"
# An output named '' or a directory path ending in / has no file name: nothing is written.
expect_fail 2 "fedbench: cannot write '': give a file name" "$fedbench" instance two-client-game -o ''
checks=$((checks + 1))
[ -e .part ] && { echo "FAIL: instance -o '' left ./.part"; failures=$((failures + 1)); }
expect_fail 2 "fedbench: cannot write '$scratch/': give a file name" "$fedbench" instance two-client-game -o "$scratch/"
# conform: a misspelt solver parameter is bad input, not failed checks.
expect_fail 2 "fedbench: solver gda: unknown parameter 'nope'; valid: batch_size, dual_step_size, step_size" \
  "$fedbench" conform gda -s nope=1
# A time limit or divergence factor is a finite number > 0: nan, inf, '' and 0 silently meant no
# limit or a stop at round 0.
for v in nan inf '' 0 -1; do
  expect_fail 2 "fedbench: --time-limit = '$v' is not a number > 0 (seconds) (see fedbench --help)" \
    "$fedbench" run --problem two-client-game --solver gda --rounds 2 -q --time-limit "$v"
done
expect_fail 2 "fedbench: --divergence-factor = 'inf' is not a number > 0 (a factor) (see fedbench --help)" \
  "$fedbench" run --problem two-client-game --solver gda --rounds 2 -q --divergence-factor inf
printf 'name: tl\nrounds: 2\nbudget: {time_limit: 0}\nproblems: [{name: two-client-game}]\nsolvers: [{name: gda}]\n' >"$scratch/tl.yaml"
expect_fail 2 "fedbench: $scratch/tl.yaml:3: time_limit = '0' is not a number > 0 (seconds)" "$fedbench" plan "$scratch/tl.yaml"
# A command-line grid of 10^5 values is refused by the run count at once (its deduplication took
# minutes), under a timeout that a quadratic search would exceed.
expect_fail_like 2 "suite expands to 1199988 runs; a suite may have at most 1000000" \
  timeout -s KILL 30 "$fedbench" plan "$(dirname "$0")/suites/long.yaml" -p "dim=range(1,1e5)"
# reproduce's output is a directory: a file there is refused before any work.
touch "$scratch/not-a-directory"
expect_fail 2 "fedbench: cannot write $scratch/not-a-directory: it is not a directory; name a directory for reproduce's output" \
  "$fedbench" reproduce zhang2024-fig7 --quick -o "$scratch/not-a-directory"
finish
