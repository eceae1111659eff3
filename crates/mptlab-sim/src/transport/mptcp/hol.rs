//! Seed 001's per-path delay T_i(k) (Łuczak, Ignaciuk, Morawski 2023, eqs. (1), (2), (7)–(9);
//! `../shared/seeds/001_fba625d6a51c507c.txt` §2.1.1–2.1.3), measured at the MPTCP sender.
//!
//! The paper, as written:
//!
//! ```text
//!   T_i = τ_i + θ_i                                   (1)  total delay on path i
//!   T_over(k) = max_i T_i(k)                          (2)  protocol delay, sample k
//!   ζ(k) = T_over(k) − max_{i∈[1,m]} τ_i(k)           (8), (9)  HoL blocking degree
//! ```
//!
//! Reading of every symbol (the paper gives no measurement procedure; these are ours):
//! - **k**: a sampling interval (`metrics.trace_interval`, 100 ms in the reproduction). A
//!   sample exists when at least one path has a T_i(k).
//! - **τ_i(k)**: path i's smoothed RTT (RFC 6298 SRTT, as the kernel keeps it) at the end of
//!   interval k. It includes whatever the ACK clock adds, e.g. the receiver's delayed-ACK wait
//!   (that is the kernel's SRTT too).
//! - **T_i(k)** ("the total delay on path i", "from the moment the Master Controller receives
//!   the user data from the transmit buffer [...] when the acknowledgment for that data is
//!   received"): for each chunk the scheduler places on path i, the time from its hand-over
//!   (the scheduler taking it for a greedy source; the application's write otherwise) to the
//!   first ACK *received on path i* whose DATA_ACK covers it. Requiring the acknowledgment to
//!   come back over path i makes T_i a round trip over path i plus waits (θ_i: in the sender,
//!   in the receiver's reassembly, the delayed ACK), as eq. (1) decomposes it; a DATA_ACK that
//!   first reaches the sender over another, faster path (path-1 data acknowledged on path 2's
//!   ACK stream) does not end path-1 data's T_1. T_i(k) is the largest such delay among the
//!   chunks of path i whose acknowledgment arrived in interval k (the paper's "maximum" form
//!   of eq. (2) applied within the interval; the same as seed 001's v_max taking maxima).
//!   A consequence of this reading: a chunk delivered only after another path's data filled
//!   the hole before it is acknowledged at the data level on its own path by that path's *next*
//!   ACK; on a path that keeps sending (seed 001's greedy stream) that is one ACK gap later, but
//!   on a path that stops sending (an application-limited stream, a path the scheduler leaves)
//!   it can be much later, and T_i grows by that wait.
//! - **θ_i**: not measured separately; θ_i = T_i − τ_i.
//! - **T_over(k)** = max_i T_i(k) over the paths with a T_i(k).
//! - **max_{i∈[1,m]} τ_i(k)**: over all m paths that have an SRTT at sample k, as written
//!   (whether or not they carried data in interval k).
//!
//! Where ζ(k) < 0 even so (the paper's eq. (11) clips the per-run maximum at 0, so it met
//! negative values too): (a) the path with the largest τ had no chunk acknowledged in interval k
//! and the others' T_i(k) are below its τ (an idle or stalled slow path); (b) SRTT lags: after
//! a queue drains, τ_i (7/8 of the old value per sample) stays above the RTT the chunks of
//! interval k saw; (c) T_i(k) is one chunk's delay, τ_i an average, so a chunk faster than the
//! average gives T_i < τ_i when the path's other chunks of interval k are as fast.
//! The direct reassembly wait (arrival at the receiver → delivery to the application) is
//! measured separately in `receiver.rs` (`hol_wait`), not from these equations.
//!
//! Per-path queues of (end of chunk in data sequence, hand-over time), in placement order; a
//! DATA_ACK on path i pops the front entries it covers. A reinjected chunk placed behind newer
//! data on the same path is popped when the data ahead of it is covered (a later end), which
//! can only lengthen its T_i; reinjections are rare in seed 001's runs.

use mptlab_engine::Time;
use std::collections::VecDeque;

#[derive(Clone, Debug, Default)]
pub struct PathDelays {
    /// Per path: (end of a chunk placed on it, its hand-over time).
    placed: Vec<VecDeque<(u64, Time)>>,
    /// Per path: the largest T_i acknowledged since the last `take`.
    interval_max: Vec<Option<Time>>,
}

impl PathDelays {
    /// Bytes its growable containers hold (`transport::footprint`).
    pub fn memory_footprint(&self) -> usize {
        use crate::transport::footprint::*;
        self.placed.iter().map(deque).sum::<usize>() + slice(&self.placed) + slice(&self.interval_max)
    }

    /// Chunks placed and not yet acknowledged on their path, over all paths.
    pub fn placed_chunks(&self) -> usize {
        self.placed.iter().map(VecDeque::len).sum()
    }

    pub fn new(paths: usize) -> Self {
        PathDelays { placed: vec![VecDeque::new(); paths], interval_max: vec![None; paths] }
    }

    /// A chunk ending at data sequence `end`, handed over at `handed`, was placed on path `i`.
    #[inline]
    pub fn placed(&mut self, i: usize, end: u64, handed: Time) {
        self.placed[i].push_back((end, handed));
    }

    /// An ACK arrived on path `i` at `now` carrying DATA_ACK `dack`.
    #[inline]
    pub fn acked(&mut self, now: Time, i: usize, dack: u64) {
        let q = &mut self.placed[i];
        let mut m = self.interval_max[i];
        while let Some(&(end, t)) = q.front() {
            if end > dack {
                break;
            }
            q.pop_front();
            let d = now - t;
            m = Some(m.map_or(d, |x| x.max(d)));
        }
        self.interval_max[i] = m;
    }

    /// Path `i` was closed: its chunks are reinjected elsewhere (and measured there).
    pub fn clear(&mut self, i: usize) {
        self.placed[i].clear();
    }

    /// T_i(k) of the interval that ends now (None: nothing of path i acknowledged on path i),
    /// and start the next interval.
    pub fn take(&mut self, i: usize) -> Option<Time> {
        self.interval_max[i].take()
    }
}

/// ζ(k) of eq. (8)–(9) from T_i(k) (ms, None where path i has none) and τ_i(k) (ms, None where
/// path i has no SRTT): (T_over(k), ζ(k)), or None when no path has a T_i(k) or none an SRTT.
pub fn zeta(t_i: &[Option<f64>], tau_i: &[Option<f64>]) -> Option<(f64, f64)> {
    let t_over = t_i.iter().flatten().copied().reduce(f64::max)?;
    let tau = tau_i.iter().flatten().copied().reduce(f64::max)?;
    Some((t_over, t_over - tau))
}

#[cfg(test)]
mod tests {
    use super::*;
    use mptlab_engine::time::MILLISECOND as MS;

    #[test]
    fn t_i_ends_at_the_first_data_ack_received_on_the_same_path() {
        // Path 0 carries [0, 1000) handed over at 0; path 1 carries [1000, 2000) handed at 1 ms.
        let mut p = PathDelays::new(2);
        p.placed(0, 1000, 0);
        p.placed(1, 2000, MS);
        // At 30 ms a path-1 ACK with DATA_ACK 2000 covers both chunks: it ends path 1's chunk
        // (29 ms) but not path 0's, whose acknowledgment must come back over path 0.
        p.acked(30 * MS, 1, 2000);
        p.acked(30 * MS, 0, 0);
        assert_eq!((p.take(0), p.take(1)), (None, Some(29 * MS)));
        // Path 0's ACK arrives at 80 ms: T_0 = 80 ms, in the interval where it arrived.
        p.acked(80 * MS, 0, 2000);
        assert_eq!((p.take(0), p.take(1)), (Some(80 * MS), None));
        // Taken: the next interval starts empty.
        assert_eq!(p.take(0), None);
    }

    #[test]
    fn t_i_of_an_interval_is_the_largest_of_its_chunks() {
        let mut p = PathDelays::new(1);
        for (k, t) in [(1000, 0), (2000, 5 * MS), (3000, 40 * MS)] {
            p.placed(0, k, t);
        }
        p.acked(60 * MS, 0, 1500); // covers only the first (its end 1000 ≤ 1500): 60 ms
        p.acked(70 * MS, 0, 3000); // the other two: 65 and 30 ms
        assert_eq!(p.take(0), Some(65 * MS));
        p.placed(0, 4000, 70 * MS);
        p.clear(0);
        p.acked(90 * MS, 0, 4000);
        assert_eq!(p.take(0), None, "a closed path's chunks are not measured on it");
    }

    #[test]
    fn zeta_is_eq_8_with_both_maxima_over_the_paths_and_non_negative_when_the_slowest_path_reports() {
        // T_1 = 100 (τ_1 = 80), T_2 = 70 (τ_2 = 55): T_over = 100, ζ = 100 − 80 = 20.
        assert_eq!(zeta(&[Some(100.0), Some(70.0)], &[Some(80.0), Some(55.0)]), Some((100.0, 20.0)));
        // With T_i = τ_i + θ_i, θ_i ≥ 0 and the slowest path reporting, ζ ≥ θ of that path ≥ 0.
        for (th1, th2) in [(0.0, 0.0), (3.0, 50.0), (0.0, 40.0)] {
            let (_, z) = zeta(&[Some(80.0 + th1), Some(55.0 + th2)], &[Some(80.0), Some(55.0)]).unwrap();
            assert!(z >= th1, "{z}");
        }
        // Case (a) of the header: the slow path (τ = 80) acknowledged nothing in k and the fast
        // one's T_2 = 60 < 80: ζ = −20, as eq. (8) is written (max over all m paths).
        assert_eq!(zeta(&[None, Some(60.0)], &[Some(80.0), Some(55.0)]), Some((60.0, -20.0)));
        // No T_i in the interval, or no SRTT anywhere: no sample.
        assert_eq!(zeta(&[None, None], &[Some(80.0), Some(55.0)]), None);
        assert_eq!(zeta(&[Some(1.0), None], &[None, None]), None);
    }
}
