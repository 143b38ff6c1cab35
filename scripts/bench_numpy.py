#!/usr/bin/python3
"""Time per round of fedbench's ProxSkip-GDA-FL against a vectorized numpy implementation of the
same rounds on the same instance: the quadratic game of Zhang et al. (ICLR 2024, eq. (5)) at its
default size (20 clients, d = 20 per player), exported with `fedbench instance`, the step size
and communication probability that fedbench resolved from the theory (Appendix G).

The numpy rounds follow Algorithm 2 as fedbench runs it: K ~ Geometric(p) local full-batch steps
per round on every client at once (one batched matrix product per step), control variates h_i,
the shifted upload and its mean. Coin flips come from numpy's generator, so the two runs make
the same kind of rounds, not the same ones; both must reach the solution (checked).

Runs are interleaved and each figure is the median of --repeats runs (this machine is noisy).
`make bench` runs it after the Google Benchmark binary.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np


def fedbench_run(fedbench, out, rounds, threads):
    cmd = [fedbench, "run", "--problem", "quadratic-game", "--solver", "proxskip-gda-fl",
           "--rounds", str(rounds), "--eval-every", str(rounds), "--seed", "1", "-q", "-o", out]
    if threads:
        cmd += ["--threads", str(threads)]
    start = time.perf_counter()
    subprocess.run(cmd, check=True)
    process = time.perf_counter() - start
    shown = json.loads(subprocess.run([fedbench, "show", out, "--json"], check=True,
                                      capture_output=True, text=True).stdout)
    return shown, process


def numpy_rounds(M, zeta, z0, gamma, p, rounds, seed):
    """Returns the server model after `rounds` rounds of ProxSkip-GDA-FL."""
    rng = np.random.default_rng(seed)
    n, dim = zeta.shape
    x_avg = z0.copy()
    h = np.zeros((n, dim))
    x_hat = np.zeros((n, dim))
    for t in range(rounds):
        steps = rng.geometric(p)
        if t > 0:
            h += (p / gamma) * (x_avg - x_hat)
        x = np.broadcast_to(x_avg, (n, dim)).copy()
        for _ in range(steps - 1):
            g = np.matmul(M, x[:, :, None])[:, :, 0] + zeta
            x -= gamma * (g - h)
        g = np.matmul(M, x[:, :, None])[:, :, 0] + zeta
        x_hat = x - gamma * (g - h)
        shifted = x - gamma * g - gamma * (1.0 / p - 1.0) * h
        x_avg = shifted.mean(axis=0)
    return x_avg


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fedbench", default="build/bin/fedbench")
    ap.add_argument("--rounds", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        instance = os.path.join(tmp, "instance.h5")
        subprocess.run([args.fedbench, "instance", "quadratic-game", "-o", instance], check=True,
                       capture_output=True)
        with h5py.File(instance, "r") as f:
            n = int(f.attrs["num_clients"])
            M = np.stack([f[f"data/clients/{i}/M_mean"][()] for i in range(n)])
            zeta = np.stack([f[f"data/clients/{i}/zeta_mean"][()] for i in range(n)])
            z0 = f["initial_point"][()]
            z_star = f["solution"][()]
        times = {"fedbench --threads 1": [], "fedbench default threads": [], "numpy": []}
        process = {"fedbench --threads 1": [], "fedbench default threads": []}
        gamma = p = None
        numpy_error = None
        for rep in range(args.repeats):
            for label, threads in (("fedbench --threads 1", 1), ("fedbench default threads", 0)):
                shown, seconds = fedbench_run(args.fedbench, os.path.join(tmp, "run.h5"), args.rounds, threads)
                times[label].append(shown["summary"]["wall_time"] / args.rounds)
                process[label].append(seconds)
                params = shown["header"]["solver_params"]
                gamma, p = float(params["step_size"]), float(params["comm_prob"])
            start = time.perf_counter()
            model = numpy_rounds(M, zeta, z0, gamma, p, args.rounds, seed=rep)
            times["numpy"].append((time.perf_counter() - start) / args.rounds)
            numpy_error = float(np.sum((model - z_star) ** 2) / np.sum((z0 - z_star) ** 2))

    if not numpy_error < 1e-20:
        sys.exit(f"bench_numpy.py: the numpy rounds did not converge (rel_error {numpy_error:.3g}); "
                 "the comparison would be meaningless")
    med = {k: float(np.median(v)) for k, v in times.items()}
    print(f"ProxSkip-GDA-FL on the quadratic game (20 clients, d = 20 per player), {args.rounds} rounds, "
          f"median of {args.repeats} interleaved runs (numpy rel_error {numpy_error:.1e}):")
    for label in times:
        print(f"  {label:26s} {1e6 * med[label]:8.2f} us/round")
    for label in process:
        print(f"  {label:26s} {float(np.median(process[label])):8.3f} s per process (set-up included)")
    print(f"  default threads / --threads 1: {med['fedbench default threads'] / med['fedbench --threads 1']:.2f}")
    print(f"  numpy / fedbench default threads: {med['numpy'] / med['fedbench default threads']:.1f} "
          f"(above 1: fedbench faster)")


if __name__ == "__main__":
    main()
