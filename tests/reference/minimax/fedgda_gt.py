"""FedGDA-GT, transcribed from Z. Sun, E. Wei, "A Communication-Efficient Algorithm with Linear
Convergence for Federated Minimax Learning", NeurIPS 2022 (arXiv 2206.01132), Algorithm 1, as
run as a baseline by S. Zhang, S. Choudhury, S. U. Stich, N. Loizou, ICLR 2024, Section 5.
Round t: the server sends z_t = (x_t, y_t), every agent returns its gradients at z_t, the server
sends back their mean; each agent runs K gradient-tracking descent-ascent steps from z_t,
    x <- x - gamma (grad_x f_i(x, y) - grad_x f_i(z_t) + grad_x f(z_t)),
    y <- y + gamma (grad_y f_i(x, y) - grad_y f_i(z_t) + grad_y f(z_t)),
and the server averages the agents' models. Deterministic (full local gradients). The paper
has every agent in every round; under partial participation (fedbench's extension) one sampled
set does both exchanges of a round.
"""
import numpy as np

from games import (QUADRATIC_GAME as GAME, GAME_OFF_ZERO, PARTIAL, affine_operator as operator,
                   max_client_norm, strong_monotonicity)
from refcase import Case, States
from streams import SEED, participants


def theory_step(inst, K):
    """The step of Zhang et al.'s code for their Fig. 1(a) baseline, citing p. 20 of Sun & Wei
    (Zhang et al.'s text gives no formula; fedbench documents the same source):
    gamma = 1/2 min{2 mu / L^2, 1/(2 mu K), r+}, r+ the positive root of
    L^4 K^4 g^3 + 2 L^2 K^2 g - mu K = 0, L = max_i ||M_i||_2, mu = min_i lambda_min(sym M_i)."""
    L, mu = max_client_norm(inst), strong_monotonicity(inst)
    a, b, c = L ** 4 * K ** 4, 2 * L ** 2 * K ** 2, mu * K
    lo, hi = 0.0, c / b  # the cubic is increasing; at c/b it is >= 0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if a * mid ** 3 + b * mid - c < 0:
            lo = mid
        else:
            hi = mid
    return 0.5 * min(2 * mu / L ** 2, 1 / (2 * mu * K), 0.5 * (lo + hi))


def fedgda_gt(gamma, local_steps, participation="full"):
    def reference(inst, rounds):
        nonlocal gamma
        if gamma is None:
            gamma = theory_step(inst, local_steps)
        n = int(inst.attrs["num_clients"])
        z = np.array(inst["initial_point"], dtype=float)
        out = [z.copy()]
        states = States()
        F, anchors = None, {}  # F(x-bar) and every agent's last (x-bar, f_i(x-bar))

        def record(r):
            if F is not None:
                states.server(r, "tracking_mean_F", F)
            for i, (bar, f_i) in sorted(anchors.items()):
                states.client(r, "anchor_x_bar", i, bar)
                states.client(r, "tracking_f_i", i, f_i)

        record(0)
        for t in range(rounds):
            agents = [i for i, _ in participants(SEED, participation, n, t, 0)]
            if not agents:  # nobody sampled: the round changes nothing
                out.append(z.copy())
                record(t + 1)
                continue
            at_z = [operator(inst, i, z) for i in agents]
            F = np.mean(at_z, axis=0)
            anchors.update({i: (z.copy(), f_i) for i, f_i in zip(agents, at_z)})
            models = []
            for i, at_z_i in zip(agents, at_z):
                w = z.copy()
                for _ in range(local_steps):
                    w = w - gamma * (operator(inst, i, w) - at_z_i + F)
                models.append(w)
            z = np.mean(models, axis=0)
            out.append(z.copy())
            record(t + 1)
        return np.array(out), states
    return reference


CASES = [
    Case(solver="fedgda-gt", problem="quadratic-game", problem_params=GAME,
         solver_params={"local_steps": "3", "step_size": "0.3"},
         reference=fedgda_gt(0.3, 3)),
    Case(solver="fedgda-gt", problem="quadratic-game", problem_params=GAME,
         solver_params={"local_steps": "1", "step_size": "0.5"},
         reference=fedgda_gt(0.5, 1)),
    Case(solver="fedgda-gt", problem="quadratic-game", problem_params=GAME,
         solver_params={"local_steps": "4"}, reference=fedgda_gt(None, 4),
         note="theory step of Zhang et al.'s code (Sun & Wei p. 20)"),
] + [
    Case(solver="fedgda-gt", problem="quadratic-game", problem_params=GAME_OFF_ZERO,
         solver_params={"local_steps": "3", "step_size": "0.3"}, participation=mode,
         reference=fedgda_gt(0.3, 3, mode), note=f"{mode}, z_0 != 0; one client set for both exchanges")
    for mode in PARTIAL
]
