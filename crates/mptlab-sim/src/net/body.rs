//! Packet bodies in a side table keyed by packet handle, so that what a packet carries beyond
//! its fixed header fields — a transport's frames (QUIC), or another packet (encapsulation in a
//! tunnel) — does not grow the hot `Packet` that forwarding touches.
//!
//! The table is indexed like the packet arena: the body of the packet with handle `h` is entry
//! `h`. An entry is rewritten when its handle is reused and keeps its allocations (a frames
//! vector is cleared, not freed), so steady state allocates nothing. An encapsulated packet stays
//! in the arena under its own handle, with its own body; the outer packet's body names it, so
//! decapsulation hands the inner handle on unchanged and nesting costs nothing extra.

use mptlab_engine::Handle;

/// What one packet carries besides its header fields: `frames` of the transport's own type
/// (e.g. QUIC frames) and, for a tunnel packet, the packet it encapsulates.
#[derive(Clone, Debug, Default)]
pub struct Body<F> {
    pub inner: Option<Handle>,
    pub frames: F,
}

/// The bodies of the packets in flight, by handle.
pub struct BodyTable<F> {
    items: Vec<Body<F>>,
}

impl<F: Default> BodyTable<F> {
    pub fn new() -> Self {
        Self { items: Vec::new() }
    }

    /// The body of the packet about to be sent with handle `h`: no inner packet, and the frames
    /// of the handle's previous packet, for the caller to overwrite in place.
    #[inline]
    pub fn entry(&mut self, h: Handle) -> &mut Body<F> {
        let i = h.0 as usize;
        if i >= self.items.len() {
            self.items.resize_with(i + 1, Body::default);
        }
        let b = &mut self.items[i];
        b.inner = None;
        b
    }

    /// The body of packet `h` (which must have been given one with `entry`).
    #[inline]
    pub fn get(&self, h: Handle) -> &Body<F> {
        &self.items[h.0 as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, h: Handle) -> &mut Body<F> {
        &mut self.items[h.0 as usize]
    }

    /// Make packet `outer` carry packet `inner` (both in the arena).
    #[inline]
    pub fn encapsulate(&mut self, outer: Handle, inner: Handle) {
        debug_assert_ne!(outer, inner, "a packet cannot carry itself");
        self.entry(outer).inner = Some(inner);
    }

    /// The packet `outer` carries, if any, leaving it in place.
    #[inline]
    pub fn inner(&self, outer: Handle) -> Option<Handle> {
        self.items.get(outer.0 as usize).and_then(|b| b.inner)
    }

    /// Take the packet `outer` carries out of it (the tunnel egress): `outer` can then be freed
    /// and the inner packet forwarded under its own handle.
    #[inline]
    pub fn decapsulate(&mut self, outer: Handle) -> Option<Handle> {
        self.items.get_mut(outer.0 as usize).and_then(|b| b.inner.take())
    }

    /// Hint that the body of packet `h` is read soon (it arrives next on its link).
    #[inline]
    pub fn prefetch(&self, h: Handle) {
        if let Some(b) = self.items.get(h.0 as usize) {
            mptlab_engine::prefetch(b);
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
        bodies.entry(h).frames.extend([1, 2, 3]);
        assert_eq!(bodies.get(h).frames, [1, 2, 3]);
        let cap = bodies.get(h).frames.capacity();
        arena.remove(h);
        let h2 = arena.insert(Packet { size: 80, ..Packet::default() });
        assert_eq!(h2, h, "the arena reuses the freed slot");
        let b = bodies.entry(h2);
        b.frames.clear();
        b.frames.push(9);
        assert_eq!(bodies.get(h2).frames, [9]);
        assert_eq!(bodies.get(h2).frames.capacity(), cap);
    }

    #[test]
    fn a_packet_carries_a_packet_that_carries_a_packet() {
        let mut arena: Arena<Packet> = Arena::default();
        let mut bodies: BodyTable<Frames> = BodyTable::new();
        let app = arena.insert(Packet { size: 1000, ..Packet::default() });
        bodies.entry(app).frames.push(7);
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
        assert_eq!(bodies.get(a).frames, [7]);
        assert_eq!(bodies.decapsulate(a), None);
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
