//! `AnyEndpoint`: the one enum over every transport's endpoint, so the simulation's packet path
//! is statically dispatched (one `match` per call, no `dyn`), and the one place a flow's
//! transport is built from its spec. Adding a transport: its connection type implementing
//! `Endpoint`, one variant here, one arm in `build` and in `dispatch!`.

use super::bodies::Bodies;
use super::endpoint::{AppStart, End, Endpoint, Outbox, SummaryInput, Transmit};
use super::flow_metrics::FlowMetrics;
use super::mptcp::MptcpConn;
use super::quic::QuicPair;
use super::segment::UDP_HEADER_BYTES;
use super::spec::TransportSpec;
use super::tcp::TcpConn;
use super::udp::UdpConn;
use crate::cc::CcParams;
use crate::net::{Packet, Proto};
use crate::transport::part::TransportPart;
use mptlab_engine::{Handle, Time};

pub enum AnyEndpoint {
    Tcp(TcpConn),
    Udp(UdpConn),
    Mptcp(MptcpConn),
    /// QUIC or multipath QUIC: the client sends the application's data, the server receives.
    Quic(QuicPair),
}

/// A flow's endpoint as built from its spec, with what the simulation sets up around it.
pub struct Built {
    pub endpoint: AnyEndpoint,
    /// The protocol its packets carry on the wire (per-protocol link statistics).
    pub proto: Proto,
    /// Wire bytes of one application write, for applications paced by wire rate (datagrams).
    pub app_unit: Option<u64>,
    /// Paths to keep per-path metrics for (multipath flows only).
    pub multipath: Option<usize>,
}

/// Wire bytes of one application write sent as datagrams of at most `payload` bytes.
fn udp_wire_bytes(write: u64, payload: u32) -> u64 {
    write + write.div_ceil(payload as u64) * UDP_HEADER_BYTES as u64
}

impl AnyEndpoint {
    /// The endpoint of a flow with transport `t` whose application writes `unit_write` bytes
    /// at a time (CBR, Poisson; None for bulk and file); `sched_seed` seeds a multipath
    /// scheduler that draws.
    pub fn build(t: &TransportSpec, unit_write: Option<u64>, sched_seed: u64) -> Built {
        match t {
            TransportSpec::Tcp(t) => {
                let cfg = t.config;
                let cc = t.cc.build(CcParams { mss: cfg.mss, initial_cwnd_segments: cfg.initial_cwnd_segments });
                Built { endpoint: Self::Tcp(TcpConn::new(cfg, cc)), proto: Proto::Tcp, app_unit: None, multipath: None }
            }
            TransportSpec::Mptcp(m) => {
                let endpoint = Self::Mptcp(MptcpConn::new(m, sched_seed));
                Built { endpoint, proto: Proto::Tcp, app_unit: None, multipath: Some(m.paths.len()) }
            }
            TransportSpec::Quic(q) => {
                let multipath = q.quic.multipath.then_some(q.paths.len());
                Built { endpoint: Self::Quic(QuicPair::new(q, sched_seed)), proto: Proto::Udp, app_unit: None, multipath }
            }
            TransportSpec::Udp(u) => {
                let app_unit = unit_write.map(|w| udp_wire_bytes(w, u.payload));
                Built { endpoint: Self::Udp(UdpConn::new(u.payload)), proto: Proto::Udp, app_unit, multipath: None }
            }
        }
    }
}

/// Forward a call to the variant's connection.
macro_rules! dispatch {
    ($self:ident, $e:ident => $call:expr) => {
        match $self {
            AnyEndpoint::Tcp($e) => $call,
            AnyEndpoint::Udp($e) => $call,
            AnyEndpoint::Mptcp($e) => $call,
            AnyEndpoint::Quic($e) => $call,
        }
    };
}

impl Endpoint for AnyEndpoint {
    fn paths(&self) -> usize {
        dispatch!(self, e => e.paths())
    }

    fn start(&mut self, now: Time, app: AppStart, out: &mut Outbox) -> u64 {
        dispatch!(self, e => e.start(now, app, out))
    }

    #[inline]
    fn write(&mut self, now: Time, bytes: u64, out: &mut Outbox) -> u64 {
        dispatch!(self, e => e.write(now, bytes, out))
    }

    fn finish(&mut self) {
        dispatch!(self, e => e.finish())
    }

    #[inline]
    fn on_packet(&mut self, now: Time, at: End, path: usize, p: &Packet, bodies: &Bodies, h: Handle, out: &mut Outbox) -> u64 {
        dispatch!(self, e => e.on_packet(now, at, path, p, bodies, h, out))
    }

    #[inline]
    fn on_timeout(&mut self, now: Time, slot: usize, out: &mut Outbox) {
        dispatch!(self, e => e.on_timeout(now, slot, out))
    }

    fn on_open_path(&mut self, now: Time, path: usize, out: &mut Outbox) {
        dispatch!(self, e => e.on_open_path(now, path, out))
    }

    fn on_interface(&mut self, now: Time, pass: usize, path: usize, link: u32, up: bool, out: &mut Outbox) -> bool {
        dispatch!(self, e => e.on_interface(now, pass, path, link, up, out))
    }

    // Inlined into the simulation's drain loop, so the transmit is built in place rather than
    // copied out of each call.
    #[inline(always)]
    fn poll_transmit(&mut self, now: Time, out: &mut Outbox, bodies: &mut Bodies, next: Handle) -> Option<Transmit> {
        dispatch!(self, e => e.poll_transmit(now, out, bodies, next))
    }

    fn sample(&mut self, now: Time, m: &mut FlowMetrics) {
        dispatch!(self, e => e.sample(now, m))
    }

    fn set_detailed(&mut self, detailed: bool) {
        dispatch!(self, e => e.set_detailed(detailed))
    }

    fn summary(&self, input: &SummaryInput) -> TransportPart {
        dispatch!(self, e => e.summary(input))
    }

    fn memory_footprint(&self) -> usize {
        dispatch!(self, e => e.memory_footprint())
    }
}
