//! A QUIC or multipath QUIC flow behind the endpoint interface (`transport/endpoint.rs`): the
//! client (data sender) and the server (receiver) as two `QuicConn`s, each polled for packets
//! after every input until it is idle, one timer per endpoint, the path manager of multipath
//! flows (draft-ietf-quic-multipath-19 §3: paths abandoned and re-opened), and per-path samples.
//! A packet's frames travel in `Bodies`; on the wire it is a UDP datagram whose `len`
//! holds the STREAM bytes it carries, so ACK-only packets count as non-data.

use super::{QuicConn, Role, Transmit as Poll};
use crate::net::{Packet, Proto};
use crate::transport::bodies::Bodies;
use crate::transport::endpoint::{
    AppStart, End, Endpoint, Outbox, SummaryInput, Transmit, Wake, SLOTS_PER_PATH, SLOT_RECEIVER, SLOT_SENDER,
};
use crate::transport::flow_metrics::FlowMetrics;
use crate::transport::interfaces::PathInterfaces;
use crate::transport::multipath::PathPrefs;
use crate::transport::part::TransportPart;
use crate::transport::spec::{QuicSpec, TransportSpec};
use mptlab_engine::{Handle, Time};

/// The pass in which multipath QUIC's path manager reacts to interface changes (after MPTCP's).
const PATH_MANAGER_PASS: usize = 1;

/// Kept inline in `AnyEndpoint` (and so in every `Flow`): 32 bytes, the interface map apart.
pub struct QuicPair {
    pub cli: Box<QuicConn>,
    pub srv: Box<QuicConn>,
    /// Read only on interface changes.
    ifaces: Box<PathInterfaces>,
    multipath: bool,
    paths: u8,
    /// The endpoint to poll after the last input.
    polling: Option<End>,
    /// A file's last bytes wait for room in the send buffer: the FIN goes with them.
    finish_when_written: bool,
}

impl QuicPair {
    /// The client and server of `q`; `sched_seed` seeds the client's scheduler.
    pub fn new(q: &QuicSpec, sched_seed: u64) -> Self {
        let n = q.paths.len();
        let mut cli = QuicConn::new(Role::Client, q.quic.clone(), &q.cc, &q.scheduler, n, sched_seed);
        let mut srv = QuicConn::new(Role::Server, q.quic.clone(), &q.cc, &q.scheduler, n, sched_seed ^ 1);
        let prefs: Vec<PathPrefs> = q.paths.iter().map(|p| PathPrefs { priority: p.priority, backup: p.backup }).collect();
        cli.set_path_prefs(&prefs);
        srv.set_path_prefs(&prefs);
        Self {
            cli: Box::new(cli),
            srv: Box::new(srv),
            multipath: q.quic.multipath,
            paths: n as u8,
            ifaces: Box::new(PathInterfaces::new(&q.paths)),
            polling: None,
            finish_when_written: false,
        }
    }

    /// A file's FIN once its last byte is in the send buffer (`wanted` bytes asked, `accepted` taken).
    #[inline]
    fn finish_if_written(&mut self, accepted: u64, wanted: u64) {
        if self.finish_when_written && accepted == wanted {
            self.finish_when_written = false;
            self.cli.finish();
        }
    }

    #[inline]
    fn conn(&mut self, end: End) -> &mut QuicConn {
        match end {
            End::Sender => &mut self.cli,
            End::Receiver => &mut self.srv,
        }
    }
}

impl Endpoint for QuicPair {
    fn paths(&self) -> usize {
        self.paths as usize
    }

    fn start(&mut self, now: Time, app: AppStart, _: &mut Outbox) -> u64 {
        self.cli.start(now);
        let accepted = if app.bulk {
            self.cli.set_unlimited();
            app.bytes
        } else {
            self.cli.write(app.bytes)
        };
        if app.file {
            self.finish_when_written = true;
            self.finish_if_written(accepted, app.bytes);
        }
        self.polling = Some(End::Sender);
        accepted
    }

    /// Up to the send buffer's room (`QuicConfig::send_buffer`); the writer blocks on the rest
    /// and the simulation writes it again when a packet reaches the client.
    #[inline]
    fn write(&mut self, _: Time, bytes: u64, _: &mut Outbox) -> u64 {
        let accepted = self.cli.write(bytes);
        if accepted > 0 {
            self.polling = Some(End::Sender);
        }
        self.finish_if_written(accepted, bytes);
        accepted
    }

    fn finish(&mut self) {
        self.finish_when_written = false;
        self.cli.finish();
    }

    #[inline]
    fn on_packet(&mut self, now: Time, at: End, path: usize, _: &Packet, bodies: &Bodies, h: Handle, _: &mut Outbox) -> u64 {
        self.polling = Some(at);
        self.conn(at).on_packet(now, path, bodies.get(h))
    }

    fn on_timeout(&mut self, now: Time, slot: usize, _: &mut Outbox) {
        let end = if slot % SLOTS_PER_PATH == SLOT_RECEIVER { End::Receiver } else { End::Sender };
        self.conn(end).on_timeout(now);
        self.polling = Some(end);
    }

    fn on_open_path(&mut self, _: Time, _: usize, _: &mut Outbox) {}

    /// A path whose interface goes down is abandoned, and a new path is opened on it when it
    /// comes back. The client is polled once, after the last path the change touches.
    fn on_interface(&mut self, now: Time, pass: usize, path: usize, link: u32, up: bool, _: &mut Outbox) -> bool {
        if pass != PATH_MANAGER_PASS || !self.multipath || !self.ifaces.touches(path, link) {
            return false;
        }
        if up {
            self.cli.path_up(now, path);
        } else {
            self.cli.path_down(path);
        }
        if self.ifaces.last_touching(link) == Some(path) {
            self.polling = Some(End::Sender);
        }
        true
    }

    // Inlined into the simulation's drain loop, so the 128-byte transmit is built in place
    // rather than copied out of each call.
    #[inline(always)]
    fn poll_transmit(&mut self, now: Time, out: &mut Outbox, bodies: &mut Bodies, next: Handle) -> Option<Transmit> {
        let end = self.polling?;
        let buf = bodies.entry(next);
        match self.conn(end).poll(now, buf) {
            Poll::Packet(slot) => {
                let stream_bytes = buf.frames.stream_bytes() as u32;
                let packet = Packet { proto: Proto::Udp, size: buf.wire_size(), sent_at: now, len: stream_bytes, ..Default::default() };
                Some(Transmit { path: slot as u16, from: end, packet })
            }
            // The poll that finds nothing returns the endpoint's deadline: it goes straight to
            // the wakes (applied after the transmits), not through a field read back later.
            Poll::Idle(deadline) => {
                self.polling = None;
                let slot = if end == End::Sender { SLOT_SENDER } else { SLOT_RECEIVER };
                out.wakes.push(Wake::Timer { slot, deadline });
                None
            }
        }
    }

    /// Total window and SRTT per usable path (the first one as the flow's SRTT).
    fn sample(&mut self, now: Time, m: &mut FlowMetrics) {
        let mut cwnd = 0;
        let mut srtt0 = None;
        for (i, p) in self.cli.paths.iter().enumerate() {
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

    fn summary(&self, input: &SummaryInput) -> TransportPart {
        let TransportSpec::Quic(spec) = input.spec else { return TransportPart::default() };
        super::summary::part(&self.cli, &self.srv, &input.paths, &spec.quic, spec.scheduler.name(), input.start)
    }

    fn memory_footprint(&self) -> usize {
        self.cli.memory_footprint() + self.srv.memory_footprint()
    }
}
