#!/usr/bin/env bash
# A storm of SIGKILLs at random moments of a suite with two jobs, each followed by a restart,
# then a last resume: no run lost, no .part or corrupt file under a final name, manifest.tsv
# consistent with runs/, every column but the timings identical to an uninterrupted run. Then
# a storm on two processes with two jobs each sharing one results directory (each killed one
# restarted at once) until both finish, same checks and each run written once. Then mpirun -np
# 2 killed in the middle. KILLS (default 8, `make test`) sets the first storm's size; the full
# tier runs 30 and `make stress` 300 on the 600 runs of storm-long.yaml (STORM_SUITE).
# PAIR_KILLS (default 6) sets the two-process storm's; `make stress` runs 100.
source "$(dirname "$0")/lib.bash"
suite=${STORM_SUITE:-$(dirname "$0")/suites/storm.yaml}
kills=${KILLS:-8}
pair_kills=${PAIR_KILLS:-6}
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
echo "storm: $landed kills landed, $(finished "$scratch/storm") of $total runs finished before the last resume (${SECONDS} s)"
expect_ok "$total runs: .* finished now" "$fedbench" run "$suite" --results "$scratch/storm" --jobs 2
same_columns "$scratch/storm" "$scratch/whole"
results_intact "$scratch/storm"
checks=$((checks + 1))
if [ -s "$scratch/storm.err" ]; then  # a corrupt file found on restart would be reported here
  echo "FAIL: the storm printed errors:"; head -n 5 "$scratch/storm.err"; failures=$((failures + 1))
fi

# Two processes on one directory, each with two jobs; every kill lands on one of them at a
# random moment (after zero or one more finished run, then 0-0.3 s) and the killed one is
# restarted at once, so that two always run; after the last kill both finish on their own.
# Besides the checks above: each run written once (a final file, once seen, keeps its inode:
# no process ran a finished run again), none lost, the manifest lists each once.
pair=$scratch/pair
alive() { local state; state=$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null); [ -n "$state" ] && [ "$state" != Z ]; }
start() {  # start SLOT: (re)starts process SLOT of the pair
  "$fedbench" run "$suite" --results "$pair" --jobs 2 -q 2>>"$pair.err" &
  pids[$1]=$!
}
inodes() { ls -i "$pair/runs" 2>/dev/null | grep '\.h5$' >>"$pair.inodes" || true; }
pids=() rcs=(- -)
pair_start=$SECONDS
start 0
start 1
landed=0
while [ "$landed" -lt "$pair_kills" ] && [ "$(finished "$pair")" -lt "$total" ]; do
  wait_for=$(($(finished "$pair") + RANDOM % 2))
  while [ "$(finished "$pair")" -lt "$wait_for" ] && { alive ${pids[0]} || alive ${pids[1]}; }; do sleep 0.01; done
  sleep "0.$(printf '%02d' $((RANDOM % 30)))"
  slot=$((RANDOM % 2))
  inodes
  kill -9 ${pids[$slot]} 2>/dev/null
  wait ${pids[$slot]} 2>/dev/null
  rc=$?
  if [ "$rc" = 137 ]; then
    landed=$((landed + 1))
    start $slot
  else
    rcs[$slot]=$rc  # it had finished the suite
    break
  fi
done
for slot in 0 1; do
  if [ "${rcs[$slot]}" = - ]; then wait ${pids[$slot]}; rcs[$slot]=$?; fi
done
inodes
echo "pair: $landed kills landed on two processes, $(finished "$pair") of $total runs finished ($((SECONDS - pair_start)) s)"
checks=$((checks + 1))
if [ "$landed" -lt "$pair_kills" ]; then
  echo "FAIL: the pair finished the suite after $landed kills (want $pair_kills): make it longer"
  failures=$((failures + 1))
fi
checks=$((checks + 1))
if [ "${rcs[*]}" != "0 0" ]; then
  echo "FAIL: the last two processes exit ${rcs[*]} (want 0 0)"; failures=$((failures + 1))
fi
same_columns "$pair" "$scratch/whole"
results_intact "$pair"
checks=$((checks + 1))
rewritten=$(awk '{ print $2, $1 }' "$pair.inodes" | sort -u | awk '{ print $1 }' | uniq -d)
listed=$(tail -n +2 "$pair/manifest.tsv" | cut -f1 | sort)
if [ -n "$rewritten" ] || [ "$(uniq <<<"$listed" | wc -l)" != "$total" ] || [ "$(wc -l <<<"$listed")" != "$total" ]; then
  echo "FAIL: runs written twice ($(wc -w <<<"$rewritten") final files replaced) or listed twice in the manifest"
  failures=$((failures + 1))
fi
checks=$((checks + 1))
if [ -s "$pair.err" ]; then
  echo "FAIL: the two-process storm printed errors:"; head -n 5 "$pair.err"; failures=$((failures + 1))
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
