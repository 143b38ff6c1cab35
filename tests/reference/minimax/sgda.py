"""Distributed (minibatch) SGDA / GDA, transcribed from A. Fallah, A. Ozdaglar, S. Pattathil,
"An Optimal Multistage Stochastic Gradient Method for Minimax Problems", CDC 2020 (the
distributed, non-local SGDA/GDA row of Table 1 of S. Zhang, S. Choudhury, S. U. Stich,
N. Loizou, ICLR 2024, Section 1.1): every round each sampled client evaluates its (stochastic)
gradients at the server's (x, y), and the server takes one simultaneous step with their mean,
    x <- x - eta mean_i grad_x f_i(x, y; xi_i),   y <- y + gamma mean_i grad_y f_i(x, y; xi_i).

Parallel SGDA (T. Lin, C. Jin, M. I. Jordan, "On Gradient Descent Ascent for Nonconvex-Concave
Minimax Problems", ICML 2020) as run as a baseline by J. Xie, C. Zhang, Z. Shen, W. Liu,
H. Qian, arXiv 2105.14216, 2021 (Section 5, Appendix B.1) is the same step with the clients'
full local gradients and separate constant primal/dual steps eta and gamma.

Minibatches (batch_size > 0) are drawn uniformly with replacement; the indices come from
streams.py so that the transcription sees the same samples as the run.
"""
import numpy as np

from games import (QUADRATIC_GAME as GAME, GAME_OFF_ZERO, PARTIAL, affine_operator as operator, ell,
                   max_sample_ell)
from refcase import Case
from streams import SEED, minibatch, participants, phase_key


def theory_step(inst, batch_size):
    """eta = gamma = 1/(2 ell): ell of the global operator for full batches, the largest
    per-sample ell_ij for sampled oracles (the GDA/SGDA step of Zhang et al. 2024, Table G)."""
    if batch_size == 0:
        return 1.0 / (2.0 * ell(inst["data/global/M"]))
    return 1.0 / (2.0 * max_sample_ell(inst))


def sgda(eta, gamma, batch_size, participation="full"):
    def reference(inst, rounds):
        nonlocal eta, gamma
        if eta is None:
            eta = gamma = theory_step(inst, batch_size)
        n = int(inst.attrs["num_clients"])
        z = np.array(inst["initial_point"], dtype=float)
        dx = z.size // 2
        m = inst["data/clients/0/zeta"].shape[0]  # samples per client
        out = [z.copy()]
        for r in range(rounds):
            grads = []
            for i, occ in participants(SEED, participation, n, r, 0):
                batch = None if batch_size == 0 else minibatch(SEED, i, r, phase_key(0, occ), batch_size, m)
                grads.append(operator(inst, i, z, batch))
            if not grads:  # nobody sampled: the round changes nothing
                out.append(z.copy())
                continue
            g = np.mean(grads, axis=0)
            # F = (grad_x f, -grad_y f): descent in x with eta, ascent in y with gamma.
            z = np.concatenate([z[:dx] - eta * g[:dx], z[dx:] - gamma * g[dx:]])
            out.append(z.copy())
        return np.array(out)
    return reference


CASES = [
    Case(solver="sgda", problem="quadratic-game", problem_params=GAME,
         solver_params={"step_size": "0.3", "dual_step_size": "0.15", "batch_size": "2"},
         reference=sgda(0.3, 0.15, 2)),
    Case(solver="sgda", problem="quadratic-game", problem_params=GAME,
         solver_params={"step_size": "0.25", "dual_step_size": "0.4", "batch_size": "1"},
         participation="uniform:2",
         reference=sgda(0.25, 0.4, 1, "uniform:2")),
    Case(solver="gda", problem="quadratic-game", problem_params=GAME,
         solver_params={"step_size": "0.4", "dual_step_size": "0.4"},
         reference=sgda(0.4, 0.4, 0)),
    Case(solver="gda", problem="quadratic-game", problem_params=GAME, solver_params={},
         reference=sgda(None, None, 0), note="theory: eta = gamma = 1/(2 ell), ell of F"),
    Case(solver="sgda", problem="quadratic-game", problem_params=GAME,
         solver_params={"batch_size": "1"}, reference=sgda(None, None, 1),
         note="theory: eta = gamma = 1/(2 max_ij ell_ij)"),
    Case(solver="parallel-sgda", problem="quadratic-game", problem_params=GAME,
         solver_params={"step_size": "0.5", "dual_step_size": "0.1"},
         reference=sgda(0.5, 0.1, 0)),
] + [
    Case(solver="sgda", problem="quadratic-game", problem_params=GAME_OFF_ZERO,
         solver_params={"step_size": "0.25", "dual_step_size": "0.3", "batch_size": "2"},
         participation=mode, reference=sgda(0.25, 0.3, 2, mode), note=f"{mode}, z_0 != 0")
    for mode in PARTIAL
]
