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

finish() {
  echo "$((checks - failures)) passed, $failures failed"
  [ "$failures" = 0 ]
}
