//! One tunnel path of either kind, by static dispatch (DESIGN: enums on per-packet paths): an
//! unreliable DCCP-like path (`dccp.rs`) or a reliable TCP path (`tcp.rs`). A tunnel's paths are
//! all of one kind (`TunnelSpec::kind`). What the multipath core, the scheduler and the
//! summaries read of a path is answered here for both.

use super::dccp::{DccpReceiver, DccpSender};
use super::tcp::TcpPath;
use crate::cc::{CongestionControl, SubflowCcView};
use crate::sched::PathView;
use crate::transport::multipath::{MultipathPath, PathPrefs};
use crate::transport::segment::TCP_HEADER_BYTES;
use mptlab_engine::Time;

/// Both ends of one DCCP-like path.
pub struct DccpPath {
    pub snd: DccpSender,
    pub rcv: DccpReceiver,
}

/// The DCCP variant is kept inline (its per-packet calls avoid an indirection) and the larger
/// TCP one is boxed; a tunnel has a handful of paths, so the size difference costs nothing.
#[allow(clippy::large_enum_variant)]
pub enum TunnelPath {
    Dccp(DccpPath),
    Tcp(Box<TcpPath>),
}

impl TunnelPath {
    /// The scheduler may place an inner packet whose record (TCP) is `record` bytes: the
    /// window has room (DCCP counts packets and ignores the size).
    #[inline]
    pub fn window_open(&self, record: u32) -> bool {
        match self {
            Self::Dccp(d) => d.snd.window_open(),
            Self::Tcp(t) => t.window_open(record),
        }
    }

    #[inline]
    pub fn view(&self, record: u32) -> PathView {
        match self {
            Self::Dccp(d) => d.snd.view(),
            Self::Tcp(t) => t.view(record),
        }
    }

    /// Inner packets the path holds at the ingress or in its stream (DCCP: waiting for the
    /// pacer; TCP: written and not yet delivered at the egress). Inner packets inside outer
    /// DCCP packets are not counted.
    pub fn inner_held(&self) -> usize {
        match self {
            Self::Dccp(d) => d.snd.queued(),
            Self::Tcp(t) => t.records_held(),
        }
    }

    /// Outer data packets (segments, retransmissions included) sent.
    pub fn packets_sent(&self) -> u64 {
        match self {
            Self::Dccp(d) => d.snd.counters().packets_sent,
            Self::Tcp(t) => t.sender().stats.segments_sent,
        }
    }

    /// Wire bytes of the outer data packets sent (TCP: payload plus 40 B per segment).
    pub fn wire_bytes_sent(&self) -> u64 {
        match self {
            Self::Dccp(d) => d.snd.counters().wire_bytes_sent,
            Self::Tcp(t) => {
                let s = &t.sender().stats;
                s.bytes_sent + TCP_HEADER_BYTES as u64 * s.segments_sent
            }
        }
    }

    /// DCCP: packets acknowledged; TCP: new-data segments cumulatively acknowledged.
    pub fn packets_acked(&self) -> u64 {
        match self {
            Self::Dccp(d) => d.snd.counters().packets_acked,
            Self::Tcp(t) => t.segments_acked(),
        }
    }

    /// DCCP: packets given up as lost; TCP: segments marked lost (later retransmitted).
    pub fn packets_lost(&self) -> u64 {
        match self {
            Self::Dccp(d) => d.snd.counters().packets_lost,
            Self::Tcp(t) => t.sender().lost_totals().0,
        }
    }

    pub fn timeouts(&self) -> u64 {
        match self {
            Self::Dccp(d) => d.snd.counters().timeouts,
            Self::Tcp(t) => t.sender().stats.rto_count,
        }
    }

    pub fn congestion_events(&self) -> u64 {
        match self {
            Self::Dccp(d) => d.snd.congestion_events(),
            Self::Tcp(t) => t.congestion_events(),
        }
    }

    pub fn cwnd(&self) -> u64 {
        match self {
            Self::Dccp(d) => d.snd.cwnd(),
            Self::Tcp(t) => t.sender().cwnd(),
        }
    }

    /// The unit of `cwnd` in packets: DCCP's packet charge, TCP's MSS.
    pub fn window_unit(&self) -> u32 {
        match self {
            Self::Dccp(d) => d.snd.mss(),
            Self::Tcp(t) => t.mss(),
        }
    }

    pub fn srtt(&self) -> Option<Time> {
        match self {
            Self::Dccp(d) => d.snd.srtt(),
            Self::Tcp(t) => t.sender().rtt().srtt(),
        }
    }

    pub fn min_rtt(&self) -> Option<Time> {
        match self {
            Self::Dccp(d) => d.snd.min_rtt(),
            Self::Tcp(t) => {
                let rtt = t.sender().rtt();
                rtt.srtt().map(|_| rtt.min_rtt())
            }
        }
    }

    pub fn state_name(&self) -> &'static str {
        match self {
            Self::Dccp(d) => d.snd.state_name(),
            Self::Tcp(t) => t.sender().cc().state_name(),
        }
    }

    pub fn memory_footprint(&self) -> usize {
        match self {
            Self::Dccp(d) => d.snd.memory_footprint() + d.rcv.memory_footprint(),
            Self::Tcp(t) => t.memory_footprint(),
        }
    }
}

impl MultipathPath for TunnelPath {
    #[inline]
    fn usable(&self) -> bool {
        match self {
            Self::Dccp(d) => d.snd.usable(),
            Self::Tcp(t) => t.usable(),
        }
    }
    #[inline]
    fn prefs(&self) -> PathPrefs {
        match self {
            Self::Dccp(d) => d.snd.prefs(),
            Self::Tcp(t) => t.prefs(),
        }
    }
    fn coupled_view(&self) -> Option<SubflowCcView> {
        match self {
            Self::Dccp(d) => d.snd.coupled_view(),
            Self::Tcp(t) => t.coupled_view(),
        }
    }
    fn couple(&mut self, views: &[SubflowCcView], me: usize) {
        match self {
            Self::Dccp(d) => d.snd.couple(views, me),
            Self::Tcp(t) => t.couple(views, me),
        }
    }
}
