#!/usr/bin/python3
"""Runs reference transcriptions against fedbench: run.py --fedbench BIN MODULE.py [...]

Prints one line per case (solver, largest relative difference over the rounds, the reading
it takes where it documents one) and exits 1 when any case's iterates differ.
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
    parser.add_argument("modules", nargs="+")
    args = parser.parse_args()
    failed = passed = 0
    for path in args.modules:
        for case in load(path).CASES:
            try:
                err = refcase.run_case(args.fedbench, case)
                passed += 1
                print(f"ok   {case.solver:24s} {case.problem:20s} max rel diff {err.max():.2e}"
                      + (f"  ({case.note})" if case.note else ""))
            except AssertionError as e:
                failed += 1
                print(f"FAIL {e}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
