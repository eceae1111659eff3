//! Scheduler tests: scripted views per scheduler, then one fuzz harness for every registry name
//! (random views → the decision names only paths that may take the chunk).

use super::blest::{Blest, BlestConfig};
use super::cpf::{Cpf, CpfConfig};
use super::ecf::{Ecf, EcfConfig};
use super::linger::{autotuned_sndbuf, wmem_queued, Linger, LingerConfig, SEND_BURST_SIZE};
use super::minrtt::MinRtt;
use super::otias::Otias;
use super::redundant::Redundant;
use super::roundrobin::{RoundRobin, RoundRobinConfig};
use super::{AnyScheduler, ConnView, Decision, PathModel, PathView, SchedConfig, Scheduler};
use crate::cc::options::OptValue;
use crate::cc::registry::names;
use crate::sched::registry::SCHEDULERS;
use mptlab_engine::time::MILLISECOND;
use mptlab_engine::{RngStream, StreamId, Time};

const MSS: u32 = 1460;
const MS: Time = MILLISECOND;
const GREEDY: u64 = u64::MAX / 2;

/// A usable path with space and room to queue, an SRTT and a window in segments.
fn path(id: usize, srtt_ms: u64, cwnd_segs: u64) -> PathView {
    PathView {
        id,
        usable: true,
        has_space: true,
        can_queue: true,
        srtt: srtt_ms * MS,
        min_rtt: srtt_ms * MS,
        cwnd: cwnd_segs * MSS as u64,
        mss: MSS,
        priority: id as u32,
        ..Default::default()
    }
}

fn full(mut p: PathView) -> PathView {
    p.has_space = false;
    p.in_flight = p.cwnd;
    p
}

fn conn() -> ConnView {
    ConnView { unsent: GREEDY, window_space: GREEDY, chunk: MSS, send_buffer: 1 << 20, ..Default::default() }
}

fn conn_with(unsent: u64, window_space: u64) -> ConnView {
    ConnView { unsent, window_space, ..conn() }
}

// ---------------------------------------------------------------- minrtt

#[test]
fn minrtt_picks_the_lowest_srtt_path_with_space() {
    let paths = [path(0, 40, 10), path(1, 10, 10), path(2, 20, 10)];
    assert_eq!(MinRtt::new().select(&conn(), &paths), Decision::Send(1));
}

#[test]
fn minrtt_skips_a_faster_path_without_space() {
    let paths = [path(0, 40, 10), full(path(1, 10, 10)), path(2, 20, 10)];
    assert_eq!(MinRtt::new().select(&conn(), &paths), Decision::Send(2));
}

#[test]
fn minrtt_waits_when_no_path_has_space() {
    let paths = [full(path(0, 40, 10)), full(path(1, 10, 10))];
    assert_eq!(MinRtt::new().select(&conn(), &paths), Decision::Wait);
}

#[test]
fn minrtt_breaks_ties_by_the_lower_id() {
    let paths = [path(0, 30, 10), path(1, 10, 10), path(2, 10, 10)];
    assert_eq!(MinRtt::new().select(&conn(), &paths), Decision::Send(1));
}

#[test]
fn minrtt_tries_a_path_without_an_rtt_sample_first() {
    let paths = [path(0, 10, 10), path(1, 0, 10)];
    assert_eq!(MinRtt::new().select(&conn(), &paths), Decision::Send(1));
}

#[test]
fn minrtt_uses_a_backup_path_only_when_no_other_path_is_usable() {
    let mut backup = path(0, 5, 10);
    backup.backup = true;
    // The regular path is usable but full: wait for it rather than use the backup.
    let mut paths = [backup, full(path(1, 50, 10))];
    assert_eq!(MinRtt::new().select(&conn(), &paths), Decision::Wait);
    paths[1].has_space = true;
    assert_eq!(MinRtt::new().select(&conn(), &paths), Decision::Send(1));
    paths[1].usable = false;
    assert_eq!(MinRtt::new().select(&conn(), &paths), Decision::Send(0));
}

#[test]
fn minrtt_never_uses_an_unusable_path() {
    let mut fast = path(0, 1, 10);
    fast.usable = false;
    let paths = [fast, path(1, 50, 10)];
    assert_eq!(MinRtt::new().select(&conn(), &paths), Decision::Send(1));
}

// ---------------------------------------------------------------- default (linger time)

/// The earlier model (`kernel = false`): lowest linger time among paths with window space.
const WINDOW_MODEL: LingerConfig = LingerConfig { kernel: false, queue: false };

fn holding(mut p: PathView, in_flight: u64, queued: u64, rate: u64) -> PathView {
    p.in_flight = in_flight;
    p.queued = queued;
    p.pacing_rate = rate;
    p
}

#[test]
fn default_picks_the_lowest_linger_time() {
    let paths = [
        holding(path(0, 10, 100), 50_000, 0, 1_000_000),     // 50 ms to drain
        holding(path(1, 50, 100), 10_000, 10_000, 100_000),  // 200 ms
        holding(path(2, 20, 100), 20_000, 5_000, 1_000_000), // 25 ms
    ];
    let mut s = Linger::new(&WINDOW_MODEL);
    assert_eq!(s.select(&conn(), &paths), Decision::Send(2));
}

#[test]
fn default_skips_the_lowest_linger_path_without_space() {
    let mut fastest = holding(path(2, 20, 100), 1_000, 0, 10_000_000); // 0.1 ms
    fastest.has_space = false;
    let paths = [holding(path(0, 10, 100), 50_000, 0, 1_000_000), holding(path(1, 50, 100), 10_000, 0, 100_000), fastest];
    let mut s = Linger::new(&WINDOW_MODEL);
    assert_eq!(s.select(&conn(), &paths), Decision::Send(0));
}

#[test]
fn default_with_queue_queues_on_the_lowest_linger_path_or_waits() {
    let mut fastest = holding(path(1, 20, 100), 1_000, 0, 10_000_000);
    fastest.has_space = false;
    let mut paths = [holding(path(0, 10, 100), 50_000, 0, 1_000_000), fastest];
    let mut s = Linger::new(&LingerConfig { queue: true, ..WINDOW_MODEL });
    assert_eq!(s.select(&conn(), &paths), Decision::Send(1));
    paths[1].can_queue = false;
    assert_eq!(s.select(&conn(), &paths), Decision::Wait);
}

#[test]
fn default_considers_a_path_without_a_rate_estimate_by_its_window_only() {
    let paths = [holding(path(0, 10, 100), 1_000, 0, 1_000_000_000), holding(path(1, 0, 100), 90_000, 0, 0)];
    let mut s = Linger::new(&WINDOW_MODEL);
    assert_eq!(s.select(&conn(), &paths), Decision::Send(1));
    // The kernel model likewise: no rate yet is Linux's initial "unlimited" rate.
    let mut k = kernel_linger();
    assert_eq!(k.select(&conn(), &paths), Decision::Send(1));
}

// The kernel model (`kernel = true`, the default): Linux 6.18 `mptcp_subflow_get_send` and
// `__subflow_push_pending`. `can_queue` is "send buffer not full" (`sk_stream_memory_free`).

/// `default` as MPTCP uses it (send buffers enabled).
fn kernel_linger() -> Linger {
    let mut s = Linger::new(&LingerConfig::default());
    s.enable_send_buffers();
    assert!(s.kernel());
    s
}

#[test]
fn default_without_send_buffers_is_the_window_model() {
    // Multipath QUIC builds `default` without enabling send buffers: it must not wait for
    // `can_queue`, which QUIC never sets.
    let mut p0 = holding(path(0, 10, 100), 50_000, 0, 1_000_000);
    p0.can_queue = false;
    let paths = [p0, holding(path(1, 10, 100), 60_000, 0, 1_000_000)];
    let mut s = Linger::new(&LingerConfig::default());
    assert!(!s.kernel());
    assert_eq!(s.select(&at(1), &paths), Decision::Send(0));
    assert_eq!(kernel_linger().select(&at(1), &paths), Decision::Wait);
}

fn at(now_ms: u64) -> ConnView {
    ConnView { now: now_ms * MS, ..conn() }
}

#[test]
fn default_kernel_sends_on_the_lowest_linger_path_whatever_its_window() {
    // Path 1 drains first but its window is full: the kernel does not look at the window, it
    // queues there (`tcp_push` sends when the window opens).
    let mut lowest = holding(path(1, 20, 100), 20_000, 5_000, 1_000_000);
    lowest.has_space = false;
    let paths = [holding(path(0, 10, 100), 50_000, 0, 1_000_000), lowest];
    assert_eq!(kernel_linger().select(&at(1), &paths), Decision::Send(1));
    // The window model chooses among paths with space only.
    assert_eq!(Linger::new(&WINDOW_MODEL).select(&at(1), &paths), Decision::Send(0));
}

#[test]
fn default_kernel_waits_when_the_lowest_linger_path_has_a_full_send_buffer() {
    // `if (!ssk || !sk_stream_memory_free(ssk)) return NULL;` — even though path 0 has window
    // space and memory, nothing is sent.
    let mut lowest = holding(path(1, 20, 100), 20_000, 5_000, 1_000_000);
    lowest.can_queue = false;
    let paths = [holding(path(0, 10, 100), 50_000, 0, 1_000_000), lowest];
    assert_eq!(kernel_linger().select(&at(1), &paths), Decision::Wait);
}

#[test]
fn default_kernel_ranks_by_wmem_over_the_smoothed_rate_and_smooths_per_burst() {
    let mss = MSS;
    // Path 0: 14 600 B held at 1 MB/s; path 1: 29 200 B at 4 MB/s. Linger (wmem << 32) / rate.
    let p0 = holding(path(0, 10, 100), 14_600, 0, 1_000_000);
    let p1 = holding(path(1, 10, 100), 29_200, 0, 4_000_000);
    let l0 = ((wmem_queued(14_600, mss) as u128) << 32) / 1_000_000;
    let l1 = ((wmem_queued(29_200, mss) as u128) << 32) / 4_000_000;
    assert!(l1 < l0);
    let mut s = kernel_linger();
    assert_eq!(s.select(&at(1), &[p0, p1]), Decision::Send(1));
    // First look: avg_pacing_rate = sk_pacing_rate; the pick then smooths path 1's:
    // (avg · wmem + rate · burst) / (burst + wmem), burst = 65 428, here with the same rate.
    assert_eq!(s.avg_rate(0), 1_000_000);
    assert_eq!(s.avg_rate(1), 4_000_000);
    // Path 1's instantaneous rate collapses to 0.5 MB/s: the next pick still ranks it by the
    // smoothed rate, which moves by the burst's weight only.
    let p1_slow = holding(path(1, 10, 100), 29_200, 0, 500_000);
    assert_eq!(s.select(&at(2), &[p0, p1_slow]), Decision::Send(1));
    let w = wmem_queued(29_200, mss) as u128;
    let b = SEND_BURST_SIZE as u128;
    let expect = ((4_000_000 * w + 500_000 * b) / (b + w)) as u64;
    assert_eq!(s.avg_rate(1), expect);
    assert!(expect < 4_000_000 && expect > 500_000);
}

#[test]
fn default_kernel_keeps_pushing_one_burst_to_the_picked_path() {
    let p0 = holding(path(0, 10, 100), 0, 0, 1_000_000);
    let p1 = holding(path(1, 10, 100), 1_000, 0, 1_000_000);
    let mut p0_full = p0;
    p0_full.queued = 40_000;
    let mut s = kernel_linger();
    // Path 0 holds nothing: picked. Although path 1 ranks first after the first chunk, path 0
    // keeps the chunks until MPTCP_SEND_BURST_SIZE bytes are placed: ceil(65 428 / 1 460) = 45.
    let views = |n: usize| if n == 0 { [p0, p1] } else { [p0_full, p1] };
    let mut n = 0;
    while s.select(&at(5), &views(n)) == Decision::Send(0) {
        n += 1;
        assert!(n < 100);
    }
    assert_eq!(n as u64, SEND_BURST_SIZE.div_ceil(MSS as u64));
    assert_eq!(SEND_BURST_SIZE, 65_428);
}

#[test]
fn default_kernel_burst_ends_with_the_send_buffer_the_instant_or_the_window() {
    let p0 = holding(path(0, 10, 100), 0, 0, 1_000_000);
    let mut p0_busy = holding(path(0, 10, 100), 90_000, 0, 1_000_000);
    let p1 = holding(path(1, 10, 100), 1_000, 0, 1_000_000);
    // The send buffer fills: the burst stops and the next pick is fresh (path 1).
    let mut s = kernel_linger();
    assert_eq!(s.select(&at(1), &[p0, p1]), Decision::Send(0));
    p0_busy.can_queue = false;
    assert_eq!(s.select(&at(1), &[p0_busy, p1]), Decision::Send(1));
    // A later instant is a new push: fresh pick (path 1 now holds less).
    let mut s = kernel_linger();
    assert_eq!(s.select(&at(1), &[p0, p1]), Decision::Send(0));
    p0_busy.can_queue = true;
    assert_eq!(s.select(&at(2), &[p0_busy, p1]), Decision::Send(1));
    // The burst is at most what the connection-level window allows (wnd_end - snd_nxt): with
    // 3 000 B of window, ceil(3 000 / 1 460) = 3 chunks, then a fresh pick.
    let mut s = kernel_linger();
    let narrow = ConnView { window_space: 3_000, ..at(1) };
    assert_eq!(s.select(&narrow, &[p0, p1]), Decision::Send(0));
    assert_eq!(s.select(&narrow, &[p0_busy, p1]), Decision::Send(0));
    assert_eq!(s.select(&narrow, &[p0_busy, p1]), Decision::Send(0));
    assert_eq!(s.select(&narrow, &[p0_busy, p1]), Decision::Send(1));
}

#[test]
fn default_kernel_send_buffer_and_wmem_follow_linux_sizes() {
    // tcp_sndbuf_expand: 2 · max(10, cwnd) · per_mss, per_mss = 2048 + 256 for a 1432–1460 B
    // MSS (as measured on Linux 6.18: sk_sndbuf = 4 608 · cwnd).
    assert_eq!(autotuned_sndbuf(0, 1432), 2 * 10 * 2304);
    assert_eq!(autotuned_sndbuf(10, 1460), 46_080);
    assert_eq!(autotuned_sndbuf(88, 1460), 405_504, "the measured tb at cwnd 88");
    assert_eq!(autotuned_sndbuf(27, 1432), 124_416, "the measured tb at cwnd 27");
    assert_eq!(autotuned_sndbuf(10_000, 1460), 4 << 20, "capped at tcp_wmem[2]");
    // Payload plus 160 B of skb truesize per segment.
    assert_eq!(wmem_queued(0, 1432), 0);
    assert_eq!(wmem_queued(2 * 1432, 1432), 2 * 1432 + 2 * 160);
    assert_eq!(wmem_queued(1433, 1432), 1433 + 2 * 160);
}

#[test]
fn default_kernel_uses_backups_only_when_no_regular_path_is_active() {
    let mut backup = holding(path(0, 5, 100), 0, 0, 10_000_000);
    backup.backup = true;
    let regular = holding(path(1, 50, 100), 500_000, 0, 100_000);
    let mut s = kernel_linger();
    assert_eq!(s.select(&at(1), &[backup, regular]), Decision::Send(1));
    let mut gone = regular;
    gone.usable = false;
    assert_eq!(s.select(&at(2), &[backup, gone]), Decision::Send(0));
}

// ---------------------------------------------------------------- roundrobin

fn sends(s: &mut impl Scheduler, paths: &[PathView], n: usize) -> Vec<Decision> {
    (0..n).map(|_| s.select(&conn(), paths)).collect()
}

#[test]
fn roundrobin_alternates_between_paths_with_space() {
    let paths = [path(0, 10, 10), path(1, 50, 10), path(2, 30, 10)];
    let mut s = RoundRobin::new(&RoundRobinConfig::default());
    let got = sends(&mut s, &paths, 6);
    let want: Vec<_> = [0, 1, 2, 0, 1, 2].into_iter().map(Decision::Send).collect();
    assert_eq!(got, want);
}

#[test]
fn roundrobin_skips_paths_without_space() {
    let paths = [path(0, 10, 10), full(path(1, 50, 10)), path(2, 30, 10)];
    let mut s = RoundRobin::new(&RoundRobinConfig::default());
    let want: Vec<_> = [0, 2, 0, 2].into_iter().map(Decision::Send).collect();
    assert_eq!(sends(&mut s, &paths, 4), want);
    let none = [full(path(0, 10, 10)), full(path(1, 50, 10))];
    assert_eq!(s.select(&conn(), &none), Decision::Wait);
}

#[test]
fn roundrobin_sends_segments_chunks_per_turn() {
    let paths = [path(0, 10, 10), path(1, 50, 10)];
    let mut s = RoundRobin::new(&RoundRobinConfig { segments: 2 });
    let want: Vec<_> = [0, 0, 1, 1, 0, 0].into_iter().map(Decision::Send).collect();
    assert_eq!(sends(&mut s, &paths, 6), want);
}

// ---------------------------------------------------------------- redundant

#[test]
fn redundant_sends_on_every_usable_path_with_space() {
    let mut off = path(3, 10, 10);
    off.usable = false;
    let paths = [path(0, 10, 10), full(path(1, 10, 10)), path(2, 10, 10), off];
    assert_eq!(Redundant::new().select(&conn(), &paths), Decision::Redundant(0b101));
}

#[test]
fn redundant_with_one_qualifying_path_is_a_plain_send_and_with_none_waits() {
    let paths = [full(path(0, 10, 10)), path(1, 10, 10)];
    assert_eq!(Redundant::new().select(&conn(), &paths), Decision::Send(1));
    let paths = [full(path(0, 10, 10)), full(path(1, 10, 10))];
    assert_eq!(Redundant::new().select(&conn(), &paths), Decision::Wait);
}

#[test]
fn redundant_leaves_backup_paths_out_while_a_regular_path_is_usable() {
    let mut backup = path(1, 10, 10);
    backup.backup = true;
    let paths = [path(0, 10, 10), backup, path(2, 10, 10)];
    assert_eq!(Redundant::new().select(&conn(), &paths), Decision::Redundant(0b101));
}

// ---------------------------------------------------------------- ECF

/// A full fast path (10 ms, 10 segments) and a slow path with space (100 ms, 10 segments).
fn ecf_paths() -> [PathView; 2] {
    [full(path(0, 10, 10)), path(1, 100, 10)]
}

fn segs(n: u64) -> u64 {
    n * MSS as u64
}

#[test]
fn ecf_uses_the_fast_path_when_it_has_space() {
    let paths = [path(0, 10, 10), path(1, 100, 10)];
    assert_eq!(Ecf::new(&EcfConfig::default()).select(&conn_with(segs(20), GREEDY), &paths), Decision::Send(0));
}

#[test]
fn ecf_waits_for_the_full_fast_path_when_it_finishes_sooner() {
    // k = 20: n = 1 + 20/10 = 3, 3 · 10 ms < 100 ms; k/CWND_s · RTT_s = 200 ms ≥ 2 · 10 ms.
    let mut s = Ecf::new(&EcfConfig::default());
    assert_eq!(s.select(&conn_with(segs(20), GREEDY), &ecf_paths()), Decision::Wait);
    assert!(s.waiting());
}

#[test]
fn ecf_uses_the_slow_path_when_the_fast_path_alone_would_take_longer() {
    // k = 200: n = 21, 210 ms ≥ 100 ms.
    let mut s = Ecf::new(&EcfConfig::default());
    assert_eq!(s.select(&conn_with(segs(200), GREEDY), &ecf_paths()), Decision::Send(1));
    assert!(!s.waiting());
    // A greedy sender never waits.
    assert_eq!(s.select(&conn(), &ecf_paths()), Decision::Send(1));
}

#[test]
fn ecf_uses_the_slow_path_when_it_would_finish_within_two_fast_round_trips() {
    // k = 1: n = 1.1, 11 ms < 100 ms, but k/CWND_s · RTT_s = 10 ms < 2 · 10 ms: no point waiting.
    let mut s = Ecf::new(&EcfConfig::default());
    assert_eq!(s.select(&conn_with(segs(1), GREEDY), &ecf_paths()), Decision::Send(1));
    assert!(!s.waiting());
}

#[test]
fn ecf_hysteresis_keeps_waiting_until_beta_is_exceeded() {
    // k = 100: n · RTT_f = 110 ms, between RTT_s = 100 ms and (1 + β) · RTT_s = 125 ms.
    let mut fresh = Ecf::new(&EcfConfig::default());
    assert_eq!(fresh.select(&conn_with(segs(100), GREEDY), &ecf_paths()), Decision::Send(1));

    let mut s = Ecf::new(&EcfConfig::default());
    assert_eq!(s.select(&conn_with(segs(20), GREEDY), &ecf_paths()), Decision::Wait);
    assert_eq!(s.select(&conn_with(segs(100), GREEDY), &ecf_paths()), Decision::Wait, "still waiting");
    // k = 130: 140 ms ≥ 125 ms: switch to the slow path and clear the flag.
    assert_eq!(s.select(&conn_with(segs(130), GREEDY), &ecf_paths()), Decision::Send(1));
    assert!(!s.waiting());
    assert_eq!(s.select(&conn_with(segs(100), GREEDY), &ecf_paths()), Decision::Send(1), "flag cleared");
}

#[test]
fn ecf_rtt_variation_widens_the_wait_condition() {
    // k = 100 (110 ms) against RTT_s + δ = 120 ms.
    let mut paths = ecf_paths();
    paths[1].rttvar = 20 * MS;
    let mut s = Ecf::new(&EcfConfig::default());
    assert_eq!(s.select(&conn_with(segs(100), GREEDY), &paths), Decision::Wait);
}

#[test]
fn ecf_waits_when_no_path_has_space() {
    let paths = [full(path(0, 10, 10)), full(path(1, 100, 10))];
    assert_eq!(Ecf::new(&EcfConfig::default()).select(&conn(), &paths), Decision::Wait);
}

// ---------------------------------------------------------------- BLEST

/// Fast: 10 ms, 10 segments, full. Slow: 100 ms with space, nothing in flight. rtt_s/rtt_f = 10,
/// so X = MSS · (10 + 4.5) · 10 = 211 700 bytes (eq. (1)).
fn blest_paths() -> [PathView; 2] {
    [full(path(0, 10, 10)), path(1, 100, 10)]
}
const BLEST_X: f64 = 211_700.0;

#[test]
fn blest_uses_the_fast_path_when_it_has_space() {
    let paths = [path(0, 10, 10), path(1, 100, 10)];
    let mut s = Blest::new(&BlestConfig::default());
    assert_eq!(s.select(&conn_with(GREEDY, 10_000), &paths), Decision::Send(0));
}

#[test]
fn blest_waits_when_the_slow_path_would_block_the_send_window() {
    // Window 100 kB: 98 540 B left beside the chunk < λ · X.
    let mut s = Blest::new(&BlestConfig::default());
    assert_eq!(s.select(&conn_with(GREEDY, 100_000), &blest_paths()), Decision::Wait);
}

#[test]
fn blest_sends_on_the_slow_path_when_the_send_window_is_large() {
    let mut s = Blest::new(&BlestConfig::default());
    assert_eq!(s.select(&conn_with(GREEDY, 10_000_000), &blest_paths()), Decision::Send(1));
}

#[test]
fn blest_counts_unacked_data_in_the_window_and_slow_path_data_against_it() {
    let mut s = Blest::new(&BlestConfig { lambda: 1.0, adaptive: false, ..Default::default() });
    // |M| = window_space + unacked = 300 kB; the slow path holds 50 kB + the chunk.
    let mut c = conn_with(GREEDY, 100_000);
    c.unacked = 200_000;
    let mut paths = blest_paths();
    assert_eq!(s.select(&c, &paths), Decision::Send(1));
    paths[1].in_flight = 50_000;
    paths[1].queued = 50_000;
    assert_eq!(s.select(&c, &paths), Decision::Wait);
}

#[test]
fn blest_lambda_scales_the_estimate() {
    // 220 000 B left beside the chunk: X fits, 1.2 · X does not.
    let c = conn_with(GREEDY, 220_000 + MSS as u64);
    const { assert!(BLEST_X <= 220_000.0 && 1.2 * BLEST_X > 220_000.0) };
    let fixed = |lambda| BlestConfig { lambda, adaptive: false, ..Default::default() };
    assert_eq!(Blest::new(&fixed(1.0)).select(&c, &blest_paths()), Decision::Send(1));
    assert_eq!(Blest::new(&fixed(1.2)).select(&c, &blest_paths()), Decision::Wait);
}

#[test]
fn blest_lambda_falls_once_per_slow_path_rtt_without_head_of_line_blocking() {
    let mut s = Blest::new(&BlestConfig::default());
    let mut c = conn_with(GREEDY, 10_000_000);
    for t in [0, 50, 99] {
        c.now = t * MS;
        s.select(&c, &blest_paths());
        assert_eq!(s.lambda(), 1.2, "no update before one slow-path min RTT (100 ms)");
    }
    c.now = 100 * MS;
    s.select(&c, &blest_paths());
    assert!((s.lambda() - 1.19).abs() < 1e-9, "{}", s.lambda());
    for k in 2..100 {
        c.now = k * 100 * MS;
        s.select(&c, &blest_paths());
    }
    assert_eq!(s.lambda(), 1.0, "kept at lambda_min");
}

#[test]
fn blest_lambda_rises_after_the_send_window_blocked() {
    let mut s = Blest::new(&BlestConfig::default());
    // The fast path sends the last full segment the window allows while more data waits.
    let fast_ok = [path(0, 10, 10), path(1, 100, 10)];
    assert_eq!(s.select(&conn_with(GREEDY, 2_000), &fast_ok), Decision::Send(0));
    let mut c = conn_with(GREEDY, 10_000_000);
    c.now = 100 * MS;
    s.select(&c, &blest_paths());
    assert!((s.lambda() - 1.24).abs() < 1e-9, "{}", s.lambda());
}

#[test]
fn blest_with_fixed_lambda_keeps_it() {
    let mut s = Blest::new(&BlestConfig { adaptive: false, ..Default::default() });
    let mut c = conn_with(GREEDY, 10_000_000);
    for k in 0..20 {
        c.now = k * 100 * MS;
        s.select(&c, &blest_paths());
    }
    assert_eq!(s.lambda(), 1.2);
}

// ---------------------------------------------------------------- CPF

fn rng(index: u64) -> RngStream {
    RngStream::new(0x5eed, StreamId::new(0x5c4e, index))
}

pub(super) fn below(r: &mut RngStream, n: u64) -> u64 {
    r.next_u64() % n
}

#[test]
fn cpf_uses_the_second_path_when_the_first_is_full() {
    let mut s = Cpf::new(&CpfConfig::default());
    let paths = [path(0, 100, 10), path(1, 10, 10)];
    assert_eq!(s.select(&conn(), &paths), Decision::Send(0), "priority, not RTT");
    let paths = [full(path(0, 100, 10)), path(1, 10, 10)];
    assert_eq!(s.select(&conn(), &paths), Decision::Send(1));
    let paths = [full(path(0, 100, 10)), full(path(1, 10, 10))];
    assert_eq!(s.select(&conn(), &paths), Decision::Wait, "never queues");
}

#[test]
fn cpf_orders_by_priority_then_id_or_srtt() {
    let mut paths = [path(0, 50, 10), path(1, 10, 10), path(2, 20, 10)];
    paths[0].priority = 2;
    paths[1].priority = 1;
    paths[2].priority = 1;
    assert_eq!(Cpf::new(&CpfConfig::default()).select(&conn(), &paths), Decision::Send(1));
    paths[1].srtt = 30 * MS;
    assert_eq!(Cpf::new(&CpfConfig::default()).select(&conn(), &paths), Decision::Send(1));
    assert_eq!(Cpf::new(&CpfConfig { ties_by_srtt: true }).select(&conn(), &paths), Decision::Send(2));
}

#[test]
fn cpf_never_uses_path_2_while_path_1_has_window_space() {
    let mut r = rng(1);
    let mut s = Cpf::new(&CpfConfig::default());
    let (mut first, mut second) = (0, 0);
    for _ in 0..20_000 {
        let mut paths = [path(0, 1 + below(&mut r, 300), 1 + below(&mut r, 50)), path(1, 1 + below(&mut r, 300), 1 + below(&mut r, 50))];
        for p in &mut paths {
            p.usable = r.bernoulli(0.8);
            p.has_space = r.bernoulli(0.5);
            p.in_flight = below(&mut r, 2 * p.cwnd + 1);
        }
        let d = s.select(&conn(), &paths);
        if paths[0].usable && paths[0].has_space {
            assert_eq!(d, Decision::Send(0), "{paths:?}");
            first += 1;
        } else if paths[1].usable && paths[1].has_space {
            assert_eq!(d, Decision::Send(1), "{paths:?}");
            second += 1;
        } else {
            assert_eq!(d, Decision::Wait, "{paths:?}");
        }
    }
    assert!(first > 1000 && second > 1000, "both cases exercised: {first} {second}");
}

#[test]
fn cpf_chooses_the_most_preferred_path_with_space_among_random_priorities() {
    let mut r = rng(2);
    let mut s = Cpf::new(&CpfConfig::default());
    for _ in 0..20_000 {
        let n = 1 + below(&mut r, 5) as usize;
        let paths: Vec<PathView> = (0..n)
            .map(|i| {
                let mut p = path(i, 1 + below(&mut r, 300), 10);
                p.priority = below(&mut r, 4) as u32;
                p.usable = r.bernoulli(0.8);
                p.has_space = r.bernoulli(0.5);
                p
            })
            .collect();
        let best = paths.iter().filter(|p| p.usable && p.has_space).map(|p| p.priority).min();
        match (s.select(&conn(), &paths), best) {
            (Decision::Send(i), Some(b)) => {
                assert_eq!(paths[i].priority, b, "{paths:?}");
                assert!(paths.iter().all(|p| !(p.usable && p.has_space && p.priority == b && p.id < i)), "ties by id");
            }
            (Decision::Wait, None) => {}
            (d, b) => panic!("{d:?} with best priority {b:?}: {paths:?}"),
        }
    }
}

// ---------------------------------------------------------------- OTIAS

#[test]
fn otias_queues_on_a_full_path_when_its_estimated_arrival_is_earliest() {
    // Path 0: window full → 1 round of 10 ms + 5 ms = 15 ms. Path 1: 0 rounds + 50 ms.
    let paths = [full(path(0, 10, 10)), path(1, 100, 10)];
    assert_eq!(Otias::new().select(&conn(), &paths), Decision::Send(0));
}

#[test]
fn otias_prefers_a_path_with_space_when_it_arrives_sooner() {
    // Path 0 holds 11 windows: 11 · 10 ms + 5 ms = 115 ms > 50 ms.
    let mut busy = full(path(0, 10, 10));
    busy.queued = 10 * busy.cwnd;
    let paths = [busy, path(1, 100, 10)];
    assert_eq!(Otias::new().select(&conn(), &paths), Decision::Send(1));
}

#[test]
fn otias_skips_a_full_path_that_cannot_queue() {
    let mut stuck = full(path(0, 10, 10));
    stuck.can_queue = false;
    let paths = [stuck, path(1, 100, 10)];
    assert_eq!(Otias::new().select(&conn(), &paths), Decision::Send(1));
    let mut other = full(path(1, 100, 10));
    other.can_queue = false;
    assert_eq!(Otias::new().select(&conn(), &[stuck, other]), Decision::Wait);
}

// ---------------------------------------------------------------- every scheduler: fuzz

/// Each registry name with its default options, plus variants whose options change behaviour.
fn every_config() -> Vec<SchedConfig> {
    let mut v: Vec<SchedConfig> = names(SCHEDULERS).into_iter().map(|n| SchedConfig::default_for(n).unwrap()).collect();
    let variants: [(&str, &str, OptValue); 5] = [
        ("default", "kernel", OptValue::Bool(false)),
        ("roundrobin", "segments", OptValue::Num(3.0)),
        ("blest", "adaptive", OptValue::Bool(false)),
        ("ecf", "beta", OptValue::Num(0.0)),
        ("cpf", "ties_by_srtt", OptValue::Bool(true)),
    ];
    for (name, key, value) in variants {
        let mut c = SchedConfig::default_for(name).unwrap();
        c.set(key, value).unwrap();
        v.push(c);
    }
    // `queue` matters only in the window model.
    let mut c = SchedConfig::default_for("default").unwrap();
    c.set("kernel", OptValue::Bool(false)).unwrap();
    c.set("queue", OptValue::Bool(true)).unwrap();
    v.push(c);
    v
}

/// How `random_view_with` draws views: the general fuzz (`BROAD`) and one with fewer paths and
/// more of them usable and measured, where learning schedulers get to decide (`tests_blp.rs`).
pub(super) struct ViewProfile {
    pub max_paths: u64,
    pub p_no_srtt: f64,
    pub max_srtt: Time,
    pub max_cwnd_segs: u64,
    pub p_usable: f64,
    pub p_idle_queue: f64,
    pub max_queued: u64,
    pub p_backup: f64,
    /// Window space and unacknowledged bytes below this; greedy (unbounded) with `p_open_window`.
    pub max_window: u64,
    pub p_open_window: f64,
    pub max_unsent: u64,
}

pub(super) const BROAD: ViewProfile = ViewProfile {
    max_paths: 6,
    p_no_srtt: 0.15,
    max_srtt: 500 * MS,
    max_cwnd_segs: 200,
    p_usable: 0.7,
    p_idle_queue: 0.5,
    max_queued: 1 << 20,
    p_backup: 0.2,
    max_window: 1 << 24,
    p_open_window: 0.2,
    max_unsent: 1 << 24,
};

/// Random path and connection views for the fuzz tests.
pub(super) fn random_view(r: &mut RngStream, now: Time) -> (ConnView, Vec<PathView>) {
    random_view_with(r, now, &BROAD)
}

pub(super) fn random_view_with(r: &mut RngStream, now: Time, g: &ViewProfile) -> (ConnView, Vec<PathView>) {
    let n = below(r, g.max_paths) as usize;
    let paths = (0..n)
        .map(|id| {
            let mss = 500 + below(r, 1001) as u32;
            let srtt = if r.bernoulli(g.p_no_srtt) { 0 } else { 1 + below(r, g.max_srtt) };
            let cwnd = if r.bernoulli(0.05) { 0 } else { below(r, g.max_cwnd_segs) * mss as u64 };
            let (retransmissions, bytes_acked) = (below(r, 1 << 10), below(r, 1 << 30));
            PathView {
                id,
                usable: r.bernoulli(g.p_usable),
                has_space: r.bernoulli(0.5),
                can_queue: r.bernoulli(0.5),
                srtt,
                rttvar: if srtt == 0 { 0 } else { below(r, srtt) },
                min_rtt: if srtt == 0 { 0 } else { 1 + below(r, srtt) },
                cwnd,
                in_flight: below(r, 2 * cwnd + 1),
                queued: if r.bernoulli(g.p_idle_queue) { 0 } else { below(r, g.max_queued) },
                pacing_rate: if r.bernoulli(0.2) { 0 } else { 1 + below(r, 1 << 32) },
                mss,
                priority: below(r, 4) as u32,
                backup: r.bernoulli(g.p_backup),
                segments_sent: below(r, 1 << 20),
                retransmissions,
                bytes_acked,
                // Derived, not drawn (the stream other fields see stays as it was).
                bytes_sent: bytes_acked + retransmissions * mss as u64,
                packets_lost: retransmissions,
                bytes_lost: retransmissions * mss as u64,
                ssthresh: if id % 3 == 0 { u64::MAX } else { cwnd / 2 },
                rto: 3 * srtt,
                // Every other path has RTT-model terms (`lossaware`), derived from its SRTT.
                model: if id % 2 == 0 {
                    PathModel { dtt: srtt / 3, att: srtt / 4, per_frame: srtt / 20, ack_dc: srtt / 50, hops: 1 + id as u32 }
                } else {
                    PathModel::default()
                },
            }
        })
        .collect();
    let chunk = 1 + below(r, 1500) as u32;
    let conn = ConnView {
        now,
        unsent: if r.bernoulli(0.3) { GREEDY } else { below(r, g.max_unsent) },
        window_space: if r.bernoulli(g.p_open_window) { GREEDY } else { below(r, g.max_window) },
        unacked: below(r, g.max_window),
        send_buffer: 1 << 22,
        chunk,
    };
    (conn, paths)
}

/// What any decision must satisfy; `Err` names the broken rule.
fn check(may_queue: bool, paths: &[PathView], d: Decision) -> Result<(), String> {
    let regular_usable = paths.iter().any(|p| p.usable && !p.backup);
    let eligible = |p: &PathView| p.usable && (!p.backup || !regular_usable);
    match d {
        Decision::Send(i) => {
            let p = paths.get(i).ok_or(format!("path {i} out of range"))?;
            if !eligible(p) {
                return Err(format!("path {i} is unusable, or a backup while a regular path is usable"));
            }
            if !(p.has_space || may_queue && p.can_queue) {
                return Err(format!("path {i} can take nothing"));
            }
        }
        Decision::Redundant(mask) => {
            if mask == 0 {
                return Err("empty redundant mask".into());
            }
            for i in (0..64).filter(|i| mask & 1 << i != 0) {
                let p = paths.get(i).ok_or(format!("path {i} out of range"))?;
                if !eligible(p) || !p.has_space {
                    return Err(format!("redundant copy on path {i}, which cannot send now"));
                }
            }
        }
        Decision::Wait => {}
    }
    if !paths.iter().any(|p| p.usable) && d != Decision::Wait {
        return Err("no path is usable but the decision is not Wait".into());
    }
    Ok(())
}

/// Schedulers that send whenever an eligible path can (no deliberate waiting).
fn work_conserving(c: &SchedConfig) -> bool {
    match c {
        SchedConfig::Default(l) => !l.kernel && !l.queue,
        SchedConfig::Blest(_) | SchedConfig::Ecf(_) | SchedConfig::Blp(_) | SchedConfig::Peekaboo(_) | SchedConfig::LossAware(_) => false,
        _ => true,
    }
}

#[test]
fn every_scheduler_names_only_usable_paths_that_can_take_the_chunk() {
    for (k, cfg) in every_config().iter().enumerate() {
        let mut r = rng(100 + k as u64);
        let mut s = cfg.build();
        if let AnyScheduler::Linger(l) = &mut s {
            l.enable_send_buffers(); // as MPTCP does
        }
        let (mut now, mut sent, mut held_back) = (0, 0, 0);
        for step in 0..30_000 {
            now += below(&mut r, 20 * MS);
            let (conn, paths) = random_view(&mut r, now);
            let d = s.select(&conn, &paths);
            if let Err(e) = check(cfg.may_queue(), &paths, d) {
                panic!("{cfg:?}, step {step}: {e}\ndecision {d:?}\nconn {conn:?}\npaths {paths:#?}");
            }
            let sendable = super::eligible(&paths).any(|p| p.has_space);
            if work_conserving(cfg) && sendable {
                assert_ne!(d, Decision::Wait, "{cfg:?} waited with a path free: {paths:#?}");
            }
            match d {
                Decision::Wait if sendable => held_back += 1,
                Decision::Wait => {}
                _ => sent += 1,
            }
        }
        // The random views reach both outcomes: sending, and (BLEST, ECF) holding back.
        assert!(sent > 5_000, "{cfg:?}: only {sent} sends");
        if matches!(cfg, SchedConfig::Blest(_) | SchedConfig::Ecf(_)) {
            assert!(held_back > 10, "{cfg:?}: only {held_back} deliberate waits");
        }
    }
}

#[test]
fn every_scheduler_waits_when_no_path_is_usable() {
    for (k, cfg) in every_config().iter().enumerate() {
        let mut r = rng(200 + k as u64);
        let mut s = cfg.build();
        if let AnyScheduler::Linger(l) = &mut s {
            l.enable_send_buffers();
        }
        for _ in 0..2_000 {
            let (conn, mut paths) = random_view(&mut r, 0);
            for p in &mut paths {
                p.usable = false;
            }
            assert_eq!(s.select(&conn, &paths), Decision::Wait, "{cfg:?}: {paths:?}");
        }
        assert_eq!(s.select(&conn(), &[]), Decision::Wait, "{cfg:?} with no paths");
    }
}
