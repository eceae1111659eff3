//! Coupled multipath congestion control (LIA, OLIA, BALIA, wVegas) and its composition with a
//! per-path controller. Interface only so far: the views the MPTCP connection hands over.

use mptlab_engine::Time;

/// One subflow's state as a coupled controller sees it. The connection collects one view per
/// subflow (from `CongestionControl::coupled_view`, with `active` set by the connection) and
/// passes the slice to the subflow's controller before each of its ACK and loss events.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SubflowCcView {
    /// Established and not failed: counts in the coupling sums.
    pub active: bool,
    /// Congestion window in bytes.
    pub cwnd: u64,
    pub ssthresh: u64,
    /// Smoothed RTT and minimum RTT in ns (0 before the first sample).
    pub srtt: Time,
    pub min_rtt: Time,
    pub mss: u32,
    /// OLIA's ℓ: bytes acknowledged since the last loss, and between the last two losses.
    pub bytes_since_loss: u64,
    pub bytes_between_losses: u64,
}
