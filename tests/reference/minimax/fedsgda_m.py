"""FedSGDA-M (X. Wu, J. Sun, Z. Hu, A. Zhang, H. Huang, "Solving a Class of Non-Convex Minimax
Optimization in Federated Learning", NeurIPS 2023, arXiv 2310.03613), as listed in Table 1 of
W. Shen, M. Huang, J. Zhang, C. Shen, "Stochastic Smoothed Gradient Descent Ascent for
Federated Minimax Optimization", AISTATS 2024 (NC-SC/NC-PL row, footnote a: its sample
complexity comes from momentum-based variance reduction; full participation only).

Wu et al.'s algorithm box is not available to us; Shen et al. do not restate it. The local rule
is transcribed from the STORM estimator of A. Cutkosky, F. Orabona, "Momentum-Based Variance
Reduction in Non-Convex SGD", NeurIPS 2019, Algorithm 1 (move with the current estimate, then
draw xi_{t+1} and update the estimate on that one sample set at both points), applied to both
players inside a local-update loop:
  x <- x - eta_x u,  y <- y + eta_y v,
  u <- grad_x f_i(x, y; xi) + (1 - alpha)(u - grad_x f_i(x_prev, y_prev; xi)),
  v <- grad_y f_i(x, y; xi) + (1 - alpha)(v - grad_y f_i(x_prev, y_prev; xi)),
the first estimate from a larger batch at z_0; every q = K local steps every client sends
(x, y, u, v) and the server averages all four (the local iterates and estimators restart from
the averages).

Readings shared with fedbench (documented there as its own choices): the iterate moves before
the estimator update (STORM's order); round 0 starts from each client's own large-batch
estimate at z_0, later rounds from the averaged one. Minibatches uniform with replacement,
draws reproduced with streams.py.
"""
import numpy as np

import streams
from games import QUADRATIC_GAME as GAME, GAME_OFF_ZERO, client_grads, read_game, solver_params as params
from refcase import Case, States
from streams import SEED


def fedsgda_m(local_steps, eta_x, eta_y, alpha, batch_size=0, initial_batch=0):
    def reference(inst, rounds):
        n, dx, samples, z = read_game(inst)
        # Each client's first estimate at z_0 on the larger first batch (0: its whole data),
        # drawn before round 0 (fedbench's set-up draws: round -1).
        def first_batch(i):
            return None if initial_batch <= 0 else streams.minibatch(
                SEED, i, -1, streams.phase_key(0), initial_batch, int(samples[i]))
        est = [np.concatenate(client_grads(inst, i, first_batch(i), z, dx)) for i in range(n)]
        out = [z.copy()]
        states = States()
        # fedbench keeps the estimators in operator form, (grad_x, -grad_y): u and -v
        as_operator = lambda w: np.concatenate([w[:dx], -w[dx:]])
        for i in range(n):
            states.client(0, "estimator_w", i, as_operator(est[i]))
        for t in range(rounds):
            finals, ests = [], []
            for i in range(n):  # full participation
                w = est[i]
                x, y = z[:dx].copy(), z[dx:].copy()
                for k in range(local_steps):
                    z_prev = np.concatenate([x, y])
                    x, y = x - eta_x * w[:dx], y + eta_y * w[dx:]
                    B = None if batch_size <= 0 else streams.minibatch(
                        SEED, i, t, streams.phase_key(0) + k, batch_size, int(samples[i]))
                    g_new = np.concatenate(client_grads(inst, i, B, np.concatenate([x, y]), dx))
                    g_old = np.concatenate(client_grads(inst, i, B, z_prev, dx))
                    w = g_new + (1 - alpha) * (w - g_old)
                finals.append(np.concatenate([x, y]))
                ests.append(w)
            z = np.mean(finals, axis=0)
            avg = np.mean(ests, axis=0)
            est = [avg] * n
            out.append(z.copy())
            states.server(t + 1, "estimator_w_bar", as_operator(avg))
            for i in range(n):
                states.client(t + 1, "estimator_w", i, as_operator(ests[i]))
        return np.array(out), states
    return reference


CASES = [
    Case(solver="fedsgda-m", problem="quadratic-game", problem_params=GAME,
         solver_params=params(local_steps=3, batch_size=0, initial_batch=0, eta_x=0.2,
                              eta_y=0.3, alpha=0.3),
         reference=fedsgda_m(3, 0.2, 0.3, 0.3),
         note="full batches; move, then STORM update; round 0 from each client's own estimate"),
    Case(solver="fedsgda-m", problem="quadratic-game", problem_params=GAME,
         solver_params=params(local_steps=4, batch_size=2, initial_batch=0, eta_x=0.15,
                              eta_y=0.2, alpha=0.5),
         reference=fedsgda_m(4, 0.15, 0.2, 0.5, batch_size=2),
         note="minibatches with replacement, the same xi at both points"),
    Case(solver="fedsgda-m", problem="quadratic-game", problem_params=GAME_OFF_ZERO,
         solver_params=params(local_steps=3, batch_size=1, initial_batch=6, eta_x=0.15,
                              eta_y=0.2, alpha=0.4),
         reference=fedsgda_m(3, 0.15, 0.2, 0.4, batch_size=1, initial_batch=6),
         note="first estimates on 6 draws at z_0 != 0 (set-up draws, round -1)"),
]
