"""The `mptlab` command re-executes itself once with glibc's transparent-huge-page tunable
before a command that simulates (mptlab.hugepages)."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import QUICKSTART, REPO

from mptlab import hugepages
from mptlab.hugepages import TUNABLE, with_hugepages


def test_the_tunable_is_added_to_an_environment_without_it():
    env = with_hugepages({"PATH": "/bin"}, libc="glibc")
    assert env == {"PATH": "/bin", "GLIBC_TUNABLES": TUNABLE}


def test_a_users_other_tunables_are_kept():
    env = with_hugepages({"GLIBC_TUNABLES": "glibc.malloc.arena_max=2"}, libc="glibc")
    assert env is not None and env["GLIBC_TUNABLES"] == f"glibc.malloc.arena_max=2:{TUNABLE}"


@pytest.mark.parametrize(
    "env, libc",
    [
        ({"MPTLAB_HUGEPAGES": "0"}, "glibc"),  # opted out
        ({"GLIBC_TUNABLES": "glibc.malloc.hugetlb=0"}, "glibc"),  # the user's own choice
        ({"GLIBC_TUNABLES": TUNABLE}, "glibc"),  # set already: no second re-execution
        ({}, "musl"),  # another C library ignores glibc's tunables
        ({}, ""),
    ],
)
def test_nothing_to_do(env, libc):
    assert with_hugepages(env, libc=libc) is None


def _reexec(monkeypatch, argv, environ):
    """The arguments `reexec_with_hugepages(argv)` passes to os.execve (None: it returned)."""
    calls = []
    monkeypatch.setattr(os, "execve", lambda *a: calls.append(a))
    monkeypatch.setattr(os, "environ", environ)
    monkeypatch.setattr(platform, "libc_ver", lambda *a, **k: ("glibc", "2.36"))
    monkeypatch.setattr(sys, "platform", "linux")
    hugepages.reexec_with_hugepages(argv)
    return calls[0] if calls else None


@pytest.mark.parametrize("command", sorted(hugepages.SIMULATING))
def test_a_command_that_simulates_reexecutes_with_the_same_arguments(monkeypatch, command):
    call = _reexec(monkeypatch, ["/venv/bin/mptlab", command, "a.toml", "--seed", "3"], {"HOME": "/root"})
    assert call is not None
    exe, argv, env = call
    assert exe == sys.executable
    assert argv == [sys.executable, "-m", "mptlab", command, "a.toml", "--seed", "3"]
    assert env == {"HOME": "/root", "GLIBC_TUNABLES": TUNABLE}


@pytest.mark.parametrize("argv", [["mptlab"], ["mptlab", "check", "a.toml"], ["mptlab", "--version"], ["mptlab", "report", "x"]])
def test_other_commands_start_no_second_process(monkeypatch, argv):
    assert _reexec(monkeypatch, argv, {"HOME": "/root"}) is None


def test_an_environment_with_the_tunable_is_not_reexecuted(monkeypatch):
    assert _reexec(monkeypatch, ["mptlab", "run", "a.toml"], {"GLIBC_TUNABLES": TUNABLE}) is None


# Where mptlab re-executes at all (glibc on Linux), and /proc shows a process's environment.
REEXECUTES = platform.libc_ver()[0] == "glibc" and Path("/proc/self/environ").exists()


@pytest.mark.skipif(not REEXECUTES, reason="mptlab re-executes only on Linux with glibc")
def test_mptlab_run_runs_with_the_tunable_and_the_same_process_id(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("GLIBC_TUNABLES", "MPTLAB_HUGEPAGES")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "mptlab", "run", str(QUICKSTART), "--out", str(tmp_path / "r"), "--set", "run.duration=60s", "--quiet", "--no-plots"],
        cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    seen = b""
    deadline = time.monotonic() + 60
    # execve keeps the process id: its environment shows the tunable once it has re-executed.
    while proc.poll() is None and time.monotonic() < deadline and b"glibc.malloc.hugetlb" not in seen:
        try:
            seen = Path(f"/proc/{proc.pid}/environ").read_bytes()
        except OSError:
            pass
        time.sleep(0.02)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert b"GLIBC_TUNABLES=" + TUNABLE.encode() in seen.split(b"\0")


@pytest.mark.parametrize("tunables, expected", [(TUNABLE, True), ("", False)])
def test_the_bench_worker_says_whether_its_heap_had_huge_pages(tunables, expected):
    env = {k: v for k, v in os.environ.items() if k != "GLIBC_TUNABLES"}
    if tunables:
        env["GLIBC_TUNABLES"] = tunables
    r = subprocess.run(
        [sys.executable, "-m", "mptlab._benchworker", str(QUICKSTART), "--set", "run.duration=1s"],
        capture_output=True, text=True, cwd=REPO, env=env, timeout=300,
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["hugepages"] is expected
