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

mod config;
pub mod coupled;
#[cfg(test)]
mod fuzz;
pub mod hystart;
pub mod hystart_linux;
pub mod options;
pub mod registry;

registry::controllers! {
    path {
        mod reno: "reno" [] Reno => Reno(reno::Reno) = |p| reno::Reno::new(p, reno::Recovery::Reno),
            "AIMD slow start / congestion avoidance; without SACK, Reno fast recovery (exits on the first new ACK)",
            "RFC 5681 §3.1–3.2";
        "newreno" [] NewReno => NewReno(reno::Reno) = |p| reno::Reno::new(p, reno::Recovery::NewReno),
            "Reno window with NewReno fast recovery (stays in recovery across partial ACKs) when SACK is off",
            "RFC 5681 §3.1, RFC 6582 §3.2";
        mod cubic: "cubic" [] Cubic(cubic::CubicConfig) => Cubic(cubic::Cubic) = |p, c| cubic::Cubic::new(p, c),
            "cubic window growth W(t) = C(t-K)^3 + W_max, beta 0.7, fast convergence, Reno-friendly region, HyStart++ slow-start exit",
            "RFC 9438; RFC 9406 (HyStart++)";
        // BBR's state is large; boxing keeps the enum (and every TCP sender) small.
        mod bbr: "bbr" ["bbr1"] Bbr(bbr::BbrConfig) => Bbr(Box<bbr::Bbr>) = |p, c| Box::new(bbr::Bbr::new(p, c)),
            "BBR v1: model-based (max bandwidth, min RTT), paced; STARTUP, DRAIN, PROBE_BW gain cycling, PROBE_RTT; ignores loss beyond recovery",
            "draft-cardwell-iccrg-bbr-congestion-control-00; Linux tcp_bbr.c";
        mod bbr2: "bbr2" ["bbr3"] Bbr2(bbr2::Bbr2Config) => Bbr2(Box<bbr2::Bbr2>) = |p, c| Box::new(bbr2::Bbr2::new(p, c)),
            "BBRv2/v3: BBR with loss-bounded inflight_hi/inflight_lo, 2% loss threshold, beta 0.7, PROBE_BW DOWN/CRUISE/REFILL/UP",
            "draft-cardwell-ccwg-bbr-00 (BBRv3)";
        mod vegas: "vegas" [] Vegas(vegas::VegasConfig) => Vegas(vegas::Vegas) = |p, c| vegas::Vegas::new(p, c),
            "delay-based: keeps between alpha=2 and beta=4 packets queued at the bottleneck (Linux defaults)",
            "Brakmo & Peterson, IEEE JSAC 1995; Linux tcp_vegas.c";
    }
    coupled {
        "lia" [],
            "coupled multipath (MPTCP): linked increases, alpha from every subflow's cwnd/rtt, increase capped at Reno's; Reno on one subflow; also `lia+<path cc>`",
            "RFC 6356 §3 (eq. (1), (2)); Linux mptcp_coupled.c";
        "olia" [],
            "coupled multipath: opportunistic linked increases, shifts window from max-window paths to the best paths (inter-loss distance/rtt²); also `olia+<path cc>`",
            "Khalili, Gast, Popovic, Le Boudec, IEEE/ACM ToN 2013 (CoNEXT 2012); Linux mptcp_olia.c";
        "balia" [],
            "coupled multipath: balanced linked adaptation, alpha_r = max x / x_r in increase and decrease (min(alpha, 1.5)); also `balia+<path cc>`",
            "Peng, Walid, Hwang, Low, IEEE/ACM ToN 2016; draft-walid-mptcp-congestion-control-04 §3; Linux mptcp_balia.c";
        "wvegas" [],
            "coupled multipath, delay-based: weighted Vegas, alpha_r = rate share x total_alpha (10), queue draining; also `wvegas+<path cc>`",
            "Cao, Xu, Fu, ICNP 2012; Linux mptcp_wvegas.c";
    }
    other {
        // seed 002's reward/penalty controller.
        mod adaptive: "blp-adaptive" ["adaptive"] Adaptive(adaptive::AdaptiveConfig) => Adaptive(adaptive::Adaptive) = |p, c| adaptive::Adaptive::new(p, c),
            "reward/penalty window: cwnd x (1 +/- alpha^2 (1 - N_f/(1 + BT (N_l+N_s))) / B) per ACK / loss event, alpha = unacknowledged share of the last round; Reno slow start and RTO; exposes an optimal packet size",
            "seed 002 (Das et al., ICC Workshops 2025) §IV eq. (2)-(10)";
        // DCCP's congestion controllers, for the tunnels of seed 003.
        mod ccid2: "ccid2" [] Ccid2 => Ccid2(ccid2::Ccid2) = |p| ccid2::Ccid2::new(p),
            "DCCP TCP-like (CCID 2): window in packets from RFC 3390's initial window; slow start +1 per 2 acked packets (at most 1 per ACK), +1 per window in congestion avoidance; halved once per RTT, 1 packet after a timeout; no pacing",
            "RFC 4341 §5; Linux net/dccp/ccids/ccid2.c";
        mod ccid5: "ccid5" [] Ccid5(bbr::BbrConfig) => Ccid5(Box<ccid5::Ccid5>) = |p, c| Box::new(ccid5::Ccid5::new(p, c)),
            "BBR v1 for DCCP (CCID 5): bbr's model and pacing with the window rounded down to whole packets, 10 packets initially; options as bbr",
            "MP-DCCP Linux net/dccp/ccids/ccid5.c (a port of tcp_bbr.c)";
        // seed 004's 5-state NewReno; its CR state is driven by the `lossaware` scheduler.
        mod newreno5: "newreno5" [] NewReno5(newreno5::NewReno5Config) => NewReno5(newreno5::NewReno5) = |p, c| newreno5::NewReno5::new(p, c),
            "NewReno in whole packets, updated once per round: SS doubles, CA +1 up to w_max, FR halves, RTO to w_min, plus cwnd relaxation (CR: the scheduler caps the next round at what fits its period, sst untouched); starts at w_min with sst_start = 16",
            "seed 004 (Guo et al., ICC 2025) Sec. III, Figs. 1-2, Sec. VI case 2; RFC 6582";
    }
}

pub use config::Options;
pub use coupled::SubflowCcView;
use mptlab_engine::Time;
use options::OptValue;
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
    /// C.delivered when the most recently sent segment this ACK newly delivered was sent (the
    /// rate sample's `prior_delivered`); None when it newly delivered nothing. Controllers count
    /// round trips with it (`round_ended`). Unlike `rate` it is there for every controller that
    /// counts rounds, so that one need not read rate samples to do so.
    pub prior_delivered: Option<u64>,
}

impl AckEvent {
    /// A round trip that began when C.delivered was `round_start` has ended: this ACK newly
    /// delivered a segment sent after it began (RFC 9406 §4.2's windowEnd, in delivered bytes;
    /// draft-cheng-iccrg-delivery-rate-estimation's round counting). An ACK that newly delivered
    /// nothing never ends a round.
    #[inline]
    pub fn round_ended(&self, round_start: u64) -> bool {
        self.prior_delivered.is_some_and(|p| p >= round_start)
    }
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
    /// Seed 004's cwnd relaxation (CR): the scheduler found that the round starting now fits
    /// its scheduling period only with at most `packets` packets; a controller with a CR state
    /// holds or lowers its window to that (`newreno5`). The connection forwards the scheduler's
    /// `WindowCap` here; the others ignore it.
    fn cap_round(&mut self, _now: Time, _packets: u32) {}
    /// Reads `AckEvent::rate`. A transport may leave out the per-packet delivery-rate snapshots
    /// behind the samples for controllers that do not (the samples are then None). The default
    /// is the safe answer; the fuzz harness checks every controller that says false.
    fn reads_rate_samples(&self) -> bool {
        true
    }
    /// Reads `AckEvent::prior_delivered` (counts round trips) without reading rate samples:
    /// a transport that leaves out the snapshots behind rate samples must still give it the
    /// C.delivered of each packet's transmission. The fuzz harness checks every controller that
    /// says false for both.
    fn counts_rounds(&self) -> bool {
        false
    }
}

/// Parameters every controller is built with.
#[derive(Clone, Copy, Debug)]
pub struct CcParams {
    pub mss: u32,
    pub initial_cwnd_segments: u32,
}
