//! Wire formats: the header types packets carry, at the bottom of the layers so that the network
//! (which sizes and forwards packets) and the transports (which fill them) both import them
//! without the network importing a transport.

pub mod tcp;

pub use tcp::{SackBlock, TcpHeader, FLAG_ACK, FLAG_PROBE, FLAG_SYN, MAX_SACK_BLOCKS, TCP_HEADER_BYTES, UDP_HEADER_BYTES};
