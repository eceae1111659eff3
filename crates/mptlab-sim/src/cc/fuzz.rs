//! Model-based fuzzing of every congestion controller (STYLE.md: s2n-quic's
//! `congestion_controller/fuzz_target.rs`): random sequences of `Op`s drive a small, consistent
//! model of a TCP connection; the controller gets the hook calls the TCP sender would make, and
//! `invariants` is checked after every operation.
//!
//! One harness, every controller: the cases run for each name in `CONGESTION_CONTROLLERS` and
//! for one composite per coupled controller (`fuzzed_names`), built through
//! `CcConfig::default_for(name)` and `build` (static dispatch via `AnyCc`, as in the simulator),
//! with random `cc_options` set through the same `Options` path a scenario uses (values the
//! option rejects are skipped). A controller added to the registry is fuzzed without any change
//! here.
//!
//! Coupled controllers (`coupled_view()` is Some) get `couple(views, me)` before every ACK,
//! congestion event and timeout, as the MPTCP connection calls it: `views` are the case's random
//! peer views (any values: inactive, without RTT, zero or huge windows, rates and loss
//! distances; changed by `Op::Peer`) with the controller's own view inserted at index `me`.
//!
//! The model (`Conn`): time only moves forward; segments are sent in order, each recording the
//! delivery state at its send (C.delivered, C.lost, bytes in flight after it, app-limited), and
//! leave the pipe in send order, cumulatively ACKed, SACKed or marked lost; C.delivered and C.lost
//! never decrease; an ACK's rate sample is that of the newest segment it delivered
//! (prior_delivered is therefore monotone, delivered ≤ C.delivered, lost ≤ C.lost, interval ≥
//! 1 ms, tx_in_flight as recorded, rtt = now − its send); its RTT sample (when present, Karn's
//! rule permitting) is the same segment's. Fast recovery is entered only from the open state
//! (once per congestion event) and left by `RecoveryExit`; the ACK that ends it is still flagged
//! `in_recovery`, as the sender does. An RTO marks the whole pipe lost and reports
//! `during_recovery` when it hits in recovery or after an earlier RTO. Sends either respect the
//! window (the sender's normal path) or overrun it (forced retransmissions); in-flight bytes stay
//! below `MAX_IN_FLIGHT`.
//!
//! Invariants after every operation: the window is at least 1 MSS and at most 2^40 bytes;
//! ssthresh is at least 2 MSS or u64::MAX ("infinite"); a pacing rate, once an RTT or rate
//! sample has been seen, is > 0; a pacing rate is never absurd: at most 16 of the largest byte
//! count the connection has shown (window, flight, initial window, a sample's delivered) per
//! the shortest time it has shown (RTT sample, sample interval, 1 ms), and in any case allowed
//! up to 2^50 B/s (≈ 9 Pbit/s) — a rate derived from the model's own quantities passes, a
//! wrapped or uninitialised one does not (a fixed 2^50 cap alone would reject BBR's legitimate
//! 2.77 × 65 GB initial window / 1 µs); a send quantum is > 0 and ≤ 2^40; `metrics()` agrees
//! with `window()`, `ssthresh()` and `pacing_rate()`; `state_name()` is not empty; nothing
//! panics.
//!
//! Running: `cargo test --release -p mptlab-sim cc::fuzz` runs `FUZZ_CASES` cases per
//! controller (a few seconds for all of them). Longer:
//! `PROPTEST_CASES=100000 cargo test --release -p mptlab-sim cc::fuzz -- --nocapture`.
//! Integer overflow panics only where overflow checks are on: the release profile (`make test`)
//! wraps silently (the window bounds then catch most wrap-arounds), so also run without
//! `--release` now and then (`cargo test -p mptlab-sim cc::fuzz`; the test profile keeps
//! overflow checks). A failure prints the controller, the shrunk case (parameters, options, the
//! operations) and the first operation after which an invariant broke.

use super::options::OptValue;
use super::registry::{composite, CONGESTION_CONTROLLERS, COUPLED, PATH_CONTROLLERS};
use super::{AckEvent, CcConfig, CcParams, CongestionControl, LossEvent, RateSample, SubflowCcView};
use mptlab_engine::time::{MICROSECOND, MILLISECOND, SECOND};
use mptlab_engine::Time;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestError, TestRunner};
use std::collections::VecDeque;

/// Cases per controller in `make test`; PROPTEST_CASES overrides.
const FUZZ_CASES: u32 = 1000;
/// Largest sane window (1 TiB).
const MAX_WINDOW: u64 = 1 << 40;
/// A pacing rate up to this (bytes per second) is never absurd.
const PACING_RATE_FLOOR_CAP: u128 = 1 << 50;
/// A pacing rate may reach this many of the connection's largest byte counts per its shortest
/// time (BBR's highest gain is 2.89).
const PACING_GAIN_CAP: u128 = 16;
/// The model never has more than this in flight (1 GiB).
const MAX_IN_FLIGHT: u64 = 1 << 30;

/// Every registry entry, and composite controllers (`<coupled>+<path>`) besides: each coupled
/// controller once, with a different path controller each, taken from the end of the path list
/// (those with states and pacing: vegas, bbr2, bbr, cubic). Derived from the registry, so a
/// controller added there is fuzzed without any change here.
fn fuzzed_names() -> Vec<&'static str> {
    let composites = COUPLED.iter().zip(PATH_CONTROLLERS.iter().rev().cycle()).map(|(c, p)| composite(c, p).expect("a composite"));
    CONGESTION_CONTROLLERS.iter().map(|a| a.name).chain(composites).collect()
}

#[derive(Clone, Debug)]
enum Op {
    /// Send up to `segs` segments of one MSS (the last `short_last` bytes shorter, at least 1 B).
    /// `respect_cwnd`: stop when the next segment would exceed the window, as the sender does;
    /// otherwise overrun it (forced retransmissions, limited transmit).
    Send { segs: u16, short_last: u16, respect_cwnd: bool, app_limited: bool },
    /// `dt_us` (≥ 1 µs) after the previous event, an ACK cumulatively acknowledges the first
    /// `cum_segs` segments in the pipe and SACKs the next `sack_segs`, then marks the next
    /// `lost_segs` lost. `rtt`: the ACK yields an RTT sample (else Karn's rule withheld it).
    /// `rate`: a rate sample when anything was delivered (else none, as if the transport had
    /// none). `flag_recovery`: on the ACK right after a recovery exit, still flag it as in
    /// recovery (the sender's ordering).
    Ack { dt_us: u32, cum_segs: u16, sack_segs: u8, lost_segs: u8, rtt: bool, rate: bool, cwnd_limited: bool, flag_recovery: bool },
    /// Enter fast recovery (ignored unless open).
    CongestionEvent,
    /// Leave fast recovery (ignored unless in it).
    RecoveryExit,
    /// Retransmission timeout (ignored with nothing outstanding, as in the sender).
    Rto,
    /// Time passes without events.
    Advance { us: u64 },
    /// Coupled controllers: peer view `i` (modulo their number) changes.
    Peer { i: u8, view: SubflowCcView },
}

#[derive(Clone, Debug)]
struct Case {
    mss: u32,
    initial_cwnd_segments: u32,
    /// (option index modulo the controller's option count, number, boolean): set as a number
    /// if the option takes that number, else as the boolean.
    options: Vec<(usize, f64, bool)>,
    /// Coupled controllers: the other subflows' views, and the controller's own index.
    peers: Vec<SubflowCcView>,
    me: usize,
    ops: Vec<Op>,
}

/// A random subflow view, sane or not.
fn view() -> impl Strategy<Value = SubflowCcView> {
    let bytes = || prop_oneof![Just(0u64), 1u64..=1 << 30, any::<u64>()];
    let time = || prop_oneof![Just(0 as Time), 1..=10 * SECOND, any::<Time>()];
    (prop::bool::weighted(0.8), bytes(), bytes(), time(), time(), any::<u32>(), bytes(), bytes(), bytes()).prop_map(
        |(active, cwnd, ssthresh, srtt, min_rtt, mss, bytes_since_loss, bytes_between_losses, rate)| SubflowCcView {
            active,
            cwnd,
            ssthresh,
            srtt,
            min_rtt,
            mss,
            bytes_since_loss,
            bytes_between_losses,
            rate,
        },
    )
}

fn op() -> impl Strategy<Value = Op> {
    let send = (prop_oneof![1u16..=4, 1u16..=64, 1u16..=1000], any::<u16>(), any::<bool>(), prop::bool::weighted(0.2))
        .prop_map(|(segs, short_last, respect_cwnd, app_limited)| Op::Send { segs, short_last, respect_cwnd, app_limited });
    let ack = (
        prop_oneof![1u32..=100, 100u32..=200_000],
        prop_oneof![3 => 0u16..=2, 2 => 0u16..=64, 1 => 0u16..=1000],
        prop_oneof![3 => Just(0u8), 1 => 1u8..=8],
        prop_oneof![6 => Just(0u8), 1 => 1u8..=8],
        prop::bool::weighted(0.9),
        prop::bool::weighted(0.9),
        prop::bool::weighted(0.8),
        any::<bool>(),
    )
        .prop_map(|(dt_us, cum_segs, sack_segs, lost_segs, rtt, rate, cwnd_limited, flag_recovery)| Op::Ack {
            dt_us,
            cum_segs,
            sack_segs,
            lost_segs,
            rtt,
            rate,
            cwnd_limited,
            flag_recovery,
        });
    let advance = prop_oneof![1u64..=1_000, 1_000u64..=1_000_000, 1_000_000u64..=20_000_000].prop_map(|us| Op::Advance { us });
    let peer = (any::<u8>(), view()).prop_map(|(i, view)| Op::Peer { i, view });
    prop_oneof![
        8 => send,
        12 => ack,
        2 => Just(Op::CongestionEvent),
        2 => Just(Op::RecoveryExit),
        1 => Just(Op::Rto),
        1 => advance,
        1 => peer,
    ]
}

fn case() -> impl Strategy<Value = Case> {
    let mss = prop_oneof![4 => Just(1460u32), 1 => Just(1u32), 1 => Just(536u32), 1 => Just(65495u32), 2 => 1u32..=9000];
    let initial = prop_oneof![4 => Just(10u32), 4 => 1u32..=100, 1 => Just(1_000_000u32)];
    let number = prop_oneof![0.0..=1.0f64, 0.0..=100.0f64, -10.0..=1000.0f64, Just(0.0), Just(100.0)];
    let options = prop::collection::vec((any::<usize>(), number, any::<bool>()), 0..4);
    let peers = prop::collection::vec(view(), 0..4);
    (mss, initial, options, peers, any::<usize>(), prop::collection::vec(op(), 1..300))
        .prop_map(|(mss, initial_cwnd_segments, options, peers, me, ops)| Case { mss, initial_cwnd_segments, options, peers, me, ops })
}

/// One segment in the pipe and the delivery state recorded when it was sent.
struct Seg {
    bytes: u64,
    sent: Time,
    delivered: u64,
    lost: u64,
    tx_in_flight: u64,
    app_limited: bool,
}

/// The connection as the controller's hooks see it.
struct Conn {
    mss: u64,
    now: Time,
    /// Segments in the pipe, oldest first.
    pipe: VecDeque<Seg>,
    in_flight: u64,
    /// Bytes SACKed and not yet cumulatively acknowledged (outstanding, not in flight).
    sacked: u64,
    delivered: u64,
    lost: u64,
    in_recovery: bool,
    /// After an RTO until the next cumulative ACK (the sender's Loss phase).
    in_loss: bool,
    just_exited_recovery: bool,
    srtt: Option<Time>,
    min_rtt: Option<Time>,
    /// An RTT or rate sample has reached the controller.
    sample_seen: bool,
    /// The largest byte count (window, flight, a sample's delivered) and the shortest time (RTT
    /// sample, sample interval; at most 1 ms) seen so far: the scale of a sane pacing rate.
    max_bytes: u64,
    min_time: Time,
    /// Every ACK reaches the controller without its rate sample (the model still takes it).
    strip_rate: bool,
    /// Coupled controllers: the peers' views and the controller's index among them.
    peers: Vec<SubflowCcView>,
    me: usize,
}

impl Conn {
    fn new(mss: u32, peers: Vec<SubflowCcView>, me: usize) -> Self {
        let me = me % (peers.len() + 1);
        Conn {
            mss: mss as u64,
            now: 0,
            pipe: VecDeque::new(),
            in_flight: 0,
            sacked: 0,
            delivered: 0,
            lost: 0,
            in_recovery: false,
            in_loss: false,
            just_exited_recovery: false,
            srtt: None,
            min_rtt: None,
            sample_seen: false,
            max_bytes: 0,
            min_time: MILLISECOND,
            strip_rate: false,
            peers,
            me,
        }
    }

    /// Hand a coupled controller every subflow's view, its own at `me` (as the MPTCP connection
    /// does before each ACK, congestion event and timeout).
    fn couple(&self, cc: &mut impl CongestionControl) {
        if let Some(own) = cc.coupled_view() {
            let mut views = self.peers.clone();
            views.insert(self.me, SubflowCcView { active: true, ..own });
            cc.couple(&views, self.me);
        }
    }

    /// The largest pacing rate that is not absurd for what the connection has shown.
    fn pacing_rate_cap(&self) -> u128 {
        let scale = PACING_GAIN_CAP * self.max_bytes as u128 * SECOND as u128 / self.min_time.max(1) as u128;
        scale.max(PACING_RATE_FLOOR_CAP)
    }

    fn observe(&mut self, window: u64) {
        self.max_bytes = self.max_bytes.max(window).max(self.in_flight);
    }

    /// FlightSize: sent and not cumulatively acknowledged (lost segments count as resent and
    /// are accounted as new data, so they leave it).
    fn flight_size(&self) -> u64 {
        self.in_flight + self.sacked
    }

    fn apply(&mut self, cc: &mut impl CongestionControl, op: &Op) {
        let mss = self.mss;
        match *op {
            Op::Send { segs, short_last, respect_cwnd, app_limited } => {
                for i in 0..segs {
                    let bytes = if i + 1 == segs { mss - (short_last as u64 % mss) } else { mss };
                    if (respect_cwnd && self.in_flight + bytes > cc.window()) || self.in_flight + bytes > MAX_IN_FLIGHT {
                        break;
                    }
                    self.in_flight += bytes;
                    self.pipe.push_back(Seg {
                        bytes,
                        sent: self.now,
                        delivered: self.delivered,
                        lost: self.lost,
                        tx_in_flight: self.in_flight,
                        app_limited,
                    });
                    cc.on_packet_sent(self.now, bytes as u32, self.in_flight);
                }
            }
            Op::Ack { dt_us, cum_segs, sack_segs, lost_segs, rtt, rate, cwnd_limited, flag_recovery } => {
                self.couple(cc);
                self.now += dt_us.max(1) as Time * MICROSECOND;
                let prior_in_flight = self.in_flight;
                let take = (cum_segs as usize + sack_segs as usize).min(self.pipe.len());
                let cum = (cum_segs as usize).min(take);
                let mut newest = None;
                let (mut bytes_delivered, mut bytes_acked) = (0, 0);
                for i in 0..take {
                    let s = self.pipe.pop_front().expect("take ≤ len");
                    self.in_flight -= s.bytes;
                    bytes_delivered += s.bytes;
                    if i < cum {
                        bytes_acked += s.bytes;
                    } else {
                        self.sacked += s.bytes;
                    }
                    newest = Some(s);
                }
                if cum > 0 {
                    // The cumulative ACK also covers what was SACKed before it.
                    bytes_acked += std::mem::take(&mut self.sacked);
                    self.in_loss = false;
                }
                self.delivered += bytes_delivered;
                let mut bytes_lost = 0;
                for _ in 0..lost_segs {
                    let Some(s) = self.pipe.pop_front() else { break };
                    self.in_flight -= s.bytes;
                    bytes_lost += s.bytes;
                }
                self.lost += bytes_lost;
                let rtt_sample = newest.as_ref().filter(|_| rtt).map(|s| self.now - s.sent);
                if let Some(r) = rtt_sample {
                    self.min_time = self.min_time.min(r);
                    self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
                    self.srtt = Some(self.srtt.map_or(r, |s| (7 * s + r) / 8));
                }
                let rate = newest.as_ref().filter(|_| rate).map(|s| {
                    let delivered = self.delivered - s.delivered;
                    let interval = (self.now - s.sent).max(MILLISECOND);
                    RateSample {
                        prior_delivered: s.delivered,
                        delivered,
                        interval,
                        delivery_rate: (interval >= self.min_rtt.unwrap_or(0))
                            .then(|| (delivered as u128 * SECOND as u128 / interval as u128) as u64),
                        is_app_limited: s.app_limited,
                        tx_in_flight: s.tx_in_flight,
                        lost: self.lost - s.lost,
                        rtt: self.now - s.sent,
                    }
                });
                let in_recovery = self.in_recovery || (self.just_exited_recovery && flag_recovery);
                self.just_exited_recovery = false;
                if let Some(rs) = &rate {
                    self.min_time = self.min_time.min(rs.interval).min(rs.rtt);
                    self.max_bytes = self.max_bytes.max(rs.delivered);
                }
                self.sample_seen |= rtt_sample.is_some() || rate.is_some();
                cc.on_ack(&AckEvent {
                    now: self.now,
                    bytes_acked,
                    bytes_delivered,
                    rtt_sample,
                    srtt: self.srtt.unwrap_or(0),
                    min_rtt: self.min_rtt.unwrap_or(0),
                    prior_in_flight,
                    in_flight: self.in_flight,
                    in_recovery,
                    cwnd_limited,
                    mss: mss as u32,
                    bytes_lost,
                    delivered_total: self.delivered,
                    lost_total: self.lost,
                    rate: rate.filter(|_| !self.strip_rate),
                    // Withheld with the samples from a controller that does not count rounds.
                    prior_delivered: rate.map(|r| r.prior_delivered).filter(|_| !self.strip_rate || cc.counts_rounds()),
                });
            }
            Op::CongestionEvent => {
                self.couple(cc);
                if !self.in_recovery && !self.in_loss {
                    self.in_recovery = true;
                    let ev = LossEvent { now: self.now, flight_size: self.flight_size(), mss: mss as u32, during_recovery: false };
                    cc.on_congestion_event(&ev);
                }
            }
            Op::RecoveryExit => {
                if self.in_recovery {
                    self.in_recovery = false;
                    self.just_exited_recovery = true;
                    cc.on_recovery_exit(self.now);
                }
            }
            Op::Rto => {
                self.couple(cc);
                if self.flight_size() > 0 {
                    let during_recovery = self.in_recovery || self.in_loss;
                    let ev = LossEvent { now: self.now, flight_size: self.flight_size(), mss: mss as u32, during_recovery };
                    cc.on_rto(&ev);
                    // The whole pipe is marked lost.
                    self.lost += self.in_flight;
                    self.in_flight = 0;
                    self.pipe.clear();
                    self.in_recovery = false;
                    self.just_exited_recovery = false;
                    self.in_loss = true;
                }
            }
            Op::Advance { us } => self.now += us * MICROSECOND,
            Op::Peer { i, view } => {
                let n = self.peers.len();
                if n > 0 {
                    self.peers[i as usize % n] = view;
                }
            }
        }
    }
}

fn invariants(cc: &impl CongestionControl, conn: &Conn) -> Result<(), String> {
    let (mss, sample_seen) = (conn.mss, conn.sample_seen);
    let w = cc.window();
    if w < mss {
        return Err(format!("window {w} B < 1 MSS ({mss} B)"));
    }
    if w > MAX_WINDOW {
        return Err(format!("window {w} B > 2^40 B"));
    }
    let ss = cc.ssthresh();
    if ss != u64::MAX && ss < 2 * mss {
        return Err(format!("ssthresh {ss} B < 2 MSS ({} B) and not u64::MAX", 2 * mss));
    }
    let rate = cc.pacing_rate();
    if let Some(r) = rate {
        if sample_seen && r == 0 {
            return Err("pacing rate 0 after an RTT or rate sample".into());
        }
        let cap = conn.pacing_rate_cap();
        if r as u128 > cap {
            return Err(format!(
                "pacing rate {r} B/s > {cap} B/s ({PACING_GAIN_CAP} × {} B per {} ns, at least 2^50)",
                conn.max_bytes, conn.min_time
            ));
        }
    }
    if let Some(q) = cc.send_quantum() {
        if q == 0 || q > MAX_WINDOW {
            return Err(format!("send quantum {q} B outside [1, 2^40]"));
        }
    }
    let m = cc.metrics();
    if (m.cwnd, m.ssthresh, m.pacing_rate) != (w, ss, rate) {
        return Err(format!("metrics() {m:?} disagree with window {w}, ssthresh {ss}, pacing rate {rate:?}"));
    }
    if cc.state_name().is_empty() {
        return Err("empty state_name()".into());
    }
    Ok(())
}

/// Build the named controller with the case's parameters and options.
fn build(name: &str, case: &Case) -> super::AnyCc {
    let mut cfg = CcConfig::default_for(name).unwrap_or_else(|| panic!("registry name `{name}` has no CcConfig"));
    let opts = cfg.option_names();
    for &(i, x, b) in &case.options {
        if opts.is_empty() {
            break;
        }
        let key = opts[i % opts.len()];
        if cfg.set(key, OptValue::Num(x)).is_err() {
            let _ = cfg.set(key, OptValue::Bool(b));
        }
    }
    cfg.build(CcParams { mss: case.mss, initial_cwnd_segments: case.initial_cwnd_segments })
}

/// Run one case against a controller; the error names the first operation that broke an
/// invariant.
fn run_case<C: CongestionControl>(mut cc: C, case: &Case) -> Result<(), String> {
    let mut conn = Conn::new(case.mss, case.peers.clone(), case.me);
    conn.observe(cc.window());
    invariants(&cc, &conn).map_err(|e| format!("after construction: {e}"))?;
    for (i, op) in case.ops.iter().enumerate() {
        let step = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| conn.apply(&mut cc, op)));
        if let Err(payload) = step {
            let msg = payload.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| payload.downcast_ref::<String>().cloned());
            return Err(format!("panic in op {i} {op:?}: {}", msg.unwrap_or_default()));
        }
        conn.observe(cc.window());
        invariants(&cc, &conn).map_err(|e| {
            format!(
                "after op {i} {op:?} (t = {} µs, in flight {} B, state {}): {e}",
                conn.now / MICROSECOND,
                conn.in_flight,
                cc.state_name()
            )
        })?;
    }
    Ok(())
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(FUZZ_CASES)
}

/// Fuzz one controller; Err carries the shrunk failing case.
fn fuzz<C: CongestionControl>(make: impl Fn(&Case) -> C, cases: u32) -> Result<(), String> {
    let config = Config { cases, failure_persistence: None, ..Config::default() };
    let mut runner = TestRunner::new(config);
    let result = runner.run(&case(), |c| run_case(make(&c), &c).map_err(TestCaseError::fail));
    match result {
        Ok(()) => Ok(()),
        Err(TestError::Fail(reason, c)) => Err(format!("{reason}\nminimal case: {c:#?}")),
        Err(TestError::Abort(reason)) => Err(format!("aborted: {reason}")),
    }
}

#[test]
fn every_registered_controller_keeps_its_invariants_under_random_operations() {
    let n = cases();
    let mut failures = Vec::new();
    for name in fuzzed_names() {
        let t = std::time::Instant::now();
        let result = fuzz(|c| build(name, c), n);
        println!("cc fuzz: {name:11} {n} cases in {:.2} s: {}", t.elapsed().as_secs_f64(), if result.is_ok() { "ok" } else { "FAILED" });
        if let Err(e) = result {
            failures.push(format!("`{name}`: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// What a controller shows after an operation.
fn observable(cc: &impl CongestionControl) -> (u64, u64, Option<u64>, &'static str) {
    (cc.window(), cc.ssthresh(), cc.pacing_rate(), cc.state_name())
}

/// Run one case twice, once with every rate sample withheld: Err names the first operation
/// after which the two controllers differ.
fn same_without_rate_samples(name: &str, case: &Case) -> Result<(), String> {
    let (mut with, mut without) = (build(name, case), build(name, case));
    let mut conn_with = Conn::new(case.mss, case.peers.clone(), case.me);
    let mut conn_without = Conn::new(case.mss, case.peers.clone(), case.me);
    conn_without.strip_rate = true;
    for (i, op) in case.ops.iter().enumerate() {
        conn_with.apply(&mut with, op);
        conn_without.apply(&mut without, op);
        let (a, b) = (observable(&with), observable(&without));
        if a != b {
            return Err(format!("after op {i} {op:?}: with rate samples {a:?}, without {b:?}"));
        }
    }
    Ok(())
}

/// `reads_rate_samples() == false` is a promise the transports rely on (TCP then keeps no
/// transmission state beside its scoreboard's records, QUIC no delivery-rate snapshots unless
/// the controller `counts_rounds`): every controller that makes it behaves the same when its
/// ACKs carry no rate samples, and also without `prior_delivered` when it does not count rounds.
#[test]
fn controllers_that_do_not_read_rate_samples_ignore_them() {
    let mut checked = Vec::new();
    for name in fuzzed_names() {
        let params = CcParams { mss: 1448, initial_cwnd_segments: 10 };
        if CcConfig::default_for(name).expect("a registry name").build(params).reads_rate_samples() {
            continue;
        }
        checked.push(name);
        let config = Config { cases: cases() / 4, failure_persistence: None, ..Config::default() };
        let result = TestRunner::new(config).run(&case(), |c| same_without_rate_samples(name, &c).map_err(TestCaseError::fail));
        if let Err(e) = result {
            panic!("`{name}` says it does not read rate samples, but: {e}");
        }
    }
    for name in ["reno", "newreno", "lia", "olia", "balia", "blp-adaptive", "ccid2", "cubic", "vegas", "wvegas"] {
        assert!(checked.contains(&name), "`{name}` no longer skips rate samples (checked: {checked:?})");
    }
}

// ----- the harness catches broken controllers ----------------------------------------------

/// Reno with a defect switched in, to check that the harness finds each kind of failure.
struct Broken {
    inner: super::Reno,
    mss: u64,
    defect: Defect,
    rtos: u32,
}

#[derive(Clone, Copy, Debug)]
enum Defect {
    /// After a second RTO the window drops below one MSS.
    WindowBelowOneMss,
    /// Panics on an ACK that acknowledges more than 64 segments at once.
    PanicOnStretchAck,
    /// ssthresh loses its 2-MSS floor.
    SsthreshWithoutFloor,
}

impl CongestionControl for Broken {
    fn on_ack(&mut self, ev: &AckEvent) {
        if matches!(self.defect, Defect::PanicOnStretchAck) && ev.bytes_acked > 64 * self.mss {
            panic!("stretch ACK");
        }
        self.inner.on_ack(ev)
    }
    fn on_congestion_event(&mut self, ev: &LossEvent) {
        self.inner.on_congestion_event(ev)
    }
    fn on_rto(&mut self, ev: &LossEvent) {
        self.rtos += 1;
        self.inner.on_rto(ev)
    }
    fn window(&self) -> u64 {
        match self.defect {
            Defect::WindowBelowOneMss if self.rtos >= 2 => self.inner.window() / 2,
            _ => self.inner.window(),
        }
    }
    fn ssthresh(&self) -> u64 {
        match self.defect {
            Defect::SsthreshWithoutFloor if self.inner.ssthresh() != u64::MAX => self.inner.ssthresh() / 4,
            _ => self.inner.ssthresh(),
        }
    }
}

/// With `--nocapture` the injected panic prints once per shrinking step (a few hundred lines);
/// libtest captures them otherwise.
#[test]
fn the_harness_finds_injected_defects() {
    for defect in [Defect::WindowBelowOneMss, Defect::PanicOnStretchAck, Defect::SsthreshWithoutFloor] {
        let make = |c: &Case| Broken {
            inner: super::Reno::new(
                CcParams { mss: c.mss, initial_cwnd_segments: c.initial_cwnd_segments },
                super::reno::Recovery::NewReno,
            ),
            mss: c.mss as u64,
            defect,
            rtos: 0,
        };
        let err = fuzz(make, 256).expect_err(&format!("{defect:?} went unnoticed"));
        println!("{defect:?} found: {}", err.lines().next().unwrap_or(""));
    }
}
