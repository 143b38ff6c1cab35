"""Local SGDA / Local GDA, transcribed from Y. Deng, M. Mahdavi, "Local Stochastic Gradient
Descent Ascent: Convergence Analysis and Communication Efficiency", AISTATS 2021, Algorithm 1:
every client starts from the server's (x, y), takes K simultaneous descent-ascent steps
x <- x - eta grad_x f_i, y <- y + eta grad_y f_i, and the server averages the clients' models.
Local GDA uses full local batches, so that run has no randomness to share; Local SGDA's
minibatches (uniform, with replacement) are replayed from the run's streams (streams.py).

Decay schedule: eta_t = eta_0 a / (t + a) with t = r K + k (k = 1..K) counted per client
(the reading fedbench documents; the authors' notebooks advance one counter over all clients).
"""
import numpy as np

from games import (QUADRATIC_GAME as GAME, GAME_OFF_ZERO, PARTIAL, affine_operator, max_client_norm,
                   samples_per_client, strong_monotonicity)
from refcase import Case
from streams import SEED, Draws, participants


def theory_decay(inst, K):
    """(gamma_0, a) of the decay schedule in Zhang et al.'s code (their text gives no formula):
    a = 2048 K kappa^2, kappa = L/mu, L = max_i ||M_i||_2, mu = min_i lambda_min(sym M_i), and
    gamma_0 = 8/(mu a), so that gamma_t = 8/(mu (t + a))."""
    mu = strong_monotonicity(inst)
    a = 2048.0 * K * (max_client_norm(inst) / mu) ** 2
    return 8.0 / (mu * a), a


def local_sgda(step_size, local_steps, batch=0, decay_offset=0, participation="full"):
    """batch 0: full local batches (Local GDA); else minibatches of `batch` components drawn
    with replacement, the run's own draws. step_size None: the theory decay schedule."""
    def reference(inst, rounds):
        nonlocal step_size, decay_offset
        if step_size is None:
            step_size, decay_offset = theory_decay(inst, local_steps)
        n = int(inst.attrs["num_clients"])
        m = samples_per_client(inst)
        z = np.array(inst["initial_point"], dtype=float)
        out = [z.copy()]
        for r in range(rounds):
            models = []
            for i, occ in participants(SEED, participation, n, r, 0):
                draws = Draws(i, r, batch, m, occurrence=occ)
                w = z.copy()
                for k in range(1, local_steps + 1):
                    t = r * local_steps + k
                    eta = step_size if decay_offset == 0 else step_size * decay_offset / (t + decay_offset)
                    # F = (grad_x f, -grad_y f): one step descends in x and ascends in y.
                    w = w - eta * affine_operator(inst, i, w, draws.next())
                models.append(w)
            if models:  # nobody sampled: the round changes nothing
                z = np.mean(models, axis=0)
            out.append(z.copy())
        return np.array(out)
    return reference


CASES = [
    Case(solver="local-gda", problem="quadratic-game", problem_params=GAME,
         solver_params={"local_steps": "3", "schedule": "constant", "step_size": "0.3"},
         reference=local_sgda(0.3, 3)),
    Case(solver="local-gda", problem="quadratic-game", problem_params=GAME,
         solver_params={"local_steps": "4", "schedule": "decay", "step_size": "0.5",
                        "decay_offset": "10"},
         reference=local_sgda(0.5, 4, decay_offset=10),
         note="decay counter t = r K + k per client"),
    Case(solver="local-sgda", problem="quadratic-game", problem_params=GAME,
         solver_params={"local_steps": "3", "batch_size": "2", "schedule": "constant",
                        "step_size": "0.2"},
         reference=local_sgda(0.2, 3, batch=2),
         note="minibatches with replacement from the run's streams"),
    Case(solver="local-sgda", problem="quadratic-game", problem_params=GAME_OFF_ZERO,
         solver_params={"local_steps": "2", "batch_size": "1", "schedule": "decay"},
         reference=local_sgda(None, 2, batch=1), note="theory: gamma_t = 8/(mu (t + a)), a = 2048 K kappa^2"),
] + [
    Case(solver="local-sgda", problem="quadratic-game", problem_params=GAME_OFF_ZERO,
         solver_params={"local_steps": "2", "batch_size": "2", "schedule": "decay",
                        "step_size": "0.3", "decay_offset": "4"},
         participation=mode, reference=local_sgda(0.3, 2, batch=2, decay_offset=4, participation=mode),
         note=f"{mode}, z_0 != 0; decay counter t = r K + k")
    for mode in PARTIAL
]
