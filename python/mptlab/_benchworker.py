"""One benchmark measurement, run in a fresh process by `mptlab bench`:

    python -m mptlab._benchworker scenarios/bench/w1.toml [--name W1] [--seed N]

Imports only the standard library, `mptlab._core`, the runner and `mptlab.hugepages` (not pyarrow, pandas or
matplotlib), so the peak RSS it reports is the simulator's plus a bare interpreter. Prints one JSON object on
stdout with at least: workload, sim_s, wall_s, delivered_pkts_per_s, events_per_s, peak_rss_mb
(and also build_s, run_s, events, delivered_data_packets, seed, scenario, peak_rss_source,
hugepages).

wall_s runs from the start of scenario validation/building to the end of the simulation (one
`advance` call; the summary and time series are not collected); the rates divide by it.

peak_rss_mb is the high-water mark of this process's own address space (`VmHWM` in
/proc/self/status, which exec resets), so a worker started from a large parent (the `mptlab`
CLI, a test runner) reports only itself. Where /proc is missing (macOS), it falls back to
`ru_maxrss`, which also counts what the process inherited from its parent through fork/exec;
peak_rss_source says which one was used.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

from mptlab import _core, hugepages, runner


def _vm_hwm_kib() -> int | None:
    """VmHWM (kB) from /proc/self/status, or None where there is no such file or line."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def peak_rss() -> tuple[float, str]:
    """(peak resident set size in MiB, where it came from: "VmHWM" or "ru_maxrss").

    ru_maxrss is only the fallback: the kernel keeps it across exec and starts a child with
    its parent's pages counted, so a worker forked from the 35 MB CLI reports at least 35 MB."""
    hwm = _vm_hwm_kib()
    if hwm is not None:
        return hwm / 1024, "VmHWM"
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux, bytes on macOS
    return (rss / (1024 * 1024) if sys.platform == "darwin" else rss / 1024), "ru_maxrss"


def peak_rss_mb() -> float:
    """Peak resident set size of this process in MiB (see `peak_rss`)."""
    return peak_rss()[0]


def measure(
    path: Path, name: str, seed: int | None = None, overrides: list[tuple[str, str]] | None = None
) -> dict[str, object]:
    text = path.read_text(encoding="utf-8")
    out = runner.run(text, overrides or [], seed, summary=False, series=False, chunks=1)
    wall = out.build_s + out.run_s
    events = out.events
    delivered = out.delivered_data_packets
    rss_mb, rss_source = peak_rss()
    return {
        "workload": name,
        "scenario": str(path),
        "seed": out.seed,
        "sim_s": out.sim_s,
        "wall_s": round(wall, 6),
        "build_s": round(out.build_s, 6),
        "run_s": round(out.run_s, 6),
        "events": events,
        "delivered_data_packets": delivered,
        "delivered_pkts_per_s": round(delivered / wall, 1) if wall > 0 else None,
        "events_per_s": round(events / wall, 1) if wall > 0 else None,
        "peak_rss_mb": round(rss_mb, 1),
        "peak_rss_source": rss_source,
        # glibc backed the heap with transparent huge pages (mptlab.hugepages), as the
        # `mptlab` command arranges unless MPTLAB_HUGEPAGES=0.
        "hugepages": hugepages.active(os.environ),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m mptlab._benchworker", description=__doc__.splitlines()[0])
    ap.add_argument("scenario", type=Path)
    ap.add_argument("--name", help="workload name to report (default: the file stem)")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE",
                    help="scenario override, as `mptlab run --set` (repeatable)")
    args = ap.parse_args(argv)
    overrides = [tuple(s.split("=", 1)) for s in args.sets]
    if any(len(o) != 2 for o in overrides):
        print("error: --set takes KEY=VALUE", file=sys.stderr)
        return 2
    try:
        row = measure(args.scenario, args.name or args.scenario.stem, args.seed, overrides)
    except (OSError, _core.ScenarioError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(json.dumps(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
