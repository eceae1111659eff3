//! Scripted exchanges with exact release times (seed 003 §2.1, §4.2; study notes check C10),
//! and property tests: every global number comes out at most once, in increasing order except
//! `Late` ones, never after its deadline; with FIFO paths fast loss detection never gives up a
//! number that still arrives.

use super::*;
use mptlab_engine::time::MILLISECOND as MS;
use mptlab_engine::{RngStream, StreamId, Time};
use Release::{Forced, InOrder, Late};

/// Drives a `Reorderer` the way the tunnel's event loop will: deadlines strictly before an
/// arrival fire first (at the deadline), then the arrival; `finish` fires what is left.
struct Drive {
    r: Reorderer,
    buf: Vec<(u64, Release)>,
    /// (release time, seq, kind)
    out: Vec<(Time, u64, Release)>,
}

impl Drive {
    fn new(cfg: ReorderConfig, paths: usize) -> Self {
        Drive { r: Reorderer::new(&cfg, paths), buf: Vec::new(), out: Vec::new() }
    }

    fn flush(&mut self, now: Time) {
        self.out.extend(self.buf.drain(..).map(|(s, k)| (now, s, k)));
    }

    fn advance(&mut self, t: Time) {
        while let Some(d) = self.r.deadline().filter(|&d| d < t) {
            self.r.on_timeout(d, &mut self.buf);
            self.flush(d);
        }
    }

    fn arrive(&mut self, now: Time, path: usize, seq: u64, path_seq: u64, sent_at: Time) {
        self.advance(now);
        self.r.on_arrival(now, Arrival { path, seq, path_seq, sent_at }, &mut self.buf);
        self.flush(now);
    }

    fn finish(&mut self) {
        self.advance(Time::MAX);
    }

    fn seqs(&self) -> Vec<u64> {
        self.out.iter().map(|o| o.1).collect()
    }
}

fn mode(m: ReorderMode) -> ReorderConfig {
    ReorderConfig { mode: m, ..ReorderConfig::default() }
}

/// Two paths, fast (path 0, 10 ms) and slow (path 1, 30 ms). Seq 0 goes on the slow path at
/// t = 0 (so both delays are known before the first gap); from then on seq k ≥ 1 leaves at
/// 20 + k ms, odd k on the fast path, even k on the slow one. Returns (path, seq, path_seq,
/// sent, arrival) in arrival order, without the `lost` ones.
fn interleaved(n: u64, lost: &[u64]) -> Vec<(usize, u64, u64, Time, Time)> {
    let mut v = Vec::new();
    for k in 0..n {
        let (path, path_seq, delay) = if k % 2 == 1 { (0, (k - 1) / 2, 10 * MS) } else { (1, k / 2, 30 * MS) };
        let sent = if k == 0 { 0 } else { (20 + k) * MS };
        if !lost.contains(&k) {
            v.push((path, k, path_seq, sent, sent + delay));
        }
    }
    v.sort_by_key(|a| (a.4, a.1));
    v
}

fn play(d: &mut Drive, arrivals: &[(usize, u64, u64, Time, Time)]) {
    for &(path, seq, path_seq, sent, at) in arrivals {
        d.arrive(at, path, seq, path_seq, sent);
    }
    d.finish();
}

#[test]
fn equal_delays_without_loss_hold_nothing_and_release_everything_in_order_at_arrival() {
    for m in [ReorderMode::Static, ReorderMode::Adaptive, ReorderMode::Equalize, ReorderMode::Off] {
        let mut d = Drive::new(ReorderConfig { padding: 0, ..mode(m) }, 2);
        for k in 0..100u64 {
            d.arrive((k + 10) * MS, (k % 2) as usize, k, k / 2, k * MS);
            assert_eq!(d.r.deadline(), None);
        }
        d.finish();
        let want: Vec<_> = (0..100u64).map(|k| ((k + 10) * MS, k, InOrder)).collect();
        assert_eq!(d.out, want, "{m:?}");
        let s = d.r.stats();
        assert_eq!((s.in_order, s.held, s.forced_gaps, s.hold_time.count, s.max_held), (100, 0, 0, 0, 0), "{m:?}");
    }
}

#[test]
fn adaptive_holds_fast_path_packets_for_the_slow_path_within_the_delay_difference_plus_padding() {
    let mut d = Drive::new(mode(ReorderMode::Adaptive), 2);
    play(&mut d, &interleaved(40, &[]));
    assert_eq!(d.seqs(), (0..40).collect::<Vec<_>>());
    for &(t, k, kind) in &d.out {
        assert_eq!(kind, InOrder);
        // Seq 0 at 30 ms, seq 1 at 31 ms; then each even k arrives at 50 + k ms and releases
        // the odd k + 1 that arrived at 31 + k ms (held 19 ms).
        let want = match k {
            0 => 30,
            1 => 31,
            k if k % 2 == 0 => 50 + k,
            k => 49 + k,
        };
        assert_eq!(t, want * MS, "seq {k}");
    }
    assert_eq!(d.r.wait_limit(0), 25 * MS, "(30 − 10) + 5 ms");
    let s = d.r.stats();
    assert_eq!((s.held, s.hold_time.max, s.hold_time.total), (19, 19 * MS, 19 * 19 * MS));
    assert!(s.hold_time.max <= 25 * MS);
    // Fast packet 2j+1 waits from 2j+31 to 2j+50 ms: ten are held at once.
    assert_eq!(s.max_held, 10);
}

#[test]
fn a_lost_packet_gap_is_given_up_exactly_at_the_wait_limit_without_fast_loss_detection() {
    let cfg = ReorderConfig { fast_loss: FastLoss::Off, ..mode(ReorderMode::Adaptive) };
    let mut d = Drive::new(cfg, 2);
    play(&mut d, &interleaved(24, &[10]));
    // Seq 11 (fast) arrives at 41 ms behind the lost 10 and waits 25 ms: at 66 ms gap 10 is
    // given up and 11..17 leave (16 arrived at 66 ms itself: an arrival at a deadline is
    // handled first); 18 arrives at 68 ms in order.
    let forced: Vec<_> = d.out.iter().filter(|o| o.2 == Forced).copied().collect();
    assert_eq!(forced, (11..=17).map(|k| (66 * MS, k, Forced)).collect::<Vec<_>>());
    assert!(d.out.contains(&(68 * MS, 18, InOrder)) && d.out.contains(&(68 * MS, 19, InOrder)));
    assert_eq!(d.seqs(), (0..24).filter(|&k| k != 10).collect::<Vec<_>>());
    let s = d.r.stats();
    assert_eq!((s.forced_gaps, s.fast_loss, s.forced, s.late), (1, 0, 7, 0));
}

#[test]
fn fast_loss_detection_gives_up_the_gap_at_the_arrival_that_proves_it() {
    let mut d = Drive::new(mode(ReorderMode::Adaptive), 2);
    play(&mut d, &interleaved(24, &[10]));
    // Proof (A): the fast path is past 10 since 11 (41 ms); the slow path since 12 arrives at
    // 62 ms. Then 11, 12 and 13 (43 ms) leave; 14 arrives at 64 ms in order.
    let forced: Vec<_> = d.out.iter().filter(|o| o.2 == Forced).copied().collect();
    assert_eq!(forced, vec![(62 * MS, 11, Forced), (62 * MS, 12, Forced), (62 * MS, 13, Forced)]);
    assert!(d.out.contains(&(64 * MS, 14, InOrder)));
    assert_eq!(d.seqs(), (0..24).filter(|&k| k != 10).collect::<Vec<_>>());
    let s = d.r.stats();
    assert_eq!((s.forced_gaps, s.fast_loss, s.forced, s.late), (1, 1, 3, 0));
}

#[test]
fn fast_loss_by_path_sequence_works_while_the_other_path_is_idle() {
    // Path 0 at 10 ms carries everything, path 1 is declared but idle: proof (A) cannot hold,
    // proof (B) does. Seq 3 lost: 4 (path seq 4 after path seq 2) proves it at 14 ms.
    // Seqs 7 and 8 lost: 9 (path seq 9 after 6) proves both at 19 ms.
    let mut d = Drive::new(mode(ReorderMode::Static), 2);
    for k in (0..12u64).filter(|k| ![3, 7, 8].contains(k)) {
        d.arrive((k + 10) * MS, 0, k, k, k * MS);
    }
    d.finish();
    let kinds: Vec<_> = d.out.iter().map(|o| (o.0 / MS, o.1, o.2)).collect();
    let want = [(10, 0, InOrder), (11, 1, InOrder), (12, 2, InOrder), (14, 4, Forced), (15, 5, InOrder)];
    assert_eq!(kinds[..5], want);
    assert_eq!(kinds[5..], [(16, 6, InOrder), (19, 9, Forced), (20, 10, InOrder), (21, 11, InOrder)]);
    let s = d.r.stats();
    assert_eq!((s.forced_gaps, s.fast_loss, s.held), (3, 3, 0));
}

#[test]
fn fast_loss_does_not_give_up_the_first_packet_of_a_path_just_brought_into_use() {
    // Seqs 0..4 and 6.. on the fast path (10 ms), seq 5 the first packet on the slow path
    // (40 ms), as a CPF scheduler does when the fast path's window fills. Nothing proves 5
    // lost: it arrives at 45 ms and releases 6..34 in order.
    let mut d = Drive::new(ReorderConfig { wait: 100 * MS, ..mode(ReorderMode::Static) }, 2);
    let mut arrivals = Vec::new();
    for k in 0..40u64 {
        let (path, path_seq, delay) = if k == 5 { (1, 0, 40 * MS) } else { (0, if k < 5 { k } else { k - 1 }, 10 * MS) };
        arrivals.push((path, k, path_seq, k * MS, k * MS + delay));
    }
    arrivals.sort_by_key(|a| (a.4, a.1));
    play(&mut d, &arrivals);
    assert_eq!(d.seqs(), (0..40).collect::<Vec<_>>());
    assert!(d.out.iter().all(|o| o.2 == InOrder));
    assert!(d.out.contains(&(45 * MS, 5, InOrder)) && d.out.contains(&(45 * MS, 34, InOrder)));
    assert_eq!(d.r.stats().forced_gaps, 0);
}

/// Seq 0 on a 40 ms path, seq 1 on a 10 ms path, both sent at 0; static wait 15 ms, no fast
/// loss detection: 1 waits from 10 to 25 ms, then 0 arrives at 40 ms, late.
fn late_script(late: LatePolicy) -> Drive {
    let cfg = ReorderConfig { mode: ReorderMode::Static, fast_loss: FastLoss::Off, late, ..ReorderConfig::default() };
    let mut d = Drive::new(cfg, 2);
    d.arrive(10 * MS, 1, 1, 0, 0);
    assert_eq!(d.r.deadline(), Some(25 * MS), "static mode waits exactly `wait`");
    d.r.on_timeout(25 * MS - 1, &mut d.buf);
    assert!(d.buf.is_empty(), "a call before the deadline does nothing");
    d.arrive(40 * MS, 0, 0, 0, 0);
    d.finish();
    d
}

#[test]
fn static_mode_waits_exactly_wait_and_a_packet_arriving_after_its_gap_was_given_up_is_late() {
    let d = late_script(LatePolicy::Forward);
    assert_eq!(d.out, vec![(25 * MS, 1, Forced), (40 * MS, 0, Late)]);
    let s = d.r.stats();
    assert_eq!((s.forced_gaps, s.forced, s.late, s.late_dropped, s.hold_time.max), (1, 1, 1, 0, 15 * MS));
}

#[test]
fn late_packets_are_dropped_with_late_drop() {
    let d = late_script(LatePolicy::Drop);
    assert_eq!(d.out, vec![(25 * MS, 1, Forced)]);
    assert_eq!((d.r.stats().late, d.r.stats().late_dropped), (0, 1));
}

#[test]
fn equalize_delays_fast_path_packets_by_the_delay_difference() {
    // §2.1: "paths of 10 and 30 ms add 20 ms to the shorter path's packets". Padding 0: every
    // packet leaves 30 ms after it was sent, fast ones held exactly 20 ms, slow ones not held.
    let mut d = Drive::new(ReorderConfig { padding: 0, ..mode(ReorderMode::Equalize) }, 2);
    play(&mut d, &interleaved(40, &[]));
    let want: Vec<_> = (0..40u64).map(|k| (if k == 0 { 30 } else { 50 + k } * MS, k, InOrder)).collect();
    assert_eq!(d.out, want);
    let s = d.r.stats();
    assert_eq!((s.held, s.hold_time.max, s.hold_time.mean()), (20, 20 * MS, (20 * MS) as f64));
}

#[test]
fn equalize_with_padding_adds_it_to_every_packet() {
    // Default 5 ms padding: seq 0 (only the slow path known) waits 5 ms; from then on fast
    // packets wait 20 + 5 ms, slow ones 5 ms: all leave 35 ms after they were sent, even gaps
    // do not matter (seq 10 lost: 11 leaves on time, Forced).
    let mut d = Drive::new(mode(ReorderMode::Equalize), 2);
    play(&mut d, &interleaved(20, &[10]));
    for &(t, k, kind) in &d.out {
        let sent = if k == 0 { 0 } else { (20 + k) * MS };
        assert_eq!(t, sent + 35 * MS, "seq {k}");
        assert_eq!(kind, if k == 11 { Forced } else { InOrder });
    }
    assert_eq!(d.seqs(), (0..20).filter(|&k| k != 10).collect::<Vec<_>>());
    assert_eq!(d.r.stats().hold_time.max, 25 * MS);
}

#[test]
fn a_full_ring_gives_up_the_head_gap() {
    let cfg = ReorderConfig { capacity: 4, wait: 1000 * MS, fast_loss: FastLoss::Off, ..mode(ReorderMode::Static) };
    let mut d = Drive::new(cfg, 1);
    for k in 1..=3u64 {
        d.arrive(k * MS, 0, k, k, 0);
    }
    assert_eq!((d.out.len(), d.r.held()), (0, 3));
    // 4 lies 4 above the missing 0: the ring has no slot; 0 is given up.
    d.arrive(4 * MS, 0, 4, 4, 0);
    assert_eq!(d.out, vec![(4 * MS, 1, Forced), (4 * MS, 2, Forced), (4 * MS, 3, Forced), (4 * MS, 4, InOrder)]);
    // Next 5: 6 and 7 held, 10 arrives: 5 is given up, 6 and 7 leave, 10 fits (held).
    d.out.clear();
    d.arrive(5 * MS, 0, 6, 6, 0);
    d.arrive(6 * MS, 0, 7, 7, 0);
    d.arrive(7 * MS, 0, 10, 10, 0);
    assert_eq!(d.out, vec![(7 * MS, 6, Forced), (7 * MS, 7, Forced)]);
    assert_eq!((d.r.held(), d.r.next_expected(), d.r.stats().forced_gaps, d.r.stats().max_held), (1, 8, 2, 3));
}

#[test]
fn off_mode_releases_every_arrival_at_once() {
    let mut d = Drive::new(ReorderConfig { late: LatePolicy::Drop, ..mode(ReorderMode::Off) }, 2);
    d.arrive(MS, 0, 0, 0, 0);
    d.arrive(2 * MS, 0, 2, 1, 0);
    d.arrive(3 * MS, 1, 1, 0, 0);
    assert_eq!(d.out, vec![(MS, 0, InOrder), (2 * MS, 2, Forced), (3 * MS, 1, Late)]);
    assert_eq!(d.r.stats().forced_gaps, 1);
}

#[test]
fn adaptive_wait_is_the_padding_with_one_path_known_and_the_cap_clips_it() {
    let mut d = Drive::new(mode(ReorderMode::Adaptive), 2);
    d.arrive(11 * MS, 0, 1, 0, MS);
    assert_eq!(d.r.deadline(), Some(16 * MS), "one path known: 0 + 5 ms padding");
    // A 200 ms path appears (seq 0, 199 ms after it was sent... at 210 ms, after 1 was forced).
    d.arrive(210 * MS, 1, 0, 0, 10 * MS);
    assert_eq!(d.r.wait_limit(0), 195 * MS);
    let capped = ReorderConfig { cap: Some(100 * MS), padding: 150 * MS, ..mode(ReorderMode::Adaptive) };
    let mut c = Drive::new(capped, 2);
    c.arrive(10 * MS, 0, 5, 0, 0);
    c.arrive(200 * MS, 1, 6, 0, 0);
    assert_eq!(c.r.wait_limit(0), 100 * MS, "190 + 150 ms capped at 100 ms");
}

#[test]
fn config_defaults_are_the_papers_settings_and_names_are_case_insensitive() {
    let c = ReorderConfig::default();
    assert_eq!((c.mode, c.wait, c.padding, c.cap, c.ewma_new), (ReorderMode::Adaptive, 15 * MS, 5 * MS, None, 0.95));
    assert_eq!((c.fast_loss, c.late, c.capacity), (FastLoss::Path, LatePolicy::Forward, 2048));
    let j = serde_json::to_string(&c).unwrap();
    let want = r#"{"mode":"adaptive","wait":15000000,"padding":5000000,"cap":null,"ewma_new":0.95,"fast_loss":"path","late":"forward","capacity":2048}"#;
    assert_eq!(j, want);
    assert_eq!(ReorderMode::from_name("EQUALIZE"), Ok(ReorderMode::Equalize));
    assert_eq!(
        ReorderMode::from_name("dynamic").unwrap_err(),
        "unknown reordering mode \"dynamic\"; known: off, static, adaptive, equalize"
    );
    assert!(ReorderConfig { capacity: 0, ..c.clone() }.validate().is_err());
    assert!(ReorderConfig { ewma_new: 0.0, ..c }.validate().is_err());
}

#[test]
fn stats_serialize_hold_time_in_milliseconds() {
    let d = late_script(LatePolicy::Forward);
    let j = serde_json::to_value(d.r.stats()).unwrap();
    assert_eq!(j["hold_time"], serde_json::json!({"count": 1, "mean_ms": 15.0, "max_ms": 15.0}));
    assert_eq!((j["forced_gaps"].as_u64(), j["late"].as_u64()), (Some(1), Some(1)));
}

// ---- property tests ----

const MODES: [ReorderMode; 4] = [ReorderMode::Off, ReorderMode::Static, ReorderMode::Adaptive, ReorderMode::Equalize];

/// Checks a finished run: each number at most once and only if it arrived, non-late ones in
/// increasing order, the counters add up.
fn check_output(d: &Drive, arrived: &[bool], n_arrivals: u64) -> Result<(), String> {
    let mut seen = vec![false; arrived.len()];
    let mut last: Option<u64> = None;
    for &(_, k, kind) in &d.out {
        let k_us = k as usize;
        if !arrived[k_us] || seen[k_us] {
            return Err(format!("seq {k} released twice or never sent"));
        }
        seen[k_us] = true;
        if kind != Late {
            if last.is_some_and(|l| l >= k) {
                return Err(format!("seq {k} after {last:?}"));
            }
            last = Some(k);
        }
    }
    let s = d.r.stats();
    if d.r.held() != 0 || s.in_order + s.forced + s.late + s.late_dropped != n_arrivals || d.out.len() as u64 != n_arrivals - s.late_dropped
    {
        return Err(format!("counters do not add up: {s:?}, held {}", d.r.held()));
    }
    if s.late + s.late_dropped > s.forced_gaps {
        return Err(format!("more late packets than given-up numbers: {s:?}"));
    }
    Ok(())
}

proptest::proptest! {
    /// Random arrival orders (per-packet delays 0–50 ms, so paths are not FIFO), random losses,
    /// every mode and option: every number comes out at most once, in increasing order except
    /// `Late` ones, no held packet outlives its wait limit (release ≤ arrival + the largest
    /// limit the mode can compute), and a timeout before the deadline releases nothing.
    #[test]
    fn every_number_leaves_at_most_once_in_order_and_before_its_deadline(
        seed in 0u64..u64::MAX, n in 1usize..300, paths in 1usize..4, m in 0usize..4,
        fast in proptest::bool::ANY, drop_late in proptest::bool::ANY, capacity in 1usize..40, loss in 0.0f64..0.3,
    ) {
        let cfg = ReorderConfig {
            mode: MODES[m], fast_loss: if fast { FastLoss::Path } else { FastLoss::Off },
            late: if drop_late { LatePolicy::Drop } else { LatePolicy::Forward }, capacity, ..ReorderConfig::default()
        };
        let bound = match cfg.mode {
            ReorderMode::Off => 0,
            ReorderMode::Static => cfg.wait,
            ReorderMode::Adaptive | ReorderMode::Equalize => 50 * MS + cfg.padding,
        };
        let mut rng = RngStream::new(seed, StreamId::new(22, 0));
        let mut arrivals = Vec::new();
        let mut arrived = vec![false; n];
        let mut path_seq = vec![0u64; paths];
        for (k, a) in arrived.iter_mut().enumerate() {
            let path = (rng.next_u64() % paths as u64) as usize;
            let sent = k as Time * 300_000;
            let q = path_seq[path];
            path_seq[path] += 1;
            if !rng.bernoulli(loss) {
                *a = true;
                arrivals.push((sent + rng.next_u64() % (50 * MS + 1), rng.next_u64(), path, k as u64, q, sent));
            }
        }
        arrivals.sort();
        let mut d = Drive::new(cfg, paths);
        let mut at = vec![0; n];
        for &(t, _, path, k, q, sent) in &arrivals {
            if let Some(dl) = d.r.deadline().filter(|&dl| dl > 0 && dl < t) {
                d.r.on_timeout(dl - 1, &mut d.buf);
                proptest::prop_assert!(d.buf.is_empty(), "on_timeout before the deadline released {:?}", d.buf);
            }
            at[k as usize] = t;
            d.arrive(t, path, k, q, sent);
        }
        d.finish();
        for &(t, k, _) in &d.out {
            proptest::prop_assert!(t <= at[k as usize] + bound, "seq {} arrived {} left {} (bound {})", k, at[k as usize], t, bound);
        }
        let r = check_output(&d, &arrived, arrivals.len() as u64);
        proptest::prop_assert!(r.is_ok(), "{:?}", r);
    }

    /// FIFO paths (constant base delay per path plus jitter that never reorders a path), random
    /// losses, a wait limit longer than the run: only fast loss detection gives gaps up, and it
    /// never gives up a number that still arrives (no `Late`); after the final timeouts every
    /// arrived number has left once, in order, and every lost one was given up.
    #[test]
    fn fast_loss_detection_never_gives_up_a_number_that_still_arrives_on_fifo_paths(
        seed in 0u64..u64::MAX, n in 1usize..400, paths in 1usize..5, loss in 0.0f64..0.4,
    ) {
        let cfg = ReorderConfig { mode: ReorderMode::Static, wait: 3600 * 1000 * MS, capacity: 512, ..ReorderConfig::default() };
        let mut rng = RngStream::new(seed, StreamId::new(22, 1));
        let base: Vec<Time> = (0..paths).map(|_| rng.next_u64() % (50 * MS)).collect();
        let tiebreak: Vec<u64> = (0..paths).map(|_| rng.next_u64()).collect();
        let mut last_at = vec![0; paths];
        let mut path_seq = vec![0u64; paths];
        let mut arrivals = Vec::new();
        let mut arrived = vec![false; n];
        for (k, a) in arrived.iter_mut().enumerate() {
            let path = (rng.next_u64() % paths as u64) as usize;
            let sent = k as Time * 200_000;
            let q = path_seq[path];
            path_seq[path] += 1;
            if !rng.bernoulli(loss) {
                let t = (sent + base[path] + rng.next_u64() % (5 * MS)).max(last_at[path]);
                last_at[path] = t;
                *a = true;
                arrivals.push((t, tiebreak[path], k as u64, path, q, sent));
            }
        }
        arrivals.sort();
        let mut d = Drive::new(cfg, paths);
        for &(t, _, k, path, q, sent) in &arrivals {
            d.arrive(t, path, k, q, sent);
            let s = d.r.stats();
            proptest::prop_assert_eq!((s.late, s.late_dropped), (0, 0), "fast loss gave up a number that arrived: seq {}", k);
            proptest::prop_assert_eq!(s.fast_loss, s.forced_gaps);
        }
        d.finish();
        let lost = arrived.iter().filter(|a| !**a).count() as u64;
        let last_arrived = arrived.iter().rposition(|a| *a).map_or(0, |i| i as u64 + 1);
        // Numbers lost after the last arrival were never sent as far as the receiver knows.
        let lost_before_last = arrived[..last_arrived as usize].iter().filter(|a| !**a).count() as u64;
        proptest::prop_assert_eq!(d.r.stats().forced_gaps, lost_before_last);
        proptest::prop_assert!(lost_before_last <= lost);
        let r = check_output(&d, &arrived, arrivals.len() as u64);
        proptest::prop_assert!(r.is_ok(), "{:?}", r);
    }
}
