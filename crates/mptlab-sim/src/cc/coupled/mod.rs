//! Coupled multipath congestion control (LIA, OLIA, BALIA, wVegas) and its composition with a
//! per-path controller.
//!
//! The interface (STYLE.md "Read-only views in, decisions out"). Each subflow of an MPTCP
//! connection has its own controller. The connection collects one `SubflowCcView` per subflow
//! (from `CongestionControl::coupled_view`, `active` set by the connection) and hands the slice
//! to subflow i's controller through `couple(views, i)` right before each of its ACK, loss and
//! timeout events. There are no back-pointers (the out-of-tree Linux `mptcp_coupled.c` walks the
//! connection's subflows through `tp->mpcb`; here the controller sees its peers only through
//! that slice).
//!
//! What every coupled controller here shares (`Window`):
//! - The coupling terms are taken over the *peers* when the connection couples (`Peers`: the
//!   views other than index `me` that are active and have an RTT sample, as Linux's
//!   `mptcp_*_sk_can_send`: established and `srtt != 0`), and the subflow's own terms are added
//!   at each event from its current state (its own view in the slice is not read: the
//!   controller knows itself better than a copy). A controller that is never coupled (a plain
//!   TCP flow) or whose peers all do not count has no peers: LIA, OLIA and BALIA then behave as
//!   Reno exactly (their formulas reduce to Reno's on one path, RFC 6356 §2's "do no harm";
//!   Linux falls back to `tcp_reno_cong_avoid` when `cnt_established <= 1`), wVegas as a
//!   Vegas-like controller with α = total_alpha.
//! - Units. Windows are in bytes and RTTs in seconds (the smoothed RTT, `srtt`) in the formulas,
//!   computed in f64 (deterministic: one order of summation, the order of the views). The
//!   papers count windows in packets; with w in bytes each per-ACK increase below is the papers'
//!   increase per packet, times bytes_acked / MSS (RFC 3465 byte counting, as `cc/reno.rs`).
//! - Slow start, loss and timeout are Reno's (`cc/reno.rs`: RFC 3465 slow start with L = 2,
//!   ssthresh = max(FlightSize/2, 2·SMSS) and cwnd = ssthresh on entering fast recovery, after
//!   which the transport runs PRR toward that ssthresh; 1 SMSS after a timeout, ssthresh kept
//!   when the timeout hits during recovery). No growth while recovering or application-limited
//!   (RFC 7661). BALIA replaces the halving by its own decrease; wVegas adds its delay rules.
//! - Congestion avoidance counts the increase in segments: LIA as Reno's byte counter (one MSS
//!   per `bytes_per_increase` bytes acknowledged), OLIA and BALIA as a signed fraction of a
//!   segment, applied one MSS at a time (at most one step per ACK, as `cc/reno.rs`).
//! - The loss distance ℓ of OLIA (bytes acknowledged since the last loss, and between the last
//!   two) is recorded by every controller and published in its view.

/// `CongestionControl` answers every coupled controller reads off its `w: Window`.
macro_rules! window_answers {
    () => {
        fn window(&self) -> u64 {
            self.w.cwnd
        }
        fn ssthresh(&self) -> u64 {
            self.w.ssthresh
        }
        fn state_name(&self) -> &'static str {
            self.w.state_name()
        }
    };
}

/// Recovery exit and the peer view of the controllers whose window is plain Reno outside their
/// increase rule (LIA, OLIA, BALIA).
macro_rules! reno_window_hooks {
    () => {
        fn on_recovery_exit(&mut self, _now: mptlab_engine::Time) {
            self.w.exit_recovery();
        }
        fn coupled_view(&self) -> Option<SubflowCcView> {
            Some(self.w.view())
        }
    };
}

/// RFC 5681 eq. (4) on entering recovery and on a timeout (LIA, OLIA).
macro_rules! halving_on_loss {
    () => {
        fn on_congestion_event(&mut self, ev: &LossEvent) {
            self.w.enter_recovery(self.w.halve(ev.flight_size));
        }
        fn on_rto(&mut self, ev: &LossEvent) {
            self.w.timeout(ev, |w| w.halve(ev.flight_size));
        }
    };
}

mod balia;
mod compose;
mod lia;
mod olia;
#[cfg(test)]
mod tests;
mod wvegas;

pub use balia::Balia;
pub use compose::{AlgoConfig, Coupled, CoupledConfig};
pub use lia::Lia;
pub use olia::{Olia, OliaPath, OliaSets};
pub use wvegas::{Wvegas, WvegasConfig};

use super::{AckEvent, CcParams, CongestionControl, LossEvent};
use mptlab_engine::time::SECOND;
use mptlab_engine::Time;

/// One subflow's state as a coupled controller sees it. The connection collects one view per
/// subflow (from `CongestionControl::coupled_view`, with `active` set by the connection) and
/// passes the slice to the subflow's controller before each of its ACK and loss events.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SubflowCcView {
    /// Established and not failed: counts in the coupling sums.
    pub active: bool,
    /// Congestion window in bytes.
    pub cwnd: u64,
    pub ssthresh: u64,
    /// Smoothed RTT and minimum RTT in ns (0 before the first sample).
    pub srtt: Time,
    pub min_rtt: Time,
    pub mss: u32,
    /// OLIA's ℓ: bytes acknowledged since the last loss, and between the last two losses.
    pub bytes_since_loss: u64,
    pub bytes_between_losses: u64,
    /// wVegas: the subflow's last rate estimate (window / mean RTT of a round) in bytes per
    /// second, 0 while it has none (Linux `instant_rate`); peers weight themselves by it.
    pub rate: u64,
}

/// RFC 3465 §2.2: L = 2·SMSS limit on slow-start growth per ACK (as `cc/reno.rs`).
const ABC_LIMIT_SEGMENTS: u64 = 2;

/// A path as the coupling formulas see it: window w in bytes, RTT in seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Path {
    pub w: f64,
    pub rtt: f64,
}

impl Path {
    fn new(cwnd: u64, srtt: Time) -> Self {
        Path { w: cwnd as f64, rtt: srtt as f64 / SECOND as f64 }
    }

    /// The rate x = w / rtt (bytes per second).
    pub fn x(&self) -> f64 {
        self.w / self.rtt
    }

    /// w / rtt² (RFC 6356's and OLIA's numerator).
    pub fn w_over_rtt2(&self) -> f64 {
        self.w / (self.rtt * self.rtt)
    }
}

/// Whether a view counts in the coupling sums: active, with an RTT sample (Linux
/// `mptcp_*_sk_can_send`).
pub fn counts(v: &SubflowCcView) -> bool {
    v.active && v.srtt > 0
}

/// The views of a subflow's peers that count in the coupling sums (every index but `me`).
pub fn peers(views: &[SubflowCcView], me: usize) -> impl Iterator<Item = &SubflowCcView> + Clone {
    views.iter().enumerate().filter(move |&(i, v)| i != me && counts(v)).map(|(_, v)| v)
}

/// Sums over a subflow's peers, taken when the connection couples.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Peers {
    /// Peers that count (active, with an RTT sample).
    pub n: u32,
    /// Σ w_p (bytes).
    pub sum_w: f64,
    /// Σ x_p = Σ w_p / rtt_p (bytes per second).
    pub sum_x: f64,
    /// max x_p.
    pub max_x: f64,
    /// max w_p / rtt_p².
    pub max_w_over_rtt2: f64,
    /// Σ of the active peers' wVegas rates (those that have one).
    pub sum_rate: f64,
}

impl Peers {
    pub fn of(views: &[SubflowCcView], me: usize) -> Self {
        let mut p = Peers::default();
        for v in peers(views, me) {
            let path = Path::new(v.cwnd, v.srtt);
            p.n += 1;
            p.sum_w += path.w;
            p.sum_x += path.x();
            p.max_x = p.max_x.max(path.x());
            p.max_w_over_rtt2 = p.max_w_over_rtt2.max(path.w_over_rtt2());
        }
        p.sum_rate = views.iter().enumerate().filter(|&(i, v)| i != me && v.active && v.rate > 0).map(|(_, v)| v.rate as f64).sum();
        p
    }
}

/// The Reno window every coupled controller here builds on (see the module header), with the
/// state its view publishes and the peers' sums of the last coupling.
#[derive(Clone, Debug)]
pub struct Window {
    pub mss: u64,
    pub cwnd: u64,
    pub ssthresh: u64,
    /// RFC 3465 counter: bytes acknowledged since the last congestion-avoidance increase.
    ca_bytes: u64,
    /// Signed congestion-avoidance increase in segments not yet applied (OLIA, BALIA).
    ca_segments: f64,
    /// From the last ACK that carried them (0 before the first sample).
    pub srtt: Time,
    pub min_rtt: Time,
    bytes_since_loss: u64,
    bytes_between_losses: u64,
    in_recovery: bool,
    pub peers: Peers,
}

impl Window {
    pub fn new(p: CcParams) -> Self {
        let mss = p.mss.max(1) as u64;
        Window {
            mss,
            cwnd: p.initial_cwnd_segments.max(1) as u64 * mss,
            ssthresh: u64::MAX,
            ca_bytes: 0,
            ca_segments: 0.0,
            srtt: 0,
            min_rtt: 0,
            bytes_since_loss: 0,
            bytes_between_losses: 0,
            in_recovery: false,
            peers: Peers::default(),
        }
    }

    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    /// This subflow as a path of the coupling formulas, once it has an RTT sample.
    pub fn path(&self) -> Option<Path> {
        (self.srtt > 0).then(|| Path::new(self.cwnd, self.srtt))
    }

    /// This subflow and its peers' sums when it is coupled: it has an RTT sample and at least
    /// one peer counts. None: behave as Reno.
    pub fn coupled(&self) -> Option<(Path, &Peers)> {
        self.path().filter(|_| self.peers.n > 0).map(|me| (me, &self.peers))
    }

    /// OLIA's ℓ_r = max(bytes between the last two losses, bytes since the last loss).
    pub fn loss_distance(&self) -> u64 {
        self.bytes_since_loss.max(self.bytes_between_losses)
    }

    /// Bookkeeping of every ACK; returns whether the window may grow on it (Reno's conditions:
    /// not in recovery, cwnd-limited, something newly acknowledged).
    pub fn on_ack(&mut self, ev: &AckEvent) -> bool {
        if ev.srtt > 0 {
            self.srtt = ev.srtt;
        }
        if ev.min_rtt > 0 {
            self.min_rtt = ev.min_rtt;
        }
        self.bytes_since_loss = self.bytes_since_loss.saturating_add(ev.bytes_acked);
        if !ev.in_recovery {
            // Recovery ended (with or without `on_recovery_exit`).
            self.in_recovery = false;
        }
        !ev.in_recovery && ev.cwnd_limited && ev.bytes_acked > 0
    }

    /// RFC 3465 slow start, capped at ssthresh (`cc/reno.rs`).
    pub fn slow_start(&mut self, bytes_acked: u64) {
        let inc = bytes_acked.min(ABC_LIMIT_SEGMENTS * self.mss);
        self.cwnd = self.cwnd.saturating_add(inc).min(self.ssthresh.max(self.cwnd));
        if self.cwnd >= self.ssthresh {
            self.ca_bytes = 0;
        }
    }

    /// Congestion avoidance by byte counting: one MSS per `bytes_per_mss` bytes acknowledged
    /// (Reno: `bytes_per_mss` = cwnd, RFC 3465 §2.1).
    pub fn count_bytes(&mut self, bytes_acked: u64, bytes_per_mss: u64) {
        self.ca_bytes = self.ca_bytes.saturating_add(bytes_acked);
        if self.ca_bytes >= bytes_per_mss {
            self.ca_bytes -= bytes_per_mss;
            self.cwnd = self.cwnd.saturating_add(self.mss);
        }
    }

    /// Reno's congestion avoidance.
    pub fn reno(&mut self, bytes_acked: u64) {
        self.count_bytes(bytes_acked, self.cwnd);
    }

    /// Congestion avoidance by a signed increase in segments (OLIA, BALIA): applied one MSS at
    /// a time, never below 1 MSS (Linux `mptcp_olia.c`: `max(1, snd_cwnd - 1)`).
    pub fn add_segments(&mut self, segments: f64) {
        self.ca_segments += segments;
        if self.ca_segments >= 1.0 {
            self.ca_segments -= 1.0;
            self.cwnd = self.cwnd.saturating_add(self.mss);
        } else if self.ca_segments <= -1.0 {
            self.ca_segments += 1.0;
            self.cwnd = self.cwnd.saturating_sub(self.mss).max(self.mss);
        }
    }

    /// RFC 5681 eq. (4): max(FlightSize/2, 2·SMSS).
    pub fn halve(&self, flight_size: u64) -> u64 {
        (flight_size / 2).max(2 * self.mss)
    }

    /// A loss: OLIA's ℓ moves on (Linux `mptcp_olia_set_state`: only when bytes were
    /// acknowledged since the previous loss).
    fn loss(&mut self) {
        if self.bytes_since_loss > 0 {
            self.bytes_between_losses = self.bytes_since_loss;
            self.bytes_since_loss = 0;
        }
        self.ca_bytes = 0;
        self.ca_segments = 0.0;
    }

    /// Entering fast recovery with this ssthresh (cwnd = ssthresh, as `cc/reno.rs`).
    pub fn enter_recovery(&mut self, ssthresh: u64) {
        self.loss();
        self.ssthresh = ssthresh.max(2 * self.mss);
        self.cwnd = self.ssthresh;
        self.in_recovery = true;
    }

    pub fn exit_recovery(&mut self) {
        self.in_recovery = false;
    }

    /// A retransmission timeout: ssthresh from `reduced` unless it hit during recovery, cwnd =
    /// 1 SMSS (RFC 5681 §3.1).
    pub fn timeout(&mut self, ev: &LossEvent, reduced: impl FnOnce(&Self) -> u64) {
        if !ev.during_recovery {
            self.ssthresh = reduced(self).max(2 * self.mss);
            self.loss();
        }
        self.ca_bytes = 0;
        self.ca_segments = 0.0;
        self.cwnd = self.mss;
        self.in_recovery = false;
    }

    pub fn view(&self) -> SubflowCcView {
        SubflowCcView {
            active: true,
            cwnd: self.cwnd,
            ssthresh: self.ssthresh,
            srtt: self.srtt,
            min_rtt: self.min_rtt,
            mss: self.mss.min(u32::MAX as u64) as u32,
            bytes_since_loss: self.bytes_since_loss,
            bytes_between_losses: self.bytes_between_losses,
            rate: 0,
        }
    }

    pub fn state_name(&self) -> &'static str {
        if self.in_recovery {
            "recovery"
        } else if self.in_slow_start() {
            "slow_start"
        } else {
            "congestion_avoidance"
        }
    }
}

/// The coupled algorithms, statically dispatched (`Coupled` holds one, alone or with a per-path
/// controller).
#[derive(Clone, Debug)]
pub enum CoupledAlgo {
    Lia(Lia),
    Olia(Olia),
    Balia(Balia),
    Wvegas(Wvegas),
}

macro_rules! dispatch {
    ($self:ident, $c:ident => $e:expr) => {
        match $self {
            CoupledAlgo::Lia($c) => $e,
            CoupledAlgo::Olia($c) => $e,
            CoupledAlgo::Balia($c) => $e,
            CoupledAlgo::Wvegas($c) => $e,
        }
    };
}

impl CongestionControl for CoupledAlgo {
    fn reads_rate_samples(&self) -> bool {
        dispatch!(self, c => c.reads_rate_samples())
    }
    fn counts_rounds(&self) -> bool {
        dispatch!(self, c => c.counts_rounds())
    }
    fn on_packet_sent(&mut self, now: Time, bytes: u32, in_flight: u64) {
        dispatch!(self, c => c.on_packet_sent(now, bytes, in_flight))
    }
    fn on_ack(&mut self, ev: &AckEvent) {
        dispatch!(self, c => c.on_ack(ev))
    }
    fn on_congestion_event(&mut self, ev: &LossEvent) {
        dispatch!(self, c => c.on_congestion_event(ev))
    }
    fn on_recovery_exit(&mut self, now: Time) {
        dispatch!(self, c => c.on_recovery_exit(now))
    }
    fn on_rto(&mut self, ev: &LossEvent) {
        dispatch!(self, c => c.on_rto(ev))
    }
    fn window(&self) -> u64 {
        dispatch!(self, c => c.window())
    }
    fn ssthresh(&self) -> u64 {
        dispatch!(self, c => c.ssthresh())
    }
    fn state_name(&self) -> &'static str {
        dispatch!(self, c => c.state_name())
    }
    fn coupled_view(&self) -> Option<SubflowCcView> {
        dispatch!(self, c => c.coupled_view())
    }
    fn couple(&mut self, views: &[SubflowCcView], me: usize) {
        dispatch!(self, c => c.couple(views, me))
    }
}
