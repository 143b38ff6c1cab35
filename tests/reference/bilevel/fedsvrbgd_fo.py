"""FedSVRBGD-FO, transcribed from Y. Zhang, R. Dhaipule, C. C. Tan, H. Ling, H. Gao, "Federated
Stochastic Bilevel Optimization with Fully First-Order Gradients", IJCAI 2025, Algorithm 1 with
eqs. (5)-(7), on the penalty minimax L_lambda(x, y, z) = f(x, y) + lambda (g(x, y) - g(x, z))
of eqs. (3)-(4).

Written in the paper's DECOMPOSED form: six STORM estimators per client,
u1 ~ grad_1 f(x,y), u2 ~ grad_1 g(x,y), u3 ~ grad_1 g(x,z), v1 ~ grad_2 f(x,y),
v2 ~ grad_2 g(x,y), w1 ~ grad_2 g(x,z), composed into m_x = u1 + lambda (u2 - u3),
m_y = v1 + lambda v2, m_z = lambda w1 (step 1 and steps 5-8). Steps 3-5 move x, y, z with the
CURRENT estimators; step 9 averages x, y, z and all six estimators when mod(t+1, p) = 0.
(fedbench runs an equivalent compact form; the decomposed one here checks that equivalence.)

Full local batches (B = b = the whole local data), so the run has no randomness. One fedbench
round is p iterations; the traced model is (x, y) after the round's averaging.

Readings shared with fedbench (its documented choices where the experiments are silent):
- "momentum 0.1": the STORM weight a (the paper's beta eta^2) is either `momentum` itself
  (a_direct) or momentum * eta^2 (beta_times_eta2, the literal parameterisation);
- z_0 = y_0 (the problem's start point); no averaging at t = 0 (step 9 needs mod(t+1, p) = 0).
"""
import numpy as np

from bilevel_common import QUAD, BilevelQuadratic, mean, synchronise
from refcase import Case


def fedsvrbgd_fo(eta, alpha_x, alpha_y, alpha_z, lam, a, p):
    def reference(inst, rounds):
        prob = BilevelQuadratic(inst)
        N = prob.n
        x = [prob.x0.copy() for _ in range(N)]
        y = [prob.y0.copy() for _ in range(N)]
        z = [prob.y0.copy() for _ in range(N)]  # z_0 = y_0
        # Step 1: the estimators at t = 0 on every client (batch B: the whole local data).
        u1 = [prob.fx(n, x[n], y[n]) for n in range(N)]
        u2 = [prob.gx(n, x[n], y[n]) for n in range(N)]
        u3 = [prob.gx(n, x[n], z[n]) for n in range(N)]
        v1 = [prob.fy(n, x[n], y[n]) for n in range(N)]
        v2 = [prob.gy(n, x[n], y[n]) for n in range(N)]
        w1 = [prob.gy(n, x[n], z[n]) for n in range(N)]
        out = [np.concatenate([mean(x), mean(y)])]
        for t in range(rounds * p):
            for n in range(N):
                mx = u1[n] + lam * (u2[n] - u3[n])
                my = v1[n] + lam * v2[n]
                mz = lam * w1[n]
                # Steps 3-5 (Jacobi: all three with the estimators of iteration t).
                xn = x[n] - alpha_x * eta * mx
                yn = y[n] - alpha_y * eta * my
                zn = z[n] - alpha_z * eta * mz
                xo, yo, zo = x[n], y[n], z[n]
                # Steps 6-8, eq. (5)-(7): (1 - beta eta^2)(old estimator - grad at old point) + grad at new point.
                u1[n] = (1 - a) * (u1[n] - prob.fx(n, xo, yo)) + prob.fx(n, xn, yn)
                u2[n] = (1 - a) * (u2[n] - prob.gx(n, xo, yo)) + prob.gx(n, xn, yn)
                u3[n] = (1 - a) * (u3[n] - prob.gx(n, xo, zo)) + prob.gx(n, xn, zn)
                v1[n] = (1 - a) * (v1[n] - prob.fy(n, xo, yo)) + prob.fy(n, xn, yn)
                v2[n] = (1 - a) * (v2[n] - prob.gy(n, xo, yo)) + prob.gy(n, xn, yn)
                w1[n] = (1 - a) * (w1[n] - prob.gy(n, xo, zo)) + prob.gy(n, xn, zn)
                x[n], y[n], z[n] = xn, yn, zn
            # Step 9.
            if (t + 1) % p == 0:
                synchronise(x, y, z, u1, u2, u3, v1, v2, w1)
                out.append(np.concatenate([x[0], y[0]]))
        return np.array(out)
    return reference


def params(p, eta, ax, ay, az, lam, momentum, mode):
    return {"local_steps": str(p), "batch_size": "0", "initial_batch": "0", "eta": str(eta),
            "alpha_x": str(ax), "alpha_y": str(ay), "alpha_z": str(az), "lambda": str(lam),
            "momentum": str(momentum), "momentum_mode": mode}


CASES = [
    Case(solver="fedsvrbgd-fo", problem="bilevel-quadratic", problem_params=QUAD,
         solver_params=params(3, 0.05, 0.5, 0.3, 0.2, 2.0, 0.3, "a_direct"),
         reference=fedsvrbgd_fo(0.05, 0.5, 0.3, 0.2, 2.0, 0.3, 3),
         note="a = momentum (a_direct); z0 = y0"),
    Case(solver="fedsvrbgd-fo", problem="bilevel-quadratic", problem_params=QUAD,
         solver_params=params(2, 0.1, 0.4, 0.25, 0.15, 1.5, 0.8, "beta_times_eta2"),
         reference=fedsvrbgd_fo(0.1, 0.4, 0.25, 0.15, 1.5, 0.8 * 0.1 ** 2, 2),
         note="a = beta eta^2 (beta_times_eta2); z0 = y0"),
    Case(solver="fedsvrbgd-fo", problem="bilevel-quadratic", problem_params=QUAD,
         solver_params=params(1, 0.05, 0.3, 0.3, 0.3, 3.0, 0.1, "a_direct"),
         reference=fedsvrbgd_fo(0.05, 0.3, 0.3, 0.3, 3.0, 0.1, 1),
         note="p = 1; z0 = y0"),
]
