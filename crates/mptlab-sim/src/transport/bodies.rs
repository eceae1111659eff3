//! Packet bodies that do not fit the fixed-size `Packet`: a side table indexed like the packet
//! arena, so a packet's handle finds its body. Today the only bodies are QUIC frames (a QUIC
//! packet is a UDP datagram on the wire whose `udp_payload` holds the STREAM bytes carried, so
//! ACK-only packets count as non-data). An entry is rewritten when its handle is reused; entries
//! keep their allocations, so steady state allocates nothing. Entries of handles whose packets
//! carry no body are never grown or read.

use super::quic::WirePacket;
use mptlab_engine::Handle;

#[derive(Default)]
pub struct Bodies {
    items: Vec<WirePacket>,
}

impl Bodies {
    /// The entry for the packet about to be inserted with handle `h`.
    #[inline]
    pub(crate) fn entry(&mut self, h: Handle) -> &mut WirePacket {
        let i = h.0 as usize;
        if i >= self.items.len() {
            self.items.resize_with(i + 1, WirePacket::default);
        }
        &mut self.items[i]
    }

    #[inline]
    pub(crate) fn get(&self, h: Handle) -> &WirePacket {
        &self.items[h.0 as usize]
    }

    /// Hint that the body of packet `h` is read soon (it arrives next on its link).
    #[inline]
    pub fn prefetch(&self, h: Handle) {
        if let Some(w) = self.items.get(h.0 as usize) {
            mptlab_engine::prefetch(w);
        }
    }
}
