"""CODASCA and CODA+, transcribed from Z. Yuan, Z. Guo, Y. Xu, Y. Ying, T. Yang, "Federated
Deep AUC Maximization for Heterogeneous Data with a Constant Communication Complexity",
ICML 2021, in the cross-device form run as baselines by J. Xie, C. Zhang, Z. Shen, W. Liu,
H. Qian, "Efficient Cross-Device Federated Learning Algorithms for Minimax Problems",
arXiv 2105.14216, 2021 (Section 5; Appendix B.1: local step eta_l, proximal weight theta,
K_0 local iterations between proximal-point updates, server step eta_g for CODASCA).

Stage-wise proximal point: stage s lasts floor(K_0 / K) rounds; at its start the proximal
centre x_ref <- x_t, and the stage solves min_x max_y f(x, y) + (theta/2)||x - x_ref||^2 by
local SGDA from the server's model, K local steps per round:
  x <- x - eta_s (grad_x F_i(x, y; B) [- c_{i,x} + c_x] + theta (x - x_ref)),
  y <- y + eta_s (grad_y F_i(x, y; B) [- c_{i,y} + c_y]),
with CODASCA's SCAFFOLD control variates in brackets: after the K steps
  c_{i,x} <- c_{i,x} - c_x + (x_t - x^K)/(K eta_s),  c_{i,y} <- c_{i,y} - c_y + (y^K - y_t)/(K eta_s),
and the server moves z_{t+1} = z_t + eta_g (mean z^K - z_t), c <- c + (1/N) sum_{i in S_t} dc_i
(SCAFFOLD's server update for partial participation, Karimireddy et al., ICML 2020, Alg. 1;
the plain mean of the c_i under full participation). CODA+ is the same without variates and with a plain average.

Readings shared with fedbench (documented there; the papers are silent): eta_s = eta_l / 3^s
(the divide-by-3 decay of Xie et al.'s released code); the client variates c_i persist across
participations and stages; `dual_control_variate = false` drops the y-step correction (Xie et
al.'s released code corrects only the x step). Minibatches by random reshuffling with a fresh
iterator every round (draws reproduced with streams.py).

Checked rule by rule against the released code (github.com/xjiajiahao/federated-minimax,
algorithm/codasca.py, initial commit 55d9c6f): floor(T0/K) rounds per stage with the proximal
centre refreshed at each stage start (lines 69-77), the local step eta_l/3^s on
grad + (c - c_i) + theta (x - x_ref) for x and the uncorrected ascent step for y (lines 197,
308-329), the variates' update c_i <- c_i - c + (x_t - x^K)/(K eta_s) and its y counterpart
(lines 341-354), c <- c + (1/N) sum_{i in S} (c_i new - c_i old) under partial participation
and the plain mean of the c_i under full participation (lines 99-107, 214-216), and the server
step x_t + eta_g (mean x^K - x_t) (lines 331-339). Where the code differs: with every client
in every round its clients never refresh their proximal centre (update_snapshot_flag is never
set: lines 71, 110, 192-193), while under partial participation the server sends the refreshed
one every round (lines 95-96); fedbench refreshes it at each stage in both cases (the algorithm,
and the code's partial-participation runs that Xie et al. report). Its minibatch iterator runs
on across rounds; fedbench restarts the reshuffling every round.
"""
import numpy as np

import streams
from games import (QUADRATIC_GAME as GAME, GAME_OFF_ZERO, PARTIAL, client_grads, read_game,
                   solver_params as params)
from refcase import Case, States
from streams import SEED, Reshuffler


def codasca(local_steps, batch_size, stage_iterations, eta_l, eta_g=1.0, theta=0.0,
            control_variates=True, dual_control_variate=True, participation="full"):
    K = local_steps
    rounds_per_stage = stage_iterations // K

    def reference(inst, rounds):
        n, dx, samples, z = read_game(inst)
        d = len(z)
        c = np.zeros(d)                       # (c_x, c_y), ascent sign for y as in the rule above
        c_i = [np.zeros(d) for _ in range(n)]
        out = [z.copy()]
        x_ref = z[:dx].copy()
        states = States()
        # fedbench keeps the variates in operator form: the y block negated; a client's from
        # its set-up on (client 0 before round 0, the others at their first participation)
        set_up = {0}
        as_operator = lambda c_: np.concatenate([c_[:dx], -c_[dx:]])

        def record(r):
            states.server(r, "prox_center_x_ref", x_ref)
            if control_variates:
                states.server(r, "control_variate_c", as_operator(c))
                for i in sorted(set_up):
                    states.client(r, "control_variate_c_i", i, as_operator(c_i[i]))

        record(0)
        for t in range(rounds):
            s = t // rounds_per_stage
            if t % rounds_per_stage == 0:
                x_ref = z[:dx].copy()        # proximal centre of stage s
            eta = eta_l / 3 ** s
            slots = streams.participants(SEED, participation, n, t, 0)
            set_up |= {i for i, _ in slots}
            if not slots:  # nobody sampled: the round changes nothing
                out.append(z.copy())
                record(t + 1)
                continue
            finals, deltas = [], []
            for i, occ in slots:  # a client drawn twice starts its second run from its new c_i
                batches = Reshuffler(i, t, 0, batch_size, int(samples[i]), occurrence=occ)
                x, y = z[:dx].copy(), z[dx:].copy()
                for k in range(K):
                    gx, gy = client_grads(inst, i, batches.next(), np.concatenate([x, y]), dx)
                    dir_x = gx + theta * (x - x_ref)
                    dir_y = gy
                    if control_variates:
                        dir_x = dir_x - c_i[i][:dx] + c[:dx]
                        if dual_control_variate:
                            dir_y = dir_y - c_i[i][dx:] + c[dx:]
                    x, y = x - eta * dir_x, y + eta * dir_y
                if control_variates:
                    new = np.concatenate([c_i[i][:dx] - c[:dx] + (z[:dx] - x) / (K * eta),
                                          c_i[i][dx:] - c[dx:] + (y - z[dx:]) / (K * eta)])
                    deltas.append(new - c_i[i])
                    c_i[i] = new
                finals.append(np.concatenate([x, y]))
            z = z + eta_g * (np.mean(finals, axis=0) - z)
            if control_variates:
                c = c + np.sum(deltas, axis=0) / n
            out.append(z.copy())
            record(t + 1)
        return np.array(out), states
    return reference


CASES = [
    Case(solver="codasca", problem="quadratic-game", problem_params=GAME,
         solver_params=params(local_steps=3, batch_size=0, stage_iterations=15, eta_l=0.3,
                              eta_g=1.1, theta=0.5, control_variates=True,
                              dual_control_variate=True),
         reference=codasca(3, 0, 15, 0.3, eta_g=1.1, theta=0.5),
         note="two-sided variates; stages of 5 rounds, eta_s = eta_l/3^s; c_i persist across stages"),
    Case(solver="codasca", problem="quadratic-game", problem_params=GAME,
         solver_params=params(local_steps=3, batch_size=0, stage_iterations=15, eta_l=0.3,
                              eta_g=1.1, theta=0.5, control_variates=True,
                              dual_control_variate=False),
         reference=codasca(3, 0, 15, 0.3, eta_g=1.1, theta=0.5, dual_control_variate=False),
         note="x-step variate only (Xie et al.'s released code)"),
    Case(solver="codasca", problem="quadratic-game", problem_params=GAME,
         solver_params=params(local_steps=2, batch_size=3, stage_iterations=8, eta_l=0.3,
                              eta_g=0.9, theta=1.0, control_variates=True,
                              dual_control_variate=True),
         reference=codasca(2, 3, 8, 0.3, eta_g=0.9, theta=1.0, participation="uniform:2"),
         participation="uniform:2",
         note="2 of 3 clients: c <- c + (1/N) sum dc_i, c_i kept between participations; "
              "reshuffled minibatches"),
    Case(solver="coda-plus", problem="quadratic-game", problem_params=GAME,
         solver_params=params(local_steps=3, batch_size=0, stage_iterations=12, eta_l=0.3,
                              theta=0.5),
         reference=codasca(3, 0, 12, 0.3, theta=0.5, control_variates=False),
         note="stages of 4 rounds, eta_s = eta_l/3^s"),
    Case(solver="coda-plus", problem="quadratic-game", problem_params=GAME,
         solver_params=params(local_steps=3, batch_size=2, stage_iterations=21, eta_l=0.25,
                              theta=2.0),
         reference=codasca(3, 2, 21, 0.25, theta=2.0, control_variates=False,
                           participation="uniform:2"),
         participation="uniform:2",
         note="2 of 3 clients, reshuffled minibatches; stages of 7 rounds"),
] + [
    Case(solver="codasca", problem="quadratic-game", problem_params=GAME_OFF_ZERO,
         solver_params=params(local_steps=2, batch_size=3, stage_iterations=8, eta_l=0.3,
                              eta_g=0.9, theta=1.0, control_variates=True,
                              dual_control_variate=dual),
         reference=codasca(2, 3, 8, 0.3, eta_g=0.9, theta=1.0, dual_control_variate=dual,
                           participation=mode),
         participation=mode, note=f"{mode}, z_0 != 0, dual variate {dual}")
    for mode, dual in zip(PARTIAL, (True, False, True))
] + [
    Case(solver="coda-plus", problem="quadratic-game", problem_params=GAME_OFF_ZERO,
         solver_params=params(local_steps=3, batch_size=2, stage_iterations=9, eta_l=0.25,
                              theta=2.0, eta_g=1.2, control_variates=True),
         reference=codasca(3, 2, 9, 0.25, eta_g=1.2, theta=2.0, participation="iid:3"),
         participation="iid:3",
         note="coda-plus with variates and a server rate is CODASCA: iid:3, z_0 != 0"),
    Case(solver="codasca", problem="quadratic-game", problem_params=GAME_OFF_ZERO,
         solver_params=params(local_steps=3, batch_size=0, stage_iterations=9, eta_l=0.3,
                              control_variates=False),
         reference=codasca(3, 0, 9, 0.3, theta=0.0, control_variates=False),
         note="codasca without variates, at its default theta = 0, z_0 != 0"),
]
