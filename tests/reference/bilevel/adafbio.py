"""AdaFBiO and non-adaptive AdaFBiO, transcribed from F. Huang, "Fast Adaptive Federated Bilevel
Optimization", arXiv 2211.01122, 2022: Algorithm 1 (lines 1-22) with eqs. (6)-(13), the
schedules of Theorem 1 (eta_t = k M^(1/3) / (n + t)^(1/3), alpha_{t+1} = c1 eta_t^2,
beta_{t+1} = c2 eta_t^2), and Theorem 2 (the non-adaptive version, A_t = I, B_t = I).

Every client m keeps x^m, y^m and STORM trackers v^m (lower gradient) and w^m (its local Neumann
hypergradient, eq. (13)). For t = 1..T:
  t mod q == 0 (lines 4-8): the server averages x, y, v, w, generates A_t, B_t (line 6: Adam-type
      a_t = varrho a_{t-1} + (1 - varrho) wbar^2, A_t = diag(sqrt(a_t) + rho),
      b_t = varrho b_{t-1} + (1 - varrho) ||vbar||, B_t = (b_t + rho) I; AdaBelief-type eqs. (6)-(7)
      with wbar_t - wbar_{t0}, vbar_t - vbar_{t0}) and steps
      ytilde = ybar - lambda B^-1 vbar, y_{t+1} = ybar + eta_t (ytilde - ybar) (lines 7-8),
      xtilde = xbar - gamma A^-1 wbar,  x_{t+1} = xbar + eta_t (xtilde - xbar);
  otherwise (lines 10-13): y^m -= lambda eta_t B_t^-1 v^m, x^m -= gamma eta_t A_t^-1 w^m (eq. (12));
  then (lines 16-19, eqs. (8)-(9)) on every client with the same sample at both points
      v^m = grad_y g^m(new) + (1 - alpha_{t+1})(v^m - grad_y g^m(x_t^m, y_t^m)),
      w^m = HG^m(new) + (1 - beta_{t+1})(w^m - HG^m(x_t^m, y_t^m)).
Line 2 initialises v^m, w^m at (x_1, y_1) and "generates A_1, B_1".

Samples (line 17 and eq. (13)): K + 1 independent samples xibar = {xi, zeta_0, .., zeta_{K-1}} and
one zeta for v, each a minibatch of `batch_size` rows (0: all of the client's rows);
    HG^m(x, y; xibar) = grad_x f^m(x, y; xi) - grad^2_xy g^m(x, y; zeta_0)
                        [K theta prod_{i=1}^{k} (I - theta grad^2_yy g^m(x, y; zeta_i))] grad_y f^m(x, y; xi),
k ~ U{0..K-1} (`neumann = randomized`), or its expectation over k, the deterministic sum
theta sum_{j<K} prod_{i<=j}(...) (`neumann = deterministic`). Line 2's initial trackers use one
such draw of `initial_batch` rows. The minibatches and k come from fedbench's streams, in its
draw order (streams.BilevelDraws: xi, zeta_0..zeta_{K-1}, then k, then v's zeta; line 2 in round
-1): the plumbing of randomness. Rounds:
fedbench's round 0 is line 2 (A_1, B_1 from the averaged initial trackers); round r >= 1 ends
with the synchronisation at t = r q, and its traced model is (x_{rq+1}, y_{rq+1}); the model
traced after round 0 is still (x_1, y_1).

Readings shared with fedbench (its documented resolutions of what Algorithm 1 leaves open):
- A_1, B_1 come from the clients' initial trackers averaged on the server, with the line-6
  rule from a_0 = 0, b_0 = 0 (and a zero AdaBelief reference before it);
- `estimator_sync = average`: after a synchronisation the trackers continue from vbar, wbar
  (`none`: each client keeps its own, the literal reading); `storm_anchor = local`: the STORM
  correction at a synchronisation is taken at the client's own pre-average iterate x_t^m
  (`averaged`: at (xbar_t, ybar_t));
- AdaBelief's reference at the first synchronisation is the initial averages (the previous
  generation of the matrices);
- alpha_{t+1} = min(1, c1 eta_t^2), beta_{t+1} = min(1, c2 eta_t^2) (Theorem 1's n keeps
  them below 1; fedbench clips them when it does not);
- HG^m is the K-term deterministic sum theta sum_{j<K} (I - theta H^m)^j, the expectation of
  eq. (13) over its index k (`neumann = deterministic`);
- the AMSGrad and AdaGrad rules are not in the paper: transcribed from fedbench's documented
  formulas (amsgrad: ahat = max(ahat, a) of the Adam a; adagrad: a += wbar^2,
  b = sqrt(b^2 + ||vbar||^2)).
"""
import numpy as np

from bilevel_common import HYPER, QUAD, QUAD_Y0, on_rows_that_differ, problem, theory_neumann
from refcase import Case, States
from streams import BilevelDraws, Stream


def mean(vectors):
    """The server's uniform average over the M clients."""
    out = np.zeros_like(vectors[0])
    for v in vectors:
        out = out + v
    return out / len(vectors)


def hypergradient(prob, m, x, y, sample, theta, K):
    """Eq. (13) on the draw sample = (xi, [zeta_0..zeta_{K-1}], k); k None: the K-term sum."""
    xi, zetas, k = sample
    r = prob.fy(m, x, y, xi)
    if k is None:
        total = r.copy()
        for i in range(1, K):
            r = r - theta * prob.hvp(m, x, y, r, zetas[i])
            total = total + r
        u = theta * total
    else:
        for i in range(1, k + 1):
            r = r - theta * prob.hvp(m, x, y, r, zetas[i])
        u = K * theta * r
    return prob.fx(m, x, y, xi) - prob.jvp(m, x, y, u, zetas[0])


class Matrices:
    """The server's adaptive-matrix state (Algorithm 1 line 6; eqs. (6)-(7))."""

    def __init__(self, rule, rho, varrho, dx):
        self.rule, self.rho, self.varrho = rule, rho, varrho
        self.a = np.zeros(dx)
        self.ahat = np.zeros(dx)
        self.b = 0.0
        self.w_ref = np.zeros(dx)
        self.v_ref = None

    def generate(self, wbar, vbar):
        if self.rule == "identity":
            return
        vr = np.zeros_like(vbar) if self.v_ref is None else self.v_ref
        if self.rule == "adagrad":
            self.a = self.a + wbar ** 2
            self.b = np.sqrt(self.b ** 2 + vbar @ vbar)
        else:
            ws = wbar - self.w_ref if self.rule == "adabelief" else wbar
            vs = np.linalg.norm(vbar - vr) if self.rule == "adabelief" else np.linalg.norm(vbar)
            self.a = self.varrho * self.a + (1 - self.varrho) * ws ** 2
            self.b = self.varrho * self.b + (1 - self.varrho) * vs
        if self.rule == "amsgrad":
            self.ahat = np.maximum(self.ahat, self.a)
        self.w_ref, self.v_ref = wbar.copy(), vbar.copy()

    def a_inv(self, w):
        if self.rule == "identity":
            return w
        a = self.ahat if self.rule == "amsgrad" else self.a
        return w / (np.sqrt(a) + self.rho)

    def b_inv(self, v):
        return v if self.rule == "identity" else v / (self.b + self.rho)


def adafbio(rule="adam", q=3, K_=4, theta_=0.15, k=1.0, n_=8.0, scaling=True, c1=0.8, c2=0.6,
            gamma=0.05, lam=0.2, rho=0.1, varrho=0.9, sync="average", anchor="local",
            neumann="deterministic", batch=0, initial_batch=0):
    def reference(inst, rounds):
        prob = problem(inst)
        M = prob.n
        theta, K = theory_neumann(inst, rounds) if theta_ is None else (theta_, K_)
        n = max(k ** 3 * M, 8.0) if n_ is None else n_  # eta_offset = theory (fedbench's preset)
        streams = {}

        def source(m, rnd):
            """Client m's draws and Neumann coins in fedbench round rnd (line 2: round -1; the
            update of iteration t: round t // q + 1)."""
            if (m, rnd) not in streams:
                streams[(m, rnd)] = (BilevelDraws(m, rnd, 0, prob.samples_upper[m], prob.samples_lower[m]),
                                     Stream(0, "neumann-k", m, rnd, 0))
            return streams[(m, rnd)]

        def xibar(m, rnd, b):
            d, coins = source(m, rnd)
            xi = d.next("upper", b)
            zetas = [d.next("lower", b) for _ in range(K)]
            k = coins.below(K) if neumann == "randomized" else None
            return xi, zetas, k

        HG = lambda m, x, y, sample: hypergradient(prob, m, x, y, sample, theta, K)
        # line 2
        x = [prob.x0.copy() for _ in range(M)]
        y = [prob.y0.copy() for _ in range(M)]
        w = [HG(m, x[m], y[m], xibar(m, -1, initial_batch)) for m in range(M)]
        v = [prob.gy(m, x[m], y[m], source(m, -1)[0].next("lower", initial_batch)) for m in range(M)]
        mats = Matrices(rule, rho, varrho, prob.dx)
        states = States()

        def record(row, zbar, vbar, wbar):
            """Row `row`'s states: the synchronisation's averages and matrices, and every
            client's pre-synchronisation (x^m, y^m), v^m, w^m (zbar None: before round 0)."""
            if zbar is not None:
                states.server(row, "average_z_bar", zbar)
                states.server(row, "average_v_bar", vbar)
                states.server(row, "average_w_bar", wbar)
                if rule != "identity":
                    states.server(row, "matrix_a", mats.a)
                    if rule == "amsgrad":
                        states.server(row, "matrix_a_hat", mats.ahat)
                    states.server(row, "matrix_b", mats.b)
            for m in range(M):
                states.client(row, "local_z", m, np.concatenate([x[m], y[m]]))
                states.client(row, "tracker_v", m, v[m])
                states.client(row, "tracker_w", m, w[m])

        record(0, None, None, None)
        mats.generate(mean(w), mean(v))
        record(1, np.concatenate([mean(x), mean(y)]), mean(v), mean(w))
        # rows: z before any round, z after round 0 (line 2 moves nothing), then one row per
        # synchronisation t = q, 2q, .., (rounds - 1) q
        out = [np.concatenate([prob.x0, prob.y0])] * 2
        for t in range(1, (rounds - 1) * q + 1):
            eta = k * (M ** (1 / 3) if scaling else 1.0) / (n + t) ** (1 / 3)
            alpha = min(1.0, c1 * eta ** 2)
            beta = min(1.0, c2 * eta ** 2)
            xo, yo = list(x), list(y)  # x_t^m, y_t^m: the STORM anchors
            if t % q == 0:
                xbar, ybar, vbar, wbar = mean(x), mean(y), mean(v), mean(w)
                mats.generate(wbar, vbar)
                record(t // q + 1, np.concatenate([xbar, ybar]), vbar, wbar)
                ytil = ybar - lam * mats.b_inv(vbar)
                xtil = xbar - gamma * mats.a_inv(wbar)
                ynew = ybar + eta * (ytil - ybar)
                xnew = xbar + eta * (xtil - xbar)
                x = [xnew.copy() for _ in range(M)]
                y = [ynew.copy() for _ in range(M)]
                out.append(np.concatenate([xnew, ynew]))
                if sync == "average":
                    v = [vbar.copy() for _ in range(M)]
                    w = [wbar.copy() for _ in range(M)]
                if anchor == "averaged":
                    xo = [xbar] * M
                    yo = [ybar] * M
            else:
                x = [x[m] - gamma * eta * mats.a_inv(w[m]) for m in range(M)]
                y = [y[m] - lam * eta * mats.b_inv(v[m]) for m in range(M)]
            for m in range(M):  # lines 17-19: one xibar and one zeta for both points
                sample = xibar(m, t // q + 1, batch)
                w[m] = HG(m, x[m], y[m], sample) + (1 - beta) * (w[m] - HG(m, xo[m], yo[m], sample))
                zeta = source(m, t // q + 1)[0].next("lower", batch)
                v[m] = prob.gy(m, x[m], y[m], zeta) + (1 - alpha) * (v[m] - prob.gy(m, xo[m], yo[m], zeta))
        return np.array(out), states
    return reference


def params(rule="adam", q=3, K=4, theta=0.15, k=1.0, n=8.0, scaling=True, c1=0.8, c2=0.6,
           gamma=0.05, lam=0.2, rho=0.1, varrho=0.9, sync="average", anchor="local",
           neumann="deterministic", batch=0, initial_batch=0):
    return {"matrix": rule, "local_steps": str(q), "batch_size": str(batch), "initial_batch": str(initial_batch),
            "neumann_terms": str(K), "theta": str(theta), "neumann": neumann,
            "eta_k": str(k), "eta_offset": str(n), "eta_client_scaling": "true" if scaling else "false",
            "c1": str(c1), "c2": str(c2), "gamma": str(gamma), "lambda": str(lam), "rho": str(rho),
            "varrho": str(varrho), "estimator_sync": sync, "storm_anchor": anchor}


def case(solver="adafbio", note="", problem_name="bilevel-quadratic", pp=QUAD, **kw):
    """kw: the keywords of params(); theta = None: theta, K and eta_offset at `theory`."""
    sp = params(**kw)
    if kw.get("theta", 0.15) is None:
        for key in ("theta", "neumann_terms", "eta_offset"):
            del sp[key]
    rename = {"K": "K_", "theta": "theta_", "n": "n_"}
    ref = adafbio(**{rename.get(key, key): v for key, v in kw.items()})
    return Case(solver=solver, problem=problem_name, problem_params=pp,
                solver_params=sp, reference=ref,
                note=note or f"matrix {kw.get('rule', 'adam')}; A_1, B_1 from the averaged initial trackers")


# The w-derived states round off more than the iterates: w = HG(new) + (1 - beta)(w - HG(old))
# is a small difference of larger hypergradients, and AdaBelief's a_t squares wbar - wbar_prev.
# Over 20 rounds of q iterations the hyper-logreg theory case (eta_k = 0.5, adabelief) carries
# them to 1.3e-12 of their own scale (tracker_w at round 14; a_t and wbar to 5e-13) while its
# iterates stay within 1e-13.
W_ROUNDING = "a STORM difference of larger hypergradients: rounding reaches 1.3e-12 over 20 rounds"
state_tolerances = {name: (1e-11, W_ROUNDING) for name in ("c/tracker_w", "average_w_bar", "matrix_a")}

CASES = [
    case(rule="adam", c1=2.0, c2=3.0),
    case(rule="adabelief", q=2, varrho=0.7, note="AdaBelief reference: 0 before A_1, then the last averages"),
    case(rule="amsgrad", varrho=0.5, note="AMSGrad rule as fedbench documents it (not in the paper)"),
    case(rule="adagrad", note="AdaGrad rule as fedbench documents it (not in the paper)"),
    case(rule="adam", pp=QUAD_Y0, K=2, rho=0.4, batch=2, initial_batch=3,
         note="rho = 0.4 (the lower bound added to A and B), K = 2 Neumann terms, y0 != 0"),
    case(rule="identity", scaling=False, gamma=0.1, lam=0.3, k=0.8, n=5.0,
         note="matrix identity; eta_t without the M^(1/3) factor"),
    case(solver="adafbio-nonadaptive", rule="identity", note="Theorem 2: A = I, B = I"),
    case(rule="adam", sync="none", note="estimator_sync = none: trackers stay local (literal)"),
    case(rule="adam", anchor="averaged", note="storm_anchor = averaged: post-sync STORM anchor (xbar, ybar)"),
    case(rule="adam", q=1, c1=100.0, c2=100.0, note="q = 1; alpha, beta clipped at 1"),
    case(rule="adam", neumann="randomized", theta=0.2,
         note="eq. (13), k ~ U{0..K-1} from fedbench's neumann-k stream, the same k at both points"),
    case(rule="adam", pp=QUAD_Y0, neumann="randomized", batch=2, initial_batch=3,
         note="y0 != 0, minibatches b = 2, b_0 = 3, randomized Neumann"),
    case(rule="adabelief", pp=QUAD_Y0, q=2, sync="none", anchor="averaged", batch=3,
         note="y0 != 0, minibatches, initial_batch full, estimator_sync none, storm_anchor averaged"),
    case(rule="adam", problem_name="hyper-logreg", pp=HYPER, theta=0.5, gamma=0.5, lam=0.5,
         note="hyper-logreg, full batches, deterministic Neumann"),
    case(rule="amsgrad", problem_name="hyper-logreg", pp=HYPER, theta=0.5, gamma=0.5, lam=0.5,
         neumann="randomized", batch=3, initial_batch=5,
         note="hyper-logreg, minibatches b = 3, b_0 = 5, randomized Neumann"),
    case(rule="adam", problem_name="hyper-logreg", pp=HYPER, theta=0.5, gamma=0.5, lam=0.5,
         batch=3, initial_batch=6,
         note="hyper-logreg, deterministic Neumann on b_0 = 6 rows at line 2, b = 3 after (the "
              "Hessians differ by row; the cross-Jacobian does not)"),
    case(solver="adafbio-nonadaptive", rule="identity", problem_name="hyper-logreg", pp=HYPER,
         theta=0.5, gamma=0.5, lam=0.5, batch=2, initial_batch=4, anchor="averaged",
         note="non-adaptive, hyper-logreg, minibatches, storm_anchor averaged"),
    case(rule="adagrad", problem_name="hyper-logreg", pp=HYPER, theta=0.5, gamma=0.5, lam=0.5,
         q=1, batch=2, sync="none", note="hyper-logreg, q = 1, minibatches, estimator_sync none"),
    case(rule="adam", pp=QUAD_Y0, theta=None, n=None, k=2.5, gamma=0.005, lam=0.02, batch=2,
         initial_batch=3, note="theory preset with k = 2.5: eta_offset = k^3 M = 46.9 > 8"),
    case(rule="adam", pp=QUAD_Y0, theta=None, neumann="randomized", batch=2, initial_batch=3,
         note="theory preset (theta, K, eta_offset = max(k^3 M, 8)), y0 != 0, minibatches"),
    case(rule="adabelief", problem_name="hyper-logreg", pp=HYPER, theta=None, k=0.5, gamma=0.5,
         lam=0.5, neumann="randomized", batch=3, initial_batch=5,
         note="theory preset, hyper-logreg, eta_k = 0.5, minibatches"),
]

# Every y0 != 0 case again where the rows of a minibatch decide its Hessians and cross-Jacobians.
CASES += on_rows_that_differ(CASES)
