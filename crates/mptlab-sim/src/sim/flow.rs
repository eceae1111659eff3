//! A flow at run time: its endpoint (both ends of its transport), its application, its timers
//! and its metrics.

use crate::apps::App;
use crate::net::Proto;
use crate::transport::AnyEndpoint;
use mptlab_engine::{LazyTimer, Time};

pub use crate::transport::flow_metrics::{FlowMetrics, MpMetrics};

pub struct Flow {
    pub proto: Proto,
    /// Index of the flow's group (its scenario entry) in `Simulation::group_names`.
    pub group: u16,
    pub start: Time,
    pub stop: Option<Time>,
    pub endpoint: AnyEndpoint,
    pub app: App,
    /// Bytes the application produced that the transport has not accepted yet.
    pub backlog: u64,
    /// First route id: path i carries the sending end's packets on route_base + 2i and the
    /// receiving end's on route_base + 2i + 1.
    pub route_base: u32,
    /// Endpoint timers, `SLOTS_PER_PATH` per path (`transport::endpoint`'s slots).
    pub timers: Vec<LazyTimer>,
    pub metrics: FlowMetrics,
}

impl Flow {
    /// Is the application still producing at `now`?
    pub fn app_active(&self, now: Time) -> bool {
        now >= self.start && self.stop.is_none_or(|s| now < s)
    }
}
