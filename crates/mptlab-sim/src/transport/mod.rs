//! Transport layer: sans-IO state machines. They take `now` and incoming headers and push the
//! headers they want sent into a caller-provided buffer; they never touch the network, the event
//! queue or a clock. The simulation layer moves their output onto links and their deadlines into
//! the event queue.

pub mod mptcp;
pub mod multipath;
pub mod quic;
pub mod segment;
pub mod tcp;
pub mod udp;
