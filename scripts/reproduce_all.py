#!/usr/bin/python3
"""Every paper experiment (or those named), two at a time: what `make reproduce` runs.

    reproduce_all.py --fedbench BIN [--parallel 2] [--only a,b] [--record DIR] [--quick]
                     [--no-figure]

One experiment alone leaves a core idle at the end of each of its stages (the last runs of the
tuning grid, of the report seeds); two at once keep both busy, and a run's bits do not depend
on how many run beside it. Experiments on the same suite file run one after the other in
list order, in one chain (zhang2025-fig2 then reuses zhang2025-fig1-a9a's tuning runs); chains
start longest first, by the CPU time their recorded verdict files (--record DIR) give, so the
longest is not left for last. Prints each experiment's time as it ends, then the total wall
time; exits 1 if any experiment failed or had a contradicted claim (they all still run).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import threading
import time


def experiments(fedbench, only):
    listed = json.loads(subprocess.run([fedbench, "reproduce", "--list", "--json"], check=True,
                                       capture_output=True, text=True).stdout)
    names = [e["name"] for e in listed if e.get("valid") and not e.get("out_of_scope") and e.get("claims")]
    if only:
        unknown = [n for n in only if n not in names]
        if unknown:
            sys.exit(f"reproduce_all.py: --only {','.join(unknown)}: not a runnable experiment; "
                     f"see fedbench reproduce --list")
        names = [n for n in names if n in only]
    files = {e["name"]: e["file"] for e in listed if e.get("valid")}
    return names, files


def chains(names, files, record):
    """Experiments grouped by suite file, each group in list order, groups longest first."""
    groups = {}
    for name in names:
        with open(files[name], encoding="utf-8") as f:
            m = re.search(r"^suite:\s*(\S+)", f.read(), re.M)
        groups.setdefault(m[1] if m else name, []).append(name)

    def cpu(name):
        path = os.path.join(record or "", f"{name}.json")
        try:
            with open(path, encoding="utf-8") as f:
                return float(json.load(f).get("timing", {}).get("cpu_seconds", 60.0))
        except (OSError, ValueError):
            return 60.0
    return sorted(groups.values(), key=lambda g: -sum(cpu(n) for n in g))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--fedbench", required=True)
    ap.add_argument("--parallel", type=int, default=2, help="experiments at once (default 2)")
    ap.add_argument("--only", default="", help="comma-separated experiment names")
    ap.add_argument("--record", default="", help="record each experiment's verdicts in DIR/NAME.json")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-figure", action="store_true")
    args = ap.parse_args()
    names, files = experiments(args.fedbench, [n for n in args.only.split(",") if n])
    todo = chains(names, files, args.record)
    lock = threading.Lock()
    failed = []

    def worker():
        while True:
            with lock:
                if not todo:
                    return
                chain = todo.pop(0)
            for name in chain:
                cmd = [args.fedbench, "reproduce", name, "-q"]
                cmd += ["--quick"] if args.quick else []
                cmd += ["--no-figure"] if args.no_figure else []
                cmd += ["--record", args.record] if args.record else []
                start = time.time()
                done = subprocess.run(cmd, capture_output=True, text=True)
                lines = (done.stdout + done.stderr).strip().splitlines()
                timing = next((l for l in reversed(lines) if l.startswith(f"{name}: time ")), "")
                with lock:
                    print(f"== {name}: exit {done.returncode}, {time.time() - start:.0f} s"
                          + (f" ({timing})" if timing else ""), flush=True)
                    if done.returncode != 0:
                        failed.append(name)
                        print("\n".join("   " + l for l in lines[-5:]), flush=True)

    start = time.time()
    threads = [threading.Thread(target=worker) for _ in range(max(1, args.parallel))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(f"== all {len(names)} experiments: {time.time() - start:.0f} s wall, {args.parallel} at a time"
          + (f"; exit 1 for {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
