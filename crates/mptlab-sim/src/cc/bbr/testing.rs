//! Scripted ACK streams for the unit tests of each state (STYLE: "scripted exchanges per
//! protocol state"): a `Path` with a known bottleneck rate and RTT hands `on_ack` synthetic
//! `AckEvent`s carrying `RateSample`s. Nothing here models queues; each test says what the
//! transport would report.

use super::{Bbr, BbrConfig, Mode, GAIN_UNIT};
use crate::cc::{AckEvent, CcParams, CongestionControl, RateSample};
use mptlab_engine::time::SECOND;
use mptlab_engine::Time;

pub const MSS: u64 = 1000;

pub fn bbr() -> Bbr {
    Bbr::new(CcParams { mss: MSS as u32, initial_cwnd_segments: 10 }, &BbrConfig::default())
}

/// A controller with the given `extra_acked_gain` (0: no ACK-aggregation allowance).
pub fn bbr_with(extra_acked_gain: f64) -> Bbr {
    Bbr::new(CcParams { mss: MSS as u32, initial_cwnd_segments: 10 }, &BbrConfig { extra_acked_gain })
}

/// pacing_gain · bw · 0.99, as the controller computes it.
pub fn pace(bw: u64, gain: u64) -> u64 {
    (bw as u128 * gain as u128 * 99 / (GAIN_UNIT as u128 * 100)) as u64
}

impl Bbr {
    /// cwnd_gain · BDP + ACK-aggregation allowance + budget: where cwnd settles once the pipe
    /// is full.
    pub fn target(&self) -> u64 {
        self.inflight(self.btl_bw.get(), self.cwnd_gain) + self.aggregation_cwnd()
    }
}

/// One ACK as the transport would report it.
#[derive(Clone, Copy, Debug)]
pub struct Ack {
    /// Time since the previous ACK.
    pub dt: Time,
    /// Bytes newly delivered, all cumulatively acknowledged.
    pub bytes: u64,
    /// The sample's delivery rate (bytes/s); None: an invalid (too short) interval. No sample
    /// at all when `bytes` is 0.
    pub rate: Option<u64>,
    pub app_limited: bool,
    pub rtt: Option<Time>,
    /// Pipe after the ACK.
    pub in_flight: u64,
    /// Pipe before the ACK; default in_flight + bytes.
    pub prior_in_flight: Option<u64>,
    /// Bytes newly marked lost.
    pub lost: u64,
    /// The sample's segment was sent after the current round began (the ACK ends the round).
    pub new_round: bool,
}

pub struct Path {
    pub bbr: Bbr,
    pub now: Time,
    pub delivered: u64,
    /// Bottleneck rate (bytes/s) and RTT of the default ACKs.
    pub bw: u64,
    pub rtt: Time,
    round_began: Time,
}

impl Path {
    pub fn new(bw: u64, rtt: Time) -> Self {
        Self::with_bbr(bw, rtt, bbr())
    }

    pub fn with_bbr(bw: u64, rtt: Time, bbr: Bbr) -> Self {
        Self { bbr, now: SECOND, delivered: 0, bw, rtt, round_began: SECOND }
    }

    /// An ACK `dt` = 0 later delivering one segment at the path's rate and RTT, the pipe at cwnd.
    pub fn default_ack(&self) -> Ack {
        Ack {
            dt: 0,
            bytes: MSS,
            rate: Some(self.bw),
            app_limited: false,
            rtt: Some(self.rtt),
            in_flight: self.bbr.window(),
            prior_in_flight: None,
            lost: 0,
            new_round: false,
        }
    }

    /// Whether an ACK now would end a round (at least one RTT since the last round began).
    pub fn round_due(&self) -> bool {
        self.now >= self.round_began + self.rtt
    }

    pub fn ack(&mut self, a: Ack) {
        self.now += a.dt;
        let prior_delivered = if a.new_round {
            self.round_began = self.now;
            self.delivered
        } else {
            self.bbr.rounds.next_round_delivered.saturating_sub(1)
        };
        let delivered_total = self.delivered + a.bytes;
        let rate = (a.bytes > 0).then(|| RateSample {
            prior_delivered,
            delivered: delivered_total - prior_delivered,
            interval: self.rtt,
            delivery_rate: a.rate,
            is_app_limited: a.app_limited,
            tx_in_flight: a.in_flight,
            lost: a.lost,
            rtt: a.rtt.unwrap_or(self.rtt),
        });
        let ev = AckEvent {
            now: self.now,
            bytes_acked: a.bytes,
            bytes_delivered: a.bytes,
            rtt_sample: a.rtt,
            srtt: self.rtt,
            min_rtt: self.rtt,
            prior_in_flight: a.prior_in_flight.unwrap_or(a.in_flight + a.bytes),
            in_flight: a.in_flight,
            in_recovery: false,
            cwnd_limited: true,
            mss: MSS as u32,
            bytes_lost: a.lost,
            delivered_total,
            lost_total: 0,
            rate,
            prior_delivered: rate.map(|r| r.prior_delivered),
        };
        self.delivered = delivered_total;
        self.bbr.on_ack(&ev);
    }

    /// One ACK `dt` after the last, delivering bw·dt at the path's rate; it ends a round when
    /// one RTT has passed since the last round began.
    pub fn step(&mut self, dt: Time) {
        let bytes = (self.bw as u128 * dt as u128 / SECOND as u128) as u64;
        let new_round = self.now + dt >= self.round_began + self.rtt;
        self.ack(Ack { dt, bytes: bytes.max(1), new_round, ..self.default_ack() });
    }

    pub fn run_for(&mut self, dur: Time, dt: Time) {
        let end = self.now + dur;
        while self.now < end {
            self.step(dt);
        }
    }

    /// `n` round trips, one ACK each, at delivery rate `rate`.
    pub fn rounds(&mut self, n: usize, rate: u64) {
        for _ in 0..n {
            let bytes = (rate as u128 * self.rtt as u128 / SECOND as u128) as u64;
            self.ack(Ack { dt: self.rtt, bytes: bytes.max(1), rate: Some(rate), new_round: true, ..self.default_ack() });
        }
    }

    /// STARTUP doubling up to the path's rate, the plateau, DRAIN: ends in PROBE_BW.
    pub fn fill_pipe(&mut self) {
        let mut rate = (self.bw / 32).max(1);
        while rate < self.bw {
            self.rounds(1, rate);
            rate *= 2;
        }
        while self.bbr.mode() == Mode::Startup {
            self.rounds(1, self.bw);
        }
        assert_eq!(self.bbr.mode(), Mode::Drain);
        let limit = self.bbr.inflight(self.bw, GAIN_UNIT);
        self.ack(Ack { dt: self.rtt / 4, in_flight: limit, ..self.default_ack() });
        assert_eq!(self.bbr.mode(), Mode::ProbeBw);
        assert!(self.bbr.pacing_rate().is_some());
    }
}
