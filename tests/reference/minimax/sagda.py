"""SAGDA, after H. Yang, Z. Liu, X. Zhang, J. Liu, "SAGDA: Achieving O(eps^-2) Communication
Complexity in Federated Min-Max Learning", NeurIPS 2022, Algorithm 1, as run as a baseline by
W. Shen, M. Huang, J. Zhang, C. Shen, AISTATS 2024 (FESS-GDA), Section 4.1. Shen et al. do not
restate its rules, and Yang et al.'s Algorithm 1 was not at hand: this transcribes the
two-stage round reconstructed from Yang et al.'s description (stochastic gradients of the
sampled clients assembled into a control variate, and local and global learning rates; FSGDA
is its control-variate-free special case):
  stage 1: each i in S_t sends c_i = F_i(x_t, y_t; xi_i^0); the server forms v_t = mean_i c_i;
  stage 2: each i in S_t runs K steps from (x_t, y_t) along g - c_i + v_t,
               x <- x - eta_xl (g_x - c_{i,x} + v_{t,x}),
               y <- P_Y(y - eta_yl (g_y - c_{i,y} + v_{t,y}))   (g_y = -grad_y f_i: ascent),
           and sends its model; the server sets
               x_{t+1} = x_t + eta_xg (xbar - x_t),  y_{t+1} = P_Y(y_t + eta_yg (ybar - y_t)).
Readings shared with fedbench (documented there as its reading of the reconstruction): v_t
comes from the same client set S_t as stage 2, and c_i uses a fresh minibatch (drawn in stage
1, whose draws are keyed by phase 0; stage 2's by phase 1). On the matrix game X is a simplex
too (the paper's X is unconstrained): the whole feasible set is projected wherever the round
projects y (every local step and the server).
"""
import numpy as np

from games import (QUADRATIC_GAME as GAME, MATRIX_GAME, GAME_OFF_ZERO, PARTIAL, affine_operator as operator,
                   matrix_operator, project_simplices, samples_per_client)
from refcase import Case, States
from streams import SEED, minibatch, participants, phase_key


def sagda(K, batch_size, eta_xl, eta_yl, eta_xg, eta_yg, participation="full",
          operator=operator, project=lambda z: z):
    def reference(inst, rounds):
        n = int(inst.attrs["num_clients"])
        m = samples_per_client(inst)
        z = np.array(inst["initial_point"], dtype=float)
        dx = z.size // 2

        def batch(i, t, draw):
            return None if batch_size == 0 else minibatch(SEED, i, t, draw, batch_size, m)

        out = [z.copy()]
        states = States()
        v, last_c = None, {}  # v_t and every client's last c_i

        def record(r):
            if v is not None:
                states.server(r, "control_mean_v", v)
            for i, c_i in sorted(last_c.items()):
                states.client(r, "control_variate_c", i, c_i)

        for t in range(rounds):
            slots = participants(SEED, participation, n, t, 0)  # one client set, both stages
            if not slots:  # nobody sampled: the round changes nothing
                out.append(z.copy())
                record(t + 1)
                continue
            c = [operator(inst, i, z, batch(i, t, phase_key(0, occ))) for i, occ in slots]  # stage 1
            v = np.mean(c, axis=0)
            last_c.update({i: c_i for (i, _), c_i in zip(slots, c)})  # a second draw's overwrites
            models = []
            for (i, occ), c_i in zip(slots, c):                                            # stage 2
                w = z.copy()
                for k in range(K):
                    d = operator(inst, i, w, batch(i, t, phase_key(1, occ) + k)) - c_i + v
                    w = project(np.concatenate([w[:dx] - eta_xl * d[:dx], w[dx:] - eta_yl * d[dx:]]))
                models.append(w)
            bar = np.mean(models, axis=0)
            z = project(np.concatenate([z[:dx] + eta_xg * (bar[:dx] - z[:dx]),
                                        z[dx:] + eta_yg * (bar[dx:] - z[dx:])]))
            out.append(z.copy())
            record(t + 1)
        return np.array(out), states
    return reference


def params(K, B, exl, eyl, exg, eyg):
    return {"local_steps": str(K), "batch_size": str(B), "eta_xl": str(exl), "eta_yl": str(eyl),
            "eta_xg": str(exg), "eta_yg": str(eyg)}


CASES = [
    Case(solver="sagda", problem="quadratic-game", problem_params=GAME,
         solver_params=params(3, 0, 0.2, 0.15, 1.5, 0.8),
         reference=sagda(3, 0, 0.2, 0.15, 1.5, 0.8),
         note="reconstructed round; v_t from the same S_t"),
    Case(solver="sagda", problem="quadratic-game", problem_params=GAME,
         solver_params=params(2, 2, 0.15, 0.25, 1.2, 1.0),
         participation="uniform:2",
         reference=sagda(2, 2, 0.15, 0.25, 1.2, 1.0, "uniform:2"),
         note="reconstructed round; v_t from the same S_t, c_i on a fresh minibatch"),
    Case(solver="sagda", problem="matrix-game", problem_params=MATRIX_GAME,
         solver_params=params(3, 0, 0.3, 0.4, 1.5, 1.8),
         reference=sagda(3, 0, 0.3, 0.4, 1.5, 1.8, operator=matrix_operator,
                         project=project_simplices),
         note="reconstructed round; X also a simplex: projected with Y locally and at the server"),
] + [
    Case(solver="sagda", problem="quadratic-game", problem_params=GAME_OFF_ZERO,
         solver_params=params(2, 2, 0.15, 0.25, 1.2, 1.0), participation=mode,
         reference=sagda(2, 2, 0.15, 0.25, 1.2, 1.0, mode),
         note=f"{mode}, z_0 != 0; both stages on one client set")
    for mode in PARTIAL
]
