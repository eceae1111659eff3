"""Transparent huge pages for the simulator's heap.

A run of thousands of flows (W5: 12,000 devices, about 450 MB of per-flow and per-link state)
touches its heap all over, and with 4 KiB pages nearly every cache miss is a TLB miss as well.
glibc (2.35 and later) can ask the kernel for transparent huge pages for the memory malloc
takes (`GLIBC_TUNABLES=glibc.malloc.hugetlb=1`, which `madvise`s it, so it works where THP is
in `madvise` mode, as on Debian). glibc reads the tunable only when a process starts, so the
`mptlab` command re-executes itself once with it set before a command that simulates
(`reexec_with_hugepages`); the processes it starts (sweep and bench workers) inherit it.

Measured on this project's machine kind (2026-11-29, the same `run_scenario` binary with and
without the tunable, both at once, one per core, cores swapped every round): W5 at 10 s
simulated ran 1.07-1.19 times faster (six of six rounds), over its full 60 s 1.19 and 1.18
times, with peak RSS 942 against 923 MiB; W1, W2, W3 and W6 did not move. Results do not
change: the tunable only changes which pages back the same allocations.

Off with `MPTLAB_HUGEPAGES=0`; skipped where the C library is not glibc or the tunable is
already set (either way, or by a user's own `GLIBC_TUNABLES`).
"""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Mapping

NAME = "glibc.malloc.hugetlb"
TUNABLE = f"{NAME}=1"
OPT_OUT = "MPTLAB_HUGEPAGES"

# Commands whose process (or the workers it starts) simulates.
SIMULATING = frozenset({"run", "sweep", "reproduce", "bench"})


def _tunables(env: Mapping[str, str]) -> list[str]:
    """The `name=value` entries of `GLIBC_TUNABLES` in `env`."""
    return [t for t in env.get("GLIBC_TUNABLES", "").split(":") if t]


def active(env: Mapping[str, str]) -> bool:
    """Does `env` ask glibc for huge pages (what a process started with it gets)?"""
    return TUNABLE in _tunables(env)


def with_hugepages(env: Mapping[str, str], libc: str | None = None) -> dict[str, str] | None:
    """`env` with glibc's huge-page tunable added to `GLIBC_TUNABLES`, or None when there is
    nothing to do: the user opted out (`MPTLAB_HUGEPAGES=0`), `GLIBC_TUNABLES` already names
    the tunable, or the C library (`libc`, default this platform's) is not glibc on Linux."""
    tunables = _tunables(env)
    if env.get(OPT_OUT, "1") == "0" or any(t.split("=", 1)[0] == NAME for t in tunables):
        return None
    # Asked last: `libc_ver` reads the interpreter's binary.
    if libc is None:
        libc = platform.libc_ver()[0] if sys.platform.startswith("linux") else ""
    if libc != "glibc":
        return None
    new = dict(env)
    new["GLIBC_TUNABLES"] = ":".join([*tunables, TUNABLE])
    return new


def reexec_with_hugepages(argv: list[str]) -> None:
    """Replace this process by `python -m mptlab argv[1:]` with the tunable set, when `argv`
    runs a command that simulates and the tunable is missing; otherwise return. The new
    process finds the tunable set, so it never re-executes again."""
    if len(argv) < 2 or argv[1] not in SIMULATING:
        return
    env = with_hugepages(os.environ)
    if env is None:
        return
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, [sys.executable, "-m", "mptlab", *argv[1:]], env)
