//! QUIC and multipath QUIC flows in the simulation: the two endpoints (client = data sender,
//! server = receiver), their packets on each path's route pair, one timer per endpoint, the
//! path manager's reaction to interface events, and per-path samples.
//!
//! A QUIC packet's frames do not fit the fixed-size `Packet`: they live in a side table
//! (`WireSlab`) indexed like the packet arena, so a packet's handle finds its frames (QUIC
//! packets are UDP datagrams on the wire; `udp_payload` holds the STREAM bytes carried, so
//! ACK-only packets count as non-data). An entry is rewritten when its handle is reused;
//! entries keep their allocations, so steady state allocates nothing.

use super::flow::{FlowMetrics, Transport};
use super::{Packet, Simulation, RECEIVER, SENDER};
use crate::net::Proto;
use crate::spec::TransportSpec;
use crate::transport::quic::{QuicConn, Transmit, WirePacket};
use mptlab_engine::{Handle, Time};

/// The frames of the QUIC packet with each packet handle (entries of other protocols' handles
/// are unused).
#[derive(Default)]
pub(super) struct WireSlab {
    items: Vec<WirePacket>,
}

impl WireSlab {
    /// The entry for the packet about to be inserted with handle `h`.
    fn entry(&mut self, h: Handle) -> &mut WirePacket {
        let i = h.0 as usize;
        if i >= self.items.len() {
            self.items.resize_with(i + 1, WirePacket::default);
        }
        &mut self.items[i]
    }

    fn get(&self, h: Handle) -> &WirePacket {
        &self.items[h.0 as usize]
    }

    /// Hint that the frames of packet `h` are read soon (it arrives next on its link).
    pub(super) fn prefetch(&self, h: Handle) {
        if let Some(w) = self.items.get(h.0 as usize) {
            mptlab_engine::prefetch(w);
        }
    }
}

fn endpoint(t: &mut Transport, role: usize) -> Option<&mut QuicConn> {
    match t {
        Transport::Quic { cli, .. } if role == SENDER => Some(cli),
        Transport::Quic { srv, .. } => Some(srv),
        _ => None,
    }
}

impl Simulation {
    /// Run `op` on one endpoint of QUIC flow `f`, then send what it has and align its timer.
    pub(super) fn drive_quic(&mut self, now: Time, f: usize, role: usize, op: impl FnOnce(&mut QuicConn)) {
        let Some(ep) = endpoint(&mut self.flows[f].transport, role) else { return };
        op(ep);
        self.flush_quic(now, f, role);
    }

    fn flush_quic(&mut self, now: Time, f: usize, role: usize) {
        let deadline = loop {
            let h = self.packets.next_handle();
            let flow = &mut self.flows[f];
            let Some(ep) = endpoint(&mut flow.transport, role) else { return };
            let buf = self.quic_wire.entry(h);
            let slot = match ep.poll(now, buf) {
                Transmit::Packet(slot) => slot,
                Transmit::Idle(deadline) => break deadline,
            };
            let stream_bytes = buf.frames.stream_bytes() as u32;
            let size = buf.wire_size();
            if stream_bytes > 0 {
                flow.metrics.data_packets_sent += 1;
            } else {
                flow.metrics.ack_packets_sent += 1;
            }
            let route = flow.route_base + 2 * slot as u32 + (role != SENDER) as u32;
            // The frames were written for handle `h`: the packet must get it.
            debug_assert_eq!(self.packets.next_handle(), h, "a packet was inserted between building and sending");
            self.send_packet(
                now,
                Packet { route, hop: 0, proto: Proto::Udp, size, sent_at: now, udp_payload: stream_bytes, ..Default::default() },
            );
        };
        self.arm(f, role, deadline);
    }

    /// QUIC packet `h` reached the end of its route (its handle is already free: its frames
    /// are read before the endpoint's answers reuse it).
    pub(super) fn quic_deliver(&mut self, now: Time, f: usize, path: usize, to_server: bool, h: Handle) {
        let role = if to_server { RECEIVER } else { SENDER };
        let Some(ep) = endpoint(&mut self.flows[f].transport, role) else { return };
        let delivered = ep.on_packet(now, path, self.quic_wire.get(h));
        self.flush_quic(now, f, role);
        if delivered > 0 {
            self.record_delivery(now, f, delivered);
        }
    }

    pub(super) fn quic_timer(&mut self, now: Time, f: usize, role: usize) {
        self.drive_quic(now, f, role, |ep| ep.on_timeout(now));
    }

    /// The path manager of multipath QUIC flows: a path whose route starts or ends on `link`
    /// is abandoned when the link goes down and a new path is opened on it when it comes back
    /// (as for MPTCP, a link inside a route fails only through PTOs).
    pub(super) fn quic_interface_change(&mut self, now: Time, link: u32, up: bool) {
        for f in 0..self.flows.len() {
            let TransportSpec::Quic(q) = &self.spec.flows[f].transport else { continue };
            if !q.quic.multipath {
                continue;
            }
            let touching: Vec<usize> = q
                .paths
                .iter()
                .enumerate()
                .filter(|(_, p)| [p.fwd_route.first(), p.fwd_route.last(), p.rev_route.first(), p.rev_route.last()].contains(&Some(&link)))
                .map(|(i, _)| i)
                .collect();
            if touching.is_empty() {
                continue;
            }
            self.drive_quic(now, f, SENDER, |cli| {
                for slot in touching {
                    if up {
                        cli.path_up(now, slot);
                    } else {
                        cli.path_down(slot);
                    }
                }
            });
        }
    }
}

/// One sample of a QUIC flow: total window, SRTT per path.
pub(super) fn sample(now: Time, cli: &QuicConn, m: &mut FlowMetrics) {
    let mut cwnd = 0;
    let mut srtt0 = None;
    for (i, p) in cli.paths.iter().enumerate() {
        if !p.usable() {
            continue;
        }
        cwnd += p.cc.window();
        let r = p.recovery.rtt();
        if r.has_sample() {
            let ms = r.smoothed_rtt() as f64 / 1e6;
            srtt0.get_or_insert(ms);
            if let Some(mp) = m.mp.as_mut() {
                mp.srtt[i].record(now, ms);
            }
        }
    }
    m.cwnd.record(now, cwnd as f64);
    if let Some(s) = srtt0 {
        m.srtt.record(now, s);
    }
}
