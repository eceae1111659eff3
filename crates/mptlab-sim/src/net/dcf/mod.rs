//! The 802.11 DCF shared medium: stations contending for one channel with CSMA/CA, as a
//! deterministic, sans-IO state machine. Sources: IEEE 802.11-2016 §10.3 (DCF: §10.3.2.3 IFS,
//! §10.3.4.2 basic access, §10.3.4.3 backoff, §10.3.2.9 ACK procedure) and G. Bianchi,
//! "Performance analysis of the IEEE 802.11 distributed coordination function", IEEE JSAC 18(3),
//! 2000 (the saturation model and its rules). Study notes: shared/studies/seed004.md §2, §8.2–8.3.
//!
//! Model. All stations hear each other (one collision domain; the error-free channel of Bianchi).
//! Each station has a FIFO of frames; the head is the frame in service. The medium is either
//! idle or carrying one *exchange*: the frames whose backoff expired at the same instant (one
//! frame: success; two or more: collision, every frame lost). Only events at medium transitions
//! are scheduled (ns-3's ChannelAccessManager approach): a station that may transmit counts idle
//! slots from its `count_from` instant (end of the last busy period plus its deferral), so it
//! transmits at `count_from + backoff·slot`; the earliest such instant over all stations is the
//! next event. When the medium turns busy at `t`, each other station freezes its counter, keeping
//! `backoff − ⌊(t − count_from)/slot⌋` (whole idle slots only), and resumes after the deferral.
//! Ties (equal instants) are collisions; carrier sense is instantaneous (δ only lengthens the
//! busy period, as in Bianchi's T_s and T_c).
//!
//! Rules and interpretations:
//! - Immediate access (§10.3.4.2, read as ns-3 3.37 does): a frame that arrives at a station with
//!   an empty queue and no backoff pending (none drawn, or its post-backoff already counted down)
//!   while the medium is idle is sent once the medium has stayed idle for DIFS after the arrival,
//!   i.e. at `max(arrival + DIFS, count_from)`. If the medium turns busy first, the station draws
//!   a backoff from its CW (the standard's "otherwise the random backoff procedure"). A frame that
//!   arrives while the medium is busy draws a backoff at once.
//! - Post-backoff: after every success or drop the station draws a new backoff from its (reset)
//!   CW, even with an empty queue; the counter runs while the queue is empty.
//! - CW convention W = CWmin + 1: a backoff is uniform in {0, …, CW}; after a failed attempt
//!   CW ← min(2·CW + 1, CWmax); reset to CWmin after a success or a drop.
//! - Success: busy for frame + δ + SIFS + ACK + δ, then every station defers DIFS. The frame is
//!   reported delivered when it has reached the receiver (frame end + δ); the sender learns at
//!   the ACK's end.
//! - `Rules::Standard` (802.11-2016, as ns-3.37 behaves): no decrement in the slot in which the
//!   medium turns busy; colliders wait the ACK timeout after their own frame's end, then DIFS
//!   (after the end of the longest colliding frame, if later); the other stations defer DIFS
//!   from the end of the collided frames; a frame is dropped after `retry_limit` attempts
//!   (7: dot11ShortRetryLimit / ns-3 MaxSsrc; the 7th failure drops), and its CW reset.
//!   EIFS (§10.3.2.3.7) is off by default: it applies only after the PHY indicated the start of
//!   a frame (PHY-RXSTART) that was then not received correctly. Frames colliding from the same
//!   instant at equal power never let a receiver lock onto a preamble (ns-3.37's preamble
//!   detection needs about 4 dB SNR), so the medium is merely busy and DIFS applies; with EIFS
//!   the measured n = 5…50 throughput fell 2–7 % below ns-3.37's, without it 0–2 %
//!   (`DcfConfig::eifs_after_collision` turns it on; `SpatialMedium` applies EIFS by itself after
//!   overlaps that begin after a preamble, the hidden-terminal case). The default
//!   was settled after that comparison with ns-3 (a validation target, not a seed's outcome).
//! - `Rules::Bianchi` (his chain): the counter also decrements in the slot in which the medium
//!   turns busy (each "generic slot", idle or busy, counts once); a collision costs
//!   frame + δ + DIFS for everyone (no ACK timeout, no EIFS); unlimited retries, CW frozen at
//!   CWmax (stage m).
//! - No station transmits before the current exchange is over (deferrals are clamped to its end).
//!
//! Interface: like `net/link.rs`, event-driven. `next_event()` is the next instant the medium
//! needs a call; the owner calls `advance(now, out)` (which processes every event up to `now` and
//! appends delivered and dropped frames to `out`) and `enqueue(now, station, frame)` after having
//! advanced to `now`. Randomness: one `RngStream` per station.
//!
//! Hearing matrices (carrier sense and decoding per pair, hidden terminals, spatial reuse) and
//! RTS/CTS with NAV are in `spatial.rs` (`SpatialMedium`, same interface), which is what the
//! simulation runs (`sim/wifi.rs`). This single-domain `Medium` stays as the reference the spatial
//! one is checked against: a different construction (one exchange at a time, events only at
//! medium transitions) that must make the same decisions with a complete hearing matrix (exactly
//! under Bianchi's rules; under the standard's until the first collision, after which this one
//! holds bystanders until the colliders' ACK timeout, the cause of its −1.1 %/−1.7 % gap to
//! ns-3.37 at n = 20/50). It ignores `DcfConfig::rts_threshold` (basic access only). Not modelled
//! by either: TXOP bursts, capture.

pub mod phy;
pub mod spatial;

#[cfg(test)]
mod spatial_tests;
#[cfg(test)]
mod tests;

pub use phy::{FrameTiming, PhyParams};
pub use spatial::SpatialMedium;

use mptlab_engine::{RngStream, StreamId, Time};
use std::collections::VecDeque;

/// Stream kind of a station's backoff stream.
pub const STREAM_DCF: u64 = 0x0064_6366; // "dcf"

/// Index of a station on the medium.
pub type StationId = usize;

/// Which rule set the medium follows (see the module comment).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Rules {
    #[default]
    Standard,
    Bianchi,
}

/// Configuration of a medium.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DcfConfig {
    pub phy: PhyParams,
    pub rules: Rules,
    /// Attempts after which a frame is dropped; `None`: never.
    pub retry_limit: Option<u32>,
    /// `Standard` rules only: stations that heard a collision defer EIFS instead of DIFS
    /// (off by default: see the module comment).
    pub eifs_after_collision: bool,
    /// RTS/CTS (802.11-2016 §10.3.2.5) for frames whose MSDU exceeds this many bytes
    /// (`Some(0)`: every frame); `None` (default): basic access only. `SpatialMedium` only:
    /// `Medium` ignores it.
    pub rts_threshold: Option<u32>,
}

impl DcfConfig {
    /// The standard's rules with a 7-attempt limit.
    pub fn standard(phy: PhyParams) -> Self {
        Self { phy, rules: Rules::Standard, retry_limit: Some(7), eifs_after_collision: false, rts_threshold: None }
    }

    /// Bianchi's rules: unlimited retries.
    pub fn bianchi(phy: PhyParams) -> Self {
        Self { phy, rules: Rules::Bianchi, retry_limit: None, eifs_after_collision: false, rts_threshold: None }
    }

    /// A scenario channel's MAC (`[wifi.<name>]`): its PHY, rule set, retry limit and RTS/CTS
    /// before every data frame when asked.
    pub fn of(spec: &crate::net::config::WifiSpec) -> Self {
        let phy = PhyParams::of(spec.phy);
        let base = if spec.bianchi { Self::bianchi(phy) } else { Self::standard(phy) };
        Self { retry_limit: spec.retry_limit, rts_threshold: spec.rts_cts.then_some(0), ..base }
    }
}

/// A frame handed to the MAC: an opaque id, its MSDU size, its receiver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    pub id: u64,
    pub bytes: u32,
    pub dst: StationId,
}

/// What the medium hands back to its owner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    /// `frame` from `src` reached its receiver at `at` after `attempts` transmissions.
    Delivered { at: Time, src: StationId, frame: Frame, attempts: u32 },
    /// `frame` from `src` was dropped at `at` after `attempts` failed transmissions.
    Dropped { at: Time, src: StationId, frame: Frame, attempts: u32 },
}

/// Per-station counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StationCounters {
    pub enqueued: u64,
    /// Transmissions (first attempts and retries).
    pub attempts: u64,
    pub successes: u64,
    /// Attempts that collided.
    pub failures: u64,
    /// Frames dropped at the retry limit.
    pub drops: u64,
    /// Transmissions made by the immediate-access rule (no backoff).
    pub immediate_accesses: u64,
    pub delivered_bytes: u64,
}

impl StationCounters {
    /// Conditional collision probability p: collided attempts over attempts (Bianchi's p).
    pub fn collision_probability(&self) -> f64 {
        if self.attempts == 0 {
            0.0
        } else {
            self.failures as f64 / self.attempts as f64
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Backoff {
    /// No backoff pending (or transmitting).
    None,
    /// Slots left, counted from `count_from`.
    Counting(u32),
    /// Waiting for DIFS of idle medium after an arrival: transmits at `count_from`.
    Immediate,
}

struct Station {
    queue: VecDeque<(Frame, u32)>,
    backoff: Backoff,
    count_from: Time,
    cw: u32,
    rng: RngStream,
    counters: StationCounters,
}

impl Station {
    fn draw(&mut self) -> u32 {
        (self.rng.next_u64() % (self.cw as u64 + 1)) as u32
    }

    /// The instant this station transmits if the medium stays idle.
    fn access_time(&self, slot: Time) -> Option<Time> {
        if self.queue.is_empty() {
            return None;
        }
        match self.backoff {
            Backoff::Counting(b) => Some(self.count_from + b as Time * slot),
            Backoff::Immediate => Some(self.count_from),
            Backoff::None => None,
        }
    }
}

struct Exchange {
    start: Time,
    txs: Vec<StationId>,
    /// Success only: when the frame reaches the receiver, and whether that was reported.
    delivery: Option<(Time, bool)>,
    /// End of the last transmission on the air (ACK included on success).
    medium_end: Time,
    /// When the senders learn the outcome.
    done: Time,
}

/// The shared medium.
pub struct Medium {
    cfg: DcfConfig,
    stations: Vec<Station>,
    ex: Option<Exchange>,
    /// The last exchange's sender list, kept to avoid an allocation per exchange.
    spare: Vec<StationId>,
    now: Time,
}

impl Medium {
    /// `n` stations; station `i` draws from stream (`seed`, `STREAM_DCF`, `i`).
    pub fn new(cfg: DcfConfig, n: usize, seed: u64) -> Self {
        let rngs = (0..n).map(|i| RngStream::new(seed, StreamId::new(STREAM_DCF, i as u64)));
        Self::with_rngs(cfg, rngs.collect())
    }

    /// One station per given stream (the owner chooses the stream ids).
    pub fn with_rngs(cfg: DcfConfig, rngs: Vec<RngStream>) -> Self {
        let stations = rngs
            .into_iter()
            .map(|rng| Station {
                queue: VecDeque::new(),
                backoff: Backoff::None,
                count_from: 0,
                cw: cfg.phy.cw_min,
                rng,
                counters: StationCounters::default(),
            })
            .collect();
        Self { cfg, stations, ex: None, spare: Vec::new(), now: 0 }
    }

    pub fn config(&self) -> &DcfConfig {
        &self.cfg
    }

    pub fn stations(&self) -> usize {
        self.stations.len()
    }

    pub fn counters(&self, s: StationId) -> &StationCounters {
        &self.stations[s].counters
    }

    pub fn queue_len(&self, s: StationId) -> usize {
        self.stations[s].queue.len()
    }

    /// The station's contention window now.
    pub fn cw(&self, s: StationId) -> u32 {
        self.stations[s].cw
    }

    /// Slots left on the station's backoff counter as of its last freeze (`None`: no backoff).
    pub fn backoff_slots(&self, s: StationId) -> Option<u32> {
        match self.stations[s].backoff {
            Backoff::Counting(b) => Some(b),
            _ => None,
        }
    }

    /// The exchange on the air: its start and its senders.
    pub fn on_air(&self) -> Option<(Time, &[StationId])> {
        self.ex.as_ref().map(|e| (e.start, e.txs.as_slice()))
    }

    /// The next instant the medium needs `advance`; `None`: nothing to do until an arrival.
    pub fn next_event(&self) -> Option<Time> {
        match &self.ex {
            Some(ex) => match ex.delivery {
                Some((at, false)) => Some(at),
                _ => Some(ex.done),
            },
            None => {
                let slot = self.cfg.phy.slot;
                self.stations.iter().filter_map(|s| s.access_time(slot)).min()
            }
        }
    }

    /// Processes every event up to and including `now`; appends outputs to `out`.
    pub fn advance(&mut self, now: Time, out: &mut Vec<Output>) {
        debug_assert!(now >= self.now, "time went back");
        while let Some(t) = self.next_event() {
            if t > now {
                break;
            }
            self.step(t, out);
        }
        self.now = now;
    }

    /// Hands a frame to station `s` at `now` (call `advance(now, …)` first).
    pub fn enqueue(&mut self, now: Time, s: StationId, frame: Frame) {
        debug_assert!(now >= self.now, "time went back");
        debug_assert!(self.next_event().is_none_or(|t| t > now), "advance(now) first");
        self.now = now;
        let busy = self.ex.as_ref().is_some_and(|e| now < e.medium_end);
        let difs = self.cfg.phy.difs;
        let slot = self.cfg.phy.slot;
        let st = &mut self.stations[s];
        st.counters.enqueued += 1;
        let was_empty = st.queue.is_empty();
        st.queue.push_back((frame, 0));
        if !was_empty {
            return;
        }
        match st.backoff {
            Backoff::None if busy => st.backoff = Backoff::Counting(st.draw()),
            Backoff::None => {
                st.backoff = Backoff::Immediate;
                st.count_from = st.count_from.max(now + difs);
            }
            Backoff::Counting(b) if !busy && st.count_from + b as Time * slot <= now => {
                // Post-backoff over and the medium idle: the immediate-access rule.
                st.backoff = Backoff::Immediate;
                st.count_from = st.count_from.max(now + difs);
            }
            Backoff::Counting(_) => {}
            Backoff::Immediate => unreachable!("immediate access with an empty queue"),
        }
    }

    fn step(&mut self, t: Time, out: &mut Vec<Output>) {
        if let Some(ex) = &mut self.ex {
            if let Some((at, false)) = ex.delivery {
                debug_assert_eq!(at, t);
                ex.delivery = Some((at, true));
                let src = ex.txs[0];
                let (frame, attempts) = self.stations[src].queue[0];
                out.push(Output::Delivered { at, src, frame, attempts });
            } else {
                debug_assert_eq!(ex.done, t);
                self.finish(t, out);
            }
            return;
        }
        let slot = self.cfg.phy.slot;
        let txs: Vec<StationId> = (0..self.stations.len()).filter(|&i| self.stations[i].access_time(slot) == Some(t)).collect();
        debug_assert!(!txs.is_empty());
        self.start(t, txs);
    }

    fn start(&mut self, t: Time, txs: Vec<StationId>) {
        let p = self.cfg.phy;
        let bianchi = self.cfg.rules == Rules::Bianchi;
        let mut longest = 0;
        for &i in &txs {
            let st = &mut self.stations[i];
            st.counters.attempts += 1;
            if st.backoff == Backoff::Immediate {
                st.counters.immediate_accesses += 1;
            }
            st.backoff = Backoff::None;
            st.queue[0].1 += 1;
            longest = longest.max(p.frame_time(st.queue[0].0.bytes));
        }
        let success = txs.len() == 1;
        let (delivery, medium_end, done) = if success {
            let rx = t + longest + p.prop_delay;
            let end = rx + p.sifs + p.ack_time() + p.prop_delay;
            (Some((rx, false)), end, end)
        } else {
            let end = t + longest + p.prop_delay;
            let mut done = end;
            if !bianchi {
                for &i in &txs {
                    let own = t + p.frame_time(self.stations[i].queue[0].0.bytes);
                    done = done.max(own + p.ack_timeout);
                }
            }
            (None, end, done)
        };
        // Deferrals after the exchange; freeze everybody else.
        let eifs = !success && !bianchi && self.cfg.eifs_after_collision;
        let bystander_defer = if eifs { p.eifs } else { p.difs };
        for (i, st) in self.stations.iter_mut().enumerate() {
            if txs.contains(&i) {
                let resume = if success || bianchi {
                    medium_end
                } else {
                    let own = t + p.frame_time(st.queue[0].0.bytes);
                    (own + p.ack_timeout).max(medium_end)
                };
                st.count_from = (resume + p.difs).max(done);
                continue;
            }
            st.backoff = match st.backoff {
                Backoff::Counting(b) => {
                    let expiry = st.count_from + b as Time * p.slot;
                    if st.queue.is_empty() && expiry <= t {
                        Backoff::None
                    } else {
                        let mut elapsed = 0;
                        if t >= st.count_from {
                            elapsed = ((t - st.count_from) / p.slot) as u32;
                            if bianchi {
                                elapsed += 1;
                            }
                        }
                        Backoff::Counting(b.saturating_sub(elapsed))
                    }
                }
                Backoff::Immediate => Backoff::Counting(st.draw()),
                Backoff::None => Backoff::None,
            };
            st.count_from = (medium_end + bystander_defer).max(done);
        }
        self.ex = Some(Exchange { start: t, txs, delivery, medium_end, done });
    }

    fn finish(&mut self, t: Time, out: &mut Vec<Output>) {
        let ex = self.ex.take().expect("an exchange");
        let cw_min = self.cfg.phy.cw_min;
        let cw_max = self.cfg.phy.cw_max;
        let success = ex.delivery.is_some();
        for &i in &ex.txs {
            let st = &mut self.stations[i];
            if success {
                let (frame, _) = st.queue.pop_front().expect("a frame");
                st.counters.successes += 1;
                st.counters.delivered_bytes += frame.bytes as u64;
                st.cw = cw_min;
            } else {
                st.counters.failures += 1;
                let attempts = st.queue[0].1;
                if self.cfg.retry_limit.is_some_and(|r| attempts >= r) {
                    let (frame, attempts) = st.queue.pop_front().expect("a frame");
                    st.counters.drops += 1;
                    st.cw = cw_min;
                    out.push(Output::Dropped { at: t, src: i, frame, attempts });
                } else {
                    st.cw = (2 * st.cw + 1).min(cw_max);
                }
            }
            st.backoff = Backoff::Counting(st.draw());
        }
        self.spare = ex.txs;
    }
}
