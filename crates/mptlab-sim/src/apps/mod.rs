//! Traffic sources. An application is a small state machine that, when its tick comes, says how
//! many bytes it produces and when it wants the next tick. It knows nothing of paths or
//! transports; the simulation hands its bytes to TCP (as writes into the send buffer) or to UDP
//! (one datagram per write).
//!
//! - bulk: infinite data (the transport's send buffer is always full).
//! - cbr: `write_size` bytes every write_size·8/rate seconds. Over TCP a write that does not fit
//!   the send buffer blocks the writer: no new writes are produced until it completes, and the
//!   writer resumes at its next scheduled tick without a catch-up burst. Over UDP the rate
//!   counts whole datagrams on the wire (headers included), so "120Mbps" offers 120 Mbit/s to
//!   the first link.
//! - poisson: messages of `message_size` bytes with exponentially distributed gaps of mean
//!   message_size·8/rate seconds (one RNG stream per flow).
//! - file: `size` bytes written at start; the flow records its completion time when the last
//!   byte reaches the receiving application.
//! - paced file (udp only, `file` with a `rate`): one datagram every datagram·8/rate seconds,
//!   as cbr, until the receiving application holds `size` bytes; that instant is the completion
//!   time (seed 003's "download" of an unreliable flow, study notes A16 (a)). The sender learns
//!   of it at once (an idealised end-of-transfer signal), so what it sends after it is nothing;
//!   what is lost on the way is simply sent past `size` until enough has arrived.

use mptlab_engine::time::SECOND;
use mptlab_engine::{RngStream, Time};
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum AppSpec {
    /// Greedy sender: always has data.
    Bulk,
    /// Constant bit rate: writes `write_size` bytes every write_size*8/rate seconds. Over TCP a
    /// write blocks while the send buffer is full (like `iperf -b`); over UDP each write is one
    /// datagram of the transport's payload size.
    Cbr { rate_bps: u64, write_size: u32 },
    /// Messages of `message_size` bytes with exponential inter-arrival times of mean
    /// message_size*8/rate; with `count`, the source stops after that many messages and the
    /// flow's completion time is when the receiver holds all of them.
    Poisson { rate_bps: u64, message_size: u32, count: Option<u64> },
    /// Transfer `size` bytes once, then finish; records completion time.
    File { size: u64 },
    /// UDP: one datagram of `datagram` payload bytes every wire-size·8/rate seconds until the
    /// receiver holds `size` bytes; records that time.
    PacedFile { size: u64, rate_bps: u64, datagram: u32 },
}

impl AppSpec {
    /// Bytes of one write of an application that writes in units (CBR, Poisson); None for bulk
    /// and file transfers.
    pub fn unit_write(&self) -> Option<u64> {
        match *self {
            AppSpec::Cbr { write_size, .. } => Some(write_size as u64),
            AppSpec::Poisson { message_size, .. } => Some(message_size as u64),
            AppSpec::PacedFile { datagram, .. } => Some(datagram as u64),
            AppSpec::Bulk | AppSpec::File { .. } => None,
        }
    }
}

/// An application: when its ticks end and its source. 80 bytes, as the source alone was
/// before `end` (a Poisson source's count and countdown make room): a larger application
/// shifts the rest of the flow across cache lines. `repr(C)`, `end` first: what a tick reads
/// (`end`, the source's kind and its first fields) is the first 32 bytes.
#[repr(C)]
pub struct App {
    /// No tick is scheduled at or after this time (`set_end`: the run's end or the flow's stop).
    /// Kept here because every tick reads the application anyway: the flow's own stop time sits
    /// on another cache line, a miss per tick with thousands of flows.
    end: Time,
    source: Source,
}

enum Source {
    Bulk,
    Cbr {
        gap: Time,
        write: u64,
    },
    /// `count`: messages in all (None: no limit); `left`: of those, not yet produced.
    Poisson {
        mean_gap: f64,
        write: u64,
        rng: RngStream,
        count: Option<u64>,
        left: u64,
    },
    File {
        size: u64,
    },
    PacedFile {
        gap: Time,
        write: u64,
        size: u64,
    },
}

/// What a tick produced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tick {
    pub bytes: u64,
    pub next: Option<Time>,
}

impl App {
    /// `unit_bytes` is the size one write is measured in for the rate: the wire size of a
    /// datagram for UDP, the write size for TCP.
    pub fn new(spec: &AppSpec, unit_bytes: Option<u64>, rng: RngStream) -> Self {
        let gap_for = |rate_bps: u64, bytes: u64| ((bytes as u128 * 8 * SECOND as u128) / rate_bps.max(1) as u128) as Time;
        let source = match *spec {
            AppSpec::Bulk => Source::Bulk,
            AppSpec::Cbr { rate_bps, write_size } => {
                let unit = unit_bytes.unwrap_or(write_size as u64);
                Source::Cbr { gap: gap_for(rate_bps, unit).max(1), write: write_size as u64 }
            }
            AppSpec::Poisson { rate_bps, message_size, count } => {
                let unit = unit_bytes.unwrap_or(message_size as u64);
                let (mean_gap, left) = (gap_for(rate_bps, unit) as f64, count.unwrap_or(0));
                Source::Poisson { mean_gap, write: message_size as u64, rng, count, left }
            }
            AppSpec::File { size } => Source::File { size },
            AppSpec::PacedFile { size, rate_bps, datagram } => {
                let unit = unit_bytes.unwrap_or(datagram as u64);
                Source::PacedFile { gap: gap_for(rate_bps, unit).max(1), write: datagram as u64, size }
            }
        };
        App { end: Time::MAX, source }
    }

    /// Ticks end before `end` (the run's end, or the flow's stop if earlier).
    pub fn set_end(&mut self, end: Time) {
        self.end = end;
    }

    /// Whether a tick at `t` is before the end (`set_end`).
    #[inline]
    pub fn runs_at(&self, t: Time) -> bool {
        t < self.end
    }

    /// The first tick, at the flow's start time.
    pub fn first(&mut self, now: Time) -> Tick {
        match self.source {
            Source::Bulk => Tick { bytes: 0, next: None },
            Source::File { size } => Tick { bytes: size, next: None },
            _ => self.tick(now),
        }
    }

    /// A scheduled tick: the bytes of one write and the time of the next.
    pub fn tick(&mut self, now: Time) -> Tick {
        match &mut self.source {
            Source::Cbr { gap, write } | Source::PacedFile { gap, write, .. } => Tick { bytes: *write, next: Some(now + *gap) },
            Source::Poisson { mean_gap, write, rng, count, left } => {
                if count.is_some() {
                    if *left == 0 {
                        return Tick::default();
                    }
                    *left -= 1;
                    if *left == 0 {
                        return Tick { bytes: *write, next: None };
                    }
                }
                let gap = rng.exponential(*mean_gap).round().max(1.0) as Time;
                Tick { bytes: *write, next: Some(now + gap) }
            }
            Source::Bulk | Source::File { .. } => Tick::default(),
        }
    }

    pub fn is_bulk(&self) -> bool {
        matches!(self.source, Source::Bulk)
    }

    /// A file transfer (paced or not): everything is written at the start or at a fixed pace.
    pub fn is_file(&self) -> bool {
        matches!(self.source, Source::File { .. } | Source::PacedFile { .. })
    }

    /// Bytes after which the flow is complete: a file's size, or a counted Poisson source's total.
    pub fn file_size(&self) -> Option<u64> {
        match self.source {
            Source::File { size } | Source::PacedFile { size, .. } => Some(size),
            Source::Poisson { count, write, .. } => count.map(|n| n * write),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mptlab_engine::time::MICROSECOND;
    use mptlab_engine::StreamId;

    fn rng() -> RngStream {
        RngStream::new(1, StreamId::new(0, 0))
    }

    #[test]
    fn udp_cbr_gap_counts_wire_bytes() {
        // 1500 B datagrams at 120 Mbit/s: one every 100 µs.
        let mut a = App::new(&AppSpec::Cbr { rate_bps: 120_000_000, write_size: 1472 }, Some(1500), rng());
        assert_eq!(a.first(0), Tick { bytes: 1472, next: Some(100 * MICROSECOND) });
    }

    #[test]
    fn poisson_mean_gap_matches_rate() {
        let mut a = App::new(&AppSpec::Poisson { rate_bps: 8_000_000, message_size: 1000, count: None }, None, rng());
        let (mut t, n) = (0, 100_000);
        for _ in 0..n {
            t = a.tick(t).next.unwrap();
        }
        let mean = t as f64 / n as f64;
        assert!((mean - 1000.0 * MICROSECOND as f64).abs() < 0.02 * 1000.0 * MICROSECOND as f64, "{mean}");
    }

    #[test]
    fn poisson_with_a_count_stops_after_it() {
        let mut a = App::new(&AppSpec::Poisson { rate_bps: 80_000, message_size: 1000, count: Some(3) }, None, rng());
        assert_eq!(a.file_size(), Some(3000));
        let first = a.first(0);
        assert_eq!(first.bytes, 1000);
        let second = a.tick(first.next.unwrap());
        assert_eq!(second.bytes, 1000);
        let third = a.tick(second.next.unwrap());
        assert_eq!(third, Tick { bytes: 1000, next: None });
    }

    #[test]
    fn file_writes_everything_once() {
        let mut a = App::new(&AppSpec::File { size: 5000 }, None, rng());
        assert_eq!(a.first(0), Tick { bytes: 5000, next: None });
    }
}
