//! QUIC streams, RFC 9000 §2–§3 with final size (§4.5) and the stream/connection flow control of
//! `flow` (§4): the sending part chooses STREAM frames to put in packets, the receiving part
//! reassembles them. A packet-level simulator carries no payload, so a stream is a byte count and
//! frames are (stream, offset, len, fin).
//!
//! Sending (`SendStreams`, §2.2, §3.1, §13.3):
//! - The application appends bytes (`write`) and ends the stream (`finish`, the FIN).
//! - `next_chunk(max_len)` yields one frame: first a retransmission of a range declared lost (any
//!   stream), then new data limited by the stream's and the connection's credit. A FIN goes with
//!   the frame that reaches the end of the data, or alone (len 0) when the data went earlier.
//! - `on_lost` queues a frame's bytes again, minus whatever is already acknowledged; `on_acked`
//!   frees a range and removes it from the retransmission queue ("only once acked ranges are not
//!   resent", §13.3: data is resent in new frames, never whole packets).
//! - A stream is done (Data Recvd, §3.1) when every byte up to the final size and the FIN are acked.
//!
//! Receiving (`RecvStreams`, §2.2, §3.2, §4.5):
//! - Frames are reassembled per stream; in-order bytes are delivered per stream, so a hole in one
//!   stream never holds back another (§2.2). Duplicated and overlapping bytes are ignored.
//! - Final size (§4.5): a FIN fixes it; a different FIN, data beyond it, or a FIN below data
//!   already received is a FINAL_SIZE_ERROR. Flow control (§4.1): data beyond MAX_STREAM_DATA or
//!   beyond MAX_DATA (the sum over streams of the largest offset received) is a
//!   FLOW_CONTROL_ERROR. A frame in error changes nothing.
//! - Credit is returned as the application consumes data (`read`, or at once with `auto_read`).
//!
//! Interpretations and omissions:
//! - Scheduling among streams (§2.3 leaves it to the implementation): round-robin, one frame per
//!   turn, in stream-id order from the stream after the last one served; retransmissions of all
//!   streams go before any new data. quinn does round-robin among streams of equal priority.
//! - Streams are opened implicitly by `write` (sender) and by the first frame (receiver); stream
//!   types, MAX_STREAMS, RESET_STREAM and STOP_SENDING are not modelled.
//! - Once a stream's final size is known the receiver stops MAX_STREAM_DATA updates for it (Size
//!   Known, §3.2: the sender needs no more credit).
//! - Frame overhead is the caller's: `max_len` is payload bytes.

use std::collections::VecDeque;

use super::flow::{FlowControlError, RecvWindow, SendCredit, FLOW_CONTROL_ERROR};

/// Transport error code FINAL_SIZE_ERROR (RFC 9000 §20.1).
pub const FINAL_SIZE_ERROR: u64 = 0x06;

/// A STREAM frame's content (§19.8) without payload: bytes [offset, offset + len) of `stream`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct StreamFrame {
    pub stream: u64,
    pub offset: u64,
    pub len: u64,
    pub fin: bool,
}

impl StreamFrame {
    pub fn end(&self) -> u64 {
        self.offset + self.len
    }
}

/// Sorted, disjoint, non-adjacent half-open byte ranges, with their total kept up to date.
/// A multipath connection keeps hundreds of islands here (the sender's acknowledged bytes, the
/// receiver's out-of-order bytes, each path's data between the other's), and the work is at
/// the front: the gap before the first island fills and that range goes. A deque makes that
/// O(1), and the scheduler reads the total before every packet.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RangeSet {
    r: VecDeque<(u64, u64)>,
    total: u64,
}

impl RangeSet {
    /// Bytes its growable containers hold (`transport::footprint`).
    pub fn memory_footprint(&self) -> usize {
        use crate::transport::footprint::*;
        deque(&self.r)
    }

    pub fn new() -> Self {
        Self::default()
    }

    pub fn is_empty(&self) -> bool {
        self.r.is_empty()
    }

    /// The ranges in order (a copy: for tests and traces).
    pub fn ranges(&self) -> Vec<(u64, u64)> {
        self.r.iter().copied().collect()
    }

    pub fn first(&self) -> Option<(u64, u64)> {
        self.r.front().copied()
    }

    pub fn bytes(&self) -> u64 {
        debug_assert_eq!(self.total, self.r.iter().map(|x| x.1 - x.0).sum::<u64>());
        self.total
    }

    /// Index of the first range ending after `s` (at or after it when `touching`). Arrivals on
    /// each path are in order, so most calls are answered by the first or the last range.
    fn first_ending_after(&self, s: u64, touching: bool) -> usize {
        let after = |x: &(u64, u64)| x.1 > s || (touching && x.1 == s);
        match (self.r.front(), self.r.back()) {
            (Some(f), _) if after(f) => 0,
            (_, Some(b)) if !after(b) => self.r.len(),
            (None, _) => 0,
            _ => self.r.partition_point(|x| !after(x)),
        }
    }

    /// True if [s, e) is entirely in the set (an empty range always is).
    pub fn covers(&self, s: u64, e: u64) -> bool {
        if s >= e {
            return true;
        }
        let i = self.first_ending_after(s, false);
        self.r.get(i).is_some_and(|x| x.0 <= s && x.1 >= e)
    }

    #[inline]
    pub fn insert(&mut self, s: u64, e: u64) {
        if s >= e {
            return;
        }
        // At or after the last range's start (in-order arrivals and acknowledgments): only the
        // last range can be touched, since every other one ends before it starts.
        match self.r.back_mut() {
            Some(b) if s < b.0 => {} // the general case below
            Some(b) if s <= b.1 => {
                self.total += e.saturating_sub(b.1);
                b.1 = b.1.max(e);
                return;
            }
            _ => {
                self.r.push_back((s, e));
                self.total += e - s;
                return;
            }
        }
        // Touching or inside the first range (a multipath sender's acknowledgments: the slower
        // path's fill the gap after the acknowledged prefix): grow it, absorb what it reaches.
        if let Some(&(lo, hi)) = self.r.front() {
            if lo <= s && s <= hi {
                let mut hi = hi.max(e);
                self.total += hi - self.r[0].1;
                while let Some(&(a, b)) = self.r.get(1) {
                    if a > hi {
                        break;
                    }
                    // Both ranges were counted; only b beyond hi is new.
                    self.total -= hi.min(b) - a;
                    hi = hi.max(b);
                    self.r.remove(1);
                }
                self.r[0].1 = hi;
                return;
            }
        }
        // First range ending at or after s: it overlaps or touches [s, e).
        let i = self.first_ending_after(s, true);
        let (mut lo, mut hi, mut j) = (s, e, i);
        let mut covered = 0;
        while j < self.r.len() && self.r[j].0 <= e {
            lo = lo.min(self.r[j].0);
            hi = hi.max(self.r[j].1);
            covered += self.r[j].1 - self.r[j].0;
            j += 1;
        }
        // The merged ranges and [s, e) form one contiguous range.
        self.total = self.total + (hi - lo) - covered;
        if j == i {
            self.r.insert(i, (lo, hi));
            return;
        }
        self.r[i] = (lo, hi);
        self.r.drain(i + 1..j);
    }

    pub fn remove(&mut self, s: u64, e: u64) {
        // Nothing held in [s, e) (the usual case: nothing lost): nothing to do.
        if s >= e || self.r.front().is_none_or(|f| e <= f.0) || self.r.back().is_some_and(|b| s >= b.1) {
            return;
        }
        let i = self.first_ending_after(s, false);
        let mut j = i;
        let mut held = 0;
        while j < self.r.len() && self.r[j].0 < e {
            held += self.r[j].1 - self.r[j].0;
            j += 1;
        }
        if i == j {
            return;
        }
        let left = (self.r[i].0 < s).then_some((self.r[i].0, s));
        let right = (self.r[j - 1].1 > e).then_some((e, self.r[j - 1].1));
        self.total -= held - left.map_or(0, |x| x.1 - x.0) - right.map_or(0, |x| x.1 - x.0);
        // Keep the ends in the first and last slots of i..j, drop what lies between.
        let kept = [left, right].into_iter().flatten();
        let mut k = i;
        for x in kept {
            if k < j {
                self.r[k] = x;
            } else {
                self.r.insert(k, x);
            }
            k += 1;
        }
        self.r.drain(k..j.max(k));
    }

    /// Remove the leading ranges that start at or before `at`; returns `at` or the end of the
    /// last one removed if that is larger (the receiver's new in-order point when bytes up to
    /// `at` are contiguous).
    pub fn pop_front_through(&mut self, at: u64) -> u64 {
        let mut hi = at;
        while let Some(&(a, b)) = self.r.front() {
            if a > hi {
                break;
            }
            self.total -= b - a;
            hi = hi.max(b);
            self.r.pop_front();
        }
        hi
    }

    /// Insert [s, e) minus the bytes in `except`.
    fn insert_except(&mut self, s: u64, e: u64, except: &RangeSet) {
        let mut at = s;
        let i = except.r.partition_point(|x| x.1 <= s);
        for &(a, b) in except.r.range(i..) {
            if a >= e {
                break;
            }
            self.insert(at, a.min(e));
            at = at.max(b);
        }
        self.insert(at, e);
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct SendStats {
    pub frames: u64,
    pub new_bytes: u64,
    pub retransmitted_bytes: u64,
    pub fin_only_frames: u64,
}

/// The sending part of one stream (§3.1).
#[derive(Clone, Debug)]
pub struct SendStream {
    id: u64,
    /// Bytes written by the application: the final size once `fin_written`.
    written: u64,
    fin_written: bool,
    /// Every byte below has been sent at least once.
    sent: u64,
    fin_sent: bool,
    fin_lost: bool,
    fin_acked: bool,
    /// Bytes to retransmit, never overlapping `acked`.
    lost: RangeSet,
    acked: RangeSet,
    credit: SendCredit,
}

impl SendStream {
    fn new(id: u64, initial_max_stream_data: u64) -> Self {
        Self {
            id,
            written: 0,
            fin_written: false,
            sent: 0,
            fin_sent: false,
            fin_lost: false,
            fin_acked: false,
            lost: RangeSet::new(),
            acked: RangeSet::new(),
            credit: SendCredit::new(initial_max_stream_data),
        }
    }

    pub fn id(&self) -> u64 {
        self.id
    }

    pub fn written(&self) -> u64 {
        self.written
    }

    pub fn sent(&self) -> u64 {
        self.sent
    }

    pub fn is_finished(&self) -> bool {
        self.fin_written
    }

    pub fn lost(&self) -> &RangeSet {
        &self.lost
    }

    pub fn acked(&self) -> &RangeSet {
        &self.acked
    }

    pub fn credit(&self) -> &SendCredit {
        &self.credit
    }

    /// Every byte and the FIN acknowledged (Data Recvd, §3.1).
    pub fn is_done(&self) -> bool {
        self.fin_acked && self.acked.covers(0, self.written)
    }

    fn has_retransmission(&self) -> bool {
        !self.lost.is_empty() || self.fin_lost
    }

    fn fin_pending(&self) -> bool {
        self.fin_written && !self.fin_sent && self.sent == self.written
    }

    fn has_new(&self) -> bool {
        self.sent < self.written || self.fin_pending()
    }

    fn next_retransmission(&mut self, max_len: u64) -> Option<StreamFrame> {
        if let Some((s, e)) = self.lost.first() {
            let len = max_len.min(e - s);
            if len > 0 {
                self.lost.remove(s, s + len);
                let fin = self.fin_lost && s + len == self.written;
                self.fin_lost &= !fin;
                return Some(StreamFrame { stream: self.id, offset: s, len, fin });
            }
            return None;
        }
        if self.fin_lost {
            self.fin_lost = false;
            return Some(StreamFrame { stream: self.id, offset: self.written, len: 0, fin: true });
        }
        None
    }
}

/// The sending parts of a connection's streams with the connection-level credit. The list of
/// streams first (`LIST_END`): a connection keeps it on the cache line an application's write
/// reads (`QuicConn`).
#[derive(Clone, Debug)]
#[repr(C)]
pub struct SendStreams {
    /// Sorted by id.
    streams: Vec<SendStream>,
    /// Round-robin cursor: the index served first next time.
    next: usize,
    conn: SendCredit,
    initial_max_stream_data: u64,
    pub stats: SendStats,
}

impl SendStreams {
    /// Where the list of streams ends in the struct.
    pub const LIST_END: usize = std::mem::offset_of!(SendStreams, streams) + std::mem::size_of::<Vec<SendStream>>();

    /// Bytes its growable containers hold (`transport::footprint`).
    pub fn memory_footprint(&self) -> usize {
        use crate::transport::footprint::*;
        slice(&self.streams) + self.streams.iter().map(|s| s.lost.memory_footprint() + s.acked.memory_footprint()).sum::<usize>()
    }

    /// The peer's initial_max_data and initial_max_stream_data (§18.2), the same for every stream.
    pub fn new(initial_max_data: u64, initial_max_stream_data: u64) -> Self {
        Self { streams: Vec::new(), next: 0, conn: SendCredit::new(initial_max_data), initial_max_stream_data, stats: SendStats::default() }
    }

    fn index(&self, id: u64) -> Result<usize, usize> {
        self.streams.binary_search_by_key(&id, |s| s.id)
    }

    /// Open stream `id` if it is not open yet.
    pub fn open(&mut self, id: u64) {
        if let Err(i) = self.index(id) {
            self.streams.insert(i, SendStream::new(id, self.initial_max_stream_data));
            if i < self.next {
                self.next += 1;
            }
        }
    }

    fn get_mut(&mut self, id: u64) -> &mut SendStream {
        self.open(id);
        let i = self.index(id).unwrap();
        &mut self.streams[i]
    }

    /// The application appends `len` bytes to stream `id` (opening it).
    pub fn write(&mut self, id: u64, len: u64) {
        let s = self.get_mut(id);
        assert!(!s.fin_written, "write on finished stream {id}");
        s.written += len;
    }

    /// The application ends stream `id`: the final size is what has been written.
    pub fn finish(&mut self, id: u64) {
        self.get_mut(id).fin_written = true;
    }

    pub fn stream(&self, id: u64) -> Option<&SendStream> {
        self.index(id).ok().map(|i| &self.streams[i])
    }

    pub fn streams(&self) -> &[SendStream] {
        &self.streams
    }

    /// Bytes written and not acknowledged (in acknowledged frames, in order or not), over
    /// every stream: what the application's send buffer holds.
    pub fn unacked(&self) -> u64 {
        self.streams.iter().map(|s| s.written - s.acked.bytes()).sum()
    }

    pub fn conn_credit(&self) -> &SendCredit {
        &self.conn
    }

    pub fn has_retransmissions(&self) -> bool {
        self.streams.iter().any(|s| s.has_retransmission())
    }

    /// Something `next_chunk` could send now, given enough `max_len`.
    pub fn can_send(&self) -> bool {
        self.streams.iter().any(|s| {
            s.has_retransmission() || s.fin_pending() || (s.sent < s.written && s.credit.available() > 0 && self.conn.available() > 0)
        })
    }

    pub fn is_done(&self, id: u64) -> bool {
        self.stream(id).is_some_and(|s| s.is_done())
    }

    pub fn all_done(&self) -> bool {
        self.streams.iter().all(|s| s.is_done())
    }

    /// The next STREAM frame of at most `max_len` payload bytes: retransmissions first, then new
    /// data within flow control, round-robin among streams.
    #[inline(always)]
    pub fn next_chunk(&mut self, max_len: u64) -> Option<StreamFrame> {
        let n = self.streams.len();
        let start = self.next.min(n);
        let order = (start..n).chain(0..start);
        for i in order.clone() {
            if let Some(f) = self.streams[i].next_retransmission(max_len) {
                self.next = i + 1;
                self.stats.frames += 1;
                self.stats.retransmitted_bytes += f.len;
                return Some(f);
            }
        }
        for i in order {
            let conn_avail = self.conn.available();
            let s = &mut self.streams[i];
            if !s.has_new() {
                continue;
            }
            let len = max_len.min(s.written - s.sent).min(s.credit.available()).min(conn_avail);
            if s.sent < s.written && max_len > 0 {
                // Data waiting for credit: a BLOCKED frame may be due (§4.1).
                if s.credit.available() == 0 {
                    s.credit.note_blocked();
                }
                if conn_avail == 0 {
                    self.conn.note_blocked();
                }
            }
            if len == 0 && !s.fin_pending() {
                continue;
            }
            let f = StreamFrame { stream: s.id, offset: s.sent, len, fin: s.fin_written && s.sent + len == s.written };
            s.sent += len;
            s.fin_sent |= f.fin;
            s.credit.consume(len);
            if s.sent < s.written && s.credit.available() == 0 {
                s.credit.note_blocked();
            }
            self.conn.consume(len);
            if s.sent < s.written && self.conn.available() == 0 {
                self.conn.note_blocked();
            }
            self.next = i + 1;
            self.stats.frames += 1;
            self.stats.new_bytes += len;
            self.stats.fin_only_frames += (len == 0) as u64;
            return Some(f);
        }
        None
    }

    /// A frame was acknowledged: its bytes (and FIN) are never sent again.
    #[inline]
    pub fn on_acked(&mut self, f: &StreamFrame) {
        let Ok(i) = self.index(f.stream) else { return };
        let s = &mut self.streams[i];
        debug_assert!(f.end() <= s.sent && (!f.fin || f.end() == s.written), "ack for unsent {f:?}");
        s.acked.insert(f.offset, f.end());
        s.lost.remove(f.offset, f.end());
        if f.fin {
            s.fin_acked = true;
            s.fin_lost = false;
        }
    }

    /// A frame was declared lost: its bytes not yet acknowledged (and its FIN) are queued again.
    pub fn on_lost(&mut self, f: &StreamFrame) {
        let Ok(i) = self.index(f.stream) else { return };
        let s = &mut self.streams[i];
        debug_assert!(f.end() <= s.sent, "loss of unsent {f:?}");
        s.lost.insert_except(f.offset, f.end(), &s.acked);
        if f.fin && !s.fin_acked {
            s.fin_lost = true;
        }
    }

    /// A MAX_DATA frame arrived.
    pub fn on_max_data(&mut self, limit: u64) -> bool {
        self.conn.on_max(limit)
    }

    /// A MAX_STREAM_DATA frame arrived (opening the stream if needed, §19.10).
    pub fn on_max_stream_data(&mut self, id: u64, limit: u64) -> bool {
        self.get_mut(id).credit.on_max(limit)
    }

    /// The limit for a DATA_BLOCKED frame, if one is due.
    pub fn take_data_blocked(&mut self) -> Option<u64> {
        self.conn.take_blocked()
    }

    /// Appends (stream, limit) for each STREAM_DATA_BLOCKED frame due.
    pub fn take_stream_data_blocked(&mut self, out: &mut Vec<(u64, u64)>) {
        for s in &mut self.streams {
            if let Some(l) = s.credit.take_blocked() {
                out.push((s.id, l));
            }
        }
    }
}

/// A received frame broke the rules; the connection closes with `code()`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamError {
    /// Data beyond MAX_STREAM_DATA (FLOW_CONTROL_ERROR).
    StreamFlowControl { stream: u64, err: FlowControlError },
    /// Data beyond MAX_DATA, counted as the sum of the largest offsets (FLOW_CONTROL_ERROR).
    ConnectionFlowControl { stream: u64, err: FlowControlError },
    /// Data ending at `end` beyond the (known or claimed) `final_size`, or a changed final size
    /// (FINAL_SIZE_ERROR, §4.5).
    FinalSize { stream: u64, final_size: u64, end: u64 },
}

impl StreamError {
    pub fn code(&self) -> u64 {
        match self {
            Self::StreamFlowControl { .. } | Self::ConnectionFlowControl { .. } => FLOW_CONTROL_ERROR,
            Self::FinalSize { .. } => FINAL_SIZE_ERROR,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecvConfig {
    /// Connection window: our initial_max_data and the size each MAX_DATA adds.
    pub max_data: u64,
    /// Stream window: our initial_max_stream_data_* and the size each MAX_STREAM_DATA adds.
    pub max_stream_data: u64,
    /// The application consumes data as soon as it is delivered in order.
    pub auto_read: bool,
}

impl Default for RecvConfig {
    fn default() -> Self {
        // quinn's defaults: 1.25 MB per stream, 8 × that for the connection (at 100 Mbit/s, 100 ms).
        Self { max_data: 10_000_000, max_stream_data: 1_250_000, auto_read: true }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct RecvStats {
    pub frames: u64,
    pub bytes_delivered: u64,
    /// Frames that brought no new byte (and no new FIN).
    pub duplicate_frames: u64,
    pub out_of_order_frames: u64,
}

/// The receiving part of one stream (§3.2).
#[derive(Clone, Debug)]
pub struct RecvStream {
    id: u64,
    /// Every byte below has been received and delivered in order.
    delivered: u64,
    /// Bytes the application has consumed.
    read: u64,
    highest: u64,
    final_size: Option<u64>,
    /// Received ranges above `delivered`.
    ooo: RangeSet,
    window: RecvWindow,
}

impl RecvStream {
    pub fn id(&self) -> u64 {
        self.id
    }

    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    pub fn read(&self) -> u64 {
        self.read
    }

    pub fn highest(&self) -> u64 {
        self.highest
    }

    pub fn final_size(&self) -> Option<u64> {
        self.final_size
    }

    pub fn out_of_order(&self) -> &RangeSet {
        &self.ooo
    }

    pub fn window(&self) -> &RecvWindow {
        &self.window
    }

    /// Every byte up to the final size delivered (Data Recvd, §3.2).
    pub fn is_complete(&self) -> bool {
        self.final_size == Some(self.delivered)
    }
}

/// The receiving parts of a connection's streams with the connection-level window.
#[derive(Clone, Debug)]
pub struct RecvStreams {
    cfg: RecvConfig,
    /// Sorted by id (a connection has a handful: a search beats a map's pointer chase).
    streams: Vec<RecvStream>,
    conn: RecvWindow,
    pub stats: RecvStats,
}

impl RecvStreams {
    /// Bytes its growable containers hold (`transport::footprint`).
    pub fn memory_footprint(&self) -> usize {
        use crate::transport::footprint::*;
        slice(&self.streams) + self.streams.iter().map(|s| s.ooo.memory_footprint()).sum::<usize>()
    }

    pub fn new(cfg: RecvConfig) -> Self {
        Self { cfg, streams: Vec::new(), conn: RecvWindow::new(cfg.max_data), stats: RecvStats::default() }
    }

    fn index(&self, id: u64) -> Result<usize, usize> {
        self.streams.binary_search_by_key(&id, |s| s.id)
    }

    pub fn stream(&self, id: u64) -> Option<&RecvStream> {
        self.index(id).ok().map(|i| &self.streams[i])
    }

    pub fn conn_window(&self) -> &RecvWindow {
        &self.conn
    }

    /// A STREAM frame arrived. Returns the bytes newly delivered in order on its stream; a frame
    /// in error changes nothing.
    #[inline(always)]
    pub fn on_frame(&mut self, f: &StreamFrame) -> Result<u64, StreamError> {
        let i = self.index(f.stream).unwrap_or_else(|i| {
            let window = RecvWindow::new(self.cfg.max_stream_data);
            self.streams
                .insert(i, RecvStream { id: f.stream, delivered: 0, read: 0, highest: 0, final_size: None, ooo: RangeSet::new(), window });
            i
        });
        let s = &mut self.streams[i];
        let end = f.end();
        let final_size_err = |final_size| StreamError::FinalSize { stream: f.stream, final_size, end };
        //= https://www.rfc-editor.org/rfc/rfc9000#section-4.5
        //# Once a final size for a stream is known, it cannot change. If a RESET_STREAM or STREAM
        //# frame is received indicating a change in the final size for the stream, an endpoint
        //# SHOULD respond with an error of type FINAL_SIZE_ERROR
        if let Some(fs) = s.final_size {
            if end > fs || (f.fin && end != fs) {
                return Err(final_size_err(fs));
            }
        }
        //# an endpoint SHOULD respond with an error of type FINAL_SIZE_ERROR if it receives a
        //# RESET_STREAM or STREAM frame that would set a final size lower than the highest
        //# offset received on the stream
        if f.fin && end < s.highest {
            return Err(StreamError::FinalSize { stream: f.stream, final_size: end, end: s.highest });
        }
        s.window.check(end).map_err(|err| StreamError::StreamFlowControl { stream: f.stream, err })?;
        let grow = end.saturating_sub(s.highest);
        let conn_total = self.conn.received() + grow;
        self.conn.on_received(conn_total).map_err(|err| StreamError::ConnectionFlowControl { stream: f.stream, err })?;
        s.window.on_received(end).expect("checked");
        s.highest = s.highest.max(end);
        let new_fin = f.fin && s.final_size.is_none();
        if f.fin {
            s.final_size = Some(end);
            s.window.cancel_update();
        }
        self.stats.frames += 1;
        // Reaching past the delivered prefix (almost every frame): it and the ranges held out of
        // order that it now joins are delivered. (No held range starts at or below `delivered`,
        // so such a frame is never a duplicate.)
        if f.offset <= s.delivered && end > s.delivered {
            let before = s.delivered;
            s.delivered = s.ooo.pop_front_through(end);
            let n = s.delivered - before;
            return Ok(self.deliver(i, n));
        }
        if end <= s.delivered || s.ooo.covers(f.offset.max(s.delivered), end) {
            self.stats.duplicate_frames += (!new_fin) as u64;
            return Ok(0);
        }
        // Beyond a gap: held until the gap fills.
        s.ooo.insert(f.offset, end);
        self.stats.out_of_order_frames += 1;
        Ok(0)
    }

    /// `n` more bytes of stream `i` became contiguous (and are read at once with `auto_read`).
    fn deliver(&mut self, i: usize, n: u64) -> u64 {
        self.stats.bytes_delivered += n;
        if self.cfg.auto_read {
            self.read_at(i, n);
        }
        n
    }

    /// The application consumes up to `max` delivered bytes of stream `id`; returns how many.
    pub fn read(&mut self, id: u64, max: u64) -> u64 {
        match self.index(id) {
            Ok(i) => self.read_at(i, max),
            Err(_) => 0,
        }
    }

    fn read_at(&mut self, i: usize, max: u64) -> u64 {
        let s = &mut self.streams[i];
        let n = max.min(s.delivered - s.read);
        s.read += n;
        if s.window.on_consumed(n) && s.final_size.is_some() {
            s.window.cancel_update();
        }
        self.conn.on_consumed(n);
        n
    }

    /// The limit for a MAX_DATA frame, if one is due.
    pub fn take_max_data(&mut self) -> Option<u64> {
        self.conn.take_update()
    }

    /// Appends (stream, limit) for each MAX_STREAM_DATA frame due.
    pub fn take_max_stream_data(&mut self, out: &mut Vec<(u64, u64)>) {
        for s in &mut self.streams {
            if let Some(l) = s.window.take_update() {
                out.push((s.id, l));
            }
        }
    }

    /// A packet carrying MAX_DATA `limit` was lost.
    pub fn on_max_data_lost(&mut self, limit: u64) {
        self.conn.on_update_lost(limit);
    }

    /// A packet carrying MAX_STREAM_DATA `limit` for stream `id` was lost.
    pub fn on_max_stream_data_lost(&mut self, id: u64, limit: u64) {
        if let Ok(i) = self.index(id) {
            let s = &mut self.streams[i];
            if s.final_size.is_none() {
                s.window.on_update_lost(limit);
            }
        }
    }
}
