#!/usr/bin/env bash
# Builds the libFuzzer harnesses of tests/fuzz in the clang tree (ASan + UBSan; build-clang by
# default, configured by scripts/clang-tree.sh) and runs each for N seconds from a working copy
# of its seed corpus, so the tree is never modified; prints the executions of each and fails if any harness finds a crash, leak, timeout or
# out-of-memory (the input is kept in build-clang/fuzz-work/HARNESS/artifacts). docs/fuzzing.md.
#
#   bash scripts/fuzz.sh [--seconds N | --runs N] [--build DIR] [--skip-without-clang] [HARNESS...]
#
# --runs N: each harness runs N executions instead of N seconds.
#
# Without HARNESS, every tests/fuzz/fuzz_*.cpp but fuzz_run_file_checksummed (a probe of
# libhdf5 itself; name it to run it).
# --skip-without-clang: without clang++, say why and succeed (`make test` on a machine
# without clang); otherwise a missing clang++ is an error.
set -euo pipefail

seconds=60
runs=
build=build-clang
skip_without_clang=0
harnesses=()
while [ $# -gt 0 ]; do
  case $1 in
    --seconds) seconds=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --skip-without-clang) skip_without_clang=1; shift ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) harnesses+=("$1"); shift ;;
  esac
done
case $seconds in ''|*[!0-9]*) echo "fuzz.sh: --seconds '$seconds' is not a whole number" >&2; exit 2 ;; esac
case ${runs:-0} in *[!0-9]*) echo "fuzz.sh: --runs '$runs' is not a whole number" >&2; exit 2 ;; esac
if [ -n "$runs" ]; then budget="$runs runs"; else budget="$seconds s"; fi

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
missing=
if ! command -v clang++ >/dev/null 2>&1 || ! command -v clang >/dev/null 2>&1; then
  missing="clang/clang++ not found"
elif [ ! -f "$(clang++ -print-runtime-dir)/libclang_rt.fuzzer-$(uname -m).a" ]; then
  missing="clang's libFuzzer runtime not found (Debian: libclang-rt-14-dev)"
fi
if [ -n "$missing" ]; then
  echo "fuzz.sh: $missing: libFuzzer needs clang and its runtime" \
       "(bash scripts/install-deps.sh clang libclang-rt-14-dev); not fuzzing"
  [ "$skip_without_clang" = 1 ] && exit 0
  exit 1
fi

# Run only when named: fuzz_run_file_checksummed probes libhdf5 itself, which still crashes on
# some crafted files whose checksums match (docs/fuzzing.md); fedbench cannot fix those.
opt_in=" fuzz_run_file_checksummed "
if [ ${#harnesses[@]} -eq 0 ]; then
  for source in tests/fuzz/fuzz_*.cpp; do
    name=$(basename "$source" .cpp)
    [[ $opt_in == *" $name "* ]] || harnesses+=("$name")
  done
fi
for name in "${harnesses[@]}"; do
  if [ ! -f "tests/fuzz/$name.cpp" ]; then
    echo "fuzz.sh: no harness tests/fuzz/$name.cpp" >&2; exit 2
  fi
done

bash scripts/clang-tree.sh "$build"
cmake --build "$build" -j "$(nproc)" --target "${harnesses[@]}"

# Scratch files of the harnesses: in memory when possible (the run-file harness writes one per
# execution).
scratch_tmp=${TMPDIR:-/tmp}
[ -d /dev/shm ] && [ -w /dev/shm ] && scratch_tmp=/dev/shm

status=0
summary=()
for name in "${harnesses[@]}"; do
  work=$build/fuzz-work/$name
  mkdir -p "$work/corpus" "$work/artifacts"
  rm -f "$work"/artifacts/*
  cp -n tests/fuzz/corpus/"$name"/* "$work/corpus/" 2>/dev/null || true
  options=(-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$work/artifacts/")
  if [ -n "$runs" ]; then options+=(-runs="$runs"); else options+=(-max_total_time="$seconds"); fi
  [ -f "tests/fuzz/$name.dict" ] && options+=(-dict="tests/fuzz/$name.dict")
  echo "== $name: $budget"
  rc=0
  # A smaller quarantine than ASan's 256 MB: long runs then stay well inside -rss_limit_mb.
  TMPDIR=$scratch_tmp UBSAN_OPTIONS=print_stacktrace=1 \
    ASAN_OPTIONS=quarantine_size_mb=64${ASAN_OPTIONS:+:$ASAN_OPTIONS} \
    LSAN_OPTIONS=suppressions=$root/tests/fuzz/lsan.supp:print_suppressions=0 \
    "$build/bin/$name" "${options[@]}" "$work/corpus" >"$work/log.txt" 2>&1 || rc=$?
  # Not `runs`: that is the --runs option, read again by the next harness.
  executed=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1 runs in \2 s/p' "$work/log.txt" | tail -n 1)
  found=$(find "$work/artifacts" -type f | head -n 1)
  if [ "$rc" != 0 ] || [ -n "$found" ]; then
    status=1
    summary+=("$name: FAILED (exit $rc) ${found:+input $found}")
    echo "-- $name failed (exit $rc); log $work/log.txt:"
    grep -E "ERROR|SUMMARY|==[0-9]+==|Test unit written|uncaught|runtime error" "$work/log.txt" | head -n 20 || true
    [ -n "$found" ] && echo "   reproduce: $build/bin/$name $found"
  else
    summary+=("$name: ${executed:-? runs}, corpus $(find "$work/corpus" -type f | wc -l) inputs")
  fi
done

echo "== fuzzing summary ($budget each)"
printf '  %s\n' "${summary[@]}"
exit $status
