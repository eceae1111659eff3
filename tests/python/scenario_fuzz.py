"""The scenario fuzzer (issue 18): random mutations of the shipped scenarios and random TOML,
each validated and, when valid, simulated for a moment, in a worker process under a memory cap.

What must hold for every input: either the engine refuses it with a `ScenarioError` whose text
is one line `key.path: reason`, or it builds, runs and summarises without an exception. A
panic, another exception, a worker that dies (abort, out of memory) or a case that does not
finish in time is a failure; the failing input is written out so it can become a named
regression file in tests/scenarios/broken/ (or tests/scenarios/extreme/).

`run(cases, seed)` is deterministic for a seed: the same cases in the same order, whatever
the machine. tests/python/test_scenario_fuzz.py runs a few hundred in `make test`;
`MPTLAB_FUZZ_CASES=100000 MPTLAB_FUZZ_SEED=7 pytest tests/python/test_scenario_fuzz.py` runs
more.
"""

from __future__ import annotations

import copy
import math
import multiprocessing
import re
import random
import resource
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomli_w

ROOT = Path(__file__).resolve().parents[2]
#: Memory a worker may map (RLIMIT_AS), above what validation lets a run need (its 8 GiB estimate
#: is about twice the real use): a case that needs more is a failure, not a machine
#: brought down.
MEMORY_CAP = 6 << 30
#: Wall seconds of simulation a valid case gets (it is stopped there, not failed).
RUN_BUDGET_S = 0.05
#: Wall seconds after which a case that has not reported back counts as a hang.
HANG_S = 60.0
#: Cases per worker process (a fresh worker after each batch or crash).
BATCH = 200

UNITS = ["ns", "us", "ms", "s", "bps", "Kbps", "Mbps", "Gbps", "B", "KB", "MB", "KiB", "p", "pkt",
         "bdp", "furlongs", "", " ms", "MS"]
NUMBERS = ["0", "1", "-1", "0.5", "1e3", "1.5.2", "18446744073709551615", "99999999999999999999",
           "1e30", "3", "100", "1000000", "-0", "00012", "1_000"]
KEY_NAMES = ["bogus", "rate", "delay", "count", "cc", "scheduler", "limit", "p", "kind", "model",
             "paths", "app", "size", "start", "reverse", "between", "to", "from", "quic", "tcp"]


def seeds() -> list[tuple[str, dict[str, Any]]]:
    """The shipped scenarios, parsed: what mutations start from."""
    files = sorted((ROOT / "scenarios").glob("*.toml")) + sorted((ROOT / "scenarios" / "bench").glob("*.toml"))
    return [(f.name, tomllib.loads(f.read_text())) for f in files]


def _scalar(rng: random.Random) -> Any:
    r = rng.random()
    if r < 0.35:
        return rng.choice(NUMBERS) + rng.choice(UNITS)
    if r < 0.55:
        return rng.choice([0, 1, -1, 2, 7, 100, 10**6, 10**7, 2**31, 2**63 - 1, -(2**63)])
    if r < 0.7:
        return rng.choice([0.0, -0.0, 1e-300, 0.5, 1.0, 1.5, -0.5, 1e308, math.inf, -math.inf, math.nan])
    if r < 0.8:
        return rng.choice([True, False])
    if r < 0.9:
        return rng.choice(["", "reno", "cubic", "bbr", "olia+cubic", "minrtt", "blp", "droptail", "codel",
                           "bernoulli", "lte", "trace", "file", "cbr", "bulk", "poisson", "mptcp", "quic",
                           "mpquic", "udp", "tcp", "none", "\u00e9\u00e8", "a" * 300])
    return rng.choice([[], [1, 2], ["a", "b"], {}, {"kind": "droptail"}, [["a", "b"]]])


_QUANTITY = re.compile(r"^([0-9][0-9_]*(?:\.[0-9]+)?)([A-Za-z]*)$")


def _tweak(v: Any, rng: random.Random) -> Any:
    """`v` with its type and unit kept and its magnitude changed: from far below to far above
    the usual (1ns, 0.001bdp, 1e9 packets), the values validation may accept."""
    factor = rng.choice([0.0, 1e-6, 1e-3, 0.1, 0.5, 2.0, 10.0, 1e3, 1e6])
    if isinstance(v, bool):
        return not v
    if isinstance(v, int):
        return max(0, int(v * factor)) if rng.random() < 0.9 else rng.choice([0, 1, 2**40])
    if isinstance(v, float):
        return min(v * factor, 1.0) if 0.0 <= v <= 1.0 else v * factor
    if isinstance(v, str):
        m = _QUANTITY.match(v)
        if m:
            number = float(m.group(1).replace("_", "")) * factor
            text = str(int(number)) if number >= 1 or number == 0 else f"{number:.6f}".rstrip("0")
            return text + m.group(2)
    return v


def _leaves(t: Any, path: tuple = ()) -> list[tuple]:
    """Paths to every value (tables and arrays included) below `t`."""
    out = []
    if isinstance(t, dict):
        for k, v in t.items():
            out.append(path + (k,))
            out.extend(_leaves(v, path + (k,)))
    elif isinstance(t, list):
        for i, v in enumerate(t):
            out.append(path + (i,))
            out.extend(_leaves(v, path + (i,)))
    return out


def _parent(doc: Any, path: tuple) -> Any:
    for p in path[:-1]:
        doc = doc[p]
    return doc


def mutate(doc: dict[str, Any], rng: random.Random) -> None:
    """Apply one random mutation to `doc` in place."""
    paths = _leaves(doc)
    if not paths:
        doc[rng.choice(KEY_NAMES)] = _scalar(rng)
        return
    path = rng.choice(paths)
    parent, last = _parent(doc, path), path[-1]
    if rng.random() < 0.5:  # the same kind of value, another magnitude: mostly still valid
        parent[last] = _tweak(parent[last], rng)
        return
    op = rng.random()
    if op < 0.45:  # a new value of any type, unit or extreme
        parent[last] = _scalar(rng)
    elif op < 0.6:  # a key removed
        if isinstance(parent, dict):
            del parent[last]
        elif parent:
            parent.pop(last)
    elif op < 0.7:  # an unknown or misplaced key added
        target = parent if isinstance(parent, dict) else doc
        target[rng.choice(KEY_NAMES) + rng.choice(["", "_x", "2"])] = _scalar(rng)
    elif op < 0.8:  # a value copied from elsewhere in the scenario
        other = rng.choice(paths)
        try:
            parent[last] = copy.deepcopy(_parent(doc, other)[other[-1]])
        except (KeyError, IndexError, TypeError):
            parent[last] = _scalar(rng)
    elif op < 0.9:  # an entry duplicated under another name (flows, links, groups)
        if isinstance(parent, dict) and isinstance(parent[last], dict):
            parent[f"{last}_copy{rng.randrange(100)}"] = copy.deepcopy(parent[last])
        else:
            parent[last] = _scalar(rng)
    else:  # counts and sizes at their extremes
        parent[last] = rng.choice([0, 1, 2, 1000, 100_000, 1_000_000, 1_000_001, 10**7, -5])


def case(index: int, seed: int, starts: list[tuple[str, dict[str, Any]]]) -> tuple[str, str]:
    """The case `index` of the run with `seed`: (where it came from, TOML text)."""
    rng = random.Random(f"{seed}:{index}")
    name, base = rng.choice(starts)
    r = rng.random()
    if r < 0.04:  # random bytes that are not TOML
        return f"{name}:noise", "".join(chr(rng.randrange(1, 0x250)) for _ in range(rng.randrange(1, 200)))
    text_base = tomli_w.dumps(base)
    if r < 0.08:  # a scenario cut short
        return f"{name}:truncated", text_base[: rng.randrange(len(text_base))]
    doc = tomllib.loads(text_base)
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        mutate(doc, rng)
    try:
        return f"{name}:mutated", tomli_w.dumps(doc)
    except (TypeError, ValueError):  # a mutation tomli_w cannot write (e.g. a mixed array)
        return f"{name}:unwritable", text_base


@dataclass
class Failure:
    index: int
    origin: str
    kind: str  # exception, panic, crash, hang, bad-message
    detail: str
    text: str


def check_one(text: str) -> tuple[str, str] | None:
    """None when the case behaved, else (kind, detail). Runs in the worker."""
    from mptlab import _core

    try:
        sim = _core.Simulation(text, [], None)
    except _core.ScenarioError as e:
        msg = str(e)
        if "\n" in msg or ": " not in msg:
            return "bad-message", msg[:500]
        return None
    except BaseException as e:  # a panic surfaces as pyo3's PanicException (a BaseException)
        return ("panic" if type(e).__name__ == "PanicException" else "exception"), f"{type(e).__name__}: {e}"[:500]
    try:
        t0 = time.perf_counter()
        duration = sim.duration_s
        step = duration / 1000
        while not sim.done and time.perf_counter() - t0 < RUN_BUDGET_S:
            sim.advance(min(duration, sim.now_s + step))
        import json

        summary = json.loads(sim.summary_json())
        if not isinstance(summary.get("flows"), list):
            return "exception", "summary without flows"
    except BaseException as e:
        return ("panic" if type(e).__name__ == "PanicException" else "exception"), f"run: {type(e).__name__}: {e}"[:500]
    return None


def _worker(conn: Any, indices: list[int], seed: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))
    starts = seeds()
    for i in indices:
        conn.send(("start", i))
        try:
            _, text = case(i, seed, starts)
        except Exception as e:  # the generator itself failed: a fuzzer bug, reported as such
            conn.send(("done", i, ("fuzzer", f"{type(e).__name__}: {e}"[:500])))
            continue
        conn.send(("done", i, check_one(text)))
    conn.send(("end",))


def run(cases: int, seed: int = 1, start: int = 0) -> tuple[int, list[Failure]]:
    """Run cases start..start+cases-1 of `seed`; return (cases run, failures)."""
    ctx = multiprocessing.get_context("fork")
    starts = seeds()
    failures: list[Failure] = []
    done = 0
    pending = list(range(start, start + cases))
    while pending:
        batch, pending = pending[:BATCH], pending[BATCH:]
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=_worker, args=(child, batch, seed), daemon=True)
        proc.start()
        child.close()
        current = None
        while True:
            if not parent.poll(HANG_S):
                failures.append(_failure(current, seed, starts, "hang", f"no answer in {HANG_S:.0f} s"))
                proc.kill()
                break
            try:
                msg = parent.recv()
            except EOFError:
                proc.join()
                failures.append(_failure(current, seed, starts, "crash", f"worker exit code {proc.exitcode}"))
                break
            if msg[0] == "start":
                current = msg[1]
            elif msg[0] == "done":
                done += 1
                if msg[2] is not None:
                    failures.append(_failure(msg[1], seed, starts, *msg[2]))
                current = None
            else:
                break
        proc.join(5)
        if current is not None:  # the rest of the batch after a crash or hang: run it again
            done += 1
            pending = [i for i in batch if i > current] + pending
    return done, failures


def _failure(index: int | None, seed: int, starts: list, kind: str, detail: str) -> Failure:
    if index is None:
        return Failure(-1, "?", kind, detail, "")
    try:
        origin, text = case(index, seed, starts)
    except Exception:
        origin, text = "?", ""
    return Failure(index, origin, kind, detail, text)
