//! An MPTCP flow behind the endpoint interface (`transport/endpoint.rs`): the connection's two
//! halves, each subflow's segments on its own path with the DSS option bytes (RFC 8684 §3.3),
//! the joins of additional subflows (§3.2), the path manager's reaction to interface events, and
//! seed 001's per-path samples.

use super::summary::MptcpTraces;
use super::{hol, MptcpReceiver, MptcpSender, SubState, SubflowParams, DSS_ACK_BYTES, DSS_DATA_BYTES, MAX_SUBFLOWS};
use crate::cc::{CcConfig, CcParams};
use crate::net::Packet;
use crate::transport::bodies::Bodies;
use crate::transport::endpoint::{
    conn_slot, AppStart, End, Endpoint, Outbox, SummaryInput, Transmit, Wake, SLOTS_PER_PATH, SLOT_PACER, SLOT_RECEIVER, SLOT_SENDER,
};
use crate::transport::flow_metrics::FlowMetrics;
use crate::transport::interfaces::PathInterfaces;
use crate::transport::part::TransportPart;
use crate::transport::segment::TCP_HEADER_BYTES;
use crate::transport::spec::{MptcpSpec, TransportSpec};
use mptlab_engine::{Handle, Time};

/// The pass in which MPTCP's path manager reacts to interface changes.
const PATH_MANAGER_PASS: usize = 0;

/// Kept inline in `AnyEndpoint` (and so in every `Flow`): only what each packet touches, 32
/// bytes, so the enum stays as small as single-path TCP's needs; the path manager's state is
/// apart (`PathManager`).
pub struct MptcpConn {
    pub snd: Box<MptcpSender>,
    pub rcv: Box<MptcpReceiver>,
    pm: Box<PathManager>,
    /// The sender ran: joins that became due and the timers of touched subflows are pending.
    sender_ran: bool,
    /// The receiver of this subflow ran: its delayed-ACK timer is pending.
    receiver_ran: Option<u8>,
    /// The path manager re-created this subflow: its join is pending.
    reopened: Option<u8>,
}

/// What only interface changes need (cold).
struct PathManager {
    /// The subflows' controller, to build a fresh one for a subflow the path manager closes.
    cc: CcConfig,
    params: CcParams,
    ifaces: PathInterfaces,
}

impl MptcpConn {
    /// The connection of `m`; `sched_seed` seeds a scheduler that draws.
    pub fn new(m: &MptcpSpec, sched_seed: u64) -> Self {
        let cfg = m.config;
        let params = CcParams { mss: cfg.mss, initial_cwnd_segments: cfg.initial_cwnd_segments };
        let ccs = m.paths.iter().map(|_| m.cc.build(params)).collect();
        let sub = SubflowParams {
            tcp: cfg,
            priorities: m.paths.iter().map(|p| p.priority).collect(),
            backups: m.paths.iter().map(|p| p.backup).collect(),
            models: m.path_models.clone(),
        };
        let sched = m.scheduler.build_seeded(sched_seed);
        let snd = MptcpSender::new(m.mptcp, sub, ccs, sched, m.scheduler.may_queue(), m.scheduler.picks_only_choice());
        let rcv = MptcpReceiver::new(m.paths.len(), cfg.sack, cfg.delayed_ack, cfg.mss, cfg.handshake, m.mptcp.recv_buffer);
        Self {
            snd: Box::new(snd),
            rcv: Box::new(rcv),
            pm: Box::new(PathManager { cc: m.cc.clone(), params, ifaces: PathInterfaces::new(&m.paths) }),
            sender_ran: false,
            receiver_ran: None,
            reopened: None,
        }
    }

    /// Joins due (a re-created subflow's, or every additional subflow's once the first is
    /// established), then the timers of the subflows the sender touched, then the receiver's.
    #[inline]
    fn push_wakes(&mut self, now: Time, out: &mut Outbox) {
        if let Some(path) = self.reopened.take() {
            out.wakes.push(Wake::OpenPath { path: path as u16, at: now + self.snd.join_delay() });
        }
        if std::mem::take(&mut self.sender_ran) {
            if self.snd.take_joins_due() {
                let at = now + self.snd.join_delay();
                for path in 1..self.snd.subs.len() {
                    out.wakes.push(Wake::OpenPath { path: path as u16, at });
                }
            }
            let mut touched = self.snd.take_touched();
            while touched != 0 {
                let path = touched.trailing_zeros() as usize;
                touched &= touched - 1;
                let base = SLOTS_PER_PATH * path;
                out.wakes.push(Wake::Timer { slot: base + SLOT_SENDER, deadline: self.snd.deadline(path) });
                out.wakes.push(Wake::Timer { slot: base + SLOT_PACER, deadline: self.snd.pacing_deadline(path) });
            }
            if let Some(deadline) = self.snd.take_sched_wake(now) {
                out.wakes.push(Wake::Timer { slot: conn_slot(self.snd.subs.len()), deadline });
            }
        }
        if let Some(path) = self.receiver_ran.take().map(usize::from) {
            out.wakes.push(Wake::Timer { slot: SLOTS_PER_PATH * path + SLOT_RECEIVER, deadline: self.rcv.deadline(path) });
        }
    }
}

impl Endpoint for MptcpConn {
    fn paths(&self) -> usize {
        self.rcv.subs.len()
    }

    fn start(&mut self, now: Time, app: AppStart, out: &mut Outbox) -> u64 {
        if app.bulk {
            self.snd.set_unlimited();
        }
        let accepted = self.snd.write(now, app.bytes);
        self.snd.start(now, &mut out.segs);
        self.sender_ran = true;
        accepted
    }

    #[inline]
    fn write(&mut self, now: Time, bytes: u64, out: &mut Outbox) -> u64 {
        let accepted = self.snd.write(now, bytes);
        self.snd.push(now, &mut out.segs);
        self.sender_ran = true;
        accepted
    }

    fn finish(&mut self) {
        self.snd.close_writes();
    }

    #[inline]
    fn on_packet(&mut self, now: Time, at: End, path: usize, p: &Packet, bodies: &Bodies, h: Handle, out: &mut Outbox) -> u64 {
        match at {
            End::Receiver => {
                self.receiver_ran = Some(path as u8);
                if p.epoch != self.rcv.subs[path].epoch {
                    return 0; // a packet of a closed subflow incarnation
                }
                self.rcv.on_segment(now, path, &p.tcp_header(bodies, h), out.headers_from(End::Receiver, path))
            }
            End::Sender => {
                self.snd.on_ack(now, path, p.epoch, &p.tcp_header(bodies, h), &mut out.segs);
                self.sender_ran = true;
                0
            }
        }
    }

    fn on_timeout(&mut self, now: Time, slot: usize, out: &mut Outbox) {
        if slot == conn_slot(self.snd.subs.len()) {
            self.snd.on_sched_wake(now, &mut out.segs);
            self.sender_ran = true;
            return;
        }
        let path = slot / SLOTS_PER_PATH;
        if slot % SLOTS_PER_PATH == SLOT_RECEIVER {
            self.rcv.on_timer(now, path, out.headers_from(End::Receiver, path));
            self.receiver_ran = Some(path as u8);
        } else {
            self.snd.on_timer(now, path, &mut out.segs);
            self.sender_ran = true;
        }
    }

    /// The MP_JOIN of subflow `path` (RFC 8684 §3.2) is due.
    fn on_open_path(&mut self, now: Time, path: usize, out: &mut Outbox) {
        self.snd.open_subflow(now, path, &mut out.segs);
        self.sender_ran = true;
    }

    /// The path manager (Linux's in-kernel PM reacting to an interface event): a subflow whose
    /// interface goes down is closed (its data is reinjected on the others, it restarts later
    /// with a fresh controller) and joined again `join_delay` after the interface comes back.
    fn on_interface(&mut self, now: Time, pass: usize, path: usize, link: u32, up: bool, out: &mut Outbox) -> bool {
        if pass != PATH_MANAGER_PASS || !self.pm.ifaces.touches(path, link) {
            return false;
        }
        if up {
            if self.snd.reopen_subflow(path) {
                self.reopened = Some(path as u8);
            }
            return true;
        }
        if self.snd.subs[path].state != SubState::Closed {
            let epoch = self.snd.close_subflow(now, path, self.pm.cc.build(self.pm.params), &mut out.segs);
            self.rcv.reset_subflow(path, epoch);
            self.receiver_ran = Some(path as u8);
        }
        self.sender_ran = true;
        true
    }

    /// Receiver ACKs first (an input produces either those or subflow segments, never both).
    // Inlined into the simulation's drain loop, so the transmit is built in place rather than
    // copied out of each call.
    #[inline(always)]
    fn poll_transmit(&mut self, now: Time, out: &mut Outbox, bodies: &mut Bodies, next: Handle) -> Option<Transmit> {
        let (path, from) = (out.path, out.from);
        if let Some(hdr) = out.next_header() {
            let epoch = self.rcv.subs[path as usize].epoch;
            let size = hdr.len + TCP_HEADER_BYTES + DSS_ACK_BYTES;
            let packet = Packet { epoch, size, sent_at: now, ..Packet::from_tcp(hdr, bodies, next) };
            return Some(Transmit { path, from, packet });
        }
        let Some(seg) = out.next_seg() else {
            self.push_wakes(now, out);
            return None;
        };
        let epoch = self.snd.subs[seg.sub as usize].epoch;
        let options = if seg.hdr.len > 0 { DSS_DATA_BYTES } else { DSS_ACK_BYTES };
        let size = seg.hdr.len + TCP_HEADER_BYTES + options;
        let packet = Packet { epoch, size, sent_at: now, ..Packet::from_tcp(&seg.hdr, bodies, next) };
        Some(Transmit { path: seg.sub, from: End::Sender, packet })
    }

    fn set_detailed(&mut self, detailed: bool) {
        self.snd.set_detailed(detailed);
        self.rcv.set_detailed(detailed);
    }

    /// One sample k: total window, τ_i(k) per subflow, T_i(k), T_over(k) (seed 001 eq. 2) and
    /// ζ(k) (eq. 8) as `hol.rs` reads them, and the first-DATA_ACK delay.
    fn sample(&mut self, now: Time, m: &mut FlowMetrics) {
        let snd = &mut self.snd;
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

    fn summary(&self, input: &SummaryInput) -> TransportPart {
        let TransportSpec::Mptcp(spec) = input.spec else { return TransportPart::default() };
        let traces = input.metrics.mp.as_deref().map(|mp| MptcpTraces {
            protocol_delay: &mp.protocol_delay,
            hol_degree: &mp.hol_degree,
            data_ack_delay: &mp.data_ack_delay,
        });
        super::summary::part(&self.snd, &self.rcv, &input.paths, traces.as_ref(), spec.scheduler.name(), input.end)
    }

    fn memory_footprint(&self) -> usize {
        self.snd.memory_footprint() + self.rcv.memory_footprint()
    }
}
