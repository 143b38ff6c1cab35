#!/usr/bin/python3
"""Mutation score of the check tier: applies each single-point mutation of a versioned list to a
scratch copy of the sources, rebuilds incrementally, runs the tests and says which mutants
survived.

    scripts/mutants.py                          # every mutant of tests/mutants/mutants.yaml
    scripts/mutants.py --only sgda-avg-weight   # one (comma-separated ids)
    scripts/mutants.py --markdown table.md      # also the result table as Markdown

By default the sources are a git worktree of HEAD under build/mutants/tree (committed code only;
reset to HEAD at every start, so an interrupted run leaves nothing behind), built in its own
build/ directory through ccache with the same relative paths as the checkout, and each mutant is
judged by `ctest -L check` (what `make check` runs) less cli.catalogs, cli.references_current and
mutants.list, which fail on any change of a solver's source (recorded verdicts and the smoke
references go stale; the list's text is gone). --source / --build / --test-command run it
on another tree (its own test does so on a toy project).

A mutant is *killed* when the tests fail, *survived* when they pass, *invalid* when it does not
compile or its `find` text is not in the file (the list is wrong: exit 2). An entry with
`equivalent: REASON` is expected to survive (no test can tell it apart); if it is killed the list
says so. Score: killed / (mutants - equivalent). Exit 1 when the score is below --min-score.
"""
import argparse
import dataclasses
import os
import re
import shlex
import subprocess
import sys
import time

import yaml

def refuse(message):
    """A wrong list, tree or command line: one line on stderr, exit 2."""
    print(f"mutants.py: {message}", file=sys.stderr)
    sys.exit(2)


HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


@dataclasses.dataclass
class Mutant:
    id: str
    file: str
    operator: str
    find: str
    replace: str
    occurrence: int = 1          # which occurrence of `find` (1-based) when it occurs more than once
    equivalent: str = ""         # why no test can tell it apart ("" when one should)
    what: str = ""               # the plausible bug it stands for


def load_list(path):
    with open(path) as f:
        doc = yaml.safe_load(f)
    if not isinstance(doc, dict) or "mutants" not in doc:
        refuse(f"{path}: not a mutant list (a mapping with `version` and `mutants`)")
    mutants, seen = [], set()
    for k, entry in enumerate(doc["mutants"]):
        try:
            m = Mutant(**entry)
        except TypeError as e:
            refuse(f"{path}: entry {k + 1}: {e}")
        if m.id in seen:
            refuse(f"{path}: id {m.id} appears twice; ids must be unique")
        if m.find == m.replace:
            refuse(f"{path}: {m.id}: `replace` equals `find`; that is no mutation")
        seen.add(m.id)
        mutants.append(m)
    return doc.get("version"), mutants


def mutate(text, m):
    """`text` with the m.occurrence-th occurrence of m.find replaced; None when there is none."""
    at = -1
    for _ in range(m.occurrence):
        at = text.find(m.find, at + 1)
        if at < 0:
            return None
    return text[:at] + m.replace + text[at + len(m.find):]


def run(command, cwd, timeout, log, env=None):
    """Runs a shell command; returns (exit status, seconds). Output goes to `log`."""
    start = time.monotonic()
    with open(log, "w") as out:
        try:
            rc = subprocess.run(command, shell=True, cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
                                timeout=timeout, env=env).returncode
        except subprocess.TimeoutExpired:
            rc = 124
    return rc, time.monotonic() - start


def first_failure(log):
    """The first failed ctest entry named in a test log ("" if none is named)."""
    with open(log, errors="replace") as f:
        for line in f:
            hit = re.search(r"Test\s+#\d+: (.*?) ?\.*\s*\*\*\*(Failed|Timeout|Exception)", line)
            if hit:
                return hit.group(1)
    return ""


def prepare_worktree(tree):
    """A worktree of HEAD at `tree`, reset to HEAD (an interrupted run's mutant is undone)."""
    head = subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], check=True, capture_output=True,
                          text=True).stdout.strip()
    if not os.path.isdir(os.path.join(tree, ".git")) and not os.path.isfile(os.path.join(tree, ".git")):
        os.makedirs(os.path.dirname(tree), exist_ok=True)
        subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", tree, head], check=True,
                       stdout=subprocess.DEVNULL)
    subprocess.run(["git", "-C", tree, "checkout", "-q", "--detach", head], check=True)
    subprocess.run(["git", "-C", tree, "reset", "-q", "--hard", head], check=True)
    # The tests find data and shared files at ../shared of the tree, as of the checkout.
    shared, beside = os.path.join(os.path.dirname(ROOT), "shared"), os.path.join(os.path.dirname(tree), "shared")
    if os.path.isdir(shared) and not os.path.lexists(beside):
        os.symlink(shared, beside)
    return head


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--list", default=os.path.join(ROOT, "tests", "mutants", "mutants.yaml"))
    parser.add_argument("--source", help="the tree to mutate (default: a worktree of HEAD under build/mutants/tree)")
    parser.add_argument("--build", help="its build directory (default: SOURCE/build)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--only", default="", help="comma-separated mutant ids")
    parser.add_argument("--configure-command", default="cmake -S {source} -B {build} -DCMAKE_BUILD_TYPE=Release"
                        " -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache")
    parser.add_argument("--build-command", default="cmake --build {build} -j {jobs}")
    # Two entries fail on any edit of a solver, bug or not: cli.catalogs (the recorded verdicts'
    # code fingerprints go stale) and mutants.list (the mutated text is no longer the list's).
    parser.add_argument("--test-command", default="ctest --test-dir {build} -L check"
                        " -E '^(cli[.]catalogs|cli[.]references_current|mutants[.]list)$' -j {jobs}"
                        " --stop-on-failure --output-on-failure --timeout 600")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per build or test command")
    parser.add_argument("--min-score", type=float, default=0.9)
    parser.add_argument("--markdown", help="also write the result table to this file")
    parser.add_argument("--check-list", action="store_true",
                        help="only check that every mutant's `find` text is in the checkout's sources (no build)")
    args = parser.parse_args()

    version, mutants = load_list(args.list)
    if args.only:
        wanted = set(args.only.split(","))
        unknown = wanted - {m.id for m in mutants}
        if unknown:
            refuse(f"no mutant named {', '.join(sorted(unknown))} in {args.list}")
        mutants = [m for m in mutants if m.id in wanted]

    head = ""
    if args.check_list:
        for m in mutants:
            path = os.path.join(args.source or ROOT, m.file)
            if not os.path.isfile(path) or mutate(open(path).read(), m) is None:
                refuse(f"{m.id}: occurrence {m.occurrence} of its `find` text is not in {m.file}; fix the list")
        files = len({m.file for m in mutants})
        print(f"{len(mutants)} mutants over {files} files: every `find` text is in the sources")
        return 0
    if args.source:
        source = os.path.abspath(args.source)
    else:
        source = os.path.join(ROOT, "build", "mutants", "tree")
        head = prepare_worktree(source)
    build = os.path.abspath(args.build or os.path.join(source, "build"))
    # Paths relative to the tree being built, as the checkout's own build hashes them: the
    # unmutated files hit the cache (make exports the checkout's CCACHE_BASEDIR: replaced here).
    build_env = dict(os.environ, CCACHE_BASEDIR=source, CCACHE_NOHASHDIR="1")
    logs = os.path.join(build, "mutant-logs")
    fill = lambda c: c.format(source=shlex.quote(source), build=shlex.quote(build), jobs=args.jobs)

    # Every `find` is checked before anything is built: a wrong list fails in a second.
    for m in mutants:
        path = os.path.join(source, m.file)
        if not os.path.isfile(path):
            refuse(f"{m.id}: no file {m.file} in {source}; fix the list")
        if mutate(open(path).read(), m) is None:
            refuse(f"{m.id}: occurrence {m.occurrence} of its `find` text is not in {m.file}; "
                     "fix the list")

    os.makedirs(logs, exist_ok=True)
    if not os.path.isfile(os.path.join(build, "CMakeCache.txt")):
        rc, _ = run(fill(args.configure_command), source, args.timeout, os.path.join(logs, "configure.log"), build_env)
        if rc:
            refuse(f"configuring {build} failed; see {logs}/configure.log")
    print(f"mutants: {len(mutants)} from {os.path.relpath(args.list, ROOT) if args.list.startswith(ROOT) else args.list}"
          f" (list version {version}){' on ' + head[:12] if head else ''}; unmutated build and tests first",
          flush=True)
    rc, seconds = run(fill(args.build_command), source, args.timeout, os.path.join(logs, "baseline-build.log"), build_env)
    if rc:
        refuse(f"the unmutated tree does not build; see {logs}/baseline-build.log")
    rc, seconds = run(fill(args.test_command), source, args.timeout, os.path.join(logs, "baseline-test.log"), build_env)
    if rc:
        refuse(f"the unmutated tree fails its tests ({first_failure(os.path.join(logs, 'baseline-test.log'))});"
                 f" see {logs}/baseline-test.log")
    print(f"unmutated: tests pass in {seconds:.0f} s", flush=True)

    rows, invalid = [], []
    for k, m in enumerate(mutants, 1):
        path = os.path.join(source, m.file)
        original = open(path).read()
        log_build, log_test = os.path.join(logs, m.id + ".build.log"), os.path.join(logs, m.id + ".test.log")
        try:
            with open(path, "w") as f:
                f.write(mutate(original, m))
            rc, build_s = run(fill(args.build_command), source, args.timeout, log_build, build_env)
            if rc:
                outcome, by, test_s = "invalid", "does not compile", 0.0
                invalid.append(m.id)
            else:
                rc, test_s = run(fill(args.test_command), source, args.timeout, log_test, build_env)
                outcome = "killed" if rc else "survived"
                by = first_failure(log_test) if rc else ""
        finally:
            with open(path, "w") as f:
                f.write(original)
        if outcome == "survived" and m.equivalent:
            verdict = "equivalent"
        elif outcome == "killed" and m.equivalent:
            verdict = "killed (listed as equivalent: fix the list)"
        else:
            verdict = outcome
        rows.append((m, verdict, by))
        print(f"[{k}/{len(mutants)}] {m.id}: {verdict}{' by ' + by if by else ''} "
              f"(build {build_s:.0f} s, tests {test_s:.0f} s)", flush=True)
    # The tree as it was: the restored files rebuilt (the next run starts from a clean build).
    run(fill(args.build_command), source, args.timeout, os.path.join(logs, "restore-build.log"), build_env)

    equivalent = sum(v == "equivalent" for _, v, _ in rows)
    killed = sum(v.startswith("killed") for _, v, _ in rows)
    judged = len(rows) - equivalent - len(invalid)
    score = killed / judged if judged else 1.0
    survivors = [m.id for m, v, _ in rows if v == "survived"]
    table = ["| mutant | file | operator | the bug it stands for | outcome |", "| --- | --- | --- | --- | --- |"]
    for m, v, by in rows:
        outcome = v + (f" by `{by}`" if by else "") + (f": {m.equivalent}" if v == "equivalent" else "")
        table.append(f"| {m.id} | `{m.file}` | {m.operator} | {m.what} | {outcome} |")
    summary = (f"mutation score: {killed} of {judged} non-equivalent mutants killed ({100 * score:.1f}%); "
               f"{equivalent} equivalent, {len(survivors)} survived"
               + (f" ({', '.join(survivors)})" if survivors else "")
               + (f", {len(invalid)} invalid ({', '.join(invalid)})" if invalid else ""))
    print("\n".join(table))
    print(summary)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("\n".join(table) + "\n\n" + summary + "\n")
    if invalid:
        return 2
    return 0 if score >= args.min_score else 1


if __name__ == "__main__":
    sys.exit(main())
