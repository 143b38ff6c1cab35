"""FESS-GDA / FSGDA, transcribed from W. Shen, M. Huang, J. Zhang, C. Shen, "Stochastic
Smoothed Gradient Descent Ascent for Federated Minimax Optimization", AISTATS 2024, Section 3.1,
Algorithm 1. Round t: the server samples S_t and sends (x_t, y_t); every client i in S_t runs
K simultaneous steps on one minibatch xi per step (lines 7-8),
    x <- x - eta_xl grad_x f_i(x, y; xi),   y <- P_Y(y + eta_yl grad_y f_i(x, y; xi)),
and the server sets (lines 13-15)
    x_{t+1} = x_t + eta_xg (mean_i x_i - x_t) - eta_xl eta_xg K p (x_t - z_t),
    y_{t+1} = P_Y(y_t + eta_yg (mean_i y_i - y_t)),
    z_{t+1} = z_t + beta (x_{t+1} - z_t).
FSGDA (H. Yang, Z. Liu, X. Zhang, J. Liu, NeurIPS 2022) is the case p = 0 (Section 3.1).

Readings shared with fedbench (Algorithm 1 leaves them open): z_0 = x_0 (an input without a
value). On the matrix game both blocks live on simplices, while the paper has X = R^{d1}: the
transcription projects the whole feasible set (x and y) wherever Algorithm 1 projects y, and
the server iterate is (x_{t+1}, y_{t+1}) projected onto X x Y, and the anchor z follows
line 13's x_{t+1} before that projection (fedbench's behaviour, which it does not document;
following the projected x_{t+1} instead differs by 6e-2 from round 2 on).
"""
import numpy as np

from games import (QUADRATIC_GAME as GAME, MATRIX_GAME as MATRIX, GAME_OFF_ZERO, PARTIAL, affine_operator,
                   matrix_operator, project_simplices, samples_per_client)
from refcase import Case, States
from streams import SEED, minibatch, participants, phase_key


def fess_gda(K, batch_size, eta_xl, eta_yl, eta_xg, eta_yg, p, beta, participation="full",
             operator=affine_operator, project=lambda z: z):
    def reference(inst, rounds):
        n = int(inst.attrs["num_clients"])
        m = samples_per_client(inst)
        z0 = np.array(inst["initial_point"], dtype=float)
        dx = z0.size // 2
        x, y = z0[:dx].copy(), z0[dx:].copy()
        anchor = x.copy()  # z_0 = x_0
        out = [z0.copy()]
        states = States()
        states.server(0, "anchor_z", anchor)
        for t in range(rounds):
            xs, ys = [], []
            slots = participants(SEED, participation, n, t, 0)
            if not slots:  # nobody sampled: the round changes nothing
                out.append(np.concatenate([x, y]))
                states.server(t + 1, "anchor_z", anchor)
                continue
            for i, occ in slots:
                w = np.concatenate([x, y])
                for k in range(K):
                    batch = None if batch_size == 0 else \
                        minibatch(SEED, i, t, phase_key(0, occ) + k, batch_size, m)
                    g = operator(inst, i, w, batch)  # (grad_x f_i, -grad_y f_i), one batch
                    w = np.concatenate([w[:dx] - eta_xl * g[:dx], w[dx:] - eta_yl * g[dx:]])
                    w = project(w)  # line 8 (the whole feasible set)
                xs.append(w[:dx])
                ys.append(w[dx:])
            xbar, ybar = np.mean(xs, axis=0), np.mean(ys, axis=0)
            x_new = x + eta_xg * (xbar - x) - eta_xl * eta_xg * K * p * (x - anchor)  # line 13
            y_new = y + eta_yg * (ybar - y)                                          # line 14
            # Line 15 with x_{t+1} as line 13 gives it; on a constrained X (not in the paper,
            # where X = R^{d1}) the anchor follows this x_{t+1} before its projection onto X.
            anchor = anchor + beta * (x_new - anchor)                                # line 15
            znew = project(np.concatenate([x_new, y_new]))                           # P_Y (and P_X)
            x, y = znew[:dx], znew[dx:]
            out.append(znew.copy())
            states.server(t + 1, "anchor_z", anchor)
        return np.array(out), states
    return reference


def params(K, B, exl, eyl, exg, eyg, p=None, beta=None):
    s = {"local_steps": str(K), "batch_size": str(B), "eta_xl": str(exl), "eta_yl": str(eyl),
         "eta_xg": str(exg), "eta_yg": str(eyg)}
    if p is not None:
        s["p"] = str(p)
    if beta is not None:
        s["beta"] = str(beta)
    return s


CASES = [
    Case(solver="fess-gda", problem="quadratic-game", problem_params=GAME,
         solver_params=params(3, 0, 0.2, 0.1, 1.5, 0.8, 0.5, 0.3),
         reference=fess_gda(3, 0, 0.2, 0.1, 1.5, 0.8, 0.5, 0.3),
         note="z_0 = x_0"),
    Case(solver="fess-gda", problem="quadratic-game", problem_params=GAME,
         solver_params=params(2, 2, 0.15, 0.25, 1.2, 1.0, 1.0, 0.6),
         participation="uniform:2",
         reference=fess_gda(2, 2, 0.15, 0.25, 1.2, 1.0, 1.0, 0.6, "uniform:2"),
         note="z_0 = x_0; one minibatch per local step for both blocks"),
    Case(solver="fsgda", problem="quadratic-game", problem_params=GAME,
         solver_params=params(4, 1, 0.1, 0.2, 2.0, 1.5),
         reference=fess_gda(4, 1, 0.1, 0.2, 2.0, 1.5, 0.0, 0.05),
         note="p = 0: the anchor moves at the default beta = 0.05 but does not act"),
    Case(solver="fsgda", problem="matrix-game", problem_params=MATRIX,
         solver_params=params(3, 0, 0.3, 0.4, 1.5, 1.8),
         reference=fess_gda(3, 0, 0.3, 0.4, 1.5, 1.8, 0.0, 0.05, operator=matrix_operator,
                            project=project_simplices),
         note="X also a simplex: projected with Y at every local step and at the server; "
              "p = 0, anchor at the default beta = 0.05"),
    Case(solver="fess-gda", problem="matrix-game", problem_params=MATRIX,
         solver_params=params(3, 0, 0.3, 0.4, 1.5, 1.8, 0.8, 0.4),
         reference=fess_gda(3, 0, 0.3, 0.4, 1.5, 1.8, 0.8, 0.4, operator=matrix_operator,
                            project=project_simplices),
         note="z_0 = x_0; X a simplex: anchor from x_{t+1} before projection (undocumented)"),
] + [
    Case(solver="fess-gda", problem="quadratic-game", problem_params=GAME_OFF_ZERO,
         solver_params=params(2, 2, 0.15, 0.25, 1.2, 1.0, 1.0, 0.6), participation=mode,
         reference=fess_gda(2, 2, 0.15, 0.25, 1.2, 1.0, 1.0, 0.6, mode),
         note=f"{mode}, z_0 = x_0 != 0")
    for mode in PARTIAL
]
