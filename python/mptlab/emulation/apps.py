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

UDP (`udp-sender`, `udp-receiver`): cbr or poisson datagrams of the flow's payload, paced by
their wire size (payload + 28 B) as the simulator paces them, each carrying its sequence number
and send time, so the receiver measures one-way delay, inter-arrival times,
RFC 3550 jitter and (with the sender's count) loss end to end.
"""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import struct
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


# --- UDP: timestamped datagrams ---------------------------------------------------------------

UDP_HEADER = struct.Struct("!Qd")  # sequence number, send time (CLOCK_MONOTONIC s)


def udp_sender(cfg: dict[str, Any], out: str) -> None:
    """cbr: one datagram of the flow's payload every payload·8/rate s; poisson: exponential gaps
    of that mean, drawn from the flow's seed. Each carries its sequence number and send time."""
    t0 = cfg["t0"]
    state: dict[str, Any] = {"sent": 0, "bytes": 0, "error": None}

    def finish(*_: object) -> None:
        write_json(out, state)
        os._exit(0)

    signal.signal(signal.SIGTERM, finish)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((cfg["src_addr"], 0))
    payload = cfg["payload"]
    pad = bytes(max(0, payload - UDP_HEADER.size))
    app = cfg["app"]
    # As the simulator: over UDP the rate counts wire bytes (payload + 28 B of IPv4/UDP headers).
    mean_gap = (payload + 28) * 8 / app["rate_bps"]
    rng = random.Random(cfg.get("seed", 1))
    stop = cfg["stop_s"] if cfg["stop_s"] is not None else cfg["duration_s"]
    due = cfg["start_s"]
    while due < stop:
        wait = due - now(t0)
        if wait > 0:
            time.sleep(wait)
        try:
            s.sendto(UDP_HEADER.pack(state["sent"], time.monotonic()) + pad, (cfg["dst_addr"], cfg["port"]))
            state["bytes"] += payload
        except OSError as e:  # a full socket buffer or a route gone: the datagram is lost
            state["error"] = str(e)
        state["sent"] += 1
        due += rng.expovariate(1 / mean_gap) if app["kind"] == "poisson" else mean_gap
    finish()


def udp_receiver(cfg: dict[str, Any], out: str) -> None:
    """Bytes per interval, one-way delay, inter-arrival times and RFC 3550 §6.4.1 jitter
    (J += (|D| - J)/16 over consecutive arrivals, S and R the send and arrival times)."""
    t0, interval, duration = cfg["t0"], cfg["interval_s"], cfg["duration_s"]
    bins = [0] * max(1, int(-(-duration // interval)))
    owd: list[float] = []
    gaps: list[float] = []
    jitter: list[float] = []
    seen: set[int] = set()
    state: dict[str, Any] = {"bytes": 0, "bins": bins, "received": 0, "last_byte_s": None, "eof": False}

    def finish(*_: object) -> None:
        state["unique"] = len(seen)
        state["owd_ms"] = quantiles(owd)
        state["interarrival_ms"] = quantiles(gaps)
        j = quantiles(jitter)
        state["jitter_ms"] = None if j is None else {k: j[k] for k in ("mean", "p50", "p95", "max")}
        write_json(out, state)
        os._exit(0)

    signal.signal(signal.SIGTERM, finish)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
    s.bind((cfg["dst_addr"], cfg["port"]))
    prev: tuple[float, float] | None = None
    j = 0.0
    while True:
        data = s.recv(65536)
        r = time.monotonic()
        seq, sent = UDP_HEADER.unpack_from(data)
        t = r - t0
        state["received"] += 1
        state["bytes"] += len(data)
        state["last_byte_s"] = t
        seen.add(seq)
        k = int(t // interval)
        if 0 <= k < len(bins):
            bins[k] += len(data)
        owd.append((r - sent) * 1e3)
        if prev is not None:
            gaps.append((r - prev[0]) * 1e3)
            d = (r - prev[0]) - (sent - prev[1])
            j += (abs(d) * 1e3 - j) / 16
            jitter.append(j)
        prev = (r, sent)


def pct(s: list[float], q: float) -> float:
    """Percentile q of the ascending, non-empty `s`: linear between closest ranks (type 7, as
    the simulator's metrics/stats.rs)."""
    h = (len(s) - 1) * q
    lo = int(h)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (h - lo) * (s[hi] - s[lo])


def quantiles(xs: list[float]) -> dict[str, float] | None:
    """mean, p50, p95, p99 (type 7), max and count of xs, or None when empty."""
    if not xs:
        return None
    s = sorted(xs)
    return {"mean": sum(xs) / len(xs), "p50": pct(s, 0.5), "p95": pct(s, 0.95), "p99": pct(s, 0.99), "max": s[-1],
            "count": len(xs)}


def exec_at(cfg: dict[str, Any], _out: str) -> None:
    """Wait until the flow's start, then become `argv` (mptlab-mpquic's client)."""
    delay = cfg["start_s"] - now(cfg["t0"])
    if delay > 0:
        time.sleep(delay)
    os.execv(cfg["argv"][0], cfg["argv"])


def main(argv: list[str]) -> None:
    role, config, out = argv[1], argv[2], argv[3]
    cfg = json.loads(config)
    roles = {"receiver": receiver, "sender": sender, "udp-receiver": udp_receiver, "udp-sender": udp_sender,
             "exec-at": exec_at}
    roles[role](cfg, out)


if __name__ == "__main__":
    main(sys.argv)
