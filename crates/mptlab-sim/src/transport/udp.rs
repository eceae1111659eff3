//! UDP: no state at the sender beyond a datagram counter; the receiver counts datagrams, bytes
//! and reordering, from which loss is derived (sent − received).

#[derive(Clone, Copy, Debug, Default)]
pub struct UdpReceiver {
    pub datagrams: u64,
    pub bytes: u64,
    /// Datagrams that arrived with a lower sequence number than one already seen.
    pub reordered: u64,
    next_expected: u64,
}

impl UdpReceiver {
    /// Record a datagram; returns the payload bytes delivered to the application.
    pub fn on_datagram(&mut self, seq: u64, payload: u32) -> u64 {
        self.datagrams += 1;
        self.bytes += payload as u64;
        if seq < self.next_expected {
            self.reordered += 1;
        } else {
            self.next_expected = seq + 1;
        }
        payload as u64
    }
}
