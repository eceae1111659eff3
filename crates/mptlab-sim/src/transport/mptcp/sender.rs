//! The sending side of an MPTCP connection (RFC 8684): a connection-level send buffer and data
//! sequence space, subflows that are the project's TCP senders, a scheduler that places each
//! chunk (≤ 1 MSS) of connection data on a subflow, data-level ACKs and flow control, and
//! reinjection of data stranded on a failed subflow.
//!
//! - Scheduling: whenever something may have changed (a write, an ACK on any subflow, a timer,
//!   a join) the connection offers its next chunk to the scheduler with read-only path views
//!   and places it where the scheduler says, until the scheduler waits, the data runs out or
//!   the connection-level window is exhausted. Reinjected chunks go before new data.
//! - With the `default` scheduler's kernel model (`sched/linger.rs`), a subflow may hold
//!   data up to its autotuned send buffer, as Linux's push path fills `sk_wmem_queued` up to
//!   `sk_sndbuf` (`__subflow_push_pending`): `PathView::can_queue` then means "memory free"
//!   (`sk_stream_memory_free`), and `PathView::pacing_rate` is Linux's `sk_pacing_rate`
//!   (`tcp_update_pacing_rate`). The send buffer follows the largest window the subflow has
//!   had (`tcp_sndbuf_expand`; interpretation in `sched/linger.rs`).
//! - Subflows run their own congestion control, RTT estimation and loss recovery; their receive
//!   window is not used (RFC 8684 §3.3.4: flow control is connection-level, relative to
//!   DATA_ACK), so the connection replaces it on every ACK before the subflow sees it.
//! - Reinjection (Linux `__mptcp_retrans`, out-of-tree `mptcp_reinject_data`): when a subflow's
//!   retransmission timer fires, it is marked potentially failed (not scheduled until it gets an
//!   ACK again) and the data it holds unacknowledged is queued for the other subflows.
//! - Opportunistic retransmission and penalisation (Raiciu et al., "How hard can it be?
//!   Designing and implementing a deployable multipath TCP", NSDI 2012, §4.2), optional: when
//!   the connection-level window blocks new data, the chunk at DATA_ACK is resent on a subflow
//!   with room, and the subflow holding it has its window reduced, at most once per its SRTT.
//! - Close: with a finite application the connection is closed when DATA_ACK covers every byte
//!   written (the DATA_FIN exchange is folded into that ACK).
//! - Protocol delay (seed 001 eq. 2–6, measured directly): per application write (per chunk for
//!   a greedy sender, whose data is handed over when the scheduler takes it), the time from the
//!   hand-over to the DATA_ACK that covers it. The per-path delay T_i of eqs. (1), (2), (8) (the
//!   acknowledgment received on the chunk's own path) is `hol.rs`'s `PathDelays`.

use super::config::{MptcpConfig, INLINE_SUBFLOWS};
use super::hol::PathDelays;
use super::mapping::{Mapping, Mappings};
use crate::cc::{AnyCc, CongestionControl, SubflowCcView};
use crate::metrics::LogHistogram;
use crate::sched::linger::{autotuned_sndbuf, max_held_below, wmem_queued};
use crate::sched::{AnyScheduler, ConnView, Decision, PathModel, PathView};
use crate::transport::multipath::{MultipathCore, MultipathPath, PathPrefs, Placement, Shortcut};
use crate::transport::segment::TcpHeader;
use crate::transport::tcp::{TcpConfig, TcpSender};
use mptlab_engine::time::SECOND;
use mptlab_engine::Time;
use smallvec::SmallVec;
use std::collections::VecDeque;

/// The window a subflow sees in every ACK: never the limit (flow control is connection-level).
const SUBFLOW_WINDOW: u64 = u64::MAX / 4;
/// Linux `tcp_wmem[0]` and `tcp_wmem[1]` defaults (kernel model of the `default` scheduler).
const TCP_WMEM_MIN: u64 = 4096;
const TCP_WMEM_DEFAULT: u64 = 16_384;
/// Bytes that may wait in a subflow's own queue beyond its window (schedulers that queue).
const QUEUE_LIMIT_SEGMENTS: u64 = 2;

/// A header one subflow wants sent.
#[derive(Clone, Copy, Debug)]
pub struct MpSeg {
    pub sub: u16,
    pub hdr: TcpHeader,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SubState {
    /// Not opened yet (waiting for its join) or waiting to be re-created.
    Idle,
    Active,
    /// Closed by the path manager (its interface went down).
    Closed,
}

#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct SubflowStats {
    /// Connection bytes placed on this subflow (new data and reinjections).
    pub bytes_scheduled: u64,
    pub chunks_scheduled: u64,
    /// Chunks reinjected onto this subflow from another one.
    pub chunks_reinjected: u64,
    /// Times this subflow was penalised (Raiciu et al.).
    pub penalties: u64,
    /// Times the subflow was opened (first join and re-creations).
    pub opened: u64,
    pub closed: u64,
}

// Laid out by hand: what every offer reads of a subflow (usable, send buffer room) is its own
// state, `pf` and send buffer, and the sender's state, SND.UNA and write end. The first three
// follow the sender, so they share its last cache line, where rustc currently puts the
// sender's state.
#[repr(C, align(64))]
pub struct Subflow {
    pub snd: TcpSender,
    pub state: SubState,
    /// Potentially failed: hit a retransmission timeout and has not been acknowledged since.
    pub pf: bool,
    pub backup: bool,
    /// Incarnation: bumped when the path manager closes the subflow, so that packets of an old
    /// incarnation still in the network are ignored.
    pub epoch: u8,
    pub priority: u32,
    /// Its send buffer in the kernel model, `autotuned_sndbuf` of `max_cwnd` (kept, not
    /// recomputed: the connection reads it for every chunk).
    sndbuf: u64,
    /// The most bytes it may hold with its memory free (`max_held_below` of `sndbuf`), set
    /// with it.
    free_held: Option<u64>,
    /// Largest congestion window (bytes) this incarnation has had: sizes its send buffer in
    /// the kernel model (`tcp_sndbuf_expand`).
    max_cwnd: u64,
    map: Mappings,
    rtos_seen: u64,
    /// Subflow sequence up to which this subflow's data has been reinjected already.
    reinjected_to: u64,
    last_penalty: Option<Time>,
    /// The path's RTT-model terms (`PathView::model`), from the spec.
    model: PathModel,
    pub stats: SubflowStats,
}

#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct ConnStats {
    /// Total time the connection-level receive window stopped new data (ns).
    pub window_stall_ns: u64,
    pub window_stalls: u64,
    pub chunks_reinjected: u64,
    pub opportunistic_retransmits: u64,
    pub penalizations: u64,
    pub established_at: Option<Time>,
    pub closed_at: Option<Time>,
}

// Laid out by hand (`repr(C)`, line-aligned): with thousands of connections in a run, none of
// them in cache, the cost of a write is the cache lines it touches. A write, and an offer that
// finds the subflows blocked, read and write the first line only (and the hand-over queue in
// the second); placing a chunk and an ACK add the third.
#[repr(C, align(64))]
pub struct MptcpSender {
    // ----- line 0: a write, the offer's data-level checks, the caller's wake-ups.
    write_end: u64,
    data_nxt: u64,
    data_una: u64,
    /// Right edge of the connection-level window: DATA_ACK + window, never moved left.
    wnd_edge: u64,
    /// The connection-level send buffer in force (`send_buffer`): `mptcp.send_buffer`, or in
    /// the kernel model the msk's `sk_sndbuf`, kept up to date by `refresh_msk_sndbuf`.
    send_limit: u64,
    /// The subflows' MSS (`tcp.mss`): the largest chunk.
    mss: u32,
    /// Subflows whose sender state changed since the last `take_touched` (bit i = subflow i):
    /// the caller re-aligns only their timers.
    touched: u32,
    /// The `default` scheduler's kernel model: subflows hold up to their send buffer.
    kernel: bool,
    unlimited: bool,
    /// Kernel model: the last offer of a chunk found no subflow to take it (no usable send
    /// buffer with room, or the scheduler waited), and no subflow nor the scheduler has changed
    /// since. An offer now ends the same way (neither outcome depends on the chunk, and the
    /// scheduler's `Wait` leaves it as a repeat would): it is not made. Typical of a writer
    /// whose subflows' send buffers are full (Linux: `mptcp_subflow_get_send` returns NULL and
    /// `mptcp_sendmsg` only queues the data). Every change to a subflow clears it.
    blocked: bool,
    /// Additional subflows wait for the first one's establishment; set when it happens.
    joins_due: bool,
    /// The scheduler has wake-ups (`MultipathCore::has_period_hooks`, fixed for the
    /// connection's life): without them `take_sched_wake` has nothing to read.
    period_hooks: bool,
    /// The scheduler may place a chunk on a path without window space (it queues there).
    may_queue: bool,
    /// `stall_since.is_some()`: a push that does not stall reads the stall's start only if one
    /// is under way.
    stalled: bool,
    /// The run measures this connection in detail (`set_detailed`): only then are protocol
    /// delays kept, per hand-over (`handed`, `protocol_delay`), per interval and per path
    /// (seed 001's T_i, `path_delay`). A connection measured only by its counters, like a
    /// member of a large group, then queues nothing per write and records nothing per
    /// DATA_ACK: with thousands of connections each of those was a cache miss or two.
    detailed: bool,
    /// Where in `handed` the next chunk's hand-over probably is (`first_ending_after`), as a
    /// distance from its back: unchanged when DATA_ACKs pop the front, one more per write.
    handed_hint: u32,
    // ----- line 1: the hand-over queue a write appends to, and the reinjections an offer
    // looks at first.
    _line1: CacheLine,
    /// (end of handed-over data, hand-over time), for protocol delay.
    handed: VecDeque<(u64, Time)>,
    reinject: VecDeque<(u64, u32)>,
    // ----- line 2: placing a chunk, an ACK.
    _line2: CacheLine,
    /// The first `INLINE_SUBFLOWS` inline.
    pub subs: SmallVec<[Subflow; INLINE_SUBFLOWS]>,
    tmp: Vec<TcpHeader>,
    stall_since: Option<Time>,
    // ----- the rest.
    last_opportunistic: Option<u64>,
    /// The scheduler's wake-up (`Scheduler::wake_at`) as last handed to the caller's timer.
    sched_wake: Option<Time>,
    /// Largest protocol delay acknowledged since the last `take_interval_protocol_delay`.
    interval_protocol_delay: Option<Time>,
    pub stats: ConnStats,
    cfg: MptcpConfig,
    tcp: TcpConfig,
    /// The scheduler, the path views and the controllers' coupling (`transport/multipath`).
    core: MultipathCore,
    /// Kernel model: the scheduler's path views (`kernel_select`), reused from offer to offer.
    kernel_views: Vec<PathView>,
    /// Protocol delay per hand-over (ns).
    pub protocol_delay: LogHistogram,
    /// Seed 001's T_i(k): hand-over to the DATA_ACK received on the chunk's own path.
    pub path_delay: PathDelays,
}

/// A field of this type starts a new cache line in a `repr(C)` struct (and takes no room).
#[repr(align(64))]
struct CacheLine;

/// What the connection needs to open (and re-open) subflows.
pub struct SubflowParams {
    pub tcp: TcpConfig,
    pub priorities: Vec<u32>,
    pub backups: Vec<bool>,
    /// Per-path RTT-model terms (short or empty: unknown for the rest).
    pub models: Vec<PathModel>,
}

impl MptcpSender {
    /// Bytes its growable containers hold (`transport::footprint`).
    pub fn memory_footprint(&self) -> usize {
        use crate::transport::footprint::*;
        let subs: usize = self.subs.iter().map(|s| s.snd.memory_footprint() + s.map.memory_footprint()).sum();
        subs + small_vec(&self.subs) + deque(&self.reinject) + deque(&self.handed) + slice(&self.tmp) + self.path_delay.memory_footprint()
    }

    pub fn new(cfg: MptcpConfig, p: SubflowParams, ccs: Vec<AnyCc>, sched: AnyScheduler, may_queue: bool, picks_only_choice: bool) -> Self {
        let mut tcp = p.tcp;
        tcp.send_buffer = SUBFLOW_WINDOW;
        tcp.recv_buffer = SUBFLOW_WINDOW;
        let coupled = ccs.first().is_some_and(|c| c.coupled_view().is_some());
        let mut sched = sched;
        if let AnyScheduler::Linger(l) = &mut sched {
            l.enable_send_buffers();
        }
        let kernel = matches!(&sched, AnyScheduler::Linger(l) if l.kernel());
        let may_queue = may_queue || kernel;
        let n = ccs.len();
        let subs = ccs
            .into_iter()
            .enumerate()
            .map(|(i, cc)| (PathPrefs::from_lists(i, &p.priorities, &p.backups), cc))
            .map(|(prefs, cc)| Subflow {
                snd: subflow_sender(tcp, cc),
                map: Mappings::default(),
                state: SubState::Idle,
                epoch: 0,
                priority: prefs.priority,
                backup: prefs.backup,
                pf: false,
                rtos_seen: 0,
                reinjected_to: 0,
                last_penalty: None,
                max_cwnd: 0,
                sndbuf: 0,
                free_held: None,
                model: PathModel::default(),
                stats: SubflowStats::default(),
            })
            .enumerate()
            .map(|(i, mut s)| {
                s.model = p.models.get(i).copied().unwrap_or_default();
                s.size_sndbuf(tcp.mss);
                s
            })
            .collect();
        // The shortcut needs the window to be the only limit: not so when subflows queue.
        let core = MultipathCore::new(sched, picks_only_choice && !may_queue, coupled, n);
        Self {
            write_end: 0,
            data_nxt: 0,
            data_una: 0,
            wnd_edge: cfg.recv_buffer,
            send_limit: if kernel { TCP_WMEM_MIN } else { cfg.send_buffer },
            mss: tcp.mss,
            touched: 0,
            kernel,
            unlimited: false,
            blocked: false,
            joins_due: false,
            period_hooks: core.has_period_hooks(),
            may_queue,
            stalled: false,
            detailed: true,
            handed_hint: 0,
            _line1: CacheLine,
            handed: VecDeque::new(),
            reinject: VecDeque::new(),
            _line2: CacheLine,
            subs,
            tmp: Vec::with_capacity(16),
            stall_since: None,
            last_opportunistic: None,
            sched_wake: None,
            interval_protocol_delay: None,
            stats: ConnStats::default(),
            cfg,
            tcp,
            core,
            kernel_views: Vec::with_capacity(if kernel { n } else { 0 }),
            protocol_delay: LogHistogram::new(),
            path_delay: PathDelays::new(n),
        }
    }

    // ----- application side -------------------------------------------------------------

    pub fn set_unlimited(&mut self) {
        self.unlimited = true;
    }

    pub fn close_writes(&mut self) {
        if self.unlimited {
            self.unlimited = false;
            self.write_end = self.data_nxt;
        }
    }

    pub fn buffer_free(&self) -> u64 {
        if self.unlimited {
            return 0;
        }
        self.send_buffer().saturating_sub(self.write_end - self.data_una)
    }

    /// Queue up to `bytes`; returns how many the connection-level send buffer took.
    pub fn write(&mut self, now: Time, bytes: u64) -> u64 {
        let n = bytes.min(self.buffer_free());
        if n > 0 {
            self.write_end += n;
            if self.detailed {
                self.handed.push_back((self.write_end, now));
                self.handed_hint = self.handed_hint.wrapping_add(1);
            }
        }
        n
    }

    pub fn data_una(&self) -> u64 {
        self.data_una
    }
    pub fn data_nxt(&self) -> u64 {
        self.data_nxt
    }
    pub fn all_acked(&self) -> bool {
        !self.unlimited && self.data_una == self.write_end
    }
    pub fn is_established(&self) -> bool {
        self.stats.established_at.is_some()
    }

    /// Measure protocol delays (the default) or not (`detailed`); before the first write.
    pub fn set_detailed(&mut self, detailed: bool) {
        self.detailed = detailed;
    }

    /// The largest protocol delay acknowledged since the previous call (seed 001's sampled
    /// T_over(k)), if any data was acknowledged.
    pub fn take_interval_protocol_delay(&mut self) -> Option<Time> {
        self.interval_protocol_delay.take()
    }

    /// Time the window has been stalling so far, the ongoing stall included.
    pub fn window_stall_ns(&self, now: Time) -> u64 {
        self.stats.window_stall_ns + self.stall_since.map_or(0, |t| now - t)
    }

    // ----- subflow lifecycle ------------------------------------------------------------

    /// Open the connection: the first subflow (MP_CAPABLE). Without a handshake every subflow
    /// is usable at once: all are opened before the scheduler is first asked, so that it sees
    /// them together (a period scheduler plans over all of them).
    pub fn start(&mut self, now: Time, out: &mut Vec<MpSeg>) {
        if self.tcp.handshake {
            self.open_subflow(now, 0, out);
        } else {
            for i in 0..self.subs.len() {
                self.open_quietly(now, i, out);
            }
            self.stats.established_at = Some(now);
            self.push(now, out);
        }
    }

    /// Subflows touched since the previous call (bit i = subflow i).
    pub fn take_touched(&mut self) -> u32 {
        std::mem::take(&mut self.touched)
    }

    /// Once true, the caller schedules the other subflows' joins (after `join_delay`).
    pub fn take_joins_due(&mut self) -> bool {
        std::mem::take(&mut self.joins_due)
    }

    pub fn join_delay(&self) -> Time {
        self.cfg.join_delay
    }

    /// MP_JOIN of subflow `i` (ignored unless it is idle).
    pub fn open_subflow(&mut self, now: Time, i: usize, out: &mut Vec<MpSeg>) {
        if self.open_quietly(now, i, out) && self.subs[i].snd.is_established() {
            self.push(now, out);
        }
    }

    /// Open subflow `i` without offering data to the scheduler; false if it was not idle.
    fn open_quietly(&mut self, now: Time, i: usize, out: &mut Vec<MpSeg>) -> bool {
        if self.subs[i].state != SubState::Idle {
            return false;
        }
        self.blocked = false;
        let s = &mut self.subs[i];
        s.state = SubState::Active;
        s.stats.opened += 1;
        self.tmp.clear();
        s.snd.start(now, &mut self.tmp);
        self.refresh_msk_sndbuf();
        self.flush(i, out);
        true
    }

    /// The path manager closes subflow `i` (its interface went down): its unacknowledged data
    /// is reinjected and it stays closed until `reopen_subflow`. Returns the new incarnation.
    pub fn close_subflow(&mut self, now: Time, i: usize, fresh_cc: AnyCc, out: &mut Vec<MpSeg>) -> u8 {
        self.blocked = false;
        self.reinject_from(i, true);
        self.path_delay.clear(i);
        self.touched |= 1 << i;
        let s = &mut self.subs[i];
        s.state = SubState::Closed;
        s.stats.closed += 1;
        s.epoch = s.epoch.wrapping_add(1);
        s.snd = subflow_sender(self.tcp, fresh_cc);
        s.map.clear();
        s.pf = false;
        s.rtos_seen = 0;
        s.reinjected_to = 0;
        s.last_penalty = None;
        s.max_cwnd = 0;
        s.size_sndbuf(self.mss);
        let epoch = s.epoch;
        self.refresh_msk_sndbuf();
        self.push(now, out);
        epoch
    }

    /// The interface of a closed subflow is back: it may be joined again (`open_subflow`).
    pub fn reopen_subflow(&mut self, i: usize) -> bool {
        self.blocked = false;
        let s = &mut self.subs[i];
        if s.state != SubState::Closed {
            return false;
        }
        s.state = SubState::Idle;
        true
    }

    // ----- events -----------------------------------------------------------------------

    /// An ACK arrived on subflow `i` (incarnation `epoch`).
    pub fn on_ack(&mut self, now: Time, i: usize, epoch: u8, h: &TcpHeader, out: &mut Vec<MpSeg>) {
        self.blocked = false;
        let s = &self.subs[i];
        if s.epoch != epoch || s.state != SubState::Active {
            return;
        }
        let was_established = s.snd.is_established();
        let una_before = s.snd.snd_una();
        let max_before = s.max_cwnd;
        self.on_data_ack(now, h.dss, h.wnd);
        if self.detailed {
            self.path_delay.acked(now, i, h.dss);
        }
        self.couple(i);
        self.tmp.clear();
        let s = &mut self.subs[i];
        s.snd.on_ack(now, h, &mut self.tmp);
        let una = s.snd.snd_una();
        if s.snd.cwnd() > s.max_cwnd {
            s.max_cwnd = s.snd.cwnd();
            s.size_sndbuf(self.mss);
        }
        let grew = s.max_cwnd > max_before || !was_established;
        if una > una_before {
            s.pf = false;
            s.map.release_below(una);
        }
        let established_now = !was_established && s.snd.is_established();
        if grew {
            self.refresh_msk_sndbuf();
        }
        self.flush(i, out);
        if established_now && self.stats.established_at.is_none() {
            self.stats.established_at = Some(now);
            self.joins_due = self.subs.len() > 1;
        }
        self.push(now, out);
    }

    /// Subflow `i`'s timer (RTO, loss probe, persist, pacing) fired.
    pub fn on_timer(&mut self, now: Time, i: usize, out: &mut Vec<MpSeg>) {
        self.blocked = false;
        if self.subs[i].state != SubState::Active {
            return;
        }
        self.couple(i);
        self.tmp.clear();
        self.subs[i].snd.on_timer(now, &mut self.tmp);
        self.flush(i, out);
        let s = &mut self.subs[i];
        if s.snd.stats.rto_count > s.rtos_seen {
            s.rtos_seen = s.snd.stats.rto_count;
            s.pf = true;
            if self.cfg.reinject_on_rto {
                self.reinject_from(i, false);
            }
        }
        self.push(now, out);
    }

    pub fn deadline(&self, i: usize) -> Option<Time> {
        let s = &self.subs[i];
        if s.state == SubState::Active {
            s.snd.deadline()
        } else {
            None
        }
    }

    /// The scheduler's wake-up, if it changed since the last call: `Some(deadline)` for the
    /// caller to align the connection's timer with (`None` inside cancels it). A wake-up not
    /// after `now` is none.
    pub fn take_sched_wake(&mut self, now: Time) -> Option<Option<Time>> {
        // Without wake-ups `wake_at` is None, and so has `sched_wake` always been.
        if !self.period_hooks {
            return None;
        }
        let w = self.core.wake_at(now);
        if w == self.sched_wake {
            return None;
        }
        self.sched_wake = w;
        Some(w)
    }

    /// The scheduler's wake-up fired: offer the next chunk again.
    pub fn on_sched_wake(&mut self, now: Time, out: &mut Vec<MpSeg>) {
        self.sched_wake = None;
        self.push(now, out);
    }

    pub fn pacing_deadline(&self, i: usize) -> Option<Time> {
        let s = &self.subs[i];
        if s.state == SubState::Active {
            s.snd.pacing_deadline()
        } else {
            None
        }
    }

    // ----- data level -------------------------------------------------------------------

    fn on_data_ack(&mut self, now: Time, dack: u64, wnd: u64) {
        self.wnd_edge = self.wnd_edge.max(dack + wnd);
        if dack <= self.data_una {
            return;
        }
        let dack = dack.min(self.data_nxt.max(self.write_end));
        self.data_una = dack;
        // Empty unless detailed.
        while let Some(&(end, t)) = self.handed.front() {
            if end > dack {
                break;
            }
            self.handed.pop_front();
            let d = now - t;
            self.protocol_delay.record(d);
            self.interval_protocol_delay = Some(self.interval_protocol_delay.map_or(d, |m| m.max(d)));
        }
        while self.reinject.front().is_some_and(|&(d, l)| d + l as u64 <= dack) {
            self.reinject.pop_front();
        }
        if !self.unlimited && dack >= self.write_end && self.stats.closed_at.is_none() && self.write_end > 0 {
            self.stats.closed_at = Some(now);
        }
    }

    /// Queue subflow `i`'s data that is not yet data-acknowledged for the other subflows
    /// (`all`: everything, else what was not reinjected before).
    fn reinject_from(&mut self, i: usize, all: bool) {
        let s = &mut self.subs[i];
        let from = if all { 0 } else { s.reinjected_to };
        let before = self.reinject.len();
        for m in s.map.iter() {
            if m.ssn >= from && m.dsn + m.len as u64 > self.data_una {
                self.reinject.push_back((m.dsn, m.len));
            }
        }
        s.reinjected_to = s.snd.write_end();
        let added = (self.reinject.len() - before) as u64;
        if added > 0 {
            self.stats.chunks_reinjected += added;
            self.reinject.make_contiguous().sort_unstable();
            let mut v: Vec<(u64, u32)> = self.reinject.drain(..).collect();
            v.dedup_by_key(|c| c.0);
            self.reinject.extend(v);
        }
    }

    /// Hand subflow `i`'s controller the views of every subflow (coupled controllers only).
    #[inline]
    fn couple(&mut self, i: usize) {
        self.core.couple(&mut self.subs, i);
    }

    /// Turn subflow `i`'s output into segments, attaching each data segment's DSS mapping.
    #[inline]
    fn flush(&mut self, i: usize, out: &mut Vec<MpSeg>) {
        self.touched |= 1 << i;
        let s = &mut self.subs[i];
        for mut hdr in self.tmp.drain(..) {
            if hdr.len > 0 {
                hdr.dss = s.map.dsn_of(hdr.seq).expect("every data segment has a mapping");
            }
            out.push(MpSeg { sub: i as u16, hdr });
        }
    }

    #[inline]
    fn data_limit(&self) -> u64 {
        let cap = self.data_una + self.send_buffer();
        if self.unlimited {
            cap
        } else {
            self.write_end.min(cap)
        }
    }

    /// Every subflow's `subflow_view`, rebuilt in the core's buffer, for the connection's own
    /// choices (opportunistic retransmission reads usability, space and SRTT).
    fn fill_views(&mut self) -> &[PathView] {
        let (mss, model) = (self.mss, self.period_hooks);
        self.core.fill_views(&self.subs, |s, usable| subflow_view(s, usable, mss, model))
    }

    /// The connection's scheduler (its state and summary, e.g. BLP's learned threshold).
    pub fn scheduler(&self) -> &AnyScheduler {
        self.core.scheduler()
    }

    /// The connection as schedulers see it. `unsent` is what could be sent now: the bytes
    /// waiting in the send buffer (a greedy application keeps it full, as Linux's send-buffer
    /// occupancy that ECF reads), capped by the receive window, plus reinjections.
    fn conn_view(&self, now: Time, chunk: u32) -> ConnView {
        let window_space = self.wnd_edge.saturating_sub(self.data_nxt);
        let buffered = self.data_limit().saturating_sub(self.data_nxt).min(window_space);
        ConnView {
            now,
            unsent: buffered + self.reinject.iter().map(|c| c.1 as u64).sum::<u64>(),
            window_space,
            unacked: self.data_nxt - self.data_una,
            send_buffer: self.send_buffer(),
            chunk,
        }
    }

    /// Whether the scheduler must be asked about the next chunk (`Shortcut`).
    #[inline]
    fn shortcut(&self) -> Shortcut {
        if self.kernel {
            return self.kernel_all_full();
        }
        if self.may_queue {
            return Shortcut::Ask;
        }
        self.core.shortcut(&self.subs, |s| s.snd.has_space())
    }

    /// Kernel model: `Nowhere` when no usable subflow's send buffer has room and the scheduler
    /// has already looked at every usable subflow (its smoothed rate is set): whichever it
    /// picked, it would return Wait and change nothing. Else it must be asked.
    #[inline]
    fn kernel_all_full(&self) -> Shortcut {
        let AnyScheduler::Linger(l) = self.core.scheduler() else { return Shortcut::Ask };
        for (i, s) in self.subs.iter().enumerate() {
            if s_usable(s) && (l.avg_rate(i) == 0 || memory_free(s, self.mss)) {
                return Shortcut::Ask;
            }
        }
        Shortcut::Nowhere
    }

    /// Kernel model: the path of the `default` scheduler's burst under way, if it may take the
    /// next chunk (usable, not a backup while a regular subflow is usable, send buffer not
    /// full): the scheduler would name it again (`Linger::burst_path`).
    #[inline]
    fn burst_continues(&self, now: Time) -> Option<usize> {
        if !self.kernel {
            return None;
        }
        let AnyScheduler::Linger(l) = self.core.scheduler() else { return None };
        let i = l.burst_path(now)?;
        let s = self.subs.get(i)?;
        let backup_excluded = s.backup && self.subs.iter().any(|o| s_usable(o) && !o.backup);
        (s_usable(s) && !backup_excluded && memory_free(s, self.mss)).then_some(i)
    }

    /// Debug check of `blocked`: the offer it skips would find nothing. The scheduler is asked
    /// on a copy, so the check changes nothing.
    fn still_blocked(&mut self, now: Time, len: u32) -> bool {
        if self.burst_continues(now).is_some() {
            return false;
        }
        match self.shortcut() {
            Shortcut::Nowhere => true,
            Shortcut::Only(_) => false,
            Shortcut::Ask => {
                let AnyScheduler::Linger(l) = self.core.scheduler() else { return false };
                let mut l = l.clone();
                let conn = self.conn_view(now, len);
                let mss = self.mss;
                let views = self.core.fill_views(&self.subs, |s, usable| kernel_view(s, usable, mss, true));
                crate::sched::Scheduler::select(&mut l, &conn, views) == Decision::Wait
            }
        }
    }

    /// Kernel model: ask the `default` scheduler (`Linger::select_kernel_with`) directly, with
    /// the views the core would build (`PathViews::fill`: index, usability, preferences) but
    /// without pacing rates: it computes Linux's pacing rate only of the paths it reads it of
    /// (about one in two). Linger has no period hooks, so there are no window caps to forward.
    fn kernel_select(&mut self, conn: &ConnView) -> Decision {
        let mss = self.mss;
        let Self { core, subs, kernel_views: views, .. } = self;
        views.clear();
        for (i, s) in subs.iter().enumerate() {
            let usable = s_usable(s);
            views.push(PathView { id: i, usable, priority: s.priority, backup: s.backup, ..kernel_view(s, usable, mss, false) });
        }
        let AnyScheduler::Linger(l) = core.scheduler_mut() else { unreachable!("the kernel model is Linger's") };
        l.select_kernel_with(conn, views, |p| linux_pacing_rate(&subs[p.id].snd))
    }

    /// Can the connection place a chunk on path `i` now?
    #[inline]
    fn placeable(&self, i: usize) -> bool {
        let mss = self.mss as u64;
        if self.kernel {
            return self.subs.get(i).is_some_and(|s| s_usable(s) && memory_free(s, self.mss));
        }
        self.subs.get(i).is_some_and(|s| s_usable(s) && (s.snd.has_space() || s.snd.queued() < QUEUE_LIMIT_SEGMENTS * mss))
    }

    /// The connection-level send buffer: `mptcp.send_buffer`, and in the kernel model at most
    /// Linux's msk `sk_sndbuf` (`__mptcp_sync_sndbuf`: `tcp_wmem[0]` + the sum of the subflows'
    /// `sk_sndbuf`), which `mptcp_sendmsg` (`mptcp_send_limit`) holds the application's unacked
    /// data to. The msk charges each byte once, until its DATA_ACK (`__mptcp_clean_una`), with a
    /// negligible per-fragment overhead (not modelled). A subflow not yet established counts
    /// with `tcp_wmem[1]` (16 KiB), one not opened or closed with nothing.
    #[inline]
    fn send_buffer(&self) -> u64 {
        self.send_limit
    }

    /// Recompute the msk's send buffer (kernel model: `send_limit`) after what it depends on
    /// may have changed: a subflow's largest window (on its ACKs), its establishment, opening or
    /// closing.
    fn refresh_msk_sndbuf(&mut self) {
        if !self.kernel {
            return;
        }
        let subs: u64 = self
            .subs
            .iter()
            .map(|s| match s.state {
                SubState::Active if s.snd.is_established() => s.sndbuf(),
                SubState::Active => TCP_WMEM_DEFAULT,
                _ => 0,
            })
            .sum();
        self.send_limit = self.cfg.send_buffer.min(TCP_WMEM_MIN + subs);
    }

    /// Subflow `i`'s send buffer in the kernel model (`sk_sndbuf`, bytes of truesize).
    pub fn subflow_sndbuf(&self, i: usize) -> u64 {
        self.subs[i].sndbuf()
    }

    /// Place [dsn, dsn+len) on subflow `i` and let the subflow send what it can. The caller
    /// has cleared `blocked` (an offer places only when it is clear).
    fn place(&mut self, now: Time, i: usize, dsn: u64, len: u32, out: &mut Vec<MpSeg>) {
        if self.detailed {
            // Hand-over time of the chunk: its write's (or, for a greedy source's new data,
            // now). A greedy source's new chunk lies past every recorded hand-over: no search.
            let handed = match self.handed.back() {
                Some(&(end, _)) if end > dsn => {
                    let back = self.handed.len() - 1;
                    let k = first_ending_after(&self.handed, back.saturating_sub(self.handed_hint as usize), dsn);
                    self.handed_hint = (back - k) as u32;
                    self.handed[k].1
                }
                _ => now,
            };
            self.path_delay.placed(i, dsn + len as u64, handed);
        }
        let s = &mut self.subs[i];
        s.map.push(Mapping { ssn: s.snd.write_end(), dsn, len });
        s.snd.write(len as u64);
        s.stats.bytes_scheduled += len as u64;
        s.stats.chunks_scheduled += 1;
        self.tmp.clear();
        s.snd.try_send(now, &mut self.tmp);
        self.flush(i, out);
    }

    /// Offer chunks to the scheduler until it waits, data runs out or the window closes.
    pub fn push(&mut self, now: Time, out: &mut Vec<MpSeg>) {
        let mss = self.mss as u64;
        let mut window_stalled = false;
        loop {
            let (dsn, len, reinjected) = if let Some(&(d, l)) = self.reinject.front() {
                if d + l as u64 <= self.data_una {
                    self.reinject.pop_front();
                    continue;
                }
                (d, l, true)
            } else {
                let avail = self.data_limit().saturating_sub(self.data_nxt);
                if avail == 0 {
                    break;
                }
                let space = self.wnd_edge.saturating_sub(self.data_nxt);
                if space == 0 {
                    window_stalled = true;
                    break;
                }
                (self.data_nxt, avail.min(mss).min(space) as u32, false)
            };
            if self.blocked {
                if cfg!(any(test, debug_assertions)) {
                    assert!(self.still_blocked(now, len), "a subflow or the scheduler changed without clearing `blocked`");
                }
                #[cfg(test)]
                BLOCKED_SKIPS.with(|c| c.set(c.get() + 1));
                break;
            }
            // A `default` burst under way takes the chunk without asking (and without looking
            // for an only choice, which it would override).
            let placement = if let Some(i) = self.burst_continues(now) {
                if let AnyScheduler::Linger(l) = self.core.scheduler_mut() {
                    l.take_from_burst(len);
                }
                Placement::One(i)
            } else {
                match self.shortcut() {
                    Shortcut::Nowhere => {
                        // Nothing can take the chunk now: no need to ask.
                        self.blocked = self.kernel && !test_no_shortcut();
                        break;
                    }
                    Shortcut::Only(i) => Placement::One(i),
                    Shortcut::Ask => {
                        let conn = self.conn_view(now, len);
                        let (kernel, mss, model) = (self.kernel, self.mss, self.period_hooks);
                        let decision = if kernel && !test_no_shortcut() {
                            self.kernel_select(&conn)
                        } else if kernel {
                            // Tests: the scheduler through the core, every rate computed.
                            self.core.select(&conn, &self.subs, |s, usable| kernel_view(s, usable, mss, true))
                        } else {
                            self.core.select(&conn, &self.subs, |s, usable| subflow_view(s, usable, mss, model))
                        };
                        // Window caps (seed 004's CR) go to the named path's controller.
                        while let Some(c) = self.core.take_window_cap() {
                            if let Some(s) = self.subs.get_mut(c.path) {
                                s.snd.cap_round(now, c.packets);
                            }
                        }
                        self.blocked = self.kernel && decision == Decision::Wait && !test_no_shortcut();
                        MultipathCore::placement(decision, self.subs.len(), |i| self.placeable(i))
                    }
                }
            };
            match placement {
                Placement::Nowhere => break,
                Placement::One(i) => {
                    if reinjected {
                        self.subs[i].stats.chunks_reinjected += 1;
                    }
                    self.place(now, i, dsn, len, out);
                }
                Placement::Copies(mask) => {
                    for i in (0..self.subs.len().min(64)).filter(|i| mask & (1 << i) != 0) {
                        self.place(now, i, dsn, len, out);
                    }
                }
            }
            if reinjected {
                self.reinject.pop_front();
            } else {
                self.data_nxt += len as u64;
                if self.unlimited && self.detailed {
                    self.handed.push_back((self.data_nxt, now));
                }
            }
        }
        if window_stalled != self.stalled {
            self.stalled = window_stalled;
            match self.stall_since {
                None => {
                    self.stall_since = Some(now);
                    self.stats.window_stalls += 1;
                }
                Some(t) => {
                    self.stats.window_stall_ns += now - t;
                    self.stall_since = None;
                }
            }
        }
        if window_stalled && self.cfg.opportunistic_retransmit {
            self.opportunistic(now, out);
        }
    }

    /// Raiciu et al. §4.2: resend the chunk at DATA_ACK on the lowest-RTT subflow with room
    /// that does not hold it, and penalise the subflow that does.
    fn opportunistic(&mut self, now: Time, out: &mut Vec<MpSeg>) {
        if self.last_opportunistic == Some(self.data_una) {
            return;
        }
        let una = self.data_una;
        let Some((k, m)) = self
            .subs
            .iter()
            .enumerate()
            .find_map(|(k, s)| s.map.iter().find(|m| m.dsn <= una && una < m.dsn + m.len as u64).map(|m| (k, *m)))
        else {
            return;
        };
        let target = self.fill_views().iter().filter(|v| v.id != k && v.usable && v.has_space).min_by_key(|v| (v.srtt, v.id)).map(|v| v.id);
        let Some(i) = target else { return };
        self.last_opportunistic = Some(una);
        self.stats.opportunistic_retransmits += 1;
        self.blocked = false;
        self.place(now, i, m.dsn, m.len, out);
        let s = &mut self.subs[k];
        let srtt = s.snd.rtt().srtt().unwrap_or(0);
        if s.last_penalty.is_none_or(|t| now >= t + srtt) {
            s.last_penalty = Some(now);
            s.stats.penalties += 1;
            self.stats.penalizations += 1;
            s.snd.penalize(now);
        }
    }
}

/// The index of the first hand-over in `handed` (ends strictly increasing, the last one after
/// `dsn`) that ends after `dsn`: the write the chunk at `dsn` belongs to. Chunks are placed in
/// data order, so it is usually the one at `hint` (the previous chunk's) or the next, checked
/// first: a binary search over a long queue touches a cache line per step. Any hint gives the
/// same answer.
#[inline]
fn first_ending_after(handed: &VecDeque<(u64, Time)>, hint: usize, dsn: u64) -> usize {
    let n = handed.len();
    let mut k = hint.min(n - 1);
    if handed[k].0 <= dsn && k + 1 < n {
        k += 1;
    }
    if handed[k].0 > dsn && (k == 0 || handed[k - 1].0 <= dsn) {
        return k;
    }
    handed.partition_point(|&(end, _)| end <= dsn)
}

/// Linux `sk_stream_memory_free` for a subflow in the kernel model: `sk_wmem_queued` (the data
/// written to it and not cumulatively acknowledged, with skb overhead) below `sk_sndbuf`
/// (`tcp_sndbuf_expand` of the largest window it has had).
#[inline]
fn memory_free(s: &Subflow, mss: u32) -> bool {
    let held = s.snd.write_end().saturating_sub(s.snd.snd_una());
    let free = s.free_held.is_some_and(|h| held <= h);
    debug_assert_eq!(free, wmem_queued(held, mss) < s.sndbuf(), "free_held follows sndbuf and the connection's mss");
    free
}

impl Subflow {
    /// Size its send buffer in the kernel model from its largest window (`tcp_sndbuf_expand`),
    /// and with it the bytes it may hold with memory free, for segments of `mss`.
    fn size_sndbuf(&mut self, mss: u32) {
        self.sndbuf = autotuned_sndbuf(self.max_cwnd / mss.max(1) as u64, mss);
        self.free_held = max_held_below(self.sndbuf, mss);
    }

    /// Its send buffer in the kernel model: `tcp_sndbuf_expand` of the largest window it has had.
    #[inline]
    fn sndbuf(&self) -> u64 {
        self.sndbuf
    }
}

/// Linux `sk_pacing_rate` (`tcp_update_pacing_rate`): the controller's pacing rate if it has
/// one, else max(cwnd, in flight) / SRTT × 200 % while cwnd < ssthresh / 2, × 120 % after;
/// 0 without an RTT sample.
fn linux_pacing_rate(snd: &TcpSender) -> u64 {
    if let Some(r) = snd.cc().pacing_rate() {
        return r;
    }
    let Some(srtt) = snd.rtt().srtt().filter(|&s| s > 0) else { return 0 };
    let cwnd = snd.cwnd();
    let ratio: u64 = if cwnd < snd.ssthresh() / 2 { 200 } else { 120 };
    let bytes = cwnd.max(snd.in_flight());
    // The same integer quotient in 64 bits whenever the product fits (windows below ~77 MB):
    // a 128-bit division costs several times more and this runs for every scheduler call.
    match bytes.checked_mul(ratio * SECOND) {
        Some(n) => n / (100 * srtt),
        None => (bytes as u128 * ratio as u128 * SECOND as u128 / (100 * srtt as u128)) as u64,
    }
}

/// What a scheduler sees of subflow `s` (`usable` as the core found it; the `default`
/// scheduler's kernel model reads `kernel_view` instead). `model`: fill the RTT-model inputs
/// (ssthresh, RTO, the path's model), which only model-driven schedulers read
/// (`Scheduler::has_period_hooks`); the others skip their cost.
#[inline]
fn subflow_view(s: &Subflow, usable: bool, mss: u32, model: bool) -> PathView {
    let snd = &s.snd;
    let rtt = snd.rtt();
    let (packets_lost, bytes_lost) = snd.lost_totals();
    PathView {
        has_space: usable && snd.has_space(),
        can_queue: usable && snd.queued() < QUEUE_LIMIT_SEGMENTS * mss as u64,
        srtt: rtt.srtt().unwrap_or(0),
        rttvar: rtt.rttvar(),
        min_rtt: if rtt.srtt().is_some() { rtt.min_rtt() } else { 0 },
        cwnd: snd.cwnd(),
        in_flight: snd.in_flight(),
        queued: snd.queued(),
        pacing_rate: snd.rate_estimate(),
        mss,
        segments_sent: snd.stats.segments_sent,
        retransmissions: snd.stats.retransmissions,
        bytes_acked: snd.snd_una(),
        bytes_sent: snd.stats.bytes_sent,
        packets_lost,
        bytes_lost,
        ssthresh: if model { snd.ssthresh() } else { 0 },
        rto: if model { rtt.rto() } else { 0 },
        model: if model { s.model } else { PathModel::default() },
        // Set by the core: index, usability, preferences.
        ..PathView::default()
    }
}

/// What the `default` scheduler's kernel model reads of subflow `s` (`Linger::select_kernel`:
/// memory free, the bytes it holds, Linux's pacing rate if `rate`, else 0 for the scheduler to
/// ask when it needs it; the caller adds usability and preferences). The rest of the view
/// stays zero: building it per chunk cost ~4 % of W3.
#[inline]
fn kernel_view(s: &Subflow, usable: bool, mss: u32, rate: bool) -> PathView {
    let snd = &s.snd;
    PathView {
        can_queue: usable && memory_free(s, mss),
        in_flight: snd.in_flight(),
        queued: snd.queued(),
        pacing_rate: if rate { linux_pacing_rate(snd) } else { 0 },
        mss,
        ..PathView::default()
    }
}

/// A subflow as the multipath core sees it.
impl MultipathPath for Subflow {
    #[inline]
    fn usable(&self) -> bool {
        s_usable(self)
    }
    #[inline]
    fn prefs(&self) -> PathPrefs {
        PathPrefs { priority: self.priority, backup: self.backup }
    }
    #[inline]
    fn coupled_view(&self) -> Option<SubflowCcView> {
        self.snd.cc().coupled_view()
    }
    #[inline]
    fn couple(&mut self, views: &[SubflowCcView], me: usize) {
        self.snd.cc_mut().couple(views, me);
    }
}

#[inline]
fn s_usable(s: &Subflow) -> bool {
    s.state == SubState::Active && s.snd.is_established() && !s.pf
}

fn subflow_sender(tcp: TcpConfig, cc: AnyCc) -> TcpSender {
    let mut snd = TcpSender::new(tcp, cc);
    snd.set_mptcp_subflow();
    snd
}

#[cfg(test)]
thread_local! {
    /// Tests: offers `blocked` skipped.
    pub(crate) static BLOCKED_SKIPS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    /// Tests: never set `blocked` (every offer made in full), to compare against.
    pub(crate) static NO_SHORTCUT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

#[inline(always)]
fn test_no_shortcut() -> bool {
    #[cfg(test)]
    return NO_SHORTCUT.with(|c| c.get());
    #[cfg(not(test))]
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hinted_hand_over_lookup_is_the_binary_search() {
        let handed: VecDeque<(u64, Time)> = [100, 200, 250, 400, 1000].iter().map(|&e| (e, e * 7)).collect();
        for dsn in 0..1000 {
            let want = handed.partition_point(|&(end, _)| end <= dsn);
            for hint in 0..8 {
                assert_eq!(first_ending_after(&handed, hint, dsn), want, "dsn {dsn} hint {hint}");
            }
        }
    }
}
