"""Shared helpers for the Python tests. They exercise the real extension module
(`mptlab._core`, built by `make setup`), never a stand-in."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
QUICKSTART = REPO / "scenarios" / "quickstart.toml"
BROKEN_DIR = REPO / "tests" / "scenarios" / "broken"

OUTPUT_FILES = ("summary.json", "run.json", "timeseries.parquet", "goodput.png", "queue_delay.png")


def mptlab(*args: str, cwd: Path | None = None, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """Run the `mptlab` command line in a fresh interpreter (same venv as the tests)."""
    return subprocess.run(
        [sys.executable, "-m", "mptlab", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd or REPO,
        timeout=timeout,
    )


def read_summary(folder: Path) -> dict:
    return json.loads((folder / "summary.json").read_text())


@pytest.fixture(scope="session")
def quickstart_result():
    """One in-process run of the quickstart scenario (seed 1), shared by the API tests."""
    import mptlab

    return mptlab.run(QUICKSTART, seed=1)
