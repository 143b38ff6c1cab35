"""FedNest and LFedNest, transcribed from D. A. Tarzanagh, M. Li, C. Thrampoulidis, S. Oymak,
"FedNest: Federated Bilevel, Minimax, and Compositional Optimization", ICML 2022: Algorithm 1
(FedNest) with FedInn (Algorithm 2), FedIHGP (Algorithm 3) and FedOut (Algorithm 4), and the
light variant LFedNest of Section 4, with the authors' public code github.com/ucr-optml/FedNest
(commit 13b5e20, June 2022; files core/ClientManage.py and core/Client.py) where the paper
leaves a detail open.

FedNest, one outer iteration k over the sampled clients S (the same S in every exchange):
  FedInn (T_in times; paper Alg. 2; code ClientManage.py fed_in, lines 23-63, optim 'svrg':
      batch_grad, FedAvgGradient, set_avg_q, then SVRGClient.train_epoch):
      q = mean_{i in S} grad_y g_i(x_k, y; anchor batch);
      every i in S from y, tau steps with a fresh minibatch zeta each,
      y_i <- y_i - gamma_in (grad_y g_i(x_k, y_i; zeta) - grad_y g_i(x_k, y; zeta) + q); y = mean y_i.
  FedIHGP, series = global (paper Alg. 3): p_0 = mean_i grad_y f_i(x_k, y_{k+1}; xi_i);
      p_j = mean_i (I - theta grad^2_yy g_i(zeta_ij)) p_{j-1}, j = 1..Q-1; v = theta sum_j p_j.
  FedIHGP, series = released-code (core/ClientManage.py, fedIHGP, lines 65-97, hvp_method
      'global_batch' at lines 73-78; core/Client.py hvp_iter, lines 96-108): p = mean_i grad_y f_i
      (all of a client's validation rows, grad_d_out_d_y lines 79-93); N = Q - 1 times: every
      client keeps a counter c_i (set to p at its first call), c_i <- c_i - hlr H_i c_i with its
      own Hessian on all its rows, returns p + c_i, appended to ONE list p_locals that is never
      cleared; p = FedAvgP(p_locals), the mean of the whole list. v = p (hyper_grad receives p
      as is, ClientManage.py line 128 `client.hyper_grad(p.clone())`: no factor theta), and the
      mixed product uses all rows (Client.py hyper_grad, lines 128-141).
  FedOut (paper Alg. 4; code hyper_svrg_update, Client.py lines 148-157): h_i(x) = grad_x f_i(x,
      y_{k+1}; xi) - grad^2_xy g_i(x_k, y_{k+1}) v (the code's indirect term is computed once, in
      hyper_grad, so it is frozen at x_k); h = mean_i h_i(x_k); every i from x_k, tau steps with a
      fresh xi each, x_i <- x_i - gamma_out (grad_x f_i(x_i; xi) - grad_x f_i(x_k; xi) + h);
      x_{k+1} = mean x_i.
LFedNest (Section 4): FedInn is plain local SGD y_i <- y_i - gamma_in grad_y g_i(x_k, y_i; zeta),
  y = mean y_i; each client its own series v_i = theta sum_{j<Q} prod_{l<=j}(I - theta H_i(zeta_l))
  grad_y f_i(xi) and h_i(x) = grad_x f_i(x; xi') - grad^2_xy g_i(zeta_0) v_i; tau plain local
  steps x_i <- x_i - gamma_out h_i(x_i); x_{k+1} = mean x_i. local_hypergradient = every-step:
  the code's lfed_out (ClientManage.py lines 98-111) recomputes the local series at the current
  local x before every step (a fresh xi, zeta_0..zeta_{Q-1} each time).

fedbench's readings, not independent of it: the deterministic Q-term sum of the global series
(p_0 and Q - 1 further exchanges; the code's neumann = N is Q = N + 1); one engine round per
outer iteration, traced as (x_{k+1}, y_{k+1}); the order and keys of the minibatch draws (one
counter per client, round and exchange, shared by both levels: streams.BilevelDraws), the
anchor/series/hypergradient batches (`inner_batch` rows for q_i; `batch_size` rows for p_0, the
products and h_i(x_k) in the global series, all rows in the released-code one), and in FedOut
one minibatch xi per step used at both x_i and x_k; under partial participation the same client
set S (drawn at the round's first exchange) in every exchange of a round.
"""
import numpy as np

from bilevel_common import HYPER, QUAD, QUAD_Y0, on_rows_that_differ, problem, theory_neumann
from refcase import Case, States
from streams import SEED, BilevelDraws, dropout_responders, sampled_clients


def mean(vectors):
    """FedAvg of equally weighted clients."""
    out = np.zeros_like(vectors[0])
    for v in vectors:
        out = out + v
    return out / len(vectors)


class ByPick:
    """The problem's oracles called with a pick (client, occurrence) instead of a client id."""

    def __init__(self, prob):
        self.p = prob
        self.n, self.x0, self.y0 = prob.n, prob.x0, prob.y0
        self.samples_upper, self.samples_lower = prob.samples_upper, prob.samples_lower

    def __getattr__(self, name):
        fun = getattr(self.p, name)
        return lambda i, *a: fun(i[0], *a)


def fednest(gamma_in, gamma_out, tau, T_in, theta_, Q_, light, batch=0, inner_batch=0,
            series="global", every_step=False, participation="full", code_local_scale=False):
    theory = theta_ is None  # the `theory` preset of theta and Q
    def reference(inst, rounds):
        prob = ByPick(problem(inst))
        theta, Q = theory_neumann(inst, rounds) if theory else (theta_, Q_)
        N = prob.n
        x, y = prob.x0.copy(), prob.y0.copy()
        out = [np.concatenate([x, y])]

        def draws(i, k, phase):
            """i is (client, occurrence): a client drawn twice (iid) runs twice, each with its own
            draws (the occurrence's counter)."""
            c, occ = i
            return BilevelDraws(c, k, phase, prob.samples_upper[c], prob.samples_lower[c], occ)

        def local_series(i, k, phase_draws, xk, yk):
            """LFedNest: client i's deterministic Q-term series at (xk, yk) -> grad^2_xy g v_i."""
            xi = phase_draws.next("upper", batch)
            zetas = [phase_draws.next("lower", batch) for _ in range(Q)]
            r = prob.fy(i, xk, yk, xi)
            total = r.copy()
            for j in range(1, Q):
                r = r - theta * prob.hvp(i, xk, yk, r, zetas[j])
                total = total + r
            # the released code's lfed_out passes its hvp_iter sum to hyper_grad without hlr
            return prob.jvp(i, xk, yk, total if code_local_scale else theta * total, zetas[0])

        states = States()
        series_state = None               # (name, value): the server's last FedIHGP series
        corrections, counters_of = {}, {}  # every client's last correction and counter

        def record(row):
            if series_state is not None:
                states.server(row, *series_state)
            for c, value in sorted(corrections.items()):
                states.client(row, "hypergradient_correction", c, value)
            for c, value in sorted(counters_of.items()):
                states.client(row, "neumann_counter", c, value)

        for k in range(rounds):
            picked = (dropout_responders(SEED, participation, N, k, 0) if participation.startswith('dropout')
                      else sampled_clients(SEED, participation, N, k, 0))
            S = [(c, picked[:j].count(c)) for j, c in enumerate(picked)]
            if not S:
                out.append(np.concatenate([x, y]))
                record(k + 1)
                continue
            phase = 0
            # FedInn
            for _ in range(T_in):
                if not light:
                    q = mean([prob.gy(i, x, y, draws(i, k, phase).next("lower", inner_batch)) for i in S])
                    phase += 1
                ys = []
                for i in S:
                    d = draws(i, k, phase)
                    yi = y.copy()
                    for _ in range(tau):
                        zeta = d.next("lower", batch)
                        if light:
                            yi = yi - gamma_in * prob.gy(i, x, yi, zeta)
                        else:
                            yi = yi - gamma_in * (prob.gy(i, x, yi, zeta) - prob.gy(i, x, y, zeta) + q)
                    ys.append(yi)
                y = mean(ys)
                phase += 1
            if light:  # LFedNest's FedOut: local series and plain local steps
                xs = []
                for i in S:
                    d = draws(i, k, phase)
                    corr = local_series(i, k, d, x, y)
                    xi_ = x.copy()
                    for step in range(tau):
                        if every_step and step > 0:
                            corr = local_series(i, k, d, xi_, y)
                        xi_ = xi_ - gamma_out * (prob.fx(i, xi_, y, d.next("upper", batch)) - corr)
                    xs.append(xi_)
                    corrections[i[0]] = corr  # the last local series computed
                x = mean(xs)
                out.append(np.concatenate([x, y]))
                record(k + 1)
                continue
            # FedIHGP
            sb = 0 if series == "released-code" else batch
            p = mean([prob.fy(i, x, y, draws(i, k, phase).next("upper", sb)) for i in S])
            phase += 1
            if series == "global":
                total = p.copy()
                for _ in range(Q - 1):
                    p = mean([p - theta * prob.hvp(i, x, y, p, draws(i, k, phase).next("lower", batch)) for i in S])
                    total = total + p
                    phase += 1
                v = theta * total
                series_state = ("neumann_sum_p", total)
            else:
                counters, p_locals = {i: p.copy() for i in S}, []
                for _ in range(Q - 1):
                    for i in S:
                        counters[i] = counters[i] - theta * prob.hvp(i, x, y, counters[i])
                        p_locals.append(p + counters[i])
                    p = mean(p_locals)
                    phase += 1
                v = p
                series_state = ("neumann_p", p)
                counters_of.update({i[0]: value for i, value in counters.items()})
            # FedOut: anchor h = mean h_i(x_k), then SVRG steps with the indirect term frozen
            hs = []
            for i in S:
                d = draws(i, k, phase)
                corr = prob.jvp(i, x, y, v, d.next("lower", sb))
                corrections[i[0]] = corr
                hs.append(prob.fx(i, x, y, d.next("upper", sb)) - corr)
            h = mean(hs)
            phase += 1
            xs = []
            for i in S:
                d = draws(i, k, phase)
                xi_ = x.copy()
                for _ in range(tau):
                    b = d.next("upper", batch)
                    xi_ = xi_ - gamma_out * (prob.fx(i, xi_, y, b) - prob.fx(i, x, y, b) + h)
                xs.append(xi_)
            x = mean(xs)
            out.append(np.concatenate([x, y]))
            record(k + 1)
        return np.array(out), states
    return reference


def case(problem_name, pp, T_in, tau, gin, gout, theta, Q, light, batch=0, inner_batch=0,
         series="global", every_step=False, participation="full", note="", code_local_scale=False):
    sp = {"inner_rounds": str(T_in), "local_steps": str(tau), "batch_size": str(batch),
          "inner_batch": str(inner_batch), "neumann_terms": str(Q), "gamma_in": str(gin),
          "gamma_out": str(gout), "theta": str(theta), "light": "true" if light else "false",
          "series": series, "local_hypergradient": "every-step" if every_step else "frozen"}
    if theta is None:  # theta and neumann_terms at their default, `theory`
        del sp["theta"], sp["neumann_terms"]
    return Case(solver="lfednest" if light else "fednest", problem=problem_name, problem_params=pp,
                solver_params=sp, participation=participation, note=note,
                reference=fednest(gin, gout, tau, T_in, theta, Q, light, batch, inner_batch,
                                  series, every_step, participation, code_local_scale))


Q2, HL = "bilevel-quadratic", "hyper-logreg"
CASES = [
    case(Q2, QUAD, 1, 3, 0.1, 0.08, 0.15, 4, False, note="full batches, global series"),
    case(Q2, QUAD_Y0, 2, 2, 0.12, 0.1, 0.2, 3, False, note="y0 != 0, T_in = 2, global series"),
    case(Q2, QUAD_Y0, 1, 3, 0.1, 0.08, 0.15, 4, False, batch=2, inner_batch=3,
         participation="uniform:2", note="y0 != 0, minibatches, anchor batch, uniform:2"),
    case(Q2, QUAD_Y0, 1, 2, 0.1, 0.08, 0.15, 3, False, series="released-code",
         participation="bernoulli:0.6", note="y0 != 0, released-code series, bernoulli:0.6"),
    case(Q2, QUAD_Y0, 1, 2, 0.1, 0.08, 0.15, 3, False, series="released-code", batch=2,
         note="y0 != 0, released-code series (outer anchor on all rows), minibatch steps"),
    case(HL, HYPER, 1, 3, 0.5, 0.5, 0.5, 4, False, note="hyper-logreg, full batches, global series"),
    case(HL, HYPER, 2, 2, 0.5, 0.5, 0.5, 3, False, batch=3, inner_batch=4,
         note="hyper-logreg, minibatches and anchor batch, T_in = 2"),
    case(HL, HYPER, 1, 2, 0.5, 0.5, 0.5, 4, False, series="released-code", batch=3,
         note="hyper-logreg, released-code series (full-row products), minibatch steps"),
    case(HL, HYPER, 1, 3, 0.5, 0.5, 0.5, 3, False, batch=2, participation="iid:2",
         note="hyper-logreg, iid:2 participation"),
    case(Q2, QUAD_Y0, 2, 3, 0.1, 0.08, 0.15, 4, True, batch=2, participation="uniform:2",
         note="LFedNest, y0 != 0, minibatches, uniform:2"),
    case(HL, HYPER, 1, 3, 0.5, 0.5, 0.5, 4, True, note="LFedNest, hyper-logreg, frozen local hypergradient"),
    case(HL, HYPER, 1, 3, 0.5, 0.5, 0.5, 3, True, batch=3, every_step=True,
         note="LFedNest, hyper-logreg, every-step local hypergradient, minibatches"),
    case(HL, HYPER, 1, 2, 0.5, 0.5, 0.5, 3, True, batch=2, participation="bernoulli:0.5",
         note="LFedNest, hyper-logreg, bernoulli:0.5"),
    case(Q2, QUAD_Y0, 1, 2, 0.1, 0.08, None, None, False, batch=2,
         note="theory preset (theta = 1/L_g, Q from kappa and T), y0 != 0, minibatches"),
    case(HL, HYPER, 1, 2, 0.5, 0.5, None, None, True, batch=3,
         note="LFedNest, theory preset, hyper-logreg, minibatches"),
    case(Q2, QUAD_Y0, 1, 2, 0.1, 0.08, 0.15, 3, False, batch=2, participation="dropout:3:0.6",
         note="y0 != 0, minibatches, dropout:3:0.6"),
    case(HL, HYPER, 1, 2, 0.5, 0.5, 0.5, 3, True, batch=2, participation="dropout:2:0.6",
         note="LFedNest, hyper-logreg, dropout:2:0.6"),
]

# Every y0 != 0 case again where the rows of a minibatch decide its Hessians and cross-Jacobians.
CASES += on_rows_that_differ(CASES)

# Kept out of CASES: LFedNest as the released code computes it. core/ClientManage.py lfed_out
# (lines 98-111) builds each client's series with Client.hvp_iter (core/Client.py lines 96-108):
# starting from p_client = grad_y f_i, N calls return sum_{n=0}^{N} (I - hlr H_i)^n grad_y f_i,
# and line 107 `hg_client = client.hyper_grad(p_client.clone())` uses that sum as is, without the
# factor hlr (theta), at every local step (`client.hyper_iter=0` resets the counter each step).
# fedbench's `local_hypergradient = every-step` (documented as the code's) recomputes the series at
# every step but scales it by theta (the paper's v_i = theta sum_j ...), and its `series =
# released-code` applies to FedNest only (the solver ignores it with light = true), so no lfednest
# setting reproduces the code's scaling: this case differs from round 1 on.
DISAGREEMENTS = [
    case(HL, HYPER, 1, 3, 0.5, 0.5, 0.5, 3, True, every_step=True, series="released-code",
         code_local_scale=True,
         note="LFedNest as the released code computes it: every-step local series without theta"),
]
