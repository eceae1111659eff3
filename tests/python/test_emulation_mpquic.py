"""Real multipath QUIC for the emulation backend (issue 24, item 2): the `mptlab-mpquic` binary
(crates/mptlab-mpquic, on the tquic 1.6.0 crate) run on loopback, where 127.0.0.1 and 127.0.0.2
both live on `lo`, so a client with those two local addresses opens two real paths.

The binary is built here if needed (its first build compiles BoringSSL through tquic's build
script). A build failure fails the test unless MPTLAB_SKIP_MPQUIC=1 is set, in which case the
tests skip and say why."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from conftest import REPO

CRATE = REPO / "crates" / "mptlab-mpquic"
BINARY = CRATE / "target" / "release" / "mptlab-mpquic"
SIZE = 8 * 1024 * 1024
# Generous bounds for a loopback transfer on a shared 2-core machine; they only stop a hung run.
RUN_TIMEOUT = 120.0


@pytest.fixture(scope="module")
def binary() -> Path:
    """The release binary, (re)built with cargo; cargo is a no-op when it is up to date."""
    cargo = shutil.which("cargo")
    if cargo is None and BINARY.exists():
        return BINARY
    reason = ""
    if cargo is None:
        reason = "cargo not found on PATH"
    else:
        r = subprocess.run(
            [cargo, "build", "--release", "--manifest-path", str(CRATE / "Cargo.toml")],
            capture_output=True,
            text=True,
            timeout=3600,
        )
        if r.returncode != 0:
            reason = f"cargo build of {CRATE.name} failed (exit {r.returncode}):\n{r.stderr[-3000:]}"
    if reason:
        if os.environ.get("MPTLAB_SKIP_MPQUIC") == "1":
            pytest.skip(f"MPTLAB_SKIP_MPQUIC=1: {reason}")
        pytest.fail(reason)
    return BINARY


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def client_argv(binary: Path, port: int) -> list[str | Path]:
    """A client with two paths: from 127.0.0.1 (the first, handshake path) and from 127.0.0.2."""
    return [binary, "client", "--local", "127.0.0.1", "--local", "127.0.0.2", "--remote", f"127.0.0.1:{port}"]


def stop(proc: subprocess.Popen[str]) -> None:
    """End a process this test started, if it still runs."""
    if proc.poll() is None:
        proc.kill()
        proc.wait(timeout=10)


def wait_for_file(path: Path, proc: subprocess.Popen[str]) -> None:
    """The server writes its (empty) report once its sockets are bound: wait for that."""
    deadline = time.monotonic() + 30
    while not path.exists():
        assert proc.poll() is None, f"server exited early: {proc.communicate()}"
        assert time.monotonic() < deadline, "server never wrote its report"
        time.sleep(0.02)


def test_two_loopback_paths_carry_8_mb_exactly(binary: Path, tmp_path: Path) -> None:
    port = free_udp_port()
    s_out, c_out = tmp_path / "server.json", tmp_path / "client.json"
    server_argv = [binary, "server", "--listen", f"127.0.0.1:{port}", "--out", s_out, "--once"]
    server = subprocess.Popen(server_argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for_file(s_out, server)
        client = subprocess.run(
            [*client_argv(binary, port), "--scheduler", "minrtt", "--cc", "cubic", "--bytes", str(SIZE)]
            + ["--out", str(c_out)],
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
        )
        assert client.returncode == 0, client.stderr
        assert server.wait(timeout=RUN_TIMEOUT) == 0
    finally:
        stop(server)
    s = json.loads(s_out.read_text())
    c = json.loads(c_out.read_text())

    # The receiving application got exactly the bytes sent, confirmed by the server's close (code 0).
    assert s["total_bytes"] == SIZE
    assert c["bytes_written"] == SIZE and c["delivered"] is True
    assert c["close"]["peer_error"] == {"is_app": True, "code": 0, "reason": "done"}
    (conn,) = s["connections"]
    assert conn["fin_received"] is True and conn["bytes"] == SIZE
    assert sum(s["interval_bytes"]) == SIZE

    # Both paths exist, were validated and carried data, on both sides. Wire bytes include QUIC
    # headers and AEAD tags, so the paths together carry strictly more than the payload.
    server_paths = {p["remote"].split(":")[0]: p for p in conn["paths"]}
    assert set(server_paths) == {"127.0.0.1", "127.0.0.2"}
    for p in server_paths.values():
        assert p["validated"] and p["recv_bytes"] > 0 and p["local"] == f"127.0.0.1:{port}"
    assert sum(p["recv_bytes"] for p in server_paths.values()) > SIZE
    client_paths = {p["local"].split(":")[0]: p for p in c["paths"]}
    assert set(client_paths) == {"127.0.0.1", "127.0.0.2"}
    assert all(p["sent_bytes"] > 0 and p["srtt_us"] > 0 and p["cwnd_bytes"] > 0 for p in client_paths.values())
    assert [a["result"] for a in c["added_paths"]] == ["path 1"]
    assert (c["scheduler"], c["cc"], c["tquic_version"]) == ("minrtt", "cubic", "1.6.0")

    # One clock (CLOCK_MONOTONIC) on both sides: the events are in causal order.
    assert c["start_mono"] <= conn["created_mono"] <= conn["established_mono"] <= conn["first_byte_mono"]
    assert conn["first_byte_mono"] <= conn["last_byte_mono"] <= c["closed_mono"]
    assert c["established_mono"] <= c["fin_sent_mono"] <= conn["last_byte_mono"]


def test_sigterm_writes_both_reports_mid_transfer(binary: Path, tmp_path: Path) -> None:
    port = free_udp_port()
    s_out, c_out = tmp_path / "server.json", tmp_path / "client.json"
    server_argv = [binary, "server", "--listen", f"127.0.0.1:{port}", "--out", s_out, "--interval-ms", "100"]
    server = subprocess.Popen(server_argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    client = None
    try:
        wait_for_file(s_out, server)
        client = subprocess.Popen(
            [*client_argv(binary, port), "--scheduler", "roundrobin", "--cc", "bbr", "--duration-ms", "60000"]
            + ["--out", str(c_out)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        # Let data flow for a second (the client would send for 60 s), then stop both with SIGTERM.
        time.sleep(1.0)
        assert client.poll() is None, client.communicate()
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=RUN_TIMEOUT) == 0
        client.send_signal(signal.SIGTERM)
        # Interrupted before the server confirmed delivery: exit 1, report still written.
        assert client.wait(timeout=RUN_TIMEOUT) == 1
    finally:
        stop(server)
        if client is not None:
            stop(client)
    s = json.loads(s_out.read_text())
    c = json.loads(c_out.read_text())
    (conn,) = s["connections"]
    assert conn["closed_mono"] is None and conn["fin_received"] is False
    assert s["total_bytes"] == conn["bytes"] > 0 and sum(conn["interval_bytes"]) == conn["bytes"]
    assert len(conn["paths"]) == 2 and all(p["recv_bytes"] > 0 for p in conn["paths"])
    assert c["delivered"] is False and c["fin_sent_mono"] is None and c["bytes_written"] >= s["total_bytes"]
    assert len(c["paths"]) == 2


BASE = ["client", "--local", "127.0.0.1", "--remote", "127.0.0.1:9", "--out", "x.json"]


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (BASE + ["--scheduler", "blest", "--cc", "cubic", "--bytes", "1"], '"blest" is not one tquic 1.6.0 has'),
        (BASE + ["--scheduler", "minrtt", "--cc", "reno", "--bytes", "1"], "known: cubic, bbr, bbr3, copa, dummy"),
        (BASE + ["--scheduler", "minrtt", "--cc", "cubic"], "exactly one of --bytes N and --duration-ms N"),
        (["server", "--listen", "0.0.0.0:9", "--out", "x.json"], "must be a specific address"),
        (["proxy"], "unknown mode"),
    ],
)
def test_bad_arguments_exit_2_with_the_reason(binary: Path, tmp_path: Path, argv: list[str], needle: str) -> None:
    r = subprocess.run([binary, *argv], capture_output=True, text=True, cwd=tmp_path, timeout=30)
    assert r.returncode == 2
    assert needle in r.stderr
    assert not (tmp_path / "x.json").exists()
