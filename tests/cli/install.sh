#!/usr/bin/env bash
# `cmake --install` of the build that made $1 (BUILD/bin/fedbench) into a scratch prefix: the
# installed binary runs from another directory, the man page renders, the bash completion
# completes subcommands, solver names and parameter keys, and the Python reader imports from
# share/fedbench/python.
source "$(dirname "$0")/lib.bash"
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$(dirname "$fedbench")/.." && pwd)
prefix=$scratch/prefix
elsewhere=$scratch/elsewhere
mkdir -p "$elsewhere"

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

if [ ! -f "$build/CMakeCache.txt" ]; then
  echo "FAIL: $build (two levels above $fedbench) is not a CMake build directory"
  exit 1
fi
cmake=$(sed -n 's/^CMAKE_COMMAND:INTERNAL=//p' "$build/CMakeCache.txt")
[ -x "$cmake" ] || cmake=cmake

checks=$((checks + 1))
if ! out=$("$cmake" --install "$build" --prefix "$prefix" 2>&1); then
  fail "cmake --install $build --prefix $prefix"; sed 's/^/  | /' <<<"$out" | tail -n 20
  finish; exit
fi

# Where everything goes.
for f in bin/fedbench share/bash-completion/completions/fedbench share/doc/fedbench/README.md \
         share/doc/fedbench/install.md; do
  checks=$((checks + 1))
  [ -f "$prefix/$f" ] || fail "$prefix/$f not installed"
done
for py in "$src"/scripts/*.py; do
  checks=$((checks + 1))
  [ -x "$prefix/share/fedbench/scripts/$(basename "$py")" ] ||
    fail "$prefix/share/fedbench/scripts/$(basename "$py") not installed (executable)"
done

# The installed binary, from another working directory.
installed=$prefix/bin/fedbench
expect_ok '^proxskip-gda-fl' "$installed" list solvers
expect_ok 'rel_error' bash -c 'cd "$1" && "$2" run --problem quadratic-game --solver gda \
  --rounds 5 -p clients=3 -p samples=4 -p dim=2 -q -o tiny.h5 && "$2" show tiny.h5' \
  _ "$elsewhere" "$installed"

# The man page (generated at build time when help2man was found).
if grep -q '^HELP2MAN_EXECUTABLE:FILEPATH=.*NOTFOUND' "$build/CMakeCache.txt" ||
   ! grep -q '^HELP2MAN_EXECUTABLE:FILEPATH=' "$build/CMakeCache.txt"; then
  echo "note: help2man was not found when $build was configured: man page check skipped"
else
  man1=$prefix/share/man/man1/fedbench.1
  checks=$((checks + 1))
  if [ ! -f "$man1" ]; then
    fail "$man1 not installed (build the fedbench_man target: cmake --build $build --target fedbench_man)"
  else
    if command -v man >/dev/null; then render=(env MANPAGER=cat MANWIDTH=100 man -l "$man1")
    else render=(groff -man -Tascii "$man1"); fi
    expect_ok '^SUBCOMMANDS' "${render[@]}"
    expect_ok '^ +fedbench run$' "${render[@]}"
    expect_ok '--solver-param' "${render[@]}"
  fi
fi

# Bash completion: COMPREPLY for the words given, in a fresh bash with the installed fedbench
# first on PATH.
completes() {  # completes 'expected COMPREPLY, one per line' WORD...
  local want=$1
  shift
  checks=$((checks + 1))
  local got
  got=$(PATH="$prefix/bin:$PATH" bash -c 'source "$1"; shift
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _fedbench; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$prefix/share/bash-completion/completions/fedbench" "$@" 2>&1)
  if [ "$got" != "$want" ]; then
    fail "completion of '$*'"; echo "  got:  $(tr '\n' ' ' <<<"$got")"; echo "  want: $want"
  fi
}
completes run fedbench ru
completes proxskip-gda-fl fedbench run --solver proxskip-g
completes quadratic-game fedbench run --problem quadratic-g
completes step_size= fedbench run --problem quadratic-game --solver proxskip-gda-fl -s step_s
completes --rounds fedbench run --rou
# Without a runnable fedbench the completion falls back to a list of its own: every subcommand.
checks=$((checks + 1))
fallback=$(bash -c 'source "$1"; _fedbench_bin=/nonexistent; _fedbench_subcommands; echo $REPLY' \
  _ "$prefix/share/bash-completion/completions/fedbench" | tr ' ' '\n' | sort | paste -sd' ')
actual=$("$prefix/bin/fedbench" --help | awk '/^Subcommands:[[:space:]]*$/ { s = 1; next }
  s && /^  [a-z]/ { print $1; next } s && !/^   / { s = 0 }' | sort | paste -sd' ')
if [ "$fallback" != "$actual" ]; then
  fail "the completion's fallback subcommands '$fallback' are not fedbench's '$actual'"
fi

# The trajectory reader as a module.
if [ -f "$src/scripts/fedbench_read.py" ]; then
  expect_ok '^ok$' bash -c 'cd "$1" && PYTHONPATH="$2" "$3" -c "import fedbench_read; print(\"ok\")"' \
    _ "$elsewhere" "$prefix/share/fedbench/python" "$python"
else
  echo "note: scripts/fedbench_read.py does not exist yet: reader import check skipped"
fi
finish
