#!/usr/bin/env bash
# The progress line and interrupts, as a user sees them. A single run's line moves with the
# round counter even when no row is recorded between the first and the last round (checked in
# a pseudo-terminal made by script(1), and piped with a short FEDBENCH_PROGRESS_INTERVAL); a
# suite's line shows its running run before any run has finished. SIGINT to a suite and SIGTERM
# to a single run: one "interrupted" line, exit 130 / 143, no .part or .lock left, and a rerun
# that resumes to the bits of an uninterrupted suite.
source "$(dirname "$0")/lib.bash"
# About 1.5 s on an idle 2-core machine (several quarter-second ticks); only the first and the
# last round are recorded.
long_run=("$fedbench" run --problem quadratic-game --solver local-sgda -s local_steps=10 --clients 20 --rounds 12000 --eval-every 12000)

# A pseudo-terminal: script(1) runs the command with stdin/stdout/stderr on a pty.
checks=$((checks + 1))
script -qfec "${long_run[*]} -o $scratch/tty.h5" /dev/null >"$scratch/tty.out" 2>&1 </dev/null
if ! "$python" - "$scratch/tty.out" <<'PY'
import re, sys
text = open(sys.argv[1], "rb").read().decode("utf-8", "replace")
updates = re.findall(r"\r\x1b\[Kround (\d+)/12000 .*?ETA (\S+)", text)
inner = sorted({int(r) for r, _ in updates if 0 < int(r) < 12000})
if len(inner) < 2:
    sys.exit(f"the terminal line moved through {inner} rounds; want at least 2 between 0 and 12000")
if not any(eta != "?" for r, eta in updates if int(r) > 0):
    sys.exit("no ETA once rounds were done")
if not text.split("status:")[0].endswith("\r\x1b[K"):
    sys.exit("the live line is not cleared before the run's summary")
PY
then failures=$((failures + 1)); echo "FAIL: single run on a terminal"; sed 's/^/  | /' "$scratch/tty.out" | head -5; fi

# Piped: plain lines every FEDBENCH_PROGRESS_INTERVAL seconds.
checks=$((checks + 1))
FEDBENCH_PROGRESS_INTERVAL=0.1 "${long_run[@]}" -o "$scratch/piped.h5" 2>"$scratch/piped.err" >/dev/null
if [ "$(grep -c -E '^round [1-9][0-9]*/12000 ' "$scratch/piped.err")" -lt 2 ] || grep -q $'\r' "$scratch/piped.err"; then
  failures=$((failures + 1)); echo "FAIL: piped single run"; head -5 "$scratch/piped.err"
fi

# A suite of slow runs: before any run is finished, its line shows the one running with its share
# (the very first line may come before the first run has started, under load).
cat >"$scratch/slow.yaml" <<YAML
name: slow
seeds: [0, 1, 2]
rounds: 4000
eval: {every: 4000}
problems:
  - name: quadratic-game
    params: {clients: 20}
solvers:
  - name: local-sgda
    params: {local_steps: 10}
YAML
checks=$((checks + 1))
FEDBENCH_PROGRESS_INTERVAL=0.1 "$fedbench" run "$scratch/slow.yaml" --results "$scratch/whole" --jobs 1 2>"$scratch/suite.err" >/dev/null
if ! sed '/^\[1\/3\]/q' "$scratch/suite.err" | grep -q -E '^\[0/3\] 0 done, 0 cached, 1 running \([0-9]+%\)'; then
  failures=$((failures + 1)); echo "FAIL: the suite's first line does not show its running run"; head -3 "$scratch/suite.err"
fi

# SIGINT in the middle of the second run.
checks=$((checks + 1))
if ! "$python" - "$fedbench" "$scratch/slow.yaml" "$scratch/stopped" <<'PY'
import os, re, signal, subprocess, sys, time
fedbench, suite, results = sys.argv[1:]
p = subprocess.Popen([fedbench, "run", suite, "--results", results, "--jobs", "1"],
                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
runs = results + "/runs"
deadline = time.time() + 60
while time.time() < deadline and not (os.path.isdir(runs) and any(n.endswith(".h5") for n in os.listdir(runs))):
    time.sleep(0.01)
time.sleep(0.3)  # into the second run
p.send_signal(signal.SIGINT)
err = p.communicate(timeout=60)[1]
lines = err.strip().splitlines()
if p.returncode != 130:
    sys.exit(f"exit {p.returncode}, want 130; stderr: {lines[-3:]}")
m = re.fullmatch(r"fedbench: interrupted; rerun the same command to resume \((\d+) of 3 runs done\)", lines[-1])
if not m:
    sys.exit(f"last line: {lines[-1]!r}")
left = sorted(os.listdir(runs))
done = [n for n in left if re.fullmatch(r"[0-9a-f]{16}\.h5", n)]
if int(m.group(1)) != len(done) or not 1 <= len(done) < 3:
    sys.exit(f"the line says {m.group(1)} runs done; runs/ holds {left}")
if any(n.endswith((".part", ".lock")) for n in left):
    sys.exit(f"left behind: {left}")
PY
then failures=$((failures + 1)); echo "FAIL: SIGINT to a suite"; fi
# The same command resumes, to the bits of the uninterrupted suite.
expect_ok "finished now" "$fedbench" run "$scratch/slow.yaml" --results "$scratch/stopped" --jobs 1
same_columns "$scratch/whole" "$scratch/stopped"
results_intact "$scratch/stopped"

# SIGTERM to a single run: exit 143, no output file or .part.
checks=$((checks + 1))
"${long_run[@]}" -o "$scratch/term.h5" -q 2>"$scratch/term.err" &
pid=$!
sleep 0.5
kill -TERM $pid
wait $pid && rc=0 || rc=$?
if [ "$rc" != 143 ] || [ -e "$scratch/term.h5" ] || [ -e "$scratch/term.h5.part" ] ||
   ! grep -q -x "fedbench: terminated; nothing was written: rerun the same command to start the run again" "$scratch/term.err"; then
  failures=$((failures + 1)); echo "FAIL: SIGTERM to a single run: exit $rc"; cat "$scratch/term.err"; ls "$scratch" | grep term
fi
finish
