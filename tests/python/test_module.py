"""The `fedbench` module from plain python3 (PYTHONPATH=build/lib/python): problems built by
name, their counted oracles against finite differences and each other, the counts, the
constants against `fedbench describe --json`, metrics at z0 and z*, streams, a Python
solver file loaded into the module's registries and run by fedbench.run (equal to local-gda), and
a bilevel Python solver whose oracle and message counts are known. Prints "module ok" or exits 1.

usage: test_module.py FEDBENCH"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

import fedbench

here = os.path.dirname(os.path.abspath(__file__))
exe = sys.argv[1]


def check(ok, what):
    if not ok:
        sys.exit(f"FAIL: {what}")


def central_difference(f, z, h=1e-5):
    g = np.zeros_like(z)
    for k in range(z.size):
        e = np.zeros_like(z)
        e[k] = h
        g[k] = (f(z + e) - f(z - e)) / (2 * h)
    return g


check("local-gda" in fedbench.list_solvers() and "quadratic-game" in fedbench.list_problems(), "registries")

# ---- a minimax problem: op = (grad_x f_i, -grad_y f_i), against differences of value
params = {"clients": 3, "samples": 5, "dim": 2}
p = fedbench.problem("quadratic-game", params)
check((p.family, p.num_clients, p.dim, p.dim_x, p.num_samples(1)) == ("minimax", 3, 4, 2, 5), "shape")
rng = np.random.default_rng(0)
z = rng.normal(size=p.dim)
op = p.op(1, z)
grad = central_difference(lambda w: p.value(1, w), z)
check(np.allclose(op, np.concatenate([grad[:2], -grad[2:]]), rtol=1e-6, atol=1e-8), f"op {op} vs differences {grad}")
check(np.array_equal(op, np.concatenate([p.grad_x(1, z), -p.grad_y(1, z)])), "op vs grad_x, grad_y")
check(np.allclose(p.op(1, z, samples=[0, 1, 2, 3, 4]), op, rtol=1e-12, atol=1e-14), "the full batch by indices")
counts = p.counts(1)
check(counts["grad_x_calls"] == 3 and counts["grad_y_calls"] == 3 and counts["value_calls"] == 2 * p.dim,
      f"counts {counts}")
check(p.counts(0)["grad_x_calls"] == 0 and p.counts()["grad_x_calls"] == 3, "per-client and total counts")

# ---- constants as `fedbench describe` publishes them
described = json.loads(subprocess.run([exe, "describe", "quadratic-game", "--json"] +
                                      [a for k, v in params.items() for a in ("-p", f"{k}={v}")],
                                      check=True, capture_output=True, text=True).stdout)
mine = p.constants()
for c in described["constants"]:
    check(mine[c["name"]] == c["value"], f"constant {c['name']}: {mine[c['name']]} vs {c['value']}")

# ---- metrics: rel_error 1 at z0, 0 at z*
z0, zs = p.initial_point(), p.reference_solution()
check(p.metrics(z0)["rel_error"] == 1.0 and p.metrics(zs)["rel_error"] == 0.0, "rel_error at z0 and z*")
check(np.linalg.norm(p.global_op(zs)) < 1e-10, "F(z*) = 0")

# ---- a bilevel problem: the Hessian-vector product against differences of grad_y g_i
b = fedbench.problem("bilevel-quadratic", {})
zb = rng.normal(size=b.dim)
v = rng.normal(size=b.dim_y)
hvp = b.lower_hvp(0, zb, v)
dx = np.concatenate([np.zeros(b.dim_x), v])
fd = (b.lower_grad_y(0, zb + 1e-5 * dx) - b.lower_grad_y(0, zb - 1e-5 * dx)) / 2e-5
check(np.allclose(hvp, fd, rtol=1e-6, atol=1e-8), "lower_hvp vs differences")
check(b.counts(0)["hvp_calls"] == 1 and b.counts(0)["grad_y_calls"] == 2, f"bilevel counts {b.counts(0)}")
try:
    b.op(0, zb)
    check(False, "op on a bilevel problem")
except TypeError:
    pass

# ---- streams: keyed, reproducible
s, t = fedbench.Stream(7, "noise", 2, 5), fedbench.Stream(7, "noise", 2, 5)
check(np.array_equal(s.normals(4), np.array([t.normal() for _ in range(4)])), "stream draws")

# ---- a solver file in the module's registries
fedbench.load_plugin(os.path.join(here, "py_local_gda.py"))
d = fedbench.describe_solver("py-local-gda")
check(d["plugin"].startswith("test-local-gda 1.0") and d["params"]["step_size"]["default"] == "theory", str(d))

# ---- fedbench.run: the Python transcription equals local-gda, counters and metrics
settings = dict(rounds=10, seed=2, participation="uniform:2", threads=2)
solver_params = {"local_steps": 3, "schedule": "constant", "step_size": 0.1}
c = fedbench.run("quadratic-game", "local-gda", params, solver_params, **settings)
py = fedbench.run("quadratic-game", "py-local-gda", params, solver_params, **settings)
check(c["status"] == "ok" and py["status"] == "ok" and py["solver_params"]["step_size"] == "0.1", str(py))
for name, column in c["columns"].items():
    if name not in ("wall_time", "eval_time"):
        check(np.array_equal(column, py["columns"][name]), f"fedbench.run column {name}")

# ---- a bilevel Python solver: one of each oracle per client and round, two fields up
probe = """
class Probe:
    name = "py-bilevel-probe"
    summary = "a lower-level step per client, with one oracle call of each kind"
    family = "bilevel"
    params = {"step_size": 0.1}
    up = ("model", "loss")
    def server_begin(self, server, down):
        down["model"] = server.model
    def client_round(self, client, state, down, up):
        z, b = down["model"].copy(), client.bilevel
        s = b.draw_lower(0)
        v = b.lower_grad_y(s, z)
        b.lower_hvp(s, z, v)
        b.lower_jvp(s, z, v)
        b.upper_grad_x(b.draw_upper(0), z)
        z[client.dim_x:] -= self.p.step_size * v
        up["model"] = z
        up["loss"] = b.lower_value(s, z)
    def server_end(self, server, uploads):
        server.model[:] = sum(u["model"] for u in uploads) / len(uploads)
fedbench_plugin = {"name": "probe", "version": "0", "solvers": [Probe]}
"""
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "probe.py")
    with open(path, "w") as f:
        f.write(probe)
    fedbench.load_plugin(path)
r = fedbench.run("bilevel-quadratic", "py-bilevel-probe", rounds=3, eval_every=1)
cols, m = r["columns"], b.num_clients
check(r["status"] == "ok", str(r))
check(list(cols["hvp_calls"]) == [0, m, 2 * m, 3 * m] and cols["jvp_calls"][-1] == 3 * m, "bilevel hvp/jvp counts")
check(cols["grad_x_calls"][-1] == 3 * m and cols["grad_y_calls"][-1] == 3 * m and cols["value_calls"][-1] == 3 * m,
      "bilevel gradient and value counts")
check(cols["floats_up"][-1] == 3 * m * (b.dim + 1) and cols["floats_down"][-1] == 3 * m * b.dim, "message sizes")
check(cols["lower_gap"][-1] < cols["lower_gap"][0], "the lower-level steps reduce the lower gap")
print("module ok")
