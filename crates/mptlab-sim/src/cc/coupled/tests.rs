//! Coupled controllers against their sources: LIA (RFC 6356), OLIA (Khalili et al.), BALIA
//! (Peng et al.), wVegas (Cao et al., Linux mptcp_wvegas.c), and the composition with a per-path
//! controller (seed 001, `compose.rs`). Hand-computed numbers are worked out in the comments.

use super::olia::{OliaPath, OliaSets};
use super::wvegas::rate_share;
use super::*;
use crate::cc::options::OptValue;
use crate::cc::registry::{self, COMPOSITES, COMPOSITE_NOTE, CONGESTION_CONTROLLERS, COUPLED, PATH_CONTROLLERS};
use crate::cc::reno::{Recovery, Reno};
use crate::cc::{AnyCc, CcConfig, RateSample};
use mptlab_engine::time::MILLISECOND as MS;

const MSS: u32 = 1000;
const M: u64 = MSS as u64;

fn params(initial_cwnd_segments: u32) -> CcParams {
    CcParams { mss: MSS, initial_cwnd_segments }
}

fn ack(bytes: u64, srtt: Time) -> AckEvent {
    AckEvent { bytes_acked: bytes, cwnd_limited: true, mss: MSS, srtt, min_rtt: srtt, ..Default::default() }
}

/// An ACK that only carries the RTT (nothing acknowledged: no growth).
fn rtt_only(srtt: Time) -> AckEvent {
    ack(0, srtt)
}

fn loss(flight_size: u64) -> LossEvent {
    LossEvent { flight_size, mss: MSS, ..Default::default() }
}

fn view(cwnd: u64, srtt: Time) -> SubflowCcView {
    SubflowCcView { active: true, cwnd, ssthresh: cwnd, srtt, min_rtt: srtt, mss: MSS, ..Default::default() }
}

/// Put a controller in congestion avoidance at `w` bytes with smoothed RTT `srtt`: a
/// congestion event with FlightSize 2w, the end of recovery, an ACK with the RTT only.
fn in_congestion_avoidance<C: CongestionControl>(mut c: C, w: u64, srtt: Time) -> C {
    c.on_congestion_event(&loss(2 * w));
    c.on_recovery_exit(0);
    c.on_ack(&rtt_only(srtt));
    assert_eq!((c.window(), c.state_name()), (w, "congestion_avoidance"));
    c
}

/// The views of `me` (its own) and of `peers`, `me` first.
fn with_peers(me: &impl CongestionControl, peers: &[SubflowCcView]) -> Vec<SubflowCcView> {
    std::iter::once(me.coupled_view().unwrap()).chain(peers.iter().copied()).collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1e-300)
}

// ----- LIA (RFC 6356) ----------------------------------------------------------------------

#[test]
fn lia_alpha_is_rfc6356_eq2_on_hand_computed_views() {
    // Subflow 0: cwnd 20 000 B, rtt 100 ms; subflow 1: cwnd 10 000 B, rtt 50 ms.
    // cwnd_total = 30 000; cwnd/rtt² = 2e6 and 4e6 (max 4e6); Σ cwnd/rtt = 2e5 + 2e5 = 4e5.
    // alpha = 30 000 · 4e6 / (4e5)² = 0.75.
    let mut lia = in_congestion_avoidance(Lia::new(params(10)), 20 * M, 100 * MS);
    assert_eq!(lia.alpha(), None, "uncoupled until coupled");
    let views = with_peers(&lia, &[view(10 * M, 50 * MS)]);
    lia.couple(&views, 0);
    assert!(close(lia.alpha().unwrap(), 0.75), "{:?}", lia.alpha());
    // eq. (1): min(0.75·MSS/30 000, MSS/20 000) per byte = one MSS per max(40 000, 20 000) bytes.
    assert_eq!(lia.bytes_per_increase(), 40_000);
    for _ in 0..39 {
        lia.couple(&with_peers(&lia, &[view(10 * M, 50 * MS)]), 0);
        lia.on_ack(&ack(M, 100 * MS));
    }
    assert_eq!(lia.window(), 20 * M);
    lia.couple(&with_peers(&lia, &[view(10 * M, 50 * MS)]), 0);
    lia.on_ack(&ack(M, 100 * MS));
    assert_eq!(lia.window(), 21 * M);
}

#[test]
fn lia_increase_is_capped_by_the_uncoupled_reno_increase() {
    // A fast path with a small window (2 000 B, 1 ms) and a slow one with a large window
    // (100 000 B, 100 ms): cwnd/rtt = 2e6 and 1e6, cwnd/rtt² = 2e9 and 1e7.
    // alpha = 102 000 · 2e9 / (3e6)² = 22.67; cwnd_total/alpha = 102 000 · 9e12 / (102 000 · 2e9)
    // = 4 500 B. On the slow path Reno's term MSS/100 000 is the smaller: one MSS per 100 000 B
    // acknowledged, not per 4 500. On the fast path LIA's term is: 4 500 > 2 000.
    let slow = in_congestion_avoidance(Lia::new(params(10)), 100 * M, 100 * MS);
    let fast = in_congestion_avoidance(Lia::new(params(10)), 2 * M, MS);
    let (mut slow, mut fast) = (slow, fast);
    let views = [slow.coupled_view().unwrap(), fast.coupled_view().unwrap()];
    slow.couple(&views, 0);
    fast.couple(&views, 1);
    assert!(close(slow.alpha().unwrap(), 102_000.0 * 2e9 / 9e12));
    assert_eq!(slow.bytes_per_increase(), 100 * M, "capped at Reno's");
    assert_eq!(fast.bytes_per_increase(), 4_500, "coupled");
}

#[test]
fn lia_equal_subflows_have_alpha_one_over_n() {
    // n subflows with the same window w and RTT: alpha = n·w · (w/rtt²) / (n·w/rtt)² = 1/n, and
    // each grows by one MSS per cwnd_total/alpha = n²·w bytes: 1/n² of Reno's rate per subflow,
    // 1/n for the connection, which halves only the subflow that lost (1/n of the total).
    for n in 1..=4usize {
        let mut lias: Vec<Lia> = (0..n).map(|_| in_congestion_avoidance(Lia::new(params(10)), 20 * M, 80 * MS)).collect();
        let views: Vec<_> = lias.iter().map(|l| l.coupled_view().unwrap()).collect();
        for (i, l) in lias.iter_mut().enumerate() {
            l.couple(&views, i);
            if n == 1 {
                assert_eq!(l.alpha(), None, "one subflow: Reno");
            } else {
                assert!(close(l.alpha().unwrap(), 1.0 / n as f64));
            }
            assert_eq!(l.bytes_per_increase(), (n * n) as u64 * 20 * M);
        }
    }
}

/// `n` subflows with the same RTT, each losing every `loss_every`-th of its packets; each round
/// every subflow has its window acknowledged one MSS at a time (coupling before each ACK). A
/// loss is a congestion event with FlightSize = cwnd followed by the end of recovery. Returns
/// the mean over rounds (after a warm-up) of the total window, in segments.
fn mean_total_window<C: CongestionControl>(ccs: &mut [C], loss_every: u64, rounds: usize) -> f64 {
    let mut sent = vec![0u64; ccs.len()];
    let (mut sum, mut counted) = (0.0, 0);
    for round in 0..rounds {
        for i in 0..ccs.len() {
            let acks = ccs[i].window() / M;
            for _ in 0..acks {
                let views: Vec<_> = ccs.iter().map(|c| c.coupled_view().unwrap_or_default()).collect();
                ccs[i].couple(&views, i);
                sent[i] += 1;
                if sent[i].is_multiple_of(loss_every) {
                    let w = ccs[i].window();
                    ccs[i].on_congestion_event(&loss(w));
                    ccs[i].on_recovery_exit(0);
                } else {
                    ccs[i].on_ack(&ack(M, 100 * MS));
                }
            }
        }
        if round >= rounds / 5 {
            sum += ccs.iter().map(|c| c.window() as f64 / M as f64).sum::<f64>();
            counted += 1;
        }
    }
    sum / counted as f64
}

#[test]
fn lia_equal_subflows_together_take_what_one_reno_flow_takes() {
    // RFC 6356 §2 goals 1 and 2: on paths with the same RTT and loss rate, the multipath flow
    // gets what one TCP flow would. Two LIA subflows, each losing one packet in 1 500 of its
    // own, against one Reno flow losing one in 1 500 (and against two uncoupled Reno subflows).
    let reno = || Reno::new(params(10), Recovery::NewReno);
    let one = mean_total_window(&mut [reno()], 1500, 4000);
    let lia = mean_total_window(&mut [Lia::new(params(10)), Lia::new(params(10))], 1500, 4000);
    let uncoupled = mean_total_window(&mut [reno(), reno()], 1500, 4000);
    println!("mean total window: Reno {one:.1}, LIA × 2 {lia:.1}, Reno × 2 {uncoupled:.1} segments");
    assert!((lia / one - 1.0).abs() < 0.1, "LIA total {lia} vs one Reno {one}");
    assert!((uncoupled / one - 2.0).abs() < 0.2, "uncoupled {uncoupled} vs one Reno {one}");
}

/// A scripted sequence of ACKs (of 0 to 50 segments, some not cwnd-limited, delayed and stretch
/// ACKs), congestion events, recovery exits and timeouts (in and outside recovery), from a
/// fixed xorshift seed.
fn scripted_ops(n: usize) -> Vec<Op> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut in_recovery = false;
    let mut ops = Vec::with_capacity(n);
    for _ in 0..n {
        let r = next() % 100;
        let op = if r < 80 {
            let bytes = [0, M / 2, M, M, M, 2 * M, 2 * M, 3 * M, 7 * M, 50 * M][(next() % 10) as usize];
            Op::Ack { bytes, cwnd_limited: next() % 10 != 0, in_recovery }
        } else if r < 88 && !in_recovery {
            in_recovery = true;
            Op::Loss { flight: (next() % 200 + 1) * M / 2 }
        } else if r < 96 && in_recovery {
            in_recovery = false;
            Op::RecoveryExit
        } else if r >= 98 {
            let during_recovery = in_recovery;
            in_recovery = false;
            Op::Rto { flight: (next() % 200 + 1) * M / 2, during_recovery }
        } else {
            Op::Ack { bytes: M, cwnd_limited: true, in_recovery }
        };
        ops.push(op);
    }
    ops
}

#[derive(Clone, Copy, Debug)]
enum Op {
    Ack { bytes: u64, cwnd_limited: bool, in_recovery: bool },
    Loss { flight: u64 },
    RecoveryExit,
    Rto { flight: u64, during_recovery: bool },
}

fn apply(c: &mut impl CongestionControl, op: Op) {
    match op {
        Op::Ack { bytes, cwnd_limited, in_recovery } => c.on_ack(&AckEvent { cwnd_limited, in_recovery, ..ack(bytes, 100 * MS) }),
        Op::Loss { flight } => c.on_congestion_event(&loss(flight)),
        Op::RecoveryExit => c.on_recovery_exit(0),
        Op::Rto { flight, during_recovery } => c.on_rto(&LossEvent { during_recovery, ..loss(flight) }),
    }
}

/// A coupled controller on one subflow (never coupled, or coupled with peers that do not
/// count) follows Reno's window ACK for ACK.
#[test]
fn one_subflow_lia_olia_and_balia_are_reno_ack_for_ack() {
    let ops = scripted_ops(20_000);
    let inactive = SubflowCcView { active: false, ..view(50 * M, 10 * MS) };
    let no_rtt_yet = view(50 * M, 0);
    for name in ["lia", "olia", "balia", "lia+reno", "lia+newreno", "olia+newreno"] {
        for coupled_with_idle_peers in [false, true] {
            let mut reno = Reno::new(params(10), Recovery::NewReno);
            let mut c = CcConfig::default_for(name).unwrap().build(params(10));
            let (mut grew, mut losses) = (0, 0);
            for (i, &op) in ops.iter().enumerate() {
                if coupled_with_idle_peers {
                    let views = [inactive, c.coupled_view().unwrap(), no_rtt_yet];
                    c.couple(&views, 1);
                }
                let before = reno.window();
                apply(&mut reno, op);
                apply(&mut c, op);
                grew += (reno.window() > before) as u32;
                losses += matches!(op, Op::Loss { .. }) as u32;
                assert_eq!(
                    (c.window(), c.ssthresh()),
                    (reno.window(), reno.ssthresh()),
                    "`{name}` left Reno's trajectory at op {i} {op:?}"
                );
            }
            assert!(grew > 1000 && losses > 500, "the script exercises growth ({grew}) and loss ({losses})");
        }
    }
}

// ----- OLIA --------------------------------------------------------------------------------

fn olia_path(w: u64, srtt: Time, ell: u64) -> OliaPath {
    OliaPath { w, srtt, ell }
}

#[test]
fn olia_sets_and_alphas_on_hand_computed_paths() {
    // ℓ/rtt² in bytes/s²: 100 000/0.1² = 1e7; 50 000/0.05² = 2e7.
    let p0 = olia_path(30 * M, 100 * MS, 100_000);
    let p1 = olia_path(10 * M, 50 * MS, 50_000);
    let p2 = olia_path(10 * M, 50 * MS, 50_000);

    // M = {p0} (largest window), B = {p1, p2} (best ℓ/rtt²): B\M = {p1, p2}, |R| = 3.
    // α = −1/(3·1) for p0, 1/(3·2) for p1 and p2; Σα = 0.
    let paths = [p0, p1, p2];
    let s = OliaSets::of(paths.iter().copied());
    assert_eq!((s.r, s.m, s.b_not_m), (3, 1, 2));
    assert_eq!(paths.map(|p| (s.in_m(&p), s.in_b(&p))), [(true, false), (false, true), (false, true)]);
    let alphas = paths.map(|p| s.alpha(&p));
    assert!(close(alphas[0], -1.0 / 3.0) && close(alphas[1], 1.0 / 6.0) && close(alphas[2], 1.0 / 6.0));

    // The best path also has the largest window: B ⊂ M, B\M = ∅, every α = 0.
    let best_and_largest = olia_path(30 * M, 100 * MS, 1_000_000); // 1e8
    let paths = [best_and_largest, p1, p2];
    let s = OliaSets::of(paths.iter().copied());
    assert_eq!((s.m, s.b_not_m), (1, 0));
    assert_eq!(paths.map(|p| s.alpha(&p)), [0.0; 3]);

    // Two largest windows, one best path elsewhere: M = {p0, p0'}, B\M = {p1}.
    // α = −1/(3·2) on M, 1/(3·1) on p1.
    let paths = [p0, p0, p1];
    let s = OliaSets::of(paths.iter().copied());
    assert_eq!((s.r, s.m, s.b_not_m), (3, 2, 1));
    let alphas = paths.map(|p| s.alpha(&p));
    assert!(close(alphas[0], -1.0 / 6.0) && close(alphas[1], -1.0 / 6.0) && close(alphas[2], 1.0 / 3.0));

    // Equal ℓ/rtt² from different ℓ and rtt tie exactly (40 000/0.1² = 10 000/0.05² = 4e6):
    // both are in B; the one with the largest window is in M, so B\M = {the other}.
    let a = olia_path(20 * M, 100 * MS, 40_000);
    let b = olia_path(5 * M, 50 * MS, 10_000);
    let s = OliaSets::of([a, b].into_iter());
    assert!(s.in_b(&a) && s.in_b(&b) && s.in_m(&a));
    assert_eq!((s.m, s.b_not_m), (1, 1));
    assert!(close(s.alpha(&a), -0.5) && close(s.alpha(&b), 0.5));

    // Before any loss every ℓ is 0: every path is in B; the smaller windows collect.
    let paths = [olia_path(30 * M, 100 * MS, 0), olia_path(10 * M, 50 * MS, 0), olia_path(20 * M, 10 * MS, 0)];
    let s = OliaSets::of(paths.iter().copied());
    assert_eq!((s.m, s.b_not_m), (1, 2));

    // ℓ = max(bytes between the last two losses, bytes since the last loss).
    let v = SubflowCcView { bytes_since_loss: 10, bytes_between_losses: 50, ..view(M, MS) };
    assert_eq!(OliaPath::of(&v).ell, 50);
}

/// An OLIA subflow with window `w`, RTT `srtt` and ℓ = `ell` bytes acknowledged since its last
/// loss, in congestion avoidance.
fn olia_at(w: u64, srtt: Time, ell: u64) -> Olia {
    let mut o = in_congestion_avoidance(Olia::new(params(10)), w, srtt);
    // Acknowledged bytes count in ℓ whether or not the window may grow on them.
    o.on_ack(&AckEvent { cwnd_limited: false, ..ack(ell, srtt) });
    assert_eq!(o.window(), w);
    o
}

#[test]
fn olia_couples_to_its_sets_ignoring_peers_that_do_not_count() {
    // This subflow is p1 of the first case above: α = 1/6.
    let mut o = olia_at(10 * M, 50 * MS, 50_000);
    assert_eq!(o.own_path(), Some(olia_path(10 * M, 50 * MS, 50_000)));
    let p0 = SubflowCcView { bytes_since_loss: 100_000, ..view(30 * M, 100 * MS) };
    let p2 = SubflowCcView { bytes_between_losses: 50_000, ..view(10 * M, 50 * MS) };
    let inactive = SubflowCcView { active: false, bytes_since_loss: 1 << 40, ..view(1000 * M, MS) };
    let no_rtt = SubflowCcView { srtt: 0, ..view(1000 * M, 0) };
    let mut views = [p0, SubflowCcView::default(), p2, inactive, no_rtt];
    views[1] = o.coupled_view().unwrap();
    o.couple(&views, 1);
    assert!(close(o.alpha(), 1.0 / 6.0), "{}", o.alpha());
    assert_eq!(o.peers().n, 2);
    // (O1) per byte: (w/rtt²)/(Σ w/rtt)² + α/w with Σ w/rtt = 3e5 + 2e5 + 2e5 = 7e5 and
    // w/rtt² = 10 000/0.05² = 4e6: 4e6/4.9e11 + (1/6)/10 000.
    let expected = 4e6 / 4.9e11 + 1.0 / 6.0 / 10_000.0;
    assert!(close(o.increase_per_byte().unwrap(), expected));
}

#[test]
fn olia_moves_window_away_from_the_largest_window_path() {
    // This subflow is p0 (largest window, not best: its ℓ/rtt² stays below 4e5/0.1² = 4e7 in
    // this test, the peers' is 5e5/0.05² = 2e8): α = −1/(3·1). Per byte acknowledged:
    // (30 000/0.1²)/(7e5)² − (1/3)/30 000 = 6.12e-6 − 1.111e-5 = −4.99e-6 segments: one MSS less
    // after about 200 000 bytes.
    let mut o = olia_at(30 * M, 100 * MS, 100_000);
    let p1 = SubflowCcView { bytes_since_loss: 500_000, ..view(10 * M, 50 * MS) };
    let mut acked = 0;
    while o.window() == 30 * M && acked < 1_000_000 {
        let views = with_peers(&o, &[p1, p1]);
        o.couple(&views, 0);
        o.on_ack(&ack(M, 100 * MS));
        acked += M;
    }
    assert!(close(o.alpha(), -1.0 / 3.0));
    assert_eq!(o.window(), 29 * M);
    let per_byte = 3e6 / 4.9e11 - 1.0 / 3.0 / 30_000.0;
    assert_eq!(acked, (-1.0 / per_byte / M as f64).ceil() as u64 * M, "{acked} bytes");
    // Uncoupled again (the peers left): Reno, α = 0.
    o.couple(&with_peers(&o, &[]), 0);
    assert_eq!((o.alpha(), o.increase_per_byte()), (0.0, None));
}

#[test]
fn olia_collected_path_grows_by_the_first_term_plus_alpha_over_w_per_ack() {
    // Three paths: p0 (30 000 B, 100 ms, ℓ = 100 000: ℓ/rtt² = 1e7) has the largest window;
    // this subflow (10 000 B, 50 ms, ℓ ≥ 50 000: ≥ 2e7) is the only best path; p2 (10 000 B,
    // 50 ms, ℓ = 10 000: 4e6) neither. M = {p0}, B\M = {this}: α = 1/(3·1) = 1/3 (and stays so
    // as this subflow's ℓ grows with the ACKs below). Per byte acknowledged (O1):
    // (w/rtt²)/(Σ w/rtt)² + α/w = 4e6/(7e5)² + (1/3)/10 000 = 8.163e-6 + 3.333e-5 = 4.150e-5
    // segments: one MSS after 24 097 bytes, i.e. 241 ACKs of 100 bytes, where Reno needs 10 000
    // bytes and LIA (α_LIA = 50 000 · 4e6/(7e5)² = 0.408: one MSS per cwnd_total/α_LIA =
    // 122 500 bytes) five times more than OLIA on this collected path.
    let mut o = olia_at(10 * M, 50 * MS, 50_000);
    let p0 = SubflowCcView { bytes_since_loss: 100_000, ..view(30 * M, 100 * MS) };
    let p2 = SubflowCcView { bytes_between_losses: 10_000, ..view(10 * M, 50 * MS) };
    let per_byte = 4e6 / 4.9e11 + 1.0 / 3.0 / 10_000.0;
    let mut acked = 0u64;
    while o.window() == 10 * M {
        o.couple(&with_peers(&o, &[p0, p2]), 0);
        assert!(close(o.alpha(), 1.0 / 3.0), "{}", o.alpha());
        assert!(close(o.increase_per_byte().unwrap(), per_byte));
        o.on_ack(&ack(100, 50 * MS));
        acked += 100;
        assert!(acked < 100_000, "no increase");
    }
    assert_eq!(o.window(), 11 * M);
    assert_eq!(acked, ((1.0 / per_byte) / 100.0).ceil() as u64 * 100, "{acked} bytes");
    // LIA on the same views, for contrast: one MSS per cwnd_total/α bytes.
    let mut lia = in_congestion_avoidance(Lia::new(params(10)), 10 * M, 50 * MS);
    lia.couple(&with_peers(&lia, &[view(30 * M, 100 * MS), view(10 * M, 50 * MS)]), 0);
    let alpha = 50_000.0 * 4e6f64.max(3e6) / (7e5f64 * 7e5);
    assert!(close(lia.alpha().unwrap(), alpha));
    assert_eq!(lia.bytes_per_increase(), (50_000.0 / alpha).round() as u64);
}

// ----- BALIA -------------------------------------------------------------------------------

#[test]
fn balia_increase_matches_its_formula_on_hand_computed_numbers() {
    // Path A: 20 000 B over 100 ms (x = 2e5 B/s); path B: 10 000 B over 25 ms (x = 4e5 B/s).
    // On A: α = 4e5/2e5 = 2; (x/rtt)/(Σx)² · (1+α)/2 · (4+α)/5 = (2e6/3.6e11) · 1.5 · 1.2 = 1e-5
    // segments per byte: one MSS per 100 000 bytes. On B: α = 1: 1.6e7/3.6e11 = 4.44e-5.
    let mut a = in_congestion_avoidance(Balia::new(params(10)), 20 * M, 100 * MS);
    let b_view = view(10 * M, 25 * MS);
    a.couple(&with_peers(&a, &[b_view]), 0);
    assert!(close(a.alpha().unwrap(), 2.0));
    assert!((a.increase_per_byte().unwrap() - 1e-5).abs() < 1e-18);
    let mut b = in_congestion_avoidance(Balia::new(params(10)), 10 * M, 25 * MS);
    b.couple(&with_peers(&b, &[a.coupled_view().unwrap()]), 0);
    assert!(close(b.alpha().unwrap(), 1.0));
    assert!((b.increase_per_byte().unwrap() - 1.6e7 / 3.6e11).abs() < 1e-18);
    // A grows one MSS after about 100 ACKs of one MSS.
    for i in 1..=105 {
        a.couple(&with_peers(&a, &[b_view]), 0);
        a.on_ack(&ack(M, 100 * MS));
        if i == 95 {
            assert_eq!(a.window(), 20 * M);
        }
    }
    assert_eq!(a.window(), 21 * M);
}

#[test]
fn balia_decrease_matches_its_formula_with_alpha_capped_at_one_and_a_half() {
    // w −= (w/2)·min(α, 1.5). A: α = 2 → capped at 1.5: 20 000 − 15 000 = 5 000 (uncapped it
    // would lose its whole window). B (the fastest path): α = 1: halved.
    let b_view = view(10 * M, 25 * MS);
    let mut a = in_congestion_avoidance(Balia::new(params(10)), 20 * M, 100 * MS);
    a.couple(&with_peers(&a, &[b_view]), 0);
    assert_eq!(a.reduced(20 * M), 5 * M);
    a.on_congestion_event(&loss(20 * M));
    assert_eq!((a.window(), a.ssthresh()), (5 * M, 5 * M));
    let mut b = in_congestion_avoidance(Balia::new(params(10)), 10 * M, 25 * MS);
    b.couple(&with_peers(&b, &[view(20 * M, 100 * MS)]), 0);
    assert_eq!(b.reduced(10 * M), 5 * M);
    // α = 1.2 (x = 1e5 against 1.2e5): 10 000 − 5 000·1.2 = 4 000.
    let mut c = in_congestion_avoidance(Balia::new(params(10)), 10 * M, 100 * MS);
    c.couple(&with_peers(&c, &[view(12 * M, 100 * MS)]), 0);
    assert!(close(c.alpha().unwrap(), 1.2));
    assert_eq!(c.reduced(10 * M), 4 * M);
    // A timeout outside recovery sets the same ssthresh; the 2-SMSS floor holds.
    c.on_rto(&loss(10 * M));
    assert_eq!((c.window(), c.ssthresh()), (M, 4 * M));
    assert_eq!(a.reduced(3 * M), 2 * M);
}

// ----- wVegas ------------------------------------------------------------------------------

/// Drives a controller round by round (as `cc/vegas.rs`'s tests): every ACK acknowledges one
/// segment and carries an RTT sample and a rate sample; the last ACK of each round is the first
/// one for a segment sent after the round began, so the controller's rounds are the script's.
struct Rounds {
    now: Time,
    delivered: u64,
    round_start: u64,
    prev_round_start: u64,
}

impl Rounds {
    fn new() -> Self {
        Rounds { now: 0, delivered: 0, round_start: 0, prev_round_start: 0 }
    }

    fn ack(&mut self, c: &mut impl CongestionControl, rtt: Time, prior_delivered: u64) {
        self.now += MS;
        self.delivered += M;
        let rate = RateSample { prior_delivered, delivered: self.delivered - prior_delivered, interval: rtt, rtt, ..Default::default() };
        c.on_ack(&AckEvent {
            now: self.now,
            bytes_acked: M,
            bytes_delivered: M,
            rtt_sample: Some(rtt),
            srtt: rtt,
            min_rtt: rtt,
            mss: MSS,
            cwnd_limited: true,
            delivered_total: self.delivered,
            rate: Some(rate),
            prior_delivered: Some(rate.prior_delivered),
            ..Default::default()
        });
    }

    /// One round with one ACK per packet of the window (at least 3); `couple` runs before each.
    fn round<C: CongestionControl>(&mut self, c: &mut C, rtt: Time, mut couple: impl FnMut(&mut C)) -> u64 {
        let n = (c.window() / M).max(3);
        for i in 0..n {
            couple(c);
            let prior = if i + 1 == n { self.round_start } else { self.prev_round_start };
            self.ack(c, rtt, prior);
        }
        self.prev_round_start = self.round_start;
        self.round_start = self.delivered;
        c.window() / M
    }

    /// The controller restarted its round (recovery exit, RTO).
    fn restarted(&mut self) {
        self.round_start = self.delivered;
    }
}

/// A wVegas subflow in congestion avoidance at `w` packets, BaseRTT `base` measured.
fn wvegas_in_ca(w: u64, base: Time) -> (Wvegas, Rounds) {
    let mut v = Wvegas::new(params(10), &WvegasConfig::default());
    let mut s = Rounds::new();
    s.ack(&mut v, base, 0);
    v.on_congestion_event(&loss(2 * w * M));
    v.on_recovery_exit(s.now);
    s.restarted();
    assert_eq!((v.window(), v.state_name(), v.base_rtt()), (w * M, "congestion_avoidance", Some(base)));
    (v, s)
}

#[test]
fn wvegas_rate_shares_sum_to_one() {
    let rates = [3e5, 1e6, 2e5, 7.5e4];
    let total: f64 = (0..rates.len())
        .map(|i| {
            let peers: f64 = rates.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, r)| r).sum();
            rate_share(rates[i], peers).unwrap()
        })
        .sum();
    assert!((total - 1.0).abs() < 1e-12, "{total}");
    assert_eq!(rate_share(0.0, 5.0), None, "no rate of its own: the weight stays");
}

#[test]
fn wvegas_weights_of_coupled_subflows_sum_to_one_once_they_settle() {
    // Three subflows (BaseRTT 100 ms) whose paths hold RTTs of 120, 150 and 200 ms: each moves
    // its window until ⌊diff⌋ = its α (the hold band), α = max(2, ⌊10·weight⌋) with weight its
    // rate share; settled, the rates no longer change and the weights add up to 1.
    let rtts = [120 * MS, 150 * MS, 200 * MS];
    let mut subs: Vec<(Wvegas, Rounds)> = [30, 9, 4].into_iter().map(|w| wvegas_in_ca(w, 100 * MS)).collect();
    let mut history = Vec::new();
    for _ in 0..200 {
        for i in 0..subs.len() {
            let views: Vec<_> = subs.iter().map(|(v, _)| v.coupled_view().unwrap()).collect();
            let (v, s) = &mut subs[i];
            s.round(v, rtts[i], |v| v.couple(&views, i));
        }
        history.push(subs.iter().map(|(v, _)| v.window() / M).collect::<Vec<_>>());
    }
    let last = history.last().unwrap().clone();
    assert!(history[history.len() - 20..].iter().all(|w| *w == last), "settled: {:?}", &history[history.len() - 20..]);
    let weights: Vec<f64> = subs.iter().map(|(v, _)| v.weight()).collect();
    let alphas: Vec<f64> = subs.iter().map(|(v, _)| v.alpha()).collect();
    let diffs: Vec<u64> = subs.iter().map(|(v, _)| v.last_diff().unwrap()).collect();
    println!("windows {last:?} pkts, weights {weights:?}, alphas {alphas:?}, diffs {diffs:?}");
    assert!((weights.iter().sum::<f64>() - 1.0).abs() < 1e-12, "{weights:?}");
    for i in 0..3 {
        assert_eq!(diffs[i] as f64, alphas[i], "subflow {i} holds with ⌊diff⌋ = α");
        assert_eq!(alphas[i], (weights[i] * 10.0).floor().max(2.0));
    }
    assert!(weights[0] > weights[1] && weights[1] > weights[2], "the fastest subflow queues the most");
}

#[test]
fn wvegas_subflow_whose_diff_exceeds_its_alpha_decreases() {
    // Two subflows at 40 packets, BaseRTT 100 ms, see rtt = 110 ms: ⌊diff⌋ = ⌊40·10/110⌋ = 3 ≥ α
    // (2 initially), so both update their weights: x = 40 000 B / 0.11 s. Next to a peer 9× as
    // fast, weight 0.1 and α = max(2, 1) = 2 < 3: the window shrinks. Next to a peer 9× slower,
    // weight 0.9 and α = 9 > 3: it grows.
    let x = (40_000.0f64 / 0.11).floor();
    for (peer_rate, expected_alpha, expected_w) in [(9.0 * x, 2.0, 39), (x / 9.0, 9.0, 41)] {
        let (mut v, mut s) = wvegas_in_ca(40, 100 * MS);
        let peer = SubflowCcView { rate: peer_rate as u64, ..view(40 * M, 110 * MS) };
        let w = s.round(&mut v, 110 * MS, |v| {
            let views = with_peers(v, &[peer]);
            v.couple(&views, 0)
        });
        assert_eq!(v.last_diff(), Some(3));
        assert_eq!(v.rate(), x, "whole bytes per second");
        assert!((v.weight() - x / (x + peer_rate.floor())).abs() < 1e-12, "{}", v.weight());
        assert_eq!((v.alpha(), w), (expected_alpha, expected_w));
        assert_eq!(v.coupled_view().unwrap().rate, x as u64, "published for the peers");
        if w < 40 {
            assert_eq!(v.ssthresh(), v.window(), "a decrease keeps it in congestion avoidance");
        }
    }
}

#[test]
fn wvegas_drains_the_queue_when_the_queueing_delay_doubles() {
    // Round 1: rtt 101 ms, q = 1 ms (the estimate q̂), ⌊diff⌋ = ⌊40/101⌋ = 0 < α: 41 packets.
    // Round 2: rtt 103 ms, q = 3 ms ≥ 2·q̂: after the +1 (⌊40·3/103⌋ = 1 < α) to 42, the window
    // drains to ⌊42 · 100/(2·103)⌋ = 20 packets, below ssthresh (40): slow start again.
    let (mut v, mut s) = wvegas_in_ca(40, 100 * MS);
    assert_eq!(s.round(&mut v, 101 * MS, |_| {}), 41);
    assert_eq!(s.round(&mut v, 103 * MS, |_| {}), 20);
    assert_eq!((v.ssthresh(), v.state_name()), (40 * M, "slow_start"));
    // No queue at all (rtt = BaseRTT): no drain, Linux's q_delay = 0 case notwithstanding.
    let (mut v, mut s) = wvegas_in_ca(40, 100 * MS);
    let ws: Vec<u64> = (0..3).map(|_| s.round(&mut v, 100 * MS, |_| {})).collect();
    assert_eq!(ws, [41, 42, 43]);
}

#[test]
fn wvegas_leaves_slow_start_when_diff_exceeds_gamma() {
    // Slow start at 10 packets (BaseRTT 100 ms from the first ACK), then a round at 125 ms:
    // ⌊diff⌋ = ⌊W·25/125⌋ with W the window at the start of the previous round (11, after the
    // first ACK's Reno round) = 2 > gamma = 1: cwnd = min(cwnd, ⌊11·100/125⌋ + 1 = 9) packets.
    let mut v = Wvegas::new(params(10), &WvegasConfig::default());
    let mut s = Rounds::new();
    s.ack(&mut v, 100 * MS, 0);
    s.round_start = s.delivered;
    assert_eq!(v.window(), 11 * M);
    assert_eq!(s.round(&mut v, 100 * MS, |_| {}), 22, "no queue: slow start on every ACK");
    assert_eq!(s.round(&mut v, 125 * MS, |_| {}), 9);
    assert_eq!((v.ssthresh(), v.state_name()), (9 * M, "congestion_avoidance"));
}

// ----- composition -------------------------------------------------------------------------

fn composite(name: &str) -> AnyCc {
    CcConfig::default_for(name).unwrap_or_else(|| panic!("{name}")).build(params(10))
}

fn parts(c: &AnyCc) -> (&CoupledAlgo, &AnyCc) {
    match c {
        AnyCc::Coupled(c) => (c.coupled(), c.path().expect("a composite")),
        _ => panic!("not a coupled controller"),
    }
}

#[test]
fn composite_window_is_the_min_of_both_and_ssthresh_the_limiting_ones() {
    // After a loss LIA halves (Reno) and CUBIC keeps β = 0.7: LIA limits.
    // Windows of 100 segments (CUBIC's reduction is capped at its window).
    let mut c = CcConfig::default_for("lia+cubic").unwrap().build(params(100));
    c.on_congestion_event(&loss(100 * M));
    let (lia, cubic) = parts(&c);
    assert_eq!((lia.window(), cubic.window()), (50 * M, 70 * M));
    assert_eq!((c.window(), c.ssthresh()), (50 * M, 50 * M));
    // With CUBIC's β set to 0.3 through cc_options (a composite's options are its path
    // controller's), CUBIC limits.
    let mut cfg = CcConfig::default_for("lia+cubic").unwrap();
    assert_eq!(cfg.option_names(), CcConfig::default_for("cubic").unwrap().option_names());
    cfg.set("beta", OptValue::Num(0.3)).unwrap();
    let mut c = cfg.build(params(100));
    c.on_congestion_event(&loss(100 * M));
    c.on_recovery_exit(0);
    let (lia, cubic) = parts(&c);
    assert_eq!((lia.window(), cubic.window()), (50 * M, 30 * M));
    assert_eq!((c.window(), c.ssthresh()), (30 * M, 30 * M));
    assert_eq!(c.coupled_view().unwrap().cwnd, 30 * M, "peers see the window the subflow uses");
    // Growth: only the limiting window counts as cwnd-limited (RFC 7661), so CUBIC grows and
    // LIA's window, which does not limit, stays.
    for _ in 0..200 {
        c.on_ack(&ack(M, 100 * MS));
    }
    let (lia, cubic) = parts(&c);
    assert_eq!(lia.window(), 50 * M);
    assert!(cubic.window() > 30 * M && c.window() == cubic.window().min(50 * M));
    // A timeout: both at one segment.
    c.on_rto(&loss(40 * M));
    assert_eq!(c.window(), M);
}

#[test]
fn bbr_pacing_send_quantum_and_recovery_pass_through_a_composite() {
    let mut c = composite("lia+bbr");
    let (mut delivered, mut now) = (0, 0);
    for _ in 0..50 {
        now += MS;
        delivered += M;
        let rate = RateSample {
            prior_delivered: delivered.saturating_sub(10 * M),
            delivered: 10 * M,
            interval: 10 * MS,
            delivery_rate: Some(1_000_000),
            rtt: 10 * MS,
            ..Default::default()
        };
        c.on_ack(&AckEvent {
            now,
            rtt_sample: Some(10 * MS),
            bytes_delivered: M,
            delivered_total: delivered,
            rate: Some(rate),
            prior_delivered: Some(rate.prior_delivered),
            ..ack(M, 10 * MS)
        });
    }
    let (_, bbr) = parts(&c);
    assert!(c.pacing_rate().is_some_and(|r| r > 0));
    assert_eq!(c.pacing_rate(), bbr.pacing_rate());
    assert_eq!(c.send_quantum(), bbr.send_quantum());
    assert!(!c.uses_prr(), "BBR runs its own recovery");
    assert_eq!(c.state_name(), bbr.state_name());
    // Alone, a coupled controller does not pace and leaves recovery to PRR.
    let lia = composite("lia");
    assert_eq!((lia.pacing_rate(), lia.send_quantum(), lia.uses_prr()), (None, None, true));
    // Without SACK, `lia+reno` leaves recovery on the first new ACK as `reno` does.
    assert!(composite("lia+reno").exits_recovery_on_partial_ack());
    assert!(!composite("lia+newreno").exits_recovery_on_partial_ack());
}

#[test]
fn couple_reaches_the_coupled_part_of_a_composite() {
    let mut c = composite("lia+cubic");
    c.on_ack(&rtt_only(100 * MS));
    let peer = view(10 * M, 50 * MS);
    let views = [peer, c.coupled_view().unwrap()];
    c.couple(&views, 1);
    let (lia, _) = parts(&c);
    let CoupledAlgo::Lia(lia) = lia else { panic!("lia") };
    assert_eq!(lia.peers().n, 1);
    assert!(lia.alpha().is_some());
    // Same through every coupled algorithm.
    for name in COUPLED {
        let mut c = composite(&format!("{name}+bbr"));
        c.on_ack(&rtt_only(100 * MS));
        c.couple(&[c.coupled_view().unwrap(), peer], 0);
        let n = match parts(&c).0 {
            CoupledAlgo::Lia(a) => a.peers().n,
            CoupledAlgo::Olia(a) => a.peers().n,
            CoupledAlgo::Balia(a) => a.peers().n,
            CoupledAlgo::Wvegas(a) => a.peers().n,
        };
        assert_eq!(n, 1, "{name}");
    }
}

// ----- names and configuration -------------------------------------------------------------

#[test]
fn composite_names_resolve_case_insensitively_to_canonical_names() {
    let cc = CONGESTION_CONTROLLERS;
    assert_eq!(registry::resolve(cc, "LIA+Cubic"), Some("lia+cubic"));
    assert_eq!(registry::resolve(cc, "wVegas+BBR1"), Some("wvegas+bbr"), "aliases resolve part by part");
    assert_eq!(registry::resolve(cc, "Balia+bbr3"), Some("balia+bbr2"));
    assert_eq!(registry::resolve(cc, "OLIA"), Some("olia"));
    for bad in ["lia+lia", "cubic+lia", "lia+", "+cubic", "lia+cubic+reno", "lia+wvegas", "liia+cubic"] {
        assert_eq!(registry::resolve(cc, bad), None, "{bad}");
    }
    // The composite table is exactly COUPLED × PATH_CONTROLLERS.
    let cross: Vec<String> = COUPLED.iter().flat_map(|c| PATH_CONTROLLERS.iter().map(move |p| format!("{c}+{p}"))).collect();
    assert_eq!(COMPOSITES, cross.iter().map(String::as_str).collect::<Vec<_>>().as_slice());
    for p in PATH_CONTROLLERS {
        assert!(CcConfig::default_for(p).is_some(), "{p} is a registered controller");
    }
    // `names` lists the base names and one pattern for the composites.
    let names = registry::names(cc);
    assert!(COUPLED.iter().all(|c| names.contains(c)));
    assert_eq!(names.last(), Some(&COMPOSITE_NOTE));
    assert_eq!(names.len(), cc.len() + 1);
}

#[test]
fn configs_name_serialise_and_build_every_coupled_and_composite_controller() {
    for name in COUPLED.iter().chain(COMPOSITES) {
        let cfg = CcConfig::default_for(name).unwrap();
        assert_eq!(cfg.name(), *name);
        let c = cfg.build(params(10));
        assert!(matches!(c, AnyCc::Coupled(_)));
        assert!(c.coupled_view().is_some(), "{name} couples");
        assert_eq!(c.window(), 10 * M);
    }
    let json = |n: &str| serde_json::to_value(CcConfig::default_for(n).unwrap()).unwrap();
    assert_eq!(json("lia"), serde_json::json!({"cc": "lia"}));
    assert_eq!(json("lia+reno"), serde_json::json!({"cc": "lia+reno"}));
    assert_eq!(json("olia+cubic")["cc_options"], json("cubic")["cc_options"]);
    assert_eq!(json("wvegas")["cc_options"], serde_json::json!({"total_alpha": 10.0, "initial_alpha": 2.0, "gamma": 1.0}));
    // Options: a composite's are its path controller's; wVegas alone has its own; LIA none.
    let mut w = CcConfig::default_for("wvegas").unwrap();
    w.set("total_alpha", OptValue::Num(20.0)).unwrap();
    assert!(w.set("beta", OptValue::Num(0.5)).is_err());
    assert!(CcConfig::default_for("lia").unwrap().set("alpha", OptValue::Num(1.0)).is_err());
    assert!(CcConfig::default_for("wvegas+reno").unwrap().set("total_alpha", OptValue::Num(1.0)).is_err());
}
