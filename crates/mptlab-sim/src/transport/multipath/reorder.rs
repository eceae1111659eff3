//! The receive side's hook for putting units that travelled on several paths back in their
//! sending order before they go up (to an application, or out of a tunnel's egress).
//!
//! MPTCP and QUIC need no separate stage: their receivers reassemble by their own sequence
//! spaces (the data sequence number, `mptcp/receiver.rs`, RFC 8684 §3.3; the stream offsets,
//! `quic/streams.rs`, RFC 9000 §2.2) and deliver in order themselves. A multipath tunnel
//! (issue 22, seed 003) carries packets that are not a byte stream and must decide how long a
//! gap may hold back the packets behind it: static (a fixed wait), adaptive (the wait follows
//! the paths' delay difference), delay equalisation. Those modes implement `Reordering`, which
//! is what the egress calls, as a sans-IO state machine like the transports.

use mptlab_engine::Time;

/// Why a unit left the reordering stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Release {
    /// Next in order.
    InOrder,
    /// Behind a gap that waited to its limit (the gap is given up).
    Forced,
    /// Arrived after the stage had given up on it: passed on at once, out of order.
    Late,
}

/// A reordering stage for units numbered by one connection-level sequence (0, 1, 2, …).
pub trait Reordering {
    /// Unit `seq` arrived on path `path` at `now`: push every unit it releases, in release
    /// order, into `out` (it may release none, itself, or itself and units held behind it).
    fn on_arrival(&mut self, now: Time, path: usize, seq: u64, out: &mut Vec<(u64, Release)>);
    /// When `on_timeout` has something to do: the wait limit of the oldest held gap, if any.
    fn deadline(&self) -> Option<Time>;
    /// Give up the gaps whose wait has ended at `now`: push the units they held back into
    /// `out`.
    fn on_timeout(&mut self, now: Time, out: &mut Vec<(u64, Release)>);
}
