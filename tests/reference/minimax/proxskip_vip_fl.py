"""ProxSkip-VIP-FL (ProxSkip-GDA-FL, ProxSkip-SGDA-FL), transcribed from S. Zhang, S. Choudhury,
S. U. Stich, N. Loizou, "Communication-Efficient Gradient Descent-Accent Methods for Distributed
Variational Inequalities: Unified Analysis and Local Updates", ICLR 2024, Section 4,
Algorithm 2. Every iteration t each client i takes
    x_hat_i = x_i - gamma (g_i(x_i) - h_i)                                   (line 4)
and, when the server's coin theta_t = 1 (probability p),
    x'_i = x_hat_i - (gamma / p) h_i,  x_i = mean_i x'_i                     (lines 6-7)
(else x_i = x_hat_i), then h_i <- h_i + (p / gamma)(x_i - x_hat_i)            (line 11).
g_i = f_i (ProxSkip-GDA-FL) or a minibatch estimate (ProxSkip-SGDA-FL). h_{i,0} = 0 and every
client starts at the initial point. The server iterate after communication r is x-bar.

The matrix-game case is Algorithm 1 (ProxSkip-VIP) on the consensus reformulation (3) with
R = consensus indicator + the indicator of the simplices: its prox maps x' to P_C(mean_i x'_i)
on every client, which the h update then uses.

Readings shared with fedbench (documented there): the coins theta_t are drawn per round as the
number of iterations K_r ~ Geometric(p) up to and including the first theta = 1 (the same law),
from the stream (seed, "comm-coin", server, round r); the loop runs T iterations (the
pseudocode's t = 0..T is read as a typo). gamma acts on the raw client operators (eq. (3)
without 1/n); op_scale s multiplies every operator by s (the authors' code's 1/n averaging).
Minibatches: one fresh draw per iteration, with replacement.
"""
import numpy as np

from games import (QUADRATIC_GAME as GAME, MATRIX_GAME as MATRIX, GAME_OFF_ZERO, affine_operator,
                   client_matrices, ell, matrix_operator, max_sample_ell, project_simplices,
                   samples_per_client, strong_monotonicity)
from refcase import Case, States
from streams import SEED, Draws, Stream


def local_iterations(r, p):
    """K_r: iterations of communication round r (the theta coins of Alg. 2 line 2)."""
    return Stream(SEED, "comm-coin", -1, r, 0).geometric(p)


def table_g(inst, batch_size):
    """Appendix G ("Table G"): gamma = 1/(2 max_i ell_i) with full local batches, 1/(2 max_ij
    ell_ij) with sampled ones; p = sqrt(gamma mu), mu = min_i lambda_min(sym M_i) (Assumption
    4.1: every client operator mu-strongly monotone)."""
    l = max(ell(M) for M in client_matrices(inst)) if batch_size == 0 else max_sample_ell(inst)
    gamma = 1.0 / (2.0 * l)
    return gamma, np.sqrt(gamma * strong_monotonicity(inst))


def proxskip_fl(gamma, p, batch_size, op_scale=1.0, op=affine_operator, project=lambda z: z):
    def reference(inst, rounds):
        nonlocal gamma, p
        if gamma is None:  # theory preset
            gamma, p = table_g(inst, batch_size)
        n = int(inst.attrs["num_clients"])
        m = samples_per_client(inst)
        z0 = np.array(inst["initial_point"], dtype=float)
        xs = [z0.copy() for _ in range(n)]
        hs = [np.zeros_like(z0) for _ in range(n)]
        out = [z0.copy()]
        states = States()
        # fedbench sets client 0 up before round 0 and the others when they first run (their
        # set-up makes no oracle call): h_i = 0 and x-hat_i = 0 until then
        states.client(0, "control_variate_h", 0, hs[0])
        states.client(0, "local_x_hat", 0, np.zeros_like(z0))
        for r in range(rounds):
            K = local_iterations(r, p)
            draws = [Draws(i, r, batch_size, m) for i in range(n)]
            for t in range(K):
                theta = t == K - 1
                x_hat = []
                for i in range(n):
                    g = op_scale * op(inst, i, xs[i], draws[i].next())
                    x_hat.append(xs[i] - gamma * (g - hs[i]))                       # line 4
                if theta:
                    x_prime = [x_hat[i] - gamma / p * hs[i] for i in range(n)]      # line 6
                    xbar = project(np.mean(x_prime, axis=0))                       # line 7 (prox)
                    new_x = [xbar.copy() for _ in range(n)]
                else:
                    new_x = x_hat                                                  # line 9
                if theta:  # fedbench keeps h_i from before this update (it applies it next round)
                    for i in range(n):  # and in units of its operator: h / s (s: op_scale)
                        states.client(r + 1, "control_variate_h", i, hs[i] / op_scale)
                        states.client(r + 1, "local_x_hat", i, x_hat[i])
                for i in range(n):
                    hs[i] = hs[i] + p / gamma * (new_x[i] - x_hat[i])              # line 11
                xs = new_x
            out.append(xs[0].copy())
        return np.array(out), states
    return reference


CASES = [
    Case(solver="proxskip-gda-fl", problem="quadratic-game", problem_params=GAME,
         solver_params={"step_size": "0.2", "comm_prob": "0.4"},
         reference=proxskip_fl(0.2, 0.4, 0),
         note="theta coins as K_r ~ Geometric(p) per round; T iterations"),
    Case(solver="proxskip-sgda-fl", problem="quadratic-game", problem_params=GAME,
         solver_params={"step_size": "0.15", "comm_prob": "0.5"},
         reference=proxskip_fl(0.15, 0.5, 1),
         note="theta coins as K_r ~ Geometric(p) per round; one fresh sample per iteration"),
    Case(solver="proxskip-vip-fl", problem="quadratic-game", problem_params=GAME,
         solver_params={"step_size": "0.3", "comm_prob": "0.3", "batch_size": "2",
                        "op_scale": "0.5"},
         reference=proxskip_fl(0.3, 0.3, 2, op_scale=0.5),
         note="op_scale s: operators s f_i with step gamma"),
    Case(solver="proxskip-gda-fl", problem="quadratic-game", problem_params=GAME,
         solver_params={}, reference=proxskip_fl(None, None, 0),
         note="theory: Table G gamma = 1/(2 max_i ell_i), p = sqrt(gamma mu), eigenvalue ell"),
    Case(solver="proxskip-sgda-fl", problem="quadratic-game", problem_params=GAME,
         solver_params={}, reference=proxskip_fl(None, None, 1),
         note="theory: Table G gamma = 1/(2 max_ij ell_ij), p = sqrt(gamma mu), eigenvalue ell"),
    Case(solver="proxskip-gda-fl", problem="matrix-game", problem_params=MATRIX,
         solver_params={"step_size": "0.1", "comm_prob": "0.35"},
         reference=proxskip_fl(0.1, 0.35, 0, op=matrix_operator, project=project_simplices),
         note="prox of consensus + simplices: P_C(mean x'), used by the h update"),
    Case(solver="proxskip-vip-fl", problem="quadratic-game", problem_params=GAME_OFF_ZERO,
         solver_params={"batch_size": "2"}, reference=proxskip_fl(None, None, 2),
         note="theory preset with minibatches of 2; z_0 != 0 on every client, h_i = 0"),
    Case(solver="proxskip-sgda-fl", problem="quadratic-game", problem_params=GAME_OFF_ZERO,
         solver_params={"step_size": "0.2", "comm_prob": "0.45", "batch_size": "3",
                        "op_scale": "1.5"},
         reference=proxskip_fl(0.2, 0.45, 3, op_scale=1.5), note="z_0 != 0; op_scale 1.5"),
]
