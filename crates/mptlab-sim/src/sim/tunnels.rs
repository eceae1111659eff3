//! Tunnels in the simulation: the routes into and out of them, their timers and samples.
//!
//! Routes of tunnel t: path i's data on `route_base + 2i` (ingress → egress, ends at
//! `RouteEnd::Tunnel { at: Receiver }`) and its acknowledgments on `route_base + 2i + 1`. A flow
//! that enters the tunnel sends its data on a route that ends at `RouteEnd::TunnelIngress`,
//! which names the route the inner packet takes after the egress (`next_route`: egress → the
//! flow's receiver, possibly empty). The inner packet is re-routed when it enters, so while
//! the tunnel holds it (scheduler buffer, inside an outer packet, reordering stage) a drop is
//! charged to its flow like any other.

use super::results::Columns;
use super::{arm, Ev, Simulation};
use crate::metrics::{IntervalBins, Trace};
use crate::net::{Packet, QueueLimit};
use crate::results::{TunnelBufferSummary, TunnelEgressSummary, TunnelPathSummary, TunnelSummary};
use crate::transport::endpoint::End;
use crate::transport::tunnel::{Tunnel, TunnelKind, MAX_TUNNEL_SLOTS};
use mptlab_engine::time::as_secs_f64;
use mptlab_engine::timer::Fired;
use mptlab_engine::{Handle, LazyTimer, Time};

/// A tunnel at run time.
pub struct TunnelRt {
    pub tunnel: Tunnel,
    pub route_base: u32,
    /// The flow group its outer packets are counted under on links (the tunnel's name).
    pub group: u16,
    pub timers: Vec<LazyTimer>,
    /// Per path: inner bytes arriving at the egress per interval, and sampled windows and SRTTs.
    pub path_bins: Vec<IntervalBins>,
    pub cwnd: Vec<Trace>,
    pub srtt: Vec<Trace>,
    /// Outer packets lost on each path (queues and channels).
    pub path_drops: Vec<u64>,
}

impl TunnelRt {
    pub fn new(tunnel: Tunnel, route_base: u32, group: u16, interval: Time, every: Time, duration: Time) -> Self {
        let n = tunnel.paths();
        Self {
            timers: vec![LazyTimer::default(); tunnel.slots()],
            path_bins: (0..n).map(|_| IntervalBins::new(interval, duration)).collect(),
            cwnd: (0..n).map(|_| Trace::new(every, duration)).collect(),
            srtt: (0..n).map(|_| Trace::new(every, duration)).collect(),
            path_drops: vec![0; n],
            tunnel,
            route_base,
            group,
        }
    }
}

impl Simulation {
    /// Inner packet `h` reached tunnel `t`'s ingress; after the egress it takes `next_route`.
    pub(super) fn tunnel_ingress(&mut self, now: Time, t: usize, h: Handle, next_route: u32) {
        let p = self.packets.get_mut(h);
        p.route = next_route;
        p.hop = 0;
        let size = p.size;
        if !self.tunnels[t].tunnel.on_inner(now, h, size) {
            self.drop_packet(h);
        }
        self.flush_tunnel(now, t);
    }

    /// Outer packet `h` reached end `at` of path `path` of tunnel `t`.
    pub(super) fn tunnel_arrival(&mut self, now: Time, t: usize, path: usize, at: End, h: Handle) {
        let p = *self.packets.remove(h);
        self.counts.delivered += 1;
        let inner = if at == End::Receiver { self.bodies.decapsulate(h) } else { None };
        let rt = &mut self.tunnels[t];
        let before = rt.tunnel.path_inner_bytes[path];
        let bodies = &self.bodies;
        rt.tunnel.on_packet(now, at, path, &p, || p.tcp_header(bodies, h), inner, &mut self.tunnel_out);
        // Inner bytes that arrived: the DCCP packet's, or the records a TCP segment completed.
        let arrived = rt.tunnel.path_inner_bytes[path] - before;
        if at == End::Receiver {
            rt.path_bins[path].add(now, arrived);
        }
        self.flush_tunnel(now, t);
    }

    /// An outer packet of tunnel `t` on path `path` was lost: so is the packet it carried (a
    /// DCCP packet's; a TCP segment carries bytes, which TCP sends again).
    pub(super) fn tunnel_drop(&mut self, h: Handle, t: usize, path: usize, at: End) {
        if at == End::Receiver {
            self.tunnels[t].path_drops[path] += 1;
            if let Some(inner) = self.bodies.decapsulate(h) {
                self.drop_packet(inner);
            }
        }
    }

    /// Drain tunnel `t`: its packets onto their routes, its timers into the event queue, then
    /// the inner packets its egress released onto their routes (and those it gave up dropped).
    fn flush_tunnel(&mut self, now: Time, t: usize) {
        loop {
            let next = self.packets.next_handle();
            let rt = &mut self.tunnels[t];
            let Some(tx) = rt.tunnel.poll_transmit(now, &mut self.bodies, next) else { break };
            let route = rt.route_base + 2 * tx.path as u32 + (tx.from == End::Receiver) as u32;
            let group = rt.group;
            debug_assert_eq!(self.packets.next_handle(), next, "a packet was inserted between building and sending");
            self.send_packet(now, Packet { route, hop: 0, group, ..tx.packet });
        }
        let mut deadlines = std::mem::take(&mut self.tunnel_deadlines);
        self.tunnels[t].tunnel.deadlines(&mut deadlines);
        for &(slot, d) in &deadlines {
            let ep = (MAX_TUNNEL_SLOTS * t + slot) as u32;
            arm(&mut self.queue, &mut self.tunnels[t].timers[slot], d, |generation| Ev::TunnelTimer { ep, generation });
        }
        deadlines.clear();
        self.tunnel_deadlines = deadlines;
        let mut out = std::mem::take(&mut self.tunnel_out);
        for h in out.dropped.drain(..) {
            self.drop_packet(h);
        }
        for h in out.released.drain(..) {
            self.forward(now, h);
        }
        self.tunnel_out = out;
    }

    pub(super) fn on_tunnel_timer(&mut self, now: Time, ep: u32, generation: u32) {
        let (t, slot) = (ep as usize / MAX_TUNNEL_SLOTS, ep as usize % MAX_TUNNEL_SLOTS);
        match self.tunnels[t].timers[slot].on_event(now, generation) {
            Fired::Stale => {}
            Fired::Rearm { at, generation } => self.queue.schedule(at, Ev::TunnelTimer { ep, generation }),
            Fired::Expired => {
                self.tunnels[t].tunnel.on_timeout(now, slot, &mut self.tunnel_out);
                self.flush_tunnel(now, t);
            }
        }
    }

    /// Periodic sample of every tunnel path's window and SRTT.
    pub(super) fn sample_tunnels(&mut self, now: Time) {
        for rt in &mut self.tunnels {
            for (i, s) in rt.tunnel.tunnel_paths().iter().enumerate() {
                rt.cwnd[i].record(now, s.cwnd() as f64);
                if let Some(srtt) = s.srtt() {
                    rt.srtt[i].record(now, srtt as f64 / 1e6);
                }
            }
        }
    }

    /// Inner packets inside the tunnels: held at the ingress or egress, or carried by an outer
    /// packet on the way (for the conservation check: they are live packets that no link
    /// counts). DCCP paths: those inside outer packets follow from the counters; TCP paths:
    /// every inner packet written into a path's stream and not yet delivered at the egress is
    /// in its record list (`packets_held`), whatever became of the segments.
    pub fn tunnel_packets_held(&self) -> usize {
        self.tunnels
            .iter()
            .map(|rt| {
                let carried = match rt.tunnel.kind() {
                    TunnelKind::Dccp => {
                        let sent: u64 = rt.tunnel.tunnel_paths().iter().map(|s| s.packets_sent()).sum();
                        sent - rt.tunnel.egress().arrived - rt.path_drops.iter().sum::<u64>()
                    }
                    TunnelKind::Tcp => 0,
                };
                rt.tunnel.packets_held() + carried as usize
            })
            .sum()
    }
}

impl Simulation {
    /// Tunnel `t`'s record in summary.json.
    pub(super) fn tunnel_summary(&self, t: usize) -> TunnelSummary {
        let rt = &self.tunnels[t];
        let spec = &self.spec.tunnels[t];
        let tun = &rt.tunnel;
        let b = tun.buffer();
        let c = b.counters();
        let (limit_packets, limit_bytes) = match spec.buffer {
            QueueLimit::Packets(n) => (Some(n), None),
            QueueLimit::Bytes(n) => (None, Some(n)),
        };
        let total: u64 = tun.path_inner_bytes.iter().sum();
        let ms = |t: Time| t as f64 / 1e6;
        let paths = spec
            .paths
            .iter()
            .zip(tun.tunnel_paths())
            .enumerate()
            .map(|(i, (p, s))| TunnelPathSummary {
                route: p.fwd_route.iter().map(|&l| self.spec.links[l as usize].name.clone()).collect(),
                priority: p.priority,
                backup: p.backup,
                packets_sent: s.packets_sent(),
                wire_bytes_sent: s.wire_bytes_sent(),
                packets_acked: s.packets_acked(),
                packets_lost: s.packets_lost(),
                network_drops: rt.path_drops[i],
                timeouts: s.timeouts(),
                congestion_events: s.congestion_events(),
                inner_bytes: tun.path_inner_bytes[i],
                throughput_mbps: rt.path_bins[i].summary(0),
                cwnd_packets: s.cwnd() as f64 / s.window_unit() as f64,
                srtt_ms: s.srtt().map(ms),
                min_rtt_ms: s.min_rtt().map(ms),
                cc_state: s.state_name(),
            })
            .collect();
        TunnelSummary {
            name: spec.name.clone(),
            ingress: self.spec.nodes[spec.ingress as usize].name.clone(),
            egress: self.spec.nodes[spec.egress as usize].name.clone(),
            protocol: spec.kind.name(),
            cc: spec.cc.name(),
            scheduler: spec.scheduler.name(),
            buffer: TunnelBufferSummary {
                limit_packets,
                limit_bytes,
                offered: c.offered,
                dropped: c.dropped,
                max_packets: c.max_packets,
                max_bytes: c.max_bytes,
                wait_ms_mean: b.wait().mean() * 1e3,
                wait_ms_max: b.wait().max() * 1e3,
            },
            paths,
            secondary_share: (total > 0).then(|| 1.0 - tun.path_inner_bytes[0] as f64 / total as f64),
            egress_counters: TunnelEgressSummary {
                arrived: tun.egress().arrived,
                released: tun.egress().released,
                reorder: serde_json::to_value(tun.reorderer().stats()).expect("plain data"),
            },
        }
    }

    /// Per tunnel path: `tunnel_path_mbps` (inner bytes arriving at the egress per interval),
    /// `tunnel_cwnd_packets` and `tunnel_srtt_ms` (sampled), entity `<tunnel>:<path index>`.
    pub(super) fn tunnel_timeseries(&self, c: &mut Columns) {
        let iv = self.spec.metrics.interval;
        for (rt, spec) in self.tunnels.iter().zip(&self.spec.tunnels) {
            for i in 0..rt.path_bins.len() {
                let mss = rt.tunnel.tunnel_paths()[i].window_unit() as f64;
                let entity = format!("{}:{i}", spec.name);
                let bins = &rt.path_bins[i];
                for (k, r) in bins.rates_bps().iter().enumerate() {
                    c.push("tunnel_path_mbps", &entity, as_secs_f64(k as Time * iv), r / 1e6);
                }
                let (ts, vs) = rt.cwnd[i].points();
                for (t, v) in ts.iter().zip(vs) {
                    c.push("tunnel_cwnd_packets", &entity, *t, v / mss);
                }
                c.push_trace("tunnel_srtt_ms", &entity, &rt.srtt[i]);
            }
        }
    }
}
