"""FedSVRBGD-FO, transcribed from Y. Zhang, R. Dhaipule, C. C. Tan, H. Ling, H. Gao, "Federated
Stochastic Bilevel Optimization with Fully First-Order Gradients", IJCAI 2025, Algorithm 1 with
eqs. (5)-(7), on the penalty minimax L_lambda(x, y, z) = f(x, y) + lambda (g(x, y) - g(x, z))
of eqs. (3)-(4).

Written in the paper's DECOMPOSED form: six STORM estimators per client,
u1 ~ grad_1 f(x,y), u2 ~ grad_1 g(x,y), u3 ~ grad_1 g(x,z), v1 ~ grad_2 f(x,y),
v2 ~ grad_2 g(x,y), w1 ~ grad_2 g(x,z), composed into m_x = u1 + lambda (u2 - u3),
m_y = v1 + lambda v2, m_z = lambda w1 (step 1 and steps 5-8). Steps 3-5 move x, y, z with the
CURRENT estimators; step 9 averages x, y, z and all six estimators when mod(t+1, p) = 0.
(fedbench runs an equivalent compact form; the decomposed one here checks that equivalence.)

Minibatches: step 1 draws one pair (xi for f on validation rows, zeta for g on training rows)
of B rows each; steps 6-8 one fresh pair of b rows per iteration, shared by the old and the new
point and by the (x, y) and (x, z) estimators ("xi_{t+1}" at both points in eqs. (5)-(7)); B or
b = 0 is the whole local data. One fedbench round is p iterations; the traced model is (x, y)
after the round's averaging.

Readings shared with fedbench (its documented choices where the experiments are silent):
- "momentum 0.1": the STORM weight a (the paper's beta eta^2) is either `momentum` itself
  (a_direct) or momentum * eta^2 (beta_times_eta2, the literal parameterisation);
- z_0 = y_0 (the problem's start point); no averaging at t = 0 (step 9 needs mod(t+1, p) = 0).
- Partial participation (the paper has none): a round's sampled clients start from the server's
  averages of the last round (x, y, z and the six estimators; in the first round from their own
  step-1 estimators), and step 9 averages over them only; a client drawn twice (iid) runs twice
  in turn, with its own draws each time. The minibatch draw order and keys (streams.BilevelDraws;
  step 1 in round -1) are fedbench's plumbing.
"""
import numpy as np

from bilevel_common import HYPER, QUAD, QUAD_Y0, on_rows_that_differ, problem
from refcase import Case, States
from streams import SEED, BilevelDraws, dropout_responders, sampled_clients


def fedsvrbgd_fo(eta, alpha_x, alpha_y, alpha_z, lam, a, p, batch=0, initial_batch=0,
                 participation="full"):
    def reference(inst, rounds):
        prob = problem(inst)
        N = prob.n

        def draws(n, r, occ=0):
            return BilevelDraws(n, r, 0, prob.samples_upper[n], prob.samples_lower[n], occ)

        def estimators(n, x, y, z, xi, zeta):
            """(u1, u2, u3, v1, v2, w1) at (x, y, z) on the pair (xi, zeta)."""
            return [prob.fx(n, x, y, xi), prob.gx(n, x, y, zeta), prob.gx(n, x, z, zeta),
                    prob.fy(n, x, y, xi), prob.gy(n, x, y, zeta), prob.gy(n, x, z, zeta)]

        # every client's (x, y, z, [u1, u2, u3, v1, v2, w1]); step 1 on a batch of B
        state = []
        for n in range(N):
            x, y, z = prob.x0.copy(), prob.y0.copy(), prob.y0.copy()  # z_0 = y_0
            d = draws(n, -1)
            xi, zeta = d.next("upper", initial_batch), d.next("lower", initial_batch)
            state.append([x, y, z, estimators(n, x, y, z, xi, zeta)])
        server = None  # the averages of the last round (x, y, z, estimators)
        model = np.concatenate([prob.x0, prob.y0])
        out = [model.copy()]
        states = States()

        names = ("lower_copy_z", "storm_m_xy", "storm_m_z")

        def compact(z, est):
            """fedbench's states: z and the composed estimators m = (m_x, m_y), m_z."""
            u1, u2, u3, v1, v2, w1 = est
            return z, np.concatenate([u1 + lam * (u2 - u3), v1 + lam * v2]), lam * w1

        def record(row):
            states.averaged(row, names, server and compact(*server),
                            [compact(z, est) for _, _, z, est in state])

        record(0)
        for r in range(rounds):
            picked = (dropout_responders(SEED, participation, N, r, 0) if participation.startswith('dropout')
                      else sampled_clients(SEED, participation, N, r, 0))
            uploads = []
            for j, n in enumerate(picked):
                x, y, z, est = state[n]
                x, y = model[: prob.dx].copy(), model[prob.dx:].copy()
                if server is not None:
                    z, est = server[0].copy(), [e.copy() for e in server[1]]
                d = draws(n, r, picked[:j].count(n))
                for _ in range(p):
                    u1, u2, u3, v1, v2, w1 = est
                    mx = u1 + lam * (u2 - u3)
                    my = v1 + lam * v2
                    mz = lam * w1
                    # Steps 3-5 (Jacobi: all three with the estimators of iteration t).
                    xn = x - alpha_x * eta * mx
                    yn = y - alpha_y * eta * my
                    zn = z - alpha_z * eta * mz
                    # Steps 6-8, eqs. (5)-(7): (1 - beta eta^2)(old estimator - grad at the old
                    # point) + grad at the new point, one fresh pair at both points.
                    xi, zeta = d.next("upper", batch), d.next("lower", batch)
                    old = estimators(n, x, y, z, xi, zeta)
                    new = estimators(n, xn, yn, zn, xi, zeta)
                    est = [(1 - a) * (e - go) + gn for e, go, gn in zip(est, old, new)]
                    x, y, z = xn, yn, zn
                state[n] = [x, y, z, est]
                uploads.append((x, y, z, est))
            if uploads:  # Step 9 over the round's clients
                m = len(uploads)
                avg = lambda vs: sum(vs[1:], vs[0].copy()) / m
                model = np.concatenate([avg([u[0] for u in uploads]), avg([u[1] for u in uploads])])
                server = (avg([u[2] for u in uploads]),
                          [avg([u[3][q] for u in uploads]) for q in range(6)])
            out.append(model.copy())
            record(r + 1)
        return np.array(out), states
    return reference


def case(pp, problem_name, p, eta, ax, ay, az, lam, momentum, mode, batch=0, initial_batch=0,
         participation="full", note=""):
    a = momentum if mode == "a_direct" else momentum * eta ** 2
    sp = {"local_steps": str(p), "batch_size": str(batch), "initial_batch": str(initial_batch),
          "eta": str(eta), "alpha_x": str(ax), "alpha_y": str(ay), "alpha_z": str(az),
          "lambda": str(lam), "momentum": str(momentum), "momentum_mode": mode}
    return Case(solver="fedsvrbgd-fo", problem=problem_name, problem_params=pp, solver_params=sp,
                participation=participation, note=note,
                reference=fedsvrbgd_fo(eta, ax, ay, az, lam, a, p, batch, initial_batch, participation))


Q2, HL = "bilevel-quadratic", "hyper-logreg"
CASES = [
    case(QUAD, Q2, 3, 0.05, 0.5, 0.3, 0.2, 2.0, 0.3, "a_direct", note="a = momentum (a_direct); z0 = y0"),
    case(QUAD_Y0, Q2, 2, 0.1, 0.4, 0.25, 0.15, 1.5, 0.8, "beta_times_eta2",
         note="y0 != 0, a = beta eta^2 (beta_times_eta2)"),
    case(QUAD_Y0, Q2, 1, 0.05, 0.3, 0.3, 0.3, 3.0, 0.1, "a_direct", note="y0 != 0, p = 1"),
    case(QUAD_Y0, Q2, 3, 0.05, 0.5, 0.3, 0.2, 2.0, 0.3, "a_direct", batch=2, initial_batch=3,
         participation="uniform:2", note="y0 != 0, minibatches b = 2, B = 3, uniform:2"),
    case(QUAD_Y0, Q2, 2, 0.05, 0.5, 0.3, 0.2, 2.0, 0.3, "a_direct", batch=2, initial_batch=0,
         participation="iid:3", note="y0 != 0, minibatches, B = full, iid:3"),
    case(HYPER, HL, 3, 0.5, 0.5, 0.5, 0.5, 2.0, 0.3, "a_direct", note="hyper-logreg, full batches"),
    case(HYPER, HL, 3, 0.5, 0.5, 0.5, 0.5, 2.0, 0.3, "a_direct", batch=3, initial_batch=5,
         note="hyper-logreg, minibatches b = 3, B = 5"),
    case(HYPER, HL, 2, 0.5, 0.5, 0.5, 0.5, 2.0, 0.8, "beta_times_eta2", batch=2, initial_batch=4,
         participation="bernoulli:0.5", note="hyper-logreg, beta_times_eta2, minibatches, bernoulli:0.5"),
    case(QUAD_Y0, Q2, 2, 0.05, 0.5, 0.3, 0.2, 2.0, 0.3, "a_direct", batch=2, initial_batch=3,
         participation="dropout:3:0.6", note="y0 != 0, minibatches, dropout:3:0.6"),
]

# Every y0 != 0 case again where the rows of a minibatch decide its Hessians and cross-Jacobians.
CASES += on_rows_that_differ(CASES)
