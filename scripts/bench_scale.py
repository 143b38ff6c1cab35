#!/usr/bin/env python3
"""How well a suite uses the cores: each suite is run fresh at each --jobs value, and its wall
time is set against what the cores allow, max(total work / cores, longest run), where a run's
work is its solver, evaluation and set-up seconds as its file records them, times the threads
it had (core-seconds), and the longest run is in seconds at the thread count it had (given more
cores it would be shorter). Also printed: the
share of the work that is metric evaluation, and the longest run's share of the wall.

    python3 scripts/bench_scale.py --fedbench build/bin/fedbench            # the default suites
    python3 scripts/bench_scale.py --fedbench build/bin/fedbench --jobs 1,4,16 results/suites/auc-a9a.yaml

A ratio of 1.00 is ideal; a suite bound by its longest run (the other cores idle while it
finishes on one thread) shows a large "longest/wall". Figures depend on the machine and its
load: compare runs made on the same machine, one after the other.
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time

import h5py

DEFAULT_SUITES = ["results/suites/zhang2025-a9a.yaml", "results/suites/xie2021-fig2-5.yaml",
                  "results/suites/auc-a9a.yaml"]


def run_times(results):
    """Of every run file: its seconds (solver + evaluation + set-up), its core-seconds (those
    seconds times the threads it had: what it held of the machine) and its evaluation
    core-seconds."""
    out = []
    for path in sorted(glob.glob(os.path.join(results, "runs", "*.h5"))):
        with h5py.File(path, "r") as f:
            a = f.attrs
            solver, evaluation, setup = (float(a.get(k, 0.0)) for k in ("wall_time", "eval_time", "setup_time"))
            threads = max(1, int(a.get("env_threads", 1)))
        seconds = solver + evaluation + setup
        out.append((seconds, seconds * threads, evaluation * threads))
    return out


def measure(fedbench, suite, jobs):
    scratch = tempfile.mkdtemp(prefix="fedbench-bench-scale-")
    try:
        start = time.perf_counter()
        subprocess.run([fedbench, "run", suite, "--results", scratch, "--jobs", str(jobs), "-q"],
                       check=True, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - start
        return wall, run_times(scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suites", nargs="*", default=DEFAULT_SUITES)
    parser.add_argument("--fedbench", default="build/bin/fedbench")
    parser.add_argument("--jobs", default="", help="comma-separated job counts (default: 1, 2 and the cores)")
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    jobs = [int(j) for j in args.jobs.split(",")] if args.jobs else sorted({1, min(2, cores), cores})
    print(f"{cores} cores")
    print(f"{'suite':<22} {'jobs':>4} {'runs':>5} {'wall s':>8} {'work cs':>8} {'longest s':>9} "
          f"{'ideal s':>8} {'wall/ideal':>10} {'longest/wall':>12} {'eval share':>10}")
    for suite in args.suites:
        name = os.path.splitext(os.path.basename(suite))[0]
        for j in jobs:
            wall, runs = measure(args.fedbench, suite, j)
            if not runs:
                sys.exit(f"bench_scale: {suite} wrote no run files")
            work = sum(r[1] for r in runs)
            longest = max(r[0] for r in runs)
            evaluation = sum(r[2] for r in runs)
            ideal = max(work / cores, longest)
            print(f"{name:<22} {j:>4} {len(runs):>5} {wall:>8.2f} {work:>8.2f} {longest:>9.2f} "
                  f"{ideal:>8.2f} {wall / ideal:>10.2f} {longest / wall:>12.2f} {evaluation / work:>10.2f}")


if __name__ == "__main__":
    main()
