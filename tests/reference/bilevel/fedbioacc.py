"""FedBiOAcc and FedBiO, transcribed from J. Li, F. Huang, H. Huang, "Communication-Efficient
Federated Bilevel Optimization with Local and Global Lower Level Problems", NeurIPS 2023
(arXiv 2205.01608; run as a baseline by Y. Zhang et al., IJCAI 2025, Section 5.1, and listed in
Table 1 of F. Huang, arXiv 2211.01122, 2022), the global-lower-level method.

The Hessian-inverse-vector product is the solution of the federated quadratic
u* = argmin_u (1/M) sum_i [1/2 u^T grad^2_yy g_i u - u^T grad_y f_i]; every client keeps
(x, y, u) and STORM trackers omega (y), nu (u), chi (x):
    y+ = y - c_y eta omega,  u+ = Proj_{||u|| <= r}(u - c_u eta nu),  x+ = x - c_x eta chi
    omega = grad_y g(+) + (1 - a)(omega - grad_y g(old))
    nu    = [H(+) u+ - grad_y f(+)] + (1 - a)(nu - [H(old) u - grad_y f(old)])
    chi   = [grad_x f(+) - J(+) u+] + (1 - a)(chi - [grad_x f(old) - J(old) u])
with H = grad^2_yy g_i, J = grad^2_xy g_i; every p local steps average x, y, u and the trackers.
FedBiO is the same scheme with plain gradients (a = 1).

Full local batches, so the run has no randomness. One fedbench round is p iterations.

Readings shared with fedbench (documented there; the IJCAI 2025 experiments are silent): a
constant step eta for the three blocks, scaled by per-block factors c_x, c_y, c_u (Li et al.'s
multipliers of their decaying rate a_t, which is not used here); the momentum
coefficient is the STORM weight a; u_0 = 0; the initial trackers at (x0, y0, u0) on each
client's data, not averaged at t = 0; the projection radius r = 0 means no projection.
"""
import numpy as np

from bilevel_common import QUAD, BilevelQuadratic, mean, synchronise
from refcase import Case


def fedbioacc(eta, a, p, radius=0.0, cx=1.0, cy=1.0, cu=1.0):
    ex, ey, eu = eta * cx, eta * cy, eta * cu

    def reference(inst, rounds):
        prob = BilevelQuadratic(inst)
        N = prob.n

        def proj(u):
            nrm = np.linalg.norm(u)
            return u * (radius / nrm) if radius > 0 and nrm > radius else u

        def grads(i, x, y, u):
            om = prob.gy(i, x, y)
            nu = prob.hvp(i, x, y, u) - prob.fy(i, x, y)
            chi = prob.fx(i, x, y) - prob.jvp(i, x, y, u)
            return om, nu, chi

        x = [prob.x0.copy() for _ in range(N)]
        y = [prob.y0.copy() for _ in range(N)]
        u = [np.zeros(prob.dy) for _ in range(N)]
        om, nu, chi = [], [], []
        for i in range(N):
            g = grads(i, x[i], y[i], u[i])
            om.append(g[0]); nu.append(g[1]); chi.append(g[2])
        out = [np.concatenate([mean(x), mean(y)])]
        for t in range(rounds * p):
            for i in range(N):
                yn = y[i] - ey * om[i]
                un = proj(u[i] - eu * nu[i])
                xn = x[i] - ex * chi[i]
                new = grads(i, xn, yn, un)
                old = grads(i, x[i], y[i], u[i])
                om[i] = new[0] + (1 - a) * (om[i] - old[0])
                nu[i] = new[1] + (1 - a) * (nu[i] - old[1])
                chi[i] = new[2] + (1 - a) * (chi[i] - old[2])
                x[i], y[i], u[i] = xn, yn, un
            if (t + 1) % p == 0:
                synchronise(x, y, u, om, nu, chi)
                out.append(np.concatenate([x[0], y[0]]))
        return np.array(out)
    return reference


def params(p, eta, a, radius, cx=1.0, cy=1.0, cu=1.0):
    return {"local_steps": str(p), "batch_size": "0", "initial_batch": "0", "eta": str(eta),
            "x_step_factor": str(cx), "y_step_factor": str(cy), "u_step_factor": str(cu),
            "momentum": str(a), "u_radius": str(radius)}


CASES = [
    Case(solver="fedbioacc", problem="bilevel-quadratic", problem_params=QUAD,
         solver_params=params(3, 0.08, 0.3, 0),
         reference=fedbioacc(0.08, 0.3, 3),
         note="one step eta for x, y, u; u0 = 0; a = momentum"),
    Case(solver="fedbioacc", problem="bilevel-quadratic", problem_params=QUAD,
         solver_params=params(2, 0.1, 0.5, 0.3),
         reference=fedbioacc(0.1, 0.5, 2, radius=0.3),
         note="u projected on ||u|| <= 0.3; u0 = 0"),
    Case(solver="fedbioacc", problem="bilevel-quadratic", problem_params=QUAD,
         solver_params=params(3, 0.1, 0.4, 0, cx=0.6, cy=1.3, cu=0.8),
         reference=fedbioacc(0.1, 0.4, 3, cx=0.6, cy=1.3, cu=0.8),
         note="distinct step factors c_x, c_y, c_u; u0 = 0"),
    Case(solver="fedbio", problem="bilevel-quadratic", problem_params=QUAD,
         solver_params=params(3, 0.1, 1, 0),
         reference=fedbioacc(0.1, 1.0, 3),
         note="FedBiO: a = 1; u0 = 0"),
]
