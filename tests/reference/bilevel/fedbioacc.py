"""FedBiOAcc and FedBiO, transcribed from J. Li, F. Huang, H. Huang, "Communication-Efficient
Federated Bilevel Optimization with Local and Global Lower Level Problems", NeurIPS 2023
(arXiv 2205.01608; run as a baseline by Y. Zhang et al., IJCAI 2025, Section 5.1, and listed in
Table 1 of F. Huang, arXiv 2211.01122, 2022), the global-lower-level method.

The Hessian-inverse-vector product is the solution of the federated quadratic
u* = argmin_u (1/M) sum_i [1/2 u^T grad^2_yy g_i u - u^T grad_y f_i]; every client keeps
(x, y, u) and STORM trackers omega (y), nu (u), chi (x):
    y+ = y - c_y eta omega,  u+ = Proj_{||u|| <= r}(u - c_u eta nu),  x+ = x - c_x eta chi
    omega = grad_y g(+) + (1 - a)(omega - grad_y g(old))
    nu    = [H(+) u+ - grad_y f(+)] + (1 - a)(nu - [H(old) u - grad_y f(old)])
    chi   = [grad_x f(+) - J(+) u+] + (1 - a)(chi - [grad_x f(old) - J(old) u])
with H = grad^2_yy g_i, J = grad^2_xy g_i; every p local steps average x, y, u and the trackers.
FedBiO is the same scheme with plain gradients (a = 1).

Minibatches: one pair per iteration, xi (b upper rows, for the f terms) and zeta (b lower rows,
for the g terms, H and J), used at the old and the new point; the initial trackers on one pair of
B rows (0: all rows). One fedbench round is p iterations.

Readings shared with fedbench (documented there; the IJCAI 2025 experiments are silent): a
constant step eta for the three blocks, scaled by per-block factors c_x, c_y, c_u (Li et al.'s
multipliers of their decaying rate a_t, which is not used here); the momentum
coefficient is the STORM weight a; u_0 = 0; the initial trackers at (x0, y0, u0) on each
client's data, not averaged at t = 0; the projection radius r = 0 means no projection; which
sample each term takes (f on xi, g on zeta); under partial participation the round's clients
start from the server's averages of the last round (x, y, u and the trackers; in the first round
from their own initial trackers) and the averages run over them only, a client drawn twice running
twice in turn with its own draws; the draw order and keys (streams.BilevelDraws, xi then zeta;
the initial pair in round -1) are fedbench's plumbing. The Li et al. paper is not at hand here:
the update rules above are as the IJCAI 2025 and arXiv 2211.01122 summaries and fedbench describe
them, so this module is not independent of fedbench's reading.
"""
import numpy as np

from bilevel_common import HYPER, QUAD, QUAD_Y0, on_rows_that_differ, problem
from refcase import Case, States
from streams import SEED, BilevelDraws, dropout_responders, sampled_clients


def fedbioacc(eta, a, p, radius=0.0, cx=1.0, cy=1.0, cu=1.0, batch=0, initial_batch=0,
              participation="full"):
    ex, ey, eu = eta * cx, eta * cy, eta * cu

    def reference(inst, rounds):
        prob = problem(inst)
        N = prob.n

        def proj(u):
            nrm = np.linalg.norm(u)
            return u * (radius / nrm) if radius > 0 and nrm > radius else u

        def grads(i, x, y, u, xi, zeta):
            om = prob.gy(i, x, y, zeta)
            nu = prob.hvp(i, x, y, u, zeta) - prob.fy(i, x, y, xi)
            chi = prob.fx(i, x, y, xi) - prob.jvp(i, x, y, u, zeta)
            return om, nu, chi

        def draws(i, rnd, occ=0):
            return BilevelDraws(i, rnd, 0, prob.samples_upper[i], prob.samples_lower[i], occ)

        state = []  # every client's (u, omega, nu, chi)
        for i in range(N):
            d = draws(i, -1)
            u0 = np.zeros(prob.dy)
            zeta = d.next("lower", initial_batch)  # fedbench draws the initial zeta first
            xi = d.next("upper", initial_batch)
            state.append((u0, *grads(i, prob.x0, prob.y0, u0, xi, zeta)))
        server = None
        x_avg, y_avg = prob.x0.copy(), prob.y0.copy()
        out = [np.concatenate([x_avg, y_avg])]
        states = States()
        names = ("aux_u", "tracker_omega", "tracker_nu", "tracker_chi")
        states.averaged(0, names, server, state)
        for rnd in range(rounds):
            picked = (dropout_responders(SEED, participation, N, rnd, 0) if participation.startswith('dropout')
                      else sampled_clients(SEED, participation, N, rnd, 0))
            ups = []
            for j, i in enumerate(picked):
                x, y = x_avg.copy(), y_avg.copy()
                u, om, nu, chi = state[i] if server is None else [s.copy() for s in server]
                d = draws(i, rnd, picked[:j].count(i))
                for _ in range(p):
                    yn = y - ey * om
                    un = proj(u - eu * nu)
                    xn = x - ex * chi
                    xi, zeta = d.next("upper", batch), d.next("lower", batch)
                    new = grads(i, xn, yn, un, xi, zeta)
                    old = grads(i, x, y, u, xi, zeta)
                    om = new[0] + (1 - a) * (om - old[0])
                    nu = new[1] + (1 - a) * (nu - old[1])
                    chi = new[2] + (1 - a) * (chi - old[2])
                    x, y, u = xn, yn, un
                state[i] = (u, om, nu, chi)
                ups.append((x, y, u, om, nu, chi))
            if ups:  # every p local steps: average x, y, u and the trackers
                avg = [sum((w[q] for w in ups[1:]), ups[0][q].copy()) / len(ups) for q in range(6)]
                x_avg, y_avg, server = avg[0], avg[1], avg[2:]
            out.append(np.concatenate([x_avg, y_avg]))
            states.averaged(rnd + 1, names, server, state)
        return np.array(out), states
    return reference


def case(pp, problem_name, p, eta, a, radius=0.0, cx=1.0, cy=1.0, cu=1.0, batch=0,
         initial_batch=0, participation="full", solver="fedbioacc", note=""):
    sp = {"local_steps": str(p), "batch_size": str(batch), "initial_batch": str(initial_batch),
          "eta": str(eta), "x_step_factor": str(cx), "y_step_factor": str(cy),
          "u_step_factor": str(cu), "momentum": str(a), "u_radius": str(radius)}
    return Case(solver=solver, problem=problem_name, problem_params=pp, solver_params=sp,
                participation=participation, note=note,
                reference=fedbioacc(eta, a, p, radius, cx, cy, cu, batch, initial_batch, participation))


Q2, HL = "bilevel-quadratic", "hyper-logreg"
CASES = [
    case(QUAD, Q2, 3, 0.08, 0.3, note="one step eta for x, y, u; u0 = 0; a = momentum"),
    case(QUAD_Y0, Q2, 2, 0.1, 0.5, radius=0.3, note="y0 != 0, u projected on ||u|| <= 0.3"),
    case(QUAD_Y0, Q2, 3, 0.1, 0.4, cx=0.6, cy=1.3, cu=0.8, batch=2, participation="uniform:2",
         note="y0 != 0, step factors, minibatches b = 2 (B = all rows), uniform:2"),
    case(QUAD_Y0, Q2, 3, 0.1, 1, solver="fedbio", batch=2, participation="iid:3",
         note="FedBiO (a = 1), y0 != 0, minibatches, iid:3"),
    case(HYPER, HL, 3, 0.3, 0.3, note="hyper-logreg, full batches"),
    case(HYPER, HL, 3, 0.3, 0.3, radius=0.5, batch=3,
         note="hyper-logreg, projection, minibatches b = 3 (B = all rows)"),
    case(HYPER, HL, 2, 0.3, 0.5, batch=2, participation="bernoulli:0.5",
         note="hyper-logreg, minibatches (B = all rows), bernoulli:0.5"),
    case(HYPER, HL, 2, 0.3, 0.5, batch=2, participation="dropout:2:0.6",
         note="hyper-logreg, minibatches, dropout:2:0.6"),
]

# initial_batch B > 0: the initial trackers take one pair (zeta, xi) of B rows, drawn in that order
# (fedbench's plumbing: the two draws share one counter).
CASES += [
    case(QUAD_Y0, Q2, 3, 0.1, 0.4, cx=0.6, cy=1.3, cu=0.8, batch=2, initial_batch=3,
         participation="uniform:2", note="y0 != 0, minibatches b = 2, B = 3, uniform:2"),
    case(HYPER, HL, 3, 0.3, 0.3, radius=0.5, batch=3, initial_batch=5,
         note="hyper-logreg, projection, minibatches b = 3, B = 5"),
    case(HYPER, HL, 2, 0.3, 0.5, batch=2, initial_batch=4, participation="bernoulli:0.5",
         note="hyper-logreg, minibatches, B = 4, bernoulli:0.5"),
]

# Every y0 != 0 case again where the rows of a minibatch decide its Hessians and cross-Jacobians.
CASES += on_rows_that_differ(CASES)
