"""The scenario fuzzer in `make test` (issue 18): a fixed seed and a few hundred cases, each
either refused with one line or built, run for a moment and summarised, never a panic, abort,
other exception or hang (tests/python/scenario_fuzz.py says how). More, elsewhere:

    MPTLAB_FUZZ_CASES=100000 MPTLAB_FUZZ_SEED=7 .venv/bin/python -m pytest -q tests/python/test_scenario_fuzz.py

A failure prints the case and writes it to $MPTLAB_FUZZ_OUT (default: the test's tmp folder);
make it a named file in tests/scenarios/broken/ (with its `# expect:` line) once fixed.
"""

from __future__ import annotations

import os
from pathlib import Path

import scenario_fuzz as fuzz

from conftest import mptlab

CASES = int(os.environ.get("MPTLAB_FUZZ_CASES", "300"))
SEED = int(os.environ.get("MPTLAB_FUZZ_SEED", "1"))


def test_random_scenarios_are_refused_in_one_line_or_run(tmp_path):
    done, failures = fuzz.run(CASES, seed=SEED)
    out = Path(os.environ.get("MPTLAB_FUZZ_OUT", tmp_path))
    for f in failures:
        (out / f"fuzz-{SEED}-{f.index}-{f.kind}.toml").write_text(f"# {f.origin}: {f.kind}: {f.detail}\n{f.text}")
    assert done == CASES
    assert not failures, "\n".join(f"case {f.index} ({f.origin}) {f.kind}: {f.detail}" for f in failures[:20])


def test_refused_cases_are_one_line_and_exit_2_on_the_command_line(tmp_path):
    # The same property through `mptlab run` for the first refused cases: exit 2, one line on
    # stderr, nothing written.
    starts = fuzz.seeds()
    from mptlab import _core

    checked = 0
    for i in range(1000):
        if checked == 8:
            break
        origin, text = fuzz.case(i, SEED, starts)
        try:
            _core.check(text)
            continue
        except _core.ScenarioError:
            pass
        path = tmp_path / f"case{i}.toml"
        path.write_text(text)
        out = tmp_path / f"out{i}"
        r = mptlab("run", path, "--out", out, timeout=120)
        assert r.returncode == 2, (origin, r.stderr)
        assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1, (origin, r.stderr)
        assert r.stdout == "" and not out.exists()
        checked += 1
    assert checked == 8
