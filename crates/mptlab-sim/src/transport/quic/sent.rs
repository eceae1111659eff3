//! Sent-packet records of one packet number space, RFC 9002 Appendix A.1 (`sent_packets`) and
//! the bookkeeping of Appendix A.5 (OnPacketSent), A.7 (DetectAndRemoveAckedPackets) and A.10
//! (DetectAndRemoveLostPackets).
//!
//! The records sit in a deque ordered by packet number. A record stays until every record
//! before it is resolved (acknowledged or declared lost); resolved records in the middle keep
//! their state so that persistent congestion can check that no packet between two lost ones
//! was acknowledged (§7.6.2). The payload (`frames`, any type the caller chooses: frame ids,
//! stream-chunk ids, a delivery-rate snapshot) is handed back exactly once, in the acked or the
//! lost report, so the caller can release or retransmit it.
//!
//! Interpretations:
//! - Packet numbers must increase and send times must not decrease (`push` panics otherwise);
//!   numbers may be skipped (RFC 9000 §21.4). Monotone send times make the lost packets a prefix
//!   of the outstanding ones up to the largest acknowledged, so loss detection stops at the first
//!   packet that is not lost and the work per packet is amortised O(1).
//! - A packet declared lost stays lost: a later acknowledgment of it is ignored (Appendix A.10
//!   removes it from `sent_packets`), so no packet is reported both lost and acknowledged.
//!   Spurious-loss detection is not modelled.
//! - Ranges repeated by later ACK frames are walked again over their acknowledged records
//!   (binary search to the range, then a linear walk). The TCP scoreboard avoids this; it can
//!   be added here if profiles show it.

use mptlab_engine::Time;
use std::collections::VecDeque;

/// How many records ahead of the newest one `push` prefetches.
const PREFETCH_AHEAD: usize = 4;

/// Append the value `make` builds to `v`, building it only after any growth so that it is
/// written straight into the vector. (`v.push(x)` must keep `x` on the stack across the possible
/// `grow` call; copying it out with wide loads right after the narrow stores that built it
/// stalls store forwarding, and profiles showed that stall on every acknowledged packet.)
#[inline(always)]
fn push_built<T>(v: &mut Vec<T>, make: impl FnOnce() -> T) {
    if v.len() == v.capacity() {
        v.reserve(1);
    }
    let len = v.len();
    v.spare_capacity_mut()[0].write(make());
    // SAFETY: the element at `len` was just initialised.
    unsafe { v.set_len(len + 1) }
}

/// One sent packet as the recovery layer sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SentPacket<F> {
    pub pn: u64,
    pub time_sent: Time,
    /// Bytes on the wire, counted in bytes_in_flight if `in_flight`.
    pub size: u32,
    /// Contains a frame other than ACK, PADDING or CONNECTION_CLOSE (RFC 9002 §2).
    pub ack_eliciting: bool,
    /// Counts towards bytes_in_flight: ack-eliciting or carrying PADDING (RFC 9002 §2).
    pub in_flight: bool,
    /// What the packet carried, opaque to recovery.
    pub frames: F,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Outstanding,
    Acked,
    Lost,
}

#[derive(Debug)]
struct Slot<F> {
    pn: u64,
    time_sent: Time,
    size: u32,
    ack_eliciting: bool,
    in_flight: bool,
    state: State,
    /// Taken when the packet is reported acked or lost.
    frames: Option<F>,
}

impl<F> Slot<F> {
    fn take(&mut self, state: State) -> SentPacket<F> {
        self.state = state;
        SentPacket {
            pn: self.pn,
            time_sent: self.time_sent,
            size: self.size,
            ack_eliciting: self.ack_eliciting,
            in_flight: self.in_flight,
            frames: self.frames.take().expect("an outstanding packet still has its frames"),
        }
    }
}

/// What marking acknowledged ranges found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AckedSummary {
    /// The largest newly acknowledged packet and its send time.
    pub largest_newly_acked: Option<(u64, Time)>,
    /// At least one newly acknowledged packet was ack-eliciting (§5.1).
    pub includes_ack_eliciting: bool,
    /// In-flight bytes newly acknowledged.
    pub bytes: u64,
}

/// What loss detection found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LossSummary {
    /// When the oldest unacknowledged packet at or below the largest acknowledged will be lost by
    /// the time threshold (Appendix A.10 `loss_time`).
    pub loss_time: Option<Time>,
    /// In-flight bytes newly declared lost.
    pub bytes: u64,
    /// Send time of the newest in-flight packet declared lost (OnCongestionEvent's argument).
    pub largest_lost_sent_time: Option<Time>,
    /// Two ack-eliciting packets of this batch, sent after the first RTT sample, lost more than
    /// the persistent congestion duration apart with no acknowledged packet sent between them.
    pub persistent_congestion: bool,
}

/// Persistent congestion parameters for `SentPackets::detect_lost` (§7.6).
#[derive(Clone, Copy, Debug)]
pub struct PersistentCongestionCheck {
    /// Only packets sent strictly after the first RTT sample count (§7.6.2, Appendix A.9).
    pub first_rtt_sample: Time,
    /// (smoothed_rtt + max(4·rttvar, kGranularity) + max_ack_delay) · kPersistentCongestionThreshold.
    pub duration: Time,
}

#[derive(Debug)]
pub struct SentPackets<F> {
    slots: VecDeque<Slot<F>>,
    largest_sent: Option<u64>,
    last_sent_time: Time,
    bytes_in_flight: u64,
    ack_eliciting_in_flight: usize,
    time_of_last_ack_eliciting: Option<Time>,
}

impl<F> Default for SentPackets<F> {
    fn default() -> Self {
        Self::new()
    }
}

impl<F> SentPackets<F> {
    /// Bytes its growable containers hold (`transport::footprint`).
    pub fn memory_footprint(&self) -> usize {
        use crate::transport::footprint::*;
        deque(&self.slots)
    }

    pub fn new() -> Self {
        Self {
            // Grows to the largest flight (a fixed 256 records per path became resident page by
            // page as the ring's head walked through it: memory that grew with run length).
            slots: VecDeque::new(),
            largest_sent: None,
            last_sent_time: 0,
            bytes_in_flight: 0,
            ack_eliciting_in_flight: 0,
            time_of_last_ack_eliciting: None,
        }
    }

    /// Record a sent packet (Appendix A.5). Panics if `pn` does not exceed every earlier packet
    /// number or the send time goes back.
    pub fn push(&mut self, p: SentPacket<F>) {
        assert!(self.largest_sent.is_none_or(|l| p.pn > l), "packet number {} not above {:?}", p.pn, self.largest_sent);
        assert!(p.time_sent >= self.last_sent_time, "send time went back");
        self.largest_sent = Some(p.pn);
        self.last_sent_time = p.time_sent;
        if p.in_flight {
            self.bytes_in_flight += p.size as u64;
            if p.ack_eliciting {
                self.ack_eliciting_in_flight += 1;
                self.time_of_last_ack_eliciting = Some(p.time_sent);
            }
        }
        self.slots.push_back(Slot {
            pn: p.pn,
            time_sent: p.time_sent,
            size: p.size,
            ack_eliciting: p.ack_eliciting,
            in_flight: p.in_flight,
            state: State::Outstanding,
            frames: Some(p.frames),
        });
        // Records are written in order (unless the ring wraps): ask for the lines of one a few
        // packets ahead, so they are in the cache when it is written (packets often leave in
        // bursts, so the very next one is too close).
        let last: *const Slot<F> = self.slots.back().expect("just pushed");
        mptlab_engine::prefetch_ptr(last.wrapping_add(1 + PREFETCH_AHEAD));
    }

    /// A packet `pn` was sent without a record (see `LossRecovery::on_untracked_packet_sent`).
    pub fn note_untracked(&mut self, pn: u64) {
        assert!(self.largest_sent.is_none_or(|l| pn > l), "packet number {pn} not above {:?}", self.largest_sent);
        self.largest_sent = Some(pn);
    }

    fn release(&mut self, i: usize) {
        let s = &self.slots[i];
        if s.in_flight {
            self.bytes_in_flight -= s.size as u64;
            if s.ack_eliciting {
                self.ack_eliciting_in_flight -= 1;
            }
        }
    }

    /// Mark the outstanding packets in `lo..=hi` acknowledged, appending them to `out` in
    /// packet-number order.
    pub fn ack_range(&mut self, lo: u64, hi: u64, out: &mut Vec<SentPacket<F>>, sum: &mut AckedSummary) {
        // Ranges repeated from earlier ACK frames are mostly below every record still held.
        if self.slots.front().is_none_or(|s| s.pn > hi) {
            return;
        }
        let mut i = if self.slots[0].pn >= lo { 0 } else { self.slots.partition_point(|s| s.pn < lo) };
        while i < self.slots.len() && self.slots[i].pn <= hi {
            if self.slots[i].state == State::Outstanding {
                self.release(i);
                let s = &self.slots[i];
                if s.in_flight {
                    sum.bytes += s.size as u64;
                }
                sum.includes_ack_eliciting |= s.ack_eliciting;
                if sum.largest_newly_acked.is_none_or(|(pn, _)| s.pn > pn) {
                    sum.largest_newly_acked = Some((s.pn, s.time_sent));
                }
                let slot = &mut self.slots[i];
                push_built(out, || slot.take(State::Acked));
            }
            i += 1;
        }
        // The next ACK most likely starts here: ask for those records (sent one round trip
        // ago, long out of the cache) now.
        for k in i..(i + 3).min(self.slots.len()) {
            mptlab_engine::prefetch(&self.slots[k]);
        }
    }

    /// Appendix A.10 DetectAndRemoveLostPackets with the persistent congestion test of
    /// Appendix A.9 / §7.6.2 folded into the same walk. A packet at or below `largest_acked` is
    /// lost if it was sent at least `loss_delay` before `now` (§6.1.2) or `packet_threshold`
    /// numbers below the largest acknowledged (§6.1.1). Lost packets are appended to `out`.
    pub fn detect_lost(
        &mut self,
        now: Time,
        largest_acked: u64,
        loss_delay: Time,
        packet_threshold: u64,
        pc: Option<PersistentCongestionCheck>,
        out: &mut Vec<SentPacket<F>>,
    ) -> LossSummary {
        let mut sum = LossSummary::default();
        // Send time of the first packet of the current run of lost ack-eliciting packets with
        // no acknowledged packet between them.
        let mut run_start: Option<Time> = None;
        let mut i = 0;
        while i < self.slots.len() && self.slots[i].pn <= largest_acked {
            let s = &self.slots[i];
            match s.state {
                State::Acked => run_start = None,
                State::Lost => {}
                State::Outstanding => {
                    let by_time = s.time_sent.saturating_add(loss_delay) <= now;
                    let by_number = largest_acked >= s.pn.saturating_add(packet_threshold);
                    if !(by_time || by_number) {
                        // Later records were sent no earlier and have larger numbers: none is lost.
                        sum.loss_time = Some(s.time_sent + loss_delay);
                        break;
                    }
                    self.release(i);
                    let p = self.slots[i].take(State::Lost);
                    if p.in_flight {
                        sum.bytes += p.size as u64;
                        sum.largest_lost_sent_time = Some(sum.largest_lost_sent_time.map_or(p.time_sent, |t| t.max(p.time_sent)));
                    }
                    if let Some(pc) = pc {
                        if p.ack_eliciting && p.time_sent > pc.first_rtt_sample {
                            match run_start {
                                Some(start) if p.time_sent - start > pc.duration => sum.persistent_congestion = true,
                                Some(_) => {}
                                None => run_start = Some(p.time_sent),
                            }
                        }
                    }
                    out.push(p);
                }
            }
            i += 1;
        }
        sum
    }

    /// Drop resolved records from the front.
    #[inline]
    pub fn pop_resolved(&mut self) {
        while self.slots.front().is_some_and(|s| s.state != State::Outstanding) {
            self.slots.pop_front();
        }
    }

    /// Remove every outstanding packet without declaring it lost (the path or space is
    /// abandoned, RFC 9002 §6.4): their frames go to `out` for retransmission elsewhere.
    pub fn drain_outstanding(&mut self, out: &mut Vec<SentPacket<F>>) {
        for i in 0..self.slots.len() {
            if self.slots[i].state == State::Outstanding {
                self.release(i);
                out.push(self.slots[i].take(State::Lost));
            }
        }
        self.slots.clear();
    }

    pub fn bytes_in_flight(&self) -> u64 {
        self.bytes_in_flight
    }

    pub fn ack_eliciting_in_flight(&self) -> usize {
        self.ack_eliciting_in_flight
    }

    pub fn time_of_last_ack_eliciting(&self) -> Option<Time> {
        self.time_of_last_ack_eliciting
    }

    pub fn largest_sent(&self) -> Option<u64> {
        self.largest_sent
    }

    /// Records still held (outstanding packets and resolved ones behind an outstanding one).
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The payloads of the outstanding packets, oldest first (a multipath sender re-queues the
    /// data of a failing path without waiting for loss detection).
    pub fn outstanding_frames(&self) -> impl Iterator<Item = &F> + '_ {
        self.slots.iter().filter(|s| s.state == State::Outstanding).filter_map(|s| s.frames.as_ref())
    }

    /// Packet numbers and sizes of the outstanding packets, oldest first (tests, traces).
    pub fn outstanding(&self) -> impl Iterator<Item = (u64, u32, bool)> + '_ {
        self.slots.iter().filter(|s| s.state == State::Outstanding).map(|s| (s.pn, s.size, s.in_flight))
    }
}
