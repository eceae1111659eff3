//! A flow at run time: its endpoint (both ends of its transport), its application, its timers
//! and its metrics.

use crate::apps::App;
use crate::net::Proto;
use crate::transport::AnyEndpoint;
use mptlab_engine::{LazyTimer, Time};

pub use crate::transport::flow_metrics::{FlowMetrics, MpMetrics};

/// Fields in the order a tick and a packet read them (`repr(C)`), on cache-line boundaries
/// (`align(64)`). With thousands of flows each visit is a miss per line:
/// - line 0: what an application tick reads (the backlog, the blocked-tick count, the
///   application's end and source, which `App` keeps at its front);
/// - line 1: the rest of the application, the routes, the timers;
/// - line 2: the endpoint and the sent-packet counters (`FlowMetrics` keeps them at its front),
///   line 3 the rest of what a packet touches there.
#[repr(C, align(64))]
pub struct Flow {
    /// Bytes the application produced that the transport has not accepted yet.
    pub backlog: u64,
    /// Application ticks skipped because a blocking write was still pending (kept here, not
    /// in `metrics`, because the tick reads `backlog` next to it).
    pub blocked_ticks: u64,
    pub app: App,
    /// First route id: path i carries the sending end's packets on route_base + 2i and the
    /// receiving end's on route_base + 2i + 1.
    pub route_base: u32,
    /// Index of the flow's group (its scenario entry) in `Simulation::group_names`.
    pub group: u16,
    pub proto: Proto,
    /// Endpoint timers, `SLOTS_PER_PATH` per path (`transport::endpoint`'s slots).
    pub timers: Vec<LazyTimer>,
    pub endpoint: AnyEndpoint,
    pub start: Time,
    pub metrics: FlowMetrics,
    pub stop: Option<Time>,
}

impl Flow {
    /// Is the application still producing at `now`?
    pub fn app_active(&self, now: Time) -> bool {
        now >= self.start && self.stop.is_none_or(|s| now < s)
    }
}
