"""The command line's help is current: it announces no feature as still to come, names only
what the engine has, lists every command, workload and study, and points at docs that exist."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from conftest import REPO, mptlab

#: Phrases that announce something as unfinished; the help describes what exists.
UNFINISHED = ("being built", "not yet", "coming soon", "planned", "work in progress", "todo")


def _commands() -> list[tuple[str, ...]]:
    """Every command path of `mptlab` (("run",), ("learn", "blp-threshold"), ...), from the
    typer app itself, so a new command is checked without editing this test."""
    import typer

    from mptlab.cli import app

    out: list[tuple[str, ...]] = []

    def walk(group: Any, prefix: tuple[str, ...]) -> None:
        # typer carries its own copy of click: a group is a command with subcommands.
        for name, cmd in group.commands.items():
            if cmd.hidden:
                continue
            out.append((*prefix, name))
            if getattr(cmd, "commands", None):
                walk(cmd, (*prefix, name))

    walk(typer.main.get_command(app), ())
    return out


@pytest.fixture(autouse=True)
def wide_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    # rich wraps the help at the terminal width; a wide one keeps names on one line.
    monkeypatch.setenv("COLUMNS", "200")


def _help(*command: str) -> str:
    r = mptlab(*command, "--help")
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_top_level_help_announces_nothing_unfinished_and_names_only_what_exists():
    text = _help()
    lowered = text.lower()
    assert not [p for p in UNFINISHED if p in lowered], text
    reg = json.loads(mptlab("list", "--json").stdout)
    scenario = reg["scenario"]
    ccs = {c["name"] for c in reg["congestion_controllers"]}
    ccs |= {a for c in reg["congestion_controllers"] for a in c.get("aliases") or []}
    # Each feature the help names, and the registry entry that makes it exist.
    named = {
        "Reno": "reno" in ccs,
        "NewReno": "newreno" in ccs,
        "CUBIC": "cubic" in ccs,
        "BBR v1": "bbr" in ccs,
        "BBRv3": "bbr3" in ccs,
        "Vegas": "vegas" in ccs,
        "LIA": "lia" in ccs,
        "OLIA": "olia" in ccs,
        "BALIA": "balia" in ccs,
        "wVegas": "wvegas" in ccs,
        "UDP": "udp" in scenario["protocols"]["names"],
        "MPTCP": "mptcp" in scenario["protocols"]["names"],
        "multipath QUIC": "mpquic" in scenario["protocols"]["names"],
        "multipath schedulers": len(reg["schedulers"]) > 1,
        "drop-tail": "droptail" in scenario["queues"]["kinds"],
        "CoDel": "codel" in scenario["queues"]["kinds"],
        "bursty loss": "gilbert_elliott" in scenario["loss_models"]["kinds"],
        "time-varying capacity": {"lte", "trace"} <= set(scenario["capacity_models"]["kinds"]),
    }
    flat = " ".join(text.split())
    for phrase, exists in named.items():
        assert phrase in flat, f"the top-level help no longer names {phrase!r}: update this test"
        assert exists, f"the top-level help names {phrase!r}, which the registry does not have"


def test_top_level_help_starts_every_command():
    text = _help()
    start = text[text.index("Start here"):]
    missing = [c[0] for c in _commands() if len(c) == 1 and f"mptlab {c[0]}" not in start]
    assert not missing, f"'Start here' shows no example of: {', '.join(missing)}"


def test_every_command_help_has_examples_and_names_existing_docs():
    commands = _commands()
    assert ("learn", "blp-threshold") in commands and ("reproduce",) in commands
    for command in commands:
        text = _help(*command)
        lowered = text.lower()
        assert not [p for p in UNFINISHED if p in lowered], (command, text)
        if command != ("learn",):  # a group: its subcommand has the examples
            assert "Examples:" in text, command
        for doc in set(re.findall(r"docs/[\w.-]+\.md", text)):
            assert (REPO / doc).is_file(), f"mptlab {' '.join(command)} --help names {doc}, which does not exist"


def test_bench_help_lists_every_workload_with_its_description():
    from mptlab.bench import WORKLOADS

    flat = " ".join(_help("bench").split())
    assert "W4" in WORKLOADS
    for w in WORKLOADS.values():
        assert f"{w.name} {w.about}" in flat, w.name


def test_reproduce_help_names_every_study():
    from mptlab.reproduce import STUDIES

    flat = " ".join(_help("reproduce").split())
    listed = flat[flat.index("The study to reproduce:"):].split(".")[0]
    for name in STUDIES:
        assert name in listed, f"STUDY's help does not list {name}"
        assert f"{name} (" in flat, f"the epilog does not describe {name}"
