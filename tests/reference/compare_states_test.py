#!/usr/bin/python3
"""The state comparison of refcase.py on made-up traces (no fedbench run): what passes, what
fails and at which round. Run by ctest as reference.compare_states; exits 1 on a wrong verdict."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from refcase import SERVER, States, compare_states  # noqa: E402


def traced(rounds=4):
    """fedbench's side: a server state and one client's, rounds 0 .. rounds - 1."""
    out = {}
    for r in range(rounds):
        out[("anchor_z", SERVER, r)] = np.array([1.0 + r, -2.0])
        out[("c/control_variate_c_i", 1, r)] = np.array([0.5 * r])
    return out


def transcribed(rounds=4, skip=(), change=None):
    """The transcription's side, the same values unless told."""
    s = States()
    for r in range(rounds):
        if "anchor_z" not in skip:
            s.server(r, "anchor_z", [1.0 + r, -2.0])
        if "c/control_variate_c_i" not in skip:
            s.client(r, "control_variate_c_i", 1, [0.5 * r])
    if change:
        key, value = change
        s.values[key] = np.array(value)
    return s.values


def expect(what, result, compared, failure_rounds):
    names, failures = result
    ok = names == compared and [r for r, _ in failures] == failure_rounds
    print(("ok   " if ok else "FAIL ") + what + ("" if ok else f": got {names}, {failures}"))
    return ok


def main():
    checks = [
        expect("equal traces pass", compare_states(traced(), transcribed(), {}, {}),
               ["anchor_z", "c/control_variate_c_i"], []),
        expect("a value off at round 2 fails from round 2",
               compare_states(traced(), transcribed(change=(("anchor_z", SERVER, 2), [3.0, -2.0 + 1e-9])), {}, {}),
               ["anchor_z", "c/control_variate_c_i"], [2]),
        expect("3e-12 relative to the state's largest component fails (default 1e-12)",
               compare_states(traced(), transcribed(change=(("anchor_z", SERVER, 1), [2.0, -2.0 + 6e-12])), {}, {}),
               ["anchor_z", "c/control_variate_c_i"], [1]),
        expect("a state's own tolerance lets it pass",
               compare_states(traced(), transcribed(change=(("anchor_z", SERVER, 2), [3.0, -2.0 + 1e-9])), {},
                              {"anchor_z": (1e-8, "made up")}),
               ["anchor_z", "c/control_variate_c_i"], []),
        expect("a traced state the transcription lacks fails",
               compare_states(traced(), transcribed(skip=("anchor_z",)), {}, {}),
               ["c/control_variate_c_i"], [0]),
        expect("... unless listed in not_compared",
               compare_states(traced(), transcribed(skip=("anchor_z",)), {"anchor_z": "made up"}, {}),
               ["c/control_variate_c_i"], []),
        expect("a state fedbench does not trace fails",
               compare_states(traced(), transcribed(change=(("c/h", 0, 0), [1.0])), {}, {}),
               ["anchor_z", "c/control_variate_c_i"], [0]),
        expect("a client's state at a round on one side only fails at that round",
               compare_states(traced(), transcribed(change=(("c/control_variate_c_i", 2, 3), [0.0])), {}, {}),
               ["anchor_z", "c/control_variate_c_i"], [3]),
        expect("a compared state listed in not_compared fails",
               compare_states(traced(), transcribed(), {"anchor_z": "made up"}, {}),
               ["anchor_z", "c/control_variate_c_i"], [0]),
    ]
    return 0 if all(checks) else 1


if __name__ == "__main__":
    sys.exit(main())
