//! The sender's scoreboard (RFC 6675 §2–4): one record per outstanding segment, the SACKed
//! ranges, and the byte counters behind `pipe`.
//!
//! pipe = outstanding − SACKed − lost + retransmitted-and-still-in-flight, which is RFC 6675's
//! SetPipe() kept incrementally (Linux's `tcp_packets_in_flight`).
//! IsLost (§4): a segment is lost when more than (DupThresh − 1)·SMSS bytes above it are SACKed.
//! Walking the SACKed ranges from the top finds the lowest such boundary; every un-SACKed segment
//! below it is lost. The boundary only moves up, so each segment is marked at most once per
//! episode and the work per ACK stays O(SACK ranges) in steady state.

use super::super::segment::SackBlock;
use super::rate::TxState;
use crate::transport::footprint;
use mptlab_engine::Time;
use std::collections::VecDeque;

/// RFC 6675 DupThresh.
pub const DUP_THRESH: u64 = 3;

pub const SACKED: u8 = 1;
pub const LOST: u8 = 2;
/// Retransmitted and the retransmission is still believed in flight.
pub const RETRANS: u8 = 4;
/// Ever retransmitted (Karn's rule: no RTT sample).
pub const EVER_RETRANS: u8 = 8;

/// A segment's record: 32 bytes, so that an ACK's walk over the records it covers touches as
/// few lines as it can. The rest of the delivery state at the segment's transmission lives
/// beside it (`Scoreboard::txs`) only for a controller that reads rate samples.
#[derive(Clone, Copy, Debug)]
pub struct SegMeta {
    pub seq: u64,
    pub sent_at: Time,
    /// C.delivered at the last transmission (`TxState::delivered`): it picks the segment an
    /// ACK's rate sample is taken from.
    pub delivered: u64,
    pub len: u32,
    pub flags: u8,
}

impl SegMeta {
    #[inline]
    pub fn end(&self) -> u64 {
        self.seq + self.len as u64
    }
    #[inline]
    fn has(&self, f: u8) -> bool {
        self.flags & f != 0
    }
}

/// Bytes an ACK newly delivered and the send time of the newest segment eligible for an RTT sample.
#[derive(Clone, Copy, Debug, Default)]
pub struct Delivered {
    pub bytes: u64,
    /// Send time of the newest newly delivered segment that may give an RTT sample.
    pub rtt_sent_at: Option<Time>,
    /// Latest (re)transmission time among newly delivered segments (RACK's xmit_ts).
    pub newest_sent_at: Option<Time>,
    /// C.delivered at transmission and send time of the most recently sent newly delivered
    /// segment (the one a delivery-rate sample is taken from), and its whole transmission state
    /// when the scoreboard keeps it (`newest_tx`).
    newest: Option<(u64, Time)>,
    newest_state: Option<TxState>,
    /// The cumulative ACK covered retransmitted data: Karn's rule (RFC 6298 §3, Linux
    /// `FLAG_RETRANS_DATA_ACKED`) then forbids a sample from the cumulatively acked segments,
    /// since the ACK may have been triggered by the retransmission.
    cum_covered_retransmission: bool,
    cum_rtt_sent_at: Option<Time>,
}

fn newest(a: Option<Time>, t: Time) -> Option<Time> {
    Some(a.map_or(t, |x| x.max(t)))
}

impl Delivered {
    /// `tx`: the segment's transmission state, when the scoreboard keeps it.
    #[inline]
    fn add(&mut self, s: &SegMeta, tx: Option<&TxState>, cumulative: bool) {
        self.bytes += s.len as u64;
        self.newest_sent_at = newest(self.newest_sent_at, s.sent_at);
        if self.newest.is_none_or(|(delivered, at)| (s.delivered, s.sent_at) >= (delivered, at)) {
            self.newest = Some((s.delivered, s.sent_at));
            self.newest_state = tx.copied();
        }
        if s.has(EVER_RETRANS) {
            self.cum_covered_retransmission |= cumulative;
        } else if cumulative {
            self.cum_rtt_sent_at = newest(self.cum_rtt_sent_at, s.sent_at);
        } else {
            self.rtt_sent_at = newest(self.rtt_sent_at, s.sent_at);
        }
    }

    /// Transmission state and send time of the most recently sent newly delivered segment. Of
    /// a scoreboard without rate samples (`Scoreboard::new(false)`) only `delivered` is kept;
    /// the rate estimator then reads nothing else.
    #[inline]
    pub fn newest_tx(&self) -> Option<(TxState, Time)> {
        let (delivered, at) = self.newest?;
        Some((self.newest_state.unwrap_or(TxState { delivered, ..TxState::default() }), at))
    }

    /// The send time to take an RTT sample from, if any (call after all blocks are applied).
    pub fn rtt_sample_sent_at(&self) -> Option<Time> {
        match (self.cum_covered_retransmission, self.cum_rtt_sent_at) {
            (false, Some(t)) => newest(self.rtt_sent_at, t),
            _ => self.rtt_sent_at,
        }
    }
}

/// Record rings of at most this many records are never shrunk (`Scoreboard::shrink_if_sparse`).
const SHRINK_ABOVE: usize = 64;

#[derive(Default)]
pub struct Scoreboard {
    segs: VecDeque<SegMeta>,
    /// The transmission state of each record of `segs` (same positions), kept only for a
    /// controller that reads rate samples (`Scoreboard::new(true)`).
    txs: Option<VecDeque<TxState>>,
    ranges: Vec<(u64, u64)>,
    pub sacked: u64,
    pub lost: u64,
    pub retrans: u64,
    /// Bytes ever marked lost (C.lost of the rate estimator; never decreases).
    pub lost_total: u64,
    /// Segments ever marked lost (never decreases; a scheduler's loss count).
    pub lost_segments_total: u64,
    lost_marked_upto: u64,
    lost_top: u64,
    retx_scan: u64,
    /// No segment below this sequence number carries RETRANS.
    retrans_from: u64,
    /// No segment below this sequence number is eligible for NextSeg rule 3.
    rule3_from: u64,
}

impl Scoreboard {
    /// Bytes its segment records and SACK ranges hold (`transport::footprint`).
    pub fn memory_footprint(&self) -> usize {
        footprint::deque(&self.segs) + self.txs.as_ref().map_or(0, footprint::deque) + footprint::slice(&self.ranges)
    }

    /// Empty: the record ring grows to the largest flight the sender has had. A fixed 1,024
    /// records (72 KB) per sender was mostly untouched, and became resident page by page as the
    /// ring's head walked through it, so memory grew with run length (issue 20: 1,000 flows).
    /// `rate_samples`: keep each segment's whole transmission state, for a controller that
    /// reads delivery-rate samples (`CongestionControl::reads_rate_samples`).
    pub fn new(rate_samples: bool) -> Self {
        Self { txs: rate_samples.then(VecDeque::new), ..Self::default() }
    }

    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }

    pub fn len(&self) -> usize {
        self.segs.len()
    }

    pub fn front(&self) -> Option<&SegMeta> {
        self.segs.front()
    }

    pub fn get(&self, i: usize) -> &SegMeta {
        &self.segs[i]
    }

    /// Bytes outstanding minus those known to have left the network (RFC 6675 SetPipe).
    #[inline]
    pub fn pipe(&self, outstanding: u64) -> u64 {
        (outstanding + self.retrans).saturating_sub(self.sacked + self.lost)
    }

    #[inline]
    pub fn push(&mut self, seq: u64, len: u32, now: Time, tx: TxState) {
        self.segs.push_back(SegMeta { seq, len, flags: 0, sent_at: now, delivered: tx.delivered });
        if let Some(txs) = &mut self.txs {
            txs.push_back(tx);
        }
    }

    /// Cut the record ring to twice its use when a quarter of it is in use: it then follows the flight
    /// the sender has now, not the largest it ever had, so the memory of many flows sharing a
    /// bottleneck stays flat in run length (issue 20) rather than creeping up as each flow
    /// meets a new peak. The hysteresis (double when full, cut at a quarter) keeps reallocation
    /// rare. Capacity is not observable: results do not change.
    #[inline]
    fn shrink_if_sparse(&mut self) {
        let cap = self.segs.capacity();
        if cap > SHRINK_ABOVE && self.segs.len() < cap / 4 {
            let keep = (2 * self.segs.len()).max(SHRINK_ABOVE);
            self.segs.shrink_to(keep);
            if let Some(txs) = &mut self.txs {
                txs.shrink_to(keep);
            }
        }
    }

    fn index_of(&self, seq: u64) -> usize {
        self.segs.partition_point(|s| s.seq < seq)
    }

    /// Remove every segment below the cumulative ACK point.
    #[inline]
    pub fn ack_to(&mut self, ack: u64, d: &mut Delivered) {
        while let Some(s) = self.segs.front() {
            if s.end() > ack {
                break;
            }
            let s = self.segs.pop_front().expect("front exists");
            let tx = self.txs.as_mut().and_then(VecDeque::pop_front);
            if s.has(SACKED) {
                self.sacked -= s.len as u64;
            } else {
                d.add(&s, tx.as_ref(), true);
            }
            if s.has(LOST) {
                self.lost -= s.len as u64;
            }
            if s.has(RETRANS) {
                self.retrans -= s.len as u64;
            }
        }
        self.shrink_if_sparse();
        if !self.ranges.is_empty() {
            self.ranges.retain(|r| r.1 > ack);
            if let Some(first) = self.ranges.first_mut() {
                first.0 = first.0.max(ack);
            }
        }
    }

    fn mark_sacked_between(&mut self, a: u64, b: u64, d: &mut Delivered) {
        let mut i = self.index_of(a);
        while i < self.segs.len() && self.segs[i].end() <= b {
            let s = self.segs[i];
            if !s.has(SACKED) {
                d.add(&s, self.txs.as_ref().map(|t| &t[i]), false);
                self.sacked += s.len as u64;
                let mut flags = s.flags | SACKED;
                if s.has(LOST) {
                    self.lost -= s.len as u64;
                    flags &= !LOST;
                }
                if s.has(RETRANS) {
                    self.retrans -= s.len as u64;
                    flags &= !RETRANS;
                }
                self.segs[i].flags = flags;
            }
            i += 1;
        }
    }

    /// Apply one SACK block (RFC 2018); blocks below `una` or beyond `nxt` are ignored (D-SACK
    /// and invalid blocks).
    pub fn apply_sack(&mut self, blk: SackBlock, una: u64, nxt: u64, d: &mut Delivered) {
        let (s, e) = (blk.start.max(una), blk.end);
        if e <= s || e > nxt {
            return;
        }
        let i = self.ranges.partition_point(|r| r.1 < s);
        let (mut lo, mut hi, mut cur, mut j) = (s, e, s, i);
        while j < self.ranges.len() && self.ranges[j].0 <= e {
            let (rs, re) = self.ranges[j];
            if rs > cur {
                self.mark_sacked_between(cur, rs, d);
            }
            cur = cur.max(re);
            lo = lo.min(rs);
            hi = hi.max(re);
            j += 1;
        }
        if cur < e {
            self.mark_sacked_between(cur, e, d);
        }
        if j > i {
            self.ranges[i] = (lo, hi);
            self.ranges.drain(i + 1..j);
        } else {
            self.ranges.insert(i, (lo, hi));
        }
    }

    fn mark_lost_index(&mut self, i: usize) {
        let s = self.segs[i];
        if s.has(SACKED) || s.has(LOST) {
            return;
        }
        self.segs[i].flags |= LOST;
        self.lost += s.len as u64;
        self.lost_total += s.len as u64;
        self.lost_segments_total += 1;
        self.retx_scan = self.retx_scan.min(s.seq);
        self.lost_top = self.lost_top.max(s.end());
    }

    /// RFC 6675 IsLost over the whole scoreboard (see the module comment).
    pub fn update_lost(&mut self, mss: u32) {
        let threshold = (DUP_THRESH - 1) * mss as u64;
        let mut cum = 0;
        let mut boundary = None;
        for r in self.ranges.iter().rev() {
            cum += r.1 - r.0;
            if cum > threshold {
                boundary = Some(r.0);
                break;
            }
        }
        let Some(b) = boundary else { return };
        if b <= self.lost_marked_upto {
            return;
        }
        let mut i = self.index_of(self.lost_marked_upto);
        while i < self.segs.len() && self.segs[i].end() <= b {
            self.mark_lost_index(i);
            i += 1;
        }
        self.lost_marked_upto = b;
    }

    /// Mark the first outstanding segment lost (NewReno partial ACK, fast retransmit without SACK).
    pub fn mark_first_lost(&mut self) {
        if !self.segs.is_empty() {
            self.mark_lost_index(0);
        }
    }

    /// Retransmission timeout: every un-SACKed segment is lost and no retransmission is in
    /// flight any more (RFC 6675 §5.1, Linux `tcp_enter_loss`).
    pub fn mark_all_lost(&mut self) {
        for i in 0..self.segs.len() {
            let s = self.segs[i];
            if s.has(RETRANS) {
                self.segs[i].flags &= !RETRANS;
                self.retrans -= s.len as u64;
            }
            self.mark_lost_index(i);
        }
        if let Some(last) = self.segs.back() {
            self.lost_marked_upto = self.lost_marked_upto.max(last.end());
        }
        self.retx_scan = self.segs.front().map_or(0, |s| s.seq);
    }

    /// RFC 8985 §6.2 applied to retransmissions: a retransmitted, un-SACKed segment whose
    /// retransmission left more than `reo_wnd` before the newest delivered segment was sent is
    /// lost again; it becomes eligible for another retransmission. Retransmissions leave in
    /// sequence order, so the scan stops at the first one that is still within the window.
    pub fn detect_lost_retransmissions(&mut self, xmit_ts: Time, reo_wnd: Time) {
        if self.retrans == 0 {
            return;
        }
        for i in self.index_of(self.retrans_from)..self.segs.len() {
            let s = self.segs[i];
            if !s.has(RETRANS) {
                continue;
            }
            if s.sent_at + reo_wnd >= xmit_ts {
                self.retrans_from = s.seq;
                return;
            }
            self.segs[i].flags &= !RETRANS;
            self.retrans -= s.len as u64;
            self.retx_scan = self.retx_scan.min(s.seq);
            if self.retrans == 0 {
                return;
            }
        }
    }

    /// The segment starting at `seq` is outstanding and SACKed.
    pub fn is_sacked(&self, seq: u64) -> bool {
        let i = self.index_of(seq);
        self.segs.get(i).is_some_and(|s| s.seq == seq && s.has(SACKED))
    }

    /// RFC 8985 §6.2 for one delivered segment (a SACKed tail loss probe, see `tlp.rs`): every
    /// un-SACKed segment below `seq` last sent more than `reo_wnd` before `sent_at` is lost.
    pub fn mark_lost_sent_before(&mut self, seq: u64, sent_at: Time, reo_wnd: Time) {
        for i in 0..self.index_of(seq) {
            if self.segs[i].sent_at + reo_wnd < sent_at {
                self.mark_lost_index(i);
            }
        }
    }

    /// RFC 6675 NextSeg rule 1: the lowest lost segment not yet retransmitted. Inline for the
    /// common answer (nothing is lost: one test, not a call, per segment sent).
    #[inline(always)]
    pub fn next_lost(&mut self) -> Option<usize> {
        if self.lost == 0 {
            return None;
        }
        self.scan_lost()
    }

    fn scan_lost(&mut self) -> Option<usize> {
        let mut i = self.index_of(self.retx_scan);
        while i < self.segs.len() {
            let s = &self.segs[i];
            if s.seq >= self.lost_top {
                break;
            }
            if s.has(LOST) && !s.has(RETRANS) && !s.has(SACKED) {
                return Some(i);
            }
            self.retx_scan = s.end();
            i += 1;
        }
        None
    }

    /// RFC 6675 NextSeg rule 3: the lowest un-SACKed, not-retransmitted segment below the highest
    /// SACKed byte (used when there is neither a lost segment nor new data to send). A segment
    /// passed over never becomes eligible again (it stays SACKed or retransmitted, or becomes
    /// lost and is rule 1's), so the scan resumes where the last one stopped.
    pub fn next_unsacked_below_high_sack(&mut self) -> Option<usize> {
        let high = self.ranges.last()?.1;
        let mut i = self.index_of(self.rule3_from);
        while i < self.segs.len() && self.segs[i].end() <= high {
            if self.segs[i].flags & (SACKED | RETRANS) == 0 {
                self.rule3_from = self.segs[i].seq;
                return Some(i);
            }
            i += 1;
        }
        self.rule3_from = self.rule3_from.max(high);
        None
    }

    #[inline]
    pub fn on_retransmit(&mut self, i: usize, now: Time, tx: TxState) -> (u64, u32) {
        if let Some(txs) = &mut self.txs {
            txs[i] = tx;
        }
        let s = &mut self.segs[i];
        debug_assert!(s.flags & RETRANS == 0);
        s.flags |= RETRANS | EVER_RETRANS;
        s.sent_at = now;
        s.delivered = tx.delivered;
        if self.retrans == 0 {
            self.retrans_from = s.seq;
        }
        self.retrans_from = self.retrans_from.min(s.seq);
        self.retrans += s.len as u64;
        (s.seq, s.len)
    }

    /// Invariant check used by tests: counters equal a recount of the flags.
    pub fn check_counters(&self) -> bool {
        let sum = |f: u8| self.segs.iter().filter(|s| s.has(f)).map(|s| s.len as u64).sum::<u64>();
        sum(SACKED) == self.sacked && sum(LOST) == self.lost && sum(RETRANS) == self.retrans
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_record_ring_follows_the_flight_down_after_a_peak() {
        let mut sb = Scoreboard::new(true);
        let mut d = Delivered::default();
        for k in 0..4096u64 {
            sb.push(k * 1000, 1000, k, TxState::default());
        }
        let peak = sb.segs.capacity();
        assert!(peak >= 4096);
        // Everything but the last 40 records acknowledged: the ring shrinks toward the flight.
        sb.ack_to(4056 * 1000, &mut d);
        assert_eq!(sb.len(), 40);
        assert!(sb.segs.capacity() < peak / 4, "capacity {} after a peak of {peak}", sb.segs.capacity());
        // Small rings are left alone.
        sb.ack_to(4095 * 1000, &mut d);
        assert_eq!(sb.len(), 1);
        assert!(sb.segs.capacity() >= 1);
    }
}
