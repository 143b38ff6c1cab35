#!/usr/bin/python3
"""Unit checks of what plot.py and report.py draw and write (no run files needed): names from
data drawn as written by matplotlib (fedbench_curves.plain_label), files published whole
(fedbench_read.publish: temporary file and rename, nothing left behind on an error or on
SIGTERM), and when a script ties itself to its parent (fedbench_read.exit_with_parent)."""
import ctypes
import io
import os
import signal
import sys
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import fedbench_curves as fc  # noqa: E402
import fedbench_read as fr  # noqa: E402
import plot as fplot  # noqa: E402

checks = failures = 0


def check(ok, what):
    global checks, failures
    checks += 1
    if not ok:
        failures += 1
        print("FAIL:", what)


# Labels: the escaped text draws exactly the pixels of the raw text with mathtext turned off,
# in a title, an axis label and a legend entry (through plot.draw, as plot.py and report.py).
NAMES = [r"$\undefinedmacro{x}$", "50%_$x$", r"a\$b$c", "$", "$$", r"\\$x$", "cost $5 or $6",
         r"$\frac{1}{2}$", "plain name"]


def pixels(text, escaped):
    fig, ax = plt.subplots(figsize=(4, 3))
    curve = {"label": text, "members": [([0, 1], [0, 1], [1.0, 0.5])],
             "ended": False, "total": 1, "diverged": 0, "word": "diverged"}
    fplot.draw(ax, [curve], log=False)  # escapes the legend label
    if escaped:
        ax.set_title(fc.plain_label(text))
        ax.set_xlabel(fc.plain_label(text))
        ax.legend()
    else:
        ax.set_title(text, parse_math=False)
        ax.set_xlabel(text, parse_math=False)
        for t in ax.legend().get_texts():
            t.set_text(text)
            t.set_parse_math(False)
    fig.canvas.draw()
    out = np.asarray(fig.canvas.buffer_rgba()).copy()
    plt.close(fig)
    return out


for name in NAMES:
    try:
        drawn = pixels(name, escaped=True)
        check(np.array_equal(drawn, pixels(name, escaped=False)), f"{name!r} is not drawn as written")
    except Exception as e:  # noqa: BLE001
        check(False, f"{name!r}: {type(e).__name__}: {str(e).splitlines()[-1] if str(e) else ''}")
check(fc.plain_label(3.5) == "3.5", "plain_label of a number")

# publish: the whole file or the old one, the umask's mode, never through a planted link.
old_umask = os.umask(0o022)
d = tempfile.mkdtemp(prefix="fedbench-test-output.")


def leftovers():
    return sorted(n for n in os.listdir(d) if n.startswith("."))


def write_text(text):
    def write(tmp):
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
    return write


page = os.path.join(d, "index.html")
fr.publish(page, write_text("one"))
check(open(page).read() == "one" and not leftovers(), "publish writes the file, nothing else")
check(os.stat(page).st_mode & 0o777 == 0o644, f"mode {oct(os.stat(page).st_mode & 0o777)}, want 0644")
victim = os.path.join(d, "victim")
with open(victim, "w") as f:
    f.write("keep")
fig_path = os.path.join(d, "figure.png")
os.symlink(victim, fig_path)
fig, ax = plt.subplots()
fr.publish(fig_path, lambda tmp: fig.savefig(tmp))
plt.close(fig)
check(open(victim).read() == "keep" and not os.path.islink(fig_path)
      and open(fig_path, "rb").read(4) == b"\x89PNG", "a planted link is replaced, not written through")


def failing(tmp):
    with open(tmp, "w") as f:
        f.write("half")
    raise ValueError("disk full")


try:
    fr.publish(page, failing)
    check(False, "publish passes the writer's error on")
except ValueError:
    check(open(page).read() == "one" and not leftovers(), "an error leaves the old file, no temporary")

# SIGTERM in the middle of a write: with the scripts' handler (exit_with_parent) it ends the
# process through SystemExit(143), the temporary file removed and the old file intact.
os.environ["FEDBENCH_EXIT_WITH_PARENT"] = "0"
fr.exit_with_parent()
seen = []


def killed_midway(tmp):
    seen.append(tmp)
    with open(tmp, "w") as f:
        f.write("half")
        f.flush()
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(1000):  # the handler runs at the next bytecode
            f.write("more")
    seen.append("not stopped")


try:
    fr.publish(page, killed_midway)
    check(False, "SIGTERM stops the write")
except SystemExit as e:
    check(e.code == 143, f"exit status {e.code}, want 143")
check(len(seen) == 1 and not os.path.exists(seen[0]) and not leftovers()
      and open(page).read() == "one", f"SIGTERM mid-write left {leftovers()} ({seen})")
check(signal.getsignal(signal.SIGTERM) == signal.SIG_DFL, "a second SIGTERM ends the process at once")
signal.signal(signal.SIGTERM, signal.SIG_DFL)

# exit_with_parent: the death signal only for a parent named fedbench (or when asked), and an
# immediate exit when that parent is already gone.
if sys.platform.startswith("linux"):
    libc = ctypes.CDLL(None, use_errno=True)

    def death_signal():
        value = ctypes.c_int(-1)
        libc.prctl(2, ctypes.byref(value), 0, 0, 0)  # PR_GET_PDEATHSIG
        return value.value

    started_by = fr._STARTED_BY
    for wanted, parent, want in (("", started_by, 0), ("0", (started_by[0], "fedbench"), 0),
                                 ("", (started_by[0], "fedbench"), signal.SIGTERM),
                                 ("1", started_by, signal.SIGTERM)):
        os.environ["FEDBENCH_EXIT_WITH_PARENT"] = wanted
        fr._STARTED_BY = parent
        libc.prctl(1, 0, 0, 0, 0)
        fr.exit_with_parent()
        check(death_signal() == want, f"FEDBENCH_EXIT_WITH_PARENT={wanted!r}, parent {parent[1]!r}: "
              f"death signal {death_signal()}, want {int(want)}")
    fr._STARTED_BY = (os.getppid() + 1_000_000, "fedbench")  # a parent that has exited
    os.environ["FEDBENCH_EXIT_WITH_PARENT"] = ""
    stderr, sys.stderr = sys.stderr, io.StringIO()
    try:
        fr.exit_with_parent()
        check(False, "a script whose fedbench has already exited stops")
    except SystemExit as e:
        check(e.code == 143, f"exit status {e.code} when the parent is gone, want 143")
    finally:
        said, sys.stderr = sys.stderr.getvalue(), stderr
    check("has exited; stopping" in said, f"no word on stopping: {said!r}")
    fr._STARTED_BY = started_by
    libc.prctl(1, 0, 0, 0, 0)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)

os.umask(old_umask)
for n in os.listdir(d):
    os.unlink(os.path.join(d, n))
os.rmdir(d)
print(f"test_output: {checks - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)
