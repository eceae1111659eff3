//! Network layer: packets, hops (today the point-to-point link) assembled from parts — queue
//! disciplines, transmitters, propagation pipes, loss models, capacity models — packet bodies
//! in a side table, and the route table. Nodes need no objects of their own: a packet carries
//! its route and hop index, and forwarding is "enqueue on the next hop of the route", computed
//! once when the run is built. The network imports nothing above it: its configuration types
//! live in `config`, the headers it sizes in `crate::wire`.

pub mod body;
pub mod capacity;
pub mod config;
pub mod dcf;
pub mod hop;
pub mod link;
pub mod loss;
pub mod packet;
pub mod pipe;
pub mod queue;
pub mod rate_meter;
pub mod routes;
pub mod transmitter;
pub mod wifi;

/// The CoDel discipline under its old path.
pub use queue::codel;

pub use body::BodyTable;
pub use capacity::{CapacityProcess, CapacitySpec};
pub use config::{LinkId, LinkSpec, LossSpec, NodeId, QueueLimit, QueueSpec, WifiPhy, WifiPort, WifiSpec};
pub use hop::Hop;
pub use link::{Arrival, Enqueued, Link, LinkCounters};
pub use packet::{Packet, Proto};
pub use queue::{PacketQueue, Qdisc, Verdict};
pub use routes::RouteTable;
pub use wifi::{MacCounters, WifiDirection};
