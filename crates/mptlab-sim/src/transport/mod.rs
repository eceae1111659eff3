//! Transport layer: sans-IO state machines. They take `now` and incoming packets and queue the
//! packets they want sent; they never touch the network, the event queue or a clock. Every
//! transport plugs into the simulation through one interface (`endpoint::Endpoint`, dispatched
//! by `any::AnyEndpoint`); the simulation moves their output onto routes and their deadlines
//! into the event queue.

pub mod any;
pub mod bodies;
pub mod endpoint;
#[cfg(test)]
mod endpoint_tests;
pub mod flow_metrics;
pub mod footprint;
pub mod interfaces;
pub mod mptcp;
pub mod multipath;
pub mod part;
pub mod quic;
pub mod reorder;
pub mod segment;
pub mod spec;
pub mod tcp;
pub mod tunnel;
pub mod udp;

pub use any::AnyEndpoint;
pub use endpoint::{End, Endpoint};
