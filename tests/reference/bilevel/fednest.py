"""FedNest and LFedNest, transcribed from D. A. Tarzanagh, M. Li, C. Thrampoulidis, S. Oymak,
"FedNest: Federated Bilevel, Minimax, and Compositional Optimization", ICML 2022: Algorithm 1
(FedNest) with FedInn (Algorithm 2), FedIHGP (Algorithm 3) and FedOut (Algorithm 4), in the
form of the authors' public code (github.com/ucr-optml/FedNest), and the light variant
LFedNest of Section 4 (local SGD in FedInn, a local Neumann series, plain local SGD on x).

FedNest, one outer iteration k:
  FedInn (T_in times): q = mean_i grad_y g_i(x_k, y) (full local data); every client from y,
      tau steps y_i <- y_i - gamma_in (grad_y g_i(x_k, y_i) - grad_y g_i(x_k, y) + q); y = mean y_i.
  FedIHGP (global Neumann): p_0 = mean_i grad_y f_i(x_k, y_{k+1});
      p_j = mean_i (I - theta grad^2_yy g_i) p_{j-1};  v = theta sum_j p_j.
  FedOut: h_i(x) = grad_x f_i(x, y_{k+1}) - grad^2_xy g_i(x_k, y_{k+1}) v (second-order term frozen
      at x_k, as in the code); h = mean_i h_i(x_k); every client from x_k,
      tau steps x_i <- x_i - gamma_out (h_i(x_i) - h_i(x_k) + h); x_{k+1} = mean x_i.
LFedNest: FedInn is plain local SGD y_i <- y_i - gamma_in grad_y g_i(x_k, y_i), then y = mean y_i;
  each client its own series v_i = theta sum_j (I - theta grad^2_yy g_i)^j grad_y f_i and
  h_i(x) = grad_x f_i(x, y_{k+1}) - grad^2_xy g_i(x_k, y_{k+1}) v_i; tau plain local steps
  x_i <- x_i - gamma_out h_i(x_i); x_{k+1} = mean x_i.

Full local batches and full participation, so the run has no randomness. One fedbench round is
one outer iteration; the traced model is (x_{k+1}, y_{k+1}).

Readings shared with fedbench: the Neumann series has Q terms in total (p_0 and Q - 1 further
exchanges, v = theta sum_{j=0}^{Q-1} p_j); the code's v includes the factor theta (its hlr);
the SVRG anchor q_i uses the whole local lower data (`inner_batch = 0`).
"""
import numpy as np

from bilevel_common import QUAD, BilevelQuadratic, mean, neumann_inverse
from refcase import Case


def fednest(gamma_in, gamma_out, tau, T_in, theta, Q, light):
    def reference(inst, rounds):
        prob = BilevelQuadratic(inst)
        N = prob.n
        x = prob.x0.copy()
        y = prob.y0.copy()
        out = [np.concatenate([x, y])]
        for k in range(rounds):
            # FedInn
            for _ in range(T_in):
                if not light:
                    q = mean([prob.gy(i, x, y) for i in range(N)])
                ys = []
                for i in range(N):
                    yi = y.copy()
                    for _ in range(tau):
                        if light:
                            yi = yi - gamma_in * prob.gy(i, x, yi)
                        else:
                            yi = yi - gamma_in * (prob.gy(i, x, yi) - prob.gy(i, x, y) + q)
                    ys.append(yi)
                y = mean(ys)
            # FedIHGP
            if light:
                v = [neumann_inverse(lambda w, i=i: prob.hvp(i, x, y, w), prob.fy(i, x, y), theta, Q)
                     for i in range(N)]
            else:
                pj = mean([prob.fy(i, x, y) for i in range(N)])
                total = pj.copy()
                for _ in range(Q - 1):
                    pj = mean([pj - theta * prob.hvp(i, x, y, pj) for i in range(N)])
                    total = total + pj
                v = [theta * total] * N
            # FedOut (the indirect term frozen at x_k)
            corr = [prob.jvp(i, x, y, v[i]) for i in range(N)]
            h_at = lambda i, xi: prob.fx(i, xi, y) - corr[i]
            if not light:
                h = mean([h_at(i, x) for i in range(N)])
            xs = []
            for i in range(N):
                xi = x.copy()
                for _ in range(tau):
                    if light:
                        xi = xi - gamma_out * h_at(i, xi)
                    else:
                        xi = xi - gamma_out * (h_at(i, xi) - h_at(i, x) + h)
                xs.append(xi)
            x = mean(xs)
            out.append(np.concatenate([x, y]))
        return np.array(out)
    return reference


def params(T_in, tau, gin, gout, theta, Q):
    return {"inner_rounds": str(T_in), "local_steps": str(tau), "batch_size": "0",
            "inner_batch": "0", "neumann_terms": str(Q), "gamma_in": str(gin),
            "gamma_out": str(gout), "theta": str(theta)}


CASES = [
    Case(solver="fednest", problem="bilevel-quadratic", problem_params=QUAD,
         solver_params={**params(1, 3, 0.1, 0.08, 0.15, 4), "light": "false"},
         reference=fednest(0.1, 0.08, 3, 1, 0.15, 4, light=False),
         note="Q-term global Neumann sum, theta inside v; anchor q on full data"),
    Case(solver="fednest", problem="bilevel-quadratic", problem_params=QUAD,
         solver_params={**params(2, 2, 0.12, 0.1, 0.2, 3), "light": "false"},
         reference=fednest(0.12, 0.1, 2, 2, 0.2, 3, light=False),
         note="T_in = 2; Q-term global Neumann sum"),
    Case(solver="lfednest", problem="bilevel-quadratic", problem_params=QUAD,
         solver_params={**params(1, 3, 0.1, 0.08, 0.15, 4), "light": "true"},
         reference=fednest(0.1, 0.08, 3, 1, 0.15, 4, light=True),
         note="local Q-term Neumann sums"),
    Case(solver="lfednest", problem="bilevel-quadratic", problem_params=QUAD,
         solver_params={**params(2, 2, 0.12, 0.1, 0.2, 3), "light": "true"},
         reference=fednest(0.12, 0.1, 2, 2, 0.2, 3, light=True),
         note="T_in = 2; local Q-term Neumann sums"),
]
