"""The traffic programs of an emulated run: a receiver and a sender per flow, run inside the
flow's end namespaces on the kernel's TCP or MPTCP (`IPPROTO_MPTCP`).

Run as a script (`python apps.py receiver|sender CONFIG_JSON OUT_JSON`), standard library only,
so a process starts in tens of milliseconds and does not load the simulator. Both ends share the
host's CLOCK_MONOTONIC (network namespaces do not change it), so times are written as seconds
since the run's start `t0`, a monotonic instant the controller chose.

Applications, as the simulator's (docs/scenarios.md `app`):
- bulk: write as fast as the socket takes data until the flow's stop time;
- cbr: `write_size` bytes every `write_size·8/rate_bps` seconds (a late write is sent at once,
  the schedule does not drift);
- file: `size` bytes, then close; the receiver notes when the last byte arrived.
The receiver counts bytes delivered by `recv` per interval of the run (its goodput) and writes
its JSON when the sender closes or when it gets SIGTERM.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
import time
from typing import Any

CHUNK = 1 << 16
TCP_CONGESTION = getattr(socket, "TCP_CONGESTION", 13)
IPPROTO_MPTCP = getattr(socket, "IPPROTO_MPTCP", 262)


def now(t0: float) -> float:
    return time.monotonic() - t0


def write_json(path: str, data: dict[str, Any]) -> None:
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(data, f)
    os.replace(tmp, path)


def new_socket(cfg: dict[str, Any]) -> socket.socket:
    proto = IPPROTO_MPTCP if cfg["protocol"] == "mptcp" else socket.IPPROTO_TCP
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, proto)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    return s


def receiver(cfg: dict[str, Any], out: str) -> None:
    t0, interval, duration = cfg["t0"], cfg["interval_s"], cfg["duration_s"]
    bins = [0] * max(1, int(-(-duration // interval)))
    state: dict[str, Any] = {"bytes": 0, "bins": bins, "accepted_s": None, "first_byte_s": None,
                             "last_byte_s": None, "eof": False}

    def finish(*_: object) -> None:
        write_json(out, state)
        os._exit(0)

    signal.signal(signal.SIGTERM, finish)
    srv = new_socket(cfg)
    srv.bind((cfg["dst_addr"], cfg["port"]))
    srv.listen(1)
    conn, _ = srv.accept()
    state["accepted_s"] = now(t0)
    buf = bytearray(CHUNK)
    while True:
        n = conn.recv_into(buf)
        t = now(t0)
        if n == 0:
            break
        if state["first_byte_s"] is None:
            state["first_byte_s"] = t
        state["bytes"] += n
        state["last_byte_s"] = t
        k = int(t // interval)
        if 0 <= k < len(bins):
            bins[k] += n
    state["eof"] = True
    finish()


def sender(cfg: dict[str, Any], out: str) -> None:
    t0 = cfg["t0"]
    state: dict[str, Any] = {"connected_s": None, "bytes_written": 0, "done_s": None, "error": None}

    def finish(*_: object) -> None:
        write_json(out, state)
        os._exit(0)

    signal.signal(signal.SIGTERM, finish)
    s = new_socket(cfg)
    if cfg.get("cc"):
        s.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, cfg["cc"].encode())
    s.bind((cfg["src_addr"], 0))
    delay = cfg["start_s"] - now(t0)
    if delay > 0:
        time.sleep(delay)
    try:
        s.connect((cfg["dst_addr"], cfg["port"]))
    except OSError as e:
        state["error"] = f"connect: {e}"
        finish()
    state["connected_s"] = now(t0)
    stop = cfg["stop_s"] if cfg["stop_s"] is not None else cfg["duration_s"]
    app = cfg["app"]
    try:
        if app["kind"] == "file":
            _send_file(s, app["size"], state)
        elif app["kind"] == "cbr":
            _send_cbr(s, app["rate_bps"], app["write_size"], cfg["start_s"], stop, t0, state)
        else:
            _send_bulk(s, stop, t0, state)
        s.shutdown(socket.SHUT_WR)
        state["done_s"] = now(t0)
        s.settimeout(max(1.0, cfg["duration_s"] - now(t0) + 1.0))
        while s.recv(CHUNK):  # wait for the receiver's close
            pass
    except OSError as e:
        state["error"] = f"send: {e}"
    finish()


def _send_file(s: socket.socket, size: int, state: dict[str, Any]) -> None:
    data = bytes(CHUNK)
    left = size
    while left > 0:
        n = s.send(memoryview(data)[: min(CHUNK, left)])
        left -= n
        state["bytes_written"] += n


def _send_bulk(s: socket.socket, stop: float, t0: float, state: dict[str, Any]) -> None:
    data = bytes(CHUNK)
    s.settimeout(0.05)
    while now(t0) < stop:
        try:
            state["bytes_written"] += s.send(data)
        except TimeoutError:
            continue


def _send_cbr(s: socket.socket, rate_bps: int, size: int, start: float, stop: float, t0: float,
              state: dict[str, Any]) -> None:
    data = bytes(size)
    gap = size * 8 / rate_bps
    k = 0
    while True:
        due = start + k * gap
        if due >= stop:
            return
        wait = due - now(t0)
        if wait > 0:
            time.sleep(wait)
        s.sendall(data)
        state["bytes_written"] += size
        k += 1


def exec_at(cfg: dict[str, Any], _out: str) -> None:
    """Wait until the flow's start, then become `argv` (mptlab-mpquic's client)."""
    delay = cfg["start_s"] - now(cfg["t0"])
    if delay > 0:
        time.sleep(delay)
    os.execv(cfg["argv"][0], cfg["argv"])


def main(argv: list[str]) -> None:
    role, config, out = argv[1], argv[2], argv[3]
    cfg = json.loads(config)
    {"receiver": receiver, "sender": sender, "exec-at": exec_at}[role](cfg, out)


if __name__ == "__main__":
    main(sys.argv)
