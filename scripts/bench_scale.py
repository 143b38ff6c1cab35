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
    python3 scripts/bench_scale.py --fedbench build/bin/fedbench --runs --repeat 3

A ratio of 1.00 is ideal.

`--runs` measures single runs instead, each at 1, 2 and <cores> threads, from the times their
run files record, and prints each speed-up beside its goal:

- the rounds and the exact evaluations of a robust-training MLP (784-200-200-10 on MNIST,
  200 clients, 16 per round);
- the exact evaluations of hyper-logreg on a9a (8 clients: blocks of rows inside them);
- a run's process time with its evaluations beside the rounds (`--eval-overlap auto`) against
  waiting for them (`off`), hyper-logreg on a9a with one client per round;
- under load (one busy process per core): the solver time at the default threads against
  `--threads 1`, for small rounds (goal: at most 1.2x).

Figures depend on the machine and its load: compare runs made on the same machine, one after
the other.
"""
import argparse
import multiprocessing
import statistics
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


MLP = ["--problem", "robust-training", "-p", "hidden=200,200", "--clients", "200", "-p", "eval_rows=200",
       "--participation", "uniform:16", "--solver", "local-sgda", "-s", "local_steps=10", "-s", "batch_size=10",
       "-s", "step_size=0.05", "-s", "schedule=constant", "--rounds", "10", "--eval-every", "5"]
HYPER_LOGREG = ["--problem", "hyper-logreg", "-p", "dataset=a9a", "--clients", "8", "--solver", "fedbioacc",
                "--rounds", "2000", "--eval-every", "100"]
BESIDE = ["--problem", "hyper-logreg", "-p", "dataset=a9a", "--clients", "8", "--participation", "uniform:1",
          "--solver", "fedbioacc", "--rounds", "10000", "--eval-every", "500"]
SMALL_ROUNDS = {"proxskip-sgda-fl": ["--problem", "quadratic-game", "--solver", "proxskip-sgda-fl", "--rounds", "4000"],
                "local-gda": ["--problem", "quadratic-game", "--solver", "local-gda", "--rounds", "2000"]}


def single_run(fedbench, arguments, extra=()):
    """(process seconds, solver seconds, evaluation seconds) of one run."""
    scratch = tempfile.mkdtemp(prefix="fedbench-bench-scale-")
    try:
        output = os.path.join(scratch, "run.h5")
        start = time.perf_counter()
        subprocess.run([fedbench, "run", *arguments, *extra, "-q", "-o", output], check=True)
        process = time.perf_counter() - start
        with h5py.File(output, "r") as f:
            return process, float(f.attrs["wall_time"]), float(f.attrs["eval_time"])
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def median_of(repeat, measure_once):
    """Medians, entry by entry, of `repeat` measurements (tuples)."""
    samples = [measure_once() for _ in range(repeat)]
    return tuple(statistics.median(column) for column in zip(*samples))


def busy_loop(stop):
    while not stop.is_set():
        pass


def print_speedups(name, seconds, goals):
    base = seconds[1]
    parts = [f"1: {base:.3f} s"]
    for threads, value in seconds.items():
        if threads == 1:
            continue
        goal = f", goal {goals[threads]}x" if threads in goals else ""
        parts.append(f"{threads}: {value:.3f} s ({base / value:.2f}x{goal})")
    print(f"{name:<26} " + "   ".join(parts))


def measure_runs(fedbench, cores, repeat):
    threads = sorted({1, min(2, cores), cores})
    print(f"{cores} cores; medians of {repeat}; threads " + ", ".join(map(str, threads)))
    mlp = {t: median_of(repeat, lambda t=t: single_run(fedbench, MLP, ["--threads", str(t)])) for t in threads}
    print_speedups("MLP rounds (solver s)", {t: v[1] for t, v in mlp.items()}, {2: 1.9, 16: 10})
    print_speedups("MLP evaluation (s)", {t: v[2] for t, v in mlp.items()}, {2: 1.8, 16: 8})
    hyper = {t: median_of(repeat, lambda t=t: single_run(fedbench, HYPER_LOGREG, ["--threads", str(t)]))
             for t in threads}
    print_speedups("hyper-logreg a9a eval (s)", {t: v[2] for t, v in hyper.items()}, {2: 1.8, 16: 8})
    for t in threads[1:]:
        modes = {mode: median_of(repeat, lambda mode=mode: single_run(
            fedbench, BESIDE, ["--threads", str(t), "--eval-overlap", mode])) for mode in ("off", "auto")}
        off, auto = modes["off"], modes["auto"]
        print(f"{'evaluation beside rounds':<26} threads {t}: process {off[0]:.2f} s waiting, {auto[0]:.2f} s beside "
              f"({off[0] / auto[0]:.2f}x; solver {off[1]:.2f} s, evaluation {off[2]:.2f} s when waiting)")
    stop = multiprocessing.Event()
    loops = [multiprocessing.Process(target=busy_loop, args=(stop,)) for _ in range(cores)]
    for loop in loops:
        loop.start()
    try:
        for name, arguments in SMALL_ROUNDS.items():
            one = median_of(repeat, lambda: single_run(fedbench, arguments, ["--threads", "1"]))[1]
            default = median_of(repeat, lambda: single_run(fedbench, arguments))[1]
            print(f"{'under load: ' + name:<26} default threads {default:.3f} s, --threads 1 {one:.3f} s "
                  f"({default / one:.2f}x, goal at most 1.2x)")
    finally:
        stop.set()
        for loop in loops:
            loop.join()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suites", nargs="*", default=DEFAULT_SUITES)
    parser.add_argument("--fedbench", default="build/bin/fedbench")
    parser.add_argument("--jobs", default="", help="comma-separated job counts (default: 1, 2 and the cores)")
    parser.add_argument("--runs", action="store_true", help="measure single runs instead of suites")
    parser.add_argument("--repeat", type=int, default=1, help="--runs: measurements per figure (medians)")
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    if args.runs:
        measure_runs(args.fedbench, cores, max(1, args.repeat))
        return
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
