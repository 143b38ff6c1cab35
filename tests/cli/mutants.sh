#!/usr/bin/env bash
# scripts/mutants.py judged on a toy CMake project (a second of building, not fedbench's):
# a mutant its test catches is killed and named by the failing test, a mutant listed as
# equivalent that survives counts as equivalent, the score counts neither the equivalent nor
# fails on it; an unlisted survivor fails the score (exit 1); a `find` that is not in the file
# is refused before anything is built (exit 2, the mutant named); the toy's file
# is left as it was.
source "$(dirname "$0")/lib.bash"
toy=$scratch/toy
mkdir -p "$toy"
cat >"$toy/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.20)
project(toy CXX)
enable_testing()
add_executable(check_sum check_sum.cpp)
add_test(NAME toy.sum COMMAND check_sum)
set_tests_properties(toy.sum PROPERTIES LABELS check)
CM
cat >"$toy/check_sum.cpp" <<'CPP'
// sum of 1..n, twice; the test checks sum only.
int sum(int n) { int s = 0; for (int k = 1; k <= n; ++k) s += k; return s; }
int twice(int a) { return a + a; }
int main() { return sum(4) == 10 ? 0 : 1; }
CPP
cp "$toy/check_sum.cpp" "$scratch/original.cpp"
cat >"$scratch/list.yaml" <<'YAML'
version: 1
mutants:
  - id: off-by-one
    file: check_sum.cpp
    operator: off-by-one
    find: "k <= n"
    replace: "k < n"
    what: the last term left out
  - id: commuted
    file: check_sum.cpp
    operator: factor
    find: "a + a"
    replace: "2 * a"
    what: the same value written differently
    equivalent: "2 a and a + a are the same integer"
YAML
mutants() { "$python" scripts/mutants.py --source "$toy" --build "$toy/build" --jobs 1 --list "$@"; }
expect_ok "^\\[1/2\\] off-by-one: killed by toy.sum" mutants "$scratch/list.yaml"
expect_ok "^\\[2/2\\] commuted: equivalent " mutants "$scratch/list.yaml"
expect_ok "^mutation score: 1 of 1 non-equivalent mutants killed \\(100.0%\\); 1 equivalent, 0 survived$" \
  mutants "$scratch/list.yaml" --markdown "$scratch/table.md"
checks=$((checks + 1))
grep -q '^| commuted | `check_sum.cpp` | factor | the same value written differently | equivalent: 2 a and a + a' \
  "$scratch/table.md" || { echo "FAIL: the Markdown table lacks the equivalent mutant's row"; failures=$((failures + 1)); }
checks=$((checks + 1))
cmp -s "$toy/check_sum.cpp" "$scratch/original.cpp" || { echo "FAIL: the mutated file was not restored"; failures=$((failures + 1)); }

# Without its reason the same mutant is a survivor, and the score fails.
sed '/equivalent:/d' "$scratch/list.yaml" >"$scratch/unlisted.yaml"
checks=$((checks + 1))
out=$(mutants "$scratch/unlisted.yaml" 2>&1) && rc=0 || rc=$?
[ "$rc" = 1 ] && grep -q "1 survived (commuted)" <<<"$out" ||
  { echo "FAIL: an unlisted survivor must fail the score (exit $rc)"; sed 's/^/  | /' <<<"$out" | tail -5; failures=$((failures + 1)); }

# A `find` that is not in the file: refused before building, naming the mutant.
sed 's/k <= n/k <= m/' "$scratch/list.yaml" >"$scratch/wrong.yaml"
expect_fail 2 "mutants.py: off-by-one: occurrence 1 of its \`find\` text is not in check_sum.cpp; fix the list" \
  mutants "$scratch/wrong.yaml"

finish
