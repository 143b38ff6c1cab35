"""CD-MAGE, CD-MAGE+ and CD-MA, transcribed from J. Xie, C. Zhang, Z. Shen, W. Liu, H. Qian,
"Efficient Cross-Device Federated Learning Algorithms for Minimax Problems", arXiv 2105.14216,
2021 (AAAI 2023 as "CDMA"):
- CD-MAGE: Algorithms 1-3 with the minibatch global estimator, eq. (2): in the gradient
  collection phase the clients S'_t send their full local gradients at (x_t, y_t) and the server
  averages them into (u_t, v_t); in the parameter update phase the clients S_t run K local steps
  x <- x - eta_t d_x, y <- y + gamma_t d_y with the corrected directions of eq. (4),
  d = grad F_i(z^(k); B_k) - grad F_i(z_t; B_k) + (u_t, v_t) (the same minibatch at both
  points), and the server averages the local models (Alg. 1, line 8).
- CD-MAGE+: the same with the recursive (STORM) estimator of eq. (3),
  u_t = (1 - alpha_t) u_{t-1} + mean_{S'_t} [grad_x f_i(z_t) - (1 - alpha_t) grad_x f_i(z_{t-1})],
  and u_0, v_0 initialised by eq. (2) (text below eq. (3)).
- CD-MA: Algorithm 4 (Appendix A), local SGDA steps without correction.
Schedules of Appendix B.1: eta_t = c_eta/(t+1)^rho, gamma_t = c_gamma/(t+1)^rho,
alpha_t = min{1, c_alpha/(t+1)^(2 rho)}, t the 0-based round.

Readings shared with fedbench (documented there): phase B uses the phase-A client set
(`phase2_clients = same`), a fresh draw of the sampler (`independent`), or phase A's candidates
with this phase's responders drawn afresh among them (`same-candidates`, the authors' code under
drop-outs); a round whose phase A has no responders leaves the model and the estimate as they
are (fedbench's rule; the paper's S'_t is never empty), and eq. (3)'s z_{t-1} is the point of the
last collection;
minibatches by random reshuffling (Section 4.3, Theorem 3) with a fresh iterator every round.
The draws (client sets, permutations) are reproduced with streams.py; the update rules are the
paper's.
"""
import numpy as np

import streams
from games import (QUADRATIC_GAME as GAME, GAME_OFF_ZERO, PARTIAL, client_grads, max_client_norm,
                   read_game, solver_params as params, strong_monotonicity)
from refcase import Case, States
from streams import SEED, Reshuffler


def theory_steps(inst, K):
    """Section 4.1, Theorem 1 with Lemma 5, without the T- and sigma-dependent terms (they need
    the horizon and a variance bound): gamma = 1/(87 L_f K), eta = min{1/(36 L_f K),
    1/(4 L_Phi K), mu^2 gamma/(21 L_12^2)}, L_f = max_i ||M_i||_2 (L_12 <= L_f taken as L_f),
    L_Phi = L_f (1 + L_f/mu), mu = min_i lambda_min(sym M_i) (fedbench's reading of the
    constants)."""
    L, mu = max_client_norm(inst), strong_monotonicity(inst)
    gamma = 1 / (87 * L * K)
    eta = min(1 / (36 * L * K), 1 / (4 * L * (1 + L / mu) * K), mu ** 2 * gamma / (21 * L ** 2))
    return eta, gamma


def cd_mage(estimator, local_steps, batch_size, c_eta, c_gamma, c_alpha=1.0, rho=0.0,
            participation="full", phase2="same"):
    """estimator: 'gradient' (CD-MAGE, eq. 2), 'storm' (CD-MAGE+, eq. 3), 'none' (CD-MA);
    c_eta None: the theory steps."""
    K = local_steps

    def reference(inst, rounds):
        nonlocal c_eta, c_gamma
        if c_eta is None:
            c_eta, c_gamma = theory_steps(inst, K)
        n, dx, samples, z = read_game(inst)
        z_prev = z.copy()
        u = v = None
        out = [z.copy()]
        states = States()

        def record(r):
            if u is None:  # no phase A with responders yet (or CD-MA): no estimate
                return
            states.server(r, "estimate_w", np.concatenate([u, -v]))  # fedbench's (u_t, -v_t)
            if estimator == "storm":
                states.server(r, "previous_point_z", z_prev)

        for t in range(rounds):
            eta = c_eta / (t + 1) ** rho
            gamma = c_gamma / (t + 1) ** rho
            alpha = min(1.0, c_alpha / (t + 1) ** (2 * rho))
            if estimator == "none":  # Algorithm 4: one phase
                S_t = streams.participants(SEED, participation, n, t, 0)
                update_phase = 0
            else:
                # Gradient collection phase (Alg. 2), S'_t.
                S1 = [i for i, _ in streams.participants(SEED, participation, n, t, 0)]
                if not S1:  # nobody responded: the estimator keeps its value, nothing moves
                    out.append(z.copy())
                    record(t + 1)
                    continue
                gz = [client_grads(inst, i, None, z, dx) for i in S1]
                if estimator == "gradient" or u is None:  # eq. (2); u_0, v_0 of eq. (3)
                    u = np.mean([g[0] for g in gz], axis=0)
                    v = np.mean([g[1] for g in gz], axis=0)
                else:  # eq. (3): the same clients evaluate z_t and z_{t-1}
                    gp = [client_grads(inst, i, None, z_prev, dx) for i in S1]
                    u = (1 - alpha) * u + np.mean([a[0] - (1 - alpha) * b[0] for a, b in zip(gz, gp)], axis=0)
                    v = (1 - alpha) * v + np.mean([a[1] - (1 - alpha) * b[1] for a, b in zip(gz, gp)], axis=0)
                z_prev = z  # eq. (3)'s z_{t-1} next time: where this estimate was collected
                S_t = streams.participants(SEED, participation, n, t, 0 if phase2 == "same" else 1,
                                           redraw=phase2 == "same-candidates")
                update_phase = 1
            # Parameter update phase (Alg. 3 / Alg. 4 lines 6-12).
            finals = []
            for i, occ in S_t:
                batches = Reshuffler(i, t, update_phase, batch_size, int(samples[i]), occurrence=occ)
                x, y = z[:dx].copy(), z[dx:].copy()
                for k in range(K):
                    B = batches.next()
                    gx, gy = client_grads(inst, i, B, np.concatenate([x, y]), dx)
                    if estimator == "none":
                        d_x, d_y = gx, gy
                    else:  # eq. (4)
                        ax, ay = client_grads(inst, i, B, z, dx)
                        d_x, d_y = gx - ax + u, gy - ay + v
                    x, y = x - eta * d_x, y + gamma * d_y
                finals.append(np.concatenate([x, y]))
            if finals:
                z = np.mean(finals, axis=0)  # Alg. 1 line 8
            out.append(z.copy())
            record(t + 1)
        return np.array(out), states
    return reference


CASES = [
    Case(solver="cd-mage", problem="quadratic-game", problem_params=GAME,
         solver_params=params(estimator="gradient", local_steps=3, batch_size=0, c_eta=0.2,
                              c_gamma=0.3, rho=0, phase2_clients="same"),
         reference=cd_mage("gradient", 3, 0, 0.2, 0.3),
         note="full local batches (B = 0)"),
    Case(solver="cd-mage", problem="quadratic-game", problem_params=GAME,
         solver_params=params(estimator="gradient", local_steps=3, batch_size=3, c_eta=0.2,
                              c_gamma=0.3, rho=0, phase2_clients="same"),
         reference=cd_mage("gradient", 3, 3, 0.2, 0.3),
         note="reshuffled minibatches B=3 of n=4 (short last chunk), fresh iterator per round"),
    Case(solver="cd-mage", problem="quadratic-game", problem_params=GAME,
         solver_params=params(estimator="gradient", local_steps=2, batch_size=2, c_eta=0.2,
                              c_gamma=0.25, rho=0.5, phase2_clients="independent"),
         reference=cd_mage("gradient", 2, 2, 0.2, 0.25, rho=0.5, participation="uniform:2",
                           phase2="independent"),
         participation="uniform:2",
         note="phase-B clients a fresh draw of the sampler (phase2_clients = independent)"),
    Case(solver="cd-mage-plus", problem="quadratic-game", problem_params=GAME,
         solver_params=params(estimator="storm", local_steps=3, batch_size=0, c_eta=0.3,
                              c_gamma=0.3, c_alpha=0.6, rho=0.3333333333333333,
                              phase2_clients="independent"),
         reference=cd_mage("storm", 3, 0, 0.3, 0.3, c_alpha=0.6, rho=1 / 3,
                           participation="uniform:2", phase2="independent"),
         participation="uniform:2",
         note="alpha_t < 1 from round 1 on (c_alpha = 0.6); 2 of 3 clients, so eq. (3) is not "
              "the exact gradient"),
    Case(solver="cd-mage-plus", problem="quadratic-game", problem_params=GAME,
         solver_params=params(estimator="storm", local_steps=2, batch_size=2, c_eta=0.3,
                              c_gamma=0.2, c_alpha=2, rho=0.2, phase2_clients="same"),
         reference=cd_mage("storm", 2, 2, 0.3, 0.2, c_alpha=2, rho=0.2, participation="uniform:2"),
         participation="uniform:2",
         note="partial participation, phase B on the phase-A set; alpha_t clipped to 1 early"),
    Case(solver="cd-ma", problem="quadratic-game", problem_params=GAME,
         solver_params=params(estimator="none", local_steps=3, batch_size=0, c_eta=0.25,
                              c_gamma=0.35, rho=0.5),
         reference=cd_mage("none", 3, 0, 0.25, 0.35, rho=0.5)),
    Case(solver="cd-ma", problem="quadratic-game", problem_params=GAME,
         solver_params=params(estimator="none", local_steps=5, batch_size=3, c_eta=0.25,
                              c_gamma=0.35, rho=0),
         reference=cd_mage("none", 5, 3, 0.25, 0.35, participation="uniform:2"),
         participation="uniform:2",
         note="reshuffled minibatches across epochs, 2 of 3 clients per round"),
    Case(solver="cd-mage", problem="quadratic-game", problem_params=GAME_OFF_ZERO,
         solver_params=params(estimator="gradient", local_steps=3, batch_size=2, c_eta="theory",
                              c_gamma="theory", rho=0, phase2_clients="same"),
         reference=cd_mage("gradient", 3, 2, None, None, participation="uniform:2"),
         participation="uniform:2",
         note="theory steps (Thm 1 / Lemma 5 without the T, sigma terms); z_0 != 0"),
] + [
    Case(solver=solver, problem="quadratic-game", problem_params=GAME_OFF_ZERO,
         solver_params=params(estimator=estimator, local_steps=2, batch_size=3, c_eta=0.25,
                              c_gamma=0.2, c_alpha=0.5, rho=0.25, phase2_clients=phase2),
         reference=cd_mage(estimator, 2, 3, 0.25, 0.2, c_alpha=0.5, rho=0.25,
                           participation=mode, phase2=phase2),
         participation=mode, note=f"{mode}, z_0 != 0, phase B {phase2}")
    for solver, estimator, phase2, mode in (
        ("cd-mage", "gradient", "same-candidates", "dropout:3:0.6"),
        ("cd-mage-plus", "storm", "same-candidates", "dropout:3:0.6"),
        ("cd-mage-plus", "storm", "same", "iid:3"),
        ("cd-mage", "storm", "independent", "bernoulli:0.5"),
        ("cd-ma", "gradient", "independent", "iid:3"),
        ("cd-mage-plus", "none", "same", "bernoulli:0.5"),
        ("cd-ma", "none", "same-candidates", "dropout:3:0.6"),
    )
]
