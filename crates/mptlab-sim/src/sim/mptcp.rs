//! MPTCP flows in the simulation: moving the connection's segments onto each subflow's route,
//! its per-subflow timers, the joins of additional subflows, and the per-path samples of seed
//! 001's metrics.

use super::flow::{FlowMetrics, Transport};
use super::{Ev, Packet, Simulation, RECEIVER, SENDER};
use crate::cc::CcParams;
use crate::net::Proto;
use crate::spec::TransportSpec;
use crate::transport::mptcp::{hol, MpSeg, MptcpSender, SubState, DSS_ACK_BYTES, DSS_DATA_BYTES, MAX_SUBFLOWS};
use crate::transport::segment::TCP_HEADER_BYTES;
use mptlab_engine::Time;

impl Simulation {
    /// Run `op` on flow `f`'s MPTCP sender (with the application backlog), put what it produced
    /// on the wire, schedule joins that became due and align every subflow's timers.
    pub(super) fn drive_mptcp(&mut self, now: Time, f: usize, op: impl FnOnce(&mut MptcpSender, &mut u64, &mut Vec<MpSeg>)) {
        let flow = &mut self.flows[f];
        let Transport::Mptcp { snd, .. } = &mut flow.transport else {
            return;
        };
        let mut out = std::mem::take(&mut self.mp_scratch);
        op(snd, &mut flow.backlog, &mut out);
        let joins = snd.take_joins_due().then(|| (snd.join_delay(), snd.subs.len()));
        let mut touched = snd.take_touched();
        self.mp_scratch = out;
        self.flush_mptcp(now, f);
        if let Some((delay, paths)) = joins {
            for path in 1..paths {
                self.queue.schedule(now + delay, Ev::Join(f as u32, path as u16));
            }
        }
        while touched != 0 {
            let path = touched.trailing_zeros() as usize;
            touched &= touched - 1;
            self.sync_timer(f, path, SENDER);
        }
    }

    fn flush_mptcp(&mut self, now: Time, f: usize) {
        if self.mp_scratch.is_empty() {
            return;
        }
        let mut out = std::mem::take(&mut self.mp_scratch);
        for seg in out.drain(..) {
            let flow = &mut self.flows[f];
            let Transport::Mptcp { snd, .. } = &flow.transport else { unreachable!("an mptcp flow") };
            let epoch = snd.subs[seg.sub as usize].epoch;
            let route = flow.route_base + 2 * seg.sub as u32;
            let options = if seg.hdr.len > 0 {
                flow.metrics.data_packets_sent += 1;
                DSS_DATA_BYTES
            } else {
                flow.metrics.ack_packets_sent += 1;
                DSS_ACK_BYTES
            };
            let size = seg.hdr.len + TCP_HEADER_BYTES + options;
            self.send_packet(
                now,
                Packet { route, hop: 0, proto: Proto::Tcp, epoch, size, sent_at: now, tcp: seg.hdr, ..Default::default() },
            );
        }
        self.mp_scratch = out;
    }

    /// An ACK reached the sender of path `path`.
    pub(super) fn mptcp_ack(&mut self, now: Time, f: usize, path: usize, p: &Packet) {
        self.drive_mptcp(now, f, |snd, backlog, out| {
            snd.on_ack(now, path, p.epoch, &p.tcp, out);
            // Space freed in the send buffer unblocks a waiting application write.
            if *backlog > 0 {
                *backlog -= snd.write(now, *backlog);
                snd.push(now, out);
            }
        });
    }

    pub(super) fn mptcp_timer(&mut self, now: Time, f: usize, path: usize, role: usize) {
        if role == RECEIVER {
            let Transport::Mptcp { rcv, .. } = &mut self.flows[f].transport else {
                return;
            };
            let mut out = std::mem::take(&mut self.scratch);
            rcv.on_timer(now, path, &mut out);
            self.scratch = out;
            self.flush_headers(now, f, path, RECEIVER);
            self.sync_timer(f, path, RECEIVER);
        } else {
            self.drive_mptcp(now, f, |snd, _, out| snd.on_timer(now, path, out));
        }
    }

    /// The path manager (Linux's in-kernel PM reacting to an interface event): a subflow whose
    /// route starts or ends on `link` at one of the two hosts is closed when the link goes down
    /// (its data is reinjected on the others) and joined again `join_delay` after it comes back.
    /// A link further inside a route is not an interface: its failure shows only through the
    /// subflow's retransmission timeouts.
    pub(super) fn mptcp_interface_change(&mut self, now: Time, link: u32, up: bool) {
        for f in 0..self.flows.len() {
            let TransportSpec::Mptcp(m) = &self.spec.flows[f].transport else { continue };
            let touching: Vec<usize> = m
                .paths
                .iter()
                .enumerate()
                .filter(|(_, p)| [p.fwd_route.first(), p.fwd_route.last(), p.rev_route.first(), p.rev_route.last()].contains(&Some(&link)))
                .map(|(i, _)| i)
                .collect();
            if touching.is_empty() {
                continue;
            }
            let params = CcParams { mss: m.config.mss, initial_cwnd_segments: m.config.initial_cwnd_segments };
            // A closed subflow restarts with a fresh controller (built now: `spec` is borrowed).
            let fresh: Vec<_> = if up { Vec::new() } else { touching.iter().map(|_| m.cc.build(params)).collect() };
            if up {
                for path in touching {
                    let Transport::Mptcp { snd, .. } = &mut self.flows[f].transport else { continue };
                    if snd.reopen_subflow(path) {
                        let at = now + snd.join_delay();
                        self.queue.schedule(at, Ev::Join(f as u32, path as u16));
                    }
                }
                continue;
            }
            for (path, cc) in touching.into_iter().zip(fresh) {
                let mut epoch = None;
                self.drive_mptcp(now, f, |snd, _, out| {
                    if snd.subs[path].state != SubState::Closed {
                        epoch = Some(snd.close_subflow(now, path, cc, out));
                    }
                });
                if let (Some(e), Transport::Mptcp { rcv, .. }) = (epoch, &mut self.flows[f].transport) {
                    rcv.reset_subflow(path, e);
                    self.sync_timer(f, path, RECEIVER);
                }
            }
        }
    }

    pub(super) fn on_join(&mut self, now: Time, f: usize, path: usize) {
        self.drive_mptcp(now, f, |snd, _, out| snd.open_subflow(now, path, out));
    }
}

/// One sample k of an MPTCP flow: total window, τ_i(k) per subflow, T_i(k), T_over(k) (eq. 2)
/// and ζ(k) (eq. 8) as `transport/mptcp/hol.rs` reads them, and the first-DATA_ACK delay.
pub(super) fn sample(now: Time, snd: &mut MptcpSender, m: &mut FlowMetrics) {
    let Some(mp) = m.mp.as_mut() else { return };
    let mut cwnd = 0;
    let n = snd.subs.len().min(MAX_SUBFLOWS);
    let mut tau = [None; MAX_SUBFLOWS];
    let mut t_i = [None; MAX_SUBFLOWS];
    for i in 0..n {
        // Taken on every path, so an interval's T_i never leaks into the next one.
        t_i[i] = snd.path_delay.take(i).map(|d| d as f64 / 1e6);
        let s = &snd.subs[i];
        if s.state != SubState::Active || !s.snd.is_established() {
            continue;
        }
        cwnd += s.snd.cwnd();
        if let Some(r) = s.snd.rtt().srtt() {
            let ms = r as f64 / 1e6;
            mp.srtt[i].record(now, ms);
            tau[i] = Some(ms);
        }
    }
    m.cwnd.record(now, cwnd as f64);
    if let Some(d) = snd.take_interval_protocol_delay() {
        mp.data_ack_delay.record(now, d as f64 / 1e6);
    }
    if let Some((t_over, z)) = hol::zeta(&t_i[..n], &tau[..n]) {
        mp.protocol_delay.record(now, t_over);
        mp.hol_degree.record(now, z);
    }
}
