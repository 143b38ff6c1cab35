"""ProxSkip-L-SVRGDA-FL, transcribed from S. Zhang, S. Choudhury, S. U. Stich, N. Loizou,
"Communication-Efficient Gradient Descent-Accent Methods for Distributed Variational
Inequalities: Unified Analysis and Local Updates", ICLR 2024, Appendix C, Algorithm 4.
w_{i,0} = x_{i,0}, h_{i,0} = 0. Every iteration t the server flips theta_t (probability p) and
zeta_t (probability q), and each client i
    g_i = F_{i,j}(x_i) - F_{i,j}(w_i) + F_i(w_i)           (line 5; j drawn by client i)
    w_i <- x_i if zeta_t = 1                               (line 6: refresh to x_{i,t})
    x_hat_i = x_i - gamma (g_i - h_i)                      (line 7)
    theta_t = 1: x'_i = x_hat_i - (gamma/p) h_i, x_i = mean_i x'_i;  else x_i = x_hat_i
    h_i <- h_i + (p / gamma)(x_i - x_hat_i)                (line 14)
The server iterate after communication r is x-bar.

Readings shared with fedbench (documented there): theta_t drawn per round as K_r ~ Geometric(p)
(iterations up to and including the first theta = 1) from (seed, "comm-coin", server, r); one
zeta_t per iteration shared by all clients (the pseudocode's server coin), the k-th iteration
of round r reading (seed, "refresh-coin", server, r, k); j is a fresh minibatch of batch_size
indices drawn with replacement, independently per client (the pseudocode writes j_t for all);
T iterations (t = 0..T read as a typo); gamma acts on the raw operators, op_scale s scales
every operator.
"""
import numpy as np

from games import (QUADRATIC_GAME as GAME, GAME_OFF_ZERO, affine_operator as op, max_sample_ell,
                   samples_per_client, strong_monotonicity)
from refcase import Case, States
from streams import SEED, Draws, Stream


def theory(inst):
    """Corollary 3.9 / Theorem 4.4 with Appendix G's constants: gamma = min(1/mu, 1/(6 ell_hat)),
    ell_hat = max_ij ell_ij, p = sqrt(gamma mu), q = 2 gamma mu, mu = min_i lambda_min(sym M_i)."""
    l_hat, mu = max_sample_ell(inst), strong_monotonicity(inst)
    gamma = min(1.0 / mu, 1.0 / (6.0 * l_hat))
    return gamma, np.sqrt(gamma * mu), 2.0 * gamma * mu


def l_svrgda(gamma, p, q, batch_size, op_scale=1.0):
    def reference(inst, rounds):
        nonlocal gamma, p, q
        if gamma is None:
            gamma, p, q = theory(inst)
        n = int(inst.attrs["num_clients"])
        m = samples_per_client(inst)
        z0 = np.array(inst["initial_point"], dtype=float)
        xs = [z0.copy() for _ in range(n)]
        ws = [z0.copy() for _ in range(n)]                           # line 1
        f_w = [op_scale * op(inst, i, ws[i], None) for i in range(n)]
        hs = [np.zeros_like(z0) for _ in range(n)]
        out = [z0.copy()]
        states = States()

        def record_reference(r):
            for i in range(n):
                states.client(r, "reference_point_w", i, ws[i])
                states.client(r, "operator_at_reference_f_w", i, f_w[i] / op_scale)  # unscaled

        for i in range(n):  # set-up (its full local pass makes every client's at once)
            states.client(0, "control_variate_h", i, hs[i])
            states.client(0, "local_x_hat", i, np.zeros_like(z0))
        record_reference(0)
        for r in range(rounds):
            K = Stream(SEED, "comm-coin", -1, r, 0).geometric(p)
            draws = [Draws(i, r, batch_size, m) for i in range(n)]
            for t in range(K):
                theta = t == K - 1
                zeta = Stream(SEED, "refresh-coin", -1, r, t).bernoulli(q)
                x_hat = []
                for i in range(n):
                    j = draws[i].next()
                    g = op_scale * (op(inst, i, xs[i], j) - op(inst, i, ws[i], j)) + f_w[i]  # line 5
                    if zeta:                                                           # line 6
                        ws[i] = xs[i].copy()
                        f_w[i] = op_scale * op(inst, i, ws[i], None)
                    x_hat.append(xs[i] - gamma * (g - hs[i]))                           # line 7
                if theta:
                    xbar = np.mean([x_hat[i] - gamma / p * hs[i] for i in range(n)], axis=0)
                    new_x = [xbar.copy() for _ in range(n)]                             # lines 9-10
                else:
                    new_x = x_hat                                                      # line 12
                if theta:  # fedbench keeps h_i from before this update (it applies it next round)
                    for i in range(n):  # and in units of its operator: h / s (s: op_scale)
                        states.client(r + 1, "control_variate_h", i, hs[i] / op_scale)
                        states.client(r + 1, "local_x_hat", i, x_hat[i])
                for i in range(n):
                    hs[i] = hs[i] + p / gamma * (new_x[i] - x_hat[i])                   # line 14
                xs = new_x
            out.append(xs[0].copy())
            record_reference(r + 1)
        return np.array(out), states
    return reference


CASES = [
    Case(solver="proxskip-l-svrgda-fl", problem="quadratic-game", problem_params=GAME,
         solver_params={"step_size": "0.15", "comm_prob": "0.4", "ref_prob": "0.3",
                        "batch_size": "1"},
         reference=l_svrgda(0.15, 0.4, 0.3, 1),
         note="K_r ~ Geometric(p); one shared refresh coin per iteration"),
    Case(solver="proxskip-l-svrgda-fl", problem="quadratic-game", problem_params=GAME,
         solver_params={"step_size": "0.25", "comm_prob": "0.3", "ref_prob": "0.6",
                        "batch_size": "2", "op_scale": "0.5"},
         reference=l_svrgda(0.25, 0.3, 0.6, 2, op_scale=0.5),
         note="K_r ~ Geometric(p); one shared refresh coin per iteration; op_scale s"),
    Case(solver="proxskip-l-svrgda-fl", problem="quadratic-game", problem_params=GAME,
         solver_params={"batch_size": "1"}, reference=l_svrgda(None, None, None, 1),
         note="theory: Cor. 3.9 gamma, p = sqrt(gamma mu), q = 2 gamma mu; eigenvalue ell"),
    Case(solver="proxskip-l-svrgda-fl", problem="quadratic-game", problem_params=GAME_OFF_ZERO,
         solver_params={"step_size": "0.2", "comm_prob": "0.5", "ref_prob": "0.4",
                        "batch_size": "3", "op_scale": "1.5"},
         reference=l_svrgda(0.2, 0.5, 0.4, 3, op_scale=1.5),
         note="z_0 != 0: every client's x_i and reference point w_i start there"),
]
