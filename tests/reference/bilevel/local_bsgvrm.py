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

One fedbench round is p iterations. HG_i(x, y; xibar) is F. Huang, "Fast Adaptive Federated
Bilevel Optimization", arXiv 2211.01122, 2022, eq. (13) on one draw xibar = {xi, zeta_0..zeta_{K-1}}
(each a minibatch of b rows; B rows for the initial estimators; 0: all rows): grad_x f_i(xi) -
grad^2_xy g_i(zeta_0) u, u = K theta prod_{l=1}^{k} (I - theta grad^2_yy g_i(zeta_l)) grad_y f_i(xi),
k ~ U{0..K-1}, or its expectation over k (the deterministic K-term sum); v's gradient takes its
own zeta. The same draws (and k) at the old and the new point.

Readings shared with fedbench: HG_i is the K-term deterministic sum
theta sum_{j<K} (I - theta H_i)^j (the expectation of Huang 2022's eq. (13) over its random
index; `neumann = deterministic`); the "momentum 0.1" of Zhang et al. is the STORM weight a
itself; no averaging at t = 0; eq. (13)'s sample layout; under partial participation the
round's clients start from the server's averages of the last round (x, y, u, v; in the first
round from their own initial estimators) and the averages run over them only, a client drawn
twice running twice in turn with its own draws; the draw order and keys (streams.BilevelDraws:
xi, zeta_0..zeta_{K-1}, k from "neumann-k", then v's zeta; the initial estimators in round -1) are
fedbench's plumbing.
"""
import numpy as np

from bilevel_common import HYPER, QUAD, QUAD_Y0, on_rows_that_differ, problem, theory_neumann
from refcase import Case, States
from streams import SEED, BilevelDraws, dropout_responders, Stream, sampled_clients


def local_bsgvrm(eta, alpha, beta, a, p, theta_, K_, randomized=False, batch=0, initial_batch=0,
                 participation="full"):
    def reference(inst, rounds):
        prob = problem(inst)
        theta, K = theory_neumann(inst, rounds) if theta_ is None else (theta_, K_)
        N = prob.n

        def source(i, rnd, occ=0):
            return (BilevelDraws(i, rnd, 0, prob.samples_upper[i], prob.samples_lower[i], occ),
                    Stream(SEED, "neumann-k", i, rnd, occ << 40))

        def xibar(src, b):
            d, coins = src
            xi = d.next("upper", b)
            zetas = [d.next("lower", b) for _ in range(K)]
            return xi, zetas, (coins.below(K) if randomized else None)

        def HG(i, x, y, sample):
            xi, zetas, k = sample
            r = prob.fy(i, x, y, xi)
            if k is None:
                total = r.copy()
                for l in range(1, K):
                    r = r - theta * prob.hvp(i, x, y, r, zetas[l])
                    total = total + r
                u = theta * total
            else:
                for l in range(1, k + 1):
                    r = r - theta * prob.hvp(i, x, y, r, zetas[l])
                u = K * theta * r
            return prob.fx(i, x, y, xi) - prob.jvp(i, x, y, u, zetas[0])

        state = []  # every client's (u, v)
        for i in range(N):
            src = source(i, -1)
            u = HG(i, prob.x0, prob.y0, xibar(src, initial_batch))
            v = prob.gy(i, prob.x0, prob.y0, src[0].next("lower", initial_batch))
            state.append((u, v))
        server = None
        x_avg, y_avg = prob.x0.copy(), prob.y0.copy()
        out = [np.concatenate([x_avg, y_avg])]
        states = States()
        names = ("tracker_u", "tracker_v")
        states.averaged(0, names, server, state)
        for rnd in range(rounds):
            picked = (dropout_responders(SEED, participation, N, rnd, 0) if participation.startswith('dropout')
                      else sampled_clients(SEED, participation, N, rnd, 0))
            ups = []
            for j, i in enumerate(picked):
                x, y = x_avg.copy(), y_avg.copy()
                u, v = state[i] if server is None else (server[0].copy(), server[1].copy())
                src = source(i, rnd, picked[:j].count(i))
                for _ in range(p):
                    xn = x - alpha * eta * u
                    yn = y - beta * eta * v
                    sample = xibar(src, batch)  # the same draws at the old and the new point
                    u = (1 - a) * (u - HG(i, x, y, sample)) + HG(i, xn, yn, sample)
                    zeta = src[0].next("lower", batch)
                    v = (1 - a) * (v - prob.gy(i, x, y, zeta)) + prob.gy(i, xn, yn, zeta)
                    x, y = xn, yn
                state[i] = (u, v)
                ups.append((x, y, u, v))
            if ups:  # every p local steps: average x, y, u, v over the round's clients
                avg = [sum((w[q] for w in ups[1:]), ups[0][q].copy()) / len(ups) for q in range(4)]
                x_avg, y_avg, server = avg[0], avg[1], (avg[2], avg[3])
            out.append(np.concatenate([x_avg, y_avg]))
            states.averaged(rnd + 1, names, server, state)
        return np.array(out), states
    return reference


def case(pp, problem_name, p, eta, alpha, beta, a, theta, K, randomized=False, batch=0,
         initial_batch=0, participation="full", note=""):
    sp = {"local_steps": str(p), "batch_size": str(batch), "initial_batch": str(initial_batch),
          "eta": str(eta), "alpha": str(alpha), "beta": str(beta), "momentum": str(a),
          "neumann_terms": str(K), "theta": str(theta),
          "neumann": "randomized" if randomized else "deterministic"}
    if theta is None:  # the `theory` preset
        del sp["theta"], sp["neumann_terms"]
    return Case(solver="local-bsgvrm", problem=problem_name, problem_params=pp, solver_params=sp,
                participation=participation, note=note,
                reference=local_bsgvrm(eta, alpha, beta, a, p, theta, K, randomized, batch,
                                       initial_batch, participation))


Q2, HL = "bilevel-quadratic", "hyper-logreg"
CASES = [
    case(QUAD, Q2, 3, 0.1, 0.7, 1.2, 0.3, 0.15, 4, note="deterministic K-term Neumann sum, local Hessians"),
    case(QUAD_Y0, Q2, 2, 0.05, 1.0, 1.0, 1.0, 0.2, 1, note="y0 != 0, a = 1, K = 1"),
    case(QUAD_Y0, Q2, 3, 0.05, 0.8, 1.0, 0.4, 0.2, 4, randomized=True, batch=2, initial_batch=3,
         participation="uniform:2", note="y0 != 0, randomized k, minibatches b = 2, B = 3, uniform:2"),
    case(QUAD_Y0, Q2, 2, 0.05, 0.8, 1.0, 0.4, 0.2, 3, randomized=True, batch=2,
         participation="iid:3", note="y0 != 0, randomized k, minibatches, iid:3"),
    case(HYPER, HL, 3, 0.5, 1.0, 1.0, 0.3, 0.5, 4, note="hyper-logreg, full batches, deterministic sum"),
    case(HYPER, HL, 3, 0.5, 1.0, 1.0, 0.3, 0.5, 4, randomized=True, batch=3, initial_batch=5,
         note="hyper-logreg, randomized k, minibatches b = 3, B = 5"),
    case(HYPER, HL, 2, 0.5, 1.0, 1.0, 0.3, 0.5, 3, batch=2, initial_batch=4,
         participation="bernoulli:0.5", note="hyper-logreg, minibatches, bernoulli:0.5"),
    case(QUAD_Y0, Q2, 2, 0.05, 0.8, 1.0, 0.4, None, None, randomized=True, batch=2,
         note="theory preset, y0 != 0, randomized k, minibatches"),
    case(QUAD_Y0, Q2, 2, 0.05, 0.8, 1.0, 0.4, 0.2, 3, randomized=True, batch=2, initial_batch=3,
         participation="dropout:3:0.6", note="y0 != 0, minibatches, dropout:3:0.6"),
]

# Every y0 != 0 case again where the rows of a minibatch decide its Hessians and cross-Jacobians.
CASES += on_rows_that_differ(CASES)
