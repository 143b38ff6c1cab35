# Shared helpers for the CLI tests (sourced, not run): expect_fail CODE PATTERN -- command...
set -u
fedbench=$1
scratch=$2
python=${3:-/usr/bin/python3}
rm -rf "$scratch" && mkdir -p "$scratch"
failures=0
checks=0

# check_failure CODE exact|like WANT cmd...: the command exits CODE with one stderr line equal
# to WANT (exact) or matching the regex WANT (like).
check_failure() {
  local code=$1 mode=$2 want=$3
  shift 3
  checks=$((checks + 1))
  local err rc matched
  err=$("$@" 2>&1 >/dev/null) && rc=0 || rc=$?
  if [ "$mode" = exact ]; then [ "$err" = "$want" ] && matched=1 || matched=0
  else [ "$(wc -l <<<"$err")" = 1 ] && grep -q -E -- "$want" <<<"$err" && matched=1 || matched=0; fi
  if [ "$rc" != "$code" ] || [ "$matched" != 1 ]; then
    echo "FAIL: $*"
    echo "  exit $rc (want $code)"
    echo "  got:  $err"
    echo "  want: $want"
    failures=$((failures + 1))
  fi
}
expect_fail() { local code=$1 want=$2; shift 2; check_failure "$code" exact "$want" "$@"; }  # exact stderr
expect_fail_like() { local code=$1 want=$2; shift 2; check_failure "$code" like "$want" "$@"; }  # regex

expect_ok() {  # expect_ok 'grep pattern' cmd...
  local pattern=$1
  shift
  checks=$((checks + 1))
  local out rc
  out=$("$@" 2>&1) && rc=0 || rc=$?
  if [ "$rc" != 0 ] || ! grep -q -E -- "$pattern" <<<"$out"; then
    echo "FAIL: $*"
    echo "  exit $rc; output does not match /$pattern/:"
    sed 's/^/  | /' <<<"$out" | head -n 20
    failures=$((failures + 1))
  fi
}

same_columns() {  # same_columns DIR_A DIR_B: every run file, every column but wall_time
  checks=$((checks + 1))
  if ! "$python" - "$1" "$2" <<'PY'
import os, re, sys, h5py, numpy as np
a_dir, b_dir = sys.argv[1] + "/runs", sys.argv[2] + "/runs"
runs = lambda d: sorted(n for n in os.listdir(d) if re.fullmatch(r"[0-9a-f]{16}\.h5", n))  # not backups
names = runs(a_dir)
if names != runs(b_dir) or not names:
    sys.exit(f"different run files in {a_dir} and {b_dir}")
for n in names:
    with h5py.File(f"{a_dir}/{n}") as a, h5py.File(f"{b_dir}/{n}") as b:
        if a.attrs["config"] != b.attrs["config"] or a.attrs["status"] != b.attrs["status"]:
            sys.exit(f"{n}: configuration or status differs")
        for c in a["trajectory"]:
            if c not in ("wall_time", "eval_time") and not np.array_equal(a["trajectory"][c][()], b["trajectory"][c][()], equal_nan=True):
                sys.exit(f"{n}: column {c} differs")
PY
  then failures=$((failures + 1)); echo "FAIL: runs in $1 and $2 differ"; fi
}

results_intact() {  # results_intact DIR: every final file reads whole, no .part left, and
  # manifest.tsv lists exactly the files under runs/ with their recorded status
  checks=$((checks + 1))
  if ! "$python" - "$1" <<'PY'
import csv, os, re, sys, h5py
d = sys.argv[1]
files = sorted(n[:-3] for n in os.listdir(d + "/runs") if re.fullmatch(r"[0-9a-f]{16}\.h5", n))
parts = [n for n in os.listdir(d + "/runs") if n.endswith(".part")]
if parts:
    sys.exit(f"partial files left: {parts}")
rows = {r["id"]: r for r in csv.DictReader(open(d + "/manifest.tsv"), delimiter="\t")}
if sorted(rows) != files:
    sys.exit(f"manifest lists {len(rows)} runs, runs/ holds {len(files)}")
for id in files:
    with h5py.File(f"{d}/runs/{id}.h5") as f:
        for c in f["trajectory"]:
            f["trajectory"][c][()]
        if f.attrs["status"] != rows[id]["status"] or f.attrs["status"] == "running":
            sys.exit(f"{id}: status {f.attrs['status']} vs manifest {rows[id]['status']}")
PY
  then failures=$((failures + 1)); echo "FAIL: results in $1 are not intact"; fi
}

# completes 'expected COMPREPLY, one per line' WORD...: bash completion of the words, in a fresh
# bash with the completion script and fedbench of the installation prefix $prefix.
completes() {
  local want=$1
  shift
  checks=$((checks + 1))
  local got
  got=$(PATH="$prefix/bin:$PATH" bash -c 'source "$1"; shift
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _fedbench; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$prefix/share/bash-completion/completions/fedbench" "$@" 2>&1)
  if [ "$got" != "$want" ]; then
    echo "FAIL: completion of '$*'"; echo "  got:  $(tr '\n' ' ' <<<"$got")"; echo "  want: $want"
    failures=$((failures + 1))
  fi
}

# copy_tree SRC DEST: what a clone of SRC would hold, plus files not yet committed (not ignored
# ones), into DEST; the data the tests read stays reachable as from SRC (../shared beside DEST's
# parent when DEST is SCRATCH/NAME, datasets/data). A build at DEST/build compiles through
# ccache with the commands of SRC/build (same relative paths): set CCACHE_BASEDIR=DEST.
copy_tree() {
  local src=$1 dest=$2
  mkdir -p "$dest"
  (cd "$src" && git ls-files -z --cached --others --exclude-standard |
    tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -xf - -C "$dest"
  [ -e "$src/../shared" ] && ln -sfn "$(cd "$src/../shared" && pwd)" "$(dirname "$dest")/shared"
  [ -e "$src/datasets/data" ] && ln -sfn "$src/datasets/data" "$dest/datasets/data"
  return 0
}

finish() {
  echo "$((checks - failures)) passed, $failures failed"
  [ "$failures" = 0 ]
}
