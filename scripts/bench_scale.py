#!/usr/bin/python3
"""How well a suite uses the cores: each suite is run fresh at each --jobs value, and its wall
time is set against what the cores allow,

    ideal = max(work / cores, longest run on all cores),

where `work` is the sum of the runs' seconds (solver, evaluation and set-up, as each file
records them) when every run has one thread (`--jobs <cores> --threads 1`), and the longest run
on all cores is the longest run of `--jobs 1` (each run alone with every core). Also printed:
the longest run's share of the wall (a suite bound by one run shows it near 1), the share of
the work that is metric evaluation, and the threads the runs ended with (runs of a suite take
the cores that finished jobs leave).

    python3 scripts/bench_scale.py --fedbench build/bin/fedbench            # the default suites
    python3 scripts/bench_scale.py --fedbench build/bin/fedbench --jobs 2,16 results/suites/auc-a9a.yaml

A ratio of 1.00 is ideal. Figures depend on the machine and its load: compare runs made on the
same machine, one after the other.
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
    """Of every run file: its seconds (solver + evaluation + set-up), its evaluation seconds and
    the threads it ended with."""
    out = []
    for path in sorted(glob.glob(os.path.join(results, "runs", "*.h5"))):
        with h5py.File(path, "r") as f:
            a = f.attrs
            solver, evaluation, setup = (float(a.get(k, 0.0)) for k in ("wall_time", "eval_time", "setup_time"))
            threads = int(a.get("threads_at_end", a.get("env_threads", 1)))
        out.append((solver + evaluation + setup, evaluation, threads))
    return out


def measure(fedbench, suite, jobs, threads=None):
    scratch = tempfile.mkdtemp(prefix="fedbench-bench-scale-")
    try:
        command = [fedbench, "run", suite, "--results", scratch, "--jobs", str(jobs), "-q"]
        if threads:
            command += ["--threads", str(threads)]
        start = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - start
        runs = run_times(scratch)
        if not runs:
            sys.exit(f"bench_scale: {suite} wrote no run files")
        return wall, runs
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
    print(f"{'suite':<22} {'jobs':>9} {'runs':>5} {'wall s':>8} {'ideal s':>8} {'wall/ideal':>10} "
          f"{'longest/wall':>12} {'max threads':>11}")
    for suite in args.suites:
        name = os.path.splitext(os.path.basename(suite))[0]
        _, single = measure(args.fedbench, suite, cores, threads=1)
        work = sum(r[0] for r in single)
        evaluation = sum(r[1] for r in single)
        alone = measure(args.fedbench, suite, 1)[1] if 1 not in jobs else None
        results = {}
        for j in jobs:
            results[j] = measure(args.fedbench, suite, j)
        if alone is None:
            alone = results[1][1]
        longest_alone = max(r[0] for r in alone)
        ideal = max(work / cores, longest_alone)
        print(f"{name:<22} work {work:.2f} core-s (evaluation {evaluation / work:.2f}), longest run on all "
              f"cores {longest_alone:.2f} s, ideal {ideal:.2f} s")
        for j, (wall, runs) in results.items():
            longest = max(r[0] for r in runs)
            print(f"{name:<22} {j:>9} {len(runs):>5} {wall:>8.2f} {ideal:>8.2f} {wall / ideal:>10.2f} "
                  f"{longest / wall:>12.2f} {max(r[2] for r in runs):>11}")


if __name__ == "__main__":
    main()
