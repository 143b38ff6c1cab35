#!/usr/bin/env bash
# The demo of the README: the quadratic game of Zhang et al. (2024), eq. (5), with the solvers
# of their Fig. 1 (and distributed GDA) at their theoretical step sizes, deterministic (Fig. 1a)
# and stochastic (Fig. 1b), 400 communication rounds; then the bilevel hyperparameter problem
# of Zhang et al. (2025), Section 5.1, on a9a with every bilevel solver (one seed, 1000 rounds;
# the full experiment is results/suites/zhang2025-a9a.yaml); trajectories to HDF5, plots to PNG.
set -euo pipefail
fedbench=${1:-build/bin/fedbench}
out=${2:-results/demo}
python=${3:-/usr/bin/python3}
rounds=400
mkdir -p "$out"

run() {  # run NAME SOLVER [extra args...]
  local name=$1 solver=$2
  shift 2
  echo "== $solver ($name)"
  "$fedbench" run --problem quadratic-game --solver "$solver" --rounds "$rounds" --seed 1 \
    -o "$out/$name.h5" "$@"
}

run fig1a-proxskip-gda-fl proxskip-gda-fl
run fig1a-local-gda local-gda
run fig1a-local-eg local-eg
run fig1a-fedgda-gt fedgda-gt
run fig1a-gda gda

run fig1b-proxskip-sgda-fl proxskip-sgda-fl
# The published Fig. 1b ran the authors' code (github.com/isayantan/ProxSkipVIP) with operator
# scale 1/M: the gamma of their Table G (Appendix G) on the raw operator leaves a noise floor
# above the start on this instance.
run fig1b-proxskip-sgda-fl-code-scale proxskip-sgda-fl -s op_scale=0.05
run fig1b-proxskip-l-svrgda-fl proxskip-l-svrgda-fl
run fig1b-local-sgda local-sgda
run fig1b-local-seg local-seg

# The Neumann-series methods take Q = 20 terms, the middle of the grid {5, 20, 80} that the
# experiment tunes them on (results/suites/zhang2025-a9a.yaml): their theory Q, (L_g/mu_g) ln T,
# is about 6,000 on a9a and makes each of their runs take minutes instead of seconds.
for solver in fedsvrbgd-fo fedbioacc adafbio adafbio-nonadaptive local-bsgvrm fednest lfednest fedmbo; do
  echo "== $solver (hyper-logreg on a9a)"
  neumann=()
  case $solver in adafbio* | local-bsgvrm | fednest | lfednest | fedmbo) neumann=(-s neumann_terms=20) ;; esac
  "$fedbench" run --problem hyper-logreg -p dataset=a9a --solver "$solver" --rounds 1000 \
    --eval-every 50 -q -o "$out/a9a-$solver.h5" "${neumann[@]}"
done

"$fedbench" show "$out/fig1a-proxskip-gda-fl.h5" | head -n 40
"$python" scripts/plot.py "$out/fig1a.png" "$out"/fig1a-*.h5 \
  --title "Quadratic game, deterministic (Zhang et al. 2024, Fig. 1a)"
"$python" scripts/plot.py "$out/fig1b.png" "$out"/fig1b-*.h5 \
  --title "Quadratic game, stochastic (Zhang et al. 2024, Fig. 1b)"
"$python" scripts/plot.py "$out/a9a.png" "$out"/a9a-*.h5 --y upper_value --group solver \
  --title "hyper-logreg on a9a, 8 clients (Zhang et al. 2025, Sec. 5.1)"
echo "demo: trajectories in $out/*.h5, plots $out/fig1a.png, $out/fig1b.png and $out/a9a.png"
