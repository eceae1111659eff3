"""Issue 24: the user-space link emulator (`crates/mptlab-linkemu`) on real interfaces.

Three namespaces A, L, B: `A:a0 --veth-- L:la  [mptlab-linkemu]  L:lb --veth-- B:b0`, addresses
10.77.0.1/24 (a0) and 10.77.0.2/24 (b0), L has none. Every veth end has its offloads off (TSO,
GSO, GRO and checksum: with them on, frames cross the raw socket as 64 KB aggregates or with
partial checksums). IPv6 is off and the neighbours are static in all three namespaces, so the only
frames crossing L are the test's own and the emulator's counters can be compared exactly.
The namespaces are named `mlh-linkemu-*-<pid>` and deleted whatever happens; the emulator is
stopped by its PID with SIGTERM, which must leave its stats file behind.

Needs root and `ip netns` (skipped otherwise); builds the emulator with cargo if needed. Run alone:

    .venv/bin/python -m pytest -q tests/python/test_emulation_linkemu.py
"""

from __future__ import annotations

import json
import math
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
BINARY = REPO / "target" / "release" / "mptlab-linkemu"
A_IP, B_IP = "10.77.0.1", "10.77.0.2"
# A lone 98-byte frame (ping -s 56: 56 + 8 ICMP + 20 IP + 14 Ethernet) at 10 Mbit/s.
SERIALISATION_MS = 98 * 8 / 10e6 * 1e3  # 0.0784 ms


def _run(*cmd: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, check=check, timeout=60)


def _netns_usable() -> str | None:
    """Why namespaces cannot be used here, or None when they can."""
    if os.geteuid() != 0:
        return "needs root (network namespaces, raw sockets)"
    if shutil.which("ip") is None:
        return "the `ip` command is missing"
    probe = f"mlh-linkemu-probe-{os.getpid()}"
    r = _run("ip", "netns", "add", probe, check=False)
    if r.returncode != 0:
        return f"`ip netns add` fails: {r.stderr.strip()}"
    _run("ip", "netns", "del", probe, check=False)
    return None


@pytest.fixture(scope="module")
def linkemu() -> Path:
    reason = _netns_usable()
    if reason:
        pytest.skip(reason)
    for tool in ("tc", "ethtool"):
        if shutil.which(tool) is None:
            pytest.fail(f"`{tool}` is missing: the emulation needs it")
    if shutil.which("cargo") is not None:
        subprocess.run(["cargo", "build", "--release", "-p", "mptlab-linkemu"], cwd=REPO, check=True, timeout=1200)
    elif not BINARY.exists():
        pytest.fail(f"neither cargo nor a built {BINARY.relative_to(REPO)}")
    return BINARY


@dataclass
class Emulator:
    proc: subprocess.Popen[str]
    stats: Path

    def stop(self) -> dict[str, Any]:
        """SIGTERM by PID; the exit must write the stats file (removed just before the signal;
        the periodic writes are a second apart, and the one that announced readiness just happened)."""
        self.stats.unlink(missing_ok=True)
        self.proc.send_signal(signal.SIGTERM)
        _, err = self.proc.communicate(timeout=10)
        assert self.proc.returncode == 0, err
        # No warning either (SCHED_FIFO refused, a send or receive error).
        assert err == "", err
        assert self.stats.exists(), "no stats file written on SIGTERM"
        return json.loads(self.stats.read_text())


@dataclass
class Link:
    """The three namespaces and their veths; `ns["a"]`, `ns["l"]`, `ns["b"]` are their names."""

    ns: dict[str, str]
    tmp: Path
    running: list[Emulator] = field(default_factory=list)

    def exec(self, node: str, *cmd: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return _run("ip", "netns", "exec", self.ns[node], *cmd, check=check)

    def python(self, node: str, code: str, *args: str, timeout: float = 60) -> Any:
        """Run `code` with this interpreter inside a namespace; it prints one JSON value."""
        r = subprocess.run(
            ["ip", "netns", "exec", self.ns[node], sys.executable, "-c", code, *args],
            capture_output=True, text=True, timeout=timeout,
        )
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout)

    def start(self, binary: Path, *args: str) -> Emulator:
        stats = self.tmp / f"stats-{len(self.running)}.json"
        proc = subprocess.Popen(
            ["ip", "netns", "exec", self.ns["l"], str(binary), "--if-a", "la", "--if-b", "lb", "--stats", str(stats),
             *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # `ip netns exec` execs the program: proc.pid is the emulator's PID
        emu = Emulator(proc, stats)
        self.running.append(emu)
        # The first stats file is written a second after both sockets are bound: ready.
        deadline = time.monotonic() + 10
        while not stats.exists():
            assert proc.poll() is None, proc.communicate()[1]
            assert time.monotonic() < deadline, "the emulator wrote no stats within 10 s"
            time.sleep(0.05)
        return emu


def _mac(link: Link, node: str, dev: str) -> str:
    return json.loads(link.exec(node, "ip", "-j", "link", "show", dev).stdout)[0]["address"]


@pytest.fixture()
def link(tmp_path: Path) -> Iterator[Link]:
    """A–L–B with tbf 10 Mbit/s (burst 3028 B, 50 ms of queue) on L's two egress veths."""
    tag = os.getpid()
    ns = {n: f"mlh-linkemu-{n}-{tag}" for n in ("a", "l", "b")}
    lk = Link(ns, tmp_path)
    try:
        for node, name in ns.items():
            _run("ip", "netns", "add", name)
            # Before any interface exists in it, so the veths are created without IPv6.
            lk.exec(node, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1")
        _run("ip", "-n", ns["a"], "link", "add", "a0", "type", "veth", "peer", "name", "la", "netns", ns["l"])
        _run("ip", "-n", ns["b"], "link", "add", "b0", "type", "veth", "peer", "name", "lb", "netns", ns["l"])
        for node, dev in (("a", "a0"), ("l", "la"), ("l", "lb"), ("b", "b0")):
            lk.exec(node, "ethtool", "-K", dev, "tso", "off", "gso", "off", "gro", "off", "tx", "off", "rx", "off")
            lk.exec(node, "ip", "link", "set", dev, "up")
        lk.exec("a", "ip", "addr", "add", f"{A_IP}/24", "dev", "a0")
        lk.exec("b", "ip", "addr", "add", f"{B_IP}/24", "dev", "b0")
        lk.exec("a", "ip", "neigh", "replace", B_IP, "lladdr", _mac(lk, "b", "b0"), "dev", "a0", "nud", "permanent")
        lk.exec("b", "ip", "neigh", "replace", A_IP, "lladdr", _mac(lk, "a", "a0"), "dev", "b0", "nud", "permanent")
        for dev in ("la", "lb"):
            lk.exec("l", "tc", "qdisc", "add", "dev", dev, "root", "tbf", "rate", "10mbit", "burst", "3028",
                    "latency", "50ms")
        yield lk
    finally:
        for emu in lk.running:
            if emu.proc.poll() is None:
                emu.proc.kill()
                emu.proc.wait(timeout=10)
        for name in ns.values():
            _run("ip", "netns", "del", name, check=False)
        left = _run("ip", "netns", "list").stdout
        assert not any(name in left for name in ns.values()), left


# ICMP echo from inside a namespace (this machine has no `ping`): like `ping -c N -i I -s S`,
# with the reply's kernel receive timestamp (SO_TIMESTAMPNS, CLOCK_REALTIME) against the
# realtime clock read just before the request is sent. Prints the RTTs in ms.
PING = r"""
import json, os, select, socket, struct, sys, time
dst, count, interval, size = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
SO_TIMESTAMPNS = 35
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
ident = os.getpid() & 0xFFFF
def csum(b):
    t = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    t = (t >> 16) + (t & 0xFFFF)
    return ~(t + (t >> 16)) & 0xFFFF
sent, rtts, seq = {}, {}, 0
next_send = time.monotonic()
deadline = None
while len(rtts) < count and not (deadline and time.monotonic() > deadline):
    if seq < count and time.monotonic() >= next_send:
        body = bytes(range(size))
        pkt = struct.pack("!BBHHH", 8, 0, csum(struct.pack("!BBHHH", 8, 0, 0, ident, seq) + body), ident, seq) + body
        sent[seq] = time.time_ns()
        s.sendto(pkt, (dst, 0))
        seq += 1
        next_send += interval
        if seq == count:
            deadline = time.monotonic() + 3.0
    wait = (next_send if seq < count else deadline) - time.monotonic()
    if select.select([s], [], [], max(0.0, wait))[0]:
        data, anc, _, _ = s.recvmsg(4096, 256)
        stamps = [struct.unpack("qq", d[:16]) for lv, ty, d in anc if lv == socket.SOL_SOCKET and ty == SO_TIMESTAMPNS]
        t = stamps[0][0] * 10**9 + stamps[0][1] if stamps else time.time_ns()
        ihl = (data[0] & 0xF) * 4
        kind, _, _, rid, rseq = struct.unpack("!BBHHH", data[ihl:ihl + 8])
        if kind == 0 and rid == ident and rseq in sent:
            rtts.setdefault(rseq, (t - sent[rseq]) / 1e6)
print(json.dumps([rtts[k] for k in sorted(rtts)]))
"""


def _ping_and_check(link: Link, binary: Path, delay_ab_ms: float, delay_ba_ms: float) -> tuple[float, dict[str, Any]]:
    emu = link.start(binary, "--delay-ab", str(int(delay_ab_ms * 1e6)), "--delay-ba", str(int(delay_ba_ms * 1e6)))
    rtts = link.python("a", PING, B_IP, "100", "0.02", "56")
    stats = emu.stop()
    assert len(rtts) == 100, f"{100 - len(rtts)} pings unanswered"
    # Model value: both delays plus the request's and the reply's serialisation at 10 Mbit/s.
    # (tbf with a full bucket passes a lone frame at once, so the real RTT is expected up to
    # 2·0.078 ms below this, plus the emulator's and the stack's own microseconds.)
    expected = delay_ab_ms + delay_ba_ms + 2 * SERIALISATION_MS
    mean = sum(rtts) / len(rtts)
    assert abs(mean - expected) < 1.0, (mean, expected)
    # A frame is never sent before its due time: no RTT can beat the two configured delays.
    assert min(rtts) >= delay_ab_ms + delay_ba_ms, min(rtts)
    for d in ("ab", "ba"):
        s = stats[d]
        # Only the 100 requests (ab) and 100 replies (ba) cross L: no ARP, no IPv6.
        counts = [s[k] for k in ("frames_in", "frames_out", "lost", "send_drops", "send_errors", "rx_drops")]
        assert counts == [100, 100, 0, 0, 0, 0], s
        # The typical frame leaves within 1 ms of its due time. The tail is reported, not asserted:
        # it measures the virtual machine, not the emulator. Even a SCHED_FIFO thread waits while
        # the hypervisor runs someone else (seen: late_max 5.1 ms on an idle machine, p99 2.4 ms
        # on a loaded CI run), and p99 of 100 frames is their second-largest lateness.
        assert s["late_p50_us"] < 1000, s
    print(f"\nRTT {delay_ab_ms}+{delay_ba_ms} ms: mean {mean:.3f} ms (model {expected:.3f}), min {min(rtts):.3f}, "
          f"max {max(rtts):.3f}; late p99/max ab {stats['ab']['late_p99_us']}/{stats['ab']['late_max_us']} us "
          f"ba {stats['ba']['late_p99_us']}/{stats['ba']['late_max_us']} us, "
          f"rx lag p99 ab {stats['ab']['rx_lag_p99_us']} us")
    return mean - expected, stats


def test_delay_adds_the_configured_rtt_within_1ms(linkemu: Path, link: Link) -> None:
    _ping_and_check(link, linkemu, 10, 10)


def test_asymmetric_delays_add_up(linkemu: Path, link: Link) -> None:
    _ping_and_check(link, linkemu, 2, 30)


# UDP source and sink: the sink counts distinct sequence numbers until 1.5 s pass without any.
SINK = r"""
import json, socket, struct, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 33, 8 << 20)  # SO_RCVBUFFORCE
s.bind(("0.0.0.0", int(sys.argv[1])))
print(json.dumps("ready"), flush=True)
s.settimeout(30.0)
seen = set()
try:
    while True:
        seen.add(struct.unpack("!I", s.recv(2048)[:4])[0])
        s.settimeout(1.5)
except socket.timeout:
    pass
print(json.dumps(sorted(seen)))
"""
SOURCE = r"""
import json, socket, struct, sys, time
dst, port, count, rate, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
start = time.monotonic()
for i in range(count):
    while time.monotonic() < start + i / rate:
        time.sleep(0.0005)
    s.sendto(struct.pack("!I", i) + bytes(size - 4), (dst, port))
print(json.dumps(count))
"""


def _binomial_band(n: int, p: float, mass: float) -> tuple[int, int]:
    """The central `mass` interval of Binomial(n, p): [q((1-mass)/2), q((1+mass)/2)] with q the
    smallest k whose CDF reaches the level (exact, summed in log space)."""
    def pmf(k: int) -> float:
        log_choose = math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
        return math.exp(log_choose + k * math.log(p) + (n - k) * math.log1p(-p))

    lo_level, hi_level = (1 - mass) / 2, (1 + mass) / 2
    cdf, lo = 0.0, None
    for k in range(n + 1):
        cdf += pmf(k)
        if lo is None and cdf >= lo_level:
            lo = k
        if cdf >= hi_level:
            return lo if lo is not None else k, k
    return lo if lo is not None else n, n


def _udp_a_to_b(link: Link, count: int, rate: float, payload: int) -> list[int]:
    """Send `count` datagrams of `payload` bytes from A to B at `rate` per second; the sequence
    numbers B received."""
    sink = subprocess.Popen(
        ["ip", "netns", "exec", link.ns["b"], sys.executable, "-c", SINK, "9000"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert sink.stdout is not None and json.loads(sink.stdout.readline()) == "ready"
        assert link.python("a", SOURCE, B_IP, "9000", str(count), str(rate), str(payload)) == count
        out, err = sink.communicate(timeout=60)
        assert sink.returncode == 0, err
    finally:
        if sink.poll() is None:
            sink.kill()
            sink.wait()
    return json.loads(out.splitlines()[-1])


def test_bernoulli_loss_matches_p_on_10k_packets(linkemu: Path, link: Link) -> None:
    n, p = 10_000, 0.05
    # No rate limit here: the test is about the loss model alone.
    for dev in ("la", "lb"):
        link.exec("l", "tc", "qdisc", "del", "dev", dev, "root")
    emu = link.start(linkemu, "--loss-ab", json.dumps({"model": "bernoulli", "p": p}), "--seed", "2024")
    # 5,000 datagrams/s of 102-byte frames: far below what any socket or the emulator drops.
    received = _udp_a_to_b(link, n, 5000, 60)
    stats = emu.stop()["ab"]
    # Nothing but the loss model dropped a frame: all 10^4 reached the emulator, every survivor
    # was sent and every frame sent arrived at B.
    assert stats["frames_in"] == n, stats
    assert [stats[k] for k in ("send_drops", "send_errors", "fifo_drops", "queued", "rx_drops")] == [0] * 5, stats
    assert stats["frames_out"] + stats["lost"] == n, stats
    assert len(received) == stats["frames_out"], (len(received), stats)
    losses = n - len(received)
    assert losses == stats["lost"]
    lo, hi = _binomial_band(n, p, 0.99)  # [444, 557]
    assert lo <= losses <= hi, (losses, lo, hi)
    print(f"\nloss: {losses} of {n} (p = {p}: expected {n * p:.0f}, 99% band [{lo}, {hi}])")


def test_a_full_egress_queue_counts_send_drops_and_every_frame_is_accounted_for(linkemu: Path, link: Link) -> None:
    # 2,500 frames/s of 1,042 bytes (1,000 B payload + UDP/IP/Ethernet headers) for 2 s is twice
    # what tbf's 10 Mbit/s drains (1,200 frames/s): about half must be refused by the full queue,
    # which send() reports as ENOBUFS.
    n = 5_000
    emu = link.start(linkemu)
    received = _udp_a_to_b(link, n, 2500, 1000)
    s = emu.stop()["ab"]
    counts = [s[k] for k in ("frames_in", "rx_drops", "lost", "send_errors", "fifo_drops", "queued")]
    assert counts == [n, 0, 0, 0, 0, 0], s
    assert s["send_drops"] > 0 and s["frames_out"] + s["send_drops"] == n, s
    # What the qdisc accepted, it delivered.
    assert len(received) == s["frames_out"], (len(received), s)
    print(f"\noverload: {s['frames_out']} sent, {s['send_drops']} refused by tbf of {n}")


def test_bad_arguments_and_missing_interfaces_exit_2(linkemu: Path, link: Link) -> None:
    for args, words in (
        (["--if-a", "la"], "--if-b is required"),
        (["--if-a", "la", "--if-b", "lb", "--loss-ab", '{"model":"bernoulli","p":2}'], "p = 2"),
        (["--if-a", "la", "--if-b", "nope0"], 'no interface named "nope0"'),
    ):
        r = link.exec("l", str(linkemu), *args, check=False)
        assert r.returncode == 2, (args, r.stderr)
        assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1 and words in r.stderr, r.stderr
