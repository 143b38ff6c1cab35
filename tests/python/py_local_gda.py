"""Local GDA written in Python: a transcription of lib/solvers/minimax/local_sgda.cpp (the C++
`local-gda`), run by fedbench's engine through `--plugin`. tests/cli/python_solvers.sh checks
that its run files equal those of the C++ solver: K local full-batch GDA steps from the server
model with the same step-size rule (decay or constant), then the plain average of the uploads
in client-id order."""
import numpy as np


class PyLocalGDA:
    name = "py-local-gda"
    summary = "K local GDA steps from the server model, then averaging (Python transcription)"
    citation = "Deng & Mahdavi, AISTATS 2021, Alg. 1"
    family = "minimax"
    params = {
        "local_steps": {"default": 20, "ge": 1, "doc": "K, local steps per round"},
        "batch_size": {"default": 0, "ge": 0, "doc": "samples per oracle call; 0 = full local batch"},
        "schedule": {"default": "decay", "choices": ["decay", "constant"],
                     "doc": "decay: gamma_t = step_size a/(t+a); constant: gamma_t = step_size"},
        "step_size": {"default": "theory", "type": "real", "gt": 0,
                      "doc": "gamma_0; theory 8/(mu a) for the decay schedule"},
        "decay_offset": {"default": "theory", "type": "real", "ge": 0,
                         "doc": "a; theory 2048 K kappa^2; unused when constant"},
    }
    down = ("model",)
    up = ("model",)

    @staticmethod
    def resolve(p, setup):
        if p.schedule == "constant":
            if p.step_size is None:
                setup.reject("schedule=constant has no theory step size; give -s step_size=VALUE")
            if p.decay_offset is None:
                p.decay_offset = 0.0
            return
        if p.step_size is not None and p.decay_offset is not None:
            if p.decay_offset <= 0:
                setup.reject("decay_offset must be > 0 for schedule=decay")
            return
        mu = setup.constant("mu")
        kappa = setup.constant("lipschitz_client_max") / mu
        if p.decay_offset is None:
            p.decay_offset = 2048.0 * p.local_steps * kappa * kappa
        if p.decay_offset <= 0:
            setup.reject("decay_offset must be > 0 for schedule=decay")
        if p.step_size is None:
            p.step_size = 8.0 / (mu * p.decay_offset)

    def step_at(self, t):
        if self.p.schedule == "constant":
            return self.p.step_size
        return self.p.step_size * self.p.decay_offset / (t + self.p.decay_offset)

    def server_begin(self, server, down):
        down["model"] = server.model

    def client_round(self, client, state, down, up):
        x = down["model"].copy()
        K = self.p.local_steps
        for k in range(1, K + 1):
            g = client.oracle.op(x, self.p.batch_size)
            x -= self.step_at(client.round * K + k) * g
        up["model"] = x

    def server_end(self, server, uploads):
        # The engine's mean_into: summed in client-id order, then divided.
        total = uploads[0]["model"].copy()
        for u in uploads[1:]:
            total += u["model"]
        server.model[:] = total / len(uploads)


fedbench_plugin = {"name": "test-local-gda", "version": "1.0", "solvers": [PyLocalGDA]}
