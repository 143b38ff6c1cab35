# Shared helpers for the CLI tests (sourced, not run): expect_fail CODE PATTERN -- command...
set -u
fedbench=$1
scratch=$2
python=${3:-/usr/bin/python3}
rm -rf "$scratch" && mkdir -p "$scratch"
failures=0
checks=0

expect_fail() {  # expect_fail CODE 'exact stderr line' cmd...
  local code=$1 want=$2
  shift 2
  checks=$((checks + 1))
  local err rc
  err=$("$@" 2>&1 >/dev/null) && rc=0 || rc=$?
  if [ "$rc" != "$code" ] || [ "$err" != "$want" ] ; then
    echo "FAIL: $*"
    echo "  exit $rc (want $code)"
    echo "  got:  $err"
    echo "  want: $want"
    failures=$((failures + 1))
  fi
}

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
