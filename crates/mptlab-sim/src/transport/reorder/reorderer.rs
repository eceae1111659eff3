//! The tunnel egress reordering stage (seed 003 §2.1, §4.2, §5.2), a sans-IO state machine.
//!
//! Source: Pieska et al., "Performance Impact of Nested Congestion Control on Transport-Layer
//! Multipath Tunneling", Future Internet 16(7):233, 2024, §2.1 (packets "arriving earlier than
//! expected" wait "up to a predefined limit", static or adaptive; fast loss detection; delay
//! equalisation, ref. [10]), §4.2 (receiver EWMA 0.95, 5 ms padding), §5.2 (150 ms margin).
//! Where the paper is silent, options follow the MP-DCCP kernel's active reordering
//! (`ro_active.c`, as the study notes seed003.md §2.4 describe it in words): a ring indexed by
//! the global sequence number, the in-order run behind the expected number forwarded at once,
//! an absolute timeout per buffered packet, late packets forwarded or dropped.
//!
//! The tunnel numbers every inner packet with a global sequence number (0, 1, 2, …) and, per
//! path, a path sequence number, and stamps its send time. `next` is the lowest global number
//! not yet released or given up; every number below it is done.
//!
//! Modes:
//! - `off`: every arrival is released at once: `InOrder` if it is `next`, `Forced` if it skips
//!   numbers (they are given up), `Late` if its number was given up (always forwarded: `off`
//!   never drops).
//! - `static` and `adaptive` (gap modes): `next` and the run of held packets behind it are
//!   released at once (`InOrder`). Any other arrival above `next` is held with its own absolute
//!   deadline, arrival + wait limit, the limit computed at its arrival (the kernel's per-packet
//!   timeout): `static` uses `wait`; `adaptive` uses (max − min) of the paths' one-way delay
//!   estimates (only paths that have delivered a packet; one path known → 0) + `padding`,
//!   capped by `cap`. When a held packet's deadline comes, every gap below it is given up and
//!   the held packets up to it, with the in-order run behind it, are released (`Forced`).
//! - `equalize` (delay equalisation, §2.1 and its ref. [10]): every arrival is held until
//!   arrival + (max path delay − its path's delay) + `padding` (capped by `cap`), whatever the
//!   gaps, and packets leave in order of those due times (equal due times: lower global number
//!   first). With exact estimates a packet sent at T is due at T + max delay + padding
//!   whatever its path, so packets leave in sending order: in-order delivery is a consequence,
//!   not a rule. A released packet is tagged by where it falls: `next` → `InOrder`; above →
//!   `Forced`, the numbers skipped are given up; below → `Late`. Fast loss detection does not
//!   apply (nothing waits for a gap).
//!
//! Fast loss detection (`fast_loss = "path"`, gap modes only). Assumptions: each path is FIFO
//! (an unreliable path loses packets but never reorders them; a reliable path hands them over
//! in order, late), the sender numbers packets in order, sends each number on exactly one
//! path, and increases both numbers together on a path; the paths are the `paths` given to
//! `Reorderer::new`. The receiver never learns which global number a lost path packet had, so
//! the head gap G (= `next`, missing, with packets held above it) is given up at once when one
//! of two proofs holds, checked after every arrival and every release:
//! - (A) every path has delivered a global number above G. A FIFO path that delivered
//!   something newer than G can no longer deliver G; G was sent on some path, so it was lost.
//!   Proof (A) waits for idle paths: a path that has carried nothing newer than G could still
//!   be carrying G (e.g. the first packet on a slow path that was just brought into use).
//! - (B) the path-sequence gap equals the global gap (MP-DCCP's "path" mode, made exact). Let
//!   b be the lowest held packet, on path p with path sequence q_b, and (q_a, g_a) the path and
//!   global numbers of p's last packet below `next` (−1 if none). Path p lost L = q_b − q_a − 1
//!   packets, whose global numbers lie in (g_a, b). If no number in (g_a, G) was given up, all
//!   of them arrived, so p's L losses lie in [G, b); that interval holds b − G missing numbers
//!   (b is the lowest held). L = b − G means every one of them was p's loss, G among them. G is
//!   then attributed to p's path sequence q_a + 1 (p's "last below" becomes (q_a + 1, G)), so
//!   the next missing number of the same run is proved the same way. Proof (B) needs no other
//!   path (it works while a second path is idle) but only looks at the lowest held packet's
//!   path.
//!
//! Both proofs are exact under the assumptions: with FIFO paths, a number given up by fast loss
//! detection never arrives later (the property test checks this). When neither holds, the gap
//! waits for the wait limit. Reliable (TCP) paths deliver in path order, so they never show a
//! path-sequence hole, and (A) gives up nothing a retransmission will still bring.
//!
//! Other rules:
//! - Late packets (their number is below `next` and was never released): forwarded at once as
//!   `Late` (`late = "forward"`) or dropped (`late = "drop"`, counted in `late_dropped`).
//! - Capacity: held global numbers must lie in [next, next + capacity) (the ring). An arrival
//!   beyond gives up the oldest gaps (releasing what they held, `Forced`) until it fits.
//!   `equalize` holds no ring: at `capacity` held packets, the earliest due leaves first.
//! - Duplicates cannot happen: the tunnel sends each global number once (no redundant
//!   scheduling) and the paths do not duplicate; a number seen twice is a caller bug
//!   (debug_assert). Without that, a duplicate below `next` would pass as `Late`.
//! - A held packet never waits past its deadline as long as the caller calls `on_timeout` at
//!   `deadline()`; `on_arrival` first gives up what was due strictly before `now` (a caller
//!   that is late cannot hold a packet longer), and a packet filling a gap at exactly a held
//!   packet's deadline arrives in time (in gap modes the arrival is handled before the expiry).
//! - Steady state allocates nothing: the ring, the deadline heap and the per-path table are
//!   sized at construction (the heap may grow to its high-water mark once).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use mptlab_engine::Time;

use super::config::{FastLoss, LatePolicy, ReorderConfig, ReorderMode};
use super::delay::{spread, DelayEstimate};
use super::stats::ReorderStats;
use crate::transport::multipath::{Arrival, Release, Reordering};

/// A held packet in the ring.
#[derive(Clone, Copy, Debug)]
struct Held {
    path: usize,
    path_seq: u64,
    arrived: Time,
}

/// What the receiver knows of one path.
#[derive(Clone, Copy, Debug, Default)]
struct PathState {
    delay: DelayEstimate,
    /// Highest global number delivered on the path.
    max_seq: Option<u64>,
    /// (path sequence, global number) of the path's last packet below `next` (arrived, or
    /// attributed by proof (B)).
    below: Option<(u64, u64)>,
}

/// The reordering module the tunnel's egress holds.
#[derive(Clone, Debug)]
pub struct Reorderer {
    cfg: ReorderConfig,
    /// Lowest global number not yet released or given up.
    next: u64,
    /// Gap modes: held packets, slot `seq % capacity`, for seq in [next, next + capacity).
    ring: Vec<Option<Held>>,
    /// Packets held now (gap modes: in the ring; equalize: in `due`).
    held: usize,
    /// Gap modes: the lowest held global number (valid when `held > 0`).
    lowest_held: u64,
    /// Gap modes: (deadline, seq) of each held packet; entries with seq < next are stale and
    /// dropped lazily (always before `deadline()` can see them).
    timers: BinaryHeap<Reverse<(Time, u64)>>,
    /// Equalize: (due, seq, arrived) of each held packet.
    due: BinaryHeap<Reverse<(Time, u64, Time)>>,
    paths: Vec<PathState>,
    /// Highest global number given up so far.
    last_given_up: Option<u64>,
    /// Gap modes: the number stored by the arrival being handled (a packet released in its
    /// own arrival's call was not held).
    arriving: Option<u64>,
    stats: ReorderStats,
}

impl Reorderer {
    /// A reorderer for a tunnel with `paths` paths (numbered 0..paths). Fast loss proof (A)
    /// counts exactly these paths, so declare every path the tunnel may send on.
    pub fn new(cfg: &ReorderConfig, paths: usize) -> Self {
        debug_assert!(cfg.validate().is_ok(), "{:?}", cfg.validate());
        let cap = cfg.capacity.max(1);
        let gap_mode = matches!(cfg.mode, ReorderMode::Static | ReorderMode::Adaptive);
        let equalize = cfg.mode == ReorderMode::Equalize;
        Reorderer {
            cfg: ReorderConfig { capacity: cap, ..cfg.clone() },
            next: 0,
            ring: if gap_mode { vec![None; cap] } else { Vec::new() },
            held: 0,
            lowest_held: 0,
            timers: BinaryHeap::with_capacity(if gap_mode { cap } else { 0 }),
            due: BinaryHeap::with_capacity(if equalize { cap } else { 0 }),
            paths: vec![PathState::default(); paths],
            last_given_up: None,
            arriving: None,
            stats: ReorderStats::default(),
        }
    }

    pub fn config(&self) -> &ReorderConfig {
        &self.cfg
    }

    pub fn stats(&self) -> &ReorderStats {
        &self.stats
    }

    /// Packets held now.
    pub fn held(&self) -> usize {
        self.held
    }

    /// The lowest global number not yet released or given up.
    pub fn next_expected(&self) -> u64 {
        self.next
    }

    /// The current one-way delay estimate of `path`, if it has delivered a packet.
    pub fn path_delay(&self, path: usize) -> Option<Time> {
        self.paths.get(path).and_then(|p| p.delay.0)
    }

    /// The wait limit for a packet arriving now on `path` (`static`: `wait`; `adaptive`:
    /// spread + padding; `equalize`: max − own + padding; caps applied; `off`: 0).
    pub fn wait_limit(&self, path: usize) -> Time {
        let padded = |w: Time| {
            let w = w + self.cfg.padding;
            self.cfg.cap.map_or(w, |c| w.min(c))
        };
        let (lo, hi) = spread(self.paths.iter().map(|p| p.delay)).unwrap_or((0, 0));
        match self.cfg.mode {
            ReorderMode::Off => 0,
            ReorderMode::Static => self.cfg.wait,
            ReorderMode::Adaptive => padded(hi - lo),
            ReorderMode::Equalize => padded(self.path_delay(path).map_or(0, |own| hi.saturating_sub(own))),
        }
    }

    fn slot(&self, seq: u64) -> usize {
        (seq % self.ring.len() as u64) as usize
    }

    fn note_held(&mut self) {
        self.held += 1;
        self.stats.held += 1;
    }

    fn late(&mut self, seq: u64, out: &mut Vec<(u64, Release)>) {
        if self.cfg.late == LatePolicy::Forward || self.cfg.mode == ReorderMode::Off {
            self.stats.late += 1;
            out.push((seq, Release::Late));
        } else {
            self.stats.late_dropped += 1;
        }
    }

    fn give_up(&mut self, count: u64) {
        if count > 0 {
            self.stats.forced_gaps += count;
            self.next += count;
            self.last_given_up = Some(self.next - 1);
        }
    }

    // ---- gap modes (static, adaptive) ----

    /// Releases `next` and the held run behind it while they are in the ring.
    fn release_run(&mut self, now: Time, kind: Release, out: &mut Vec<(u64, Release)>) {
        while self.held > 0 {
            let i = self.slot(self.next);
            let Some(h) = self.ring[i].take() else { break };
            self.held -= 1;
            if self.arriving == Some(self.next) {
                self.stats.held -= 1;
            } else {
                self.stats.hold_time.push(now - h.arrived);
            }
            self.count(kind);
            out.push((self.next, kind));
            self.paths[h.path].below = Some((h.path_seq, self.next));
            self.next += 1;
        }
        if self.held > 0 && self.lowest_held < self.next {
            // The lowest held packet left: the next one is the first occupied slot above
            // `next` (each slot is scanned at most once over the run).
            let mut s = self.next + 1;
            while self.ring[self.slot(s)].is_none() {
                s += 1;
            }
            self.lowest_held = s;
        }
    }

    fn count(&mut self, kind: Release) {
        match kind {
            Release::InOrder => self.stats.in_order += 1,
            Release::Forced => self.stats.forced += 1,
            Release::Late => self.stats.late += 1,
        }
    }

    /// Gives up the head gap (`next` is missing) and releases the run behind it.
    fn give_up_head(&mut self, now: Time, out: &mut Vec<(u64, Release)>) {
        debug_assert!(self.ring.is_empty() || self.ring[self.slot(self.next)].is_none());
        self.give_up(1);
        self.release_run(now, Release::Forced, out);
    }

    /// Gives up every gap below `target` and releases what was held below it (and the run
    /// behind), so that `next >= target`.
    fn force_to(&mut self, now: Time, target: u64, out: &mut Vec<(u64, Release)>) {
        while self.next < target {
            if self.held == 0 {
                self.give_up(target - self.next);
                break;
            }
            if self.ring[self.slot(self.next)].is_some() {
                self.release_run(now, Release::Forced, out);
            } else {
                // Skip the whole gap up to the lowest held packet (or the target) at once.
                let to = self.lowest_held.min(target);
                self.give_up(to - self.next);
                self.release_run(now, Release::Forced, out);
            }
        }
    }

    /// Fast loss detection: gives up head gaps while proof (A) or (B) holds.
    fn fast_loss(&mut self, now: Time, out: &mut Vec<(u64, Release)>) {
        if self.cfg.fast_loss != FastLoss::Path {
            return;
        }
        while self.held > 0 && self.ring[self.slot(self.next)].is_none() {
            let g = self.next;
            let b = self.lowest_held;
            let h = self.ring[self.slot(b)].expect("lowest held is in the ring");
            let p = &self.paths[h.path];
            // (B): p's path-sequence gap before b equals the global gap [g, b).
            let first_unseen = p.below.map_or(0, |(q, _)| q + 1);
            let sound = match (self.last_given_up, p.below) {
                (None, _) => true,
                (Some(x), Some((_, ga))) => x <= ga,
                (Some(_), None) => false,
            };
            if sound && h.path_seq.checked_sub(first_unseen) == Some(b - g) {
                self.paths[h.path].below = Some((first_unseen, g));
            } else if !self.paths.iter().all(|p| p.max_seq.is_some_and(|m| m > g)) {
                // Neither (B) nor (A).
                break;
            }
            self.stats.fast_loss += 1;
            self.give_up_head(now, out);
        }
    }

    /// Gives up what is due at or before `t` (gap modes), releasing at `now`.
    fn expire_gaps(&mut self, now: Time, t: Time, out: &mut Vec<(u64, Release)>) {
        loop {
            self.drop_stale_timers();
            match self.timers.peek() {
                Some(&Reverse((due, seq))) if due <= t => {
                    self.timers.pop();
                    self.force_to(now, seq + 1, out);
                    self.fast_loss(now, out);
                }
                _ => break,
            }
        }
    }

    fn drop_stale_timers(&mut self) {
        while let Some(&Reverse((_, seq))) = self.timers.peek() {
            if seq >= self.next {
                break;
            }
            self.timers.pop();
        }
    }

    fn arrive_gap_mode(&mut self, now: Time, a: Arrival, out: &mut Vec<(u64, Release)>) {
        let cap = self.ring.len() as u64;
        if a.seq < self.next {
            self.paths[a.path].below = Some((a.path_seq, a.seq));
            self.late(a.seq, out);
        } else {
            if a.seq - self.next >= cap {
                self.force_to(now, a.seq + 1 - cap, out);
            }
            if a.seq == self.next {
                self.stats.in_order += 1;
                out.push((a.seq, Release::InOrder));
                self.paths[a.path].below = Some((a.path_seq, a.seq));
                self.next += 1;
                self.release_run(now, Release::InOrder, out);
            } else {
                let i = self.slot(a.seq);
                debug_assert!(self.ring[i].is_none(), "global seq {} arrived twice", a.seq);
                self.ring[i] = Some(Held { path: a.path, path_seq: a.path_seq, arrived: now });
                self.lowest_held = if self.held == 0 { a.seq } else { self.lowest_held.min(a.seq) };
                self.note_held();
                self.arriving = Some(a.seq);
                self.timers.push(Reverse((now + self.wait_limit(a.path), a.seq)));
            }
        }
        self.fast_loss(now, out);
        self.arriving = None;
        self.drop_stale_timers();
    }

    // ---- equalize ----

    /// Releases one packet leaving the equalisation buffer, tagged by its place in sequence.
    fn leave_equalized(&mut self, now: Time, seq: u64, arrived: Time, out: &mut Vec<(u64, Release)>) {
        self.stats.hold_time.push(now - arrived);
        self.emit_at_once(seq, out);
    }

    /// `off` and `equalize`: a packet released now, whatever the gaps.
    fn emit_at_once(&mut self, seq: u64, out: &mut Vec<(u64, Release)>) {
        if seq < self.next {
            self.late(seq, out);
            return;
        }
        let kind = if seq == self.next { Release::InOrder } else { Release::Forced };
        self.give_up(seq - self.next);
        self.next = seq + 1;
        self.count(kind);
        out.push((seq, kind));
    }

    fn expire_equalized(&mut self, now: Time, t: Time, out: &mut Vec<(u64, Release)>) {
        while let Some(&Reverse((due, seq, arrived))) = self.due.peek() {
            if due > t {
                break;
            }
            self.due.pop();
            self.held -= 1;
            self.leave_equalized(now, seq, arrived, out);
        }
    }

    fn arrive_equalize(&mut self, now: Time, a: Arrival, out: &mut Vec<(u64, Release)>) {
        let wait = self.wait_limit(a.path);
        if a.seq < self.next || wait == 0 {
            self.emit_at_once(a.seq, out);
            return;
        }
        if self.held >= self.cfg.capacity {
            let Reverse((_, seq, arrived)) = self.due.pop().expect("held > 0");
            self.held -= 1;
            self.leave_equalized(now, seq, arrived, out);
        }
        self.due.push(Reverse((now + wait, a.seq, now)));
        self.note_held();
    }

    fn expire(&mut self, now: Time, t: Time, out: &mut Vec<(u64, Release)>) {
        match self.cfg.mode {
            ReorderMode::Off => {}
            ReorderMode::Equalize => self.expire_equalized(now, t, out),
            ReorderMode::Static | ReorderMode::Adaptive => self.expire_gaps(now, t, out),
        }
    }
}

impl Reordering for Reorderer {
    fn on_arrival(&mut self, now: Time, a: Arrival, out: &mut Vec<(u64, Release)>) {
        if a.path >= self.paths.len() {
            debug_assert!(false, "arrival on undeclared path {} (declared {})", a.path, self.paths.len());
            self.paths.resize(a.path + 1, PathState::default());
        }
        if now > 0 {
            self.expire(now, now - 1, out);
        }
        let p = &mut self.paths[a.path];
        p.delay.sample(now.saturating_sub(a.sent_at), self.cfg.ewma_new);
        p.max_seq = Some(p.max_seq.map_or(a.seq, |m| m.max(a.seq)));
        match self.cfg.mode {
            ReorderMode::Off => self.emit_at_once(a.seq, out),
            ReorderMode::Equalize => self.arrive_equalize(now, a, out),
            ReorderMode::Static | ReorderMode::Adaptive => self.arrive_gap_mode(now, a, out),
        }
        self.stats.max_held = self.stats.max_held.max(self.held as u64);
    }

    fn deadline(&self) -> Option<Time> {
        match self.cfg.mode {
            ReorderMode::Off => None,
            ReorderMode::Equalize => self.due.peek().map(|r| r.0 .0),
            ReorderMode::Static | ReorderMode::Adaptive => self.timers.peek().map(|r| r.0 .0),
        }
    }

    fn on_timeout(&mut self, now: Time, out: &mut Vec<(u64, Release)>) {
        self.expire(now, now, out);
    }
}
