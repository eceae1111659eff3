//! Multipath tunnels (seed 003; `docs/tunnels.md`): an ingress that
//! encapsulates the inner packets of any flow routed into it and schedules them over several
//! paths, each a congestion-controlled DCCP-like connection or a reliable TCP connection, and an
//! egress that acknowledges, decapsulates and
//! reorders them before they continue to the inner flow's receiver. Three controllers are then
//! nested: the inner sender's and one per tunnel path.

pub mod buffer;
pub mod config;
pub mod conn;
pub mod dccp;
pub mod path;
pub mod tcp;
#[cfg(test)]
mod tcp_tests;
#[cfg(test)]
mod tests;

pub use config::{TunnelKind, TunnelPathSpec, TunnelSpec, DEFAULT_ACK_SIZE, DEFAULT_INNER_MTU, DEFAULT_OVERHEAD};
pub use conn::{Tunnel, TunnelOutput, MAX_TUNNEL_PATHS, MAX_TUNNEL_SLOTS, SLOTS_PER_TUNNEL_PATH};
pub use path::{DccpPath, TunnelPath};
pub use tcp::{Record, TcpPath, TUNNEL_HEADER};
