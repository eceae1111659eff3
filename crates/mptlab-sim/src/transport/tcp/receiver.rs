//! The receiving half of a TCP connection: reassembly, cumulative ACKs with SACK blocks,
//! delayed ACKs and the advertised window.
//!
//! - ACK policy (RFC 5681 §4.2, RFC 1122 §4.2.3.2): ACK at least every `every`-th segment or
//!   when the delayed-ACK timer fires; ACK at once for out-of-order data, for data that fills a
//!   gap, for duplicates, for zero-window probes and for data beyond the window.
//! - SACK (RFC 2018 §4): the first block holds the segment that triggered the ACK, then the most
//!   recently reported other blocks, at most `MAX_SACK_BLOCKS`.
//! - Window: receive buffer minus bytes delivered but not yet read by the application. Data
//!   beyond the advertised right edge is discarded. After the application reads, a window
//!   update is sent when the window opens by at least min(buffer/2, MSS) from a value below
//!   buffer/2 (receiver-side SWS avoidance, RFC 1122 §4.2.3.3).

use super::config::DelayedAck;
use crate::transport::segment::{SackBlock, TcpHeader, FLAG_ACK, FLAG_PROBE, FLAG_SYN, MAX_SACK_BLOCKS};
use mptlab_engine::Time;

#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct ReceiverStats {
    pub segments: u64,
    pub bytes_delivered: u64,
    pub duplicate_segments: u64,
    pub out_of_order_segments: u64,
    pub acks_sent: u64,
    pub dropped_beyond_window: u64,
    pub probes_answered: u64,
}

pub struct TcpReceiver {
    sack: bool,
    delayed_ack: DelayedAck,
    mss: u32,
    buffer: u64,
    established: bool,
    rcv_nxt: u64,
    /// Out-of-order ranges above rcv_nxt, sorted and disjoint.
    ooo: Vec<(u64, u64)>,
    /// A sequence number inside each recently reported SACK block, most recent first.
    recent: [u64; MAX_SACK_BLOCKS],
    nrecent: usize,
    unread: u64,
    auto_read: bool,
    pending: u32,
    ack_at: Option<Time>,
    last_wnd: u64,
    pub stats: ReceiverStats,
}

impl TcpReceiver {
    /// Bytes its growable containers hold (`transport::footprint`).
    pub fn memory_footprint(&self) -> usize {
        use crate::transport::footprint::*;
        slice(&self.ooo)
    }

    pub fn new(sack: bool, delayed_ack: DelayedAck, mss: u32, buffer: u64, established: bool) -> Self {
        Self {
            sack,
            delayed_ack,
            mss,
            buffer,
            established,
            rcv_nxt: 0,
            ooo: Vec::new(),
            recent: [0; MAX_SACK_BLOCKS],
            nrecent: 0,
            unread: 0,
            auto_read: true,
            pending: 0,
            ack_at: None,
            last_wnd: buffer,
            stats: ReceiverStats::default(),
        }
    }

    /// When false, delivered data stays in the buffer until `read` (a slow application).
    pub fn set_auto_read(&mut self, on: bool) {
        self.auto_read = on;
    }

    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    pub fn window(&self) -> u64 {
        self.buffer.saturating_sub(self.unread)
    }

    pub fn unread(&self) -> u64 {
        self.unread
    }

    pub fn out_of_order_bytes(&self) -> u64 {
        self.ooo.iter().map(|r| r.1 - r.0).sum()
    }

    pub fn deadline(&self) -> Option<Time> {
        self.ack_at
    }

    fn range_containing(&self, seq: u64) -> Option<(u64, u64)> {
        let i = self.ooo.partition_point(|r| r.1 <= seq);
        self.ooo.get(i).copied().filter(|r| r.0 <= seq)
    }

    fn send_ack(&mut self, flags: u8, out: &mut Vec<TcpHeader>) {
        let (sack, nsack) = if self.sack && !self.ooo.is_empty() { self.sack_blocks() } else { Default::default() };
        let wnd = self.window();
        self.pending = 0;
        self.ack_at = None;
        self.last_wnd = wnd;
        self.stats.acks_sent += 1;
        // One expression at the push, so the header is written into the buffer in place
        // rather than built beside it and copied (see `Outbox::next_header`).
        out.push(TcpHeader { flags: FLAG_ACK | flags, ack: self.rcv_nxt, wnd, sack, nsack, ..Default::default() });
    }

    /// The SACK blocks of an ACK (RFC 2018 §4): the block holding the most recently received
    /// segment first, then the most recently reported others, each once.
    fn sack_blocks(&self) -> ([SackBlock; MAX_SACK_BLOCKS], u8) {
        let mut sack = [SackBlock::default(); MAX_SACK_BLOCKS];
        let mut n = 0usize;
        for k in 0..self.nrecent {
            let Some((s, e)) = self.range_containing(self.recent[k]) else { continue };
            let blk = SackBlock { start: s, end: e };
            if !sack[..n].contains(&blk) {
                sack[n] = blk;
                n += 1;
            }
        }
        (sack, n as u8)
    }

    fn insert_out_of_order(&mut self, s: u64, e: u64) {
        let i = self.ooo.partition_point(|r| r.1 < s);
        let mut j = i;
        let (mut lo, mut hi) = (s, e);
        while j < self.ooo.len() && self.ooo[j].0 <= e {
            lo = lo.min(self.ooo[j].0);
            hi = hi.max(self.ooo[j].1);
            j += 1;
        }
        if j > i {
            self.ooo[i] = (lo, hi);
            self.ooo.drain(i + 1..j);
        } else {
            self.ooo.insert(i, (lo, hi));
        }
        // The block holding this segment goes first, then the most recently reported other
        // blocks (RFC 2018 §4): forget entries that now fall inside the merged block so that
        // the list names distinct blocks.
        let mut kept = [0u64; MAX_SACK_BLOCKS];
        kept[0] = s;
        let mut n = 1;
        for &r in &self.recent[..self.nrecent] {
            if n < MAX_SACK_BLOCKS && !(lo..hi).contains(&r) {
                kept[n] = r;
                n += 1;
            }
        }
        self.recent = kept;
        self.nrecent = n;
    }

    /// Process a segment from the sender; returns bytes newly delivered in order.
    pub fn on_segment(&mut self, now: Time, h: &TcpHeader, out: &mut Vec<TcpHeader>) -> u64 {
        if h.has(FLAG_SYN) {
            self.established = true;
            self.send_ack(FLAG_SYN, out);
            return 0;
        }
        if h.has(FLAG_PROBE) || h.len == 0 {
            self.stats.probes_answered += 1;
            self.send_ack(0, out);
            return 0;
        }
        self.stats.segments += 1;
        let (s, e) = (h.seq, h.seq + h.len as u64);
        if e <= self.rcv_nxt {
            self.stats.duplicate_segments += 1;
            self.send_ack(0, out);
            return 0;
        }
        if e > self.rcv_nxt + self.window() {
            self.stats.dropped_beyond_window += 1;
            self.send_ack(0, out);
            return 0;
        }
        if s > self.rcv_nxt {
            self.stats.out_of_order_segments += 1;
            self.insert_out_of_order(s, e);
            self.send_ack(0, out);
            return 0;
        }
        let before = self.rcv_nxt;
        let filled_gap = !self.ooo.is_empty();
        self.rcv_nxt = e;
        let merged = self.ooo.iter().take_while(|r| r.0 <= self.rcv_nxt).count();
        if merged > 0 {
            self.rcv_nxt = self.rcv_nxt.max(self.ooo[merged - 1].1);
            self.ooo.drain(..merged);
        }
        let delivered = self.rcv_nxt - before;
        self.stats.bytes_delivered += delivered;
        if !self.auto_read {
            self.unread += delivered;
        }
        self.pending += 1;
        if filled_gap || !self.delayed_ack.enabled || self.pending >= self.delayed_ack.every {
            self.send_ack(0, out);
        } else if self.ack_at.is_none() {
            self.ack_at = Some(now + self.delayed_ack.timeout);
        }
        delivered
    }

    /// Send a pending (delayed) ACK now, if there is one. An MPTCP connection calls this when the
    /// data-level window opened, so the sender learns of it without waiting for the timer.
    pub fn ack_now(&mut self, out: &mut Vec<TcpHeader>) {
        if self.pending > 0 || self.ack_at.is_some() {
            self.send_ack(0, out);
        }
    }

    /// The delayed-ACK timer.
    pub fn on_timer(&mut self, now: Time, out: &mut Vec<TcpHeader>) {
        if self.ack_at.is_some_and(|t| t <= now) {
            self.send_ack(0, out);
        }
    }

    /// The application reads up to `bytes`; returns how many it got.
    pub fn read(&mut self, bytes: u64, out: &mut Vec<TcpHeader>) -> u64 {
        let n = bytes.min(self.unread);
        self.unread -= n;
        let wnd = self.window();
        let threshold = (self.buffer / 2).min(self.mss as u64);
        if self.last_wnd < self.buffer / 2 && wnd >= self.last_wnd + threshold {
            self.send_ack(0, out);
        }
        n
    }
}
