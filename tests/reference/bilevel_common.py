"""Problem oracles of the bilevel reference transcriptions (tests/reference/bilevel/*.py); a
helper module, not a test module (it has no CASES). It holds the test problems' parameters and
their first- and second-order oracles only: every algorithm's update rules, Neumann series and
averaging stay in its own module, written from its own paper.

bilevel-quadratic (`fedbench instance bilevel-quadratic`; client i, samples j, the columns of
c and e): g_ij(x, y) = 1/2 a_ij y^T A_i y - y^T (b_ij B_i x + c_ij),
f_ij(x, y) = 1/2 p_ij x^T P_i x + r_i^T x + 1/2 (y - e_ij)^T Q_i (y - e_ij); constant Hessians,
the same for every sample unless the instance has `sample_spread` > 0 (weights p, a, b != 1).
hyper-logreg (`fedbench instance hyper-logreg`): softmax regression with a per-feature L2
hyperparameter exp(x_q), whose Hessians and cross-Jacobians move with (x, y); see HyperLogreg.
Run this file directly for a finite-difference check of HyperLogreg's oracles.
"""
import numpy as np

# `fedbench instance bilevel-quadratic` parameters of the cases
QUAD = {"clients": "3", "samples": "4", "dim_x": "3", "dim_y": "4", "heterogeneity": "1",
        "noise": "0.5", "x0": "0.5"}
# the same with every entry of y starting at -0.7 (not 0)
QUAD_Y0 = {**QUAD, "y0": "-0.7"}
# y0 != 0 and per-sample weights of P_i, A_i, B_i: minibatch Hessians and cross-Jacobians that
# differ from row to row, so that the rows a second-order term is evaluated on show
QUAD_ROWS = {**QUAD_Y0, "sample_spread": "1.2"}


def on_rows_that_differ(cases):
    """Copies of the cases on QUAD_Y0 with QUAD_ROWS instead: the same settings where a
    minibatch's second-order terms depend on which rows it holds."""
    import dataclasses
    return [dataclasses.replace(c, problem_params=QUAD_ROWS, note=c.note + "; per-sample Hessians")
            for c in cases if c.problem_params is QUAD_Y0]


class BilevelQuadratic:
    """Full-batch oracles of every client of a bilevel-quadratic instance."""

    def __init__(self, inst):
        self.n = int(inst.attrs["num_clients"])
        z0 = np.array(inst["initial_point"], dtype=float)
        self.A, self.B, self.cbar, self.P, self.r, self.Q, self.ebar = ([] for _ in range(7))
        self.c_cols, self.e_cols = [], []  # the samples c_ij, e_ij (columns j)
        self.w_p, self.w_a, self.w_b = [], [], []  # p_ij (upper samples), a_ij, b_ij (lower)
        for i in range(self.n):
            p = f"data/clients/{i}/"
            self.A.append(np.asarray(inst[p + "A"], dtype=float))
            self.B.append(np.asarray(inst[p + "B"], dtype=float))
            self.cbar.append(np.asarray(inst[p + "c"], dtype=float).mean(axis=1))
            self.P.append(np.asarray(inst[p + "P"], dtype=float))
            self.r.append(np.asarray(inst[p + "r"], dtype=float).reshape(-1))
            self.Q.append(np.asarray(inst[p + "Q"], dtype=float))
            self.ebar.append(np.asarray(inst[p + "e"], dtype=float).mean(axis=1))
            self.c_cols.append(np.asarray(inst[p + "c"], dtype=float))
            self.e_cols.append(np.asarray(inst[p + "e"], dtype=float))
            for w in ("p", "a", "b"):  # per-sample weights
                getattr(self, "w_" + w).append(np.asarray(inst[p + w], dtype=float).reshape(-1))
        self.dx = self.P[0].shape[0]
        self.dy = self.A[0].shape[0]
        assert z0.size == self.dx + self.dy
        self.x0 = z0[: self.dx].copy()
        self.y0 = z0[self.dx:].copy()
        self.samples_upper = [e.shape[1] for e in self.e_cols]
        self.samples_lower = [c.shape[1] for c in self.c_cols]

    @staticmethod
    def _mean(w, rows):
        """The mean weight over `rows` (None: over the client's samples)."""
        return w.mean() if rows is None else w[list(rows)].mean()

    # first order; `rows`: None (the whole local batch) or sample positions drawn with
    # replacement (a position drawn twice counts twice)
    def fx(self, i, x, y, rows=None):
        """grad_x f_i(x, y)"""
        return self._mean(self.w_p[i], rows) * (self.P[i] @ x) + self.r[i]

    def fy(self, i, x, y, rows=None):
        """grad_y f_i(x, y)"""
        ebar = self.ebar[i] if rows is None else self.e_cols[i][:, list(rows)].mean(axis=1)
        return self.Q[i] @ (y - ebar)

    def gx(self, i, x, y, rows=None):
        """grad_x g_i(x, y)"""
        return -self._mean(self.w_b[i], rows) * (self.B[i].T @ y)

    def gy(self, i, x, y, rows=None):
        """grad_y g_i(x, y)"""
        cbar = self.cbar[i] if rows is None else self.c_cols[i][:, list(rows)].mean(axis=1)
        return (self._mean(self.w_a[i], rows) * (self.A[i] @ y)
                - self._mean(self.w_b[i], rows) * (self.B[i] @ x) - cbar)

    # second order
    def hvp(self, i, x, y, v, rows=None):
        """grad^2_yy g_i(x, y) v"""
        return self._mean(self.w_a[i], rows) * (self.A[i] @ v)

    def jvp(self, i, x, y, v, rows=None):
        """grad^2_xy g_i(x, y) v (a vector of dimension dx)"""
        return -self._mean(self.w_b[i], rows) * (self.B[i].T @ v)


# `fedbench instance hyper-logreg` parameters of the cases: 40 rows of heart (13 features, two
# classes), 2 clients, every x_q starting at 0.3
HYPER = {"dataset": "heart", "rows": "40", "clients": "2", "x0": "0.3"}


class HyperLogreg:
    """Oracles of hyper-logreg (per-feature L2 hyperparameters of softmax regression) from the
    instance file, following the objective that `fedbench list problems` states: for client i,
        f_i(x, y) = (1/m_v) sum_{j in validation rows} CE(Y^T a_j, b_j)        (no x)
        g_i(x, y) = (1/m_t) sum_{j in training rows} CE(Y^T a_j, b_j)
                    + s sum_q exp(x_q) sum_k Y_qk^2,   s = 1/(c d),
    CE(l, b) = log sum_k exp(l_k) - l_b, Y = y reshaped (d, c) feature-major. Every oracle takes
    `rows`: None for the client's whole set, or a list of positions into the client's validation
    (upper) or training (lower) rows, a minibatch drawn with replacement (a position drawn twice
    counts twice); the regulariser is data-free and enters every lower oracle once."""

    def __init__(self, inst):
        self.n = int(inst.attrs["num_clients"])
        indptr = np.asarray(inst["data/X/indptr"])
        indices = np.asarray(inst["data/X/indices"])
        vals = np.asarray(inst["data/X/data"], dtype=float)
        nrows, d = (int(v) for v in inst.attrs["data/X/shape"])
        X = np.zeros((nrows, d))
        for r in range(nrows):
            X[r, indices[indptr[r]:indptr[r + 1]]] = vals[indptr[r]:indptr[r + 1]]
        self.X = X
        self.labels = np.asarray(inst["data/labels"]).astype(int)
        self.c = int(np.asarray(inst["data/columns"]).reshape(-1)[0])
        self.s = float(np.asarray(inst["data/reg_scale"]).reshape(-1)[0])
        client = lambda i, name: np.asarray(inst[f"data/clients/{i}/{name}"]).astype(int)
        self.train = [client(i, "train_rows") for i in range(self.n)]
        self.val = [client(i, "validation_rows") for i in range(self.n)]
        self.dx, self.dy = d, d * self.c
        z0 = np.array(inst["initial_point"], dtype=float)
        assert z0.size == self.dx + self.dy
        self.x0 = z0[: self.dx].copy()
        self.y0 = z0[self.dx:].copy()
        self.samples_upper = [len(v) for v in self.val]
        self.samples_lower = [len(t) for t in self.train]

    def _rows(self, which, i, rows):
        own = self.val[i] if which == "upper" else self.train[i]
        return own if rows is None else own[np.asarray(rows, dtype=int)]

    def _probs(self, A, Y):
        logits = A @ Y
        logits = logits - logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        return e / e.sum(axis=1, keepdims=True)

    def _ce_grad(self, rows, y):
        """grad_y of the mean CE over `rows` (absolute row ids of X)."""
        A, Y = self.X[rows], y.reshape(self.dx, self.c)
        P = self._probs(A, Y)
        P[np.arange(len(rows)), self.labels[rows]] -= 1.0
        return (A.T @ P / len(rows)).reshape(-1)

    def _ce_hvp(self, rows, y, v):
        A, Y, V = self.X[rows], y.reshape(self.dx, self.c), v.reshape(self.dx, self.c)
        P = self._probs(A, Y)
        U = A @ V                                    # (rows, c): V^T a_j
        W = P * U - P * (P * U).sum(axis=1, keepdims=True)
        return (A.T @ W / len(rows)).reshape(-1)

    def fx(self, i, x, y, rows=None):
        """grad_x f_i = 0 (f has no x)"""
        return np.zeros(self.dx)

    def fy(self, i, x, y, rows=None):
        return self._ce_grad(self._rows("upper", i, rows), y)

    def gx(self, i, x, y, rows=None):
        return self.s * np.exp(x) * (y.reshape(self.dx, self.c) ** 2).sum(axis=1)

    def gy(self, i, x, y, rows=None):
        reg = 2 * self.s * (np.exp(x)[:, None] * y.reshape(self.dx, self.c)).reshape(-1)
        return self._ce_grad(self._rows("lower", i, rows), y) + reg

    def hvp(self, i, x, y, v, rows=None):
        """grad^2_yy g_i(x, y) v"""
        reg = 2 * self.s * (np.exp(x)[:, None] * v.reshape(self.dx, self.c)).reshape(-1)
        return self._ce_hvp(self._rows("lower", i, rows), y, v) + reg

    def jvp(self, i, x, y, v, rows=None):
        """grad^2_xy g_i(x, y) v (dimension dx): data-free, the regulariser's only"""
        return 2 * self.s * np.exp(x) * (y.reshape(self.dx, self.c) * v.reshape(self.dx, self.c)).sum(axis=1)

    # values, for the finite-difference self-test only
    def f_value(self, i, x, y, rows=None):
        return self._ce(self._rows("upper", i, rows), y)

    def g_value(self, i, x, y, rows=None):
        reg = self.s * np.sum(np.exp(x)[:, None] * y.reshape(self.dx, self.c) ** 2)
        return self._ce(self._rows("lower", i, rows), y) + reg

    def _ce(self, rows, y):
        logits = self.X[rows] @ y.reshape(self.dx, self.c)
        m = logits.max(axis=1)
        lse = m + np.log(np.exp(logits - m[:, None]).sum(axis=1))
        return float(np.mean(lse - logits[np.arange(len(rows)), self.labels[rows]]))


def problem(inst):
    """The oracles of the instance's problem (bilevel-quadratic or hyper-logreg)."""
    name = inst.attrs["problem"]
    name = name.decode() if isinstance(name, bytes) else name
    return HyperLogreg(inst) if name == "hyper-logreg" else BilevelQuadratic(inst)


def _self_test(fedbench="build/bin/fedbench"):
    """Finite-difference check of HyperLogreg's oracles (run this file directly)."""
    import os
    import subprocess
    import tempfile
    from refcase import Instance
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "h.h5")
        args = [a for k, v in HYPER.items() for a in ("-p", f"{k}={v}")]
        subprocess.run([fedbench, "instance", "hyper-logreg", *args, "-o", path], check=True,
                       stdout=subprocess.DEVNULL)
        prob = HyperLogreg(Instance(path))
    rng = np.random.default_rng(1)
    x, y, v = rng.normal(size=prob.dx) * 0.5, rng.normal(size=prob.dy), rng.normal(size=prob.dy)
    h, worst = 1e-6, 0.0

    def fd(fun, z, direction):
        return (fun(z + h * direction) - fun(z - h * direction)) / (2 * h)

    for i in range(prob.n):
        for rows in (None, [0, 3, 3, 1]):
            f = lambda a, b: prob.f_value(i, a, b, rows)
            g = lambda a, b: prob.g_value(i, a, b, rows)
            for k in range(prob.dx):
                e = np.eye(prob.dx)[k]
                worst = max(worst, abs(prob.gx(i, x, y, rows)[k] - fd(lambda t: g(t, y), x, e)))
                worst = max(worst, abs(prob.fx(i, x, y, rows)[k] - fd(lambda t: f(t, y), x, e)))
                # cross Jacobian: d/dx_k of <grad_y g, v>
                jv = fd(lambda t: prob.gy(i, t, y, rows) @ v, x, e)
                worst = max(worst, abs(prob.jvp(i, x, y, v, rows)[k] - jv))
            for k in range(prob.dy):
                e = np.eye(prob.dy)[k]
                worst = max(worst, abs(prob.gy(i, x, y, rows)[k] - fd(lambda t: g(x, t), y, e)))
                worst = max(worst, abs(prob.fy(i, x, y, rows)[k] - fd(lambda t: f(x, t), y, e)))
            hv = fd(lambda t: prob.gy(i, x, t, rows), y, v)
            worst = max(worst, np.max(np.abs(prob.hvp(i, x, y, v, rows) - hv)))
    print(f"hyper-logreg oracles vs central differences: max abs diff {worst:.2e}")
    assert worst < 1e-6, worst



def theory_neumann(inst, rounds):
    """fedbench's `theory` preset of a Neumann series, from the instance's constants (its own
    reading, not any paper's number): theta = 1/L_g (L_g = lipschitz_g_client_max, the bound
    eq. (13) of Huang 2022 asks theta <= 1/L_g) and Q = the least count with
    (1 - 1/kappa)^Q <= 1/T, kappa = L_g / mu_g_client_min, T = max(2, rounds) (Huang 2022, Lemma 3's
    K ~ kappa log T)."""
    import math
    lg = float(inst.attrs["constants/lipschitz_g_client_max"])
    kappa = lg / float(inst.attrs["constants/mu_g_client_min"])
    T = max(2.0, float(rounds))
    q = 1 if kappa <= 1 else math.ceil(math.log(T) / -math.log1p(-1.0 / kappa))
    return 1.0 / lg, max(1, q)


if __name__ == "__main__":
    _self_test()
