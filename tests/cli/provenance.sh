#!/usr/bin/env bash
# No stale result served as done. The build-time fingerprints (scripts/code_fingerprints.cmake)
# on copies of the sources: a change to one solver file changes that solver's fingerprint
# only, a shared header of a solver family those of its solvers, shared numerical code the
# numerics one. Then, end to end: a user data file changed under a finished suite makes its run
# stale (plan says which file), --reuse-stale keeps it and the manifest says so, run reruns
# it; a run file recording other code is stale for its solver only (and never copied by
# --share-runs); check compares a stale
# reference all the same and says so; show prints the fingerprints and the data's SHA-256.
source "$(dirname "$0")/lib.bash"
export LC_ALL=C  # sort and join agree on the order

# ---- the fingerprint table, from copies of the sources
src=$scratch/src
mkdir -p "$src"
tar -cf - lib problems datasets | tar -xf - -C "$src"
table() {  # table NAME: the generated table of $src, one "key fingerprint" per line
  cmake -DSOURCE_DIR="$src" -DOUT="$scratch/$1.cpp" -DTOOLCHAIN="test" -P scripts/code_fingerprints.cmake
  sed -n 's/.*numerics_fingerprint() { return "\([0-9a-f]*\)".*/numerics \1/p; s/^ *{"\([^"]*\)", "\([0-9a-f]*\)"},$/\1 \2/p' \
    "$scratch/$1.cpp" | sort
}
changed() {  # changed A B: the keys whose fingerprint differs, space-separated
  join <(table_file "$1") <(table_file "$2") | awk '$2 != $3 {printf "%s ", $1}'
}
table_file() { cat "$scratch/$1.txt"; }
expect_changes() {  # expect_changes WHAT WANT: after an edit, exactly the keys WANT changed
  checks=$((checks + 1))
  table after >"$scratch/after.txt"
  local got
  got=$(changed base after)
  if [ "$got" != "$2" ]; then
    echo "FAIL: $1 changed [$got], want [$2]"; failures=$((failures + 1))
  fi
}
table base >"$scratch/base.txt"
checks=$((checks + 1))
[ "$(grep -c "^lib/solvers/" "$scratch/base.txt")" -ge 15 ] ||
  { echo "FAIL: the table lists too few solver files"; failures=$((failures + 1)); }

cp "$src/lib/solvers/minimax/sgda.cpp" "$scratch/keep"
echo "// an edit" >>"$src/lib/solvers/minimax/sgda.cpp"
expect_changes "an edit of sgda.cpp" "lib/solvers/minimax/sgda.cpp "
cp "$scratch/keep" "$src/lib/solvers/minimax/sgda.cpp"

cp "$src/lib/solvers/minimax/proxskip_fl.hpp" "$scratch/keep"
echo "// an edit" >>"$src/lib/solvers/minimax/proxskip_fl.hpp"
want=$(grep -l '"solvers/minimax/proxskip_fl.hpp"' "$src"/lib/solvers/minimax/*.cpp | sed "s|$src/||" | sort | tr '\n' ' ')
expect_changes "an edit of the ProxSkip family header" "$want"
cp "$scratch/keep" "$src/lib/solvers/minimax/proxskip_fl.hpp"

cp "$src/lib/engine/engine.cpp" "$scratch/keep"
echo "// an edit" >>"$src/lib/engine/engine.cpp"
expect_changes "an edit of the engine" "numerics "
cp "$scratch/keep" "$src/lib/engine/engine.cpp"

echo "// an edit" >>"$src/lib/suite/suite.cpp"  # file handling, not numerics
expect_changes "an edit of the suite reader" ""

# ---- a user data file changed under a finished suite
head -n 120 ../shared/datasets/libsvm/heart_scale >"$scratch/rows.txt"
cat >"$scratch/data.yaml" <<YAML
name: data
seeds: [1, 2]
rounds: 6
problems:
  - name: auc
    params: {source: libsvm, path: $scratch/rows.txt, clients: 3}
solvers:
  - name: sgda
    params: {step_size: 0.01}
  - name: local-sgda
    params: {step_size: 0.01}
YAML
results=$scratch/data-results
expect_ok "4 finished now" "$fedbench" run "$scratch/data.yaml" --results "$results" --jobs 2
expect_ok "4 done, 0 partial, 0 new;" "$fedbench" plan "$scratch/data.yaml" --results "$results"
sha_before=$(sha256sum "$scratch/rows.txt" | cut -d' ' -f1)
file=$results/$(awk -F'\t' 'NR == 2 {print $NF}' "$results/manifest.tsv")
expect_ok "^data: +$scratch/rows.txt \\([0-9]+ bytes, sha256 $sha_before\\)" "$fedbench" show "$file"
expect_ok "^provenance: current" "$fedbench" show "$file"
# The data in use is the file (as h5py reads the run's path parameter), not the registered
# name the unused `dataset` parameter keeps by default; a run on a registered set names it.
checks=$((checks + 1))
shown=$("$fedbench" show "$file")
stored_path=$("$python" -c 'import sys, h5py; print(h5py.File(sys.argv[1])["params/problem"].attrs["path"])' "$file")
if ! grep -qxF "dataset:  $stored_path (LIBSVM file, source=libsvm)" <<<"$shown" ||
   ! grep -qx " *dataset: heart  (not used: the data are the file above)" <<<"$shown"; then
  echo "FAIL: show names the dataset of a run on a user's file wrongly:"; grep dataset <<<"$shown"
  failures=$((failures + 1))
fi
"$fedbench" run --problem auc -p dataset=australian -p clients=2 --solver sgda -s step_size=0.01 --rounds 2 -q \
  -o "$scratch/registered.h5" >/dev/null
expect_ok "^dataset:  australian \(registered dataset\)$" "$fedbench" show "$scratch/registered.h5"

sed -i '1d' "$scratch/rows.txt"  # one row fewer
sha_after=$(sha256sum "$scratch/rows.txt" | cut -d' ' -f1)
expect_ok "^stale \\(4\\): data: data file $scratch/rows.txt changed \\(sha256 ${sha_before:0:12} -> ${sha_after:0:12}\\)" \
  "$fedbench" plan "$scratch/data.yaml" --results "$results"
expect_ok "keeping 4 stale runs" "$fedbench" run "$scratch/data.yaml" --results "$results" --reuse-stale
checks=$((checks + 1))
[ "$(grep -c $'\tstale: data: data file' "$results/manifest.tsv")" = 4 ] ||
  { echo "FAIL: the manifest does not mark the kept stale runs"; failures=$((failures + 1)); }
# Views over the kept stale runs say so: export on stderr, the report on its page, plan --json.
expect_ok "^fedbench: 4 of the runs shown are stale \\(e.g. [0-9a-f]{16}: data: data file $scratch/rows.txt changed" \
  "$fedbench" export "$results" --csv
checks=$((checks + 1))
FEDBENCH_PYTHON="$python" "$fedbench" report "$results" -o "$scratch/report" >/dev/null 2>&1
grep -q 'class="badge error">stale</span> 4 runs made by other code or from other data' "$scratch/report/index.html" ||
  { echo "FAIL: the report page does not say its runs are stale"; failures=$((failures + 1)); }
expect_ok '"state":"stale","why":"data: data file ' "$fedbench" plan "$scratch/data.yaml" --results "$results" --json
expect_ok "rerunning 4 stale runs" "$fedbench" run "$scratch/data.yaml" --results "$results"
expect_ok "4 done, 0 partial, 0 new;" "$fedbench" plan "$scratch/data.yaml" --results "$results"
checks=$((checks + 1))
[ "$(grep -c $'\tcurrent\t' "$results/manifest.tsv")" = 4 ] ||
  { echo "FAIL: the manifest does not mark the rerun runs current"; failures=$((failures + 1)); }
expect_ok "sha256 $sha_after" "$fedbench" show "$file"

# ---- a run file recording another build of one solver: stale for that solver's run only
victim=$results/$(awk -F'\t' '$7 == "local-sgda" {print $NF; exit}' "$results/manifest.tsv")
"$python" - "$victim" <<'PY'
import sys, h5py
with h5py.File(sys.argv[1], "r+") as f:
    f.attrs["code_solver"] = "0123456789abcdef"
PY
expect_ok "^stale \\(1\\): code: solver local-sgda changed \\(lib/solvers/minimax/local_sgda.cpp\\)" \
  "$fedbench" plan "$scratch/data.yaml" --results "$results"
expect_ok "3 done, 0 partial, 0 new, 1 stale \\(run reruns them" "$fedbench" plan "$scratch/data.yaml" --results "$results"
# --share-runs copies the current runs of another directory, never its stale one.
expect_ok "^fedbench: 3 finished runs of the same configuration and code copied from $results$" \
  "$fedbench" run "$scratch/data.yaml" --results "$scratch/shared" --share-runs "$results"
expect_ok "4 done, 0 partial, 0 new;" "$fedbench" plan "$scratch/data.yaml" --results "$scratch/shared"
expect_fail 2 "fedbench: --share-runs $scratch/none: not a results directory (no runs/ in it); name one a suite wrote" \
  "$fedbench" run "$scratch/data.yaml" --results "$scratch/shared2" --share-runs "$scratch/none"

# ---- check: a stale reference is compared all the same, and said to be stale
expect_ok "^updated 4 references" "$fedbench" check "$scratch/data.yaml" --reference "$scratch/ref" --update -q
"$python" - "$scratch/ref/runs" <<'PY'
import sys, os, h5py
for name in os.listdir(sys.argv[1]):
    with h5py.File(os.path.join(sys.argv[1], name), "r+") as f:
        f.attrs["code_numerics"] = "0123456789abcdef"
PY
expect_ok "^note: 4 references were made by other code or from other data than this build's \\(e.g. [0-9a-f]{16}: code: the shared numerical code or the compiler changed\\)" \
  "$fedbench" check "$scratch/data.yaml" --reference "$scratch/ref" -q
expect_ok "^4 passed, 0 failed" "$fedbench" check "$scratch/data.yaml" --reference "$scratch/ref" -q
finish
