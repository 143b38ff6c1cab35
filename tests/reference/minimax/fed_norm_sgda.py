"""Fed-Norm-SGDA and Fed-Norm-SGDA+ (P. Sharma, R. Panda, G. Joshi, "Federated Minimax
Optimization with Client Heterogeneity", arXiv 2302.04249, 2023), the baselines of W. Shen,
M. Huang, J. Zhang, C. Shen, "Stochastic Smoothed Gradient Descent Ascent for Federated Minimax
Optimization", AISTATS 2024 (Section 4.1, Fig. 1; Section 4.2, Fig. 2, snapshot period S in
{1, 5, 10, 20}), with the special cases Shen et al. list in Table 1: Local SGDA+ (Y. Deng,
M. Mahdavi, AISTATS 2021, Algorithm 2) and FedSGDA+ (X. Wu, J. Sun, Z. Hu, A. Zhang, H. Huang,
NeurIPS 2023).

Client i runs K local SGDA steps from (x_t, y_t) on minibatches xi (uniform with replacement),
  x <- x - eta_x^c grad_x f_i(x, y; xi),  y <- y + eta_y^c grad_y f_i(x', y; xi),
with x' = x (Fed-Norm-SGDA) or the server snapshot x~ ("+" variants: Local SGDA+'s y-gradient
at x~, the same minibatch), and returns the normalised updates with equal weights a_i = 1,
  h_x = (1/K) sum_k grad_x f_i(...),  h_y = (1/K) sum_k grad_y f_i(...).
The server: x_{t+1} = x_t - tau_eff gamma_x^s eta_x^c mean h_x, y_{t+1} = y_t + tau_eff
gamma_y^s eta_y^c mean h_y with tau_eff = K (every client runs K plain SGD steps, as in Shen et
al.'s experiments); Local SGDA+ is gamma^s = 1. The snapshot x~ <- x_{t+1} every S rounds
(x~ = x_0 at the start), S counted in rounds.
The quadratic game is unconstrained, so P_Y is the identity.

Readings shared with fedbench (documented there): a_i = 1, tau_eff = K; snapshot period in
rounds. Minibatch draws reproduced with streams.py (ClientOracle::draw keys).
"""
import numpy as np

import streams
from games import QUADRATIC_GAME as GAME, GAME_OFF_ZERO, PARTIAL, client_grads, read_game, solver_params as params
from refcase import Case, States
from streams import SEED


def fed_norm_sgda(local_steps, eta_xl, eta_yl, gamma_x=1.0, gamma_y=1.0, snapshot_period=0,
                  batch_size=0, participation="full"):
    K = local_steps

    def reference(inst, rounds):
        n, dx, samples, z = read_game(inst)
        snapshot = z[:dx].copy()
        out = [z.copy()]
        states = States()

        def record(r):
            # x~ as it will be used in round r: fedbench refreshes it at the end of round r - 1
            if snapshot_period > 0:
                states.server(r, "snapshot_x_tilde", z[:dx] if r % snapshot_period == 0 else snapshot)

        record(0)
        for t in range(rounds):
            if snapshot_period > 0 and t % snapshot_period == 0:
                snapshot = z[:dx].copy()   # x~ <- x_t every S rounds
            hx, hy = [], []
            slots = streams.participants(SEED, participation, n, t, 0)
            if not slots:  # nobody sampled: the round changes nothing
                out.append(z.copy())
                record(t + 1)
                continue
            for i, occ in slots:
                x, y = z[:dx].copy(), z[dx:].copy()
                sx, sy = np.zeros(dx), np.zeros(len(z) - dx)
                for k in range(K):
                    B = None if batch_size <= 0 else streams.minibatch(
                        SEED, i, t, streams.phase_key(0, occ) + k, batch_size, int(samples[i]))
                    gx, gy = client_grads(inst, i, B, np.concatenate([x, y]), dx)
                    if snapshot_period > 0:
                        gy = client_grads(inst, i, B, np.concatenate([snapshot, y]), dx)[1]
                    sx, sy = sx + gx, sy + gy
                    x, y = x - eta_xl * gx, y + eta_yl * gy
                hx.append(sx / K)
                hy.append(sy / K)
            x_new = z[:dx] - K * gamma_x * eta_xl * np.mean(hx, axis=0)
            y_new = z[dx:] + K * gamma_y * eta_yl * np.mean(hy, axis=0)
            z = np.concatenate([x_new, y_new])
            out.append(z.copy())
            record(t + 1)
        return np.array(out), states
    return reference


CASES = [
    Case(solver="fed-norm-sgda", problem="quadratic-game", problem_params=GAME,
         solver_params=params(local_steps=3, batch_size=0, snapshot_period=0, eta_xl=0.2,
                              eta_yl=0.3, gamma_x=1.5, gamma_y=0.8),
         reference=fed_norm_sgda(3, 0.2, 0.3, gamma_x=1.5, gamma_y=0.8),
         note="full local batches; a_i = 1, tau_eff = K"),
    Case(solver="fed-norm-sgda", problem="quadratic-game", problem_params=GAME,
         solver_params=params(local_steps=3, batch_size=2, snapshot_period=0, eta_xl=0.2,
                              eta_yl=0.3, gamma_x=1.2, gamma_y=1.2),
         reference=fed_norm_sgda(3, 0.2, 0.3, gamma_x=1.2, gamma_y=1.2, batch_size=2,
                                 participation="uniform:2"),
         participation="uniform:2",
         note="minibatches with replacement, 2 of 3 clients"),
    Case(solver="fed-norm-sgda-plus", problem="quadratic-game", problem_params=GAME,
         solver_params=params(local_steps=3, batch_size=0, snapshot_period=3, eta_xl=0.2,
                              eta_yl=0.3, gamma_x=1.5, gamma_y=0.8),
         reference=fed_norm_sgda(3, 0.2, 0.3, gamma_x=1.5, gamma_y=0.8, snapshot_period=3),
         note="snapshot x~ refreshed every S = 3 rounds"),
    Case(solver="fedsgda-plus", problem="quadratic-game", problem_params=GAME,
         solver_params=params(local_steps=2, batch_size=2, snapshot_period=5, eta_xl=0.25,
                              eta_yl=0.2, gamma_x=1.3, gamma_y=0.9),
         reference=fed_norm_sgda(2, 0.25, 0.2, gamma_x=1.3, gamma_y=0.9, snapshot_period=5,
                                 batch_size=2),
         note="server rates, snapshot every 5 rounds, minibatches with replacement"),
    Case(solver="local-sgda-plus", problem="quadratic-game", problem_params=GAME,
         solver_params=params(local_steps=4, batch_size=0, snapshot_period=2, eta_xl=0.2,
                              eta_yl=0.2, gamma_x=1, gamma_y=1),
         reference=fed_norm_sgda(4, 0.2, 0.2, snapshot_period=2),
         note="rates 1: the plain average; snapshot every 2 rounds"),
] + [
    Case(solver="fedsgda-plus", problem="quadratic-game", problem_params=GAME_OFF_ZERO,
         solver_params=params(local_steps=2, batch_size=2, snapshot_period=3, eta_xl=0.25,
                              eta_yl=0.2, gamma_x=1.3, gamma_y=0.9),
         reference=fed_norm_sgda(2, 0.25, 0.2, gamma_x=1.3, gamma_y=0.9, snapshot_period=3,
                                 batch_size=2, participation=mode),
         participation=mode, note=f"{mode}, z_0 != 0; snapshot every 3 rounds")
    for mode in PARTIAL
]
