//! BALIA, Balanced Linked Adaptation.
//!
//! Sources: Q. Peng, A. Walid, J. Hwang, S. H. Low, "Multipath TCP: Analysis, Design, and
//! Implementation", IEEE/ACM ToN 24(1), 2016 (the algorithm Balia, derived in its design
//! framework); draft-walid-mptcp-congestion-control-04 §3 (the same algorithm as the authors
//! submitted it to the IETF); Linux out-of-tree MPTCP `net/mptcp/mptcp_balia.c` (the authors'
//! implementation). The paper is not among `../shared/seeds/`; the formulas are labelled
//! (B1)–(B3) here rather than by the paper's equation numbers.
//!
//! With windows w in packets, rtt_r path r's RTT and x_r its rate:
//!
//! ```text
//!   x_r = w_r / rtt_r,      α_r = max_k x_k / x_r   (≥ 1)                        (B1)
//!
//!   per ACK on r:  w_r += (x_r / rtt_r) / (Σ_k x_k)² · (1 + α_r)/2 · (4 + α_r)/5  (B2)
//!
//!   per loss on r: w_r −= (w_r / 2) · min(α_r, 1.5)                               (B3)
//! ```
//!
//! On the fastest path (α_r = 1) the increase is LIA-like and the decrease TCP's halving; a
//! slower path (α_r > 1) increases more and decreases more (at most by 3/4 of its window),
//! which balances friendliness to TCP against responsiveness (the paper's design space).
//!
//! Interpretations:
//! - The sums and the max of (B1)–(B2) run over the subflows that count (active, with an RTT
//!   sample: Linux `mptcp_balia_sk_can_send`), this one included, with the smoothed RTT; they
//!   are evaluated at each ACK and loss from the peers' views of the last coupling and this
//!   subflow's current window (Linux caches the per-ACK divisor `ai` and recomputes it on some
//!   events).
//! - Units: (B2) per byte acknowledged in segments, with every w in bytes (the packet form when
//!   all MSS are equal: x_r/rtt_r/(Σx)² is 1/w_r on a single path); the increase accumulates
//!   and is applied one MSS at a time. Linux computes it as one packet per `ai` ACKs, with
//!   ai = (Σx)²·10·w_r / ((x_r + max x)(4x_r + max x)): the same quantity.
//! - (B3) as an ssthresh: the window that is reduced is FlightSize, as Reno's RFC 5681 eq. (4)
//!   in `cc/reno.rs` (Linux reduces `snd_cwnd`), with the 2·SMSS floor: ssthresh =
//!   max(FlightSize − round(FlightSize/2 · min(α_r, 1.5)), 2·SMSS), cwnd = ssthresh, then PRR
//!   in the transport. A timeout outside recovery sets the same ssthresh (Linux
//!   `mptcp_balia_ssthresh` serves both) and cwnd = 1 SMSS.
//! - α in (B3) is the paper's real ratio. Linux `mptcp_balia_recalc_ai` (MPTCP v0.95, the
//!   kernel seed 001 ran) computes it as the integer quotient `div64_u64(max_rate, rate)`, so
//!   a path whose rate is within 2× of the fastest has α = 1 there and is halved like Reno's,
//!   while here it loses up to 3/4 of its window (the increase uses the real ratio in both).
//!   Measured on seed 001's scenario (10 seeds, a one-line `floor()` probe, not shipped):
//!   balia+reno 24.70 → 25.03 Mbit/s at p = 0.0001 and 11.20 → 11.60 at p = 0.001 (lia+reno
//!   25.11 and 11.69): the truncation moves BALIA from below OLIA to about OLIA's level, still
//!   below LIA.
//! - Uncoupled (one path, or no RTT sample yet) BALIA is Reno exactly, as Linux
//!   (`cnt_established <= 1`: `tcp_reno_cong_avoid`, `tcp_reno_ssthresh`); slow start is
//!   Reno's either way (`tcp_slow_start`).

use super::{Peers, SubflowCcView, Window};
use crate::cc::{AckEvent, CcParams, CongestionControl, LossEvent};

/// (B3): the largest α_r the decrease uses.
const ALPHA_DECREASE_CAP: f64 = 1.5;

#[derive(Clone, Debug)]
pub struct Balia {
    w: Window,
}

impl Balia {
    pub fn new(p: CcParams) -> Self {
        Balia { w: Window::new(p) }
    }

    /// α_r of (B1); None while uncoupled.
    pub fn alpha(&self) -> Option<f64> {
        let (me, peers) = self.w.coupled()?;
        Some(me.x().max(peers.max_x) / me.x())
    }

    /// The increase of (B2) per byte acknowledged, in segments; None while uncoupled (Reno).
    pub fn increase_per_byte(&self) -> Option<f64> {
        let (me, peers) = self.w.coupled()?;
        let alpha = self.alpha()?;
        let sum = me.x() + peers.sum_x;
        Some(me.x() / me.rtt / (sum * sum) * (1.0 + alpha) / 2.0 * (4.0 + alpha) / 5.0)
    }

    /// ssthresh after a loss with this FlightSize: (B3), or Reno's halving while uncoupled.
    pub fn reduced(&self, flight_size: u64) -> u64 {
        match self.alpha() {
            Some(alpha) => {
                let decrease = (flight_size as f64 / 2.0 * alpha.min(ALPHA_DECREASE_CAP)).round() as u64;
                flight_size.saturating_sub(decrease).max(2 * self.w.mss)
            }
            None => self.w.halve(flight_size),
        }
    }

    pub fn peers(&self) -> &Peers {
        &self.w.peers
    }
}

impl CongestionControl for Balia {
    fn reads_rate_samples(&self) -> bool {
        false
    }
    window_answers!();
    reno_window_hooks!();

    fn on_ack(&mut self, ev: &AckEvent) {
        if !self.w.on_ack(ev) {
            return;
        }
        if self.w.in_slow_start() {
            self.w.slow_start(ev.bytes_acked);
            return;
        }
        match self.increase_per_byte() {
            Some(per_byte) => self.w.add_segments(per_byte * ev.bytes_acked as f64),
            None => self.w.reno(ev.bytes_acked),
        }
    }

    fn on_congestion_event(&mut self, ev: &LossEvent) {
        self.w.enter_recovery(self.reduced(ev.flight_size));
    }

    fn on_rto(&mut self, ev: &LossEvent) {
        let ssthresh = self.reduced(ev.flight_size);
        self.w.timeout(ev, |_| ssthresh);
    }

    fn couple(&mut self, views: &[SubflowCcView], me: usize) {
        self.w.peers = Peers::of(views, me);
    }
}
