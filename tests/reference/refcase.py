"""Shared mechanics of the reference transcriptions (tests/reference/*/*.py).

Each transcription module holds numpy code and a list CASES of `Case` objects; its docstring
says what it was written from (a paper's pseudocode, the authors' released code, or, where
neither was at hand, fedbench's documented reading: README.md has the table). run.py runs each
case through fedbench (`fedbench instance` for the data, `fedbench run --trace-iterates
--eval-every 1` for the iterates and the solver's lasting states) and through the
transcription, and requires, round by round:
- the server iterates to agree block by block: x and y each to a relative 1e-12 of its own
  scale (max |a - b| / max |b| over the block, per round), so that a small block is not diluted
  by a large one;
- every state fedbench traces (control variates, trackers, estimators, anchors, ...) to agree
  with the transcription's state of the same name, each on its own (per round, and per client
  for a client's), to a relative 1e-12 of its own largest component unless the module gives it
  another tolerance with a reason. A transcription returns its states as a `States` beside its
  iterates; a state fedbench traces that the transcription does not return fails the case
  unless the module lists it in `not_compared = {name: reason}`, and a state the transcription
  returns that fedbench does not trace fails it too.
"""
from __future__ import annotations

import dataclasses
import os
import subprocess
import tempfile
from typing import Callable, Dict, List, Optional, Tuple

import h5py
import numpy as np


@dataclasses.dataclass
class Case:
    """One comparison: a fedbench run and the transcription that must reproduce it."""

    solver: str                     # fedbench solver name (as `fedbench list solvers`)
    problem: str                    # fedbench problem name
    problem_params: Dict[str, str]  # -p key=value
    solver_params: Dict[str, str]   # -s key=value; give every value the algorithm reads
    # reference(instance, rounds) -> array (rounds + 1, dim): z_0 .. z_rounds, or the pair
    # (that array, States) when the transcription returns its states too
    reference: Callable[["Instance", int], object]
    participation: str = "full"
    rounds: int = 20
    note: str = ""                  # where the transcription takes a documented reading
    tolerance: float = 1e-12
    # States fedbench traces that this case does not compare, each with the reason (added to
    # the module's own `not_compared`).
    not_compared: Dict[str, str] = dataclasses.field(default_factory=dict)


class States:
    """A transcription's states round by round, under fedbench's names: row r is the state
    after r rounds (as the iterate z_r). A client's state is traced by fedbench as c/NAME with
    the client's id; give it as client(r, NAME, i, value)."""

    def __init__(self):
        self.values: Dict[Tuple[str, int, int], np.ndarray] = {}  # (name, client, round) -> value

    def server(self, r: int, name: str, value) -> None:
        self.values[(name, SERVER, r)] = np.atleast_1d(np.array(value, dtype=float))

    def client(self, r: int, name: str, i: int, value) -> None:
        self.values[(CLIENT_PREFIX + name, i, r)] = np.atleast_1d(np.array(value, dtype=float))

    def averaged(self, r: int, names, server, clients) -> None:
        """The states of a method whose server averages its clients' state vectors (fedbench's
        StateAveraging): the averages `server` (None before the first round ends) and every
        client's own vectors in `clients`, each list in the order of `names`."""
        for name, value in zip(names, server or ()):
            self.server(r, name, value)
        for i, own in enumerate(clients):
            for name, value in zip(names, own):
                self.client(r, name, i, value)

    def names(self) -> List[str]:
        return sorted({name for name, _, _ in self.values})


SERVER = -1            # the owner of a server state
CLIENT_PREFIX = "c/"   # fedbench's prefix of a client's state names
DEFAULT_STATE_TOLERANCE = 1e-12


class Instance:
    """A problem instance as `fedbench instance` writes it: every dataset by its path
    (inst["data/clients/0/M"], inst["initial_point"]) and every attribute in .attrs
    (attrs["num_clients"], attrs["constants/mu"], attrs["params/clients"])."""

    def __init__(self, path: str):
        self.arrays: Dict[str, np.ndarray] = {}
        self.attrs: Dict[str, object] = {}
        with h5py.File(path, "r") as f:
            f.visititems(self._visit)
            for k, v in f.attrs.items():
                self.attrs[k] = v

    def _visit(self, name, obj):
        if isinstance(obj, h5py.Group):  # e.g. constants/mu, params/clients
            for k, v in obj.attrs.items():
                self.attrs[f"{name}/{k}"] = v.decode() if isinstance(v, bytes) else v
        if isinstance(obj, h5py.Dataset):
            value = obj[()]
            if isinstance(value, bytes):
                value = value.decode()
            self.arrays[name] = value

    def __getitem__(self, path: str):
        return self.arrays[path]

    def __contains__(self, path: str) -> bool:
        return path in self.arrays

    def keys(self) -> List[str]:
        return sorted(self.arrays)


def read_trace(path: str) -> Tuple[np.ndarray, Dict[Tuple[str, int, int], np.ndarray]]:
    """The iterates fedbench traced (row k is z after k rounds) and its states, keyed by
    (name, client, round), client SERVER for the server's: the lines "ROUND z_1 .. z_d",
    "state ROUND NAME v_1 .. v_k" and "state ROUND c/NAME CLIENT v_1 .. v_k"."""
    rows, states = [], {}
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            words = line.split()
            if words[0] != "state":
                rows.append([float(w) for w in words])
                continue
            r, name = int(words[1]), words[2]
            client, values = (int(words[3]), words[4:]) if name.startswith(CLIENT_PREFIX) else (SERVER, words[3:])
            states[(name, client, r)] = np.array([float(v) for v in values])
    rows = np.array(rows, ndmin=2)
    rounds = rows[:, 0].astype(int)
    assert np.array_equal(rounds, np.arange(len(rounds))), "trace must hold every round"
    return rows[:, 1:], states


def relative_error(ours: np.ndarray, theirs: np.ndarray) -> np.ndarray:
    """Per round: max |ours - theirs| / max |theirs| (0 where both are exactly 0)."""
    scale = np.maximum(np.max(np.abs(theirs), axis=1), 1e-300)
    return np.max(np.abs(ours - theirs), axis=1) / scale


def blocks(inst: "Instance") -> Dict[str, slice]:
    """The server iterate's blocks, z = (x, y), from the instance's dimensions."""
    dx, dy = int(inst.attrs["dim_x"]), int(inst.attrs["dim_y"])
    return {"x": slice(0, dx), "y": slice(dx, dx + dy)}


def blockwise_error(ours: np.ndarray, theirs: np.ndarray, parts: Dict[str, slice]) -> Dict[str, np.ndarray]:
    """relative_error of every block separately (each against its own largest component)."""
    return {name: relative_error(ours[:, part], theirs[:, part]) for name, part in parts.items()
            if part.stop > part.start}


def owner(client: int) -> str:
    return "" if client == SERVER else f" of client {client}"


def compare_states(ours: Dict, theirs: Dict, not_compared: Dict[str, str],
                   tolerances: Dict[str, Tuple[float, str]]) -> Tuple[List[str], List[Tuple[int, str]]]:
    """The names compared, and the failures as (first round, message), earliest first: a name
    on one side only (unless not_compared), a (round, client) on one side only, or a value off
    by more than its tolerance relative to its own largest component."""
    traced = sorted({k[0] for k in ours})
    returned = sorted({k[0] for k in theirs})
    failures = []
    for name in returned:
        if name not in traced:
            failures.append((0, f"the transcription returns state {name}, which fedbench does not trace"))
        elif name in not_compared:
            failures.append((0, f"state {name} is both compared and listed in not_compared"))
    for name in traced:
        if name not in returned and name not in not_compared:
            failures.append((0, f"fedbench traces state {name}, which the transcription neither returns "
                                f"nor lists in not_compared"))
    compared = [name for name in traced if name in returned]
    for name in compared:
        tol = tolerances.get(name, (DEFAULT_STATE_TOLERANCE, ""))[0]
        mine = {(c, r) for n, c, r in ours if n == name}
        yours = {(c, r) for n, c, r in theirs if n == name}
        first = None
        for c, r in sorted(mine ^ yours, key=lambda k: (k[1], k[0])):
            side = "fedbench" if (c, r) in mine else "the transcription"
            failures.append((r, f"state {name}{owner(c)} at round {r}: only {side} has it"))
            break
        for c, r in sorted(mine & yours, key=lambda k: (k[1], k[0])):
            a, b = ours[(name, c, r)], theirs[(name, c, r)]
            if a.shape != b.shape:
                failures.append((r, f"state {name}{owner(c)} at round {r}: fedbench has {a.size} "
                                    f"entries, the transcription {b.size}"))
                break
            err = np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300)
            if not err <= tol and first is None:
                first = (r, f"state {name}{owner(c)} differs from round {r} on (relative {err:.3e} > {tol:g})")
        if first:
            failures.append(first)
    return compared, sorted(failures, key=lambda f: f[0])


@dataclasses.dataclass
class Outcome:
    """A case that passed: its largest iterate difference and what its states compared."""
    worst: np.ndarray
    compared: List[str]
    not_compared: Dict[str, str]


def run_case(fedbench: str, case: Case, workdir: Optional[str] = None,
             not_compared: Optional[Dict[str, str]] = None,
             tolerances: Optional[Dict[str, Tuple[float, str]]] = None,
             iterates_only: bool = False) -> Outcome:
    """Runs `case` both ways; raises AssertionError naming every mismatch, earliest round first
    (iterate blocks and states). `not_compared` and `tolerances` are the module's (by state
    name: a reason; a (tolerance, reason)); `iterates_only` compares the iterates alone (what
    the comparison was before it read states: to see how much later a bug shows there)."""
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        inst_path = os.path.join(tmp, "instance.h5")
        trace_path = os.path.join(tmp, "trace.txt")
        pargs = [a for k, v in case.problem_params.items() for a in ("-p", f"{k}={v}")]
        sargs = [a for k, v in case.solver_params.items() for a in ("-s", f"{k}={v}")]
        subprocess.run([fedbench, "instance", case.problem, *pargs, "-o", inst_path],
                       check=True, stdout=subprocess.DEVNULL)
        run = subprocess.run([fedbench, "run", "--problem", case.problem, "--solver", case.solver,
                              *pargs, *sargs, "--participation", case.participation,
                              "--rounds", str(case.rounds), "--eval-every", "1", "--threads", "1",
                              "--trace-iterates", trace_path, "-q"], capture_output=True, text=True)
        if run.returncode != 0:
            raise AssertionError(f"{case.solver}: fedbench run exited {run.returncode} "
                                 f"({case.participation}): {run.stderr.strip() or run.stdout.strip()[-300:]}")
        ours, our_states = read_trace(trace_path)
        inst = Instance(inst_path)
        result = case.reference(inst, case.rounds)
    theirs, their_states = result if isinstance(result, tuple) else (result, States())
    theirs = np.asarray(theirs, dtype=float)
    if ours.shape != theirs.shape:
        raise AssertionError(f"{case.solver}: fedbench traced {ours.shape}, the transcription "
                             f"gave {theirs.shape}")
    skipped = dict(not_compared or {}, **case.not_compared)
    compared, failures = ([], []) if iterates_only else \
        compare_states(our_states, their_states.values, skipped, tolerances or {})
    worst = np.zeros(ours.shape[0])
    for name, err in blockwise_error(ours, theirs, blocks(inst)).items():
        if not np.all(err <= case.tolerance):
            first = int(np.argmax(err > case.tolerance))
            failures.append((first, f"block {name} differs from round {first} on (relative "
                                    f"{err[first]:.3e} > {case.tolerance:g}; max {err.max():.3e})"))
        worst = np.maximum(worst, err)
    if failures:
        failures.sort(key=lambda f: f[0])
        raise AssertionError(f"{case.solver}: " + "; ".join(message for _, message in failures))
    traced = {k[0] for k in our_states}
    return Outcome(worst, compared, {n: r for n, r in skipped.items() if n in traced})
