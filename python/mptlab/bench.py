"""`mptlab bench`: fixed workloads, each measured in a fresh process (`mptlab._benchworker`).

Add a workload by adding an entry to `WORKLOADS`; its scenario path is relative to the
repository root.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The keys of one `mptlab bench --json` row, in order.
KEYS = ("workload", "sim_s", "wall_s", "delivered_pkts_per_s", "events_per_s", "peak_rss_mb")


@dataclass(frozen=True)
class Workload:
    name: str
    #: Scenario file, relative to the repository root.
    scenario: str
    #: Scenario overrides (`--set key=value`) applied on top of the file.
    overrides: tuple[tuple[str, str], ...] = ()
    #: One line for `mptlab bench --help` and the docs.
    about: str = ""


def _cc(cc: str, *extra: tuple[str, str]) -> tuple[tuple[str, str], ...]:
    return (("flows.bulk.cc", cc), *extra)



WORKLOADS: dict[str, Workload] = {
    w.name: w
    for w in (
        Workload("W1", "scenarios/bench/w1.toml", about="1 NewReno flow, 1 Gbit/s, 20 ms RTT, 1 BDP"),
        Workload("W2", "scenarios/bench/w2.toml", about="12 NewReno flows, 938 Mbit/s, 16 ms RTT, 1 BDP"),
        Workload("W1-CUBIC", "scenarios/bench/w1.toml", _cc("cubic"), "W1 with CUBIC"),
        Workload("W2-CUBIC", "scenarios/bench/w2.toml", _cc("cubic"), "W2 with CUBIC"),
        Workload("W1-CUBIC-PACED", "scenarios/bench/w1.toml", _cc("cubic", ("flows.bulk.tcp.pacing", "true")),
                 "W1 with CUBIC and Linux-style internal pacing"),
        Workload("W2-CUBIC-PACED", "scenarios/bench/w2.toml", _cc("cubic", ("flows.bulk.tcp.pacing", "true")),
                 "W2 with CUBIC and Linux-style internal pacing"),
        Workload("W1-BBR", "scenarios/bench/w1.toml", _cc("bbr"), "W1 with BBR v1 (paced)"),
        Workload("W2-BBR", "scenarios/bench/w2.toml", _cc("bbr"), "W2 with BBR v1 (paced)"),
        Workload("W3", "scenarios/bench/w3.toml",
                 about="1 MPTCP connection, 2 disjoint 1 Gbit/s paths (10/15 ms one way), uncoupled NewReno"),
        Workload("W4", "scenarios/bench/w4.toml",
                 about="1 MPQUIC connection over W3's paths, NewReno per path, MinRTT"),
        Workload("W5", "scenarios/bench/w5.toml",
                 about="12,000 devices (6,000 MPTCP + 6,000 MPQUIC), 0.1 Mbit/s CBR of 100 B writes, "
                       "two backhauls, 60 s"),
        Workload("W5-PAR", "scenarios/bench/w5.toml", (("run.partitions", "2"),),
                 "W5 on the parallel engine: 2 device partitions (run.partitions), on MPTLAB_THREADS "
                 "threads (default: every core)"),
        Workload("W6", "scenarios/bench/w6.toml",
                 about="1,000 NewReno bulk flows, 10 Gbit/s, 20 ms RTT, 1 BDP, 20 s"),
        Workload("W7", "scenarios/bench/w7.toml",
                 about="seed 004's 100-node 802.11a Wi-Fi mesh (500 m square, 100 m range), 100 Poisson UDP "
                       "datagrams of 1000 B per node to the DC over shortest paths"),
    )
}


def workloads_help() -> str:
    """The workloads, one paragraph each, for `mptlab bench --help` (built from `WORKLOADS`, so
    a new workload is listed there without editing the CLI)."""
    width = max(len(name) for name in WORKLOADS)
    return "\n\n".join(f"  {w.name:<{width}}  {w.about}" for w in WORKLOADS.values())


class BenchError(Exception):
    """A workload name or file problem (exit code 2) or a failed worker (exit code 1)."""

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def resolve(name: str) -> Workload:
    """A workload by name (case-insensitive)."""
    w = WORKLOADS.get(name.upper())
    if w is None:
        raise BenchError(f"unknown workload {name!r} (valid: {', '.join(WORKLOADS)})", exit_code=2)
    return w


def repo_file(relative: str) -> Path:
    """Find a shipped scenario by its documented path (`mptlab.paths.data_file`)."""
    from mptlab.paths import data_file

    path = data_file(relative)
    if path is not None:
        return path
    raise BenchError(
        f"cannot find {relative}: not in the installed package nor under the current folder; set MPTLAB_ROOT", exit_code=2
    )


def parse_sets(sets: list[str] | tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """`--set KEY=VALUE` options as pairs; a malformed one is exit code 2."""
    pairs = []
    for s in sets:
        key, eq, value = s.partition("=")
        if not eq or not key.strip():
            raise BenchError(f"--set takes KEY=VALUE, got {s!r}", exit_code=2)
        pairs.append((key.strip(), value))
    return tuple(pairs)


def worker_args(
    w: Workload, seed: int | None = None, sets: tuple[tuple[str, str], ...] = ()
) -> list[str]:
    """The worker's arguments (after `python -m mptlab._benchworker`): the scenario, the
    workload's own overrides, then `sets` (applied last, so they win). Only `--name`, `--seed`
    and `--set`, which every worker since 77491e1 accepts (`mptlab bench --compare` runs old ones)."""
    args = [str(repo_file(w.scenario).resolve()), "--name", w.name]
    for key, value in (*w.overrides, *sets):
        args += ["--set", f"{key}={value}"]
    if seed is not None:
        args += ["--seed", str(seed)]
    return args


def parse_worker_output(name: str, proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    """The worker's JSON object, or BenchError (exit code 2 when the worker refused its input)."""
    if proc.returncode != 0:
        detail = proc.stderr.strip() or proc.stdout.strip()
        raise BenchError(f"workload {name} failed (exit {proc.returncode}): {detail}",
                         exit_code=2 if proc.returncode == 2 else 1)
    lines = proc.stdout.strip().splitlines()
    if not lines:
        raise BenchError(f"workload {name} printed nothing")
    try:
        return json.loads(lines[-1])
    except json.JSONDecodeError as e:
        raise BenchError(f"workload {name} printed no JSON object ({e}): {lines[-1][:200]}") from e


def run_workload(
    w: Workload, seed: int | None = None, sets: tuple[tuple[str, str], ...] = ()
) -> dict[str, Any]:
    """Measure one workload in a fresh interpreter; return the worker's JSON object."""
    cmd = [sys.executable, "-m", "mptlab._benchworker", *worker_args(w, seed, sets)]
    return parse_worker_output(w.name, subprocess.run(cmd, capture_output=True, text=True))


def row(measurement: dict[str, Any]) -> dict[str, Any]:
    """The `--json` row: exactly `KEYS`."""
    return {k: measurement.get(k) for k in KEYS}
