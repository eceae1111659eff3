//! UDP: no state at the sender beyond a datagram counter; the receiver counts datagrams, bytes
//! and reordering, from which loss is derived (sent − received).

use super::bodies::Bodies;
use super::endpoint::{AppStart, End, Endpoint, Outbox, SummaryInput, Transmit};
use super::flow_metrics::FlowMetrics;
use super::segment::UDP_HEADER_BYTES;
use crate::net::{Packet, Proto};
use crate::transport::part::TransportPart;
use mptlab_engine::{Handle, Time};

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

/// A UDP flow behind the endpoint interface (`transport/endpoint.rs`): each write leaves as
/// datagrams of at most `payload` bytes, numbered from 0; no timers, no feedback.
///
/// Kept inline in `AnyEndpoint`: the receiver's counters are boxed so this stays 32 bytes,
/// within single-path TCP's size class (`AnyEndpoint` is as large as its largest variant).
pub struct UdpConn {
    pub payload: u32,
    pub next_seq: u64,
    pub rcv: Box<UdpReceiver>,
    /// Bytes written and not yet cut into datagrams (drained by `poll_transmit`).
    unsent: u64,
}

impl UdpConn {
    pub fn new(payload: u32) -> Self {
        Self { payload, next_seq: 0, rcv: Box::default(), unsent: 0 }
    }
}

impl Endpoint for UdpConn {
    fn paths(&self) -> usize {
        1
    }

    fn start(&mut self, now: Time, app: AppStart, out: &mut Outbox) -> u64 {
        self.write(now, app.bytes, out)
    }

    /// Datagrams are never blocked.
    #[inline]
    fn write(&mut self, _: Time, bytes: u64, _: &mut Outbox) -> u64 {
        self.unsent += bytes;
        bytes
    }

    fn finish(&mut self) {}

    #[inline]
    fn on_packet(&mut self, _: Time, _: End, _: usize, p: &Packet, _: &Bodies, _: Handle, _: &mut Outbox) -> u64 {
        self.rcv.on_datagram(p.seq, p.len)
    }

    fn on_timeout(&mut self, _: Time, _: usize, _: &mut Outbox) {}

    fn on_open_path(&mut self, _: Time, _: usize, _: &mut Outbox) {}

    fn on_interface(&mut self, _: Time, _: usize, _: usize, _: u32, _: bool, _: &mut Outbox) -> bool {
        false
    }

    // Inlined into the simulation's drain loop, so the 128-byte transmit is built in place
    // rather than copied out of each call.
    #[inline(always)]
    fn poll_transmit(&mut self, now: Time, _: &mut Outbox, _: &mut Bodies, _: Handle) -> Option<Transmit> {
        if self.unsent == 0 {
            return None;
        }
        let n = self.unsent.min(self.payload as u64) as u32;
        self.unsent -= n as u64;
        let seq = self.next_seq;
        self.next_seq += 1;
        let packet = Packet { proto: Proto::Udp, size: n + UDP_HEADER_BYTES, sent_at: now, seq, len: n, ..Default::default() };
        Some(Transmit { path: 0, from: End::Sender, packet })
    }

    fn sample(&mut self, _: Time, _: &mut FlowMetrics) {}

    /// UDP keeps no transport state worth reporting: the flow's own counters say it all.
    fn summary(&self, _: &SummaryInput) -> TransportPart {
        TransportPart::default()
    }

    /// Counters only: nothing grows.
    fn memory_footprint(&self) -> usize {
        0
    }
}
