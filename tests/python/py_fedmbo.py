"""FedMBO written in Python: a transcription of lib/solvers/bilevel/fedmbo.cpp with the Neumann
hypergradient of lib/solvers/common/neumann_hypergradient.hpp, run by fedbench's engine through
`--plugin`. tests/cli/python_solvers.sh checks that its run files equal those of the C++
`fedmbo`: two exchanges per round with the same clients (local SGD on the lower level, then one
Neumann hypergradient per client), client state kept between the exchanges, the bilevel oracles
and the "neumann-k" stream."""
import math


def param(default, doc, **more):
    """A parameter declaration: default, doc and the optional keys (type, bounds, choices)."""
    return {"default": default, "doc": doc, **more}


class PyFedMBO:
    name = "py-fedmbo"
    summary = "FedMBO (Python transcription): lower-level local SGD, then a local Neumann hypergradient"
    citation = "Huang, Zhang, Ji, arXiv 2023 (2302.05412)"
    family = "bilevel"
    params = {
        "local_steps": param(4, "p, lower-level local SGD steps per round", ge=1),
        "batch_size": param(10, "rows per minibatch, both levels (0 = all)", ge=0),
        "gamma_x": param(0.01, "gamma_x, server step of x", gt=0),
        "gamma_y": param(0.01, "gamma_y, local step of y", gt=0),
        "neumann_terms": param("theory", "Q, Neumann terms", type="int", ge=1),
        "theta": param("theory", "theta <= 1/L_g, Neumann step", type="real", gt=0),
        "neumann": param("deterministic", "the deterministic sum or k ~ U{0..Q-1}",
                         choices=["deterministic", "randomized"]),
    }
    down = ("payload",)  # exchange 1: (x_k, y_k); exchange 2: y_{k+1}
    up = ("payload",)    # exchange 1: y_i; exchange 2: h_i
    phases = 2
    same_clients_every_phase = True

    @staticmethod
    def resolve(p, setup):
        if p.theta is None:
            p.theta = 1.0 / setup.constant("lipschitz_g_client_max")
        if p.neumann_terms is None:
            kappa = setup.constant("lipschitz_g_client_max") / setup.constant("mu_g_client_min")
            rounds = max(2.0, float(setup.rounds))
            q = 1 if kappa <= 1 else math.ceil(math.log(rounds) / -math.log1p(-1.0 / kappa))
            if not q <= 100000:
                setup.reject(f"neumann_terms = theory gives {q} terms; give -s neumann_terms=Q")
            p.neumann_terms = int(max(1.0, q))

    def server_begin(self, server, down):
        dx = server.dim_x
        down["payload"] = server.model if server.phase == 0 else server.model[dx:]

    def client_round(self, client, state, down, up):
        o, dx, p = client.bilevel, client.dim_x, self.p
        if client.phase == 0:
            state.z = down["payload"].copy()
            for _ in range(p.local_steps):
                g = o.lower_grad_y(o.draw_lower(p.batch_size), state.z)
                state.z[dx:] -= p.gamma_y * g
            up["payload"] = state.z[dx:].copy()
            return
        z = state.z
        z[dx:] = down["payload"]
        coins = client.stream("neumann-k")
        upper = o.draw_upper(p.batch_size)
        lower = [o.draw_lower(p.batch_size) for _ in range(p.neumann_terms)]
        randomized = p.neumann == "randomized"
        k = coins.below(p.neumann_terms) if randomized else 0
        r = o.upper_grad_y(upper, z)
        if randomized:
            for i in range(1, k + 1):
                r -= p.theta * o.lower_hvp(lower[i], z, r)
            v = (p.neumann_terms * p.theta) * r
        else:
            v = r.copy()
            for j in range(1, p.neumann_terms):
                r -= p.theta * o.lower_hvp(lower[j], z, r)
                v += r
            v *= p.theta
        jv = o.lower_jvp(lower[0], z, v)
        h = o.upper_grad_x(upper, z)
        h -= jv
        up["payload"] = h

    def server_end(self, server, uploads):
        mean = uploads[0]["payload"].copy()
        for u in uploads[1:]:
            mean += u["payload"]
        mean /= len(uploads)
        dx = server.dim_x
        if server.phase == 0:
            server.model[dx:] = mean
        else:
            server.model[:dx] -= self.p.gamma_x * mean


fedbench_plugin = {"name": "test-fedmbo", "version": "1.0", "solvers": [PyFedMBO]}
