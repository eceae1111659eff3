//! `default`: the scheduler of upstream Linux MPTCP, lowest "linger time" first, with the
//! kernel's push path (bursts into the subflow's send queue, up to its send buffer).
//!
//! Sources (Linux 6.18, the kernel this project's machine runs, `uname -r` 6.18.44; read from
//! torvalds/linux `net/mptcp/protocol.c` at commit 00d46be3c319, whose send path matches it):
//!
//! - `mptcp_subflow_get_send`: for every active subflow (`mptcp_subflow_active`),
//!   `linger_time = (sk_wmem_queued << 32) / avg_pacing_rate`; the smallest per class
//!   (non-backup, backup) wins, the backup class only when no non-backup subflow is active. The
//!   winner is returned only if `sk_stream_memory_free(ssk)` (`sk_wmem_queued < sk_sndbuf`),
//!   else NULL: **nothing is sent, even if another subflow could take data**. The congestion
//!   window is not looked at (the comment's "non empty cwin" check is not in the code). On a
//!   pick, `burst = min(MPTCP_SEND_BURST_SIZE, wnd_end - snd_nxt)` and, if `burst > 0`,
//!   `avg_pacing_rate = (avg_pacing_rate · wmem + sk_pacing_rate · burst) / (burst + wmem)`
//!   (`avg_pacing_rate` starts as `sk_pacing_rate` the first time the subflow is looked at).
//! - `MPTCP_SEND_BURST_SIZE = 65536 − sizeof(tcphdr) − MAX_TCP_OPTION_SPACE − sizeof(ipv6hdr)
//!   − sizeof(frag_hdr) = 65536 − 20 − 40 − 40 − 8 = 65 428` bytes.
//! - `__mptcp_push_pending` / `__subflow_push_pending` / `mptcp_sendmsg_frag`: the picked
//!   subflow gets data copied into its write queue (not limited by its window; `tcp_push` in
//!   `mptcp_push_release` then sends what cwnd allows) until `snd_burst ≤ 0`, or the subflow's
//!   memory is no longer free, or it is no longer active; then the scheduler is asked again.
//!   `__mptcp_subflow_push_pending` (the push on an incoming ACK) does the same.
//! - How much a subflow may hold is `sk_sndbuf`, autotuned by `tcp_sndbuf_expand`
//!   (`net/ipv4/tcp_input.c`): `2 · max(TCP_INIT_CWND, cwnd, reordering + 1) · per_mss`,
//!   `per_mss = roundup_pow_of_two(mss + MAX_TCP_HEADER + SKB_DATA_ALIGN(skb_shared_info)) +
//!   SKB_DATA_ALIGN(sk_buff)`, capped at `tcp_wmem[2]` (4 MiB). The connection computes it
//!   (`transport/mptcp/sender.rs`, functions `autotuned_sndbuf` and `wmem_queued` here) and
//!   tells the scheduler through `PathView::can_queue` = "memory free".
//! - The connection's send buffer (`__mptcp_sync_sndbuf`, `mptcp_send_limit` in
//!   `mptcp_sendmsg`): the msk's `sk_sndbuf` is `tcp_wmem[0]` (4 096) + the sum of the
//!   subflows' `sk_sndbuf`, and the application's data stays in the msk's `sk_wmem_queued` until
//!   DATA_ACKed. The connection applies it (`transport/mptcp/sender.rs`, `send_buffer`).
//!
//! Interpretations (each tested in `sched/tests.rs` or `tests/mptcp_default.rs`):
//! - `sk_wmem_queued` is the truesize of the subflow's write and retransmit queues. Modelled as
//!   the payload the subflow holds (`queued + in_flight` in the view; written and not
//!   cumulatively acknowledged in the connection's memory check) plus 160 B per segment,
//!   measured on this machine's kernel (6.18.44, 16 MiB over 10/3 Mbit/s in network
//!   namespaces, `ss -tm` skmem `w` against Send-Q): 137 B per segment on the 10 Mbit/s subflow,
//!   180 B on the 3 Mbit/s one (an skb head costs about 1.3 KB of truesize and TSO skbs carry
//!   several segments). Small queues cost more per byte there (fixed per-skb costs); not
//!   modelled.
//! - `per_mss` = roundup_pow_of_two(mss + MAX_TCP_HEADER + 320) + 256 with `MAX_TCP_HEADER` =
//!   256: 2 304 B for an MSS up to 1 472 B. Measured on the same kernel: `sk_sndbuf` (skmem `tb`)
//!   was exactly 4 608 · cwnd = 2 · cwnd · 2 304 at every sample while cwnd grew from 26 to 88
//!   segments. (A kernel built with larger link-layer headers has `MAX_TCP_HEADER` = 320 and
//!   4 352 B.)
//! - `sk_sndbuf` follows the largest congestion window the subflow has had (in segments), as
//!   that measurement shows (Linux expands it in `tcp_new_space` when the subflow is not
//!   cwnd-limited, which for an MPTCP subflow is when its send buffer limits it). It never
//!   shrinks (memory pressure is not modelled).
//! - `sk_pacing_rate` is the controller's pacing rate if it has one (BBR), else Linux's
//!   `tcp_update_pacing_rate`: `mss · max(cwnd, in flight) / srtt` × 200 % while
//!   `cwnd < ssthresh / 2`, × 120 % otherwise. The connection puts it in `PathView::pacing_rate`
//!   for this scheduler. A path with rate 0 (no RTT sample yet) has linger time 0: Linux starts
//!   `sk_pacing_rate` at ~0UL (unlimited), and a subflow is usable here only once established,
//!   when Linux has already set the rate from the handshake's RTT sample.
//! - The burst: the scheduler remembers (path, bytes left, time of the pick) and keeps naming
//!   that path for the following chunks while bytes are left, the path is usable and its memory
//!   is free. Linux starts every push call with a fresh pick; here a push is a run of asks at one
//!   instant, so a burst never outlives the simulated instant it began in (two pushes at the very
//!   same nanosecond share one burst: a departure too small to matter).
//! - The linger comparison uses the kernel's integer division of `wmem · 2^32` (`div_u64`; wmem
//!   saturates at 2^32 − 1, far above any send buffer), ties to the lower id (the kernel keeps the first subflow of its list on ties,
//!   the list being in join order = id order).
//! - Reinjection (`mptcp_subflow_get_retrans`) is not part of this scheduler: the connection
//!   reinjects on RTO (`transport/mptcp/sender.rs`) and asks the same scheduler where to send.
//!
//! The kernel model needs a transport with subflow send buffers: MPTCP enables it
//! (`enable_send_buffers`); for multipath QUIC `default` stays the window model below.
//!
//! `kernel = false` keeps the previous model for comparison: the lowest linger time
//! `(queued + in_flight) / pacing_rate` among paths with window space (`queue = false`), or
//! among all paths, queueing at most two segments (`queue = true`); no burst, no smoothing.

use super::{eligible, ConnView, Decision, PathView, Scheduler};
use crate::cc::options::OptValue;
use crate::cc::Options;
use mptlab_engine::time::SECOND;
use mptlab_engine::Time;
use serde::Serialize;

/// `MPTCP_SEND_BURST_SIZE` (see the header).
pub const SEND_BURST_SIZE: u64 = 65_536 - 20 - 40 - 40 - 8;
/// Truesize beyond the payload per segment held in a subflow's queues (see the header).
pub const SKB_OVERHEAD_PER_SEGMENT: u64 = 160;
/// `TCP_INIT_CWND`.
const TCP_INIT_CWND: u64 = 10;
/// `tcp_wmem[2]` default: 4 MiB.
pub const TCP_WMEM_MAX: u64 = 4 << 20;

/// Linux `sk_wmem_queued` for `held` payload bytes in segments of `mss` (see the header).
#[inline]
pub fn wmem_queued(held: u64, mss: u32) -> u64 {
    let mss = mss.max(1) as u64;
    held + held.div_ceil(mss) * SKB_OVERHEAD_PER_SEGMENT
}

/// The most payload bytes a subflow may hold in segments of `mss` with `wmem_queued` still below
/// `sndbuf` (None: none, `sndbuf` = 0). `wmem_queued` grows strictly with the bytes held, so
/// "memory free" is "held ≤ this": kept per send buffer, it spares a division per check.
/// With L = sndbuf − 1 and k = L / (mss + overhead) whole segments, the partial segment after
/// them may add what L leaves beyond its own overhead.
pub fn max_held_below(sndbuf: u64, mss: u32) -> Option<u64> {
    let last = sndbuf.checked_sub(1)?;
    let mss = mss.max(1) as u64;
    let k = last / (mss + SKB_OVERHEAD_PER_SEGMENT);
    let rest = last - k * (mss + SKB_OVERHEAD_PER_SEGMENT);
    Some(k * mss + rest.saturating_sub(SKB_OVERHEAD_PER_SEGMENT))
}

/// Linux `tcp_sndbuf_expand` for a window of `cwnd_segments`: 2 · max(10, cwnd) · per_mss,
/// capped at `tcp_wmem[2]`.
#[inline]
pub fn autotuned_sndbuf(cwnd_segments: u64, mss: u32) -> u64 {
    let per_mss = (mss as u64 + 256 + 320).next_power_of_two() + 256;
    (2 * cwnd_segments.max(TCP_INIT_CWND) * per_mss).min(TCP_WMEM_MAX)
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LingerConfig {
    /// Linux 6.x as a whole: lowest linger time with smoothed rates, wait if the winner's send
    /// buffer is full, bursts of up to 64 KB into its send queue (default true). False: the
    /// earlier window-limited model (see `queue`).
    pub kernel: bool,
    /// With `kernel = false` only: choose among all eligible paths and queue (at most two
    /// segments) on the winner if it has no space; false: choose among the paths with space.
    pub queue: bool,
}

impl Default for LingerConfig {
    fn default() -> Self {
        Self { kernel: true, queue: false }
    }
}

impl Options for LingerConfig {
    const NAMES: &'static [&'static str] = &["kernel", "queue"];
    fn set(&mut self, key: &str, v: OptValue) -> Result<(), String> {
        match key {
            "kernel" => self.kernel = v.boolean()?,
            "queue" => self.queue = v.boolean()?,
            _ => unreachable!("checked against NAMES"),
        }
        Ok(())
    }
}

/// The burst under way: the picked path, bytes it may still take, and when it was picked.
#[derive(Clone, Copy, Debug)]
struct Burst {
    path: usize,
    left: u64,
    at: Time,
}

#[derive(Clone, Debug)]
pub struct Linger {
    /// `LingerConfig::kernel`.
    kernel_cfg: bool,
    /// The kernel model is in force: configured, and the transport has per-subflow send
    /// buffers (`enable_send_buffers`).
    kernel: bool,
    queue: bool,
    burst: Option<Burst>,
    /// Per path: the kernel's `subflow->avg_pacing_rate` (0: not yet initialised).
    avg_rate: Vec<u64>,
}

impl Linger {
    pub fn new(cfg: &LingerConfig) -> Self {
        Self { kernel_cfg: cfg.kernel, kernel: false, queue: cfg.queue, burst: None, avg_rate: Vec::new() }
    }

    /// The transport keeps per-subflow send buffers and reports them as the kernel model needs
    /// (`can_queue` = send buffer not full, `pacing_rate` = Linux's `sk_pacing_rate`): MPTCP
    /// calls this. Until then (multipath QUIC, which has no subflow send queues) the scheduler
    /// is the window model whatever `kernel` says.
    pub fn enable_send_buffers(&mut self) {
        self.kernel = self.kernel_cfg;
    }

    /// True when the kernel model is in force.
    pub fn kernel(&self) -> bool {
        self.kernel
    }

    /// The smoothed rate (`avg_pacing_rate`) of path `id`, 0 before it was first looked at.
    pub fn avg_rate(&self, id: usize) -> u64 {
        self.avg_rate.get(id).copied().unwrap_or(0)
    }

    /// The path of the burst under way at `now`, if it has bytes left: when that path is still
    /// eligible and its send buffer has room, `select` would name it again without looking at
    /// the other paths, so the connection may place the next chunk there without building views
    /// (and then calls `take_from_burst`). Same decisions, less work.
    #[inline]
    pub fn burst_path(&self, now: Time) -> Option<usize> {
        self.burst.filter(|b| b.at == now && b.left > 0).map(|b| b.path)
    }

    /// A chunk of `chunk` bytes went to the burst's path without a `select`.
    #[inline]
    pub fn take_from_burst(&mut self, chunk: u32) {
        if let Some(b) = &mut self.burst {
            b.left = b.left.saturating_sub(chunk as u64);
        }
    }

    fn select_kernel(&mut self, conn: &ConnView, paths: &[PathView]) -> Decision {
        self.select_kernel_with(conn, paths, |p| p.pacing_rate)
    }

    /// The kernel model's `select` with a path's `sk_pacing_rate` taken from `rate` instead of
    /// `PathView::pacing_rate`, and only where it is read: a path's first look (its smoothed
    /// rate starts there) and the winner of a pick that starts a burst. A transport whose rate
    /// costs a computation (MPTCP: `tcp_update_pacing_rate` from the controller) passes views
    /// without it; the decision and the state are those of `select` with the rates in the views.
    pub fn select_kernel_with(&mut self, conn: &ConnView, paths: &[PathView], mut rate: impl FnMut(&PathView) -> u64) -> Decision {
        debug_assert!(self.kernel);
        if self.avg_rate.len() < paths.len() {
            self.avg_rate.resize(paths.len(), 0);
        }
        // `__subflow_push_pending`: keep filling the picked subflow while the burst lasts.
        if let Some(b) = self.burst {
            if b.at == conn.now && b.left > 0 && eligible(paths).any(|p| p.id == b.path && p.can_queue) {
                self.burst = Some(Burst { left: b.left.saturating_sub(conn.chunk as u64), ..b });
                return Decision::Send(b.path);
            }
        }
        self.burst = None;
        // `mptcp_subflow_get_send`.
        // (linger time, path, its wmem)
        let mut best: Option<(u64, usize, u64)> = None;
        for p in eligible(paths) {
            let avg = &mut self.avg_rate[p.id];
            if *avg == 0 {
                *avg = rate(p);
            }
            // `div_u64(wmem << 32, pace)`: wmem stays below 2^32 here (send buffers ≤ 4 MiB);
            // larger views saturate.
            let wmem = wmem_queued(p.queued + p.in_flight, p.mss);
            let linger = (wmem.min(u32::MAX as u64) << 32).checked_div(*avg).unwrap_or(0);
            if best.is_none_or(|(l, _, _)| linger < l) {
                best = Some((linger, p.id, wmem));
            }
        }
        let Some((_, id, wmem)) = best else {
            return Decision::Wait;
        };
        let p = &paths[id];
        if !p.can_queue {
            return Decision::Wait; // `!sk_stream_memory_free(ssk)`: return NULL
        }
        let burst = SEND_BURST_SIZE.min(conn.window_space);
        if burst == 0 {
            return Decision::Send(id);
        }
        let avg = &mut self.avg_rate[id];
        *avg = smoothed_rate(*avg, wmem, rate(p), burst);
        self.burst = Some(Burst { path: id, left: burst.saturating_sub(conn.chunk as u64), at: conn.now });
        Decision::Send(id)
    }
}

/// `(avg · wmem + rate · burst) / (burst + wmem)`, the kernel's update of `avg_pacing_rate`: in
/// 64 bits when nothing overflows (rates below ~2.8 TB/s with a 4 MiB send buffer), the same
/// quotient as in 128 bits, which the rare rest takes.
#[inline]
fn smoothed_rate(avg: u64, wmem: u64, rate: u64, burst: u64) -> u64 {
    let num = avg.checked_mul(wmem).zip(rate.checked_mul(burst)).and_then(|(a, b)| a.checked_add(b));
    match (num, burst.checked_add(wmem)) {
        (Some(n), Some(d)) => n / d,
        _ => wide_smoothed_rate(avg, wmem, rate, burst),
    }
}

/// `smoothed_rate` in 128 bits, wrapping as the release build always did: only values near
/// 2^64 on both sides of a product (never a real rate or buffer) reach the wrap.
fn wide_smoothed_rate(avg: u64, wmem: u64, rate: u64, burst: u64) -> u64 {
    let num = (avg as u128).wrapping_mul(wmem as u128).wrapping_add((rate as u128).wrapping_mul(burst as u128));
    (num / (burst as u128 + wmem as u128)) as u64
}

/// Time to drain what the path holds at its sending rate, in nanoseconds (0 without a rate):
/// the `kernel = false` model's key.
pub fn linger_time(p: &PathView) -> u128 {
    if p.pacing_rate == 0 {
        return 0;
    }
    (p.queued as u128 + p.in_flight as u128) * SECOND as u128 / p.pacing_rate as u128
}

impl Scheduler for Linger {
    fn select(&mut self, conn: &ConnView, paths: &[PathView]) -> Decision {
        if self.kernel {
            return self.select_kernel(conn, paths);
        }
        let key = |p: &&PathView| (linger_time(p), p.id);
        if self.queue {
            match eligible(paths).min_by_key(key) {
                Some(p) if p.has_space || p.can_queue => Decision::Send(p.id),
                _ => Decision::Wait,
            }
        } else {
            eligible(paths).filter(|p| p.has_space).min_by_key(key).map_or(Decision::Wait, |p| Decision::Send(p.id))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// `max_held_below` is the boundary of "memory free": every amount up to it is below
        /// the send buffer, the next one is not.
        #[test]
        fn max_held_below_is_the_boundary_of_memory_free(sndbuf in 0u64..(8 << 20), mss in 0u32..10_000, held in 0u64..(8 << 20)) {
            let free = wmem_queued(held, mss) < sndbuf;
            prop_assert_eq!(max_held_below(sndbuf, mss).is_some_and(|h| held <= h), free);
            if let Some(h) = max_held_below(sndbuf, mss) {
                prop_assert!(wmem_queued(h, mss) < sndbuf);
                prop_assert!(wmem_queued(h + 1, mss) >= sndbuf);
            }
        }
    }

    #[test]
    fn the_64_bit_smoothed_rate_is_the_128_bit_one() {
        let wide = wide_smoothed_rate;
        let values = [0, 1, 7, 160, 4_608, 65_428, 1 << 22, 125_000_000, 1 << 40, u64::MAX / 3, u64::MAX];
        for &avg in &values {
            for &wmem in &values {
                for &rate in &values {
                    for burst in [1, 100, 65_428] {
                        assert_eq!(smoothed_rate(avg, wmem, rate, burst), wide(avg, wmem, rate, burst), "{avg} {wmem} {rate} {burst}");
                    }
                }
            }
        }
    }
}
