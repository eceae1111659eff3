//! Wi-Fi records: a channel's stations (`wifi[]`) and the MAC counters of a Wi-Fi link
//! direction (`links[].mac`, `net::MacCounters`).

use serde::Serialize;

/// `links[].mac` of a Wi-Fi direction: the direction's own counters, serialised as they are.
pub use crate::net::MacCounters as LinkMacSummary;

/// One channel (`wifi[]`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WifiSummary {
    pub name: String,
    pub stations: Vec<StationSummary>,
    /// Over all stations: collided attempts / attempts.
    pub collision_probability: f64,
    pub attempts: u64,
    pub retry_drops: u64,
}

/// One station of a channel.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StationSummary {
    pub name: String,
    /// Frames handed to its MAC, transmissions (attempts), successes, collided attempts, drops.
    pub frames: u64,
    pub attempts: u64,
    pub successes: u64,
    pub failures: u64,
    pub retry_drops: u64,
    /// Bianchi's p measured: failures / attempts (0 without attempts).
    pub collision_probability: f64,
    /// Frames still queued at the end.
    pub queued: u64,
}
