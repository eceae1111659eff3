//! Rates per interval that scale: `RateMeter` measures bytes per fixed interval (a flow's
//! goodput, a link's wire throughput) either as a kept series (`IntervalBins`: the time series a
//! run asks for, exact percentiles) or streamed (`StreamingRates`: each interval's rate goes into
//! running statistics as soon as it can no longer change, so memory does not grow with run
//! length). Same bin rule as `IntervalBins` (DESIGN.md "Metrics": bin k covers
//! [k·interval, (k+1)·interval) ∩ [0, duration), the last bin normalised by its length).
//!
//! Streaming: mean, std, min, max and count are exact (running sums, `RunningStats`); p50 and p95
//! come from a `LogHistogram` of the rates in bit/s (within 3.1 %). A bin is settled once the
//! clock has left it: callers add bytes at a time `t ≥ now` (a link counts a transmission at its
//! end, which may lie ahead of `now`) and take back only bytes at `t > now`, so the open bins
//! are the one holding `now` and those ahead of it (bounded by the longest queueing delay).

use std::collections::VecDeque;

use mptlab_engine::Time;

use super::histogram::LogHistogram;
use super::interval::IntervalBins;
use super::stats::{RunningStats, Stats};

const NS_PER_S: f64 = 1e9;

/// Interval rates of `N` byte streams (a flow's goodput: 1; a link's protocols: 2) streamed
/// into running statistics over bins `first..end` of a run of length `duration` (a flow counts
/// only its active bins). With `N > 1` the sum of the streams gets statistics of its own.
///
/// The bytes of the bin holding the clock (`settled`) gather in `hot`, first in the struct,
/// and join `open[0]` only when that bin settles: the common add (a transmission or delivery
/// ending inside the current interval) touches neither `open`'s heap buffer nor the statistics,
/// a cache miss saved per packet when thousands of flows and links each have a meter.
#[derive(Clone, Debug)]
#[repr(C)]
pub struct StreamingRates<const N: usize> {
    /// End of the bin `hot` belongs to, capped at the run's end (`settled_end.min(duration)`).
    hot_end: Time,
    /// Bytes of bin `settled` not yet in `open[0]`.
    hot: [u64; N],
    interval: Time,
    duration: Time,
    first: usize,
    end: usize,
    /// Bins below `settled` are in the statistics; `open[k]` holds bin `settled + k`.
    settled: usize,
    /// End time of bin `settled`: a byte before it lands in `open[0]` without a division.
    settled_end: Time,
    open: VecDeque<[u64; N]>,
    settled_bytes: [u64; N],
    stats: [RunningStats; N],
    /// Rates in bit/s, for the percentiles.
    hist: [LogHistogram; N],
    /// Statistics of the streams' sum (`N > 1` only).
    total: (RunningStats, LogHistogram),
}

impl<const N: usize> StreamingRates<N> {
    /// Panics if `interval` is 0.
    pub fn new(interval: Time, duration: Time, first: usize, end: usize) -> Self {
        assert!(interval > 0, "StreamingRates: interval must be positive");
        let end = end.min(duration.div_ceil(interval) as usize);
        Self {
            hot_end: interval.min(duration),
            hot: [0; N],
            interval,
            duration,
            first,
            end,
            settled: 0,
            settled_end: interval,
            open: VecDeque::new(),
            settled_bytes: [0; N],
            stats: [RunningStats::new(); N],
            hist: std::array::from_fn(|_| LogHistogram::new()),
            total: (RunningStats::new(), LogHistogram::new()),
        }
    }

    fn bin_len(&self, k: usize) -> Time {
        let start = k as Time * self.interval;
        (start + self.interval).min(self.duration) - start
    }

    /// The rate of bin `k` holding `bytes`, in bit/s, if it is one the meter counts.
    fn rate(&self, k: usize, bytes: u64) -> Option<f64> {
        (k >= self.first && k < self.end).then(|| bytes as f64 * 8.0 * NS_PER_S / self.bin_len(k) as f64)
    }

    /// Push bin `k`'s bytes into the statistics (each stream's, and the sum's when `N > 1`).
    fn record(&mut self, k: usize, bytes: [u64; N]) {
        for (i, b) in bytes.into_iter().enumerate() {
            if let Some(r) = self.rate(k, b) {
                self.stats[i].push(r);
                self.hist[i].record(r as u64);
            }
        }
        if N > 1 {
            if let Some(r) = self.rate(k, bytes.iter().sum()) {
                self.total.0.push(r);
                self.total.1.record(r as u64);
            }
        }
    }

    /// Settle every bin before the one holding `now`.
    #[cold]
    fn settle(&mut self, now: Time) {
        let target = ((now / self.interval) as usize).min(self.end.max(self.settled));
        while self.settled < target {
            let mut bytes = self.open.pop_front().unwrap_or([0; N]);
            for (b, h) in bytes.iter_mut().zip(std::mem::replace(&mut self.hot, [0; N])) {
                *b += h;
            }
            self.record(self.settled, bytes);
            for (s, b) in self.settled_bytes.iter_mut().zip(bytes) {
                *s += b;
            }
            self.settled += 1;
        }
        self.settled_end = (self.settled as Time + 1) * self.interval;
        self.hot_end = self.settled_end.min(self.duration);
    }

    /// `bytes` of stream `i` at time `t ≥ now` (ignored at or after the end of the run).
    #[inline]
    pub fn add(&mut self, now: Time, t: Time, i: usize, bytes: u64) {
        debug_assert!(t >= now, "StreamingRates::add in the past: {t} < {now}");
        // `now ≤ t < hot_end ≤ settled_end`: nothing to settle, and the bytes are bin `settled`'s.
        if t < self.hot_end {
            self.hot[i] += bytes;
            return;
        }
        self.add_ahead(now, t, i, bytes);
    }

    /// `add` past the current bin, or once the clock has left it.
    #[inline(never)]
    fn add_ahead(&mut self, now: Time, t: Time, i: usize, bytes: u64) {
        if now >= self.settled_end {
            self.settle(now);
        }
        if t >= self.duration {
            return;
        }
        if t < self.hot_end {
            self.hot[i] += bytes;
            return;
        }
        let k = (t / self.interval) as usize - self.settled;
        if k >= self.open.len() {
            self.open.resize(k + 1, [0; N]);
        }
        self.open[k][i] += bytes;
    }

    /// Take back `bytes` of stream `i` that `add` counted at `t`, still ahead of the clock.
    pub fn remove(&mut self, t: Time, i: usize, bytes: u64) {
        if t < self.duration {
            let Some(k) = ((t / self.interval) as usize).checked_sub(self.settled) else { return };
            if k == 0 {
                // The current bin's bytes are split between `hot` and `open[0]`: take back from
                // their sum, kept in `hot`.
                let open = self.open.get_mut(0).map_or(0, |b| std::mem::take(&mut b[i]));
                self.hot[i] = (self.hot[i] + open).saturating_sub(bytes);
            } else if let Some(b) = self.open.get_mut(k) {
                b[i] = b[i].saturating_sub(bytes);
            }
        }
    }

    pub fn total_bytes(&self, i: usize) -> u64 {
        self.settled_bytes[i] + self.hot[i] + self.open.iter().map(|b| b[i]).sum::<u64>()
    }

    /// The statistics of the final state: a copy with every bin up to the end settled (the run
    /// is over when this is asked).
    fn finished(&self) -> Self {
        let mut done = self.clone();
        done.settle(done.end as Time * done.interval);
        done
    }

    /// Distribution of stream `i`'s interval rates in Mbit/s.
    pub fn summary(&self, i: usize) -> Stats {
        let done = self.finished();
        Stats::from_running_and_histogram(&done.stats[i], &done.hist[i], 1e-6)
    }

    /// Distribution of the interval rates of the streams' sum in Mbit/s.
    pub fn total_summary(&self) -> Stats {
        if N == 1 {
            return self.summary(0);
        }
        let done = self.finished();
        Stats::from_running_and_histogram(&done.total.0, &done.total.1, 1e-6)
    }
}

/// Bytes per interval of one flow or link, kept as a series or streamed.
// The streamed variant is inline on purpose (see below): flows are in one dense Vec, and a box
// would cost a cache miss per delivered packet on a run of thousands of flows.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum RateMeter {
    Series(IntervalBins),
    /// Inline: a flow's delivery touches it next to the flow's other counters.
    Streaming(StreamingRates<1>),
}

impl RateMeter {
    /// A kept series over the whole run.
    pub fn series(interval: Time, duration: Time) -> Self {
        RateMeter::Series(IntervalBins::new(interval, duration))
    }

    /// Streamed statistics over bins `first..end`.
    pub fn streaming(interval: Time, duration: Time, first: usize, end: usize) -> Self {
        RateMeter::Streaming(StreamingRates::new(interval, duration, first, end))
    }

    /// `bytes` at time `t ≥ now`.
    #[inline]
    pub fn add(&mut self, now: Time, t: Time, bytes: u64) {
        match self {
            RateMeter::Series(b) => b.add(t, bytes),
            RateMeter::Streaming(s) => s.add(now, t, 0, bytes),
        }
    }

    /// Take back bytes counted at `t > now`.
    pub fn remove(&mut self, t: Time, bytes: u64) {
        match self {
            RateMeter::Series(b) => b.remove(t, bytes),
            RateMeter::Streaming(s) => s.remove(t, 0, bytes),
        }
    }

    pub fn total_bytes(&self) -> u64 {
        match self {
            RateMeter::Series(b) => b.total_bytes(),
            RateMeter::Streaming(s) => s.total_bytes(0),
        }
    }

    /// The kept series, if this meter keeps one.
    pub fn bins(&self) -> Option<&IntervalBins> {
        match self {
            RateMeter::Series(b) => Some(b),
            RateMeter::Streaming(_) => None,
        }
    }
}

/// Wire bytes of one link direction per interval, per protocol (index `Proto::index`) and in
/// total: kept series (the total is the sum of the protocols' bins) or one streamed meter (the
/// total's distribution is streamed apart, as it is not the sum of the protocols'
/// distributions).
// The streamed variant is inline, as `RateMeter`'s: boxed, every transmission on one of W5's
// 24,000 access-link directions cost a cache miss on the box.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum WireMeter {
    Series([IntervalBins; 2]),
    Streaming(StreamingRates<2>),
}

impl WireMeter {
    /// Kept series (a detailed link: time series and exact percentiles).
    pub fn series(interval: Time, duration: Time) -> Self {
        WireMeter::Series([IntervalBins::new(interval, duration), IntervalBins::new(interval, duration)])
    }

    /// Streamed statistics only (memory independent of run length).
    pub fn streaming(interval: Time, duration: Time) -> Self {
        WireMeter::Streaming(StreamingRates::new(interval, duration, 0, usize::MAX))
    }

    /// `bytes` of protocol `proto` at time `t ≥ now`. Always inlined: a call per transmission
    /// for what is mostly one addition.
    #[inline(always)]
    pub fn add(&mut self, now: Time, t: Time, proto: usize, bytes: u64) {
        match self {
            WireMeter::Series(b) => b[proto].add(t, bytes),
            WireMeter::Streaming(s) => s.add(now, t, proto, bytes),
        }
    }

    /// Take back bytes counted at `t > now`.
    pub fn remove(&mut self, t: Time, proto: usize, bytes: u64) {
        match self {
            WireMeter::Series(b) => b[proto].remove(t, bytes),
            WireMeter::Streaming(s) => s.remove(t, proto, bytes),
        }
    }

    pub fn proto_bytes(&self, proto: usize) -> u64 {
        match self {
            WireMeter::Series(b) => b[proto].total_bytes(),
            WireMeter::Streaming(s) => s.total_bytes(proto),
        }
    }

    /// Distribution of one protocol's interval rates, Mbit/s.
    pub fn proto_summary(&self, proto: usize) -> Stats {
        match self {
            WireMeter::Series(b) => b[proto].summary(0),
            WireMeter::Streaming(s) => s.summary(proto),
        }
    }

    /// Distribution of the interval rates of all protocols together, Mbit/s.
    pub fn total_summary(&self) -> Stats {
        match self {
            WireMeter::Series([a, b]) => {
                let t = a.plus(b);
                let total: Vec<f64> =
                    (0..t.bins().len()).map(|k| t.bins()[k] as f64 * 8.0 / (t.bin_len(k) as f64 / NS_PER_S) / 1e6).collect();
                Stats::from_samples(&total)
            }
            WireMeter::Streaming(s) => s.total_summary(),
        }
    }

    /// Bytes of all protocols together per interval, when the series are kept.
    pub fn total_bins(&self) -> Option<IntervalBins> {
        match self {
            WireMeter::Series([a, b]) => Some(a.plus(b)),
            WireMeter::Streaming(_) => None,
        }
    }

    /// The per-protocol series, when kept.
    pub fn bins(&self) -> Option<[&IntervalBins; 2]> {
        match self {
            WireMeter::Series([a, b]) => Some([a, b]),
            WireMeter::Streaming(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Time = 1_000_000_000;
    const MS: Time = 1_000_000;

    /// The same byte stream into a series and a stream gives the same exact statistics.
    #[test]
    fn streaming_matches_the_series_on_mean_std_min_max_count() {
        let duration = 10 * S + 300 * MS;
        let mut series = IntervalBins::new(S, duration);
        let mut stream = StreamingRates::<1>::new(S, duration, 2, usize::MAX);
        let mut now = 0;
        for i in 0..5_000u64 {
            now += (i * 7919) % 4 * MS; // irregular steps, some bins left empty
            let t = now + (i % 13) * MS; // a transmission ending ahead of the clock
            let bytes = 100 + (i * 31) % 1400;
            series.add(t, bytes);
            stream.add(now, t, 0, bytes);
        }
        let rates: Vec<f64> = series.rates_bps().iter().skip(2).map(|r| r / 1e6).collect();
        let exact = Stats::from_samples(&rates);
        let got = stream.summary(0);
        assert_eq!(got.count, exact.count);
        for (a, b) in [(got.mean, exact.mean), (got.std, exact.std), (got.min, exact.min), (got.max, exact.max)] {
            assert!((a - b).abs() <= 1e-9 * b.abs().max(1.0), "{a} vs {b}");
        }
        assert!((got.p50 - exact.p50).abs() <= 0.035 * exact.p50.max(1e-9) + 1e-9, "p50 {} vs {}", got.p50, exact.p50);
        // Bins before `first` still count in the total (only the statistics skip them).
        assert_eq!(stream.total_bytes(0), series.total_bytes());
        // Memory: only the bins ahead of the clock stay open.
        assert!(stream.open.len() <= 2, "{} open bins", stream.open.len());
    }

    #[test]
    fn bins_outside_first_end_are_not_counted_and_empty_bins_count_as_zero() {
        let mut s = StreamingRates::<1>::new(S, 6 * S, 1, 4);
        s.add(0, 0, 0, 1_000); // bin 0: not counted
        s.add(2 * S, 2 * S, 0, 125_000); // bin 2: 1 Mbit/s; bin 1 empty → 0
        s.add(5 * S, 5 * S, 0, 9_999); // bin 5: not counted; bin 3 empty → 0
        let st = s.summary(0);
        assert_eq!((st.count, st.max, st.min), (3, 1.0, 0.0));
        assert!((st.mean - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(s.total_bytes(0), 1_000 + 125_000 + 9_999);
    }

    #[test]
    fn removal_ahead_of_the_clock_and_the_partial_last_bin() {
        let mut s = StreamingRates::<1>::new(S, 2500 * MS, 0, usize::MAX);
        s.add(0, 1500 * MS, 0, 250_000);
        s.remove(1500 * MS, 0, 125_000);
        s.add(2 * S, 2 * S + 1, 0, 62_500); // 0.5 Mbit in the 0.5 s last bin
        s.add(2 * S, 2500 * MS, 0, 1); // at the end: ignored
        let st = s.summary(0);
        assert_eq!(st.count, 3);
        assert_eq!((st.min, st.max), (0.0, 1.0));
        assert_eq!(s.total_bytes(0), 125_000 + 62_500);
    }

    /// The current bin's bytes, split between `hot` (added while it was current) and `open[0]`
    /// (added while it lay ahead), are one count: removal takes from their sum, settling records it.
    #[test]
    fn the_current_bin_counts_what_came_ahead_of_it_and_what_came_in_it() {
        let (mut series, mut stream) = (IntervalBins::new(S, 3 * S), StreamingRates::<1>::new(S, 3 * S, 0, usize::MAX));
        for (now, t, bytes) in [(0, 1500 * MS, 100_000), (200 * MS, 900 * MS, 7), (1200 * MS, 1300 * MS, 25_000)] {
            series.add(t, bytes);
            stream.add(now, t, 0, bytes);
        }
        assert_eq!((stream.hot[0], stream.open[0][0]), (25_000, 100_000));
        series.remove(1500 * MS, 110_000);
        stream.remove(1500 * MS, 0, 110_000);
        stream.add(2 * S, 2 * S, 0, 1);
        series.add(2 * S, 1);
        assert_eq!(stream.total_bytes(0), series.total_bytes());
        let (got, exact) = (stream.summary(0), series.summary(0));
        assert_eq!((got.count, got.min, got.max), (exact.count, exact.min, exact.max));
    }

    #[test]
    fn a_streamed_wire_meter_matches_the_series_per_protocol_and_in_total() {
        let (mut series, mut stream) = (WireMeter::series(S, 5 * S), WireMeter::streaming(S, 5 * S));
        let mut now = 0;
        for i in 0..3_000u64 {
            now += (i % 5) * MS;
            let (t, proto, bytes) = (now + (i % 7) * MS, (i % 3 == 0) as usize, 60 + (i * 17) % 1440);
            series.add(now, t, proto, bytes);
            stream.add(now, t, proto, bytes);
        }
        for (a, b) in [(series.total_summary(), stream.total_summary()), (series.proto_summary(1), stream.proto_summary(1))] {
            assert_eq!(a.count, b.count);
            for (x, y) in [(a.mean, b.mean), (a.std, b.std), (a.min, b.min), (a.max, b.max)] {
                assert!((x - y).abs() <= 1e-9 * x.abs().max(1.0), "{x} vs {y}");
            }
        }
        assert_eq!((series.proto_bytes(0), series.proto_bytes(1)), (stream.proto_bytes(0), stream.proto_bytes(1)));
    }

    #[test]
    fn meter_dispatches_to_its_kind() {
        let mut a = RateMeter::series(S, 3 * S);
        let mut b = RateMeter::streaming(S, 3 * S, 0, usize::MAX);
        for m in [&mut a, &mut b] {
            m.add(0, 10, 500);
            m.add(S, S + 5, 700);
            m.remove(S + 5, 200);
        }
        assert_eq!((a.total_bytes(), b.total_bytes()), (1_000, 1_000));
        assert!(a.bins().is_some() && b.bins().is_none());
    }
}
