//! A QUIC connection endpoint (RFC 9000, RFC 9002), single-path or multipath
//! (draft-ietf-quic-multipath-19, the revision RFC 10069 was published from), sans-IO: the
//! caller hands in packets and timeouts and polls packets out, one at a time
//! (`poll`, which fills a caller-owned `WirePacket` or says when to call again).
//!
//! - Streams and flow control: `streams.rs` / `flow.rs`. The application's writes are spread
//!   over `QuicConfig::streams` client-initiated bidirectional streams; each is delivered in
//!   order on its own (no head-of-line blocking across streams).
//! - Packets: ACK (PATH_ACK when multipath) frames first, then control frames, CRYPTO, then
//!   STREAM frames filling the packet up to max_udp_payload (or the controller's packet size,
//!   seed 002 eq. 8). Sizes: `wire.rs`.
//! - ACKs (RFC 9000 §13.2): per path, after two ack-eliciting packets, after max_ack_delay, at
//!   once on reordering; piggybacked on any packet that is sent while an ACK is owed. An ACK
//!   for a path goes on that path, or on another open path when it is not open (ACKs for any
//!   path may travel on any path, §7.1 of the draft).
//! - Loss recovery and congestion control per path (`recovery.rs`, `cc.rs`): lost frames are
//!   queued again and sent in new packets on whichever path the scheduler picks (§13.3).
//!   PTO probes carry new or lost STREAM data, else a PING; a probe on a path being validated
//!   repeats the PATH_CHALLENGE; outstanding CRYPTO data is resent in the probe.
//! - Handshake (RFC 9000 §7, RFC 9001 §4.1), 1-RTT: the client's Initial (ClientHello, padded
//!   to 1200 B), the server's flight (Initial + Handshake, `server_flight` bytes, limited to
//!   three times what it received until the client's address is validated, §8.1), the
//!   client's Finished coalesced with its first 1-RTT data, HANDSHAKE_DONE from the server
//!   (which confirms the handshake at the client, §4.1.2 of RFC 9001). Interpretation: the
//!   Initial, Handshake and 1-RTT packet number spaces of path 0 are one space here (one
//!   CRYPTO stream per direction, handshake packets with a long header); their timing, sizes
//!   and recovery are modelled, their separate spaces are not. No 0-RTT.
//! - Multipath: after the handshake is confirmed, the client opens each further path with a
//!   PATH_CHALLENGE (padded to 1200 B, RFC 9000 §8.2.1) on it; the server answers with
//!   PATH_RESPONSE on the same path and the path becomes usable at the client when it arrives.
//!   Interpretation: the server treats the challenge as the validation of its own direction
//!   (its packets on the path are ACKs and responses, within the anti-amplification limit).
//!   A path whose interface goes down is abandoned (PATH_ABANDON on another path, §3.4): its
//!   outstanding packets leave bytes_in_flight and their frames are queued again for the
//!   other paths. A path without ACKs for `failure_ptos` consecutive PTOs is treated as
//!   potentially failed (not scheduled, its outstanding STREAM data queued again) until it is
//!   acknowledged again; PTO probes keep testing it.
//! - Scheduling: each packet with STREAM data goes where the shared scheduler (`sched`) says,
//!   one decision per packet, through the multipath core MPTCP uses too (`transport/multipath`:
//!   shortcut, views, placement); a path has space when its window and pacer allow a full
//!   packet. `Redundant` decisions send on the lowest-numbered path of the set with space (QUIC
//!   retransmits by frame, so a duplicate STREAM frame would be a second copy of the data).
//!   Each path slot has the user's preferences (priority, backup: `set_path_prefs`), which both
//!   ends know from the scenario (PATH_STATUS frames are not sent).
//! - Coupled controllers (LIA, OLIA, BALIA, wVegas) get every path's view before each event of
//!   one path, as MPTCP subflows do (the core's coupling).
//! - Not modelled: connection IDs beyond their length on the wire, NEW_CONNECTION_ID and
//!   retirement, key updates, stream limits (MAX_STREAMS), RESET_STREAM / STOP_SENDING,
//!   CONNECTION_CLOSE and idle timeout, ECN, path MTU discovery, PATH_STATUS frames.

use super::config::{QuicConfig, MAX_PATHS};
use super::path::SentFrames;
use super::path::{PathState, QuicPath};
use super::recovery::{RecoveryOutcome, Timeout};
use super::sent::SentPacket;
use super::streams::{RecvConfig, RecvStreams, SendStreams, StreamFrame};
use super::wire::{self, Frames, WirePacket, AEAD_TAG_BYTES, MIN_INITIAL_UDP_PAYLOAD};
use crate::cc::{CcConfig, CongestionControl};
use crate::sched::{AnyScheduler, ConnView, PathView, SchedConfig};
use crate::transport::multipath::{MultipathCore, PathPrefs, Shortcut};
use mptlab_engine::Time;
use serde::Serialize;
use smallvec::SmallVec;

/// A STREAM frame's header is budgeted at its largest here: type + 2 B stream ID + 8 B offset +
/// 2 B length (the frame is then cut to fit; at most 4 B of a packet are left unused).
const STREAM_HEADER_BUDGET: u32 = 13;
/// Room a packet without padding needs at least (header, a small frame, the AEAD tag): below
/// this much amplification credit nothing is sent.
const MIN_PACKET_BYTES: u32 = 64;
/// The amount written for a greedy application (never runs out within a run).
const UNLIMITED: u64 = 1 << 60;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Client,
    Server,
}

#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct ConnStats {
    /// Client: when the server's flight was complete (1-RTT keys); server: when the client's
    /// Finished arrived.
    pub handshake_complete_at: Option<Time>,
    pub handshake_confirmed_at: Option<Time>,
    pub stream_bytes_retransmitted: u64,
    /// Packets refused: duplicates, stale Path IDs, abandoned paths.
    pub packets_ignored: u64,
    /// ACK frames that did not fit the sender's state (acknowledging unsent packets).
    pub invalid_acks: u64,
    pub protocol_errors: u64,
}

/// The CRYPTO stream's sending part, with whether it has anything to send kept up to date by
/// every change: each poll asks, and after the handshake the answer (always no) would cost a
/// visit to the stream's separate allocation, a cache miss per packet with thousands of
/// connections.
struct CryptoSend {
    streams: SendStreams,
    sending: bool,
}

impl CryptoSend {
    fn new(streams: SendStreams) -> Self {
        let sending = streams.can_send();
        Self { streams, sending }
    }

    /// `SendStreams::can_send`.
    #[inline]
    fn can_send(&self) -> bool {
        debug_assert_eq!(self.sending, self.streams.can_send(), "cached CRYPTO state out of date");
        self.sending
    }

    fn refresh(&mut self) {
        self.sending = self.streams.can_send();
    }

    fn open(&mut self, id: u64) {
        self.streams.open(id);
        self.refresh();
    }

    fn write(&mut self, id: u64, len: u64) {
        self.streams.write(id, len);
        self.refresh();
    }

    fn next_chunk(&mut self, max_len: u64) -> Option<StreamFrame> {
        let c = self.streams.next_chunk(max_len);
        self.refresh();
        c
    }

    fn on_acked(&mut self, f: &StreamFrame) {
        self.streams.on_acked(f);
        self.refresh();
    }

    fn on_lost(&mut self, f: &StreamFrame) {
        self.streams.on_lost(f);
        self.refresh();
    }
}

/// Frames owed to the peer that may go on any path.
#[derive(Default)]
struct Pending {
    max_data: Option<u64>,
    max_stream_data: Vec<(u64, u64)>,
    handshake_done: bool,
    path_abandon: Vec<u32>,
}

impl Pending {
    fn any(&self) -> bool {
        self.handshake_done || self.has_rare()
    }

    /// Frames that go in a packet's `RareFrames`.
    fn has_rare(&self) -> bool {
        self.max_data.is_some() || !self.max_stream_data.is_empty() || !self.path_abandon.is_empty()
    }
}

/// In declaration order, aligned to a cache line: the first line holds all that an
/// application's write and the poll after it read when that poll finds nothing to send
/// (`write`, `quiet_poll`; the streams themselves apart), since with thousands of connections
/// each line a tick visits is a cache miss.
#[repr(C, align(64))]
pub struct QuicConn {
    /// Until this time (0: none), and until any input other than a write, a poll finds nothing
    /// to send and returns `quiet_deadline` without looking (`quiet_poll`).
    quiet_until: Time,
    quiet_deadline: Option<Time>,
    /// `QuicConfig::send_buffer` and `streams` (at least 1), for `write`.
    send_buffer: u64,
    write_streams: u32,
    /// The application writes (`write`), rather than having every stream always full
    /// (`set_unlimited`): only then are polls made after nothing but a write.
    writes: bool,
    /// Its list of streams first (`SendStreams` is `repr(C)`), still on the first line.
    pub send: SendStreams,
    pub paths: Vec<QuicPath>,
    pub recv: RecvStreams,
    crypto_tx: CryptoSend,
    crypto_rx: RecvStreams,
    cfg: QuicConfig,
    cc_cfg: CcConfig,
    amp_received: u64,
    amp_sent: u64,
    /// RFC 9002 §6.2.2.1 anti-deadlock: a client without 1-RTT keys keeps a PTO armed even
    /// with nothing in flight (the server may be blocked by its amplification limit): when its
    /// last packet was sent, and the backoff exponent.
    last_sent: Time,
    deadlock_backoff: u32,
    next_path_id: u32,
    pending: Pending,
    /// The scheduler, the path views and the controllers' coupling (`transport/multipath`).
    core: MultipathCore,
    outcome: RecoveryOutcome<SentFrames>,
    drained: Vec<SentPacket<SentFrames>>,
    pub stats: ConnStats,
    pub role: Role,
    /// 1-RTT keys: STREAM data may be sent and received.
    keys: bool,
    confirmed: bool,
    /// Server: the client's address is validated (a Handshake packet arrived, §8.1); until
    /// then at most 3× the bytes received may be sent.
    addr_validated: bool,
    /// Tests: every poll does the full work (`disable_quiet_polls`), and the polls that did not.
    #[cfg(test)]
    no_quiet: bool,
    #[cfg(test)]
    pub quiet_polls: u64,
}

// The first line: the fields above `send`, and `send`'s list of streams.
const _: () = assert!(std::mem::offset_of!(QuicConn, send) + SendStreams::LIST_END <= 64);

impl QuicConn {
    /// Bytes its growable containers hold (`transport::footprint`).
    pub fn memory_footprint(&self) -> usize {
        use crate::transport::footprint::*;
        let paths: usize = self.paths.iter().map(|p| p.memory_footprint()).sum();
        let pending = slice(&self.pending.max_stream_data) + slice(&self.pending.path_abandon);
        let scratch = slice(&self.outcome.acked) + slice(&self.outcome.lost) + slice(&self.drained);
        paths
            + slice(&self.paths)
            + self.send.memory_footprint()
            + self.recv.memory_footprint()
            + self.crypto_tx.streams.memory_footprint()
            + self.crypto_rx.memory_footprint()
            + pending
            + scratch
    }

    /// An endpoint with `paths` path slots (1 for single-path QUIC).
    pub fn new(role: Role, cfg: QuicConfig, cc: &CcConfig, sched: &SchedConfig, paths: usize, seed: u64) -> Self {
        assert!((1..=MAX_PATHS).contains(&paths), "1 to {MAX_PATHS} paths");
        assert!(cfg.multipath || paths == 1, "several paths need multipath");
        let first = if role == Role::Server || !cfg.handshake { PathState::Active } else { PathState::Validating };
        let mut slots = vec![QuicPath::new(0, first, &cfg, cc)];
        for i in 1..paths {
            slots.push(QuicPath::new(i as u32, PathState::Idle, &cfg, cc));
        }
        let coupled = slots[0].cc.controller().coupled_view().is_some();
        let recv = RecvStreams::new(RecvConfig { max_data: cfg.max_data, max_stream_data: cfg.max_stream_data, auto_read: true });
        let big = u64::MAX / 4;
        let mut conn = Self {
            role,
            cc_cfg: cc.clone(),
            paths: slots,
            send: SendStreams::new(cfg.max_data, cfg.max_stream_data),
            recv,
            crypto_tx: CryptoSend::new(SendStreams::new(big, big)),
            crypto_rx: RecvStreams::new(RecvConfig { max_data: big, max_stream_data: big, auto_read: true }),
            keys: !cfg.handshake,
            confirmed: !cfg.handshake,
            addr_validated: role == Role::Client || !cfg.handshake,
            amp_received: 0,
            amp_sent: 0,
            last_sent: 0,
            deadlock_backoff: 0,
            next_path_id: paths as u32,
            // With one path there is no choice to make: never ask.
            core: MultipathCore::new(sched.build_seeded(seed), sched.picks_only_choice() || paths == 1, coupled, paths),
            pending: Pending::default(),
            outcome: RecoveryOutcome::new(),
            drained: Vec::new(),
            stats: ConnStats::default(),
            quiet_until: 0,
            quiet_deadline: None,
            send_buffer: cfg.send_buffer,
            write_streams: cfg.streams.max(1),
            writes: false,
            #[cfg(test)]
            no_quiet: false,
            #[cfg(test)]
            quiet_polls: 0,
            cfg,
        };
        conn.crypto_tx.open(0);
        conn
    }

    pub fn config(&self) -> &QuicConfig {
        &self.cfg
    }

    pub fn scheduler(&self) -> &AnyScheduler {
        self.core.scheduler()
    }

    /// Set the paths' preferences (priority, backup), one entry per path slot in order (as the
    /// scenario's path specs give them; without this call path i has priority i and no path
    /// is a backup). They belong to the slot and stay when a new path is opened on it.
    pub fn set_path_prefs(&mut self, prefs: &[PathPrefs]) {
        self.quiet_until = 0;
        for (p, &q) in self.paths.iter_mut().zip(prefs) {
            p.prefs = q;
        }
    }

    pub fn is_established(&self) -> bool {
        self.keys
    }

    pub fn is_confirmed(&self) -> bool {
        self.confirmed
    }

    /// Begin at `now`: the client sends its Initial (or, without a handshake, opens its other
    /// paths).
    pub fn start(&mut self, now: Time) {
        self.quiet_until = 0;
        if self.role != Role::Client {
            return;
        }
        if self.cfg.handshake {
            self.crypto_tx.write(0, self.cfg.client_hello as u64);
        } else {
            self.stats.handshake_complete_at = Some(now);
            self.stats.handshake_confirmed_at = Some(now);
            self.paths[0].stats.opened += 1;
            self.schedule_opens(now);
        }
    }

    fn stream_id(k: u32) -> u64 {
        4 * k as u64
    }

    /// Room in the send buffer (`QuicConfig::send_buffer`): what a write may still add.
    pub fn buffer_free(&self) -> u64 {
        self.send_buffer.saturating_sub(self.send.unacked())
    }

    /// The application writes up to `bytes`, spread evenly over the configured streams, as
    /// much as the send buffer takes; returns the bytes accepted (the rest blocks the writer).
    pub fn write(&mut self, bytes: u64) -> u64 {
        self.writes = true;
        let bytes = bytes.min(self.buffer_free());
        let n = self.write_streams as u64;
        for k in 0..n {
            let share = bytes / n + (k < bytes % n) as u64;
            if share > 0 {
                self.send.write(Self::stream_id(k as u32), share);
            }
        }
        bytes
    }

    /// A greedy application: every stream always has data.
    pub fn set_unlimited(&mut self) {
        self.quiet_until = 0;
        for k in 0..self.cfg.streams.max(1) {
            self.send.write(Self::stream_id(k), UNLIMITED);
        }
    }

    /// The application is done: every stream ends with what has been written (FIN).
    pub fn finish(&mut self) {
        self.quiet_until = 0;
        for k in 0..self.cfg.streams.max(1) {
            let id = Self::stream_id(k);
            if self.send.stream(id).is_some_and(|s| !s.is_finished()) {
                self.send.finish(id);
            }
        }
    }

    /// Every stream's data and FIN are acknowledged.
    pub fn all_acked(&self) -> bool {
        !self.send.streams().is_empty() && self.send.all_done()
    }

    // ----- paths -------------------------------------------------------------------------

    fn schedule_opens(&mut self, now: Time) {
        if !self.cfg.multipath || self.role != Role::Client {
            return;
        }
        let at = now + self.cfg.path_open_delay;
        for i in 1..self.paths.len() {
            let p = &mut self.paths[i];
            if p.state == PathState::Idle && p.open_at.is_none() {
                p.open_at = Some(at);
            }
        }
    }

    fn open_path(&mut self, slot: usize) {
        let p = &mut self.paths[slot];
        p.open_at = None;
        if p.state != PathState::Idle {
            return;
        }
        // A slot opened for the first time keeps the Path ID it was created with; a reopened
        // one takes a new ID (Path IDs are never reused).
        if p.stats.opened > 0 {
            let id = self.next_path_id;
            self.next_path_id += 1;
            *p = p.successor(id, PathState::Idle, &self.cfg, &self.cc_cfg);
            p.recovery.set_handshake_confirmed(true);
        }
        let p = &mut self.paths[slot];
        p.recovery.set_handshake_confirmed(self.confirmed);
        p.state = PathState::Validating;
        p.challenge_pending = true;
        p.stats.opened += 1;
    }

    /// The interface of path `slot` went down (the path manager's event): abandon the path,
    /// queue its outstanding frames for the other paths, tell the peer.
    pub fn path_down(&mut self, slot: usize) {
        self.quiet_until = 0;
        // Single-path QUIC has nowhere to move (connection migration is not modelled): the
        // path stays, and its losses show through PTOs as for TCP.
        if !self.cfg.multipath {
            return;
        }
        self.paths[slot].open_at = None;
        if !self.paths[slot].open() {
            return;
        }
        let id = self.paths[slot].id;
        self.abandon(slot);
        self.pending.path_abandon.push(id);
    }

    /// The interface came back: the client opens a new path on the slot.
    pub fn path_up(&mut self, now: Time, slot: usize) {
        self.quiet_until = 0;
        if self.role == Role::Client
            && self.cfg.multipath
            && self.confirmed
            && matches!(self.paths[slot].state, PathState::Abandoned | PathState::Idle)
        {
            self.paths[slot].state = PathState::Idle;
            self.paths[slot].open_at = Some(now + self.cfg.path_open_delay);
        }
    }

    fn abandon(&mut self, slot: usize) {
        let p = &mut self.paths[slot];
        p.state = PathState::Abandoned;
        p.stats.abandoned += 1;
        p.probes = 0;
        p.challenge_pending = false;
        p.response_pending = false;
        let mut drained = std::mem::take(&mut self.drained);
        p.recovery.discard(&mut drained);
        let mut requeued = 0;
        for sp in drained.drain(..) {
            requeued += sp.frames.stream_bytes();
            self.requeue(&sp.frames);
        }
        self.paths[slot].stats.bytes_requeued += requeued;
        self.drained = drained;
    }

    fn slot_of(&self, path_id: u32) -> Option<usize> {
        self.paths.iter().position(|p| p.id == path_id)
    }

    // ----- receiving ---------------------------------------------------------------------

    /// A packet arrived on path slot `slot`. Returns the STREAM bytes newly delivered in order
    /// to the application.
    pub fn on_packet(&mut self, now: Time, slot: usize, pkt: &WirePacket) -> u64 {
        self.quiet_until = 0;
        if !self.accept_path(slot, pkt.path_id) {
            self.stats.packets_ignored += 1;
            return 0;
        }
        let ack_eliciting = pkt.is_ack_eliciting();
        let p = &mut self.paths[slot];
        if p.acks.on_packet_received(now, pkt.pn, ack_eliciting) == super::Received::Duplicate {
            self.stats.packets_ignored += 1;
            return 0;
        }
        p.stats.packets_received += 1;
        self.amp_received += pkt.udp_payload as u64;
        for a in pkt.acks() {
            if let Some(j) = self.slot_of(a.path_id) {
                self.on_ack_frame(now, j, &a.frame.ranges, a.frame.ack_delay);
            }
        }
        let f = &pkt.frames;
        if let Some(c) = f.crypto() {
            self.on_crypto(now, c);
        }
        // A peer sends STREAM frames only with 1-RTT keys, which the server has from its own
        // flight on: the frames are taken even if the client's Finished is still missing
        // (RFC 9001 §5.7 lets the server buffer them; here they are delivered at once).
        let mut delivered = 0;
        for s in &f.stream {
            match self.recv.on_frame(s) {
                Ok(n) => delivered += n,
                Err(_) => self.stats.protocol_errors += 1,
            }
        }
        if let Some(r) = f.rare() {
            if let Some(m) = r.max_data {
                self.send.on_max_data(m);
            }
            for &(id, m) in &r.max_stream_data {
                self.send.on_max_stream_data(id, m);
            }
        }
        if f.handshake_done && self.role == Role::Client && !self.confirmed {
            self.confirm(now);
        }
        if f.path_challenge {
            self.paths[slot].response_pending = true;
        }
        if f.path_response && self.paths[slot].state == PathState::Validating && self.keys {
            let p = &mut self.paths[slot];
            p.state = PathState::Active;
            p.validated_at = Some(now);
        }
        if let Some(id) = f.rare().and_then(|r| r.path_abandon) {
            if let Some(j) = self.slot_of(id) {
                if self.paths[j].open() {
                    self.abandon(j);
                    self.pending.path_abandon.push(id);
                }
            }
        }
        if delivered > 0 || !f.stream.is_empty() {
            if let Some(m) = self.recv.take_max_data() {
                self.pending.max_data = Some(m);
            }
            self.recv.take_max_stream_data(&mut self.pending.max_stream_data);
        }
        delivered
    }

    /// Is a packet of `path_id` on `slot` for us? A higher Path ID on a slot is a new path the
    /// peer opened there (the server follows the client); lower ones are stale.
    fn accept_path(&mut self, slot: usize, path_id: u32) -> bool {
        let Some(p) = self.paths.get(slot) else { return false };
        if path_id == p.id {
            if p.state == PathState::Idle && self.role == Role::Server {
                // The client's first packet on a new path (its PATH_CHALLENGE).
                self.paths[slot].state = PathState::Active;
                self.paths[slot].recovery.set_handshake_confirmed(self.confirmed);
                self.paths[slot].stats.opened += 1;
                return true;
            }
            return p.state != PathState::Abandoned;
        }
        if path_id < p.id || self.role != Role::Server {
            return false;
        }
        let mut fresh = p.successor(path_id, PathState::Active, &self.cfg, &self.cc_cfg);
        fresh.recovery.set_handshake_confirmed(self.confirmed);
        fresh.stats.opened += 1;
        self.paths[slot] = fresh;
        true
    }

    fn on_crypto(&mut self, now: Time, c: &StreamFrame) {
        if self.crypto_rx.on_frame(c).is_err() {
            self.stats.protocol_errors += 1;
            return;
        }
        let got = self.crypto_rx.stream(0).map_or(0, |s| s.delivered());
        match self.role {
            Role::Server => {
                let hello = self.cfg.client_hello as u64;
                if got >= hello && self.crypto_tx.streams.stream(0).is_some_and(|s| s.written() == 0) {
                    self.crypto_tx.write(0, self.cfg.server_flight as u64);
                }
                if !self.keys && got >= hello + self.cfg.client_finished as u64 {
                    // The client's Finished: handshake complete and confirmed (RFC 9001 §4.1.2).
                    self.keys = true;
                    self.addr_validated = true;
                    self.stats.handshake_complete_at = Some(now);
                    self.pending.handshake_done = true;
                    self.confirm(now);
                }
            }
            Role::Client => {
                if !self.keys && got >= self.cfg.server_flight as u64 {
                    self.keys = true;
                    self.stats.handshake_complete_at = Some(now);
                    self.paths[0].state = PathState::Active;
                    self.paths[0].validated_at = Some(now);
                    self.paths[0].stats.opened += 1;
                    self.crypto_tx.write(0, self.cfg.client_finished as u64);
                }
            }
        }
    }

    fn confirm(&mut self, now: Time) {
        self.confirmed = true;
        self.stats.handshake_confirmed_at = Some(now);
        for p in &mut self.paths {
            p.recovery.set_handshake_confirmed(true);
        }
        self.schedule_opens(now);
    }

    /// Hand every path's coupling view to the controller of path `i` (coupled controllers).
    #[inline]
    fn couple(&mut self, i: usize) {
        self.core.couple(&mut self.paths, i);
    }

    fn on_ack_frame(&mut self, now: Time, j: usize, ranges: &[(u64, u64)], ack_delay: Time) {
        if !self.paths[j].open() {
            return;
        }
        let mut out = std::mem::take(&mut self.outcome);
        if self.paths[j].recovery.on_ack_received(now, ranges, ack_delay, &mut out).is_err() {
            self.stats.invalid_acks += 1;
            self.outcome = out;
            return;
        }
        if !out.acked.is_empty() {
            self.paths[j].failed = false;
            self.paths[j].probes = 0;
        }
        self.apply_outcome(now, j, &mut out);
        self.outcome = out;
    }

    /// Feed a recovery outcome of path `j` to its controller and to the frames' owners.
    fn apply_outcome(&mut self, now: Time, j: usize, out: &mut RecoveryOutcome<SentFrames>) {
        self.couple(j);
        let p = &mut self.paths[j];
        p.cc.on_outcome(now, out, p.recovery.rtt());
        p.stats.packets_lost += out.lost.len() as u64;
        p.stats.bytes_lost += out.bytes_lost;
        // By reference: a record is large, and moving each out of the list costs a copy.
        // Frames that continue each other (packets sent back to back on one path) are marked
        // acknowledged as one run.
        let mut run: Option<StreamFrame> = None;
        for sp in &out.acked {
            let f = &sp.frames;
            for s in &f.stream {
                match &mut run {
                    Some(r) if r.stream == s.stream && r.end() == s.offset => {
                        r.len += s.len;
                        r.fin = s.fin;
                    }
                    _ => {
                        if let Some(r) = run.replace(*s) {
                            self.send.on_acked(&r);
                        }
                    }
                }
            }
            let Some(r) = f.rare() else { continue };
            for &(id, largest) in &r.ack_largest {
                if let Some(k) = self.slot_of(id) {
                    self.paths[k].acks.on_ack_frame_acked(largest);
                }
            }
            if let Some(c) = &r.crypto {
                self.crypto_tx.on_acked(c);
            }
        }
        if let Some(r) = run {
            self.send.on_acked(&r);
        }
        out.acked.clear();
        for sp in std::mem::take(&mut out.lost) {
            self.requeue(&sp.frames);
        }
    }

    /// RFC 9000 §13.3: the information of a lost (or stranded) packet is sent again in new
    /// frames where it still matters.
    fn requeue(&mut self, f: &Frames) {
        for s in &f.stream {
            self.send.on_lost(s);
        }
        if f.handshake_done {
            self.pending.handshake_done = true;
        }
        if let Some(r) = f.rare() {
            if let Some(c) = &r.crypto {
                self.crypto_tx.on_lost(c);
            }
            if let Some(m) = r.max_data {
                self.recv.on_max_data_lost(m);
                if let Some(m) = self.recv.take_max_data() {
                    self.pending.max_data = Some(m);
                }
            }
            for &(id, m) in &r.max_stream_data {
                self.recv.on_max_stream_data_lost(id, m);
            }
            self.recv.take_max_stream_data(&mut self.pending.max_stream_data);
            if let Some(id) = r.path_abandon {
                self.pending.path_abandon.push(id);
            }
        }
        if f.path_challenge {
            if let Some(p) = self.paths.iter_mut().find(|p| p.state == PathState::Validating) {
                p.challenge_pending = true;
            }
        }
    }

    // ----- timers ------------------------------------------------------------------------

    /// The earliest time `on_timeout` has something to do.
    pub fn deadline(&self, now: Time) -> Option<Time> {
        let sending = self.send.can_send();
        let d = self.paths.iter().fold(Time::MAX, |d, p| d.min(slot_deadline(p, now, sending)));
        self.with_anti_deadlock(d)
    }

    /// `d` (Time::MAX for none) or the anti-deadlock PTO if earlier, as an Option.
    fn with_anti_deadlock(&self, d: Time) -> Option<Time> {
        let d = d.min(self.anti_deadlock_deadline().unwrap_or(Time::MAX));
        (d != Time::MAX).then_some(d)
    }

    fn anti_deadlock_deadline(&self) -> Option<Time> {
        let p = &self.paths[0];
        // `keys` first: once the handshake is done nothing else is read (the configuration sits
        // on a line of its own that an idle poll would otherwise visit).
        let waiting = !self.keys && self.role == Role::Client && self.cfg.handshake && p.recovery.ack_eliciting_in_flight() == 0;
        waiting.then(|| self.last_sent + p.recovery.pto_period().saturating_mul(1 << self.deadlock_backoff.min(20)))
    }

    /// Run what is due at `now`: loss-detection timers (time-threshold losses, PTOs), path
    /// openings. ACKs due are sent by the next `poll`.
    pub fn on_timeout(&mut self, now: Time) {
        self.quiet_until = 0;
        if self.anti_deadlock_deadline().is_some_and(|t| t <= now) {
            self.deadlock_backoff += 1;
            self.paths[0].probes = 1;
            self.paths[0].stats.ptos += 1;
        }
        for i in 0..self.paths.len() {
            if self.paths[i].open_at.is_some_and(|t| t <= now) {
                self.open_path(i);
            }
            if !self.paths[i].open() || self.paths[i].recovery.loss_detection_deadline().is_none_or(|t| t > now) {
                continue;
            }
            let mut out = std::mem::take(&mut self.outcome);
            match self.paths[i].recovery.on_loss_detection_timeout(now, &mut out) {
                Timeout::NotDue => {}
                Timeout::Lost => self.apply_outcome(now, i, &mut out),
                Timeout::Probe(n) => self.on_pto(i, n),
            }
            self.outcome = out;
        }
    }

    fn on_pto(&mut self, i: usize, n: u8) {
        let p = &mut self.paths[i];
        p.probes = n;
        p.stats.ptos += 1;
        if p.state == PathState::Validating && self.keys {
            p.challenge_pending = true;
        }
        // Outstanding handshake data goes into the probe (RFC 9002 §6.2.4).
        let crypto: Vec<StreamFrame> = p.recovery.sent_packets().outstanding_frames().filter_map(|f| f.crypto().copied()).collect();
        for c in &crypto {
            self.crypto_tx.on_lost(c);
        }
        let p = &self.paths[i];
        let others = self.paths.iter().enumerate().any(|(k, q)| k != i && q.usable());
        if self.cfg.multipath && others && !p.failed && p.state == PathState::Active && p.recovery.pto_count() >= self.cfg.failure_ptos {
            let stranded: Vec<StreamFrame> =
                p.recovery.sent_packets().outstanding_frames().flat_map(|f| f.stream.iter().copied()).collect();
            let p = &mut self.paths[i];
            p.failed = true;
            p.stats.failures += 1;
            p.stats.bytes_requeued += stranded.iter().map(|f| f.len).sum::<u64>();
            for s in &stranded {
                self.send.on_lost(s);
            }
        }
    }

    // ----- sending -----------------------------------------------------------------------

    /// The next packet to send now, written into `buf` (overwritten; left as it was when nothing
    /// is sent), and the path slot it goes on. Call until `Idle`: the poll that finds nothing
    /// tells each controller what limited the sending (RFC 9002 §7.8) and returns `deadline()`,
    /// in one pass over the paths.
    pub fn poll(&mut self, now: Time, buf: &mut WirePacket) -> Transmit {
        if now < self.quiet_until {
            return Transmit::Idle(self.quiet_poll(now));
        }
        // Whether the streams have data to send: asked once, since a poll that sends nothing
        // changes nothing the answer depends on.
        let sending = self.send.can_send();
        match self.next_packet(now, buf, sending) {
            Some(slot) => Transmit::Packet(slot),
            None => Transmit::Idle(self.idle(now, sending)),
        }
    }

    /// As `poll`, without the deadline.
    pub fn poll_transmit(&mut self, now: Time, buf: &mut WirePacket) -> Option<usize> {
        match self.poll(now, buf) {
            Transmit::Packet(slot) => Some(slot),
            Transmit::Idle(_) => None,
        }
    }

    /// Nothing more can be sent now: tell each controller whether the window or the application
    /// was the limit (RFC 9002 §7.8), and return `deadline()`. For an application that writes,
    /// also how long the polls after its writes may skip all this (`quiet_poll`).
    fn idle(&mut self, now: Time, sending: bool) -> Option<Time> {
        let waiting = self.keys && sending;
        let size = self.cfg.max_udp_payload;
        let mut d = Time::MAX;
        for p in self.paths.iter_mut() {
            if p.usable() {
                if waiting && !p.has_space(now, size) {
                    p.cc.on_cwnd_limited();
                } else if !waiting {
                    p.cc.on_app_limited(p.recovery.bytes_in_flight());
                }
            }
            d = d.min(slot_deadline(p, now, sending));
        }
        let deadline = self.with_anti_deadlock(d);
        // Without writes (a greedy application) `quiet_until` stays in the past: this poll ran
        // at or after it.
        if self.writes && sending {
            self.note_quiet(now, waiting, deadline);
        }
        deadline
    }

    /// A poll at `now` found nothing to send while the streams had data (`waiting`: with 1-RTT
    /// keys): until when a poll with only writes since finds the same (`quiet_poll`). Until
    /// the deadline, or an earlier time at which an unusable path may change the outcome; not
    /// at all if a usable path had room (the scheduler's choice to wait reads the amount of
    /// data). Out of line: greedy applications never come here.
    #[inline(never)]
    fn note_quiet(&mut self, now: Time, waiting: bool, deadline: Option<Time>) {
        let size = self.cfg.max_udp_payload;
        let mut until = deadline.unwrap_or(Time::MAX);
        for p in &self.paths {
            if !p.usable() {
                until = until.min(unusable_changes(p, now));
            } else if waiting && p.has_space(now, size) {
                until = 0;
                break;
            }
        }
        #[cfg(test)]
        if self.no_quiet {
            until = 0;
        }
        self.quiet_until = until;
        self.quiet_deadline = deadline;
    }

    /// A poll before `quiet_until`, with no input but writes since the last poll, which found
    /// nothing to send while the streams had data (with 1-RTT keys, because no usable path had
    /// window or pacing room; without them STREAM data cannot go anyway). It would find the
    /// same, so it returns the last deadline and changes nothing:
    /// - writes only add data: the streams still have data to send, and nothing else a poll
    ///   reads has changed (windows, bytes in flight, pacers, amplification credit, frames
    ///   owed, probes, ACK duties change only on packets, timeouts, path events and sending);
    /// - `now` is still before every pacer release and ACK duty ahead at the last poll and
    ///   before its deadline: no usable path has room, so the scheduler is not asked (no path,
    ///   `Shortcut::Nowhere`) nor a control path found, path 0 still holds back CRYPTO data it
    ///   held back, no ACK has fallen due;
    /// - the idle hooks would repeat what the last poll told each usable path's controller
    ///   (RFC 9002 §7.8: `on_cwnd_limited`, or `on_app_limited` with the same bytes in flight
    ///   and delivered bytes), and `slot_deadline` reads `now` only against pacer releases
    ///   still ahead, so the deadline is the last one.
    #[inline]
    fn quiet_poll(&mut self, now: Time) -> Option<Time> {
        debug_assert!(self.send.can_send(), "a quiet poll without data waiting");
        debug_assert!(
            !self.keys || self.paths.iter().all(|p| !p.usable() || !p.has_space(now, self.cfg.max_udp_payload)),
            "a quiet poll with room on a path"
        );
        debug_assert_eq!(self.deadline(now), self.quiet_deadline, "a quiet poll's deadline out of date");
        #[cfg(test)]
        {
            self.quiet_polls += 1;
        }
        self.quiet_deadline
    }

    /// Tests: every poll does the full work.
    #[cfg(test)]
    pub fn disable_quiet_polls(&mut self) {
        self.no_quiet = true;
        self.quiet_until = 0;
    }

    /// `sending`: the streams have data to send (`SendStreams::can_send`).
    fn next_packet(&mut self, now: Time, buf: &mut WirePacket, sending: bool) -> Option<usize> {
        // 1. Path-specific frames: challenges, responses, PTO probes.
        for i in 0..self.paths.len() {
            let p = &self.paths[i];
            // Nothing path-specific owed (the common case) in one test, without the keys or the
            // amplification credit.
            if !(p.challenge_pending | p.response_pending | (p.probes > 0)) || !p.open() {
                continue;
            }
            if ((p.challenge_pending && self.keys) || p.response_pending) && self.amplification_allows(MIN_INITIAL_UDP_PAYLOAD) {
                return self.build(now, i, buf, Kind::Validation);
            }
            if p.probes > 0 && self.amplification_allows(MIN_PACKET_BYTES) {
                return self.build(now, i, buf, Kind::Probe);
            }
        }
        // 2. Ack-eliciting data and control frames, congestion controlled.
        let crypto = self.crypto_tx.can_send();
        let stream = self.keys && sending;
        let control = self.keys && self.pending.any();
        if crypto || stream || control {
            let size = self.cfg.max_udp_payload;
            let (target, with_stream) = if crypto && !self.keys {
                // Handshake flights go on path 0.
                (self.paths[0].has_space(now, size).then_some(0), false)
            } else {
                match stream.then(|| self.schedule(now, size)).flatten() {
                    Some(i) => (Some(i), true),
                    // The scheduler waits (or nothing has room): control frames still go.
                    None if control || crypto => (self.control_path(now, size), false),
                    None => (None, false),
                }
            };
            if let Some(i) = target {
                if self.amplification_allows(MIN_PACKET_BYTES) {
                    let kind = if with_stream { Kind::Data } else { Kind::Control };
                    return self.build(now, i, buf, kind);
                }
            }
        }
        // 3. ACKs that are due.
        for i in 0..self.paths.len() {
            let p = &self.paths[i];
            if p.state == PathState::Idle || p.acks.deadline().is_none_or(|t| t > now) {
                continue;
            }
            let on = if p.open() { Some(i) } else { self.control_path(now, 0).or_else(|| self.paths.iter().position(|q| q.open())) };
            match on {
                Some(k) if self.amplification_allows(MIN_PACKET_BYTES) => return self.build(now, k, buf, Kind::AckOnly),
                _ => self.paths[i].acks.on_ack_sent(), // no way to send it: drop the duty
            }
        }
        None
    }

    /// RFC 9000 §8.1: bytes the server may still send before the client's address is
    /// validated (three times what it received).
    fn amplification_credit(&self) -> u64 {
        if self.addr_validated {
            u64::MAX
        } else {
            (3 * self.amp_received).saturating_sub(self.amp_sent)
        }
    }

    fn amplification_allows(&self, size: u32) -> bool {
        self.amplification_credit() >= size as u64
    }

    /// A usable path with space for control frames: the lowest SRTT.
    fn control_path(&self, now: Time, size: u32) -> Option<usize> {
        self.paths
            .iter()
            .enumerate()
            .filter(|(_, p)| p.usable() && (size == 0 || p.has_space(now, size)))
            .min_by_key(|(i, p)| (p.srtt(), *i))
            .map(|(i, _)| i)
    }

    /// Ask the scheduler where the next packet of STREAM data goes.
    fn schedule(&mut self, now: Time, size: u32) -> Option<usize> {
        match self.core.shortcut(&self.paths, |p| p.has_space(now, size)) {
            Shortcut::Nowhere => return None,
            Shortcut::Only(i) => return Some(i),
            Shortcut::Ask => {}
        }
        let conn = self.conn_view(now, size);
        let mss = self.cfg.max_udp_payload;
        let decision = self.core.select(&conn, &self.paths, |p, usable| path_view(p, usable, now, size, mss));
        let paths = &self.paths;
        MultipathCore::placement(decision, paths.len(), |i| paths[i].usable() && paths[i].has_space(now, size)).first()
    }

    fn conn_view(&self, now: Time, size: u32) -> ConnView {
        let credit = self.send.conn_credit();
        let (mut unsent, mut unacked, mut lost) = (0u64, 0u64, 0u64);
        for s in self.send.streams() {
            unsent += s.written() - s.sent();
            unacked += s.sent().saturating_sub(s.acked().bytes());
            lost += s.lost().bytes();
        }
        ConnView {
            now,
            unsent: unsent.min(credit.available()) + lost,
            window_space: credit.available(),
            unacked,
            send_buffer: self.cfg.max_data,
            chunk: size,
        }
    }

    /// Assemble one packet on path `i`.
    fn build(&mut self, now: Time, i: usize, buf: &mut WirePacket, kind: Kind) -> Option<usize> {
        let multipath = self.cfg.multipath;
        let cid = self.cfg.cid_len;
        let pn = self.paths[i].next_pn;
        let pn_len = wire::packet_number_len(pn, self.paths[i].recovery.largest_acked());
        buf.clear_header_and_acks();
        buf.path_id = self.paths[i].id;
        buf.pn = pn;
        let mut frames = Frames::default();
        let mut acks_carried: SmallVec<[(u32, u64); 2]> = SmallVec::new();
        let mut limit = ((self.cfg.max_udp_payload as u64).min(self.amplification_credit()) as u32).saturating_sub(AEAD_TAG_BYTES);
        if kind == Kind::Data {
            // seed 002 eq. 8: the controller's packet size (UDP payload), at least 200 B.
            if let Some(s) = self.paths[i].cc.controller().packet_size() {
                limit = limit.min(s.max(200) - AEAD_TAG_BYTES);
            }
        }
        // ACKs owed on any path: this path's own first (ACK-only packets carry every due ACK).
        let mut acks_len = 0;
        // Encoded control, CRYPTO and STREAM frames (set below for each kind of packet), and
        // the STREAM payload, as they are added.
        let mut frames_len: u32;
        let mut stream_bytes = 0;
        for j in 0..self.paths.len() {
            // Path i first, then the others in order.
            let k = if j == 0 {
                i
            } else if j <= i {
                j - 1
            } else {
                j
            };
            let p = &self.paths[k];
            let owed = match p.acks.deadline() {
                Some(t) => k == i || t <= now || !self.paths[k].open(),
                None => false,
            };
            if !owed {
                continue;
            }
            let a = buf.push_ack();
            a.path_id = p.id;
            if !p.acks.ack_frame(now, &mut a.frame) {
                buf.pop_ack();
                continue;
            }
            let a = buf.acks().last().expect("pushed above");
            acks_len += a.len(multipath);
            acks_carried.push((a.path_id, a.frame.largest().expect("a frame has ranges")));
            self.paths[k].acks.on_ack_sent();
        }
        let p = &mut self.paths[i];
        match kind {
            Kind::Validation => {
                frames.path_challenge = p.challenge_pending && self.keys;
                frames.path_response = p.response_pending;
                p.challenge_pending = false;
                p.response_pending = false;
            }
            Kind::Probe => {
                p.probes -= 1;
                if p.state == PathState::Validating && self.keys {
                    frames.path_challenge = true;
                }
            }
            Kind::AckOnly => {
                // RFC 9000 §13.2.4: a receiver that only acknowledges gets no ACK of its ACKs
                // and would report old ranges for ever; a PING about once per round trip
                // (none in flight, an SRTT since the last) lets it stop reporting them.
                let last = p.recovery.sent_packets().time_of_last_ack_eliciting();
                let quiet = p.recovery.ack_eliciting_in_flight() == 0 && last.is_none_or(|t| now >= t + p.srtt());
                frames.ping = self.keys && p.state == PathState::Active && !acks_carried.is_empty() && quiet;
            }
            Kind::Data | Kind::Control => {}
        }
        if kind != Kind::AckOnly {
            // Control frames that may go on any path (not on a path being validated).
            if self.keys && self.paths[i].state == PathState::Active {
                frames.handshake_done = std::mem::take(&mut self.pending.handshake_done);
                if self.pending.has_rare() {
                    let r = frames.rare_mut();
                    r.max_data = self.pending.max_data.take();
                    r.max_stream_data.extend(self.pending.max_stream_data.drain(..));
                    r.path_abandon = self.pending.path_abandon.pop();
                }
                if let Some(b) = self.send.take_data_blocked() {
                    frames.rare_mut().data_blocked = Some(b);
                }
            }
            let crypto = self.crypto_tx.can_send();
            let header = if crypto { wire::long_header_len(cid, pn_len) } else { wire::short_header_len(cid, pn_len) };
            frames_len = wire::control_frames_len(&frames, multipath);
            let mut room = limit.saturating_sub(header + acks_len + frames_len);
            if kind != Kind::Validation && crypto && room > 8 {
                if let Some(c) = self.crypto_tx.next_chunk((room - 8) as u64) {
                    let n = wire::crypto_frame_len(&c);
                    room -= n;
                    frames_len += n;
                    frames.rare_mut().crypto = Some(c);
                }
            }
            let on_data_path = match kind {
                Kind::Data => true,
                Kind::Probe => self.keys && self.paths[i].state == PathState::Active && !self.paths[i].failed,
                _ => false,
            };
            while on_data_path && room > STREAM_HEADER_BUDGET + 4 {
                let Some(s) = self.send.next_chunk((room - STREAM_HEADER_BUDGET) as u64) else { break };
                let n = wire::stream_frame_len(&s);
                debug_assert!(n <= room, "a STREAM frame overran the packet");
                room = room.saturating_sub(n);
                frames_len += n;
                stream_bytes += s.len;
                frames.stream.push(s);
            }
            if kind == Kind::Probe && !frames.is_ack_eliciting() {
                frames.ping = true;
                frames_len += 1; // a PING frame is its type byte
            }
        } else {
            frames_len = wire::control_frames_len(&frames, multipath); // a PING at most
        }
        // Sizes: header, ACKs, frames, padding, AEAD tag.
        buf.long_header = frames.crypto().is_some();
        let header = if buf.long_header { wire::long_header_len(cid, pn_len) } else { wire::short_header_len(cid, pn_len) };
        let mut payload = header + acks_len + frames_len + AEAD_TAG_BYTES;
        // RFC 9000 §14.1: every datagram of a client before it has 1-RTT keys carries an
        // Initial and is padded (ACK-only ones included, which then count in flight).
        let pad = (self.role == Role::Client && !self.keys) || frames.path_challenge || frames.path_response;
        if pad {
            payload = payload.max(MIN_INITIAL_UDP_PAYLOAD);
        }
        buf.udp_payload = payload;
        let ack_eliciting = frames.is_ack_eliciting();
        let in_flight = ack_eliciting || pad;
        let p = &mut self.paths[i];
        p.next_pn += 1;
        p.stats.packets_sent += 1;
        p.stats.bytes_sent += payload as u64;
        if !frames.stream.is_empty() {
            p.stats.data_packets_sent += 1;
            p.stats.stream_bytes_sent += stream_bytes;
        }
        if !ack_eliciting {
            p.stats.ack_only_sent += 1;
        }
        self.amp_sent += payload as u64;
        self.last_sent = now;
        let before = p.recovery.bytes_in_flight();
        p.cc.on_packet_sent(now, pn, payload, in_flight, before);
        if in_flight {
            p.on_paced(now, payload);
        }
        if (ack_eliciting || in_flight) && !acks_carried.is_empty() {
            frames.rare_mut().ack_largest = acks_carried;
        }
        buf.frames.clone_from(&frames);
        // A packet that is neither ack-eliciting nor in flight (ACK-only) is not tracked: the
        // peer never has to acknowledge it, so its record would only wait for a loss
        // declaration that may never come (RFC 9002 §2 leaves it out of congestion control
        // and PTO; its packet number still advances).
        if ack_eliciting || in_flight {
            p.recovery.on_packet_sent(now, pn, payload, ack_eliciting, in_flight, frames);
        } else {
            p.recovery.on_untracked_packet_sent(pn);
        }
        self.stats.stream_bytes_retransmitted = self.send.stats.retransmitted_bytes;
        debug_assert!(
            buf.udp_payload <= self.cfg.max_udp_payload.max(MIN_INITIAL_UDP_PAYLOAD),
            "{kind:?} packet of {} B: {buf:?}",
            buf.udp_payload
        );
        Some(i)
    }
}

/// What the scheduler sees of path `p` for a packet of `size` bytes (`usable` as the core found
/// it; `mss`: the largest UDP payload).
#[inline]
fn path_view(p: &QuicPath, usable: bool, now: Time, size: u32, mss: u32) -> PathView {
    let rtt = p.recovery.rtt();
    let srtt = p.srtt();
    let cwnd = p.cc.window();
    let rate = p.cc.pacing_rate().unwrap_or(if srtt > 0 { (cwnd as u128 * 1_000_000_000 / srtt as u128) as u64 } else { 0 });
    PathView {
        has_space: usable && p.has_space(now, size),
        // A QUIC path has no send queue of its own: frames are chosen when a packet is built.
        can_queue: false,
        srtt,
        rttvar: if rtt.has_sample() { rtt.rttvar() } else { 0 },
        min_rtt: if rtt.has_sample() { rtt.min_rtt() } else { 0 },
        cwnd,
        in_flight: p.recovery.bytes_in_flight(),
        queued: 0,
        pacing_rate: rate,
        mss,
        segments_sent: p.stats.data_packets_sent,
        retransmissions: p.stats.packets_lost,
        bytes_acked: p.recovery.acked_total(),
        bytes_sent: p.stats.stream_bytes_sent,
        packets_lost: p.stats.packets_lost,
        bytes_lost: p.stats.bytes_lost,
        // Set by the core: index, usability, preferences.
        ..PathView::default()
    }
}

/// What a poll found: a packet to send on a path slot, or nothing until the deadline (see
/// `QuicConn::poll`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transmit {
    /// A packet was written into the buffer; it goes on this path slot.
    Packet(usize),
    /// Nothing to send now; `on_timeout` is due at the deadline, if any.
    Idle(Option<Time>),
}

/// The earliest timer of a path slot (Time::MAX for none): the slot's opening (`open_at`), and
/// for an open path its loss detection, its ACK duty, and the pacer's release for a sender with
/// data (`sending`). Time::MAX stands for "none" so that a minimum over paths needs no branches
/// (an endpoint's timers change from call to call in ways a branch predictor cannot follow).
fn slot_deadline(p: &QuicPath, now: Time, sending: bool) -> Time {
    let open_at = p.open_at.unwrap_or(Time::MAX);
    if !p.open() {
        return open_at;
    }
    let d = open_at.min(p.recovery.loss_detection_deadline().unwrap_or(Time::MAX)).min(p.acks.deadline().unwrap_or(Time::MAX));
    // Window-based controllers never pace: next_send stays in the past.
    if p.next_send > now && p.usable() && sending {
        d.min(p.next_send)
    } else {
        d
    }
}

/// When a poll's outcome may change through an unusable path by the mere passing of time,
/// though it is no timer of the path's (`slot_deadline`): its pacer's release (path 0's holds
/// back CRYPTO data before the handshake), and when abandoned, its ACK duty (the ACK then goes
/// on another path). Time::MAX for never. A usable path's pacer release is in its deadline when
/// the streams have data.
fn unusable_changes(p: &QuicPath, now: Time) -> Time {
    let pacer = if p.next_send > now { p.next_send } else { Time::MAX };
    let acks = if p.state == PathState::Abandoned { p.acks.deadline().unwrap_or(Time::MAX) } else { Time::MAX };
    pacer.min(acks)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// PATH_CHALLENGE / PATH_RESPONSE on the path.
    Validation,
    /// A PTO probe: ack-eliciting whatever the window says.
    Probe,
    /// STREAM data where the scheduler put it, with whatever else is owed.
    Data,
    /// Control and CRYPTO frames, no STREAM data.
    Control,
    AckOnly,
}
