"""Shared mechanics of the reference transcriptions (tests/reference/*/*.py).

Each transcription module holds numpy code and a list CASES of `Case` objects; its docstring
says what it was written from (a paper's pseudocode, the authors' released code, or, where
neither was at hand, fedbench's documented reading: README.md has the table). run.py runs each case through fedbench
(`fedbench instance` for the data, `fedbench run --trace-iterates --eval-every 1` for the
iterates) and through the transcription, and requires the server iterates of every round to
agree, block by block: x and y each to a relative 1e-12 of its own scale (max |a - b| / max |b|
over the block, per round), so that a small block is not diluted by a large one.
"""
from __future__ import annotations

import dataclasses
import os
import subprocess
import tempfile
from typing import Callable, Dict, List, Optional

import h5py
import numpy as np


@dataclasses.dataclass
class Case:
    """One comparison: a fedbench run and the transcription that must reproduce it."""

    solver: str                     # fedbench solver name (as `fedbench list solvers`)
    problem: str                    # fedbench problem name
    problem_params: Dict[str, str]  # -p key=value
    solver_params: Dict[str, str]   # -s key=value; give every value the algorithm reads
    # reference(instance, rounds) -> array (rounds + 1, dim): z_0 .. z_rounds
    reference: Callable[["Instance", int], np.ndarray]
    participation: str = "full"
    rounds: int = 20
    note: str = ""                  # where the transcription takes a documented reading
    tolerance: float = 1e-12


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


def read_trace(path: str) -> np.ndarray:
    """The iterates fedbench traced: row k is z after k rounds."""
    rows = np.loadtxt(path, comments="#", ndmin=2)
    rounds = rows[:, 0].astype(int)
    assert np.array_equal(rounds, np.arange(len(rounds))), "trace must hold every round"
    return rows[:, 1:]


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


def run_case(fedbench: str, case: Case, workdir: Optional[str] = None) -> np.ndarray:
    """Runs `case` both ways; returns the per-round relative error (raises on a mismatch)."""
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
        ours = read_trace(trace_path)
        inst = Instance(inst_path)
        theirs = np.asarray(case.reference(inst, case.rounds), dtype=float)
    if ours.shape != theirs.shape:
        raise AssertionError(f"{case.solver}: fedbench traced {ours.shape}, the transcription "
                             f"gave {theirs.shape}")
    worst = np.zeros(ours.shape[0])
    for name, err in blockwise_error(ours, theirs, blocks(inst)).items():
        if not np.all(err <= case.tolerance):
            first = int(np.argmax(err > case.tolerance))
            raise AssertionError(f"{case.solver}: block {name} differs from round {first} on "
                                 f"(relative {err[first]:.3e} > {case.tolerance:g}; "
                                 f"max {err.max():.3e})")
        worst = np.maximum(worst, err)
    return worst
