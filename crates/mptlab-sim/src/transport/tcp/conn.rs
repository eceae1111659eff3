//! A TCP flow behind the endpoint interface (`transport/endpoint.rs`): the sender at one host,
//! the receiver at the other, one path. Sources of the behaviour: `mod.rs` (RFC 9293, 5681,
//! 6675, 6298, 8985, 2018).

use super::{TcpConfig, TcpReceiver, TcpSender};
use crate::cc::AnyCc;
use crate::net::Packet;
use crate::transport::bodies::Bodies;
use crate::transport::endpoint::{
    AppStart, End, Endpoint, Outbox, SummaryInput, Transmit, Wake, SLOTS_PER_PATH, SLOT_PACER, SLOT_RECEIVER, SLOT_SENDER,
};
use crate::transport::flow_metrics::FlowMetrics;
use crate::transport::part::TransportPart;
use crate::transport::segment::TCP_HEADER_BYTES;
use mptlab_engine::{Handle, Time};

pub struct TcpConn {
    pub snd: Box<TcpSender>,
    pub rcv: Box<TcpReceiver>,
    /// The end whose timers the last input may have moved.
    sync: Option<End>,
}

impl TcpConn {
    pub fn new(cfg: TcpConfig, cc: AnyCc) -> Self {
        let rcv = TcpReceiver::new(cfg.sack, cfg.delayed_ack, cfg.mss, cfg.recv_buffer, !cfg.handshake);
        Self { snd: Box::new(TcpSender::new(cfg, cc)), rcv: Box::new(rcv), sync: None }
    }

    /// The timers of the end the last input ran (after its last transmit). Inlined into the
    /// simulation's drain loop with `poll_transmit`, its only caller.
    #[inline(always)]
    fn push_wakes(&mut self, out: &mut Outbox) {
        match self.sync.take() {
            Some(End::Sender) => {
                out.wakes.push(Wake::Timer { slot: SLOT_SENDER, deadline: self.snd.deadline() });
                out.wakes.push(Wake::Timer { slot: SLOT_PACER, deadline: self.snd.pacing_deadline() });
            }
            Some(End::Receiver) => out.wakes.push(Wake::Timer { slot: SLOT_RECEIVER, deadline: self.rcv.deadline() }),
            None => {}
        }
    }
}

impl Endpoint for TcpConn {
    fn paths(&self) -> usize {
        1
    }

    fn start(&mut self, now: Time, app: AppStart, out: &mut Outbox) -> u64 {
        if app.bulk {
            self.snd.set_unlimited();
        }
        let accepted = self.snd.write(app.bytes);
        self.snd.start(now, out.headers_from(End::Sender, 0));
        self.sync = Some(End::Sender);
        accepted
    }

    #[inline]
    fn write(&mut self, now: Time, bytes: u64, out: &mut Outbox) -> u64 {
        let accepted = self.snd.write(bytes);
        self.snd.try_send(now, out.headers_from(End::Sender, 0));
        self.sync = Some(End::Sender);
        accepted
    }

    fn finish(&mut self) {
        self.snd.close_writes();
    }

    #[inline]
    fn on_packet(&mut self, now: Time, at: End, _path: usize, p: &Packet, bodies: &Bodies, h: Handle, out: &mut Outbox) -> u64 {
        self.sync = Some(at);
        let hdr = p.tcp_header(bodies, h);
        match at {
            End::Receiver => self.rcv.on_segment(now, &hdr, out.headers_from(End::Receiver, 0)),
            End::Sender => {
                self.snd.on_ack(now, &hdr, out.headers_from(End::Sender, 0));
                0
            }
        }
    }

    fn on_timeout(&mut self, now: Time, slot: usize, out: &mut Outbox) {
        if slot % SLOTS_PER_PATH == SLOT_RECEIVER {
            self.rcv.on_timer(now, out.headers_from(End::Receiver, 0));
            self.sync = Some(End::Receiver);
        } else {
            self.snd.on_timer(now, out.headers_from(End::Sender, 0));
            self.sync = Some(End::Sender);
        }
    }

    fn on_open_path(&mut self, _: Time, _: usize, _: &mut Outbox) {}

    fn on_interface(&mut self, _: Time, _: usize, _: usize, _: u32, _: bool, _: &mut Outbox) -> bool {
        false
    }

    // Inlined into the simulation's drain loop, so the transmit is built in place rather than
    // copied out of each call.
    #[inline(always)]
    fn poll_transmit(&mut self, now: Time, out: &mut Outbox, bodies: &mut Bodies, next: Handle) -> Option<Transmit> {
        let Some(hdr) = out.next_header() else {
            self.push_wakes(out);
            return None;
        };
        let size = hdr.len + TCP_HEADER_BYTES;
        let packet = Packet { size, sent_at: now, ..Packet::from_tcp(hdr, bodies, next) };
        Some(Transmit { path: out.path, from: out.from, packet })
    }

    fn sample(&mut self, now: Time, m: &mut FlowMetrics) {
        m.cwnd.record(now, self.snd.cwnd() as f64);
        if let Some(s) = self.snd.rtt().srtt() {
            m.srtt.record(now, s as f64 / 1e6);
        }
    }

    fn summary(&self, input: &SummaryInput) -> TransportPart {
        super::summary::part(&self.snd, &self.rcv, input.metrics.srtt.points().1)
    }

    fn memory_footprint(&self) -> usize {
        self.snd.memory_footprint() + self.rcv.memory_footprint()
    }
}
