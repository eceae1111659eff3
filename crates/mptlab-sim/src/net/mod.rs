//! Network layer: packets, point-to-point links with their queues and loss models, and the route
//! table. Nodes need no objects of their own: a packet carries its route and hop index, and
//! forwarding is "enqueue on the next link of the route", computed once when the run is built.

pub mod capacity;
pub mod codel;
pub mod config;
pub mod link;
pub mod loss;
pub mod packet;
pub mod routes;

pub use capacity::{CapacityProcess, CapacitySpec};
pub use config::{LinkId, LinkSpec, LossSpec, NodeId, QueueLimit, QueueSpec};
pub use link::{Arrival, Enqueued, Link, LinkCounters};
pub use packet::{Packet, Proto};
pub use routes::RouteTable;
