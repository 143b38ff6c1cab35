"""Catalyst-Scaffold-S, transcribed from C. Hou, K. K. Thekumparampil, G. Fanti, S. Oh,
"Efficient Algorithms for Federated Saddle Point Optimization", arXiv 2102.06333, 2021, in the
cross-device form run as a baseline by J. Xie, C. Zhang, Z. Shen, W. Liu, H. Qian, "Efficient
Cross-Device Federated Learning Algorithms for Minimax Problems", arXiv 2105.14216, 2021
(Section 5; Appendix B.1: local step eta_l, eta_g = eta_l following Hou et al., proximal weight
theta, K_0 local iterations per proximal stage, communication probability p = 1/K).

Catalyst outer loop: stage after stage, the anchor z_ref <- z_t and the stage solves the
proximal saddle problem f(x, y) + (theta/2)||x - x_ref||^2 - (theta/2)||y - y_ref||^2 with
SCAFFOLD-S inner rounds. Each round: (A) the clients send their full local gradients at z_t,
the server averages them into g; (B) the same clients run K_r local steps
  x <- x - eta_l (grad_x F_i(z; B) - grad_x F_i(z_t; B) + g_x + theta (x - x_ref)),
  y <- y + eta_l (grad_y F_i(z; B) - grad_y F_i(z_t; B) + g_y - theta (y - y_ref)),
and the server takes z_{t+1} = z_t + (eta_g/eta_l)(mean z^{K_r} - z_t).
Round lengths: the client communicates with probability p = 1/K after each local step, i.e.
within a stage K_0 Bernoulli(p) flags; the flagged local iterations end the rounds.

Readings shared with fedbench (documented there; from Xie et al.'s released code, the papers
are silent): the anchor is not extrapolated and the step does not decay; flags i_1 < i_2 < ...
among the K_0 local iterations 0..K_0-1 give rounds of i_r - i_{r-1} steps (i_0 = 0, a round
of zero steps skipped, steps after the last flag dropped); a stage without a round redraws its
flags. `round_lengths = fixed` runs floor(K_0/K) rounds of exactly K steps. The flags come from
fedbench's server stream "catalyst-flags" of the stage's first round (reproduced with
streams.py), minibatches by random reshuffling.

Checked rule by rule against the released code (github.com/xjiajiahao/federated-minimax,
algorithm/catalyst_scaffold_s.py, initial commit 55d9c6f): the stage's anchor (line 86), the
T0 Bernoulli(1/K) flags redrawn while none is set (lines 90-94), round lengths from successive
flags with a flag at 0 skipped (lines 97-103), phase A's full local gradients averaged over the
sampled clients (lines 126-129, 290-303), the local direction grad(z) - grad(z_t) + g with the
same minibatch at both points and the proximal terms +theta (x - x_ref), -theta (y - y_ref)
(lines 176-184, 305-331), the client's step z_t + (eta_g/eta_l)(z^K - z_t) before averaging
(lines 185-188, 333-339), a constant step. Where the code differs and this module (with
fedbench) does not follow it: under drop-outs the code redraws which candidates respond in
phase B, keeping their number (lines 150-152), where fedbench keeps phase A's responders (the
same set without drop-outs); its minibatch iterator runs on across rounds, where fedbench
restarts the reshuffling every round; a stage whose only flag is at 0 has no round in the code
and the next stage draws again, the same dynamics as the redraw here.
"""
import numpy as np

import streams
from games import (QUADRATIC_GAME as GAME, GAME_OFF_ZERO, PARTIAL, client_grads, read_game,
                   solver_params as params)
from refcase import Case, States
from streams import SEED, Reshuffler


def stage_round_lengths(round_lengths, K, K0, t):
    """The local steps of each round of a stage that starts at round t."""
    if round_lengths == "fixed":
        return [K] * max(1, K0 // K)
    coins = streams.Stream(SEED, "catalyst-flags", -1, t, 0)
    lengths = []
    while not lengths:
        last = 0
        for i in range(K0):
            if coins.bernoulli(1.0 / K):   # communicate after local iteration i
                if i > last:
                    lengths.append(i - last)
                last = i
    return lengths


def catalyst_scaffold_s(round_lengths, local_steps, batch_size, stage_iterations, eta_l,
                        global_ratio=1.0, theta=0.0, participation="full"):
    def reference(inst, rounds):
        n, dx, samples, z = read_game(inst)
        out = [z.copy()]
        pending = []
        states = States()
        g_x = None

        def record(r):
            if g_x is not None:  # after the first phase A; fedbench's g in operator form
                states.server(r, "gradient_estimate_g", np.concatenate([g_x, -g_y]))
                states.server(r, "prox_center_z_ref", z_ref)

        for t in range(rounds):
            S_t = streams.participants(SEED, participation, n, t, 0)
            if not S_t:  # nobody sampled: the round changes nothing, the schedule included
                out.append(z.copy())
                record(t + 1)
                continue
            if not pending:  # a new proximal stage
                z_ref = z.copy()
                pending = stage_round_lengths(round_lengths, local_steps, stage_iterations, t)
            K_r = pending.pop(0)
            grads = [client_grads(inst, i, None, z, dx) for i, _ in S_t]   # phase A
            g_x = np.mean([g[0] for g in grads], axis=0)
            g_y = np.mean([g[1] for g in grads], axis=0)
            finals = []
            for i, occ in S_t:                                           # phase B, same clients
                batches = Reshuffler(i, t, 1, batch_size, int(samples[i]), occurrence=occ)
                x, y = z[:dx].copy(), z[dx:].copy()
                for k in range(K_r):
                    B = batches.next()
                    gx, gy = client_grads(inst, i, B, np.concatenate([x, y]), dx)
                    ax, ay = client_grads(inst, i, B, z, dx)
                    d_x = gx - ax + g_x + theta * (x - z_ref[:dx])
                    d_y = gy - ay + g_y - theta * (y - z_ref[dx:])
                    x, y = x - eta_l * d_x, y + eta_l * d_y
                finals.append(np.concatenate([x, y]))
            z = z + global_ratio * (np.mean(finals, axis=0) - z)
            out.append(z.copy())
            record(t + 1)
        return np.array(out), states
    return reference


CASES = [
    Case(solver="catalyst-scaffold-s", problem="quadratic-game", problem_params=GAME,
         solver_params=params(round_lengths="fixed", local_steps=3, batch_size=0,
                              stage_iterations=12, eta_l=0.2, global_ratio=1, theta=0),
         reference=catalyst_scaffold_s("fixed", 3, 0, 12, 0.2),
         note="fixed K steps per round, theta = 0"),
    Case(solver="catalyst-scaffold-s", problem="quadratic-game", problem_params=GAME,
         solver_params=params(round_lengths="fixed", local_steps=2, batch_size=3,
                              stage_iterations=9, eta_l=0.2, global_ratio=1.2, theta=0.7),
         reference=catalyst_scaffold_s("fixed", 2, 3, 9, 0.2, global_ratio=1.2, theta=0.7),
         note="stages of floor(9/2) = 4 rounds, anchor z_ref <- z_t at each, reshuffled minibatches"),
    Case(solver="catalyst-scaffold-s", problem="quadratic-game", problem_params=GAME,
         solver_params=params(round_lengths="geometric", local_steps=2, batch_size=0,
                              stage_iterations=8, eta_l=0.2, global_ratio=1, theta=0.5),
         reference=catalyst_scaffold_s("geometric", 2, 0, 8, 0.2, theta=0.5),
         note="Bernoulli(1/K) round lengths from the stage's server coins"),
    Case(solver="catalyst-scaffold-s", problem="quadratic-game", problem_params=GAME,
         solver_params=params(round_lengths="geometric", local_steps=3, batch_size=2,
                              stage_iterations=10, eta_l=0.15, global_ratio=0.8, theta=1.5),
         reference=catalyst_scaffold_s("geometric", 3, 2, 10, 0.15, global_ratio=0.8, theta=1.5,
                                       participation="uniform:2"),
         participation="uniform:2",
         note="2 of 3 clients (the same set in both phases), reshuffled minibatches"),
] + [
    Case(solver="catalyst-scaffold-s", problem="quadratic-game", problem_params=GAME_OFF_ZERO,
         solver_params=params(round_lengths="geometric", local_steps=3, batch_size=2,
                              stage_iterations=10, eta_l=0.15, global_ratio=0.8, theta=1.5),
         reference=catalyst_scaffold_s("geometric", 3, 2, 10, 0.15, global_ratio=0.8, theta=1.5,
                                       participation=mode),
         participation=mode, note=f"{mode}, z_0 != 0; one client set for both phases")
    for mode in PARTIAL
]
