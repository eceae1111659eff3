//! Congestion control: one narrow trait, one file per controller, one registry of names.
//!
//! The transport calls the hooks with `now` and event data; a controller answers with `window()`
//! (bytes the sender may have in flight) and optionally `pacing_rate()`. Rate-based controllers
//! get a delivery-rate sample with every ACK (`AckEvent::rate`, estimated by the transport per
//! draft-cheng-iccrg-delivery-rate-estimation from state recorded with each segment when it was
//! sent). Coupled multipath controllers (`coupled/`) receive a read-only slice of subflow views
//! in addition (`CongestionControl::couple`). On the per-packet path the transport holds an
//! `AnyCc` enum (static dispatch); `CcConfig` (a name plus typed options) is the one place a
//! scenario becomes a controller.

pub mod adaptive;
pub mod bbr;
pub mod bbr2;
mod config;
pub mod coupled;
pub mod cubic;
#[cfg(test)]
mod fuzz;
pub mod hystart;
pub mod options;
pub mod registry;
pub mod reno;
pub mod vegas;

pub use config::{CcConfig, Options};
pub use coupled::SubflowCcView;
use mptlab_engine::Time;
pub use reno::Reno;

/// One delivery-rate sample (draft-cheng-iccrg-delivery-rate-estimation-02 §3.3), taken from the
/// most recently sent segment that this ACK newly delivered.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RateSample {
    /// C.delivered when that segment was sent (BBR counts round trips with it).
    pub prior_delivered: u64,
    /// Bytes delivered between that segment's send and this ACK.
    pub delivered: u64,
    /// max(send_elapsed, ack_elapsed).
    pub interval: Time,
    /// delivered / interval in bytes per second; None when the interval is shorter than the
    /// minimum RTT (the draft's invalid sample) or zero.
    pub delivery_rate: Option<u64>,
    /// The segment was sent while the sender was application-limited (§3.4).
    pub is_app_limited: bool,
    /// Bytes in flight just after that segment was sent (BBRv2's tx_in_flight).
    pub tx_in_flight: u64,
    /// Bytes marked lost between that segment's send and this ACK.
    pub lost: u64,
    /// RTT of that segment (now − its send time).
    pub rtt: Time,
}

/// What an acknowledgment did, as the controller needs it.
#[derive(Clone, Copy, Debug, Default)]
pub struct AckEvent {
    pub now: Time,
    /// Bytes newly acknowledged cumulatively (RFC 3465's "bytes acknowledged"); window growth
    /// counts these.
    pub bytes_acked: u64,
    /// Bytes newly delivered by this ACK: cumulatively acknowledged (and not SACKed before) plus
    /// newly SACKed (the delivery-rate estimator's "delivered").
    pub bytes_delivered: u64,
    /// RTT measured from a segment this ACK newly covered (Karn's rule: never from a
    /// retransmitted one).
    pub rtt_sample: Option<Time>,
    pub srtt: Time,
    pub min_rtt: Time,
    /// Bytes in flight (RFC 6675 "pipe") before and after processing the ACK.
    pub prior_in_flight: u64,
    pub in_flight: u64,
    /// The sender is in fast recovery (RFC 6675 §5 / RFC 6582): window growth is suspended.
    pub in_recovery: bool,
    /// The window was the limit on sending (RFC 7661's "cwnd-limited"); an application-limited
    /// sender must not grow its window.
    pub cwnd_limited: bool,
    pub mss: u32,
    /// Bytes newly marked lost while processing this ACK.
    pub bytes_lost: u64,
    /// The connection's totals: bytes ever delivered (C.delivered) and ever marked lost.
    pub delivered_total: u64,
    pub lost_total: u64,
    /// The delivery-rate sample of this ACK, if it newly delivered data.
    pub rate: Option<RateSample>,
}

/// A loss event: entering fast recovery, or a retransmission timeout.
#[derive(Clone, Copy, Debug, Default)]
pub struct LossEvent {
    pub now: Time,
    /// RFC 5681's FlightSize: bytes outstanding when the loss was detected.
    pub flight_size: u64,
    pub mss: u32,
    /// A timeout that hit while the sender was already recovering from a loss (fast recovery or
    /// an earlier timeout): that congestion event has reduced ssthresh already, so it is not
    /// reduced again (Linux `tcp_enter_loss` recomputes ssthresh only from the Open state).
    pub during_recovery: bool,
}

/// Controller state worth tracing.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct CcMetrics {
    pub cwnd: u64,
    pub ssthresh: u64,
    pub pacing_rate: Option<u64>,
}

pub trait CongestionControl {
    fn on_packet_sent(&mut self, _now: Time, _bytes: u32, _in_flight: u64) {}
    fn on_ack(&mut self, ev: &AckEvent);
    /// Entering fast recovery (once per window of data, RFC 5681 §3.2 step 2).
    fn on_congestion_event(&mut self, ev: &LossEvent);
    fn on_recovery_exit(&mut self, _now: Time) {}
    /// Retransmission timeout (RFC 5681 §3.1 eq. 4 and the loss window).
    fn on_rto(&mut self, ev: &LossEvent);
    /// Congestion window in bytes.
    fn window(&self) -> u64;
    fn ssthresh(&self) -> u64;
    /// Pacing rate in payload bytes per second (the unit of `RateSample` and of the window;
    /// headers are not charged), if this controller paces.
    fn pacing_rate(&self) -> Option<u64> {
        None
    }
    /// Without SACK: leave recovery on the first new ACK (classic Reno, RFC 5681 §3.2 step 6)
    /// instead of on the full ACK of the recovery point (NewReno, RFC 6582).
    fn exits_recovery_on_partial_ack(&self) -> bool {
        false
    }
    /// Bytes the sender may release back to back while pacing (BBR's send_quantum); None lets
    /// the transport use min(rate · 1 ms, 64 KB), at least 2 segments.
    fn send_quantum(&self) -> Option<u64> {
        None
    }
    /// Whether the transport applies Proportional Rate Reduction (RFC 6937) during fast
    /// recovery. Controllers that set their own window in recovery (BBR's packet conservation)
    /// return false, as Linux skips PRR for controllers with `cong_control`.
    fn uses_prr(&self) -> bool {
        true
    }
    /// The controller's current state (for state-machine controllers), for traces and tests.
    fn state_name(&self) -> &'static str {
        "open"
    }
    fn metrics(&self) -> CcMetrics {
        CcMetrics { cwnd: self.window(), ssthresh: self.ssthresh(), pacing_rate: self.pacing_rate() }
    }
    /// Coupled multipath controllers: this subflow's state for its peers (None: uncoupled).
    fn coupled_view(&self) -> Option<SubflowCcView> {
        None
    }
    /// Coupled multipath controllers: every subflow's view (this one at index `me`), handed
    /// over before each ACK, loss and timeout event of this subflow.
    fn couple(&mut self, _views: &[SubflowCcView], _me: usize) {}
    /// A controller that also chooses the packet size (seed 002 eq. 8, `blp-adaptive`): the
    /// payload bytes per packet it wants now (None: the transport's maximum).
    fn packet_size(&self) -> Option<u32> {
        None
    }
    /// Reads `AckEvent::rate`. A transport may leave out the per-packet delivery-rate snapshots
    /// behind the samples for controllers that do not (the samples are then None). The default
    /// is the safe answer; the fuzz harness checks every controller that says false.
    fn reads_rate_samples(&self) -> bool {
        true
    }
}

/// Static dispatch over every controller (the per-packet path never goes through `dyn`).
pub enum AnyCc {
    Reno(Reno),
    Cubic(cubic::Cubic),
    // BBR's state is large; boxing keeps the enum (and every TCP sender) small.
    Bbr(Box<bbr::Bbr>),
    Bbr2(Box<bbr2::Bbr2>),
    Vegas(vegas::Vegas),
    // A coupled multipath controller (LIA, OLIA, BALIA, wVegas), alone or composed with a
    // per-path controller (which is itself an `AnyCc`: boxed).
    Coupled(Box<coupled::Coupled>),
    /// seed 002's reward/penalty controller (`blp-adaptive`).
    Adaptive(adaptive::Adaptive),
}

macro_rules! dispatch {
    ($self:ident, $c:ident => $e:expr) => {
        match $self {
            AnyCc::Reno($c) => $e,
            AnyCc::Cubic($c) => $e,
            AnyCc::Bbr($c) => $e,
            AnyCc::Bbr2($c) => $e,
            AnyCc::Vegas($c) => $e,
            AnyCc::Coupled($c) => $e,
            AnyCc::Adaptive($c) => $e,
        }
    };
}

impl CongestionControl for AnyCc {
    #[inline]
    fn on_packet_sent(&mut self, now: Time, bytes: u32, in_flight: u64) {
        dispatch!(self, c => c.on_packet_sent(now, bytes, in_flight))
    }
    #[inline]
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
    #[inline]
    fn window(&self) -> u64 {
        dispatch!(self, c => c.window())
    }
    fn ssthresh(&self) -> u64 {
        dispatch!(self, c => c.ssthresh())
    }
    #[inline]
    fn pacing_rate(&self) -> Option<u64> {
        dispatch!(self, c => c.pacing_rate())
    }
    fn exits_recovery_on_partial_ack(&self) -> bool {
        dispatch!(self, c => c.exits_recovery_on_partial_ack())
    }
    fn send_quantum(&self) -> Option<u64> {
        dispatch!(self, c => c.send_quantum())
    }
    fn state_name(&self) -> &'static str {
        dispatch!(self, c => c.state_name())
    }
    fn uses_prr(&self) -> bool {
        dispatch!(self, c => c.uses_prr())
    }
    fn coupled_view(&self) -> Option<SubflowCcView> {
        dispatch!(self, c => c.coupled_view())
    }
    fn couple(&mut self, views: &[SubflowCcView], me: usize) {
        dispatch!(self, c => c.couple(views, me))
    }
    #[inline]
    fn packet_size(&self) -> Option<u32> {
        match self {
            AnyCc::Adaptive(c) => c.packet_size(),
            _ => None,
        }
    }
    fn reads_rate_samples(&self) -> bool {
        dispatch!(self, c => c.reads_rate_samples())
    }
}

/// Parameters every controller is built with.
#[derive(Clone, Copy, Debug)]
pub struct CcParams {
    pub mss: u32,
    pub initial_cwnd_segments: u32,
}
