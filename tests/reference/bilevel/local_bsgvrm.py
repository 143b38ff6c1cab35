"""LocalBSGVRM, transcribed from H. Gao, "On the Convergence of Momentum-Based Algorithms for
Federated Bilevel Optimization Problems", arXiv 2204.13299, 2022 (the momentum-based variance-
reduced local bilevel SGD; run as a baseline by Y. Zhang et al., IJCAI 2025, Section 5.1, and
listed in Table 1 of F. Huang, arXiv 2211.01122, 2022).

Single loop on every client i, constant steps, STORM on the lower-level gradient and on the
client's local Neumann hypergradient HG_i, periodic averaging:
    init:  u = HG_i(x0, y0),  v = grad_y g_i(x0, y0)
    x+ = x - alpha eta u,   y+ = y - beta eta v
    u  = (1 - a)(u - HG_i(x, y)) + HG_i(x+, y+)
    v  = (1 - a)(v - grad_y g_i(x, y)) + grad_y g_i(x+, y+)
    every p local steps: average x, y, u, v over the clients.
The method targets homogeneous clients, so HG_i uses client i's own Hessians.

Full local batches, so the run has no minibatch randomness; one fedbench round is p
iterations. With the deterministic Neumann sum it has no randomness at all; the randomized
case draws Huang 2022's eq. (13) index k as fedbench does (one draw per iteration, the same k
at the old and the new point).

Readings shared with fedbench: HG_i is the K-term deterministic sum
theta sum_{j<K} (I - theta H_i)^j (the expectation of Huang 2022's eq. (13) over its random
index; `neumann = deterministic`); the "momentum 0.1" of Zhang et al. is the STORM weight a
itself; no averaging at t = 0.
"""
import numpy as np

from bilevel_common import (QUAD, BilevelQuadratic, NeumannCoins, local_hypergradient, mean,
                            synchronise)
from refcase import Case


def local_bsgvrm(eta, alpha, beta, a, p, theta, K, randomized=False):
    def reference(inst, rounds):
        prob = BilevelQuadratic(inst)
        N = prob.n
        coins = NeumannCoins(K)
        HG = lambda i, x, y, k: local_hypergradient(prob, i, x, y, theta, K, k)
        # k: None for the deterministic sum, else eq. (13)'s index (init: round -1; step t: round t // p)
        kdraw = lambda i, rnd: coins.draw(i, rnd) if randomized else None
        x = [prob.x0.copy() for _ in range(N)]
        y = [prob.y0.copy() for _ in range(N)]
        u = [HG(i, x[i], y[i], kdraw(i, -1)) for i in range(N)]
        v = [prob.gy(i, x[i], y[i]) for i in range(N)]
        out = [np.concatenate([mean(x), mean(y)])]
        for t in range(rounds * p):
            for i in range(N):
                xn = x[i] - alpha * eta * u[i]
                yn = y[i] - beta * eta * v[i]
                k = kdraw(i, t // p)  # the same k at the old and the new point
                u[i] = (1 - a) * (u[i] - HG(i, x[i], y[i], k)) + HG(i, xn, yn, k)
                v[i] = (1 - a) * (v[i] - prob.gy(i, x[i], y[i])) + prob.gy(i, xn, yn)
                x[i], y[i] = xn, yn
            if (t + 1) % p == 0:
                synchronise(x, y, u, v)
                out.append(np.concatenate([x[0], y[0]]))
        return np.array(out)
    return reference


def params(p, eta, alpha, beta, a, theta, K, neumann="deterministic"):
    return {"local_steps": str(p), "batch_size": "0", "initial_batch": "0", "eta": str(eta),
            "alpha": str(alpha), "beta": str(beta), "momentum": str(a),
            "neumann_terms": str(K), "theta": str(theta), "neumann": neumann}


CASES = [
    Case(solver="local-bsgvrm", problem="bilevel-quadratic", problem_params=QUAD,
         solver_params=params(3, 0.1, 0.7, 1.2, 0.3, 0.15, 4),
         reference=local_bsgvrm(0.1, 0.7, 1.2, 0.3, 3, 0.15, 4),
         note="deterministic K-term Neumann sum, local Hessians; a = momentum"),
    Case(solver="local-bsgvrm", problem="bilevel-quadratic", problem_params=QUAD,
         solver_params=params(2, 0.05, 1.0, 1.0, 1.0, 0.2, 1),
         reference=local_bsgvrm(0.05, 1.0, 1.0, 1.0, 2, 0.2, 1),
         note="a = 1, K = 1 (HG without Hessian products)"),
    Case(solver="local-bsgvrm", problem="bilevel-quadratic", problem_params=QUAD,
         solver_params=params(3, 0.05, 0.8, 1.0, 0.4, 0.2, 4, neumann="randomized"),
         reference=local_bsgvrm(0.05, 0.8, 1.0, 0.4, 3, 0.2, 4, randomized=True),
         note="eq. (13) with k ~ U{0..K-1} from fedbench's neumann-k stream, the same k at both points"),
]
