"""Validation before anything runs (DESIGN.md, "Scenario files"): every broken scenario stops
with exit code 2 and one message naming the key path and the reason; nothing is written.

Each file in tests/scenarios/broken/ begins with `# expect: <key path> | <word>`.
"""

from __future__ import annotations

import pytest

from conftest import BROKEN_DIR, QUICKSTART, mptlab

BROKEN = sorted(BROKEN_DIR.glob("*.toml"))


def expectation(path):
    first = path.read_text().splitlines()[0]
    assert first.startswith("# expect:"), f"{path.name}: first line must be '# expect: <key> | <word>'"
    key, word = (part.strip() for part in first.split(":", 1)[1].split("|", 1))
    return key, word


def test_there_are_broken_scenarios():
    assert BROKEN, f"no scenarios in {BROKEN_DIR}"


@pytest.mark.parametrize("path", BROKEN, ids=lambda p: p.stem)
def test_check_rejects_broken_scenario(path):
    key, word = expectation(path)
    r = mptlab("check", path)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert r.stderr.startswith("error: ")
    assert key in r.stderr and word.lower() in r.stderr.lower(), r.stderr
    assert r.stdout == ""


@pytest.mark.parametrize("path", BROKEN, ids=lambda p: p.stem)
def test_run_of_broken_scenario_writes_nothing(path, tmp_path):
    key, word = expectation(path)
    out = tmp_path / "x"
    r = mptlab("run", path, "--out", out)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert key in r.stderr and word.lower() in r.stderr.lower(), r.stderr
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


def test_unreadable_scenario_file_is_exit_2(tmp_path):
    r = mptlab("run", tmp_path / "missing.toml", "--out", tmp_path / "x")
    assert r.returncode == 2
    assert r.stderr.startswith("error: ") and "missing.toml" in r.stderr
    assert not (tmp_path / "x").exists()


def test_malformed_set_is_exit_2(tmp_path):
    r = mptlab("run", QUICKSTART, "--set", "no-equals-sign", "--out", tmp_path / "x")
    assert r.returncode == 2
    assert r.stderr.startswith("error: ") and "KEY=VALUE" in r.stderr
    assert not (tmp_path / "x").exists()


def test_bad_override_value_is_exit_2_and_names_the_key(tmp_path):
    r = mptlab("run", QUICKSTART, "--set", "flows.bulk.cc=no-such-cc", "--out", tmp_path / "x")
    assert r.returncode == 2
    assert "flows.bulk.cc" in r.stderr and "newreno" in r.stderr
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("source", ["/dev/zero", "file"])
def test_oversized_scenario_input_is_exit_2_without_reading_it_all(source, tmp_path):
    # docs/scenarios.md "Limits": 16 MiB. /dev/zero once read until the OOM killer stopped it.
    from mptlab.source import MAX_SCENARIO_BYTES

    path = source
    if source == "file":
        path = tmp_path / "big.toml"
        path.write_text("# " + "x" * MAX_SCENARIO_BYTES + "\n")
    out = tmp_path / "x"
    r = mptlab("run", path, "--out", out, timeout=60)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert r.stderr.startswith("error: ") and "16 MiB" in r.stderr and r.stderr.count("\n") == 1
    assert not out.exists()


def test_a_scenario_of_exactly_the_size_limit_is_read(tmp_path):
    from mptlab.source import MAX_SCENARIO_BYTES, load

    text = QUICKSTART.read_text()
    path = tmp_path / "padded.toml"
    path.write_text(text + "#" * (MAX_SCENARIO_BYTES - len(text.encode()) - 1) + "\n")
    assert len(load(path).text.encode()) == MAX_SCENARIO_BYTES
