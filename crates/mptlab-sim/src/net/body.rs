//! Packet bodies in a side table keyed by packet handle, so that what a packet carries beyond
//! its fixed header fields — a transport's frames (QUIC), or another packet (encapsulation in a
//! tunnel) — does not grow the hot `Packet` that forwarding touches.
//!
//! The table is indexed like the packet arena: the body of the packet with handle `h` is entry
//! `h`. An entry is rewritten when its handle is reused and keeps its allocations (a frames
//! vector is cleared, not freed), so steady state allocates nothing. An encapsulated packet stays
//! in the arena under its own handle, with its own body; the outer packet's body names it, so
//! decapsulation hands the inner handle on unchanged and nesting costs nothing extra.
//!
//! The SACK blocks of the TCP packets that carry some are here too, by handle, so that
//! `Packet` keeps only their count (`net::packet`).

use crate::wire::{SackBlock, MAX_SACK_BLOCKS};
use mptlab_engine::Handle;

/// The bodies of the packets in flight, by handle: the `frames` of the transport's own type
/// (e.g. QUIC frames) and, for a tunnel packet, the handle of the packet it carries. The two
/// are kept in separate arrays: the frames' stride stays that of `F` on the packet path, and the
/// inner handles are grown only once a run encapsulates. A third array holds SACK blocks, grown
/// only once a packet carries some; an entry is read only for a packet whose `nsack` says it
/// has blocks, so stale entries of reused handles need no clearing.
pub struct BodyTable<F> {
    frames: Vec<F>,
    inner: Vec<Option<Handle>>,
    sacks: Vec<[SackBlock; MAX_SACK_BLOCKS]>,
}

impl<F: Default> BodyTable<F> {
    pub fn new() -> Self {
        Self { frames: Vec::new(), inner: Vec::new(), sacks: Vec::new() }
    }

    /// Give the packet about to be sent with handle `h` the SACK blocks `blocks` (the packet's
    /// `nsack` says how many count). Whole arrays are copied: fixed-size moves, no `memcpy`
    /// call for a variable length.
    #[inline]
    pub fn set_sack(&mut self, h: Handle, blocks: &[SackBlock; MAX_SACK_BLOCKS]) {
        let i = h.0 as usize;
        if i >= self.sacks.len() {
            self.sacks.resize(i + 1, Default::default());
        }
        self.sacks[i] = *blocks;
    }

    /// The SACK blocks given to packet `h` with `set_sack`.
    #[inline]
    pub fn sack(&self, h: Handle) -> &[SackBlock; MAX_SACK_BLOCKS] {
        &self.sacks[h.0 as usize]
    }

    /// The frames of the packet about to be sent with handle `h` (those of the handle's previous
    /// packet, for the caller to overwrite in place); the handle carries no inner packet.
    #[inline]
    pub fn entry(&mut self, h: Handle) -> &mut F {
        let i = h.0 as usize;
        if i >= self.frames.len() {
            self.frames.resize_with(i + 1, F::default);
        }
        if let Some(x) = self.inner.get_mut(i) {
            *x = None;
        }
        &mut self.frames[i]
    }

    /// The frames of packet `h` (which must have been given some with `entry`).
    #[inline]
    pub fn get(&self, h: Handle) -> &F {
        &self.frames[h.0 as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, h: Handle) -> &mut F {
        &mut self.frames[h.0 as usize]
    }

    /// Make packet `outer` carry packet `inner` (both in the arena).
    #[inline]
    pub fn encapsulate(&mut self, outer: Handle, inner: Handle) {
        debug_assert_ne!(outer, inner, "a packet cannot carry itself");
        let i = outer.0 as usize;
        if i >= self.inner.len() {
            self.inner.resize(i + 1, None);
        }
        self.inner[i] = Some(inner);
    }

    /// The packet `outer` carries, if any, leaving it in place.
    #[inline]
    pub fn inner(&self, outer: Handle) -> Option<Handle> {
        self.inner.get(outer.0 as usize).copied().flatten()
    }

    /// Take the packet `outer` carries out of it (the tunnel egress): `outer` can then be freed
    /// and the inner packet forwarded under its own handle.
    #[inline]
    pub fn decapsulate(&mut self, outer: Handle) -> Option<Handle> {
        self.inner.get_mut(outer.0 as usize).and_then(Option::take)
    }

    /// Hint that the body of packet `h` is read soon (it arrives next on its link).
    #[inline]
    pub fn prefetch(&self, h: Handle) {
        if let Some(f) = self.frames.get(h.0 as usize) {
            mptlab_engine::prefetch(f);
        }
    }
}

impl<F: Default> Default for BodyTable<F> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::Packet;
    use mptlab_engine::Arena;

    /// Frames of a QUIC-like packet: reused in place.
    type Frames = Vec<u32>;

    #[test]
    fn frames_follow_the_handle_and_keep_their_allocation_on_reuse() {
        let mut arena: Arena<Packet> = Arena::default();
        let mut bodies: BodyTable<Frames> = BodyTable::new();
        let h = arena.insert(Packet { size: 1200, ..Packet::default() });
        bodies.entry(h).extend([1, 2, 3]);
        assert_eq!(*bodies.get(h), [1, 2, 3]);
        let cap = bodies.get(h).capacity();
        arena.remove(h);
        let h2 = arena.insert(Packet { size: 80, ..Packet::default() });
        assert_eq!(h2, h, "the arena reuses the freed slot");
        let b = bodies.entry(h2);
        b.clear();
        b.push(9);
        assert_eq!(*bodies.get(h2), [9]);
        assert_eq!(bodies.get(h2).capacity(), cap);
    }

    #[test]
    fn a_packet_carries_a_packet_that_carries_a_packet() {
        let mut arena: Arena<Packet> = Arena::default();
        let mut bodies: BodyTable<Frames> = BodyTable::new();
        let app = arena.insert(Packet { size: 1000, ..Packet::default() });
        bodies.entry(app).push(7);
        let tunnel = arena.insert(Packet { size: 1028, ..Packet::default() });
        bodies.encapsulate(tunnel, app);
        let outer = arena.insert(Packet { size: 1056, ..Packet::default() });
        bodies.encapsulate(outer, tunnel);
        assert_eq!(bodies.inner(outer), Some(tunnel));
        // Egress of the outer tunnel, then of the inner one: the innermost packet comes out
        // under its own handle with its own frames.
        let t = bodies.decapsulate(outer).expect("outer carries the tunnel packet");
        assert_eq!(bodies.inner(outer), None);
        arena.remove(outer);
        let a = bodies.decapsulate(t).expect("tunnel packet carries the app packet");
        arena.remove(t);
        assert_eq!(a, app);
        assert_eq!(arena.get(a).size, 1000);
        assert_eq!(*bodies.get(a), [7]);
        assert_eq!(bodies.decapsulate(a), None);
    }

    #[test]
    fn sack_blocks_follow_the_handle() {
        let mut bodies: BodyTable<Frames> = BodyTable::new();
        let blocks = [SackBlock { start: 10, end: 20 }, SackBlock { start: 30, end: 40 }, SackBlock::default()];
        bodies.set_sack(Handle(3), &blocks);
        assert_eq!(*bodies.sack(Handle(3)), blocks);
        // Frames and inner packets of the handle are independent of its blocks.
        bodies.entry(Handle(3)).push(1);
        assert_eq!(*bodies.sack(Handle(3)), blocks);
    }

    #[test]
    fn reusing_a_handle_forgets_the_old_inner_packet() {
        let mut bodies: BodyTable<Frames> = BodyTable::new();
        bodies.encapsulate(Handle(4), Handle(1));
        assert_eq!(bodies.inner(Handle(4)), Some(Handle(1)));
        bodies.entry(Handle(4));
        assert_eq!(bodies.inner(Handle(4)), None);
        assert_eq!(bodies.inner(Handle(99)), None);
        bodies.prefetch(Handle(99));
    }
}
