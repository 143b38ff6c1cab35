#!/usr/bin/env bash
# Faults around suites and run files: a full disk and a read-only directory give one line and
# exit 1 with every file under a final name complete; corrupt or planted run files are
# detected (plan, export, select) and rerun, never trusted; two processes share one results
# directory without losing or duplicating a run; a suite file cannot write outside the
# working directory; a writer never deletes a .part it did not create.
source "$(dirname "$0")/lib.bash"
here=$(dirname "$0")
long=$here/suites/long.yaml

# Reference: the suite uninterrupted.
expect_ok "12 finished now" "$fedbench" run "$long" --results "$scratch/whole" --jobs 2

# Small file systems need mount (root here; CI runs as root). Without it these checks are
# skipped, loudly.
mounts=()
cleanup() { for m in "${mounts[@]}"; do umount "$m" 2>/dev/null; done; }
trap cleanup EXIT
mount_tmpfs() {  # mount_tmpfs DIR SIZE
  mkdir -p "$1" && mount -t tmpfs -o "size=$2" tmpfs "$1" 2>/dev/null && mounts+=("$1")
}

no_hdf5_noise() {  # no_hdf5_noise FILE: libhdf5's own error stack must not reach the user
  checks=$((checks + 1))
  if grep -q "HDF5-DIAG" "$1"; then echo "FAIL: HDF5 diagnostics printed"; failures=$((failures + 1)); fi
}

if mount_tmpfs "$scratch/full" 300k; then
  # Disk full in the middle of a suite (room for about five run files), two jobs.
  rc=0
  "$fedbench" run "$long" --results "$scratch/full/r" --jobs 2 -q 2>"$scratch/full.err" || rc=$?
  checks=$((checks + 1))
  if [ "$rc" != 1 ] || [ "$(wc -l <"$scratch/full.err")" != 1 ] ||
     ! grep -q "^fedbench: cannot .*No space left on device.*; finished runs are kept, rerun to resume$" "$scratch/full.err"; then
    echo "FAIL: disk full: exit $rc (want 1), stderr:"; head -n 5 "$scratch/full.err"; failures=$((failures + 1))
  fi
  no_hdf5_noise "$scratch/full.err"
  checks=$((checks + 1))
  if ls "$scratch/full/r/runs" | grep -q '\.part$'; then echo "FAIL: disk full left a .part"; failures=$((failures + 1)); fi
  for f in "$scratch"/full/r/runs/*.h5; do
    expect_ok "status" "$fedbench" show "$f"
  done
  # Single runs: HDF5 and CSV output on the full disk.
  for ext in h5 csv; do
    expect_fail_like 1 "^fedbench: cannot (create|write) .*/full/one\.$ext\.part: No space left on device$" \
      "$fedbench" run --problem quadratic-game --solver gda --rounds 20000 -q -o "$scratch/full/one.$ext"
    checks=$((checks + 1))
    if ls "$scratch/full" | grep -q "^one"; then echo "FAIL: a full disk left one.$ext*"; failures=$((failures + 1)); fi
  done
  # An experiment on the full disk: no verdict (its tuning is incomplete), the missing runs
  # named, exit 1; nothing that reads as a verdict is written.
  rc=0
  "$fedbench" reproduce zhang2024-fig7 --quick --no-figure -q -o "$scratch/full/fig7" \
    >"$scratch/full-fig7.out" 2>"$scratch/full-fig7.err" || rc=$?
  checks=$((checks + 1))
  if [ "$rc" != 1 ] || grep -q "hold" "$scratch/full-fig7.out" || [ -e "$scratch/full/fig7/verdicts.json" ] ||
     [ -e "$scratch/full/fig7/claims.txt" ] || [ "$(wc -l <"$scratch/full-fig7.err")" != 1 ] ||
     ! grep -qE "^fedbench: tuning: .*No space left on device.*; [0-9]+ of 60 runs are missing \([0-9a-f]{16}.*\), so no verdict; free space and rerun" "$scratch/full-fig7.err"; then
    echo "FAIL: reproduce on a full disk: exit $rc (want 1)"; cat "$scratch/full-fig7.out" "$scratch/full-fig7.err" | head -n 5
    failures=$((failures + 1))
  fi
  # check on the full disk: a write failure, not a missing reference; --update leaves no
  # temporary file in the reference directory.
  expect_fail_like 1 "No space left on device.*; nothing was compared or updated; free space and rerun check$" \
    "$fedbench" check results/suites/smoke.yaml --reference results/reference/smoke -q --results "$scratch/full/fresh"
  mkdir -p "$scratch/full-ref-src"
  "$fedbench" check results/suites/smoke.yaml --reference "$scratch/full/ref" -q --update --results "$scratch/full-ref-src" \
    >/dev/null 2>"$scratch/full-ref.err" && rc=0 || rc=$?
  checks=$((checks + 1))
  if [ "$rc" != 1 ] || ! grep -q "No space left on device" "$scratch/full-ref.err" ||
     find "$scratch/full/ref" -name '*.adopting' -o -name '*.part' | grep -q .; then
    echo "FAIL: check --update on a full disk: exit $rc (want 1), or a temporary file left:"
    head -n 3 "$scratch/full-ref.err"; find "$scratch/full/ref" | head; failures=$((failures + 1))
  fi
  # Room again: the rerun completes the suite with the same results as the uninterrupted one.
  mount -o remount,size=8m "$scratch/full"
  expect_ok "12 runs: .* finished now" "$fedbench" run "$long" --results "$scratch/full/r" --jobs 2
  same_columns "$scratch/full/r" "$scratch/whole"
  results_intact "$scratch/full/r"
else
  echo "SKIP: cannot mount a tmpfs here: disk-full checks not run"
fi

if mount_tmpfs "$scratch/ro" 1m; then
  mkdir -p "$scratch/ro/r/runs" && mount -o remount,ro "$scratch/ro"
  expect_fail_like 1 "^fedbench: cannot create .*/ro/r/runs/[0-9a-f]+\.lock: Read-only file system; finished runs are kept, rerun to resume$" \
    "$fedbench" run "$long" --results "$scratch/ro/r" -q
  expect_fail 1 "fedbench: cannot create $scratch/ro/one.h5.part: Read-only file system" \
    "$fedbench" run --problem quadratic-game --solver gda --rounds 5 -o "$scratch/ro/one.h5"
  expect_fail 1 "fedbench: cannot write $scratch/ro/one.json.part: Read-only file system" \
    "$fedbench" run --problem quadratic-game --solver gda --rounds 5 -o "$scratch/ro/one.json"
  # A results directory that does not exist yet, on the read-only disk: a refused write too.
  expect_fail 1 "fedbench: cannot create results directory $scratch/ro/new/runs: Read-only file system" \
    "$fedbench" run "$long" --results "$scratch/ro/new" -q
elif [ "$(id -u)" != 0 ]; then
  # Without root, a directory without write permission stands in (root would ignore it).
  echo "SKIP: cannot mount a tmpfs here: read-only checks not run (a write-protected directory instead)"
  mkdir -p "$scratch/locked" && chmod 555 "$scratch/locked"
  expect_fail 1 "fedbench: cannot create results directory $scratch/locked/new/runs: Permission denied" \
    "$fedbench" run "$long" --results "$scratch/locked/new" -q
  chmod 755 "$scratch/locked"
else
  echo "SKIP: cannot mount a tmpfs here: read-only checks not run"
fi

# Crafted run files whose checksums are right but which crash libhdf5 itself (or not, by
# luck of the heap): show gives exit 0 or one line and exit 2, never a crash.
crafted=$here/../fuzz/libhdf5-crashes
for f in "$crafted"/*.h5; do
  rc=0; "$fedbench" show "$f" >/dev/null 2>"$scratch/crafted.err" || rc=$?
  checks=$((checks + 1))
  if { [ "$rc" != 0 ] && [ "$rc" != 2 ]; } || [ "$(wc -l <"$scratch/crafted.err")" -gt 1 ]; then
    echo "FAIL: show $f: exit $rc"; cat "$scratch/crafted.err"; failures=$((failures + 1))
  fi
done
# (Under a sanitizer the screen reports the bad read and exits non-zero instead of faulting.)
expect_fail_like 2 "^fedbench: .*/out-of-bounds-global-heap-read.h5: reading it (crashed the HDF5 library \(signal 11: Segmentation fault\)|made the HDF5 library fail \(the screening process ended with code [0-9]+\)); the file is damaged or crafted$" \
  "$fedbench" show "$crafted/out-of-bounds-global-heap-read.h5"

# Corrupt files under final names: one cut short, one overwritten with noise, one planted
# that no suite wrote, one whose end was never written (status running), one planted that
# libhdf5 fails on or crashes in (by luck of the heap).
cp -r "$scratch/whole" "$scratch/bad"
files=("$scratch"/bad/runs/*.h5)
truncate -s 3000 "${files[0]}"
head -c 5000 /dev/urandom >"${files[1]}"
head -c 100 /dev/zero >"$scratch/bad/runs/0000000000000000.h5"
cp "$crafted/null-deref-attribute-table.h5" "$scratch/bad/runs/1111111111111111.h5"
"$python" - "${files[2]}" <<'PY'
import sys, h5py
with h5py.File(sys.argv[1], "r+") as f:
    f.attrs["status"] = "running"
PY
expect_ok "12 runs valid: 9 done, 0 partial, 0 new, 3 corrupt \(run again\)" \
  "$fedbench" plan "$long" --results "$scratch/bad"
# export and select skip a corrupt file, say so, and go on; files no suite wrote are out of view
# (counted), --all reads them too.
expect_ok "^fedbench: $scratch/bad: 2 run files are not in the runs of the suites last run here" \
  "$fedbench" export "$scratch/bad" --csv -o "$scratch/bad-scoped.csv"
"$fedbench" export "$scratch/bad" --all --csv -o "$scratch/bad.csv" 2>"$scratch/export.err"
checks=$((checks + 1))
if [ "$(grep -c '^fedbench: skipped: ' "$scratch/export.err")" != 5 ] ||
   [ "$(cut -d, -f1 "$scratch/bad.csv" | sort -u | grep -vc '^id$')" != 9 ]; then
  echo "FAIL: export over corrupt files:"; cat "$scratch/export.err"; failures=$((failures + 1))
fi
expect_ok "proxskip|local-sgda|gda" "$fedbench" select "$scratch/bad" --at rounds=100
# report's Python script (h5py: libhdf5 in the script's process) reads only copies that fedbench
# wrote from what its screen read, never a file from disk: with a crafted file that crashes
# libhdf5 planted too (the screen refuses it, or reads it whole by luck of its heap and copies
# it), the page is written, each refused file is named once by fedbench and counted on the
# page, the script finds nothing to skip, and no scratch copy is left behind.
# A killed report's scratch copies (a process id no process has) go; another host's stay.
cp "$crafted/out-of-bounds-global-heap-read.h5" "$scratch/bad/runs/2222222222222222.h5"
mkdir -p "$scratch/bad-report/.screened-runs-$(uname -n)-999999999/runs" \
  "$scratch/bad-report/.screened-runs-another-host-1"
checks=$((checks + 1))
refused=-1
if FEDBENCH_PYTHON="$python" "$fedbench" report "$scratch/bad" --all -o "$scratch/bad-report" \
     >"$scratch/report.out" 2>"$scratch/report.err"; then
  refused=$(grep -c '^fedbench: skipped: ' "$scratch/report.err")
fi
if [ "$refused" -lt 5 ] || grep -q 'fedbench_read: skipping' "$scratch/report.err" ||
   ! grep -q "$refused unreadable files skipped" "$scratch/bad-report/index.html" ||
   ls -d "$scratch/bad-report/.screened-runs-$(uname -n)-"* >/dev/null 2>&1 ||
   ! [ -d "$scratch/bad-report/.screened-runs-another-host-1" ]; then
  echo "FAIL: report over corrupt and crafted files ($refused refused):"
  cat "$scratch/report.out" "$scratch/report.err"; failures=$((failures + 1))
fi
rm "$scratch/bad/runs/2222222222222222.h5"
# The run: detected, set aside as .corrupt, rerun; the planted files are not the suite's and
# stay. One more under a run's name: another run's file (a crafted one that reads whole or
# crashes libhdf5, by luck of the heap): never trusted as that run.
cp "$crafted/out-of-bounds-global-heap-read.h5" "${files[3]}"
expect_ok "12 runs valid: 8 done, 0 partial, 0 new, 4 corrupt \(run again\)" \
  "$fedbench" plan "$long" --results "$scratch/bad"
"$fedbench" run "$long" --results "$scratch/bad" -q 2>"$scratch/bad.err"
checks=$((checks + 1))
if [ "$(grep -c 'not a complete run: .*; moved to .*\.corrupt, running it again$' "$scratch/bad.err")" != 4 ]; then
  echo "FAIL: corrupt files not reported on resume:"; cat "$scratch/bad.err"; failures=$((failures + 1))
fi
rm "$scratch"/bad/runs/{0000000000000000,1111111111111111}.h5 "$scratch"/bad/runs/*.corrupt
"$fedbench" run "$long" --results "$scratch/bad" -q 2>/dev/null  # manifest without the planted file
same_columns "$scratch/bad" "$scratch/whole"
results_intact "$scratch/bad"

# A run is its identity: backup copies under runs/ (names that are not run ids) are not runs and
# never enter the manifest, export or select; a run copied under another run's name, a byte
# changed in a run's stored configuration text (kept in HDF5's unchecksummed global heap) and a
# changed root seed are each found on resume, set aside and rerun.
cp -r "$scratch/whole" "$scratch/ident"
files=("$scratch"/ident/runs/*.h5)
cp "${files[0]}" "${files[0]%.h5}.backup.h5"
cp "${files[0]}" "$scratch/ident/runs/copy of a run.h5"
cp "${files[5]}" "${files[4]}"
"$python" - "${files[6]}" "${files[7]}" <<'PY'
import sys, h5py
data = bytearray(open(sys.argv[1], "rb").read())
at = data.index(b"participation: full")
data[at + len("participation: f")] ^= 0x01  # "full" -> "fTll": one bit, no checksum covers it
open(sys.argv[1], "wb").write(data)
with h5py.File(sys.argv[2], "r+") as f:
    f.attrs["seed"] = f.attrs["seed"] + 1
PY
expect_ok "12 runs valid: 9 done, 0 partial, 0 new, 3 corrupt \(run again\)" \
  "$fedbench" plan "$long" --results "$scratch/ident"
expect_ok "^2 files under runs/ are not runs of this suite \(the name is not a run id" \
  "$fedbench" plan "$long" --results "$scratch/ident"
expect_ok "^fedbench: $scratch/ident: 2 files under runs/ are not runs of this suite \(the name is not a run id" \
  "$fedbench" export "$scratch/ident" --all --csv -o "$scratch/ident.csv"
checks=$((checks + 1))
[ "$(cut -d, -f1 "$scratch/ident.csv" | sort -u | grep -vc '^id$')" = 9 ] ||
  { echo "FAIL: export counted files that are not the runs their names stand for"; failures=$((failures + 1)); }
"$fedbench" run "$long" --results "$scratch/ident" -q 2>"$scratch/ident.err"
checks=$((checks + 1))
if [ "$(grep -c 'not a run of this results directory: .*moved to .*\.corrupt, running it again$' "$scratch/ident.err")" != 3 ]; then
  echo "FAIL: copied or edited run files not found on resume:"; cat "$scratch/ident.err"; failures=$((failures + 1))
fi
rm "$scratch"/ident/runs/*.corrupt
same_columns "$scratch/ident" "$scratch/whole"
checks=$((checks + 1))
[ "$(tail -n +2 "$scratch/ident/manifest.tsv" | wc -l)" = 12 ] && ! grep -q 'backup\|copy of' "$scratch/ident/manifest.tsv" ||
  { echo "FAIL: the manifest lists files that are not runs"; failures=$((failures + 1)); }
checks=$((checks + 1))
[ "$("$fedbench" select "$scratch/ident" --at rounds=100 2>/dev/null | grep -v '^winners suite')" = \
  "$("$fedbench" select "$scratch/whole" --at rounds=100 2>/dev/null | grep -v '^winners suite')" ] ||
  { echo "FAIL: backup copies changed select's medians"; failures=$((failures + 1)); }

# Two processes on one results directory: each run written once, nothing lost.
"$fedbench" run "$long" --results "$scratch/shared" --jobs 2 >"$scratch/p1.out" 2>&1 &
p1=$!
"$fedbench" run "$long" --results "$scratch/shared" --jobs 2 >"$scratch/p2.out" 2>&1 &
p2=$!
wait $p1; rc1=$?
wait $p2; rc2=$?
checks=$((checks + 1))
n1=$(sed -n 's/.* \([0-9]*\) finished now.*/\1/p' "$scratch/p1.out")
n2=$(sed -n 's/.* \([0-9]*\) finished now.*/\1/p' "$scratch/p2.out")
if [ "$rc1" != 0 ] || [ "$rc2" != 0 ] || [ "$((n1 + n2))" != 12 ]; then
  echo "FAIL: two processes: exits $rc1 $rc2, runs $n1 + $n2 (want 12)"; failures=$((failures + 1))
fi
same_columns "$scratch/shared" "$scratch/whole"
results_intact "$scratch/shared"

# A .part that is not ours (here a directory in the way) is reported and left alone.
mkdir -p "$scratch/theirs/one.h5.part"
expect_fail_like 1 "^fedbench: cannot create $scratch/theirs/one.h5.part" \
  "$fedbench" run --problem quadratic-game --solver gda --rounds 5 -o "$scratch/theirs/one.h5"
checks=$((checks + 1))
[ -d "$scratch/theirs/one.h5.part" ] || { echo "FAIL: another writer's .part was deleted"; failures=$((failures + 1)); }

# Links planted under the names fedbench writes (a shared results directory): each write is
# refused with one line and the file the link points to keeps its bytes.
echo "precious" >"$scratch/precious"
planted() {  # planted WHAT LINK WANT_EXIT cmd...: LINK -> precious; the command refuses it
  local what=$1 link=$2 want=$3
  shift 3
  ln -sfn "$scratch/precious" "$link"
  expect_fail_like "$want" "^fedbench: refusing to write through a symbolic link: $link" "$@"
  checks=$((checks + 1))
  if [ "$(cat "$scratch/precious")" != precious ] || [ ! -L "$link" ]; then
    echo "FAIL: $what: the planted link was written through or removed"; failures=$((failures + 1))
  fi
  rm -f "$link"
}
cp -r "$scratch/whole" "$scratch/linked"
victim=$(basename "$(ls "$scratch"/linked/runs/*.h5 | head -n 1)" .h5)
rm "$scratch/linked/runs/$victim.h5"
planted "a run's .part" "$scratch/linked/runs/$victim.h5.part" 1 \
  "$fedbench" run "$long" --results "$scratch/linked" -q --jobs 1
checks=$((checks + 1))
[ -e "$scratch/linked/runs/$victim.h5" ] && { echo "FAIL: a run was published from a planted .part"; failures=$((failures + 1)); }
planted "a run's lock" "$scratch/linked/runs/$victim.lock" 1 \
  "$fedbench" run "$long" --results "$scratch/linked" -q --jobs 1
"$fedbench" run "$long" --results "$scratch/linked" -q  # resumes: the run is back
planted "the manifest's temporary" "$scratch/linked/manifest.tsv.tmp" 1 \
  "$fedbench" run "$long" --results "$scratch/linked" -q
planted "an export's .part" "$scratch/out.csv.part" 1 \
  "$fedbench" export "$scratch/linked" --csv -o "$scratch/out.csv"
cp -r "$scratch/whole" "$scratch/refs"
planted "a reference's temporary" "$scratch/refs/runs/$victim.h5.adopting" 1 \
  "$fedbench" check "$long" --reference "$scratch/refs" --update -q
# The reference's runs/ a link to a directory elsewhere that holds a file fedbench did not
# write: --update --prune refuses the link; nothing there is written or deleted.
mkdir -p "$scratch/refs-target"
echo "theirs" >"$scratch/refs-target/ffffffffffffffff.h5"
mv "$scratch/refs/runs" "$scratch/refs/runs.real"
ln -s "$scratch/refs-target" "$scratch/refs/runs"
expect_fail_like 1 "^fedbench: refusing to write through a symbolic link: $scratch/refs/runs$" \
  "$fedbench" check "$long" --reference "$scratch/refs" --update --prune -q
checks=$((checks + 1))
if [ "$(ls -A "$scratch/refs-target")" != ffffffffffffffff.h5 ] || [ "$(cat "$scratch/refs-target/ffffffffffffffff.h5")" != theirs ]; then
  echo "FAIL: check --update --prune wrote or deleted through a linked runs/: $(ls "$scratch/refs-target")"; failures=$((failures + 1))
fi
rm "$scratch/refs/runs"
mv "$scratch/refs/runs.real" "$scratch/refs/runs"
# runs/ itself swapped for a link to a directory elsewhere: nothing is written there.
mkdir -p "$scratch/runs-target"
mv "$scratch/linked/runs" "$scratch/linked/runs.real"
ln -s "$scratch/runs-target" "$scratch/linked/runs"
expect_fail_like 1 "^fedbench: refusing to write through a symbolic link: $scratch/linked/runs$" \
  "$fedbench" run "$long" --results "$scratch/linked" -q --jobs 1
checks=$((checks + 1))
[ -z "$(ls -A "$scratch/runs-target")" ] || { echo "FAIL: a run wrote through a linked runs/: $(ls "$scratch/runs-target")"; failures=$((failures + 1)); }
rm "$scratch/linked/runs"
mv "$scratch/linked/runs.real" "$scratch/linked/runs"
# reproduce's stage directories (tuning/, report/, variants/NAME/) each planted as a link to a
# directory elsewhere: refused with one line, nothing written there.
mkdir -p "$scratch/experiments" "$scratch/stage-target"
cat >"$scratch/experiments/linked.yaml" <<YAML
name: linked
title: "stage directories"
reference: "none"
reproduces: "stage directories made through the output's handle"
suite: $PWD/results/suites/zhang2024-fig1a.yaml
report_seeds: [3, 4]
quick: {rounds: 5, report_seeds: [3]}
claims:
  - text: "Local GDA is better than ProxSkip-GDA-FL"
    origin: fedbench
    better: {solver: local-gda, than: proxskip-gda-fl, metric: rel_error, at: 5}
variants:
  - name: again
    explains: "Local GDA is better than ProxSkip-GDA-FL"
    suite: $PWD/results/suites/zhang2024-fig1a.yaml
    claims:
      - text: "Local GDA is better than ProxSkip-GDA-FL"
        better: {solver: local-gda, than: proxskip-gda-fl, metric: rel_error, at: 5}
YAML
for stage in tuning report variants/again; do
  rm -rf "$scratch/staged"
  mkdir -p "$(dirname "$scratch/staged/$stage")"
  ln -s "$scratch/stage-target" "$scratch/staged/$stage"
  expect_fail_like 1 "^fedbench: refusing to write through a symbolic link: $scratch/staged/$stage$" \
    env FEDBENCH_EXPERIMENTS="$scratch/experiments" "$fedbench" reproduce linked --quick -q --no-figure -o "$scratch/staged"
  checks=$((checks + 1))
  [ -z "$(ls -A "$scratch/stage-target")" ] || { echo "FAIL: reproduce wrote through a linked $stage/: $(ls "$scratch/stage-target")"; failures=$((failures + 1)); }
done
# The directories fedbench names itself below the working directory (a suite's default
# results/NAME, reproduce's results/reproduce/NAME) are not followed out of it through a link.
mkdir -p "$scratch/cwd/results/reproduce"
ln -s "$scratch/stage-target" "$scratch/cwd/results/long"
ln -s "$scratch/stage-target" "$scratch/cwd/results/reproduce/zhang2024-fig7-quick"
long_absolute=$(cd "$(dirname "$long")" && pwd)/$(basename "$long")
pushd "$scratch/cwd" >/dev/null
expect_fail_like 1 "^fedbench: refusing to write through a symbolic link: results/long; a suite file's results directory stays below the working directory \(pass --results DIR to write elsewhere\)$" \
  "$fedbench" run "$long_absolute" -q --jobs 1
expect_fail_like 1 "^fedbench: refusing to write through a symbolic link: results/reproduce/zhang2024-fig7-quick; reproduce's default output stays below the working directory \(pass -o DIR to write elsewhere\)$" \
  "$fedbench" reproduce zhang2024-fig7 --quick -q --no-figure
popd >/dev/null
checks=$((checks + 1))
[ -z "$(ls -A "$scratch/stage-target")" ] || { echo "FAIL: a default results directory was followed through a link: $(ls "$scratch/stage-target")"; failures=$((failures + 1)); }
# The results directory and its runs/ swapped for links while a suite runs: the suite goes on
# writing in the directories it opened when it began, never into the links' targets.
mkdir -p "$scratch/swap-root-target" "$scratch/swap-runs-target"
"$fedbench" run "$long" --results "$scratch/swapped" --jobs 1 -q &
swap_pid=$!
for _ in $(seq 1 300); do compgen -G "$scratch/swapped/runs/*.h5" >/dev/null && break; sleep 0.1; done
mv "$scratch/swapped/runs" "$scratch/swapped/runs.real"
ln -s "$scratch/swap-runs-target" "$scratch/swapped/runs"
mv "$scratch/swapped" "$scratch/swapped.real"
ln -s "$scratch/swap-root-target" "$scratch/swapped"
wait "$swap_pid"
swap_rc=$?
checks=$((checks + 1))
outside=$(find "$scratch/swap-root-target" "$scratch/swap-runs-target" -mindepth 1)
[ -z "$outside" ] || { echo "FAIL: a suite wrote through a directory swapped for a link mid-run: $outside"; failures=$((failures + 1)); }
checks=$((checks + 1))
[ "$swap_rc" = 0 ] && [ "$(ls "$scratch"/swapped.real/runs.real/*.h5 | wc -l)" = 12 ] && [ -f "$scratch/swapped.real/suite.tsv" ] ||
  { echo "FAIL: the swapped suite did not finish where it began (exit $swap_rc)"; failures=$((failures + 1)); }
# An output that is a link is refused before any work, never replaced or written through: the
# report's index.html.
mkdir -p "$scratch/linked-report"
planted "the report's index.html" "$scratch/linked-report/index.html" 1 \
  env FEDBENCH_PYTHON="$python" "$fedbench" report "$scratch/linked" -o "$scratch/linked-report"
# fedbench's own directories below a results directory are never followed: a report/ that is
# a link to a directory elsewhere is refused and nothing is written there.
mkdir -p "$scratch/elsewhere"
ln -sfn "$scratch/elsewhere" "$scratch/linked/report"
expect_fail_like 1 "^fedbench: refusing to write through a symbolic link: $scratch/linked/report$" \
  env FEDBENCH_PYTHON="$python" "$fedbench" report "$scratch/linked"
checks=$((checks + 1))
[ -z "$(ls -A "$scratch/elsewhere")" ] || { echo "FAIL: report wrote through a linked report/: $(ls -A "$scratch/elsewhere")"; failures=$((failures + 1)); }
rm "$scratch/linked/report"
# --trace-iterates: a link at the trace path (to a file, or dangling) is refused; the file keeps
# its bytes and the dangling target is not created.
planted "a trace path" "$scratch/trace.txt" 1 \
  "$fedbench" run --problem two-client-game --solver gda -s step_size=0.1 --rounds 3 -q --trace-iterates "$scratch/trace.txt"
ln -sfn "$scratch/elsewhere/created" "$scratch/trace.txt"
expect_fail_like 1 "^fedbench: refusing to write through a symbolic link: $scratch/trace.txt$" \
  "$fedbench" run --problem two-client-game --solver gda -s step_size=0.1 --rounds 3 -q --trace-iterates "$scratch/trace.txt"
checks=$((checks + 1))
[ ! -e "$scratch/elsewhere/created" ] || { echo "FAIL: a dangling trace link created its target"; failures=$((failures + 1)); }
rm -f "$scratch/trace.txt"
# An output that exists and is not a regular file is refused before any work, never replaced: a
# FIFO standing in for a device (a test never touches the real /dev nodes), a link, a directory.
device_like() {  # device_like TARGET cmd...: TARGET a FIFO; the command refuses it and leaves it
  local target=$1
  shift
  mkfifo "$target"
  expect_fail 2 "fedbench: cannot write $target: it is not a regular file (a device, FIFO or socket); name a regular file" "$@"
  checks=$((checks + 1))
  [ -p "$target" ] || { echo "FAIL: $* replaced a FIFO"; failures=$((failures + 1)); }
  rm -f "$target"
}
device_like "$scratch/device.h5" "$fedbench" instance two-client-game -o "$scratch/device.h5"
device_like "$scratch/device.h5" "$fedbench" run --problem two-client-game --solver gda -q -o "$scratch/device.h5"
device_like "$scratch/device.csv" "$fedbench" export "$scratch/whole" --csv -o "$scratch/device.csv"
device_like "$scratch/device.yaml" "$fedbench" select "$scratch/whole" --metric rel_error --at rounds=8 -o "$scratch/device.yaml"
planted "an instance file" "$scratch/instance.h5" 1 "$fedbench" instance two-client-game -o "$scratch/instance.h5"
planted "a run's output" "$scratch/one-run.csv" 1 "$fedbench" run --problem two-client-game --solver gda -q -o "$scratch/one-run.csv"
planted "select's winners" "$scratch/winners.yaml" 1 "$fedbench" select "$scratch/whole" --metric rel_error --at rounds=8 -o "$scratch/winners.yaml"
mkdir -p "$scratch/a-directory.h5"
expect_fail 2 "fedbench: cannot write $scratch/a-directory.h5: it is a directory; name a file" \
  "$fedbench" instance two-client-game -o "$scratch/a-directory.h5"
# prune: with runs/ a link to a directory holding foreign .h5 files, nothing is deleted there;
# a link named like a run inside runs/ is left alone, and so is what it points to.
cp -r "$scratch/whole" "$scratch/pruned"
mkdir -p "$scratch/foreign"
cp "$scratch"/whole/runs/*.h5 "$scratch/foreign/"
printf 'suite\tid\tproblem\tsolver\tseed\n' >"$scratch/pruned/suite.tsv"  # no run is in the suite now
mv "$scratch/pruned/runs" "$scratch/pruned/runs.real"
ln -s "$scratch/foreign" "$scratch/pruned/runs"
expect_fail_like 1 "^fedbench: refusing to write through a symbolic link: $scratch/pruned/runs$" \
  "$fedbench" prune "$scratch/pruned"
checks=$((checks + 1))
[ "$(ls "$scratch/foreign" | wc -l)" = "$(ls "$scratch"/whole/runs/*.h5 | wc -l)" ] ||
  { echo "FAIL: prune deleted through a linked runs/"; failures=$((failures + 1)); }
rm "$scratch/pruned/runs"
mv "$scratch/pruned/runs.real" "$scratch/pruned/runs"
one=$(basename "$(ls "$scratch"/pruned/runs/*.h5 | head -n 1)")
mv "$scratch/pruned/runs/$one" "$scratch/foreign-one.h5"
ln -s "$scratch/foreign-one.h5" "$scratch/pruned/runs/$one"
expect_ok "^left alone $scratch/pruned/runs/$one \(not a regular file: a link or another kind of file\)$" \
  "$fedbench" prune "$scratch/pruned"
checks=$((checks + 1))
[ -L "$scratch/pruned/runs/$one" ] && [ -f "$scratch/foreign-one.h5" ] && [ -z "$(ls "$scratch"/pruned/runs/*.h5 2>/dev/null | grep -v "$one")" ] ||
  { echo "FAIL: prune followed a link or left its own runs"; failures=$((failures + 1)); }
# A regular file named like a run that the manifest does not list is not fedbench's: left alone.
cp "$scratch/foreign-one.h5" "$scratch/pruned/runs/0123456789abcdef.h5"
expect_ok "^left alone $scratch/pruned/runs/0123456789abcdef.h5 \(not a run the manifest lists" \
  "$fedbench" prune "$scratch/pruned"
checks=$((checks + 1))
[ -f "$scratch/pruned/runs/0123456789abcdef.h5" ] || { echo "FAIL: prune deleted a file the manifest does not list"; failures=$((failures + 1)); }

# The screen tells slow from broken: while it reads a large valid file it sends heartbeats with
# the bytes read so far (growing), then the contents; the parent's quiet window restarts on each.
"$fedbench" run --problem quadratic-game -p clients=2 -p samples=2 -p dim=2 --solver gda \
  -s step_size=0.01 --rounds 300000 -o "$scratch/large.h5" -q
checks=$((checks + 1))
if ! "$python" - "$fedbench" "$scratch/large.h5" <<'PY'
import struct, subprocess, sys
screen = subprocess.Popen([sys.argv[1], "__screen-run-files"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
screen.stdin.write((sys.argv[2] + "\n").encode()); screen.stdin.flush()
beats = []
while True:
    kind, size = struct.unpack("<cQ", screen.stdout.read(9))
    if kind != b"\x06":
        break
    beats.append(size)
payload = screen.stdout.read(size)
screen.stdin.close(); screen.wait()
assert kind == b"o" and len(payload) == size, (kind, size)
assert beats and beats == sorted(beats) and beats[-1] > 0, beats
print(f"{len(beats)} heartbeats, {beats[-1]} bytes read", file=sys.stderr)
PY
then
  echo "FAIL: the screen sent no growing heartbeats while reading a large file"; failures=$((failures + 1))
fi

# Non-regular files (a FIFO as a run file, a device as a data file) are refused at once, never
# read until a timeout (each command runs under `timeout 20`: a hang fails the check).
mkfifo "$scratch/fifo.h5"
expect_fail 2 "fedbench: $scratch/fifo.h5: not a regular file (a FIFO, device or socket); a run file is a regular file" \
  timeout 20 "$fedbench" show "$scratch/fifo.h5"
expect_fail 2 "fedbench: cannot read dataset /dev/zero: not a regular file (a FIFO, device or socket); give a file" \
  timeout 20 "$fedbench" run --problem auc -p source=libsvm -p path=/dev/zero --solver gda --rounds 2
# A dataset of a run file replaced by an HDF5 external link to a FIFO (or a soft link): refused
# at once, never opened (the external link class is unregistered before any file is read).
"$fedbench" run --problem two-client-game --solver gda -s step_size=0.1 --rounds 5 -q -o "$scratch/elink.h5"
mkfifo "$scratch/elink-fifo"
"$python" - "$scratch/elink.h5" "$scratch/elink-fifo" <<'PY'
import sys, h5py
with h5py.File(sys.argv[1], "a") as f:
    del f["trajectory/rel_error"]
    f["trajectory/rel_error"] = h5py.ExternalLink(sys.argv[2], "/x")
PY
expect_fail 2 "fedbench: $scratch/elink.h5:/trajectory/rel_error is a link (soft or to another file), which fedbench never writes" \
  timeout -s KILL 20 "$fedbench" show "$scratch/elink.h5"
# Metadata cannot steer: a file claiming rel_error is better high, or whose rounds go back, is
# corrupt (not scored); in a results directory select leaves it out with that reason.
"$fedbench" run --problem two-client-game --solver gda -s step_size=0.1 --rounds 5 -q -o "$scratch/steer.h5"
cp "$scratch/steer.h5" "$scratch/steer-rounds.h5"
"$python" - "$scratch/steer.h5" "$scratch/steer-rounds.h5" <<'PY'
import sys, h5py
with h5py.File(sys.argv[1], "a") as f:
    f["trajectory/rel_error"].attrs["direction"] = "max"
with h5py.File(sys.argv[2], "a") as f:
    r = f["trajectory/round"][()]
    r[2] = r[1]
    f["trajectory/round"][...] = r
PY
expect_fail 2 "fedbench: $scratch/steer.h5: corrupt: metric rel_error records direction 'max'; fedbench's rel_error is 'min' (lower is better)" \
  "$fedbench" show "$scratch/steer.h5"
expect_fail 2 "fedbench: $scratch/steer-rounds.h5: corrupt: /trajectory/round goes from 1 to 1 at row 2; rounds only increase" \
  "$fedbench" show "$scratch/steer-rounds.h5"
# Files whose shape no run has: a column listed twice, 20,000 parameters, a 60,000-character
# parameter name. Each is corrupt with its reason; `report` leaves it out and draws its page.
for shape in twice many long wide; do cp "$scratch/steer.h5" "$scratch/shape-$shape.h5"; done
"$python" - "$scratch" <<'PY'
import sys, h5py
d = sys.argv[1]
with h5py.File(d + "/shape-twice.h5", "a") as f:
    f["trajectory/rel_error"].attrs["direction"] = "min"
    cols = f["trajectory"].attrs["columns"]
    f["trajectory"].attrs["columns"] = (cols.decode() if isinstance(cols, bytes) else cols) + ",rel_error"
with h5py.File(d + "/shape-many.h5", "a") as f:
    f["trajectory/rel_error"].attrs["direction"] = "min"
    for k in range(20000):
        f["params/solver"].attrs[f"p{k}"] = "1"
with h5py.File(d + "/shape-long.h5", "a") as f:
    f["trajectory/rel_error"].attrs["direction"] = "min"
    f["params/solver"].attrs["x" * 60000] = "1"
with h5py.File(d + "/shape-wide.h5", "a", libver="latest") as f:  # a 4 MB column list
    f["trajectory/rel_error"].attrs["direction"] = "min"
    f["trajectory"].attrs["columns"] = ",".join(["round"] * 700000)
PY
expect_fail 2 "fedbench: $scratch/shape-twice.h5: corrupt: /trajectory lists column rel_error twice" \
  "$fedbench" show "$scratch/shape-twice.h5"
expect_fail 2 "fedbench: $scratch/shape-many.h5: corrupt: /params/solver holds 20003 parameters; a run has at most 1000" \
  "$fedbench" show "$scratch/shape-many.h5"
expect_fail 2 "fedbench: $scratch/shape-long.h5: corrupt: /params/solver has a parameter name of 60000 characters; names have at most 128" \
  "$fedbench" show "$scratch/shape-long.h5"
expect_fail 2 "fedbench: $scratch/shape-wide.h5: corrupt: /trajectory lists 700000 columns; a run has at most 1000" \
  "$fedbench" show "$scratch/shape-wide.h5"
cp -r "$scratch/whole" "$scratch/shaped"
cp "$scratch/shape-many.h5" "$(ls "$scratch"/shaped/runs/*.h5 | head -n 1)"
expect_ok "^report: .*index.html" "$fedbench" report "$scratch/shaped" -o "$scratch/shaped-page"
cp -r "$scratch/whole" "$scratch/steered"
victim=$(ls "$scratch"/steered/runs/*.h5 | head -n 1)
"$python" - "$victim" <<'PY'
import sys, h5py
with h5py.File(sys.argv[1], "a") as f:
    f["trajectory/rel_error"].attrs["direction"] = "max"
PY
expect_ok "corrupt: metric rel_error records direction 'max'" "$fedbench" select "$scratch/steered" --at rounds=100
cp -r "$scratch/whole" "$scratch/fifo-dir"
fifo_run=$(ls "$scratch"/fifo-dir/runs/*.h5 | head -n 1)
rm "$fifo_run" && mkfifo "$fifo_run"
expect_ok "11 done, 0 partial, 0 new, 1 corrupt" timeout 20 "$fedbench" plan "$long" --results "$scratch/fifo-dir"

# suite.tsv planted as a FIFO or as a link to /dev/zero: read only as a regular file, so each
# reader says so in one line (exit 2) at once, never hangs or fills memory.
cp -r "$scratch/whole" "$scratch/planted-tsv"
mv "$scratch/planted-tsv/suite.tsv" "$scratch/planted-tsv.tsv"
for plant in fifo zero; do
  if [ "$plant" = fifo ]; then mkfifo "$scratch/planted-tsv/suite.tsv"; else ln -s /dev/zero "$scratch/planted-tsv/suite.tsv"; fi
  want="fedbench: $scratch/planted-tsv/suite.tsv is not a regular file (a link, FIFO or device): not one fedbench wrote; delete it (the next run of the suite writes it again)"
  expect_fail 2 "$want" timeout -s KILL 20 "$fedbench" select "$scratch/planted-tsv" --at rounds=100
  expect_fail 2 "$want" timeout -s KILL 20 "$fedbench" export "$scratch/planted-tsv" --csv -o "$scratch/planted.csv"
  expect_fail 2 "$want" timeout -s KILL 20 "$fedbench" prune "$scratch/planted-tsv"
  rm "$scratch/planted-tsv/suite.tsv"
done
mv "$scratch/planted-tsv.tsv" "$scratch/planted-tsv/suite.tsv"

# A suite file writes below the working directory only; --results may point anywhere.
printf 'name: outside\nresults: %s\nproblems: [{name: quadratic-game}]\nsolvers: [{name: gda}]\n' \
  "$scratch/elsewhere" >"$scratch/outside.yaml"
expect_fail 2 "fedbench: $scratch/outside.yaml:2: results: '$scratch/elsewhere' is outside the working directory; a suite file may only name a directory below it (pass --results DIR to write elsewhere)" \
  "$fedbench" run "$scratch/outside.yaml"
printf 'name: up\nresults: ../up\nproblems: [{name: quadratic-game}]\nsolvers: [{name: gda}]\n' >"$scratch/up.yaml"
expect_fail_like 2 "up.yaml:2: results: '../up' is outside the working directory" "$fedbench" plan "$scratch/up.yaml"
expect_ok "1 finished now" "$fedbench" run "$scratch/outside.yaml" --results "$scratch/elsewhere"
checks=$((checks + 1))
[ -e ../up ] && { echo "FAIL: a suite wrote ../up"; failures=$((failures + 1)); }
finish
