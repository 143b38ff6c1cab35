#!/usr/bin/python3
"""Every solver fedbench registers (aliases included) has a reference transcription case:
coverage.py --fedbench BIN. Exits 1 naming the solvers without one."""
import argparse
import glob
import importlib.util
import os
import re
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--fedbench", required=True)
    args = parser.parse_args()
    listing = subprocess.run([args.fedbench, "list", "solvers"], check=True, capture_output=True,
                             text=True).stdout
    registered = set(re.findall(r"^([a-z0-9-]+)  ", listing, flags=re.M))
    covered = set()
    for path in sorted(glob.glob(os.path.join(here, "*", "*.py"))):
        spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        covered |= {case.solver for case in getattr(module, "CASES", [])}
    missing = sorted(registered - covered)
    print(f"{len(registered)} solvers registered, {len(registered & covered)} with a reference case")
    if missing:
        print("no reference transcription for: " + ", ".join(missing))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
