//! The typed summary of a run (`summary.json`): one serde struct per block, so the schema is
//! written down once, in types, and every transport reports its paths in one shape.
//! The schema, key by key (units, when null): docs/metrics.md; metric definitions:
//! `metrics::DEFINITIONS`.
//!
//! This module holds the run-level records (run, flows, links, groups, protocols, engine). A
//! flow's transport part, with the shared `paths` block, is defined in the transport layer
//! (`transport/part/`) and filled by each transport (`transport/<name>/summary.rs`) through
//! `Endpoint::summary`; reported aggregators (quantiles, jitter) come from `metrics::report`.
//! Dependencies point down: results → transport → metrics. The simulation assembles the run in
//! `sim/results.rs`.

pub mod engine;
pub mod flow;
pub mod group;
pub mod link;
pub mod protocol;
pub mod run;
pub mod tunnel;
pub mod wifi;

pub use crate::metrics::report::{JitterSummary, Quantiles};
pub use crate::transport::part::{PathDetail, PathMeasures, PathState, PathSummary, RetransmitTotals, TransportPart};
pub use engine::EngineSummary;
pub use flow::FlowSummary;
pub use group::GroupSummary;
pub use link::{LinkGroupSummary, LinkProtocolSummary, LinkSummary};
pub use protocol::ProtocolSummary;
pub use run::{OwdCdf, RunSummary};
pub use tunnel::{TunnelBufferSummary, TunnelEgressSummary, TunnelPathSummary, TunnelSummary};
pub use wifi::{LinkMacSummary, StationSummary, WifiSummary};
