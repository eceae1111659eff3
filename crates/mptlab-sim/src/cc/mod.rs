//! Congestion control: one narrow trait, one file per controller, one registry of names.
//!
//! The transport calls the hooks with `now` and event data; a controller answers with `window()`
//! (bytes the sender may have in flight) and optionally `pacing_rate()`. The hooks are shaped for
//! what comes next: BBR needs delivery-rate samples (`AckEvent::delivered` and friends), coupled
//! multipath controllers will receive a read-only slice of subflow views in addition.
//! On the per-packet path the transport holds an `AnyCc` enum (static dispatch); `build` is the
//! one place a name becomes a controller.

pub mod registry;
pub mod reno;

use mptlab_engine::Time;
pub use reno::Reno;

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
    /// Pacing rate in bytes per second, if this controller paces.
    fn pacing_rate(&self) -> Option<u64> {
        None
    }
    /// Without SACK: leave recovery on the first new ACK (classic Reno, RFC 5681 §3.2 step 6)
    /// instead of on the full ACK of the recovery point (NewReno, RFC 6582).
    fn exits_recovery_on_partial_ack(&self) -> bool {
        false
    }
    fn metrics(&self) -> CcMetrics {
        CcMetrics { cwnd: self.window(), ssthresh: self.ssthresh(), pacing_rate: self.pacing_rate() }
    }
}

/// Static dispatch over every controller (the per-packet path never goes through `dyn`).
pub enum AnyCc {
    Reno(Reno),
}

macro_rules! dispatch {
    ($self:ident, $c:ident => $e:expr) => {
        match $self {
            AnyCc::Reno($c) => $e,
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
}

/// Parameters every controller is built with.
#[derive(Clone, Copy, Debug)]
pub struct CcParams {
    pub mss: u32,
    pub initial_cwnd_segments: u32,
}

/// Build a controller from its registry name (already validated by the scenario layer).
pub fn build(name: &str, p: CcParams) -> Result<AnyCc, String> {
    match registry::resolve(registry::CONGESTION_CONTROLLERS, name) {
        Some("reno") => Ok(AnyCc::Reno(Reno::new(p, reno::Recovery::Reno))),
        Some("newreno") => Ok(AnyCc::Reno(Reno::new(p, reno::Recovery::NewReno))),
        _ => Err(format!(
            "unknown congestion controller '{name}' (valid: {})",
            registry::names(registry::CONGESTION_CONTROLLERS).join(", ")
        )),
    }
}
