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

With minibatches every local y step draws a fresh zeta, and HG_i is taken on one draw
{xi, zeta_0..zeta_{Q-1}} in the form of F. Huang, "Fast Adaptive Federated Bilevel
Optimization", arXiv 2211.01122, 2022, eq. (13): grad_x f_i(xi) - grad^2_xy g_i(zeta_0) u with
u = theta sum_{j<Q} prod_{l=1}^{j} (I - theta grad^2_yy g_i(zeta_l)) grad_y f_i(xi) (deterministic),
or u = Q theta prod_{l=1}^{k} (...) grad_y f_i(xi), k ~ U{0..Q-1} (randomized). The traced model is
(x_{k+1}, y_{k+1}).

fedbench's readings, not independent of it (the FedMBO paper is not transcribed here; Zhang et
al. state the rules in words only): the round's two exchanges; each client's own Hessians in the
series (no relay of the vector through sampled clients); the deterministic Q-term Neumann sum
(`neumann = deterministic`, the FedNest code's form); eq. (13)'s sample layout; under partial
participation one client set S per round for both exchanges, means over S (a client drawn twice
runs twice with its own draws); the minibatch and k draw order (streams.BilevelDraws, xi,
zeta_0..zeta_{Q-1} then k) is fedbench's plumbing.
"""
import numpy as np

from bilevel_common import HYPER, QUAD, QUAD_Y0, on_rows_that_differ, problem, theory_neumann
from refcase import Case, States
from streams import SEED, BilevelDraws, dropout_responders, Stream, sampled_clients


def mean(vectors):
    out = np.zeros_like(vectors[0])
    for v in vectors:
        out = out + v
    return out / len(vectors)


def fedmbo(gamma_x, gamma_y, p, theta_, Q_, randomized=False, batch=0, participation="full"):
    def reference(inst, rounds):
        prob = problem(inst)
        theta, Q = theory_neumann(inst, rounds) if theta_ is None else (theta_, Q_)
        N = prob.n
        x = prob.x0.copy()
        y = prob.y0.copy()
        out = [np.concatenate([x, y])]
        states = States()
        h = None  # the last round's hypergradient mean_i h_i
        for rnd in range(rounds):
            picked = (dropout_responders(SEED, participation, N, rnd, 0) if participation.startswith('dropout')
                      else sampled_clients(SEED, participation, N, rnd, 0))
            S = [(i, picked[:j].count(i)) for j, i in enumerate(picked)]
            if not S:
                out.append(np.concatenate([x, y]))
                if h is not None:
                    states.server(rnd + 1, "hypergradient_h", h)
                continue
            ys = []
            for i, occ in S:
                d = BilevelDraws(i, rnd, 0, prob.samples_upper[i], prob.samples_lower[i], occ)
                yi = y.copy()
                for _ in range(p):
                    yi = yi - gamma_y * prob.gy(i, x, yi, d.next("lower", batch))
                ys.append(yi)
            y = mean(ys)
            hs = []
            for i, occ in S:
                d = BilevelDraws(i, rnd, 1, prob.samples_upper[i], prob.samples_lower[i], occ)
                xi = d.next("upper", batch)
                zetas = [d.next("lower", batch) for _ in range(Q)]
                r = prob.fy(i, x, y, xi)
                if randomized:
                    k = Stream(SEED, "neumann-k", i, rnd, occ << 40).below(Q)
                    for l in range(1, k + 1):
                        r = r - theta * prob.hvp(i, x, y, r, zetas[l])
                    u = Q * theta * r
                else:
                    total = r.copy()
                    for l in range(1, Q):
                        r = r - theta * prob.hvp(i, x, y, r, zetas[l])
                        total = total + r
                    u = theta * total
                hs.append(prob.fx(i, x, y, xi) - prob.jvp(i, x, y, u, zetas[0]))
            h = mean(hs)
            x = x - gamma_x * h
            out.append(np.concatenate([x, y]))
            states.server(rnd + 1, "hypergradient_h", h)
        return np.array(out), states
    return reference


def case(pp, problem_name, p, gx, gy, theta, Q, randomized=False, batch=0, participation="full", note=""):
    sp = {"local_steps": str(p), "batch_size": str(batch), "gamma_x": str(gx), "gamma_y": str(gy),
          "neumann_terms": str(Q), "theta": str(theta),
          "neumann": "randomized" if randomized else "deterministic"}
    if theta is None:  # the `theory` preset
        del sp["theta"], sp["neumann_terms"]
    return Case(solver="fedmbo", problem=problem_name, problem_params=pp, solver_params=sp,
                participation=participation, note=note,
                reference=fedmbo(gx, gy, p, theta, Q, randomized, batch, participation))


Q2, HL = "bilevel-quadratic", "hyper-logreg"
CASES = [
    case(QUAD, Q2, 3, 0.2, 0.1, 0.15, 4, note="local Hessians; deterministic Q-term Neumann sum"),
    case(QUAD_Y0, Q2, 1, 0.3, 0.2, 0.25, 6, note="y0 != 0, p = 1, deterministic sum"),
    case(QUAD_Y0, Q2, 2, 0.2, 0.15, 0.2, 4, randomized=True, batch=2, participation="uniform:2",
         note="y0 != 0, randomized k, minibatches, uniform:2"),
    case(QUAD_Y0, Q2, 2, 0.2, 0.15, 0.2, 4, randomized=True, batch=2, participation="iid:3",
         note="y0 != 0, randomized k, minibatches, iid:3 (repeated clients)"),
    case(HYPER, HL, 3, 0.5, 0.5, 0.5, 4, note="hyper-logreg, full batches, deterministic sum"),
    case(HYPER, HL, 3, 0.5, 0.5, 0.5, 4, batch=3, participation="bernoulli:0.5",
         note="hyper-logreg, minibatches, bernoulli:0.5"),
    case(HYPER, HL, 2, 0.5, 0.5, 0.5, 5, randomized=True, batch=2,
         note="hyper-logreg, randomized k, minibatches"),
    case(QUAD_Y0, Q2, 2, 0.2, 0.15, None, None, batch=2, note="theory preset, y0 != 0, minibatches"),
    case(HYPER, HL, 2, 0.5, 0.5, None, None, randomized=True, batch=2,
         note="theory preset, hyper-logreg, randomized k"),
    case(QUAD_Y0, Q2, 2, 0.2, 0.15, 0.2, 4, randomized=True, batch=2, participation="dropout:3:0.6",
         note="y0 != 0, randomized k, minibatches, dropout:3:0.6"),
]

# Every y0 != 0 case again where the rows of a minibatch decide its Hessians and cross-Jacobians.
CASES += on_rows_that_differ(CASES)
