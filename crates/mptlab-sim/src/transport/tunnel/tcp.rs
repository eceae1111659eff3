//! One reliable tunnel path: an ordinary TCP connection (not MPTCP) carrying the tunnel's inner
//! packets as records in its byte stream, as the user-space framework of seed 003 does with
//! "multiple single-path sockets (DCCP or TCP)" (seed 003 §2.2; study notes §1.3, §2.3, A10).
//!
//! Sources and interpretations:
//! - The connection is the project's TCP (`transport::tcp`: `TcpSender`, `TcpReceiver`; RFC 9293,
//!   5681, 6675, 6298, 8985, 2018 as listed there), with any registry controller (the paper runs
//!   NewReno, BBR and BBRv2 over TCP tunnels). Retransmissions are TCP's own.
//! - Records (study notes A10 (b): "a byte stream with record boundaries mapped back, as MPTCP's
//!   DSS mapping does"; the paper does not say how boundaries are kept). Each inner packet of
//!   `s` wire bytes becomes a record of `s + TUNNEL_HEADER` bytes: the tunnel header of seed 003
//!   §2.2 holds a global sequence number (8 B), a path sequence number (4 B) and a timestamp
//!   (4 B), the same 16 B as the DCCP paths' header (`config::DEFAULT_OVERHEAD`). The records
//!   written into one path are kept, in order, as (end offset in the stream, inner handle,
//!   global number, path number, placement time). The egress owns the receiving end: whenever
//!   the receiver's in-order edge (RCV.NXT) passes a record's end, the record is whole and in
//!   order, and its inner packet goes to the reordering stage. Both ends live in one value (as a
//!   flow's two ends do), so taking the handle from the sender's list at that moment is
//!   bookkeeping: the bytes that carried it have arrived. Outer segments therefore carry no
//!   inner handle.
//! - Segmentation: Nagle off (the project's TCP is TCP_NODELAY). Records placed on a path in one
//!   scheduling round are written first and pushed once after it, so back-to-back records share
//!   full-sized segments and a record may span two segments (MSS smaller than a record, or a
//!   record written behind a partial one).
//! - Availability for the scheduler (seed 003 §2.3 "CWND has sufficient room", MP-DCCP
//!   `sched_cpf.c` "a free cwnd for both the data in send queue and the new skb"; study notes
//!   A7 (a)): bytes in flight (RFC 6675 pipe) + bytes written and not yet sent + the record ≤
//!   cwnd, the pacer not considered. A record is also never written into a send buffer that
//!   cannot take it whole. So the TCP send queue holds no more than the window admits (study
//!   notes A6: no hidden per-socket queue).
//! - The connection opens when the tunnel first sends (its first inner packet): at once without
//!   a handshake (the default: a tunnel's connections are up before traffic), or with a SYN
//!   exchange when `tcp.handshake` is on; a path is available only once established.
//!
//! Left out: TCP's own header options' bytes (as everywhere in the project, `wire::tcp`), a
//! slow reader at the egress (records are taken as soon as they are whole, so the receive
//! window stays open), and any framing bytes beyond the 16 B header (taken to delimit records).

use super::buffer::Held;
use crate::cc::{CcConfig, CcParams, CongestionControl, SubflowCcView};
use crate::sched::PathView;
use crate::transport::multipath::{MultipathPath, PathPrefs};
use crate::transport::segment::TcpHeader;
use crate::transport::tcp::{TcpConfig, TcpReceiver, TcpSender};
use mptlab_engine::{Handle, Time};
use std::collections::VecDeque;

/// Bytes of the tunnel's own header in each record: global sequence number (8 B), path sequence
/// number (4 B), timestamp (4 B) (seed 003 §2.2 names the fields, not their sizes).
pub const TUNNEL_HEADER: u32 = 16;

/// One inner packet written into a path's byte stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    /// Stream offset just past the record's last byte.
    pub end: u64,
    pub handle: Handle,
    /// The inner packet's wire size (the record is this plus `TUNNEL_HEADER`).
    pub size: u32,
    pub global: u64,
    pub path_seq: u64,
    /// The header's timestamp: when the scheduler placed the packet on the path.
    pub placed_at: Time,
}

/// Counters of one TCP path (records are inner packets).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct TcpPathCounters {
    pub records_written: u64,
    pub records_delivered: u64,
}

/// Both ends of one TCP tunnel path.
pub struct TcpPath {
    snd: TcpSender,
    rcv: TcpReceiver,
    prefs: PathPrefs,
    mss: u32,
    started: bool,
    /// Records written and not yet delivered whole and in order at the egress.
    records: VecDeque<Record>,
    next_path_seq: u64,
    /// Segments the sender emitted and the receiver's ACKs, not yet put on the path; `*_next`
    /// is the first not yet taken.
    data_out: Vec<TcpHeader>,
    data_next: usize,
    ack_out: Vec<TcpHeader>,
    ack_next: usize,
    counters: TcpPathCounters,
}

impl TcpPath {
    pub fn new(cfg: TcpConfig, cc: &CcConfig, prefs: PathPrefs) -> Self {
        let params = CcParams { mss: cfg.mss, initial_cwnd_segments: cfg.initial_cwnd_segments };
        let rcv = TcpReceiver::new(cfg.sack, cfg.delayed_ack, cfg.mss, cfg.recv_buffer, !cfg.handshake);
        Self {
            snd: TcpSender::new(cfg, cc.build(params)),
            rcv,
            prefs,
            mss: cfg.mss,
            started: false,
            records: VecDeque::new(),
            next_path_seq: 0,
            data_out: Vec::new(),
            data_next: 0,
            ack_out: Vec::new(),
            ack_next: 0,
            counters: TcpPathCounters::default(),
        }
    }

    /// Open the connection at `now` if it is not open yet (the tunnel's first send).
    pub fn start(&mut self, now: Time) {
        if !self.started {
            self.started = true;
            self.snd.start(now, &mut self.data_out);
        }
    }

    /// The scheduler may place a record of `record` bytes here: established, the window has
    /// room for what is in flight, what is written and unsent and the record (no pacing test),
    /// and the send buffer takes the record whole.
    #[inline]
    pub fn window_open(&self, record: u32) -> bool {
        self.snd.is_established()
            && self.snd.in_flight() + self.snd.queued() + record as u64 <= self.snd.cwnd()
            && self.snd.buffer_free() >= record as u64
    }

    /// Write inner packet `p` (placed at `p.placed_at`, global number `p.global`) as a record;
    /// `push` sends it (with whatever else is written).
    pub fn assign(&mut self, p: Held) {
        let len = p.size as u64 + TUNNEL_HEADER as u64;
        let took = self.snd.write(len);
        assert_eq!(took, len, "a record is written only when the send buffer takes it whole");
        let path_seq = self.next_path_seq;
        self.next_path_seq += 1;
        self.records.push_back(Record {
            end: self.snd.write_end(),
            handle: p.handle,
            size: p.size,
            global: p.global,
            path_seq,
            placed_at: p.placed_at,
        });
        self.counters.records_written += 1;
    }

    /// Let the sender send what its window and pacer allow at `now`.
    pub fn push(&mut self, now: Time) {
        self.snd.try_send(now, &mut self.data_out);
    }

    /// The next segment the sender emitted, if any.
    pub fn pop_data(&mut self) -> Option<TcpHeader> {
        pop(&mut self.data_out, &mut self.data_next)
    }

    /// The next acknowledgment the receiver emitted, if any.
    pub fn pop_ack(&mut self) -> Option<TcpHeader> {
        pop(&mut self.ack_out, &mut self.ack_next)
    }

    /// An acknowledgment reached the sender at `now`.
    pub fn on_ack(&mut self, now: Time, h: &TcpHeader) {
        self.snd.on_ack(now, h, &mut self.data_out);
    }

    /// A segment reached the receiver at `now`; every record it completed in order is handed to
    /// `release`, in stream order.
    pub fn on_data(&mut self, now: Time, h: &TcpHeader, mut release: impl FnMut(Record)) {
        self.rcv.on_segment(now, h, &mut self.ack_out);
        let edge = self.rcv.rcv_nxt();
        while self.records.front().is_some_and(|r| r.end <= edge) {
            let r = self.records.pop_front().expect("checked");
            self.counters.records_delivered += 1;
            release(r);
        }
    }

    /// The sender's timer (RTO, loss probe, persist) or its pacer fired at `now`.
    pub fn on_sender_timer(&mut self, now: Time) {
        self.snd.on_timer(now, &mut self.data_out);
    }

    /// The receiver's delayed-ACK timer fired at `now`.
    pub fn on_receiver_timer(&mut self, now: Time) {
        self.rcv.on_timer(now, &mut self.ack_out);
    }

    pub fn sender_deadline(&self) -> Option<Time> {
        self.snd.deadline()
    }

    pub fn receiver_deadline(&self) -> Option<Time> {
        self.rcv.deadline()
    }

    pub fn pacer_deadline(&self) -> Option<Time> {
        self.snd.pacing_deadline()
    }

    /// Inner packets written into this path and not yet delivered at the egress.
    pub fn records_held(&self) -> usize {
        self.records.len()
    }

    /// The records held, oldest first.
    pub fn records(&self) -> impl Iterator<Item = &Record> {
        self.records.iter()
    }

    pub fn sender(&self) -> &TcpSender {
        &self.snd
    }

    pub fn receiver(&self) -> &TcpReceiver {
        &self.rcv
    }

    pub fn counters(&self) -> &TcpPathCounters {
        &self.counters
    }

    pub fn mss(&self) -> u32 {
        self.mss
    }

    /// Segments of new data cumulatively acknowledged: new-data segments sent less those still
    /// on the scoreboard.
    pub fn segments_acked(&self) -> u64 {
        let s = &self.snd.stats;
        (s.segments_sent - s.retransmissions).saturating_sub(self.snd.scoreboard().len() as u64)
    }

    /// Window reductions: fast recoveries, RTOs and losses repaired by a loss probe.
    pub fn congestion_events(&self) -> u64 {
        let s = &self.snd.stats;
        s.fast_recoveries + s.rto_count + s.tlp_recoveries
    }

    /// What the scheduler sees of this path for a record of `record` bytes (availability: the
    /// window only).
    pub fn view(&self, record: u32) -> PathView {
        let snd = &self.snd;
        let rtt = snd.rtt();
        let (packets_lost, bytes_lost) = snd.lost_totals();
        PathView {
            has_space: self.window_open(record),
            srtt: rtt.srtt().unwrap_or(0),
            rttvar: rtt.rttvar(),
            min_rtt: if rtt.srtt().is_some() { rtt.min_rtt() } else { 0 },
            cwnd: snd.cwnd(),
            in_flight: snd.in_flight(),
            queued: snd.queued(),
            pacing_rate: snd.rate_estimate(),
            mss: self.mss,
            segments_sent: snd.stats.segments_sent,
            retransmissions: snd.stats.retransmissions,
            bytes_acked: snd.snd_una(),
            bytes_sent: snd.stats.bytes_sent,
            packets_lost,
            bytes_lost,
            ..PathView::default()
        }
    }

    /// Bytes its growable containers hold.
    pub fn memory_footprint(&self) -> usize {
        use crate::transport::footprint::*;
        self.snd.memory_footprint() + self.rcv.memory_footprint() + deque(&self.records) + slice(&self.data_out) + slice(&self.ack_out)
    }
}

fn pop(v: &mut Vec<TcpHeader>, next: &mut usize) -> Option<TcpHeader> {
    let h = v.get(*next).copied();
    if h.is_some() {
        *next += 1;
    } else if *next > 0 {
        v.clear();
        *next = 0;
    }
    h
}

impl MultipathPath for TcpPath {
    fn usable(&self) -> bool {
        true
    }
    fn prefs(&self) -> PathPrefs {
        self.prefs
    }
    fn coupled_view(&self) -> Option<SubflowCcView> {
        self.snd.cc().coupled_view()
    }
    fn couple(&mut self, views: &[SubflowCcView], me: usize) {
        self.snd.cc_mut().couple(views, me);
    }
}
