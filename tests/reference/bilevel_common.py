"""Shared pieces of the bilevel reference transcriptions (tests/reference/bilevel/*.py); a helper
module, not a test module (it has no CASES).

Oracles of the federated bilevel quadratic that `fedbench instance bilevel-quadratic` writes
(client i, full local batches, sample means over the columns j of c and e):
    g_i(x, y) = 1/2 y^T A_i y - y^T (B_i x + cbar_i)
    f_i(x, y) = 1/2 x^T P_i x + r_i^T x + 1/2 (y - ebar_i)^T Q_i (y - ebar_i)
and the Neumann-series hypergradient of S. Ghadimi, M. Wang, "Approximation Methods for Bilevel
Programming", arXiv 1802.02246, 2018, Lemma 2.1 / eq. (3.3): with the Hessian inverse replaced by
theta sum_{j=0}^{K-1} (I - theta H)^j (F. Huang, "Fast Adaptive Federated Bilevel Optimization",
arXiv 2211.01122, 2022, Section 3.3 and eq. (13); the expectation of eq. (13) over its index k),
    HG(x, y) = grad_x f - grad^2_xy g [theta sum_{j<K} (I - theta grad^2_yy g)^j] grad_y f,
or eq. (13) itself with one index k ~ U{0..K-1}:
    HG(x, y; k) = grad_x f - grad^2_xy g [K theta (I - theta grad^2_yy g)^k] grad_y f.
Where a case runs the randomized estimator, its k comes from fedbench's stream (NeumannCoins):
the plumbing of randomness, not of the algorithm.
"""
import numpy as np

from streams import Stream

# `fedbench instance bilevel-quadratic` parameters of the cases
QUAD = {"clients": "3", "samples": "4", "dim_x": "3", "dim_y": "4", "heterogeneity": "1",
        "noise": "0.5", "x0": "0.5"}


class BilevelQuadratic:
    """Full-batch oracles of every client of a bilevel-quadratic instance."""

    def __init__(self, inst):
        self.n = int(inst.attrs["num_clients"])
        z0 = np.array(inst["initial_point"], dtype=float)
        self.A, self.B, self.cbar, self.P, self.r, self.Q, self.ebar = ([] for _ in range(7))
        for i in range(self.n):
            p = f"data/clients/{i}/"
            self.A.append(np.asarray(inst[p + "A"], dtype=float))
            self.B.append(np.asarray(inst[p + "B"], dtype=float))
            self.cbar.append(np.asarray(inst[p + "c"], dtype=float).mean(axis=1))
            self.P.append(np.asarray(inst[p + "P"], dtype=float))
            self.r.append(np.asarray(inst[p + "r"], dtype=float).reshape(-1))
            self.Q.append(np.asarray(inst[p + "Q"], dtype=float))
            self.ebar.append(np.asarray(inst[p + "e"], dtype=float).mean(axis=1))
        self.dx = self.P[0].shape[0]
        self.dy = self.A[0].shape[0]
        assert z0.size == self.dx + self.dy
        self.x0 = z0[: self.dx].copy()
        self.y0 = z0[self.dx:].copy()

    # first order
    def fx(self, i, x, y):
        """grad_x f_i(x, y)"""
        return self.P[i] @ x + self.r[i]

    def fy(self, i, x, y):
        """grad_y f_i(x, y)"""
        return self.Q[i] @ (y - self.ebar[i])

    def gx(self, i, x, y):
        """grad_x g_i(x, y)"""
        return -self.B[i].T @ y

    def gy(self, i, x, y):
        """grad_y g_i(x, y)"""
        return self.A[i] @ y - self.B[i] @ x - self.cbar[i]

    # second order
    def hvp(self, i, x, y, v):
        """grad^2_yy g_i(x, y) v"""
        return self.A[i] @ v

    def jvp(self, i, x, y, v):
        """grad^2_xy g_i(x, y) v (a vector of dimension dx)"""
        return -self.B[i].T @ v


def neumann_inverse(hvp, b, theta, terms):
    """theta sum_{j=0}^{terms-1} (I - theta H)^j b with H given by its products hvp(v)."""
    p = np.array(b, dtype=float)
    total = p.copy()
    for _ in range(terms - 1):
        p = p - theta * hvp(p)
        total = total + p
    return theta * total


def neumann_single_term(hvp, b, theta, terms, k):
    """terms theta (I - theta H)^k b: eq. (13)'s one-term estimate of H^-1 b."""
    p = np.array(b, dtype=float)
    for _ in range(k):
        p = p - theta * hvp(p)
    return terms * theta * p


def local_hypergradient(prob, i, x, y, theta, terms, k=None):
    """Client i's Neumann hypergradient with its OWN Hessians (the local-Hessian surrogate):
    the deterministic K-term sum, or eq. (13)'s single term k when k is given."""
    hvp = lambda w: prob.hvp(i, x, y, w)
    if k is None:
        v = neumann_inverse(hvp, prob.fy(i, x, y), theta, terms)
    else:
        v = neumann_single_term(hvp, prob.fy(i, x, y), theta, terms, k)
    return prob.fx(i, x, y) - prob.jvp(i, x, y, v)


class NeumannCoins:
    """The Neumann indices k ~ U{0..K-1} that fedbench draws: one stream "neumann-k" per client
    and engine round (round -1: the clients' initialisation), consumed in draw order; seed 0 is
    `fedbench run`'s default."""

    def __init__(self, terms, seed=0):
        self.terms, self.seed, self.streams = terms, seed, {}

    def draw(self, client, round):
        key = (client, round)
        if key not in self.streams:
            self.streams[key] = Stream(self.seed, "neumann-k", client, round, 0)
        return self.streams[key].below(self.terms)


def mean(vectors):
    """The uniform average over clients, in client order."""
    out = np.zeros_like(vectors[0])
    for v in vectors:
        out = out + v
    return out / len(vectors)


def synchronise(*states):
    """Periodic averaging: every per-client list in `states` (one entry per client) has each
    client's entry replaced, in place, by a copy of the clients' mean."""
    for var in states:
        avg = mean(var)
        for i in range(len(var)):
            var[i] = avg.copy()
