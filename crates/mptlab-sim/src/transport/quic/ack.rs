//! The receiver side of QUIC acknowledgments for one packet number space, RFC 9000 §13.2.
//!
//! - Received packet numbers are kept as disjoint inclusive ranges; a packet number already
//!   held, or below the oldest range still tracked, is a duplicate (§12.3, §13.2.3).
//! - ACK policy for 1-RTT packets (§13.2.1, §13.2.2): an ACK is due after `ack_eliciting_threshold`
//!   (default 2) ack-eliciting packets, at the latest max_ack_delay after the first ack-eliciting
//!   packet not yet acknowledged, and immediately when an ack-eliciting packet arrives out of
//!   order: below the largest ack-eliciting packet received, or above it with missing packets in
//!   between. Non-ack-eliciting packets are recorded but never make an ACK due.
//! - The ACK frame lists ranges largest first, at most `max_ack_ranges` of them (the oldest are
//!   left out, §13.2.4); ACK Delay = now − receipt time of the largest packet number (§13.2.5).
//! - Once a packet that carried one of our ACK frames is acknowledged, packets at or below that
//!   frame's Largest Acknowledged are no longer reported (§13.2.4, `on_ack_frame_acked`): the
//!   sender has seen them, so later frames carry only the ranges above. The endpoint makes an
//!   ACK-only packet ack-eliciting about once per round trip (a PING, `conn.rs`) so that a pure
//!   receiver gets its ACKs acknowledged.
//!
//! Interpretations and omissions:
//! - The reordering rule applies only once an ack-eliciting packet has been received (the RFC
//!   compares with "the highest-numbered ack-eliciting packet that has been received").
//! - Ranges no longer reported (wholly at or below the acknowledged floor, apart from the largest
//!   range) are discarded, and everything up to the highest of them is then refused as a
//!   duplicate ("maintaining a minimum packet number that increases as ranges are discarded",
//!   §13.2.3; quinn drops acknowledged ranges the same way, `PendingAcks::subtract_below`, and
//!   refuses packets older than its `Dedup` window). So what a receiver keeps depends on the
//!   losses of the last round trips, not on how long it has run (issue 20). A packet that
//!   arrives more than a round trip after its successors is refused (a loss to the sender).
//! - At most `max_tracked_ranges` ranges are kept; the oldest is dropped and the floor rises
//!   in the same way (a peer that never acknowledges our ACKs). The largest range is always
//!   reported, even when it lies below the acknowledged floor (a late packet), so that an ACK
//!   that is due always has a frame.
//! - ECN counts, the ACK Delay exponent and the ACK frequency extension are not modelled.

use mptlab_engine::Time;
use smallvec::SmallVec;

use super::recovery::DEFAULT_MAX_ACK_DELAY;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckConfig {
    /// Our max_ack_delay transport parameter (RFC 9000 §18.2, default 25 ms).
    pub max_ack_delay: Time,
    /// Ack-eliciting packets that make an ACK due at once (§13.2.2: "at least two").
    pub ack_eliciting_threshold: u32,
    /// Ranges reported in one ACK frame.
    pub max_ack_ranges: usize,
    /// Ranges remembered.
    pub max_tracked_ranges: usize,
}

impl Default for AckConfig {
    fn default() -> Self {
        Self { max_ack_delay: DEFAULT_MAX_ACK_DELAY, ack_eliciting_threshold: 2, max_ack_ranges: 32, max_tracked_ranges: 256 }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Received {
    New,
    /// Already received (or too old to tell): the caller discards the packet.
    Duplicate,
}

/// An ACK frame's content: inclusive (smallest, largest) ranges, largest first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AckFrame {
    /// Inline: with acknowledged ACKs pruned (§13.2.4) a frame rarely has more than two, and
    /// the frame travels inside the packet without another allocation to chase.
    pub ranges: SmallVec<[(u64, u64); 2]>,
    pub ack_delay: Time,
}

impl AckFrame {
    pub fn largest(&self) -> Option<u64> {
        self.ranges.first().map(|r| r.1)
    }
}

#[derive(Clone, Debug)]
pub struct AckManager {
    cfg: AckConfig,
    /// Disjoint, non-adjacent inclusive ranges in ascending order.
    ranges: Vec<(u64, u64)>,
    /// Packet numbers below this are refused (ranges were discarded).
    min_accepted: u64,
    /// Largest packet number received and its receipt time.
    largest: Option<(u64, Time)>,
    largest_ack_eliciting: Option<u64>,
    /// Ack-eliciting packets received since the last ACK was sent.
    unacked_ack_eliciting: u32,
    /// Receipt time of the first of them.
    first_unacked_at: Option<Time>,
    /// An ACK has been due without delay since this time.
    immediate_since: Option<Time>,
    /// Any packet (ack-eliciting or not) received since the last ACK was sent.
    new_since_ack: bool,
    /// The largest Largest Acknowledged of our ACK frames known to have arrived: ranges at or
    /// below it are not reported again (§13.2.4).
    acked_floor: Option<u64>,
}

impl AckManager {
    /// Bytes its growable containers hold (`transport::footprint`).
    pub fn memory_footprint(&self) -> usize {
        use crate::transport::footprint::*;
        slice(&self.ranges)
    }

    pub fn new(cfg: AckConfig) -> Self {
        assert!(cfg.ack_eliciting_threshold >= 1 && cfg.max_ack_ranges >= 1 && cfg.max_tracked_ranges >= 1);
        Self {
            cfg,
            ranges: Vec::with_capacity(8),
            min_accepted: 0,
            largest: None,
            largest_ack_eliciting: None,
            unacked_ack_eliciting: 0,
            first_unacked_at: None,
            immediate_since: None,
            new_since_ack: false,
            acked_floor: None,
        }
    }

    fn find(&self, pn: u64) -> Option<usize> {
        // Packets arrive mostly in order: above the last range.
        if self.ranges.last().is_none_or(|r| r.1 < pn) {
            return None;
        }
        // First range whose end is ≥ pn.
        let i = self.ranges.partition_point(|r| r.1 < pn);
        (i < self.ranges.len() && self.ranges[i].0 <= pn).then_some(i)
    }

    pub fn contains(&self, pn: u64) -> bool {
        self.find(pn).is_some()
    }

    /// Insert a packet number known not to be held; returns the index of its range.
    #[inline]
    fn insert(&mut self, pn: u64) -> usize {
        // Fast path: in-order arrival extends the last range.
        if let Some(last) = self.ranges.last_mut() {
            if last.1 + 1 == pn {
                last.1 = pn;
                return self.ranges.len() - 1;
            }
        }
        let i = self.ranges.partition_point(|r| r.1 < pn);
        let joins_prev = i > 0 && self.ranges[i - 1].1 + 1 == pn;
        let joins_next = i < self.ranges.len() && self.ranges[i].0 == pn + 1;
        match (joins_prev, joins_next) {
            (true, true) => {
                self.ranges[i - 1].1 = self.ranges[i].1;
                self.ranges.remove(i);
                i - 1
            }
            (true, false) => {
                self.ranges[i - 1].1 = pn;
                i - 1
            }
            (false, true) => {
                self.ranges[i].0 = pn;
                i
            }
            (false, false) => {
                self.ranges.insert(i, (pn, pn));
                i
            }
        }
    }

    /// A packet arrived at `now`. Returns whether it is new; a duplicate changes nothing.
    #[inline]
    pub fn on_packet_received(&mut self, now: Time, pn: u64, ack_eliciting: bool) -> Received {
        if pn < self.min_accepted || self.contains(pn) {
            return Received::Duplicate;
        }
        let i = self.insert(pn);
        if self.largest.is_none_or(|(l, _)| pn > l) {
            self.largest = Some((pn, now));
        }
        if ack_eliciting {
            // §13.2.1: acknowledge at once a packet below the largest ack-eliciting one, or above
            // it with missing packets in between (its range does not reach down to it).
            let out_of_order = match self.largest_ack_eliciting {
                Some(l) => pn < l || self.ranges[i].0 > l + 1,
                None => false,
            };
            self.largest_ack_eliciting = Some(self.largest_ack_eliciting.map_or(pn, |l| l.max(pn)));
            self.unacked_ack_eliciting += 1;
            self.first_unacked_at.get_or_insert(now);
            if out_of_order || self.unacked_ack_eliciting >= self.cfg.ack_eliciting_threshold {
                self.immediate_since.get_or_insert(now);
            }
        }
        self.new_since_ack = true;
        if self.ranges.len() > self.cfg.max_tracked_ranges {
            let (_, hi) = self.ranges.remove(0);
            self.min_accepted = hi + 1;
        }
        Received::New
    }

    /// When an ACK frame must be sent: at once (a time ≤ now) after the threshold or a
    /// reordering, else max_ack_delay after the first unacknowledged ack-eliciting packet.
    /// None when no ack-eliciting packet awaits acknowledgment.
    pub fn deadline(&self) -> Option<Time> {
        self.immediate_since.or_else(|| self.first_unacked_at.map(|t| t + self.cfg.max_ack_delay))
    }

    /// Whether anything was received since the last ACK (an ACK may be piggybacked even when
    /// none is due).
    pub fn has_new(&self) -> bool {
        self.new_since_ack
    }

    /// Fill `frame` with the ACK to send at `now` (reusing its allocation). False when nothing
    /// was ever received. Does not change state: call `on_ack_sent` once the frame is sent.
    #[inline]
    pub fn ack_frame(&self, now: Time, frame: &mut AckFrame) -> bool {
        frame.ranges.clear();
        let Some((_, at)) = self.largest else { return false };
        let floor = self.acked_floor;
        for (k, &(lo, hi)) in self.ranges.iter().rev().take(self.cfg.max_ack_ranges).enumerate() {
            match floor {
                Some(f) if k > 0 && hi <= f => break,
                Some(f) if k > 0 => frame.ranges.push((lo.max(f + 1), hi)),
                _ => frame.ranges.push((lo, hi)),
            }
        }
        frame.ack_delay = now.saturating_sub(at);
        !frame.ranges.is_empty()
    }

    /// An ACK frame built by `ack_frame` was sent: nothing is due any more.
    pub fn on_ack_sent(&mut self) {
        self.unacked_ack_eliciting = 0;
        self.first_unacked_at = None;
        self.immediate_since = None;
        self.new_since_ack = false;
    }

    /// A packet carrying an ACK frame of ours whose Largest Acknowledged was `largest` has been
    /// acknowledged by the peer: stop reporting packets at or below it (§13.2.4).
    pub fn on_ack_frame_acked(&mut self, largest: u64) {
        let floor = self.acked_floor.map_or(largest, |f| f.max(largest));
        self.acked_floor = Some(floor);
        // The ranges no frame reports any more (all but the largest, at or below the floor)
        // go; what they covered is refused from now on.
        let reported_always = self.ranges.len().saturating_sub(1);
        let gone = self.ranges[..reported_always].partition_point(|r| r.1 <= floor);
        if gone > 0 {
            self.min_accepted = self.min_accepted.max(self.ranges[gone - 1].1 + 1);
            self.ranges.drain(..gone);
        }
    }

    /// Received ranges, ascending (tests, traces).
    pub fn ranges(&self) -> &[(u64, u64)] {
        &self.ranges
    }

    pub fn largest_received(&self) -> Option<u64> {
        self.largest.map(|(pn, _)| pn)
    }

    pub fn config(&self) -> &AckConfig {
        &self.cfg
    }
}

impl Default for AckManager {
    fn default() -> Self {
        Self::new(AckConfig::default())
    }
}
