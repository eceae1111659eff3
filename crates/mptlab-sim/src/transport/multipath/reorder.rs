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
    /// Behind a gap that was given up (its wait ended, loss was detected, or the buffer was
    /// full); released out of the gap's order.
    Forced,
    /// Arrived after the stage had given up on it: passed on at once, out of order.
    Late,
}

/// One arrival at the reordering stage: what a multipath tunnel's header carries (seed 003 §2.1:
/// "global and per-path sequence numbers", and the send timestamp that §4.2's receiver-side
/// delay estimate is computed from).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrival {
    /// The path (tunnel subflow) it came on, 0-based.
    pub path: usize,
    /// Global (connection-level) sequence number: 0, 1, 2, … over all paths.
    pub seq: u64,
    /// Sequence number on its path: 0, 1, 2, … per path, in sending order.
    pub path_seq: u64,
    /// When the sender stamped it (simulated clock, shared by both ends).
    pub sent_at: Time,
}

/// A reordering stage for units numbered by one connection-level sequence (0, 1, 2, …).
pub trait Reordering {
    /// Unit `a.seq` arrived at `now`: push every unit it releases, in release order, into `out`
    /// (it may release none, itself, or itself and units held behind it).
    fn on_arrival(&mut self, now: Time, a: Arrival, out: &mut Vec<(u64, Release)>);
    /// When `on_timeout` has something to do: the earliest time a held unit must be released.
    fn deadline(&self) -> Option<Time>;
    /// Release what is due at `now` into `out`; before `deadline()` it does nothing.
    fn on_timeout(&mut self, now: Time, out: &mut Vec<(u64, Release)>);
}
