//! The TCP header the transports fill, defined with the other wire formats in `crate::wire` (the
//! network layer sizes packets by it) and re-exported here under its old path.

pub use crate::wire::tcp::*;
