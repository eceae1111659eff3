//! One unreliable, congestion-controlled tunnel path in the manner of DCCP (RFC 4340) with
//! CCID2 (RFC 4341) or CCID5 (BBR for DCCP): what the MP-DCCP tunnels of seed 003 run per path.
//!
//! Sender (`DccpSender`):
//! - Every packet gets the next path sequence number (RFC 4340 §7: DCCP numbers packets, not
//!   bytes) and is never retransmitted (RFC 4341 §3: "CCID 2 ... does not retransmit").
//! - Acknowledgments carry the ranges of path sequence numbers received (the Ack Vector, RFC 4340
//!   §11.4): here the three most recent ranges, largest first, in the TCP header's SACK blocks
//!   (`ack_header`; the packet, a UDP one, carries them as a TCP packet does), with the
//!   receiver's hold time of the newest one (RFC 4340 §13.2, Elapsed Time) in `TcpHeader::wnd`.
//! - Loss: a packet is lost once three packets sent after it are acknowledged (RFC 4341 §5 and
//!   Linux `ccid2.c`'s NUMDUPACK = 3). Kept as the three highest sequence numbers ever
//!   acknowledged: everything outstanding below the third is lost.
//! - Congestion response: at most one window reduction per round trip (RFC 4341 §5, "the sender
//!   halves its congestion window ... at most once per window of data"; `ccid2.c` ignores losses
//!   of packets sent before the last reduction). This is what the RFC 9002 recovery period of
//!   `quic::cc::QuicCongestion` does, which is therefore reused as the controller glue (with
//!   its delivery-rate samples, which CCID5 reads).
//! - Timeout: RTO = SRTT + max(4·RTTVAR, 200 ms) (RFC 4341 §5 uses TCP's RTO; the 200 ms floor on
//!   the variance term as Linux), 1 s before the first sample (RFC 6298 §2.1), doubled per expiry
//!   and reset by the next sample. On expiry every outstanding packet is given up as lost (Linux
//!   `ccid2_hc_tx_rto_expire` clears the sequence window: nothing will be retransmitted) and the
//!   controller's `on_rto` collapses its window (CCID2: 1 packet).
//! - Windows count packets: each packet is charged one `mss` of in-flight bytes whatever its
//!   wire size, so a byte-counted controller window of n·mss admits n packets (RFC 4341 §5:
//!   "cwnd is measured in packets"; CCID5 keeps BBR's window in packets too).
//! - Pacing: when the controller has a pacing rate (CCID5), packets leave at most at that rate
//!   (one packet-charge of `mss` per gap). The scheduler's availability ignores the pacer (seed
//!   003 §2.3, study notes A7 (a)): packets assigned to the path wait in its send queue
//!   (`tunnel::conn`) and count against its window, so pacing only delays their departure.
//!
//! Receiver (`DccpReceiver`): the received ranges and the ACK policy of `quic::ack::AckManager`
//! with an Ack Ratio of 2 (RFC 4341 §6.1.2's default: one ACK per two data packets), at once on
//! a packet out of order, and at the latest `ack_delay` after an unacknowledged packet (25 ms;
//! DCCP has no such timer, but without one a lone last packet would never be acknowledged).
//!
//! Left out: ECN, the Ack Ratio's adaptation (RFC 4341 §6.1.2), acknowledgments of
//! acknowledgments (the Ack Vector's pruning), congestion control of the ACK stream
//! (RFC 4341 §6), CWV (RFC 2861) and the DCCP handshake.

use super::buffer::Held;
use crate::cc::{CcConfig, CcParams, CongestionControl, SubflowCcView};
use crate::sched::PathView;
use crate::transport::multipath::{MultipathPath, PathPrefs};
use crate::transport::quic::ack::{AckConfig, AckFrame, AckManager};
use crate::transport::quic::cc::QuicCongestion;
use crate::transport::quic::recovery::RecoveryOutcome;
use crate::transport::quic::rtt::RttEstimator;
use crate::transport::quic::sent::SentPacket;
use crate::wire::{SackBlock, TcpHeader, MAX_SACK_BLOCKS};
use mptlab_engine::time::{MILLISECOND, SECOND};
use mptlab_engine::Time;
use std::collections::VecDeque;

/// Later packets acknowledged before an earlier one counts as lost (Linux ccid2.c NUMDUPACK).
pub const NUMDUPACK: usize = 3;
/// The floor of the RTO's variance term (Linux TCP_RTO_MIN).
pub const MIN_RTO_VAR: Time = 200 * MILLISECOND;
/// The RTO before the first RTT sample (RFC 6298 §2.1).
pub const INITIAL_RTO: Time = SECOND;
/// The RTO's cap (Linux TCP_RTO_MAX).
pub const MAX_RTO: Time = 120 * SECOND;
/// The receiver's delayed-ACK timer.
pub const ACK_DELAY: Time = 25 * MILLISECOND;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Outstanding,
    Acked,
    Lost,
}

#[derive(Clone, Copy, Debug)]
struct Sent {
    seq: u64,
    time: Time,
    state: State,
}

/// Counters of one path's sender.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct DccpCounters {
    pub packets_sent: u64,
    pub wire_bytes_sent: u64,
    pub packets_acked: u64,
    pub packets_lost: u64,
    pub timeouts: u64,
}

/// The sending end of one DCCP-like path.
pub struct DccpSender {
    cc: QuicCongestion,
    rtt: RttEstimator,
    prefs: PathPrefs,
    /// The packet charge of the window (`mss` per packet).
    mss: u32,
    /// Inner packets assigned to this path, waiting for its pacer.
    queue: VecDeque<Held>,
    /// Packets sent and not yet resolved (acknowledged or lost) at the front, in sequence order.
    sent: VecDeque<Sent>,
    next_seq: u64,
    /// Packets outstanding, times `mss`.
    in_flight: u64,
    /// The highest sequence numbers ever acknowledged, highest first.
    top: [Option<u64>; NUMDUPACK],
    backoff: u32,
    rto_deadline: Option<Time>,
    next_send: Time,
    outcome: RecoveryOutcome<()>,
    counters: DccpCounters,
}

impl DccpSender {
    pub fn new(cc: &CcConfig, mss: u32, prefs: PathPrefs) -> Self {
        // RFC 4341 §5: the initial window of RFC 3390 in packets, computed by the controller
        // (ccid2 applies it itself; others get 4 packets).
        let params = CcParams { mss, initial_cwnd_segments: 4 };
        Self {
            // CCID2 and CCID5 go down to one packet (RFC 4341 §5), below QUIC's floor of two.
            cc: QuicCongestion::with_minimum_window(cc.build(params), mss, 1),
            rtt: RttEstimator::new(INITIAL_RTO / 3),
            prefs,
            mss,
            queue: VecDeque::new(),
            sent: VecDeque::new(),
            next_seq: 0,
            in_flight: 0,
            top: [None; NUMDUPACK],
            backoff: 0,
            rto_deadline: None,
            next_send: 0,
            outcome: RecoveryOutcome::new(),
            counters: DccpCounters::default(),
        }
    }

    /// The window has room for one more packet besides the `queued` ones assigned to the path
    /// and waiting for its pacer (the scheduler's availability, seed 003 §2.3 and MP-DCCP's
    /// `sched_cpf.c`: "a free cwnd for both the data in send queue and the new skb"; no pacing
    /// test).
    #[inline]
    pub fn window_open(&self) -> bool {
        self.in_flight + (self.queue.len() as u64 + 1) * self.mss as u64 <= self.cc.window()
    }

    /// Assign an inner packet to this path: it waits in the path's send queue for the pacer.
    pub fn assign(&mut self, p: Held) {
        self.queue.push_back(p);
    }

    /// The next assigned packet, if the pacer lets it go at `now`.
    pub fn pop_ready(&mut self, now: Time) -> Option<Held> {
        if self.next_send <= now {
            self.queue.pop_front()
        } else {
            None
        }
    }

    /// When the pacer lets the next assigned packet go (None: nothing waits).
    pub fn pacer_deadline(&self) -> Option<Time> {
        (!self.queue.is_empty()).then_some(self.next_send)
    }

    /// Packets assigned and not yet sent.
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// Put a packet of `wire_bytes` on the path at `now`; returns its path sequence number.
    pub fn on_send(&mut self, now: Time, wire_bytes: u32) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        let before = self.in_flight;
        self.cc.on_packet_sent(now, seq, self.mss, true, before);
        self.in_flight += self.mss as u64;
        self.sent.push_back(Sent { seq, time: now, state: State::Outstanding });
        if let Some(rate) = self.cc.pacing_rate().filter(|r| *r > 0) {
            let gap = self.mss as u128 * 1_000_000_000 / rate as u128;
            self.next_send = self.next_send.max(now) + gap as Time;
        }
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(now + self.rto());
        }
        self.counters.packets_sent += 1;
        self.counters.wire_bytes_sent += wire_bytes as u64;
        seq
    }

    /// The sender ran out of packets to send with room in the window (app-limited samples).
    pub fn on_app_limited(&mut self) {
        self.cc.on_app_limited(self.in_flight);
    }

    /// The window stopped the sender.
    pub fn on_cwnd_limited(&mut self) {
        self.cc.on_cwnd_limited();
    }

    /// The retransmission timeout now (with backoff).
    pub fn rto(&self) -> Time {
        let base = if self.rtt.has_sample() { self.rtt.smoothed_rtt() + (4 * self.rtt.rttvar()).max(MIN_RTO_VAR) } else { INITIAL_RTO };
        base.saturating_mul(1 << self.backoff.min(16)).min(MAX_RTO)
    }

    pub fn rto_deadline(&self) -> Option<Time> {
        self.rto_deadline
    }

    /// An acknowledgment (`ack_header`'s fields) arrived at `now`.
    pub fn on_ack(&mut self, now: Time, h: &TcpHeader) {
        let blocks = h.sack_blocks();
        if blocks.is_empty() {
            return;
        }
        self.outcome.clear();
        self.outcome.prior_in_flight = self.in_flight;
        let front = self.sent.front().map_or(self.next_seq, |s| s.seq);
        let largest = blocks[0].end;
        let mut largest_newly: Option<Time> = None;
        for b in blocks {
            // SACK blocks are [start, end] inclusive here (path sequence numbers).
            let lo = b.start.max(front);
            let hi = b.end.min(self.next_seq.saturating_sub(1));
            let mut s = lo;
            while s <= hi && s >= lo {
                let rec = &mut self.sent[(s - front) as usize];
                if rec.state == State::Outstanding {
                    rec.state = State::Acked;
                    self.in_flight -= self.mss as u64;
                    self.outcome.bytes_acked += self.mss as u64;
                    self.outcome.acked.push(sent_packet(rec, self.mss));
                    if s == largest {
                        largest_newly = Some(rec.time);
                    }
                }
                s += 1;
            }
            self.note_acked(b.end, b.start);
        }
        self.outcome.acked.sort_by_key(|p| p.pn);
        if let Some(sent_at) = largest_newly {
            let elapsed = h.wnd;
            self.rtt.update(now, now.saturating_sub(sent_at), elapsed, Some(ACK_DELAY));
            self.backoff = 0;
        }
        self.detect_losses();
        let acked_any = !self.outcome.acked.is_empty();
        self.cc.on_outcome(now, &self.outcome, &self.rtt);
        self.counters.packets_acked += self.outcome.acked.len() as u64;
        self.counters.packets_lost += self.outcome.lost.len() as u64;
        self.pop_resolved();
        if acked_any {
            // RFC 6298 (5.3): restart the timer when new data is acknowledged.
            self.rto_deadline = (self.in_flight > 0).then(|| now + self.rto());
        } else if self.in_flight == 0 {
            self.rto_deadline = None;
        }
    }

    /// Merge the acknowledged range [lo, hi] into the three highest acknowledged numbers.
    fn note_acked(&mut self, hi: u64, lo: u64) {
        let mut s = hi;
        for _ in 0..NUMDUPACK {
            if s < lo {
                break;
            }
            if !self.top.contains(&Some(s)) {
                // Insert keeping the order, dropping the smallest.
                let mut v = Some(s);
                for slot in self.top.iter_mut() {
                    if v > *slot {
                        std::mem::swap(&mut v, slot);
                    }
                }
            }
            if s == 0 {
                break;
            }
            s -= 1;
        }
    }

    /// Every outstanding packet below the third-highest acknowledged one is lost.
    fn detect_losses(&mut self) {
        let Some(third) = self.top[NUMDUPACK - 1] else { return };
        for rec in self.sent.iter_mut() {
            if rec.seq >= third {
                break;
            }
            if rec.state == State::Outstanding {
                rec.state = State::Lost;
                self.in_flight -= self.mss as u64;
                self.outcome.bytes_lost += self.mss as u64;
                self.outcome.largest_lost_sent_time = Some(rec.time);
                self.outcome.lost.push(sent_packet(rec, self.mss));
            }
        }
    }

    fn pop_resolved(&mut self) {
        while self.sent.front().is_some_and(|s| s.state != State::Outstanding) {
            self.sent.pop_front();
        }
    }

    /// The RTO timer fired at `now` (a call before the deadline does nothing).
    pub fn on_timeout(&mut self, now: Time) {
        match self.rto_deadline {
            Some(d) if now >= d => {}
            _ => return,
        }
        self.outcome.clear();
        self.outcome.prior_in_flight = self.in_flight;
        for rec in self.sent.iter_mut().filter(|r| r.state == State::Outstanding) {
            rec.state = State::Lost;
            self.outcome.bytes_lost += self.mss as u64;
            self.outcome.largest_lost_sent_time = Some(rec.time);
            self.outcome.lost.push(sent_packet(rec, self.mss));
        }
        self.in_flight = 0;
        self.outcome.persistent_congestion = !self.outcome.lost.is_empty();
        self.cc.on_outcome(now, &self.outcome, &self.rtt);
        self.counters.packets_lost += self.outcome.lost.len() as u64;
        self.counters.timeouts += 1;
        self.pop_resolved();
        self.backoff += 1;
        self.rto_deadline = None;
    }

    /// What the scheduler sees of this path with `queued` packets waiting for its pacer
    /// (availability: the window only).
    pub fn view(&self) -> PathView {
        let queued = self.queue.len();
        let srtt = if self.rtt.has_sample() { self.rtt.smoothed_rtt() } else { 0 };
        let rate =
            self.cc.pacing_rate().unwrap_or(if srtt > 0 { (self.cc.window() as u128 * 1_000_000_000 / srtt as u128) as u64 } else { 0 });
        PathView {
            has_space: self.window_open(),
            queued: queued as u64 * self.mss as u64,
            srtt,
            rttvar: if self.rtt.has_sample() { self.rtt.rttvar() } else { 0 },
            min_rtt: if self.rtt.has_sample() { self.rtt.min_rtt() } else { 0 },
            cwnd: self.cc.window(),
            in_flight: self.in_flight,
            pacing_rate: rate,
            mss: self.mss,
            segments_sent: self.counters.packets_sent,
            bytes_sent: self.counters.packets_sent * self.mss as u64,
            bytes_acked: self.counters.packets_acked * self.mss as u64,
            packets_lost: self.counters.packets_lost,
            bytes_lost: self.counters.packets_lost * self.mss as u64,
            ..PathView::default()
        }
    }

    pub fn counters(&self) -> &DccpCounters {
        &self.counters
    }

    pub fn cwnd(&self) -> u64 {
        self.cc.window()
    }

    /// The packet charge of the window.
    pub fn mss(&self) -> u32 {
        self.mss
    }

    pub fn in_flight(&self) -> u64 {
        self.in_flight
    }

    pub fn srtt(&self) -> Option<Time> {
        self.rtt.has_sample().then(|| self.rtt.smoothed_rtt())
    }

    pub fn min_rtt(&self) -> Option<Time> {
        self.rtt.has_sample().then(|| self.rtt.min_rtt())
    }

    pub fn congestion_events(&self) -> u64 {
        self.cc.congestion_events()
    }

    pub fn state_name(&self) -> &'static str {
        self.cc.state_name()
    }

    pub fn pacing_rate(&self) -> Option<u64> {
        self.cc.pacing_rate()
    }

    /// Bytes its growable containers hold.
    pub fn memory_footprint(&self) -> usize {
        use crate::transport::footprint::*;
        deque(&self.queue) + deque(&self.sent) + self.cc.memory_footprint() + slice(&self.outcome.acked) + slice(&self.outcome.lost)
    }
}

fn sent_packet(rec: &Sent, mss: u32) -> SentPacket<()> {
    SentPacket { pn: rec.seq, time_sent: rec.time, size: mss, ack_eliciting: true, in_flight: true, frames: () }
}

impl MultipathPath for DccpSender {
    fn usable(&self) -> bool {
        true
    }
    fn prefs(&self) -> PathPrefs {
        self.prefs
    }
    fn coupled_view(&self) -> Option<SubflowCcView> {
        self.cc.controller().coupled_view()
    }
    fn couple(&mut self, views: &[SubflowCcView], me: usize) {
        self.cc.couple(views, me);
    }
}

/// The receiving end of one DCCP-like path: which path sequence numbers arrived, and when an
/// acknowledgment is due.
pub struct DccpReceiver {
    acks: AckManager,
    frame: AckFrame,
}

impl Default for DccpReceiver {
    fn default() -> Self {
        Self::new()
    }
}

impl DccpReceiver {
    pub fn new() -> Self {
        let cfg =
            AckConfig { max_ack_delay: ACK_DELAY, ack_eliciting_threshold: 2, max_ack_ranges: MAX_SACK_BLOCKS, ..AckConfig::default() };
        Self { acks: AckManager::new(cfg), frame: AckFrame::default() }
    }

    /// Data packet `seq` arrived at `now`; returns false for a duplicate.
    pub fn on_data(&mut self, now: Time, seq: u64) -> bool {
        !matches!(self.acks.on_packet_received(now, seq, true), crate::transport::quic::ack::Received::Duplicate)
    }

    /// When the delayed acknowledgment is due (now or earlier: at once).
    pub fn ack_deadline(&self) -> Option<Time> {
        self.acks.deadline()
    }

    /// Build the acknowledgment to send now into `h` (the header of an ACK-only packet), if one
    /// is due at `now`.
    pub fn poll_ack(&mut self, now: Time, h: &mut TcpHeader) -> bool {
        if self.acks.deadline().is_none_or(|d| d > now) || !self.acks.ack_frame(now, &mut self.frame) {
            return false;
        }
        self.acks.on_ack_sent();
        ack_header(&self.frame, h);
        true
    }

    pub fn memory_footprint(&self) -> usize {
        self.acks.memory_footprint()
    }
}

/// Write acknowledgment `frame` into header `h`: ranges in the SACK blocks, largest first, as
/// inclusive [start, end]; the elapsed time in `wnd`; no payload.
fn ack_header(frame: &AckFrame, h: &mut TcpHeader) {
    h.len = 0;
    h.nsack = 0;
    for (i, &(lo, hi)) in frame.ranges.iter().take(MAX_SACK_BLOCKS).enumerate() {
        h.sack[i] = SackBlock { start: lo, end: hi };
        h.nsack = i as u8 + 1;
    }
    h.ack = frame.largest().unwrap_or(0);
    h.wnd = frame.ack_delay;
}
