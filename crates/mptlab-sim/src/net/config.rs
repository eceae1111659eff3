//! The network layer's configuration: one link direction (`LinkSpec`) with its queue
//! discipline, queue limit and channel loss model, fully resolved by the scenario layer. The
//! network owns these types so that it imports nothing above it; the run spec (`spec.rs`)
//! re-exports them.

use super::capacity::CapacitySpec;
use mptlab_engine::Time;
use serde::Serialize;

pub type NodeId = u32;
pub type LinkId = u32;

#[derive(Clone, Debug, Serialize)]
pub struct LinkSpec {
    pub name: String,
    pub from: NodeId,
    pub to: NodeId,
    pub rate_bps: u64,
    pub delay: Time,
    pub queue: QueueSpec,
    pub loss: LossSpec,
    /// A model that sets the rate over time (from time 0; `rate_bps` is then the nominal rate
    /// used for BDP queue limits).
    pub capacity: Option<CapacitySpec>,
    /// A direction between two stations of a Wi-Fi channel: its frames contend on the
    /// channel's shared medium (`net::dcf`) instead of a queue, transmitter and pipe of its own.
    pub wifi: Option<WifiPort>,
}

/// The Wi-Fi direction `src → dst` (station indices) of channel `channel` (`RunSpec::wifi`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct WifiPort {
    pub channel: u16,
    pub src: u16,
    pub dst: u16,
}

/// PHY and MAC parameter sets of a Wi-Fi channel (`net::dcf::phy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WifiPhy {
    /// 802.11a/g OFDM: 54 Mbit/s data, 24 Mbit/s control frames, slot 9 µs, CW 15…1023.
    Ofdm54,
    /// Bianchi's FHSS set (1 Mbit/s, slot 50 µs), CW 31…1023.
    Fhss,
}

/// One 802.11 DCF channel (`[wifi.<name>]`): its stations (scenario nodes), where they stand,
/// who hears whom, and the MAC's options.
#[derive(Clone, Debug, Serialize)]
pub struct WifiSpec {
    pub name: String,
    /// Node ids of the stations; station i of the medium is `stations[i]`.
    pub stations: Vec<NodeId>,
    /// Metres, one per station.
    pub positions: Vec<[f64; 2]>,
    /// Stations within this distance (metres) hear and decode each other.
    pub range_m: f64,
    pub phy: WifiPhy,
    /// Bianchi's rules instead of the standard's (`net::dcf::Rules`).
    pub bianchi: bool,
    pub rts_cts: bool,
    /// Attempts after which a frame is dropped; None: never.
    pub retry_limit: Option<u32>,
    /// Frames a station's queue holds at most (tail drop); None: unlimited.
    pub queue_limit: Option<u64>,
}

impl WifiSpec {
    /// Whether stations `i` and `j` hear each other (distance ≤ range).
    pub fn in_range(&self, i: usize, j: usize) -> bool {
        let ([xi, yi], [xj, yj]) = (self.positions[i], self.positions[j]);
        let (dx, dy) = (xi - xj, yi - yj);
        dx * dx + dy * dy <= self.range_m * self.range_m
    }

    /// `hears[i][j]`: station i senses and decodes station j (i ≠ j).
    pub fn hearing(&self) -> Vec<Vec<bool>> {
        let n = self.stations.len();
        (0..n).map(|i| (0..n).map(|j| i != j && self.in_range(i, j)).collect()).collect()
    }
}

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum QueueSpec {
    /// Tail drop when the waiting packets would exceed the limit.
    DropTail { limit: QueueLimit },
    /// RFC 8289 CoDel (defaults target 5 ms, interval 100 ms) with a hard limit behind it.
    CoDel { limit: QueueLimit, target: Time, interval: Time },
    /// Random Early Detection (Floyd & Jacobson 1993; see `net::queue::red`) in front of a
    /// hard limit. `min` and `max` are the thresholds on the average queue, both in packets or
    /// both in bytes (the unit the average is kept in); `max_p` the drop probability reached at
    /// `max`, `weight` the averaging weight w_q; `gentle` raises the probability linearly from
    /// `max_p` at `max` to 1 at 2·`max` instead of jumping to 1 at `max`.
    Red { limit: QueueLimit, min: QueueLimit, max: QueueLimit, max_p: f64, weight: f64, gentle: bool },
}

#[derive(Clone, Copy, Debug, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum QueueLimit {
    Packets(u64),
    Bytes(u64),
}

#[derive(Clone, Copy, Debug, Serialize)]
#[serde(tag = "model", rename_all = "snake_case")]
pub enum LossSpec {
    None,
    /// Independent loss with probability `p` per packet.
    Bernoulli {
        p: f64,
    },
    /// Two-state Gilbert–Elliott channel: transition probabilities per packet and loss
    /// probability in each state.
    GilbertElliott {
        p_good_to_bad: f64,
        p_bad_to_good: f64,
        loss_good: f64,
        loss_bad: f64,
    },
}
