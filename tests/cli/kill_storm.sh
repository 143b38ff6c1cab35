#!/usr/bin/env bash
# A storm of SIGKILLs at random moments of a suite with two jobs, each followed by a restart,
# then a last resume: no run lost, no .part or corrupt file under a final name, manifest.tsv
# consistent with runs/, every column but the timings identical to an uninterrupted run. Then
# the same with mpirun -np 2 killed in the middle. KILLS (default 8, `make test`) sets the
# storm's size; the full tier runs 30 and `make stress` 300 on the 600 runs of storm-long.yaml
# (STORM_SUITE).
source "$(dirname "$0")/lib.bash"
suite=${STORM_SUITE:-$(dirname "$0")/suites/storm.yaml}
kills=${KILLS:-8}
total=$("$fedbench" plan "$suite" --results "$scratch/storm" | sed -n 's/^suite .*: \([0-9]*\) runs valid.*/\1/p')

expect_ok "$total finished now" "$fedbench" run "$suite" --results "$scratch/whole" --jobs 2

finished() { ls "$1/runs" 2>/dev/null | grep -c '\.h5$' || true; }
# Each kill comes after zero or one more finished run, then a random 0-0.3 s: anywhere in
# set-up, a run, a file write or a rename, while the suite still has work.
RANDOM=7  # the same storm every time
landed=0
while [ "$landed" -lt "$kills" ]; do
  before=$(finished "$scratch/storm")
  wait_for=$((before + RANDOM % 2))
  "$fedbench" run "$suite" --results "$scratch/storm" --jobs 2 -q 2>>"$scratch/storm.err" &
  pid=$!
  while [ "$(finished "$scratch/storm")" -lt "$wait_for" ] && kill -0 $pid 2>/dev/null; do sleep 0.01; done
  sleep "0.$(printf '%02d' $((RANDOM % 30)))"
  if kill -9 $pid 2>/dev/null; then landed=$((landed + 1)); fi
  wait $pid 2>/dev/null
  [ "$(finished "$scratch/storm")" -ge "$total" ] && break
done
checks=$((checks + 1))
if [ "$landed" -lt "$kills" ]; then
  echo "FAIL: the suite finished after $landed kills (want $kills): make it longer"
  failures=$((failures + 1))
fi
# Every file under a final name is complete before the resume looks at it.
expect_ok "runs valid: [0-9]+ done, [0-9]+ partial, [0-9]+ new; " "$fedbench" plan "$suite" --results "$scratch/storm"
echo "storm: $landed kills landed, $(finished "$scratch/storm") of $total runs finished before the last resume"
expect_ok "$total runs: .* finished now" "$fedbench" run "$suite" --results "$scratch/storm" --jobs 2
same_columns "$scratch/storm" "$scratch/whole"
results_intact "$scratch/storm"
checks=$((checks + 1))
if [ -s "$scratch/storm.err" ]; then  # a corrupt file found on restart would be reported here
  echo "FAIL: the storm printed errors:"; head -n 5 "$scratch/storm.err"; failures=$((failures + 1))
fi

if command -v mpirun >/dev/null; then
  mpi=(mpirun -np 2 --oversubscribe --allow-run-as-root)
  "${mpi[@]}" "$fedbench" run "$suite" --results "$scratch/mpi" --jobs 1 -q 2>/dev/null &
  pid=$!
  for _ in $(seq 1 500); do
    [ "$(finished "$scratch/mpi")" -ge 6 ] && break
    sleep 0.02
  done
  pkill -9 -f -- "--results $scratch/mpi" 2>/dev/null  # both ranks (and mpirun) at once
  wait $pid 2>/dev/null
  checks=$((checks + 1))
  done_before=$(finished "$scratch/mpi")
  if [ "$done_before" -ge "$total" ]; then echo "FAIL: mpirun finished before the kill"; failures=$((failures + 1)); fi
  expect_ok "$total runs: $((total - done_before)) finished now, $done_before already done" \
    "${mpi[@]}" "$fedbench" run "$suite" --results "$scratch/mpi" --jobs 1
  same_columns "$scratch/mpi" "$scratch/whole"
  results_intact "$scratch/mpi"
fi
finish
