//! The sending half of a TCP connection: handshake initiator, segmentation, scoreboard, loss
//! recovery, RTO, flow control, zero-window probes and pacing. See `mod.rs` for the sources.
//!
//! Recovery phases (Linux names): Open → Recovery (fast recovery, RFC 6675 / RFC 6582) → Open;
//! Open|Recovery → Loss (after an RTO) → Open once the recovery point is acknowledged.
//! Interpretations:
//! - Entering recovery and a NewReno partial ACK retransmit the first lost segment at once,
//!   whatever the pipe (RFC 6675 (4.3), RFC 6582 §3.2 steps 2 and 5); later retransmissions
//!   and new data wait for cwnd − pipe ≥ 1 SMSS.
//! - During fast recovery the window is set per ACK by Proportional Rate Reduction (RFC 6937
//!   §3.1, PRR-SSRB, as Linux `tcp_cwnd_reduction`) instead of jumping to ssthresh, unless the
//!   controller runs its own recovery (`CongestionControl::uses_prr`, false for BBR).
//! - Without SACK, each duplicate ACK counts one segment as having left the network (Linux's
//!   `tcp_add_reno_sack`), which gives RFC 3042 limited transmit and the window inflation of
//!   RFC 6582 without a separate inflated cwnd.
//! - The rescue retransmission of RFC 6675 §4 rule 4 is not implemented.
//! - RFC 6675 detects a lost retransmission only by RTO. Like Linux (RACK, RFC 8985 §6.2), a
//!   retransmission is deemed lost when a segment sent more than min_RTT/4 after it has been
//!   delivered; it is then retransmitted again.
//! - Window growth counts cumulatively acknowledged bytes (RFC 3465), not SACKed ones, so a
//!   sender whose cumulative ACK is stuck after an RTO does not open its window on SACKs.
//! - Tail loss probes (RFC 8985 §7) share the sender's timer with the RTO: see `tlp.rs`.

use super::config::TcpConfig;
use super::rate::RateEstimator;
use super::rtt::RttEstimator;
use super::scoreboard::{Delivered, Scoreboard, DUP_THRESH, RETRANS, SACKED};
use super::tlp::{ProbeOutcome, Tlp};
use crate::cc::{AckEvent, AnyCc, CongestionControl, LossEvent};
use crate::transport::segment::{TcpHeader, FLAG_ACK, FLAG_PROBE, FLAG_SYN};
use mptlab_engine::time::SECOND;
use mptlab_engine::Time;

/// The earlier of two optional times (`None`: not set).
#[inline]
fn earliest(a: Option<Time>, b: Option<Time>) -> Option<Time> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct SenderStats {
    /// Data segments sent, retransmissions included.
    pub segments_sent: u64,
    pub bytes_sent: u64,
    pub retransmissions: u64,
    pub fast_recoveries: u64,
    pub rto_count: u64,
    /// Tail loss probes sent (RFC 8985 §7.3).
    pub tlp_probes: u64,
    /// Losses a retransmitted probe repaired, each answered by a window reduction (§7.4;
    /// Linux's TCPLossProbeRecovery).
    pub tlp_recoveries: u64,
    pub probes_sent: u64,
    pub syns_sent: u64,
    pub established_at: Option<Time>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Idle,
    SynSent,
    Established,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Open,
    Recovery,
    Loss,
}

pub struct TcpSender {
    cfg: TcpConfig,
    cc: AnyCc,
    state: State,
    phase: Phase,
    recovery_point: u64,
    snd_una: u64,
    snd_nxt: u64,
    write_end: u64,
    unlimited: bool,
    snd_wnd: u64,
    sb: Scoreboard,
    /// Without SACK: bytes presumed delivered because of duplicate ACKs.
    dup_sacked: u64,
    dupacks: u32,
    rtt: RttEstimator,
    rto_at: Option<Time>,
    persist_at: Option<Time>,
    persist_backoff: u32,
    pace_at: Time,
    pacing_wait: Option<Time>,
    force_retransmit: bool,
    syn_sent_at: Time,
    syn_retransmitted: bool,
    cwnd_limited: bool,
    rate: RateEstimator,
    /// The controller's current state.
    cc_state: Option<&'static str>,
    /// Every state change (time, new state), kept only when `keep_cc_history` asks for it
    /// (tests): a long run changes state without end (each loss, each BBR gain cycle), so a
    /// default history would grow with run length (issue 20).
    cc_history: Option<Vec<(Time, &'static str)>>,
    /// RFC 6937 state: bytes delivered and sent since recovery began, the FlightSize at its
    /// start, and the window PRR allows after the latest ACK.
    prr_delivered: u64,
    prr_out: u64,
    recover_fs: u64,
    prr_cwnd: u64,
    /// Nanoseconds per payload byte at the current pacing rate (None: not pacing).
    pacing_ns_per_byte: Option<f64>,
    /// Partial ACKs seen in the current NewReno recovery.
    partial_acks: u32,
    /// New data sent on duplicate ACKs before recovery (RFC 3042 limited transmit).
    limited_transmit_bytes: u64,
    /// RFC 8985 RACK.xmit_ts: the latest send time among delivered segments.
    rack_xmit_ts: Time,
    tlp: Tlp,
    /// An MPTCP subflow: each write is one chunk with its own DSS mapping, and a segment never
    /// spans two chunks (Linux does not collapse skbs with different mappings); the peer's
    /// window is the connection's business (`peer_window`).
    mptcp_subflow: bool,
    /// Subflows: ends of the written chunks not yet fully sent, in order.
    chunk_ends: std::collections::VecDeque<u64>,
    pub stats: SenderStats,
}

impl TcpSender {
    pub fn new(cfg: TcpConfig, cc: AnyCc) -> Self {
        let samples = cc.reads_rate_samples();
        Self {
            rtt: RttEstimator::new(cfg.rto, cfg.initial_rto, cfg.min_rto, cfg.max_rto),
            cfg,
            cc,
            state: State::Idle,
            phase: Phase::Open,
            recovery_point: 0,
            snd_una: 0,
            snd_nxt: 0,
            write_end: 0,
            unlimited: false,
            snd_wnd: cfg.recv_buffer,
            sb: Scoreboard::new(samples),
            dup_sacked: 0,
            dupacks: 0,
            rto_at: None,
            persist_at: None,
            persist_backoff: 0,
            pace_at: 0,
            pacing_wait: None,
            force_retransmit: false,
            syn_sent_at: 0,
            syn_retransmitted: false,
            cwnd_limited: false,
            rack_xmit_ts: 0,
            tlp: Tlp::default(),
            mptcp_subflow: false,
            chunk_ends: std::collections::VecDeque::new(),
            limited_transmit_bytes: 0,
            partial_acks: 0,
            pacing_ns_per_byte: None,
            prr_delivered: 0,
            prr_out: 0,
            recover_fs: 0,
            prr_cwnd: 0,
            // Samples only for a controller that reads them (NewReno does not).
            rate: RateEstimator::new(samples),
            cc_state: None,
            cc_history: None,
            stats: SenderStats::default(),
        }
    }

    // ----- application side -------------------------------------------------------------

    /// A greedy application: the send buffer is always full.
    pub fn set_unlimited(&mut self) {
        self.unlimited = true;
    }

    /// Bytes its growable containers hold (`transport::footprint`).
    pub fn memory_footprint(&self) -> usize {
        use crate::transport::footprint::{deque, slice};
        self.sb.memory_footprint() + self.cc_history.as_deref().map_or(0, slice) + deque(&self.chunk_ends)
    }

    /// Free space in the send buffer (bytes written but not yet acknowledged occupy it).
    pub fn buffer_free(&self) -> u64 {
        if self.unlimited {
            return 0;
        }
        self.cfg.send_buffer.saturating_sub(self.write_end - self.snd_una)
    }

    /// The application stops producing: a greedy sender keeps only what it has already sent.
    pub fn close_writes(&mut self) {
        if self.unlimited {
            self.unlimited = false;
            self.write_end = self.snd_nxt;
        }
    }

    /// Queue up to `bytes` of application data; returns how many the buffer took.
    pub fn write(&mut self, bytes: u64) -> u64 {
        let n = bytes.min(self.buffer_free());
        self.write_end += n;
        if self.mptcp_subflow && n > 0 {
            self.chunk_ends.push_back(self.write_end);
        }
        n
    }

    /// The window the peer advertises. An MPTCP subflow's ACKs carry the connection-level
    /// window (RFC 8684 §3.3.4), which the connection enforces; the subflow itself ignores it.
    #[inline]
    fn peer_window(&self, h: &TcpHeader) -> u64 {
        if self.mptcp_subflow {
            self.snd_wnd
        } else {
            h.wnd
        }
    }

    /// Run as an MPTCP subflow (see `mptcp_subflow`).
    pub fn set_mptcp_subflow(&mut self) {
        self.mptcp_subflow = true;
    }

    /// At most `len` bytes of new data from SND.NXT, cut at the end of the current chunk.
    #[inline]
    fn new_segment_len(&mut self, len: u64) -> u64 {
        if !self.mptcp_subflow {
            return len;
        }
        while self.chunk_ends.front().is_some_and(|&e| e <= self.snd_nxt) {
            self.chunk_ends.pop_front();
        }
        self.chunk_ends.front().map_or(len, |&e| len.min(e - self.snd_nxt))
    }

    /// Open the connection (SYN) or, without a handshake, start sending.
    pub fn start(&mut self, now: Time, out: &mut Vec<TcpHeader>) {
        if self.cfg.handshake {
            self.state = State::SynSent;
            self.send_syn(now, out);
        } else {
            self.state = State::Established;
            self.stats.established_at = Some(now);
            self.try_send(now, out);
        }
    }

    fn send_syn(&mut self, now: Time, out: &mut Vec<TcpHeader>) {
        self.syn_sent_at = now;
        self.stats.syns_sent += 1;
        out.push(TcpHeader { flags: FLAG_SYN, ..Default::default() });
        self.rto_at = Some(now + self.rtt.rto());
    }

    // ----- accessors --------------------------------------------------------------------

    pub fn is_established(&self) -> bool {
        self.state == State::Established
    }
    pub fn phase(&self) -> Phase {
        self.phase
    }
    pub fn cwnd(&self) -> u64 {
        self.cc.window()
    }
    pub fn ssthresh(&self) -> u64 {
        self.cc.ssthresh()
    }
    pub fn cc(&self) -> &AnyCc {
        &self.cc
    }
    /// The controller, for a multipath connection that couples it with its peers (`couple`) or
    /// penalises its subflow.
    pub fn cc_mut(&mut self) -> &mut AnyCc {
        &mut self.cc
    }
    /// End of the data written so far (the next write starts here).
    pub fn write_end(&self) -> u64 {
        self.write_end
    }
    /// Bytes written and not yet sent once.
    pub fn queued(&self) -> u64 {
        self.write_end.saturating_sub(self.snd_nxt)
    }
    /// Established, not waiting for pacing, nothing written and unsent, and the window has room
    /// for one more full segment: a segment written now would leave at once.
    #[inline]
    pub fn has_space(&self) -> bool {
        self.state == State::Established
            && self.pacing_wait.is_none()
            && self.write_end <= self.snd_nxt
            && self.in_flight() + self.cfg.mss as u64 <= self.send_window()
    }
    /// The sending rate the sender works with, in payload bytes per second: the pacing rate if
    /// it paces, else cwnd / SRTT (0 before the first RTT sample).
    pub fn rate_estimate(&self) -> u64 {
        if let Some(r) = self.pacing_rate() {
            return r;
        }
        match self.rtt.srtt() {
            Some(s) if s > 0 => (self.cc.window() as f64 * SECOND as f64 / s as f64) as u64,
            _ => 0,
        }
    }
    /// Reduce the window once as for a congestion event without loss recovery (MPTCP
    /// penalisation, Raiciu et al. NSDI 2012 §4.2: halve the window of the subflow that blocks
    /// the connection; the controller applies its own decrease factor).
    pub fn penalize(&mut self, now: Time) {
        if self.phase != Phase::Open {
            return;
        }
        let flight_size = self.flight_size(0);
        self.cc.on_congestion_event(&LossEvent { now, flight_size, mss: self.cfg.mss, during_recovery: false });
        self.cc.on_recovery_exit(now);
        self.note_cc_state(now);
    }

    /// A multipath scheduler caps the round starting now at `packets` packets (seed 004's CR;
    /// `CongestionControl::cap_round`), recorded as a state change like the other hooks.
    pub fn cap_round(&mut self, now: Time, packets: u32) {
        self.cc.cap_round(now, packets);
        self.note_cc_state(now);
    }

    /// FlightSize for a loss event (RFC 5681 eq. (4)): SND.NXT − SND.UNA less `excluded`
    /// (limited-transmit data), capped at cwnd. The cap is Linux's (its Reno halves cwnd,
    /// `tcp_reno_ssthresh`; CUBIC uses min(FlightSize, cwnd), RFC 9438 §4.6): after heavy loss
    /// with SACK, SND.NXT − SND.UNA counts every lost segment and can be several windows, and
    /// halving it would leave the window far above what the path holds (a capacity drop under
    /// an LTE-like rate model showed 29 000 retransmissions of 58 000 segments without it).
    #[inline]
    fn flight_size(&self, excluded: u64) -> u64 {
        (self.snd_nxt - self.snd_una).saturating_sub(excluded).min(self.cc.window())
    }
    pub fn rtt(&self) -> &RttEstimator {
        &self.rtt
    }
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    /// Segments and bytes ever marked lost by loss detection (SACK/RACK, RTO), never
    /// decreasing: what a scheduler sees of this path's losses.
    pub fn lost_totals(&self) -> (u64, u64) {
        (self.sb.lost_segments_total, self.sb.lost_total)
    }
    pub fn snd_nxt(&self) -> u64 {
        self.snd_nxt
    }
    pub fn snd_wnd(&self) -> u64 {
        self.snd_wnd
    }
    /// All data written so far has been acknowledged.
    pub fn all_acked(&self) -> bool {
        !self.unlimited && self.snd_una == self.write_end
    }
    /// RFC 6675 pipe: bytes believed to be in the network.
    #[inline]
    pub fn in_flight(&self) -> u64 {
        self.sb.pipe(self.snd_nxt - self.snd_una).saturating_sub(self.dup_sacked)
    }
    pub fn scoreboard(&self) -> &Scoreboard {
        &self.sb
    }

    /// Keep every state change from now on (`cc_state_changes`); call before the flow starts.
    pub fn keep_cc_history(&mut self) {
        self.cc_history.get_or_insert_with(Vec::new);
    }

    /// Every state the controller entered, with the time (STYLE: state changes as events),
    /// if `keep_cc_history` was called; empty otherwise.
    pub fn cc_state_changes(&self) -> &[(Time, &'static str)] {
        self.cc_history.as_deref().unwrap_or(&[])
    }

    /// The controller's current state (None before the flow starts).
    pub fn cc_state(&self) -> Option<&'static str> {
        self.cc_state
    }

    /// Record the controller's state if it changed (called after every controller hook). The
    /// names are constants, so the same pointer is the same name: that test is inlined into
    /// every hook's caller, and only a possible change makes a call (once per ACK, the call
    /// cost more than the test).
    #[inline(always)]
    fn note_cc_state(&mut self, now: Time) {
        let state = self.cc.state_name();
        if self.cc_state.is_none_or(|s| !std::ptr::eq(s, state)) {
            self.note_cc_state_change(now, state);
        }
    }

    #[inline(never)]
    fn note_cc_state_change(&mut self, now: Time, state: &'static str) {
        if self.cc_state != Some(state) {
            self.cc_state = Some(state);
            if let Some(h) = self.cc_history.as_mut() {
                h.push((now, state));
            }
        }
    }

    /// The earliest of the loss-probe, retransmission and persist timers (one engine timer).
    #[inline]
    pub fn deadline(&self) -> Option<Time> {
        // Pairwise rather than through an iterator over the three: asked after every input.
        earliest(earliest(self.tlp.at, self.rto_at), self.persist_at)
    }

    /// When the tail loss probe timer expires, if armed.
    pub fn pto_deadline(&self) -> Option<Time> {
        self.tlp.at
    }

    /// When the retransmission timer expires, if armed.
    pub fn rto_deadline(&self) -> Option<Time> {
        self.rto_at
    }

    /// When pacing lets the next segment leave, if the sender is waiting for it. Kept apart from
    /// `deadline` so that a pacing wait never disturbs the far-away RTO event (and vice versa).
    #[inline]
    pub fn pacing_deadline(&self) -> Option<Time> {
        self.pacing_wait
    }

    // ----- sending ----------------------------------------------------------------------

    #[inline]
    fn data_limit(&self) -> u64 {
        let cap = self.snd_una + self.cfg.send_buffer;
        if self.unlimited {
            cap
        } else {
            self.write_end.min(cap)
        }
    }

    /// Always inlined: called for every segment sent (the pacing and PRR branches fold away
    /// for a sender that uses neither).
    #[inline(always)]
    fn emit(&mut self, now: Time, seq: u64, len: u32, out: &mut Vec<TcpHeader>) {
        out.push(TcpHeader { flags: FLAG_ACK, seq, len, ..Default::default() });
        self.stats.segments_sent += 1;
        self.stats.bytes_sent += len as u64;
        if self.rto_at.is_none() {
            self.rto_at = Some(now + self.rtt.rto());
        }
        if let Some(ns_per_byte) = self.pacing_ns_per_byte {
            // Earliest departure time of the next segment at the pacing rate (payload bytes per
            // second, the unit of the delivery-rate estimator and of cwnd).
            self.pace_at = self.pace_at.max(now) + (len as f64 * ns_per_byte) as Time;
        }
        if self.phase == Phase::Recovery {
            self.prr_out += len as u64;
        }
        self.cc.on_packet_sent(now, len, self.in_flight());
    }

    /// The window that limits sending now: PRR's during fast recovery, else the controller's.
    #[inline]
    fn send_window(&self) -> u64 {
        if self.phase == Phase::Recovery && self.cc.uses_prr() {
            self.prr_cwnd
        } else {
            self.cc.window()
        }
    }

    /// RFC 6937 §3.1 on an ACK during recovery: how much may be sent in reply, as a window.
    fn update_prr(&mut self, delivered_data: u64) {
        let mss = self.cfg.mss as u64;
        self.prr_delivered += delivered_data;
        let pipe = self.in_flight();
        let ssthresh = self.cc.ssthresh();
        let sndcnt = if pipe > ssthresh {
            // Proportional rate reduction: CEIL(prr_delivered · ssthresh / RecoverFS) − prr_out.
            let target = (self.prr_delivered as u128 * ssthresh as u128).div_ceil(self.recover_fs.max(1) as u128) as u64;
            target.saturating_sub(self.prr_out)
        } else {
            // Slow-start reduction bound (PRR-SSRB).
            let limit = self.prr_delivered.saturating_sub(self.prr_out).max(delivered_data) + mss;
            (ssthresh - pipe).min(limit)
        };
        self.prr_cwnd = pipe + sndcnt;
    }

    /// The controller's pacing rate, else (with `pacing` on) Linux's internal pacing rate:
    /// cwnd / SRTT scaled by 200% in slow start and 120% in congestion avoidance
    /// (sysctl tcp_pacing_ss_ratio / tcp_pacing_ca_ratio), bytes per second.
    #[inline(always)]
    fn pacing_rate(&self) -> Option<u64> {
        if let Some(r) = self.cc.pacing_rate() {
            return Some(r);
        }
        if !self.cfg.pacing {
            return None;
        }
        let srtt = self.rtt.srtt()?.max(1);
        let cwnd = self.cc.window();
        let ratio = if cwnd < self.cc.ssthresh() / 2 { 2.0 } else { 1.2 };
        Some((cwnd as f64 * ratio * SECOND as f64 / srtt as f64) as u64)
    }

    /// Pacing lets a burst of up to one send quantum leave at once (like Linux's TSO-sized
    /// bursts, and BBR's send_quantum): the sender waits only when its earliest departure time
    /// is more than one quantum's worth of time ahead. Default quantum: min(rate · 1 ms, 64 KB),
    /// at least two segments (draft-cardwell-iccrg-bbr-congestion-control §4.2.3).
    #[inline]
    fn pacing_slack(&self, ns_per_byte: f64, rate: u64) -> Time {
        let mss = self.cfg.mss as u64;
        let quantum = self.cc.send_quantum().unwrap_or_else(|| (rate / 1000).clamp(2 * mss, 65_536));
        (quantum as f64 * ns_per_byte) as Time
    }

    fn retransmit(&mut self, now: Time, i: usize, out: &mut Vec<TcpHeader>) {
        let tx = self.rate.on_send(now, self.in_flight(), self.sb.get(i).len, self.sb.lost_total);
        let (seq, len) = self.sb.on_retransmit(i, now, tx);
        self.stats.retransmissions += 1;
        self.emit(now, seq, len, out);
    }

    /// Send whatever the windows, pacing and data allow (RFC 6675 §5 step (C) and NextSeg);
    /// new data (re)arms the loss probe (RFC 8985 §7.2).
    pub fn try_send(&mut self, now: Time, out: &mut Vec<TcpHeader>) {
        if self.state != State::Established {
            return;
        }
        let nxt = self.snd_nxt;
        self.send_loop(now, out);
        if self.snd_nxt > nxt {
            self.schedule_tlp(now);
        }
    }

    fn send_loop(&mut self, now: Time, out: &mut Vec<TcpHeader>) {
        let mss = self.cfg.mss as u64;
        // The pacing rate and quantum hold for this whole burst: computed once, not per segment.
        let rate = self.pacing_rate();
        self.pacing_ns_per_byte = rate.map(|r| SECOND as f64 / r.max(1) as f64);
        let slack = match (self.pacing_ns_per_byte, rate) {
            (Some(ns), Some(r)) => self.pacing_slack(ns, r),
            _ => 0,
        };
        loop {
            if self.pacing_ns_per_byte.is_some() && self.pace_at > now + slack {
                self.pacing_wait = Some(self.pace_at - slack);
                return;
            }
            self.pacing_wait = None;
            if self.force_retransmit {
                self.force_retransmit = false;
                if let Some(i) = self.sb.next_lost() {
                    self.retransmit(now, i, out);
                    continue;
                }
            }
            let pipe = self.in_flight();
            if pipe + mss > self.send_window() {
                self.cwnd_limited = true;
                return;
            }
            if let Some(i) = self.sb.next_lost() {
                self.retransmit(now, i, out);
                continue;
            }
            let avail = self.data_limit().saturating_sub(self.snd_nxt);
            if avail > 0 {
                let len = self.new_segment_len(avail.min(mss));
                let space = (self.snd_una + self.snd_wnd).saturating_sub(self.snd_nxt);
                let outstanding = self.snd_nxt - self.snd_una;
                let len = if space >= len {
                    len
                } else if space > 0 && outstanding == 0 {
                    space // a window smaller than a segment, nothing in flight: send what fits
                } else {
                    if space == 0 && outstanding == 0 && self.persist_at.is_none() {
                        self.arm_persist(now);
                    }
                    self.cwnd_limited = false;
                    return;
                };
                if self.phase == Phase::Open && self.dupacks > 0 {
                    self.limited_transmit_bytes += len;
                }
                self.send_new(now, len as u32, out);
                continue;
            }
            if self.phase == Phase::Recovery && self.cfg.sack {
                if let Some(i) = self.sb.next_unsacked_below_high_sack() {
                    self.retransmit(now, i, out);
                    continue;
                }
            }
            // Out of application data with room in the window: application-limited.
            self.rate.on_app_limited(self.in_flight());
            self.cwnd_limited = false;
            return;
        }
    }

    /// Send `len` bytes of new data at SND.NXT.
    #[inline]
    fn send_new(&mut self, now: Time, len: u32, out: &mut Vec<TcpHeader>) {
        let seq = self.snd_nxt;
        let tx = self.rate.on_send(now, self.in_flight(), len, self.sb.lost_total);
        self.sb.push(seq, len, now, tx);
        self.snd_nxt += len as u64;
        self.emit(now, seq, len, out);
    }

    fn arm_persist(&mut self, now: Time) {
        let t = self.rtt.rto().checked_shl(self.persist_backoff).unwrap_or(self.cfg.max_rto).min(self.cfg.max_rto);
        self.persist_at = Some(now + t);
    }

    // ----- acknowledgments --------------------------------------------------------------

    pub fn on_ack(&mut self, now: Time, h: &TcpHeader, out: &mut Vec<TcpHeader>) {
        match self.state {
            State::Idle => return,
            State::SynSent => {
                if h.has(FLAG_SYN) {
                    self.state = State::Established;
                    self.stats.established_at = Some(now);
                    if self.syn_retransmitted {
                        // RFC 6298 (5.7): the RTO is re-initialised to 3 s for the data phase.
                        self.rtt.reinitialize(3 * SECOND);
                    } else {
                        self.rtt.on_sample(now - self.syn_sent_at);
                        self.tlp.on_rtt_sample();
                    }
                    self.rto_at = None;
                    self.snd_wnd = self.peer_window(h);
                    self.try_send(now, out);
                }
                return;
            }
            State::Established => {}
        }
        if h.has(FLAG_SYN) || h.ack < self.snd_una {
            return; // duplicate SYN-ACK or a stale ACK
        }
        let mss = self.cfg.mss as u64;
        let ack = h.ack.min(self.snd_nxt);
        let outstanding_before = self.snd_nxt - self.snd_una;
        let prior_in_flight = self.in_flight();
        let advanced = ack > self.snd_una;
        let window_changed = self.peer_window(h) != self.snd_wnd;
        let mut d = Delivered::default();
        let bytes_acked = ack.saturating_sub(self.snd_una);
        let lost_before = self.sb.lost_total;
        if advanced {
            self.sb.ack_to(ack, &mut d);
            self.snd_una = ack;
        }
        if self.cfg.sack {
            for blk in h.sack_blocks() {
                self.sb.apply_sack(*blk, self.snd_una, self.snd_nxt, &mut d);
            }
        }
        self.snd_wnd = self.peer_window(h);
        let rtt_sample = d.rtt_sample_sent_at().map(|t| now - t);
        if let Some(r) = rtt_sample {
            self.rtt.on_sample(r);
            self.tlp.on_rtt_sample();
        }

        // Duplicate ACK per RFC 5681 §2 (outstanding data, no payload, same ACK and window).
        let is_dup = !advanced && outstanding_before > 0 && h.len == 0 && !window_changed;
        if advanced {
            self.dupacks = 0;
            self.limited_transmit_bytes = 0;
        } else if is_dup {
            self.dupacks += 1;
        }
        if let Some(t) = d.newest_sent_at {
            self.rack_xmit_ts = self.rack_xmit_ts.max(t);
            // RFC 8985 §6.2 reordering window: min_RTT / 4.
            self.sb.detect_lost_retransmissions(self.rack_xmit_ts, self.rtt.min_rtt() / 4);
        }
        if self.cfg.sack {
            self.sb.update_lost(self.cfg.mss);
        } else if advanced {
            // Linux tcp_remove_reno_sacks: all but one newly acked segment were counted already.
            self.dup_sacked = self.dup_sacked.saturating_sub(d.bytes.saturating_sub(mss));
        } else if is_dup {
            self.dup_sacked = (self.dup_sacked + mss).min((self.snd_nxt - self.snd_una).saturating_sub(mss));
        }
        let probe_outcome = self.on_ack_probe(now, ack, !advanced && d.bytes == 0 && h.len == 0 && !window_changed);
        let was_in_recovery = self.phase == Phase::Recovery;
        self.update_recovery(now, advanced);
        if self.phase == Phase::Recovery {
            // DeliveredData (RFC 6937 §3): newly ACKed or SACKed bytes; without SACK the change
            // in snd.una, or one segment per duplicate ACK.
            let delivered_data = if self.cfg.sack {
                d.bytes
            } else if is_dup {
                mss
            } else {
                bytes_acked
            };
            self.update_prr(delivered_data);
        }

        let newest = d.newest_tx();
        // Each record keeps C.delivered at its transmission, so this is there with or without samples.
        let prior_delivered = RateEstimator::prior_delivered(d.bytes, newest);
        let rate = self.rate.on_ack(now, d.bytes, newest, self.sb.lost_total, self.rtt.min_rtt());
        let in_flight = self.in_flight();
        let cwnd = self.cc.window();
        let slow_start = cwnd < self.cc.ssthresh();
        let cwnd_limited = self.cwnd_limited || prior_in_flight + mss > cwnd || (slow_start && cwnd < 2 * prior_in_flight);
        self.cc.on_ack(&AckEvent {
            now,
            bytes_acked,
            bytes_delivered: d.bytes,
            rtt_sample,
            srtt: self.rtt.srtt().unwrap_or(0),
            min_rtt: self.rtt.min_rtt(),
            prior_in_flight,
            in_flight,
            // The ACK that ends recovery deflates the window to ssthresh (RFC 6582 §3.2 step 3);
            // it does not also grow it.
            in_recovery: was_in_recovery || self.phase == Phase::Recovery || probe_outcome == ProbeOutcome::Repaired,
            cwnd_limited,
            mss: self.cfg.mss,
            bytes_lost: self.sb.lost_total - lost_before,
            delivered_total: self.rate.delivered,
            lost_total: self.sb.lost_total,
            rate,
            prior_delivered,
        });
        self.note_cc_state(now);

        // RFC 6298 (5.2)/(5.3): stop the timer when all is acknowledged, restart on new data;
        // during NewReno recovery only on the first partial ACK (RFC 6582 §3.2 step 5, the
        // "Impatient" variant), so that a window with many holes falls back to a timeout.
        let newreno_later_partial = self.phase == Phase::Recovery && !self.cfg.sack && self.partial_acks > 1;
        if self.snd_una == self.snd_nxt {
            self.rto_at = None;
        } else if advanced && !newreno_later_partial {
            self.rto_at = Some(now + self.rtt.rto());
        }
        if self.snd_wnd > 0 {
            self.persist_at = None;
            self.persist_backoff = 0;
        }
        // RFC 8985 §7.2: an ACK of new data, or new data sent in reply, restarts the PTO (once);
        // a PTO that may no longer be armed (recovery, SACKed data) is cancelled.
        let nxt = self.snd_nxt;
        self.send_loop(now, out);
        if advanced || self.snd_nxt > nxt || !self.tlp_allowed() {
            self.schedule_tlp(now);
        }
    }

    /// RFC 8985 §7.4 and the probe's SACK (see `tlp.rs`); before recovery is decided.
    fn on_ack_probe(&mut self, now: Time, ack: u64, pure_dup: bool) -> ProbeOutcome {
        let Some((seq, sent_at)) = self.tlp.outstanding_probe() else { return ProbeOutcome::Pending };
        if self.cfg.sack && self.sb.is_sacked(seq) {
            self.sb.mark_lost_sent_before(seq, sent_at, self.rtt.min_rtt() / 4);
        }
        let outcome = self.tlp.on_ack(ack, pure_dup);
        if outcome == ProbeOutcome::Repaired && self.phase == Phase::Open {
            // One congestion event, entered and left at once (Linux: CWR then Open).
            self.stats.tlp_recoveries += 1;
            let flight_size = self.flight_size(0);
            self.cc.on_congestion_event(&LossEvent { now, flight_size, mss: self.cfg.mss, during_recovery: false });
            self.cc.on_recovery_exit(now);
            self.note_cc_state(now);
        }
        outcome
    }

    fn update_recovery(&mut self, now: Time, advanced: bool) {
        match self.phase {
            Phase::Recovery | Phase::Loss if self.snd_una >= self.recovery_point => {
                if self.phase == Phase::Recovery {
                    self.cc.on_recovery_exit(now);
                    self.note_cc_state(now);
                }
                self.phase = Phase::Open;
                self.dup_sacked = 0;
            }
            Phase::Recovery if advanced && !self.cfg.sack => {
                if self.cc.exits_recovery_on_partial_ack() {
                    // Classic Reno: any new ACK ends fast recovery (RFC 5681 §3.2 step 6).
                    self.phase = Phase::Open;
                    self.dup_sacked = 0;
                    self.dupacks = 0;
                    self.cc.on_recovery_exit(now);
                    self.note_cc_state(now);
                } else {
                    // NewReno partial ACK (RFC 6582 §3.2 step 5): retransmit the next hole now.
                    self.sb.mark_first_lost();
                    self.force_retransmit = true;
                    self.partial_acks += 1;
                }
            }
            _ => {}
        }
        if self.phase != Phase::Open {
            return;
        }
        // With SACK, recovery starts as soon as any segment is deemed lost and not yet repaired
        // (RFC 6675 IsLost anywhere in the window, as Linux `tcp_time_to_recover`: lost_out > 0),
        // not only when the first one is: a hole further up must also reduce the window before
        // it is retransmitted.
        let loss = if self.cfg.sack { self.sb.next_lost().is_some() } else { self.dupacks >= DUP_THRESH as u32 };
        if loss {
            self.phase = Phase::Recovery;
            self.recovery_point = self.snd_nxt;
            self.stats.fast_recoveries += 1;
            self.tlp.reset();
            // RFC 5681 §3.2 step 2: data sent by limited transmit is not part of FlightSize.
            let flight_size = self.flight_size(self.limited_transmit_bytes);
            self.limited_transmit_bytes = 0;
            // RFC 6937: RecoverFS = snd.nxt − snd.una when recovery starts.
            self.recover_fs = self.snd_nxt - self.snd_una;
            self.prr_delivered = 0;
            self.prr_out = 0;
            self.cc.on_congestion_event(&LossEvent { now, flight_size, mss: self.cfg.mss, during_recovery: false });
            self.note_cc_state(now);
            self.partial_acks = 0;
            if !self.cfg.sack {
                self.sb.mark_first_lost();
            }
            self.force_retransmit = true;
        }
    }

    // ----- timers -----------------------------------------------------------------------

    pub fn on_timer(&mut self, now: Time, out: &mut Vec<TcpHeader>) {
        if self.pacing_wait.is_some_and(|t| t <= now) {
            self.pacing_wait = None;
            self.try_send(now, out);
        }
        if self.persist_at.is_some_and(|t| t <= now) {
            // Zero-window probe (RFC 9293 §3.8.6.1), sent Linux-style as an old sequence number.
            out.push(TcpHeader { flags: FLAG_ACK | FLAG_PROBE, seq: self.snd_una.saturating_sub(1), ..Default::default() });
            self.stats.probes_sent += 1;
            self.persist_backoff = (self.persist_backoff + 1).min(16);
            self.arm_persist(now);
        }
        if self.tlp.at.is_some_and(|t| t <= now) {
            self.on_pto(now, out);
        }
        if self.rto_at.is_some_and(|t| t <= now) {
            self.on_rto(now, out);
        }
    }

    /// RFC 8985 §7.2's conditions for arming the PTO, plus §7.3's for sending a probe.
    #[inline]
    fn tlp_allowed(&self) -> bool {
        self.cfg.tlp
            && self.cfg.sack
            && self.state == State::Established
            && self.phase == Phase::Open
            && self.sb.sacked == 0
            && self.snd_nxt > self.snd_una
            && self.tlp.may_probe()
    }

    /// Arm the PTO if §7.2 allows it, else disarm it.
    #[inline]
    fn schedule_tlp(&mut self, now: Time) {
        if self.tlp_allowed() {
            let pto = Tlp::pto(self.rtt.srtt(), self.snd_nxt - self.snd_una, self.cfg.mss as u64);
            self.tlp.arm(now, pto, self.rto_at);
        } else {
            self.tlp.at = None;
        }
    }

    /// RFC 8985 §7.3: the PTO expired.
    fn on_pto(&mut self, now: Time, out: &mut Vec<TcpHeader>) {
        self.tlp.at = None;
        if !self.tlp_allowed() {
            return;
        }
        let mss = self.cfg.mss as u64;
        let avail = self.data_limit().saturating_sub(self.snd_nxt).min(mss);
        let avail = self.new_segment_len(avail);
        let space = (self.snd_una + self.snd_wnd).saturating_sub(self.snd_nxt);
        if avail > 0 && space >= avail {
            let seq = self.snd_nxt;
            self.send_new(now, avail as u32, out);
            self.tlp.on_probe_sent(now, seq, self.snd_nxt, false);
        } else {
            let i = self.sb.len() - 1;
            let last = *self.sb.get(i);
            if last.flags & (SACKED | RETRANS) != 0 {
                return;
            }
            self.retransmit(now, i, out);
            self.tlp.on_probe_sent(now, last.seq, self.snd_nxt, true);
        }
        self.stats.tlp_probes += 1;
        self.rto_at = Some(now + self.rtt.rto());
    }

    fn on_rto(&mut self, now: Time, out: &mut Vec<TcpHeader>) {
        self.rto_at = None;
        if self.state == State::SynSent {
            self.syn_retransmitted = true;
            self.rtt.back_off();
            self.send_syn(now, out);
            return;
        }
        if self.snd_una == self.snd_nxt {
            return;
        }
        self.stats.rto_count += 1;
        self.tlp.reset();
        let during_recovery = self.phase != Phase::Open;
        self.cc.on_rto(&LossEvent { now, flight_size: self.flight_size(0), mss: self.cfg.mss, during_recovery });
        self.note_cc_state(now);
        self.sb.mark_all_lost();
        self.dup_sacked = 0;
        self.dupacks = 0;
        self.phase = Phase::Loss;
        self.recovery_point = self.snd_nxt;
        self.rtt.back_off();
        self.pace_at = now;
        self.try_send(now, out);
        if self.rto_at.is_none() && self.snd_una != self.snd_nxt {
            self.rto_at = Some(now + self.rtt.rto());
        }
    }
}
