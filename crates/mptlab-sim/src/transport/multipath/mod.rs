//! The multipath core shared by every multipath transport (MPTCP, multipath QUIC, and the
//! multipath tunnel of issue 22): what a connection with several paths does the same way
//! whatever its wire protocol.
//!
//! - `paths`: what the core needs of one path (`MultipathPath`: usable, preferences, its
//!   controller's coupling hooks) and the user's preferences per path (`PathPrefs`: priority
//!   and backup, RFC 8684 §3.3.8 and draft-ietf-quic-multipath-19 §3.3 PATH_STATUS alike).
//! - `coupling`: hands every path's view to one path's coupled controller (LIA, OLIA, BALIA,
//!   wVegas) before an event of that path.
//! - `views`: the scheduler's `PathView`s, built into one reused buffer (no allocation per
//!   decision).
//! - `core`: `MultipathCore`, the scheduler with its shortcut (no need to ask when only one
//!   path can send and the scheduler would take it) and the reading of its `Decision`
//!   (`Placement`).
//! - `reorder`: the receive side's hook for putting packets of several paths back in order
//!   (`Reordering`, `Arrival`, `Release`); MPTCP and QUIC reassemble by their own sequence
//!   spaces, the tunnel's reordering module (`transport::reorder::Reorderer`) implements it.
//!
//! What stays in the transports: what a path is on the wire (a TCP subflow, a QUIC path with
//! its validation), what "space" means (window, pacer, send buffer), the connection-level view
//! (`ConnView`, built from the transport's own data-level state), and what sending a chunk on a
//! path does.

mod core;
mod coupling;
mod paths;
mod reorder;
#[cfg(test)]
mod tests;
mod views;

pub use self::core::{MultipathCore, Placement, Shortcut};
pub use coupling::Coupling;
pub use paths::{MultipathPath, PathPrefs};
pub use reorder::{Arrival, Release, Reordering};
pub use views::PathViews;
