"""The minimax test problems of the reference transcriptions (tests/reference/minimax/*.py), as
`fedbench instance` writes them: their fedbench parameters, the clients' oracles, projections
and problem constants. A helper module, not a test module (it has no CASES); problem side only,
no algorithm's update rule.

quadratic-game, an affine game: sample j of client i has the operator F_ij(z) = M_ij z + zeta_ij
(M_ij the rows j d .. (j+1) d - 1 of data/clients/i/M), F = (grad_x f, -grad_y f); the client's
full local batch is F_i(z) = M_i z + zeta_i (M_mean, zeta_mean). Unconstrained.
matrix-game: f_i(x, y) = x^T A_i y on two probability simplices, F_i(z) = (A_i y, -A_i^T x);
one sample per client.
"""
import numpy as np

QUADRATIC_GAME = {"clients": "3", "samples": "4", "dim": "2", "heterogeneity": "1"}
MATRIX_GAME = {"clients": "3", "dim": "4"}
# A start away from 0 (x and y at different values), so that an initial state taken as 0 where
# the algorithm starts from z_0, or x's start read for y's, shows.
GAME_OFF_ZERO = dict(QUADRATIC_GAME, x0="0.7", y0="-0.4")
# Participation on three clients, each mode: i.i.d. draws (a client may run twice in a round),
# independent coins (a round may have nobody) and drop-outs among uniform candidates.
PARTIAL = ("iid:3", "bernoulli:0.5", "dropout:3:0.6")


def solver_params(**kw):
    """A case's -s values as fedbench reads them (booleans as true / false)."""
    return {k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in kw.items()}


def read_game(inst):
    """(number of clients, dim_x, the clients' sample counts, a float copy of z_0) of an
    affine-game instance."""
    return (int(inst.attrs["num_clients"]), int(inst.attrs["dim_x"]), inst["client_samples"],
            np.array(inst["initial_point"], dtype=float))


# Oracles

def affine_operator(inst, i, z, batch=None):
    """F_i(z) of the affine game on the sample list `batch` (None: the full local batch): the
    mean over the batch of M_ij z + zeta_ij."""
    if batch is None:
        return inst[f"data/clients/{i}/M_mean"] @ z + inst[f"data/clients/{i}/zeta_mean"]
    d = z.size
    M, zeta = inst[f"data/clients/{i}/M"], inst[f"data/clients/{i}/zeta"]
    return np.mean([M[j * d:(j + 1) * d] @ z + zeta[j] for j in batch], axis=0)


def client_grads(inst, i, batch, z, dx):
    """(grad_x f_i, grad_y f_i) of the affine game on `batch` (None: the full local gradient):
    the operator's blocks, the y block with its sign flipped."""
    F = affine_operator(inst, i, z, batch)
    return F[:dx], -F[dx:]


def matrix_operator(inst, i, z, batch=None):
    """F_i(z) = (A_i y, -A_i^T x) of the matrix game (one sample: `batch` is ignored)."""
    A = inst[f"data/clients/{i}/A"]
    d = A.shape[0]
    return np.concatenate([A @ z[d:], -A.T @ z[:d]])


def samples_per_client(inst):
    """The samples of a client of the affine game (the matrix game's clients have one)."""
    return inst["data/clients/0/zeta"].shape[0] if "data/clients/0/zeta" in inst else 1


# Projections

def simplex(v):
    """Euclidean projection onto the probability simplex (sort-based, Duchi et al. 2008)."""
    u = np.sort(v)[::-1]
    c = np.cumsum(u) - 1.0
    k = np.arange(1, v.size + 1)
    rho = np.nonzero(u - c / k > 0)[0][-1]
    return np.maximum(v - c[rho] / (rho + 1), 0.0)


def project_simplices(z):
    """The matrix game's feasible set: x and y each onto its simplex."""
    d = z.size // 2
    return np.concatenate([simplex(z[:d]), simplex(z[d:])])


# Constants of the affine game (inputs of the papers' theory step sizes)

def client_matrices(inst):
    """M_i of every client (the full-local-batch operators' matrices), in client order."""
    return [inst[f"data/clients/{i}/M_mean"] for i in range(int(inst.attrs["num_clients"]))]


def sample_matrices(inst):
    """M_ij of every sample of every client, client by client."""
    d = inst["initial_point"].size
    stacks = [inst[f"data/clients/{i}/M"] for i in range(int(inst.attrs["num_clients"]))]
    return [S[j * d:(j + 1) * d] for S in stacks for j in range(S.shape[0] // d)]


def ell(M):
    """Star-cocoercivity of z -> M z + c by the eigenvalue formula of S. Zhang, S. Choudhury,
    S. U. Stich, N. Loizou, ICLR 2024, Appendix G (after Loizou et al. 2021): 1/ell = min over the
    eigenvalues lambda of M (|lambda| > 1e-5) of Re(1/lambda)."""
    lam = np.linalg.eigvals(M)
    lam = lam[np.abs(lam) > 1e-5]
    return 1.0 / np.min((1.0 / lam).real)


def max_sample_ell(inst):
    """max_ij ell_ij over the per-sample operators."""
    return max(ell(M) for M in sample_matrices(inst))


def max_client_norm(inst):
    """L_max = max_i ||M_i||_2."""
    return max(np.linalg.norm(M, 2) for M in client_matrices(inst))


def strong_monotonicity(inst):
    """mu = min_i lambda_min(sym M_i): every client operator is mu-strongly monotone."""
    return min(np.linalg.eigvalsh(0.5 * (M + M.T))[0] for M in client_matrices(inst))
