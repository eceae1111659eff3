//! One direction of a Wi-Fi channel (station `src` → station `dst`) as a hop: its accounting.
//! The frames themselves contend on the channel's shared medium (`net::dcf`), which the
//! simulation owns, one per channel: a station has one queue for all its directions, as an
//! 802.11 interface has. This hop counts what its direction offered, delivered and lost, the
//! MAC transmissions (first attempts and retries) its frames took, and the bytes on the air.

use super::config::WifiPort;
use super::link::LinkCounters;
use super::packet::Proto;
use crate::metrics::{QueueStats, WireMeter};
use mptlab_engine::Time;

/// MAC-level counters of one Wi-Fi direction (`links[].mac` of the summary).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct MacCounters {
    /// Transmissions on the air: first attempts and retries (RTS/CTS frames not counted).
    pub attempts: u64,
    /// Attempts after the first (`attempts` − frames that left the MAC).
    pub retries: u64,
    /// Frames dropped at the retry limit.
    pub retry_drops: u64,
}

pub struct WifiDirection {
    pub port: WifiPort,
    rate_bps: u64,
    pub counters: LinkCounters,
    pub mac: MacCounters,
    pub stats: QueueStats,
    pub wire: WireMeter,
    /// Frames offered and not yet delivered or dropped.
    inside: usize,
}

impl WifiDirection {
    pub fn new(port: WifiPort, rate_bps: u64, interval: Time, duration: Time, detailed: bool) -> Self {
        Self {
            port,
            rate_bps,
            counters: LinkCounters::default(),
            mac: MacCounters::default(),
            stats: if detailed { QueueStats::new() } else { QueueStats::without_histogram() },
            wire: if detailed { WireMeter::series(interval, duration) } else { WireMeter::streaming(interval, duration) },
            inside: 0,
        }
    }

    pub fn rate_bps(&self) -> u64 {
        self.rate_bps
    }

    pub fn packets_inside(&self) -> usize {
        self.inside
    }

    /// A packet of `size` bytes is handed to the station's queue (`accepted`) or refused by it.
    pub fn on_offer(&mut self, size: u32, accepted: bool) {
        self.counters.offered += 1;
        if accepted {
            self.inside += 1;
            self.stats.on_enqueue(size as u64);
        } else {
            self.counters.queue_drops += 1;
            self.stats.on_drop(size as u64);
        }
    }

    /// The frame reached its receiver at `at` after `attempts` transmissions.
    pub fn on_delivered(&mut self, at: Time, size: u32, proto: Proto, attempts: u32) {
        self.on_done(at, size, proto, attempts);
        self.counters.delivered += 1;
    }

    /// The frame was dropped at the retry limit after `attempts` transmissions.
    pub fn on_dropped(&mut self, at: Time, size: u32, proto: Proto, attempts: u32) {
        self.on_done(at, size, proto, attempts);
        self.counters.channel_drops += 1;
        self.mac.retry_drops += 1;
    }

    fn on_done(&mut self, at: Time, size: u32, proto: Proto, attempts: u32) {
        self.inside -= 1;
        self.counters.transmitted += 1;
        self.counters.transmitted_bytes += size as u64;
        self.mac.attempts += attempts as u64;
        self.mac.retries += attempts.saturating_sub(1) as u64;
        // Every attempt occupied the air; they are binned when the last one ended.
        self.wire.add(at, at, proto.index(), size as u64 * attempts as u64);
    }
}
