//! The receiving side of an MPTCP connection: one TCP receiver per subflow, then data-level
//! reassembly into the connection's byte stream (RFC 8684 §3.3).
//!
//! - Each subflow delivers its own bytes in subflow order; the DSS mapping each segment carried
//!   places them in the data sequence space. Segments that arrive out of order on a subflow
//!   wait there (with their mapping) until the subflow's hole fills.
//! - Data-level reassembly: chunks above DATA_ACK wait in a queue ordered by data sequence;
//!   in-order data goes to the application at once (it reads immediately).
//! - Window: the receive buffer holds [DATA_ACK, DATA_ACK + buffer); every ACK on every subflow
//!   carries DATA_ACK and this window (RFC 8684 §3.3.4: one connection-level window, relative to
//!   DATA_ACK). Out-of-order data inside it does not shrink the right edge, but the edge cannot
//!   move past a hole: that is how a slow path stalls a fast one.
//! - When in-order delivery frees enough of the buffer that the free space is at least twice
//!   what the last ACK reported, the subflow's pending delayed ACK goes out at once so the
//!   sender learns of the opened window (Linux `mptcp_cleanup_rbuf`: space ≥ 2·old_space).
//!   Free space = buffer − bytes held in reassembly (the application reads at once).
//! - Head-of-line wait (measured directly): for every chunk, the time from its arrival at the
//!   receiving host to its delivery to the application, including waits in a subflow's and in
//!   the data-level reassembly queue.

use super::config::INLINE_SUBFLOWS;
use crate::metrics::LogHistogram;
use crate::transport::segment::TcpHeader;
use crate::transport::tcp::{DelayedAck, TcpReceiver};
use mptlab_engine::Time;
use smallvec::SmallVec;
use std::collections::{BTreeMap, VecDeque};

/// Subflow receive buffers never limit: flow control is connection-level.
const SUBFLOW_BUFFER: u64 = u64::MAX / 4;

#[derive(Clone, Copy, Debug)]
struct Chunk {
    dsn: u64,
    len: u32,
    arrived: Time,
}

#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct MptcpReceiverStats {
    /// Chunks that reached data-level reassembly (duplicates included).
    pub chunks: u64,
    /// Chunks already delivered or already queued (reinjections, redundant copies).
    pub duplicate_chunks: u64,
    /// Chunks that arrived above DATA_ACK and had to wait in the data-level queue.
    pub out_of_order_chunks: u64,
    /// Chunks beyond the advertised window, discarded.
    pub beyond_window: u64,
    /// Largest number of bytes held in the data-level reassembly queue.
    pub max_reassembly_bytes: u64,
    pub bytes_delivered: u64,
}

pub struct SubReceiver {
    pub rcv: TcpReceiver,
    /// Segments received above the subflow's rcv_nxt: subflow seq → (data seq, len, arrival).
    pending: BTreeMap<u64, (u64, u32, Time)>,
    /// Incarnation of the subflow (bumped when the path manager re-creates it).
    pub epoch: u8,
    /// Payload bytes received on this subflow, duplicates included.
    pub bytes_received: u64,
}

pub struct MptcpReceiver {
    /// The first `INLINE_SUBFLOWS` inline.
    pub subs: SmallVec<[SubReceiver; INLINE_SUBFLOWS]>,
    sack: bool,
    delayed_ack: DelayedAck,
    mss: u32,
    handshake: bool,
    rcv_nxt: u64,
    ooo: VecDeque<Chunk>,
    ooo_bytes: u64,
    buffer: u64,
    /// Free buffer space when the last ACK left (Linux `old_wspace`).
    adv_space: u64,
    pub stats: MptcpReceiverStats,
    /// Per chunk: arrival at the host → delivery to the application (ns); only when the run
    /// measures the connection in detail (`set_detailed`).
    pub hol_wait: LogHistogram,
    detailed: bool,
}

impl MptcpReceiver {
    /// Bytes its growable containers hold (`transport::footprint`).
    pub fn memory_footprint(&self) -> usize {
        use crate::transport::footprint::*;
        let subs: usize = self.subs.iter().map(|s| s.rcv.memory_footprint() + btree(&s.pending)).sum();
        subs + small_vec(&self.subs) + deque(&self.ooo)
    }

    pub fn new(paths: usize, sack: bool, delayed_ack: DelayedAck, mss: u32, handshake: bool, buffer: u64) -> Self {
        let mut r = Self {
            subs: SmallVec::new(),
            sack,
            delayed_ack,
            mss,
            handshake,
            rcv_nxt: 0,
            ooo: VecDeque::new(),
            ooo_bytes: 0,
            buffer,
            adv_space: buffer,
            stats: MptcpReceiverStats::default(),
            hol_wait: LogHistogram::new(),
            detailed: true,
        };
        for _ in 0..paths {
            let rcv = r.new_subflow_receiver();
            r.subs.push(SubReceiver { rcv, pending: BTreeMap::new(), epoch: 0, bytes_received: 0 });
        }
        r
    }

    /// Measure the reassembly wait (the default) or not (`detailed`).
    pub fn set_detailed(&mut self, detailed: bool) {
        self.detailed = detailed;
    }

    fn new_subflow_receiver(&self) -> TcpReceiver {
        TcpReceiver::new(self.sack, self.delayed_ack, self.mss, SUBFLOW_BUFFER, !self.handshake)
    }

    /// The path manager re-created subflow `i` (new incarnation `epoch`): a fresh receiver.
    pub fn reset_subflow(&mut self, i: usize, epoch: u8) {
        let rcv = self.new_subflow_receiver();
        let s = &mut self.subs[i];
        s.rcv = rcv;
        s.pending.clear();
        s.epoch = epoch;
    }

    pub fn data_ack(&self) -> u64 {
        self.rcv_nxt
    }

    pub fn window(&self) -> u64 {
        self.buffer
    }

    pub fn reassembly_bytes(&self) -> u64 {
        self.ooo_bytes
    }

    /// Earliest delayed-ACK deadline of subflow `i`.
    pub fn deadline(&self, i: usize) -> Option<Time> {
        self.subs[i].rcv.deadline()
    }

    /// Stamp DATA_ACK and the connection-level window on the ACKs a subflow produced.
    fn stamp(&mut self, acks: &mut [TcpHeader]) {
        if acks.is_empty() {
            return;
        }
        for h in acks {
            h.dss = self.rcv_nxt;
            h.wnd = self.buffer;
        }
        self.adv_space = self.free_space();
    }

    #[inline]
    fn free_space(&self) -> u64 {
        self.buffer.saturating_sub(self.ooo_bytes)
    }

    /// A segment arrived on subflow `i`; its ACKs go to `out`. Returns bytes newly delivered to
    /// the application.
    pub fn on_segment(&mut self, now: Time, i: usize, h: &TcpHeader, out: &mut Vec<TcpHeader>) -> u64 {
        let n0 = out.len();
        let s = &mut self.subs[i];
        let before = s.rcv.rcv_nxt();
        let got = s.rcv.on_segment(now, h, out);
        let mut delivered = 0;
        if h.len > 0 {
            s.bytes_received += h.len as u64;
            if got > 0 {
                // In order on the subflow: this segment (or its part above `before`), then the
                // segments that waited behind it.
                let after = s.rcv.rcv_nxt();
                let skip = before.saturating_sub(h.seq);
                delivered += self.data_chunk(now, h.dss + skip, (h.len as u64 - skip) as u32, now);
                while let Some((&ssn, _)) = self.subs[i].pending.first_key_value() {
                    if ssn >= after {
                        break;
                    }
                    let (dsn, len, arrived) = self.subs[i].pending.pop_first().expect("non-empty").1;
                    delivered += self.data_chunk(now, dsn, len, arrived);
                }
            } else if h.seq > before {
                s.pending.entry(h.seq).or_insert((h.dss, h.len, now));
            }
        }
        if delivered > 0 && self.free_space() >= 2 * self.adv_space {
            self.subs[i].rcv.ack_now(out);
        }
        self.stamp(&mut out[n0..]);
        self.stats.bytes_delivered += delivered;
        delivered
    }

    /// A chunk [dsn, dsn+len) reached data-level reassembly at `now` (it arrived at the host at
    /// `arrived`). Returns bytes newly delivered in order.
    fn data_chunk(&mut self, now: Time, dsn: u64, len: u32, arrived: Time) -> u64 {
        self.stats.chunks += 1;
        let end = dsn + len as u64;
        if end <= self.rcv_nxt {
            self.stats.duplicate_chunks += 1;
            return 0;
        }
        if end > self.rcv_nxt + self.buffer {
            self.stats.beyond_window += 1;
            return 0;
        }
        if dsn > self.rcv_nxt {
            // Chunks mostly arrive in data order on each path: try the back first.
            let i = if self.ooo.back().is_none_or(|c| c.dsn < dsn) { self.ooo.len() } else { self.ooo.partition_point(|c| c.dsn < dsn) };
            if self.ooo.get(i).is_some_and(|c| c.dsn == dsn) {
                self.stats.duplicate_chunks += 1;
                return 0;
            }
            self.ooo.insert(i, Chunk { dsn, len, arrived });
            self.ooo_bytes += len as u64;
            self.stats.out_of_order_chunks += 1;
            self.stats.max_reassembly_bytes = self.stats.max_reassembly_bytes.max(self.ooo_bytes);
            return 0;
        }
        let start = self.rcv_nxt;
        self.rcv_nxt = end;
        if self.detailed {
            self.hol_wait.record(now - arrived);
        }
        while let Some(c) = self.ooo.front().copied() {
            if c.dsn > self.rcv_nxt {
                break;
            }
            self.ooo.pop_front();
            self.ooo_bytes -= c.len as u64;
            let c_end = c.dsn + c.len as u64;
            if c_end > self.rcv_nxt {
                self.rcv_nxt = c_end;
                if self.detailed {
                    self.hol_wait.record(now - c.arrived);
                }
            } else {
                self.stats.duplicate_chunks += 1;
            }
        }
        self.rcv_nxt - start
    }

    /// Subflow `i`'s delayed-ACK timer.
    pub fn on_timer(&mut self, now: Time, i: usize, out: &mut Vec<TcpHeader>) {
        let n0 = out.len();
        self.subs[i].rcv.on_timer(now, out);
        self.stamp(&mut out[n0..]);
    }
}
