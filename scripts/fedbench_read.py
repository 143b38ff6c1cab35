"""Reads fedbench run files (HDF5, format versions 1 and 2) into pandas DataFrames.

    import fedbench_read as fr
    run = fr.load_run("run.h5")          # one row per trajectory row; run.attrs: the rest
    df = fr.load_results("results/smoke") # every run of a results directory, long format

load_run raises on a file it cannot read; load_results skips such files with a one-line
warning on stderr. The scripts also take from here publish (write a file by temporary file and
rename) and exit_with_parent (end with the fedbench process that started them). Uses numpy,
h5py and pandas only (Debian's python3-* packages)."""
import os


def _process_name(pid):
    """The file name of a process's executable ('' when it cannot be read)."""
    try:
        # A rebuilt binary reads '.../fedbench (deleted)' while the old one still runs.
        return os.path.basename(os.readlink(f"/proc/{pid}/exe")).removesuffix(" (deleted)")
    except OSError:
        pass
    try:
        with open(f"/proc/{pid}/comm", encoding="utf-8", errors="replace") as f:
            return f.read().strip()
    except OSError:
        return ""


# The process that started this one, noted when the module is first imported: the scripts
# import it first, a few milliseconds after they start, so that a fedbench killed during the
# imports of h5py, numpy and pandas is still known as the parent (exit_with_parent).
_STARTED_BY = (os.getppid(), _process_name(os.getppid()))

import contextlib  # noqa: E402
import glob  # noqa: E402
import re  # noqa: E402
import signal  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402

import h5py  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

FORMAT = "fedbench-trajectory"
MAX_FORMAT_VERSION = 2
# Per-run columns of load_results, before the parameters and the trajectory columns.
RUN_COLUMNS = ["run_id", "problem", "solver", "seed", "status", "stop_reason", "message",
               "primary_metric", "participation"]


def metric_direction(name):
    """Which way a metric improves, for files (v1) that do not store it."""
    if "accuracy" in name or "auc" in name or name == "corrupted_low_weight":
        return "max"
    return "min"


def _py(value):
    """An HDF5 attribute as a plain Python value (str, int, float, or a list)."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, np.ndarray):
        return value.item() if value.size == 1 else [_py(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        return value.item()
    return value


def _param(text):
    """Parameters are stored as canonical text; numbers become numbers so they sort and plot."""
    text = _py(text)
    if not isinstance(text, str):
        return text
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def _attrs(obj, parse=_py):
    return {k: parse(obj.attrs[k]) for k in obj.attrs} if obj is not None else {}


def load_run(path):
    """One run file as a DataFrame: one row per trajectory row, one column per column.

    df.attrs: "path", every root attribute, "problem_params", "solver_params", "constants",
    "status", "final" (arrays of /final, {} in v1 files), "final_round" (v2), "columns_meta"
    ({column: {kind, direction (metrics), description, unit}})."""
    with h5py.File(path, "r") as f:
        attrs = _attrs(f)
        if attrs.get("format") != FORMAT:
            raise ValueError(f"not a fedbench run file (format {attrs.get('format')!r})")
        version = int(attrs.get("format_version", 0))
        if not 1 <= version <= MAX_FORMAT_VERSION:
            raise ValueError(f"format_version {version} is not one this reader knows "
                             f"(1..{MAX_FORMAT_VERSION})")
        t = f["trajectory"]
        names = str(_py(t.attrs["columns"])).split(",") if "columns" in t.attrs else list(t)
        data, meta = {}, {}
        for name in names:
            ds = t[name]
            data[name] = ds[()]
            # Only the documented keys: v2 columns also carry dimension-scale bookkeeping.
            m = {k: _py(ds.attrs[k]) for k in ("kind", "direction", "description", "unit")
                 if k in ds.attrs}
            if m.get("kind") == "metric" and "direction" not in m:
                m["direction"] = metric_direction(name)
            meta[name] = m
        lengths = {len(v) for v in data.values()}
        if len(lengths) > 1:
            raise ValueError(f"trajectory columns differ in length: {sorted(lengths)}")
        params = f.get("params")
        final = f.get("final")
        df = pd.DataFrame(data, columns=names)
        df.attrs.update(attrs)
        df.attrs.setdefault("primary_metric", "rel_error")  # absent before fedbench 0.4
        df.attrs["path"] = str(path)
        df.attrs["problem_params"] = _attrs(params.get("problem") if params else None, _param)
        df.attrs["solver_params"] = _attrs(params.get("solver") if params else None, _param)
        df.attrs["constants"] = _attrs(f.get("constants"))
        df.attrs["final"] = ({k: final[k][()] for k in final if isinstance(final[k], h5py.Dataset)}
                             if final is not None else {})
        if final is not None and "round" in final.attrs:
            df.attrs["final_round"] = _py(final.attrs["round"])
        df.attrs["columns_meta"] = meta
    return df


@contextlib.contextmanager
def _signals_held():
    """SIGTERM and SIGINT held back (delivered when the block ends): no SystemExit or
    KeyboardInterrupt between creating a temporary file and noting its name, or while removing
    it."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _umask():
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)  # no other way to read it; the scripts run one thread
    os.umask(mask)
    return mask


def publish(path, write):
    """Calls write(tmp) on a new temporary file beside `path` (created with O_EXCL under a random
    name, '.NAME.XXXXXXXX.EXT'), then renames it over `path`: a link planted at `path` is
    replaced, never written through, and a reader sees the old file or the whole new one. The
    file gets the mode a plain open() would give it (0666 less the umask), not mkstemp's 0600. Any
    exception, and SIGTERM once exit_with_parent has run (it raises SystemExit), removes the
    temporary file; `path` is left as it was."""
    directory = os.path.dirname(os.path.abspath(path))
    base = os.path.basename(path)
    tmp = None
    try:
        with _signals_held():
            fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{base}.",
                                       suffix=os.path.splitext(base)[1])
        os.fchmod(fd, 0o666 & ~_umask())
        os.close(fd)
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        if tmp is not None:
            with _signals_held():
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
        raise


def _terminated(signum, frame):
    # Once: a second SIGTERM during the clean-up ends the process at once.
    signal.signal(signum, signal.SIG_DFL)
    raise SystemExit(128 + signum)


PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def exit_with_parent():
    """Called by the scripts as they start: SIGTERM raises SystemExit (exit status 143), so the
    clean-up of publish and of subprocess.run (which kills its child) runs and no temporary file
    is left; and, on Linux, the script ends when the fedbench process that started it dies,
    SIGKILL included (prctl PR_SET_PDEATHSIG delivers SIGTERM).

    fedbench starts the scripts with fork and exec and passes nothing that names it, so the
    parent is recognised by its executable's name, 'fedbench', as it was when this module was
    imported. A script started by hand (its parent a shell, nohup, a job runner) does not die
    with its parent: `python3 plot.py ... &` in a shell that then exits keeps running.
    FEDBENCH_EXIT_WITH_PARENT=1 ties a script to whatever process started it (a driver of your
    own), =0 never. If that parent is already gone when this runs (the script was re-parented
    to init or a subreaper during its imports), the script exits at once with status 143."""
    signal.signal(signal.SIGTERM, _terminated)
    wanted = os.environ.get("FEDBENCH_EXIT_WITH_PARENT", "")
    parent, name = _STARTED_BY
    if wanted == "0" or (wanted != "1" and name != "fedbench") or not sys.platform.startswith("linux"):
        return
    import ctypes  # noqa: PLC0415 - Linux only
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0) != 0:
        return  # not honoured (a sandbox): the script runs as before
    # Set after the parent died, the death signal never comes: look again.
    if os.getppid() != parent:
        print(f"{os.path.basename(sys.argv[0])}: the process that started it "
              f"(pid {parent}) has exited; stopping", file=sys.stderr)
        raise SystemExit(128 + signal.SIGTERM)


def suite_ids(results_dir):
    """The run ids of the suites last run in a results directory (its suite.tsv), or None."""
    try:
        with open(os.path.join(results_dir, "suite.tsv")) as f:
            rows = [line.rstrip("\n").split("\t") for line in f]
    except OSError:
        return None
    return {r[1] for r in rows if len(r) == 5 and len(r[1]) == 16}


_RUN_ID = re.compile(r"[0-9a-f]{16}")


def run_id(identity):
    """The run id fedbench gives the identity text of a run (FNV-1a, then SplitMix64's mixer)."""
    data = identity.encode()
    h = 0xcbf29ce484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    z = h ^ len(data)
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & 0xFFFFFFFFFFFFFFFF
    return f"{z ^ (z >> 31):016x}"


def _in_results_dir(path):
    return os.path.basename(os.path.dirname(os.path.abspath(path))) == "runs"


def run_files(sources, all_runs=False):
    """The .h5 files of results directories (their runs/, else the directory) and files. Of a
    results directory, only files named by a run id (backups and copies are not runs) and,
    where fedbench recorded its suites' runs (suite.tsv), only those runs, as `fedbench
    select`, `export` and `report` show it, unless all_runs."""
    if isinstance(sources, (str, os.PathLike)):
        sources = [sources]
    paths = []
    for s in sources:
        s = os.fspath(s)
        if os.path.isdir(s):
            runs = os.path.join(s, "runs")
            found = sorted(glob.glob(os.path.join(runs if os.path.isdir(runs) else s, "*.h5")))
            named = [p for p in found if _RUN_ID.fullmatch(os.path.basename(p)[:-3])]
            if len(named) < len(found):
                print(f"fedbench_read: {s}: {len(found) - len(named)} files under runs/ are not runs "
                      "of this suite (the name is not a run id): left out", file=sys.stderr)
            found = named
            ids = None if all_runs else suite_ids(s)
            if ids is not None:
                kept = [p for p in found if os.path.basename(p)[:-3] in ids]
                if len(kept) < len(found):
                    print(f"fedbench_read: {s}: {len(found) - len(kept)} run files are not in the runs "
                          "of the suites last run here (older configurations, suite.tsv): left out; "
                          "all_runs=True includes them", file=sys.stderr)
                found = kept
            paths += found
        else:
            paths.append(s)
    return paths


def _not_its_run(run):
    """Why a run file under a results directory's runs/ is not the run its name stands for
    (None when it is): its stored identity text must hash to its name."""
    path = run.attrs["path"]
    if not _in_results_dir(path):
        return None
    identity = run.attrs.get("identity")
    if not identity:
        return "it records no run identity (written by fedbench before run identities were stored)"
    stem = os.path.basename(path)[:-3]
    if run_id(str(identity)) != stem:
        return f"its stored identity hashes to {run_id(str(identity))}, not to its name"
    return None


def read_runs(sources, all_runs=False):
    """load_run of every file of `sources`, skipping unreadable files (and, in a results
    directory, files that are not the run their name stands for) with a warning."""
    if isinstance(sources, pd.DataFrame):
        return [sources]
    if isinstance(sources, (list, tuple)) and sources and all(
            isinstance(s, pd.DataFrame) for s in sources):
        return list(sources)
    runs = []
    for path in run_files(sources, all_runs):
        if not os.path.exists(path):
            print(f"fedbench_read: skipping {path}: no such file or directory", file=sys.stderr)
            continue
        try:
            run = load_run(path)
        except Exception as e:  # noqa: BLE001 - any unreadable file is skipped, never a traceback
            reason = str(e).splitlines()[0] if str(e) else type(e).__name__
            print(f"fedbench_read: skipping {path}: {reason}", file=sys.stderr)
            continue
        why = _not_its_run(run)
        if why:
            print(f"fedbench_read: skipping {path}: not a run of this results directory: {why}",
                  file=sys.stderr)
            continue
        runs.append(run)
    return runs


def _participation(config):
    m = re.search(r"^\s*participation:\s*(\S+)", config or "", re.M)
    return m.group(1) if m else ""


def run_info(run):
    """The per-run columns of one load_run DataFrame, as a dict."""
    a = run.attrs
    info = {"run_id": os.path.splitext(os.path.basename(a["path"]))[0],
            "problem": a.get("problem", ""), "solver": a.get("solver", ""),
            "seed": a.get("seed", 0), "status": a.get("status", ""),
            "stop_reason": a.get("stop_reason", ""), "message": a.get("message", ""),
            "primary_metric": a.get("primary_metric", "rel_error"),
            "participation": _participation(a.get("config"))}
    info.update({f"problem.{k}": v for k, v in a["problem_params"].items()})
    info.update({f"solver.{k}": v for k, v in a["solver_params"].items()})
    return info


def load_results(sources):
    """Every run of results directories / files (or load_run DataFrames) in one long DataFrame:
    one row per trajectory row of every run, with the per-run columns RUN_COLUMNS, every
    parameter as problem.<name> / solver.<name>, and every trajectory column."""
    parts = []
    for run in read_runs(sources):
        part = run.copy()
        part.attrs = {}
        for k, v in reversed(list(run_info(run).items())):
            part.insert(0, k, [v] * len(part))
        parts.append(part)
    if not parts:
        return pd.DataFrame(columns=RUN_COLUMNS)
    df = pd.concat(parts, ignore_index=True, sort=False)
    # Per-run columns first, then parameters, then the trajectory in file order.
    params = sorted(c for c in df.columns if c.startswith(("problem.", "solver.")))
    rest = [c for c in df.columns if c not in RUN_COLUMNS and c not in params]
    return df[RUN_COLUMNS + params + rest]


def run_table(sources):
    """One row per run (also runs without trajectory rows): per-run columns, parameters,
    rounds and wall_time."""
    rows = []
    for run in read_runs(sources):
        info = run_info(run)
        info.update(rounds=run.attrs.get("rounds", 0), wall_time=run.attrs.get("wall_time", np.nan),
                    rows=len(run), path=run.attrs["path"])
        rows.append(info)
    return pd.DataFrame(rows, columns=None if rows else RUN_COLUMNS)


def param_columns(df):
    return [c for c in df.columns if c.startswith(("problem.", "solver."))]


def varying_params(df):
    """The parameter columns (problem.*, solver.*) that take more than one value in df
    (a group of runs); a parameter only some runs have counts as varying."""
    out = []
    for c in param_columns(df):
        values = df[c]
        if values.isna().all():
            continue
        if values.astype(str).nunique(dropna=False) > 1:
            out.append(c)
    return out


def resolve_key(df, key):
    """A grouping key as a column of df: a column name, or a bare parameter name
    (solver.<key> first, then problem.<key>)."""
    for c in (key, f"solver.{key}", f"problem.{key}"):
        if c in df.columns:
            return c
    raise KeyError(f"no column or parameter {key!r}; parameters: "
                   f"{', '.join(c.split('.', 1)[1] for c in param_columns(df)) or 'none'}")


def oracle_columns(df):
    return [c for c in df.columns if c.endswith("_calls")]


def add_derived(df):
    """Adds `bytes` (up + down) and `oracle_calls` (sum of the *_calls columns) when absent."""
    if "bytes" not in df.columns and {"bytes_up", "bytes_down"} <= set(df.columns):
        df["bytes"] = df["bytes_up"] + df["bytes_down"]
    calls = oracle_columns(df)
    if "oracle_calls" not in df.columns and calls:
        df["oracle_calls"] = df[calls].sum(axis=1, min_count=1)
    return df


def format_value(v):
    """A parameter value for labels and tables: short numbers, plain strings."""
    if isinstance(v, (float, np.floating)):
        return "nan" if np.isnan(v) else f"{v:.3g}"
    return str(v)
