"""Seed 004's 5-state NewReno: the Markov model's E[w] (`mptlab.models.newreno5`, Sec. III,
Fig. 2) against the mean window of the simulated `newreno5` controller under Bernoulli loss on
one path (study notes §8.3 C, "Markov model against simulation").

Set-up: one bulk TCP flow over a 100 Mbit/s link with 20 ms one-way delay and independent
per-packet loss l on the data direction. The window never exceeds w_max = 20 packets of 1000 B
(4 Mbit/s at the 40 ms RTT), so the queue stays empty and every round lasts one RTT: the cwnd
trace sampled once per RTT (`trace_interval = "40ms"`) is a per-round sample, as the chain's
stationary distribution is per round. The chain has no CR transitions here (no scheduler caps
the window: P_over = 0).

Measured (seeds 1-3, 400 s): l = 0.01: model 11.41, simulated 11.04-11.31 packets; l = 0.03:
6.37 against 6.13-6.35; l = 0.08: 3.52 against 3.02-3.22; l = 0.15: 2.38 against 1.73-1.81.
Within 10 % up to l = 0.03. Above, the simulation falls below the chain, increasingly with l.
Likely causes (not isolated): the chain's RTO is a one-round marker after which the window
grows again, while the simulated sender, at w_min after a timeout, may lose the retransmission
again and back off exponentially, and the per-RTT trace weights such stretches by time. The chain's
FR/RTO split (Casetti & Meo: three duplicate ACKs needed, a lost retransmission means RTO)
also differs from a sender with SACK, RACK and tail loss probes.
"""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

from conftest import mptlab
from mptlab.models.newreno5 import solve

SCENARIO = """
[run]
duration = "{duration}"
seed = {seed}
[metrics]
trace_interval = "40ms"
[nodes]
hosts = ["a", "b"]
[links.ab]
between = ["a", "b"]
rate = "100Mbps"
delay = "20ms"
queue = {{ kind = "droptail", limit = "1000p" }}
loss = {{ model = "bernoulli", p = {loss} }}
[flows.f]
from = "a"
to = "b"
protocol = "tcp"
cc = "newreno5"
cc_options = {{ w_min = 1, w_max = 20, sst_start = 16 }}
app = "bulk"
tcp = {{ mss = "1000B" }}
"""


def simulated_mean_window(tmp_path, loss: float, seed: int = 1, duration: str = "400s") -> float:
    scenario = tmp_path / f"nr5_{loss}.toml"
    scenario.write_text(SCENARIO.format(duration=duration, seed=seed, loss=loss))
    out = tmp_path / f"out_{loss}"
    r = mptlab("run", scenario, "--out", out, "--quiet")
    assert r.returncode == 0, r.stderr
    df = pq.read_table(out / "timeseries.parquet").to_pandas()
    cwnd = df[df["series"] == "cwnd_bytes"]
    assert len(cwnd) > 500, len(cwnd)
    # Skip the first 10 s (the start in slow start from w_min).
    return float(cwnd[cwnd["t_s"] >= 10.0]["value"].mean()) / 1000.0


@pytest.mark.parametrize("loss", [0.01, 0.03])
def test_markov_mean_window_is_near_the_simulated_mean_cwnd(tmp_path, loss):
    model = solve(loss, w_min=1, w_max=20, sst_start=16).mean_w
    sim = simulated_mean_window(tmp_path, loss)
    print(f"l = {loss}: model E[w] = {model:.2f}, simulated mean cwnd = {sim:.2f} packets")
    assert sim == pytest.approx(model, rel=0.10)


def test_at_high_loss_the_simulated_window_falls_below_the_chain(tmp_path):
    # Repeated timeouts with exponential backoff, which the chain's one-round RTO marker lacks.
    model = solve(0.15, w_min=1, w_max=20, sst_start=16).mean_w
    sim = simulated_mean_window(tmp_path, 0.15)
    print(f"l = 0.15: model E[w] = {model:.2f}, simulated mean cwnd = {sim:.2f} packets")
    assert 0.6 * model < sim < 0.9 * model


def test_a_lossless_path_sits_at_w_max(tmp_path):
    # The chain's only recurrent state without loss is (w_max, sst, 0): E[w] = w_max.
    assert solve(0.0, w_min=1, w_max=20, sst_start=16).mean_w == pytest.approx(20.0)
    assert simulated_mean_window(tmp_path, 0.0, duration="30s") == pytest.approx(20.0)
