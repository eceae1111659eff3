"""The emulation backend's session (`runner.Session`): builds the plan's network, starts the
link emulators and the traffic programs, advances in wall-clock time while sampling the kernel,
and removes everything it made — at the end, on an exception (Ctrl-C included) and, through the
registry, at the next start after a SIGKILL.

Time: `now_s` is wall seconds since the run's start instant t0 (CLOCK_MONOTONIC); a 20 s
scenario takes 20 s, plus the network's setup (about 0.1 s per link) before t0. A run whose
flows are all file transfers ends as soon as every file has arrived (the rest of the run would
carry no data); its summary still covers the scenario's duration, as the simulator's does.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from mptlab import _core
from mptlab.emulation import binaries, measure, netns, quic
from mptlab.emulation.plan import (
    Direction,
    QUIC_CC,
    QUIC_SCHEDULER,
    FlowPlan,
    KernelFeatures,
    Plan,
    build,
    kernel_cc,
    refuse_unmapped_options,
)
from mptlab.emulation.summary import Samples, build_summary, build_timeseries

#: Seconds between starting the traffic programs and t0 (receivers must be listening).
LEAD_S = 0.5
APPS = Path(__file__).with_name("apps.py")
#: Seconds between the end of the run and stopping the receivers.
DRAIN_S = 0.5


class EmulationSession:
    """A scenario on the real kernel. Validates (and refuses) at construction; builds the
    network at the first `advance`."""

    progress_label = "emulating (wall clock)"

    def __init__(self, text: str, overrides: list[tuple[str, str]], seed: int | None) -> None:
        self.text, self.overrides = text, list(overrides)
        resolved = json.loads(_core.resolve(text, self.overrides, seed))
        self.kernel = KernelFeatures.read()
        refuse_unmapped_options(text, self.overrides)
        self.plan: Plan = build(resolved, secrets.token_hex(3), self.kernel)
        netns.require_root()
        self.linkemu = binaries.linkemu() if any(link.mechanism == "userspace" for link in self.plan.links) else None
        self.mpquic = binaries.mpquic() if any(f.protocol == "quic" for f in self.plan.flows) else None
        self.workdir = Path(tempfile.mkdtemp(prefix=f"mptlab-emu-{self.plan.run_id}-"))
        self.samples = Samples()
        self._procs: list[subprocess.Popen[bytes]] = []
        self._t0: float | None = None
        self._now = 0.0
        self._done = False
        self._torn_down = False
        #: Link events still to apply: (time, link namespace, direction, event), in time order.
        self._events: list[tuple[float, str, Direction, dict[str, Any]]] = []
        self._down: set[str] = set()
        self._all_files = all(f.app["kind"] == "file" for f in self.plan.flows)
        self.results: dict[str, Any] = {}
        #: The simulator's summary of the same run, when the caller has it (`mptlab validate`):
        #: the emulated summary's template (summary.py), saving a second simulation.
        self.template: dict[str, Any] | None = None

    # --- runner.Session ------------------------------------------------------------------

    @property
    def duration_s(self) -> float:
        return self.plan.duration_s

    @property
    def now_s(self) -> float:
        return self._now

    @property
    def done(self) -> bool:
        return self._done

    @property
    def seed(self) -> int:
        return self.plan.seed

    @property
    def events_processed(self) -> int:
        return 0

    @property
    def delivered_data_packets(self) -> int:
        return 0

    def advance(self, until_s: float) -> None:
        try:
            if self._t0 is None:
                self._start()
            files_done = self._run_until(min(until_s, self.duration_s))
            if files_done or self._now >= self.duration_s - 1e-9:
                self._finish()
        except BaseException:
            self.close()
            raise

    def summary_json(self) -> str:
        return json.dumps(build_summary(self), sort_keys=False)

    def timeseries(self) -> dict[str, list[Any]]:
        return build_timeseries(self)

    # --- lifecycle -----------------------------------------------------------------------

    def _start(self) -> None:
        netns.cleanup_stale()
        netns.register(self.plan, self.workdir)
        netns.build_network(self.plan)
        for link in self.plan.links:
            if link.mechanism == "userspace":
                self._spawn(link.ns, [str(self.linkemu), "--if-a", link.if_l_a, "--if-b", link.if_l_b,
                                      "--delay-ab", str(link.ab.delay_ns), "--delay-ba", str(link.ba.delay_ns),
                                      "--loss-ab", json.dumps(link.ab.loss), "--loss-ba", json.dumps(link.ba.loss),
                                      "--seed", str(self.plan.seed * 1000 + link.index),
                                      "--stats", str(self.workdir / f"linkemu-{link.index}.json")])
        t0 = time.monotonic() + LEAD_S
        for f in self.plan.flows:
            self._spawn_flow(f, t0)
        netns.record_pids(self.plan, [p.pid for p in self._procs])
        self.samples.start(self.plan)
        self._events = sorted(
            ((ev["at_ns"] / 1e9, link.ns, d, ev) for link in self.plan.links for d in (link.ab, link.ba)
             for ev in d.events),
            key=lambda e: (e[0], e[1], e[2].name))
        while time.monotonic() < t0:
            time.sleep(0.01)
        self._t0 = t0
        self._sample()

    def _spawn(self, ns: str, argv: list[str]) -> subprocess.Popen[bytes]:
        log = open(self.workdir / f"proc-{len(self._procs)}.log", "wb")  # noqa: SIM115 (kept with the process)
        proc = subprocess.Popen(["ip", "netns", "exec", ns, *argv], stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        self._procs.append(proc)
        return proc

    def _spawn_flow(self, f: FlowPlan, t0: float) -> None:
        if f.protocol == "quic":
            self._spawn_quic(f, t0)
            return
        p0 = f.paths[0]
        cfg = {"protocol": f.protocol, "t0": t0, "interval_s": self.plan.interval_s,
               "duration_s": self.plan.duration_s, "dst_addr": p0.dst_addr, "src_addr": p0.src_addr,
               "port": f.port, "start_s": f.start_s, "stop_s": f.stop_s, "app": f.app,
               "cc": kernel_cc(f.cc) if f.cc else None}
        py = sys.executable
        if f.protocol == "udp":
            cfg |= {"payload": f.payload, "seed": self.plan.seed * 1000 + f.index}
        rx, tx = ("udp-receiver", "udp-sender") if f.protocol == "udp" else ("receiver", "sender")
        self._spawn(self.plan.nodes[f.dst], [py, str(APPS), rx, json.dumps(cfg), str(self._out(f, "rx"))])
        time.sleep(0.05)  # the receiver binds before its sender can connect (t0 is LEAD_S away)
        self._spawn(self.plan.nodes[f.src], [py, str(APPS), tx, json.dumps(cfg), str(self._out(f, "tx"))])

    def _spawn_quic(self, f: FlowPlan, t0: float) -> None:
        """mptlab-mpquic: a server in the receiving namespace, a client (started at the flow's
        start time by apps.py, which then execs it) with one local address per path."""
        p0 = f.paths[0]
        remote = f"{p0.dst_addr}:{f.port}"
        self._spawn(self.plan.nodes[f.dst], [str(self.mpquic), "server", "--listen", remote, "--out",
                                             str(self._out(f, "rx")), "--interval-ms", "100"])
        amount = (["--bytes", str(f.app["size"])] if f.app["kind"] == "file" else
                  ["--duration-ms", str(int(1000 * ((f.stop_s or self.plan.duration_s) - f.start_s)))])
        argv = [str(self.mpquic), "client", *[a for p in f.paths for a in ("--local", p.src_addr)], "--remote", remote,
                "--scheduler", QUIC_SCHEDULER[f.scheduler or "minrtt"], "--cc", QUIC_CC[f.cc or "cubic"], *amount,
                "--out", str(self._out(f, "tx"))]
        cfg = {"t0": t0, "start_s": f.start_s, "argv": argv}
        self._spawn(self.plan.nodes[f.src], [sys.executable, str(APPS), "exec-at", json.dumps(cfg), "-"])

    def _out(self, f: FlowPlan, side: str) -> Path:
        return self.workdir / f"flow-{f.index}-{side}.json"

    def _elapsed(self) -> float:
        """Wall seconds since the run's start t0 (set by `_start`)."""
        assert self._t0 is not None
        return time.monotonic() - self._t0

    def _run_until(self, until_s: float) -> bool:
        """Sleep and sample until `until_s`; True when it stopped because every file arrived."""
        tick = max(self.plan.trace_interval_s, 0.1)
        while True:
            self._now = min(self._elapsed(), self.duration_s)
            self._apply_due_events()
            if self._files_done():
                return True
            if self._now >= until_s:
                return False
            next_tick = (int(self._now / tick) + 1) * tick
            wake = min(next_tick, until_s, self._events[0][0] if self._events else next_tick)
            time.sleep(max(0.0, wake - self._now))
            self._now = min(self._elapsed(), self.duration_s)
            if self._now + 1e-3 >= next_tick:
                self._sample()

    def _apply_due_events(self) -> None:
        """Link events whose time has come, each between two link samples (docs/emulation.md)."""
        if not self._events or self._events[0][0] > self._now:
            return
        self.samples.take_links(self.plan, self._now)
        while self._events and self._events[0][0] <= self._now:
            _, ns, d, ev = self._events.pop(0)
            netns.apply_event(ns, d, ev["action"], ev.get("rate_bps"), d.name in self._down)
            if ev["action"] in ("down", "up"):
                (self._down.add if ev["action"] == "down" else self._down.discard)(d.name)
            self.samples.events.append((self._elapsed(), d.name, ev["action"], ev.get("rate_bps")))
        self.samples.take_links(self.plan, self._elapsed())

    def _sample(self) -> None:
        self.samples.take(self.plan, self._now)

    def _files_done(self) -> bool:
        """Every flow is a file transfer and every receiver has its file (a kernel receiver
        writes its report at the end of the file, tquic's server as it goes)."""
        if not self._all_files:
            return False
        for f in self.plan.flows:
            rx = measure.read_json(self._out(f, "rx"))
            if rx is None or (f.protocol == "quic" and rx.get("total_bytes", 0) < f.app["size"]):
                return False
        return True

    def _finish(self) -> None:
        assert self._t0 is not None
        self._now = min(self._elapsed(), self.duration_s)
        self._sample()
        # Let what is in flight arrive (the simulator neither loses nor delivers it): receivers
        # count only what came within the run, but a datagram still on its way is not lost.
        time.sleep(DRAIN_S)
        self.samples.final_receivers(self.plan)
        self.close()
        for f in self.plan.flows:
            rx, tx = measure.read_json(self._out(f, "rx")), measure.read_json(self._out(f, "tx"))
            self.results[f.name] = {"rx": rx, "tx": tx}
            if f.protocol == "quic":
                size = f.app["size"] if f.app["kind"] == "file" else None
                self.results[f.name] = {"rx": quic.receiver(rx, self._t0, self.plan.interval_s,
                                                            self.plan.duration_s, size),
                                        "tx": tx, "paths": quic.paths(tx, f), "server": rx}
        self.results["_linkemu"] = {str(link.index): measure.read_json(self.workdir / f"linkemu-{link.index}.json")
                                    for link in self.plan.links if link.mechanism == "userspace"}
        self.results["_logs"] = self._logs()
        shutil.rmtree(self.workdir, ignore_errors=True)  # read; a failed run keeps its folder
        self._now = self.duration_s
        self._done = True

    def _logs(self) -> dict[str, str]:
        out = {}
        for p in sorted(self.workdir.glob("proc-*.log")):
            text = p.read_text(errors="replace").strip()
            if text:
                out[p.stem] = text[-2000:]
        return out

    def close(self) -> None:
        """Stop every process of the run and remove its namespaces (idempotent)."""
        if self._torn_down:
            return
        self._torn_down = True
        netns.remove(self.plan.run_id, self.plan.namespaces(), [p.pid for p in self._procs])
        for p in self._procs:  # reap them
            try:
                p.wait(timeout=2)
            except subprocess.TimeoutExpired:
                pass

    def __del__(self) -> None:
        if getattr(self, "_t0", None) is not None and not getattr(self, "_torn_down", True):
            self.close()


def factory(text: str, overrides: list[tuple[str, str]], seed: int | None) -> EmulationSession:
    """`runner.BACKENDS["emulation"]`."""
    return EmulationSession(text, overrides, seed)


def write_emulation_info(folder: Path, session: EmulationSession) -> None:
    """`emulation.json` in a run folder (atomically)."""
    from mptlab.atomic import write_text

    write_text(folder / "emulation.json", json.dumps(emulation_info(session), indent=2) + "\n")


def emulation_info(session: EmulationSession) -> dict[str, Any]:
    """What was used: the kernel, the mechanism per link, the run id (emulation.json)."""
    return {
        "backend": "emulation",
        "run_id": session.plan.run_id,
        "kernel": os.uname().release,
        "congestion_controls": list(session.kernel.congestion_controls),
        "mptcp_schedulers": list(session.kernel.mptcp_schedulers),
        "links": [{"link": link.ab.name, "namespace": link.ns, "mechanism": link.mechanism,
                   "rate_shaping": "tbf (size table: -14 B per frame)",
                   "queue": " ".join(netns.queue_qdisc(link.ab.queue))} for link in session.plan.links],
        "flows": [{"flow": f.name, "protocol": f.protocol, "kernel_cc": kernel_cc(f.cc) if f.cc else None,
                   "paths": [{"src": p.src_addr, "dst": p.dst_addr, "links": list(p.links)} for p in f.paths]}
                  for f in session.plan.flows],
        "linkemu": session.results.get("_linkemu", {}),
        "process_logs": session.results.get("_logs", {}),
    }
