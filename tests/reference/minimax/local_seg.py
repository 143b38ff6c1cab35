"""Local SEG / Local EG, transcribed from A. Beznosikov, V. Samokhin, A. Gasnikov, "Distributed
Saddle-Point Problems: Lower Bounds, Optimal and Robust Algorithms" (Local SGD with an extra
step), arXiv 2010.13112, 2020, as run as a baseline by S. Zhang, S. Choudhury, S. U. Stich,
N. Loizou, ICLR 2024, Section 5 and Appendix G: every client starts from the server model and
takes K local extragradient steps
    u = x - gamma_1 g_i(x; j1),   x <- x - gamma_2 g_i(u; j2),
then the server averages the clients' models. g_i is client i's operator (grad_x f_i,
-grad_y f_i) on a minibatch (Local SEG) or on the full local batch (Local EG).

Extra Step Local SGD as run by J. Xie, C. Zhang, Z. Shen, W. Liu, H. Qian, arXiv 2105.14216,
2021 (Section 5, Appendix B.1) is the same step with one step size for both half-steps and
minibatches by random reshuffling (Section 4.3: a fresh permutation of the client's samples
each local epoch, cut into consecutive chunks).

Readings shared with fedbench (its documented ones): j1 and j2 are two independent fresh
minibatches drawn in that order (`same_batch` uses one draw for both half-steps); under
reshuffling the two half-steps take consecutive chunks, and the permutation restarts every
round. The draws themselves come from streams.py.
"""
import numpy as np

from games import QUADRATIC_GAME as GAME, GAME_OFF_ZERO, PARTIAL, affine_operator as operator, max_client_norm
from refcase import Case
from streams import SEED, Draws, Reshuffler, participants


def theory_step(inst, K):
    """gamma_1 = gamma_2 = 1/(21 K L_max), L_max = max_i ||M_i||_2: the value in Zhang et al.'s
    code for their Local (S)EG baseline (their text gives no formula; fedbench documents the
    same source)."""
    return 1.0 / (21 * K * max_client_norm(inst))


def local_seg(gamma1, gamma2, local_steps, batch_size, same_batch=False, reshuffle=False,
              participation="full"):
    def reference(inst, rounds):
        nonlocal gamma1, gamma2
        if gamma1 is None:
            gamma1 = gamma2 = theory_step(inst, local_steps)
        n = int(inst.attrs["num_clients"])
        m = inst["data/clients/0/zeta"].shape[0]
        z = np.array(inst["initial_point"], dtype=float)
        out = [z.copy()]
        for r in range(rounds):
            models = []
            for i, occ in participants(SEED, participation, n, r, 0):
                if reshuffle:
                    draws = Reshuffler(i, r, 0, batch_size, m, occurrence=occ)
                else:
                    draws = Draws(i, r, batch_size, m, occurrence=occ)

                def batch():
                    return None if batch_size == 0 else draws.next()

                x = z.copy()
                for _ in range(local_steps):
                    j1 = batch()
                    u = x - gamma1 * operator(inst, i, x, j1)          # extrapolation
                    j2 = j1 if same_batch else batch()
                    x = x - gamma2 * operator(inst, i, u, j2)          # update from x
                models.append(x)
            if models:  # nobody sampled: the round changes nothing
                z = np.mean(models, axis=0)
            out.append(z.copy())
        return np.array(out)
    return reference


CASES = [
    Case(solver="local-eg", problem="quadratic-game", problem_params=GAME,
         solver_params={"local_steps": "3", "step_size": "0.2", "extra_step_size": "0.35"},
         reference=local_seg(0.35, 0.2, 3, 0)),
    Case(solver="local-eg", problem="quadratic-game", problem_params=GAME,
         solver_params={"local_steps": "2"}, reference=local_seg(None, None, 2, 0),
         note="theory steps 1/(21 K L_max) of Zhang et al.'s code"),
    Case(solver="local-seg", problem="quadratic-game", problem_params=GAME,
         solver_params={"local_steps": "3", "step_size": "0.25", "extra_step_size": "0.3",
                        "batch_size": "2"},
         reference=local_seg(0.3, 0.25, 3, 2),
         note="j1, j2 two fresh minibatches, in that order"),
    Case(solver="local-seg", problem="quadratic-game", problem_params=GAME,
         solver_params={"local_steps": "2", "step_size": "0.3", "extra_step_size": "0.2",
                        "batch_size": "1", "same_batch": "true"},
         reference=local_seg(0.2, 0.3, 2, 1, same_batch=True),
         note="same_batch: one minibatch for both half-steps"),
    Case(solver="extra-step-local-sgd", problem="quadratic-game", problem_params=GAME,
         solver_params={"local_steps": "3", "step_size": "0.3", "extra_step_size": "0.3",
                        "batch_size": "3"},
         reference=local_seg(0.3, 0.3, 3, 3, reshuffle=True),
         note="reshuffled chunks, consecutive for the two half-steps; permutation restarts each round"),
] + [
    Case(solver=solver, problem="quadratic-game", problem_params=GAME_OFF_ZERO,
         solver_params={"local_steps": "2", "step_size": "0.25", "extra_step_size": "0.3",
                        "batch_size": "2", "sampling": sampling},
         participation=mode, reference=local_seg(0.3, 0.25, 2, 2, reshuffle=sampling == "reshuffle",
                                                 participation=mode),
         note=f"{mode}, z_0 != 0, {sampling}")
    for solver, sampling, mode in (("local-seg", "reshuffle", PARTIAL[0]),
                                   ("extra-step-local-sgd", "replacement", PARTIAL[1]),
                                   ("local-eg", "reshuffle", PARTIAL[2]))
]
