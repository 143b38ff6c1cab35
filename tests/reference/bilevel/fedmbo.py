"""FedMBO, transcribed from M. Huang, D. Zhang, K. Ji, "Achieving Linear Speedup in Non-IID
Federated Bilevel Learning", ICML 2023 (arXiv 2302.05412), as Y. Zhang et al., IJCAI 2025,
Section 2.2, characterises it (a baseline there, Section 5.1): second-order work once per
round, no communication of intermediate Hessian-inverse-vector products, x sent every round.

One round k (all clients):
    every client from y_k: p local SGD steps y_i <- y_i - gamma_y grad_y g_i(x_k, y_i);
    y_{k+1} = mean_i y_i;
    every client: h_i = HG_i(x_k, y_{k+1}), its local Neumann hypergradient
        grad_x f_i - grad^2_xy g_i [theta sum_{j<Q} (I - theta grad^2_yy g_i)^j] grad_y f_i;
    x_{k+1} = x_k - gamma_x mean_i h_i.

Full local batches and full participation, so the run has no randomness but the randomized
Neumann index of one case (Q theta (I - theta H_i)^k grad_y f_i, k ~ U{0..Q-1}, as in Huang 2022,
eq. (13); drawn as fedbench does); the traced model is (x_{k+1}, y_{k+1}).

Readings shared with fedbench: each client's own Hessians in the series (no relay of the
vector through sampled clients); the deterministic Q-term Neumann sum (`neumann =
deterministic`, the FedNest code's form).
"""
import numpy as np

from bilevel_common import QUAD, BilevelQuadratic, NeumannCoins, local_hypergradient, mean
from refcase import Case


def fedmbo(gamma_x, gamma_y, p, theta, Q, randomized=False):
    def reference(inst, rounds):
        prob = BilevelQuadratic(inst)
        N = prob.n
        coins = NeumannCoins(Q)
        x = prob.x0.copy()
        y = prob.y0.copy()
        out = [np.concatenate([x, y])]
        for rnd in range(rounds):
            ys = []
            for i in range(N):
                yi = y.copy()
                for _ in range(p):
                    yi = yi - gamma_y * prob.gy(i, x, yi)
                ys.append(yi)
            y = mean(ys)
            ks = [coins.draw(i, rnd) if randomized else None for i in range(N)]
            h = mean([local_hypergradient(prob, i, x, y, theta, Q, ks[i]) for i in range(N)])
            x = x - gamma_x * h
            out.append(np.concatenate([x, y]))
        return np.array(out)
    return reference


def params(p, gx, gy, theta, Q, neumann="deterministic"):
    return {"local_steps": str(p), "batch_size": "0", "gamma_x": str(gx), "gamma_y": str(gy),
            "neumann_terms": str(Q), "theta": str(theta), "neumann": neumann}


CASES = [
    Case(solver="fedmbo", problem="bilevel-quadratic", problem_params=QUAD,
         solver_params=params(3, 0.2, 0.1, 0.15, 4),
         reference=fedmbo(0.2, 0.1, 3, 0.15, 4),
         note="local Hessians; deterministic Q-term Neumann sum"),
    Case(solver="fedmbo", problem="bilevel-quadratic", problem_params=QUAD,
         solver_params=params(1, 0.3, 0.2, 0.25, 6),
         reference=fedmbo(0.3, 0.2, 1, 0.25, 6),
         note="p = 1; local Hessians; deterministic Q-term Neumann sum"),
    Case(solver="fedmbo", problem="bilevel-quadratic", problem_params=QUAD,
         solver_params=params(2, 0.2, 0.15, 0.2, 4, neumann="randomized"),
         reference=fedmbo(0.2, 0.15, 2, 0.2, 4, randomized=True),
         note="local Hessians; one-term Neumann estimate, k from fedbench's neumann-k stream"),
]
