#!/usr/bin/python3
"""Runs reference transcriptions against fedbench: run.py --fedbench BIN MODULE.py [...]

Prints one line per case (solver, largest relative difference of the iterates over the rounds,
the reading it takes where it documents one) and under it the solver states the case compares
and those it does not (with the module's reason); exits 1 when any case's iterates or states
differ, or when a state is traced by one side only (refcase.py).

A module may define, beside CASES:
  not_compared = {STATE: REASON}          states fedbench traces that the module does not compare
  state_tolerances = {STATE: (TOL, REASON)}  a state's own tolerance (default 1e-12 relative)
"""
import argparse
import importlib.util
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import refcase  # noqa: E402


def load(path):
    spec = importlib.util.spec_from_file_location(os.path.splitext(os.path.basename(path))[0], path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--fedbench", required=True)
    parser.add_argument("--iterates-only", action="store_true",
                        help="compare the server iterates alone, not the states (to see how much "
                             "later a state's bug shows in the iterates)")
    parser.add_argument("modules", nargs="+")
    args = parser.parse_args()
    failed = passed = 0
    for path in args.modules:
        module = load(path)
        not_compared = getattr(module, "not_compared", {})
        tolerances = getattr(module, "state_tolerances", {})
        for name, entry in tolerances.items():
            if not (isinstance(entry, tuple) and len(entry) == 2 and entry[1]):
                print(f"FAIL {path}: state_tolerances[{name!r}] must be (tolerance, reason)")
                return 1
        for case in module.CASES:
            try:
                out = refcase.run_case(args.fedbench, case, not_compared=not_compared,
                                       tolerances=tolerances, iterates_only=args.iterates_only)
                passed += 1
                print(f"ok   {case.solver:24s} {case.problem:20s} max rel diff {out.worst.max():.2e}"
                      + (f"  ({case.note})" if case.note else ""))
                if args.iterates_only:
                    continue
                none = "none" if out.not_compared else "none traced"
                print(f"       states compared: {', '.join(out.compared) or none}")
                for name, why in sorted(out.not_compared.items()):
                    print(f"       not compared: {name} ({why})")
            except AssertionError as e:
                failed += 1
                print(f"FAIL {e}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
