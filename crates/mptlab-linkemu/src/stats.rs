//! Counters and timing histograms of one direction, and the stats file they are written to.
//!
//! Lateness = actual send time − due time, the emulator's own error on top of the configured
//! delay. It is kept as a histogram (constant memory, whatever the run length): 1 µs bins up to
//! 10 ms, 100 µs bins up to 1 s, one overflow bin beyond; the maximum is kept exactly. A
//! percentile is reported as the upper edge of the bin holding the ⌈q·n⌉-th smallest sample, so
//! it is an upper bound within one bin width of the exact value.

use serde::Serialize;
use std::io::Write;
use std::path::Path;

const FINE_BINS: u64 = 10_000; // 1 µs each: [0, 10 ms)
const COARSE_WIDTH_US: u64 = 100;
const COARSE_BINS: u64 = 9_900; // 100 µs each: [10 ms, 1 s)

#[derive(Clone)]
pub struct Histogram {
    bins: Vec<u64>, // fine, then coarse, then one overflow bin
    count: u64,
    max_ns: u64,
}

impl Default for Histogram {
    fn default() -> Self {
        Self { bins: vec![0; (FINE_BINS + COARSE_BINS + 1) as usize], count: 0, max_ns: 0 }
    }
}

impl Histogram {
    pub fn record(&mut self, ns: u64) {
        let us = ns / 1_000;
        let bin = if us < FINE_BINS { us } else { (FINE_BINS + (us - FINE_BINS) / COARSE_WIDTH_US).min(FINE_BINS + COARSE_BINS) };
        self.bins[bin as usize] += 1;
        self.count += 1;
        self.max_ns = self.max_ns.max(ns);
    }

    /// The upper edge (µs) of the bin holding the ⌈q·n⌉-th smallest sample; None when empty.
    /// In the overflow bin the exact maximum is the bound.
    pub fn percentile_us(&self, q: f64) -> Option<f64> {
        if self.count == 0 {
            return None;
        }
        let rank = ((q * self.count as f64).ceil() as u64).clamp(1, self.count);
        let mut seen = 0;
        for (i, &c) in self.bins.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let i = i as u64;
                let edge = if i < FINE_BINS {
                    i + 1
                } else if i < FINE_BINS + COARSE_BINS {
                    FINE_BINS + (i - FINE_BINS + 1) * COARSE_WIDTH_US
                } else {
                    return Some(self.max_us());
                };
                // The bound never exceeds the largest sample seen.
                return Some((edge as f64).min(self.max_us()));
            }
        }
        unreachable!("rank <= count")
    }

    pub fn max_us(&self) -> f64 {
        self.max_ns as f64 / 1_000.0
    }

    pub fn count(&self) -> u64 {
        self.count
    }
}

/// Everything one direction counts. frames_in = frames_out + lost + send_drops + send_errors +
/// fifo_drops + queued (frames still in the delay line when the snapshot is taken); rx_drops are
/// frames the kernel dropped before this program saw them (receive buffer full), not in frames_in.
#[derive(Clone, Default)]
pub struct DirStats {
    pub frames_in: u64,
    pub frames_out: u64,
    pub lost: u64,
    pub send_drops: u64,
    pub send_errors: u64,
    pub fifo_drops: u64,
    pub queued: u64,
    pub late: Histogram,
    pub rx_lag: Histogram,
}

/// The JSON form of one direction.
#[derive(Serialize)]
pub struct DirReport {
    frames_in: u64,
    frames_out: u64,
    lost: u64,
    send_drops: u64,
    send_errors: u64,
    fifo_drops: u64,
    queued: u64,
    rx_drops: u64,
    late_p50_us: Option<f64>,
    late_p99_us: Option<f64>,
    late_max_us: Option<f64>,
    rx_lag_p50_us: Option<f64>,
    rx_lag_p99_us: Option<f64>,
    rx_lag_max_us: Option<f64>,
}

impl DirStats {
    /// The JSON form, with the receiving socket's drops (counted by whoever reads the socket's
    /// statistics).
    pub fn report(&self, rx_drops: u64) -> DirReport {
        let max = |h: &Histogram| (h.count() > 0).then(|| h.max_us());
        DirReport {
            frames_in: self.frames_in,
            frames_out: self.frames_out,
            lost: self.lost,
            send_drops: self.send_drops,
            send_errors: self.send_errors,
            fifo_drops: self.fifo_drops,
            queued: self.queued,
            rx_drops,
            late_p50_us: self.late.percentile_us(0.5),
            late_p99_us: self.late.percentile_us(0.99),
            late_max_us: max(&self.late),
            rx_lag_p50_us: self.rx_lag.percentile_us(0.5),
            rx_lag_p99_us: self.rx_lag.percentile_us(0.99),
            rx_lag_max_us: max(&self.rx_lag),
        }
    }
}

#[derive(Serialize)]
pub struct Report {
    pub ab: DirReport,
    pub ba: DirReport,
}

/// Write `report` to `path` atomically: a temporary file in the same directory, then rename.
pub fn write_atomically(path: &Path, report: &Report) -> std::io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".tmp.{}", std::process::id()));
    let tmp = std::path::PathBuf::from(tmp);
    let mut f = std::fs::File::create(&tmp)?;
    serde_json::to_writer_pretty(&mut f, report)?;
    f.write_all(b"\n")?;
    f.sync_data()?;
    drop(f);
    std::fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_bin_upper_edges_of_the_ranked_sample() {
        let mut h = Histogram::default();
        assert_eq!(h.percentile_us(0.5), None);
        // 100 samples: 1.5 µs, 2.5 µs, ..., 100.5 µs.
        for i in 1..=100u64 {
            h.record(i * 1_000 + 500);
        }
        assert_eq!(h.count(), 100);
        // rank 50 is 50.5 µs, in bin [50, 51).
        assert_eq!(h.percentile_us(0.5), Some(51.0));
        // rank 99 is 99.5 µs.
        assert_eq!(h.percentile_us(0.99), Some(100.0));
        // rank 100 is the maximum; the bound is clipped to it.
        assert_eq!(h.percentile_us(1.0), Some(100.5));
        assert_eq!(h.max_us(), 100.5);
        assert_eq!(h.percentile_us(0.0), Some(2.0));
    }

    #[test]
    fn coarse_and_overflow_bins_bound_large_values() {
        let mut h = Histogram::default();
        h.record(12_345_000); // 12.345 ms: coarse bin [12.3, 12.4) ms
        assert_eq!(h.percentile_us(0.5), Some(12_345.0)); // clipped to the maximum
        h.record(12_399_000);
        h.record(5_000_000_000); // 5 s: overflow
        assert_eq!(h.percentile_us(0.5), Some(12_400.0));
        assert_eq!(h.percentile_us(0.99), Some(5_000_000.0));
        // Exactly on a bin edge: 10 ms is the first coarse bin.
        let mut e = Histogram::default();
        e.record(10_000_000);
        e.record(10_000_000);
        e.record(9_999_999);
        assert_eq!(e.percentile_us(0.3), Some(10_000.0));
        assert_eq!(e.percentile_us(0.9), Some(10_000.0));
    }

    #[test]
    fn the_report_has_the_documented_keys_and_is_written_atomically() {
        let mut s = DirStats { frames_in: 3, frames_out: 2, lost: 1, ..Default::default() };
        s.late.record(20_000);
        let dir = std::env::temp_dir().join(format!("linkemu-stats-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("stats.json");
        write_atomically(&path, &Report { ab: s.report(0), ba: DirStats::default().report(0) }).unwrap();
        let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(v["ab"]["frames_in"], 3);
        assert_eq!(v["ab"]["lost"], 1);
        assert_eq!(v["ab"]["late_p99_us"], 20.0);
        assert_eq!(v["ba"]["late_p50_us"], serde_json::Value::Null);
        for key in ["frames_in", "frames_out", "lost", "send_drops", "late_p50_us", "late_p99_us", "late_max_us"] {
            assert!(v["ba"].get(key).is_some(), "{key}");
        }
        // Only the final file is left.
        let names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, vec![std::ffi::OsString::from("stats.json")]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
