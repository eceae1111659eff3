//! mptlab-engine: the discrete-event core.
//!
//! Owns simulated time (u64 nanoseconds), the event queue ordered by (time, insertion sequence),
//! lazily cancelled timers, per-component RNG streams and the packet arena. It knows nothing of
//! networks. Nothing here reads a clock, touches global state or does I/O: a run is a pure function
//! of its inputs.

pub mod arena;
pub mod prefetch;
pub mod queue;
pub mod rng;
pub mod time;
pub mod timer;

pub use arena::{Arena, Handle};
pub use prefetch::{prefetch, prefetch_ptr};
pub use queue::EventQueue;
pub use rng::{RngStream, StreamId};
pub use time::Time;
pub use timer::LazyTimer;
