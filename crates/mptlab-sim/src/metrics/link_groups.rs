//! Per-group accounting of one link direction (issue 21): for each flow group (a `[flows.NAME]`
//! entry of the scenario) the packets offered, transmitted and dropped, the wire bytes, and the
//! wire bytes per `metrics.interval` bin, by the link's own rules (bytes counted when the
//! transmission ends; drops at the queue, on the channel and while down), so that the sums over
//! groups equal the link's totals. Kept on detailed links only; indexed by group (no hashing),
//! preallocated when the link is built.

use mptlab_engine::Time;

use super::interval::IntervalBins;

/// Packet and byte counters of one group on one link direction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GroupCounts {
    pub offered: u64,
    /// Packets that started transmission (channel losses included), like `LinkCounters`.
    pub packets: u64,
    pub bytes: u64,
    /// Queue, channel and down drops.
    pub drops: u64,
}

/// One group's counters and wire bins, together so that a transmission touches one element.
#[derive(Clone, Debug)]
struct GroupMeter {
    counts: GroupCounts,
    wire: IntervalBins,
}

#[derive(Clone, Debug)]
pub struct LinkGroups {
    groups: Vec<GroupMeter>,
}

impl LinkGroups {
    pub fn new(groups: usize, interval: Time, duration: Time) -> Self {
        LinkGroups {
            groups: (0..groups)
                .map(|_| GroupMeter { counts: GroupCounts::default(), wire: IntervalBins::new(interval, duration) })
                .collect(),
        }
    }

    #[inline]
    pub fn on_offer(&mut self, group: u16) {
        if let Some(g) = self.groups.get_mut(group as usize) {
            g.counts.offered += 1;
        }
    }

    #[inline]
    pub fn on_drop(&mut self, group: u16) {
        if let Some(g) = self.groups.get_mut(group as usize) {
            g.counts.drops += 1;
        }
    }

    /// A transmission of `size` bytes was scheduled; it ends at `tx_end`.
    #[inline]
    pub fn on_transmit(&mut self, group: u16, tx_end: Time, size: u64) {
        if let Some(g) = self.groups.get_mut(group as usize) {
            g.counts.packets += 1;
            g.counts.bytes += size;
            g.wire.add(tx_end, size);
        }
    }

    /// The link went down before the transmission ending at `tx_end` ended: its wire bytes are
    /// taken back, and if it had not started (`started` false) so is the transmission.
    pub fn on_cut(&mut self, group: u16, tx_end: Time, size: u64, started: bool) {
        if let Some(g) = self.groups.get_mut(group as usize) {
            g.wire.remove(tx_end, size);
            if !started {
                g.counts.packets -= 1;
                g.counts.bytes -= size;
            }
        }
    }

    /// The counters and wire bins of a run's only group, given whole.
    pub fn single(counts: GroupCounts, wire: IntervalBins) -> Self {
        LinkGroups { groups: vec![GroupMeter { counts, wire }] }
    }

    pub fn len(&self) -> usize {
        self.groups.len()
    }

    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    pub fn counts(&self, group: usize) -> GroupCounts {
        self.groups[group].counts
    }

    /// Wire bytes of `group` per interval.
    pub fn wire(&self, group: usize) -> &IntervalBins {
        &self.groups[group].wire
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Time = 1_000_000_000;

    #[test]
    fn counts_per_group_and_cut_transmissions_are_taken_back() {
        let mut g = LinkGroups::new(2, S, 3 * S);
        for group in [0, 1, 1] {
            g.on_offer(group);
            g.on_transmit(group, S / 2, 1_000);
        }
        g.on_offer(0);
        g.on_drop(0);
        g.on_transmit(1, 2 * S + 1, 500);
        g.on_cut(1, 2 * S + 1, 500, false);
        assert_eq!(g.counts(0), GroupCounts { offered: 2, packets: 1, bytes: 1_000, drops: 1 });
        assert_eq!(g.counts(1), GroupCounts { offered: 2, packets: 2, bytes: 2_000, drops: 0 });
        assert_eq!(g.wire(1).bins(), &[2_000, 0, 0]);
        // A group index out of range (none configured) is ignored.
        g.on_offer(7);
        assert_eq!(g.len(), 2);
    }
}
