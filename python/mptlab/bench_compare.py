"""`mptlab bench --compare REV`: the workloads of two builds, measured interleaved.

The old build is REV of the git checkout the mptlab package lives in, exported (`git archive`)
into a cache folder and its extension module built there once with cargo (`.bench/<full sha>/`,
reused next time), profile-guided when REV's own recipe is (`tools/pgo-profile.sh`;
MPTLAB_PGO=0 builds every revision plainly, cached apart as `<sha>-plain`). The new one is the
checkout's HEAD built the same way when the working tree has no uncommitted changes to tracked
files (`new_build`), else the package this process imports. Why: two builds of identical code from different folders lay their code out
differently (source paths end up in the binary), and that alone moved the speed ratio of
identical code by up to ±7 % on single workloads (W2 0.93, W3 0.90 against an export of the
same commit, 2026-11-27); two exports under `.bench/<sha>/` have paths of one length. Each round runs
every workload once on each build, each run in a fresh process, alternating which build goes
first (ABBA across rounds) so a drift of the machine's speed hits both alike. Both builds run
the *current* checkout's scenario files (so workloads REV lacks still run) through their own
`mptlab._benchworker`, started by `SHIM` so that peak RSS is measured the same way on both
(`VmHWM`; workers before issue 20 reported `ru_maxrss`, which counts what the CLI left them).

The speed ratio compares delivered data packets per wall second, never raw wall time, since
two builds may simulate different amounts (a changed default, an override REV ignores).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mptlab.bench import BenchError, Workload, parse_worker_output, worker_args

#: Run as `python -c SHIM <worker arguments>` with PYTHONPATH at one build's `python/` folder.
#: It runs that build's own worker (`main`), replacing only its `peak_rss_mb` by a VmHWM
#: reader (older workers call it; newer ones already read VmHWM) and adding the folder the
#: package was imported from, which `run_side` checks.
SHIM = r"""
import os, sys
import mptlab
from mptlab import _benchworker as w

def _vm_hwm_mb(_fallback=getattr(w, "peak_rss_mb", None)):
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    return _fallback()

if hasattr(w, "peak_rss_mb"):
    w.peak_rss_mb = _vm_hwm_mb
_measure = w.measure

def _measure_with_package(*args, **kwargs):
    return {**_measure(*args, **kwargs), "package": os.path.dirname(os.path.dirname(mptlab.__file__))}

w.measure = _measure_with_package
sys.exit(w.main(sys.argv[1:]))
"""

#: Written into the cache folder, so a cache inside the checkout never shows in `git status`.
_SELF_IGNORE = "# mptlab bench --compare's cache of built revisions\n*\n"
#: Present once a cached revision is fully built.
_STAMP = "BUILT"


@dataclass(frozen=True)
class Build:
    """One side of a comparison."""

    #: "new" (the current build) or REV's short sha.
    label: str
    #: Folder the worker runs in (the tree's root).
    tree: Path
    #: Folder holding the `mptlab` package (PYTHONPATH of its workers).
    python_path: Path


def current_build() -> Build:
    """The mptlab package this process imports."""
    import mptlab

    python_path = Path(mptlab.__file__).resolve().parent.parent
    return Build("new", python_path.parent, python_path)


def new_build(root: Path, cache: Path, progress: Callable[[str], None]) -> tuple[Build, str | None]:
    """The new side of a comparison: HEAD's export when no tracked file differs from HEAD
    (built or reused like REV's; its label stays "new"), with HEAD's sha; else the imported
    package and None (the caller says that layout may bias the ratio)."""
    dirty = _git(root, "status", "--porcelain", "--untracked-files=no")
    if dirty.returncode != 0 or dirty.stdout.strip():
        return current_build(), None
    sha = resolve_rev(root, "HEAD")
    b, _ = build_rev(root, sha, cache, progress)
    return Build("new", b.tree, b.python_path), sha


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)
    except FileNotFoundError as e:
        raise BenchError("--compare needs git on PATH", exit_code=2) from e


def checkout_root(package_dir: Path | None = None) -> Path:
    """The top of the git checkout the mptlab package (or `package_dir`) lives in; exit code 2
    when it is not in one (an installed mptlab has no other revisions to build)."""
    where = package_dir or current_build().python_path
    proc = _git(where, "rev-parse", "--show-toplevel")
    if proc.returncode != 0:
        raise BenchError(
            f"--compare needs mptlab to run from a git checkout; {where} is not in one", exit_code=2
        )
    return Path(proc.stdout.strip())


def resolve_rev(root: Path, rev: str) -> str:
    """REV's full commit sha in the checkout at `root`; exit code 2 when git does not know it."""
    proc = _git(root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}")
    if proc.returncode != 0 or not proc.stdout.strip():
        raise BenchError(f"unknown revision {rev!r} in {root}", exit_code=2)
    return proc.stdout.strip()


def cache_dir(root: Path) -> Path:
    """$MPTLAB_BENCH_CACHE, else `.bench/` at the top of the checkout; made self-ignoring."""
    cache = Path(os.environ.get("MPTLAB_BENCH_CACHE") or root / ".bench")
    cache.mkdir(parents=True, exist_ok=True)
    ignore = cache / ".gitignore"
    if not ignore.exists():
        ignore.write_text(_SELF_IGNORE, encoding="utf-8")
    return cache


def pgo_wanted() -> bool:
    """Whether revisions that build their extension profile-guided do so here (the Makefile's
    recipe, `tools/pgo-profile.sh`); `MPTLAB_PGO=0` builds every revision plainly, to compare
    code alone. The two kinds are cached apart."""
    return os.environ.get("MPTLAB_PGO", "1") != "0"


def _guided(tree: Path) -> bool:
    """Whether the revision exported at `tree` is built profile-guided here: its own recipe
    is (it has `tools/pgo-profile.sh`) and `pgo_wanted`."""
    return pgo_wanted() and (tree / "tools" / "pgo-profile.sh").is_file()


def recipe(build: Build) -> str:
    """How `build`'s extension module was built: "profile-guided" or "plain"."""
    return "profile-guided" if _guided(build.tree) else "plain"


def _build_of(cache: Path, sha: str) -> Build:
    tree = cache / (sha if pgo_wanted() else f"{sha}-plain")
    return Build(sha[:10], tree, tree / "python")


def cached_build(cache: Path, sha: str) -> Build | None:
    """The build of `sha` in `cache` if one was completed (its stamp and module exist)."""
    b = _build_of(cache, sha)
    if (b.tree / _STAMP).is_file() and any((b.python_path / "mptlab").glob("_core*.so")):
        return b
    return None


def _cargo() -> str:
    found = shutil.which("cargo") or shutil.which(str(Path.home() / ".cargo" / "bin" / "cargo"))
    if found is None:
        raise BenchError("--compare needs cargo (a Rust toolchain) to build the old revision")
    return found


def build_rev(root: Path, sha: str, cache: Path, progress: Callable[[str], None]) -> tuple[Build, bool]:
    """REV's build, from the cache or made now: (build, True if it was built now).

    The tree is a `git archive` export (no worktree is registered in the checkout); its
    extension module is `cargo build --release -p mptlab-py` with the workspace's own profile,
    profile-guided when the revision's recipe is (`tools/pgo-profile.sh`, unless MPTLAB_PGO=0),
    into a target folder shared by all cached revisions (dependencies compile once), copied
    next to the tree's package as `_core.abi3.so`. A lock file per revision keeps two
    comparisons from building the same tree at once (the second waits, then reuses it)."""
    done = cached_build(cache, sha)
    if done is not None:
        return done, False
    with (cache / f"{sha}.lock").open("w") as lock:
        progress(f"waiting for the lock on {sha[:10]}'s build")
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = cached_build(cache, sha)
        if done is not None:
            return done, False
        return _build_now(root, sha, cache, progress), True


def _build_now(root: Path, sha: str, cache: Path, progress: Callable[[str], None]) -> Build:
    b = _build_of(cache, sha)
    if b.tree.exists():  # an interrupted earlier build
        shutil.rmtree(b.tree)
    b.tree.mkdir(parents=True)
    progress(f"exporting {sha[:10]} into {b.tree}")
    archive = subprocess.Popen(["git", "-C", str(root), "archive", "--format=tar", sha], stdout=subprocess.PIPE)
    # `-m`: the files get the time of export, not the commit's. The build's target folder is
    # shared by every cached revision and cargo judges the workspace's own crates fresh by
    # mtime: with the commit's (older) times, an older revision built after a newer one was
    # taken as up to date and got the newer one's extension module.
    untar = subprocess.run(["tar", "-x", "-m", "-C", str(b.tree)], stdin=archive.stdout, capture_output=True, text=True)
    assert archive.stdout is not None
    archive.stdout.close()
    if archive.wait() != 0 or untar.returncode != 0:
        raise BenchError(f"could not export {sha[:10]} into {b.tree}: {untar.stderr.strip()}")
    target = cache / "target"
    log = b.tree / "build.log"
    env = dict(os.environ, CARGO_TARGET_DIR=str(target), PYO3_PYTHON=sys.executable)
    if _guided(b.tree):
        # The revision's own recipe (its Makefile builds profile-guided): profile it, then build
        # with the profile, in a target folder of its own (the flags differ per revision).
        profile = b.tree / "target" / "pgo" / "merged.profdata"
        progress(f"profiling {sha[:10]} for its profile-guided build (log: {log})")
        with log.open("w", encoding="utf-8") as out:
            script = b.tree / "tools" / "pgo-profile.sh"
            made = subprocess.run(["bash", str(script), str(profile)], cwd=b.tree, stdout=out, stderr=subprocess.STDOUT)
        if made.returncode != 0:
            raise BenchError(f"profiling {sha[:10]} failed, see {log} (MPTLAB_PGO=0 builds plainly)")
        target = cache / "target-pgo"
        env.update(CARGO_TARGET_DIR=str(target), RUSTFLAGS=f"-Cprofile-use={profile}")
    progress(f"building {sha[:10]}'s extension module (cargo build --release, log: {log})")
    with log.open("a", encoding="utf-8") as out:
        proc = subprocess.run(
            [_cargo(), "build", "--release", "-p", "mptlab-py", "--manifest-path", str(b.tree / "Cargo.toml")],
            cwd=b.tree, env=env, stdout=out, stderr=subprocess.STDOUT,
        )
    if proc.returncode != 0:
        tail = "\n".join(log.read_text(encoding="utf-8", errors="replace").splitlines()[-15:])
        raise BenchError(f"building {sha[:10]} failed (cargo exit {proc.returncode}), see {log}:\n{tail}")
    library = target / "release" / ("lib_core.dylib" if sys.platform == "darwin" else "lib_core.so")
    shutil.copy2(library, b.python_path / "mptlab" / "_core.abi3.so")
    check = subprocess.run(
        [sys.executable, "-c", "import mptlab, mptlab._core; print(mptlab.__file__)"],
        cwd=b.tree, env=dict(os.environ, PYTHONPATH=str(b.python_path)), capture_output=True, text=True,
    )
    if check.returncode != 0 or not Path(check.stdout.strip()).resolve().is_relative_to(b.python_path.resolve()):
        raise BenchError(f"the build of {sha[:10]} does not import from {b.python_path}: {check.stderr.strip()}")
    (b.tree / _STAMP).write_text(sha + "\n", encoding="utf-8")
    return b


def schedule(rounds: int, workloads: Sequence[Workload]) -> list[tuple[int, Workload, tuple[str, str]]]:
    """(round, workload, order of the builds) in run order: rounds outermost, each workload once
    per round, "new" first in even rounds and "old" first in odd ones (ABBA)."""
    return [
        (r, w, ("new", "old") if r % 2 == 0 else ("old", "new")) for r in range(rounds) for w in workloads
    ]


def run_side(build: Build, args: list[str], name: str) -> dict[str, Any]:
    """One measurement on `build` in a fresh process; BenchError when its worker fails."""
    env = dict(os.environ, PYTHONPATH=str(build.python_path))
    proc = subprocess.run(
        [sys.executable, "-c", SHIM, *args], cwd=build.tree, env=env, capture_output=True, text=True
    )
    row = parse_worker_output(name, proc)
    package = row.get("package")
    if package is None or not Path(package).resolve().is_relative_to(build.python_path.resolve()):
        raise BenchError(f"workload {name} ran mptlab from {package}, not {build.python_path}")
    return row


def pair_rows(name: str, new: list[dict[str, Any]], old: list[dict[str, Any]], old_label: str) -> dict[str, Any]:
    """The comparison row of one workload from its paired measurements (round i of `new` with
    round i of `old`): medians of each build, the ratio of the delivered-packets-per-second
    medians new/old (> 1: the current build is faster) and its range over the rounds' ratios."""
    pairs = list(zip(new, old, strict=True))
    ratios = [n["delivered_pkts_per_s"] / o["delivered_pkts_per_s"] for n, o in pairs]
    med = statistics.median
    return {
        "workload": name,
        "comparable": True,
        "reason": None,
        "failed_side": None,
        "old": old_label,
        "rounds": len(pairs),
        "sim_s": new[0]["sim_s"],
        "old_sim_s": old[0]["sim_s"],
        "new_wall_s": round(med(r["wall_s"] for r in new), 4),
        "old_wall_s": round(med(r["wall_s"] for r in old), 4),
        "new_delivered_pkts_per_s": round(med(r["delivered_pkts_per_s"] for r in new), 1),
        "old_delivered_pkts_per_s": round(med(r["delivered_pkts_per_s"] for r in old), 1),
        "speedup": round(med(r["delivered_pkts_per_s"] for r in new) / med(r["delivered_pkts_per_s"] for r in old), 4),
        "speedup_min": round(min(ratios), 4),
        "speedup_max": round(max(ratios), 4),
        "new_peak_rss_mb": max(r["peak_rss_mb"] for r in new),
        "old_peak_rss_mb": max(r["peak_rss_mb"] for r in old),
    }


def not_comparable(name: str, old_label: str, reason: str, failed_side: str) -> dict[str, Any]:
    """The row of a workload that failed on one build ("new" or "old": `failed_side`)."""
    return {"workload": name, "comparable": False, "reason": reason, "old": old_label, "failed_side": failed_side}


def compare(
    new: Build,
    old: Build,
    workloads: Sequence[Workload],
    rounds: int,
    seed: int | None = None,
    sets: tuple[tuple[str, str], ...] = (),
    progress: Callable[[str], None] = lambda _: None,
) -> list[dict[str, Any]]:
    """Measure `workloads` on both builds, interleaved (see `schedule`); one row per workload.

    A workload whose run fails on either build is reported not comparable (with the reason)
    and not run again; the others go on."""
    builds = {"new": new, "old": old}
    runs: dict[str, dict[str, list[dict[str, Any]]]] = {w.name: {"new": [], "old": []} for w in workloads}
    failed: dict[str, tuple[str, str]] = {}
    started = time.monotonic()
    for r, w, order in schedule(rounds, workloads):
        if w.name in failed:
            continue
        args = worker_args(w, seed, sets)
        for side in order:
            progress(f"round {r + 1}/{rounds}: {w.name} on {builds[side].label} ({time.monotonic() - started:.0f} s)")
            try:
                runs[w.name][side].append(run_side(builds[side], args, w.name))
            except BenchError as e:
                failed[w.name] = (f"{'current build' if side == 'new' else old.label} failed: {e}", side)
                break
    return [
        not_comparable(w.name, old.label, *failed[w.name]) if w.name in failed
        else pair_rows(w.name, runs[w.name]["new"], runs[w.name]["old"], old.label)
        for w in workloads
    ]
