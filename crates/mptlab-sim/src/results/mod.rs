//! The typed summary of a run (`summary.json`): one serde struct per block, so the schema is
//! written down once, in types, and every transport reports its paths in one shape.
//! The schema, key by key (units, when null): docs/metrics.md; metric definitions:
//! `metrics::DEFINITIONS`.
//!
//! This module holds the shapes shared by every transport (run, flows, paths, links, groups,
//! protocols, engine) and small conversions from the metrics layer's aggregators. Each
//! transport fills its own part of a flow's record in `transport/<name>/summary.rs`; the
//! simulation assembles the run in `sim/results.rs`.

pub mod engine;
pub mod flow;
pub mod group;
pub mod link;
pub mod path;
pub mod protocol;
pub mod run;
pub mod values;

pub use engine::EngineSummary;
pub use flow::{FlowSummary, RetransmitTotals, TransportPart};
pub use group::GroupSummary;
pub use link::{LinkProtocolSummary, LinkSummary};
pub use path::{PathDetail, PathMeasures, PathState, PathSummary};
pub use protocol::ProtocolSummary;
pub use run::RunSummary;
pub use values::{JitterSummary, Quantiles};
