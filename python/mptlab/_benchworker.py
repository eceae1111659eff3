"""One benchmark measurement, run in a fresh process by `mptlab bench`:

    python -m mptlab._benchworker scenarios/bench/w1.toml [--name W1] [--seed N]

Imports only the standard library and `mptlab._core` (not pyarrow, pandas or matplotlib), so
the peak RSS it reports is the simulator's plus a bare interpreter. Prints one JSON object on
stdout with at least: workload, sim_s, wall_s, delivered_pkts_per_s, events_per_s, peak_rss_mb
(and also build_s, run_s, events, delivered_data_packets, seed, scenario).

wall_s runs from the start of scenario validation/building to the end of the simulation (the
summary is not computed); the rates divide by it.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

from mptlab import _core


def peak_rss_mb() -> float:
    """Peak resident set size of this process in MiB (ru_maxrss: KiB on Linux, bytes on macOS)."""
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / (1024 * 1024) if sys.platform == "darwin" else rss / 1024


def measure(
    path: Path, name: str, seed: int | None = None, overrides: list[tuple[str, str]] | None = None
) -> dict[str, object]:
    text = path.read_text(encoding="utf-8")
    t0 = time.perf_counter()
    sim = _core.Simulation(text, overrides or [], seed)
    t1 = time.perf_counter()
    sim.advance(sim.duration_s)
    t2 = time.perf_counter()
    if not sim.done:
        raise RuntimeError(f"simulation stopped at {sim.now_s} s of {sim.duration_s} s")
    wall = t2 - t0
    events = sim.events_processed
    delivered = sim.delivered_data_packets
    return {
        "workload": name,
        "scenario": str(path),
        "seed": sim.seed,
        "sim_s": sim.duration_s,
        "wall_s": round(wall, 6),
        "build_s": round(t1 - t0, 6),
        "run_s": round(t2 - t1, 6),
        "events": events,
        "delivered_data_packets": delivered,
        "delivered_pkts_per_s": round(delivered / wall, 1) if wall > 0 else None,
        "events_per_s": round(events / wall, 1) if wall > 0 else None,
        "peak_rss_mb": round(peak_rss_mb(), 1),
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
