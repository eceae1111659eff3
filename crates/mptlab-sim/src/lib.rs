//! mptlab-sim: everything above the engine, one module per layer of DESIGN.md
//! (net, transport, cc, apps, metrics, scenario) plus `sim`, which wires a `RunSpec` into a
//! running simulation and collects its results.

pub mod apps;
pub mod cc;
pub mod metrics;
pub mod net;
pub mod partition;
pub mod results;
pub mod scenario;
pub mod sched;
pub mod sim;
pub mod spec;
pub mod transport;
pub mod wire;

pub use mptlab_engine as engine;
