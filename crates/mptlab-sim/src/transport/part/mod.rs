//! A transport's part of its flow's summary record (`flows[]`), the shape every transport fills
//! through `Endpoint::summary` (`transport/<name>/summary.rs` builds it): retransmission totals,
//! the scheduler, the shared `paths` block (`path.rs`) and the transport's own block. The
//! simulation assembles the rest of the run's summary above it (`results/`).

pub mod path;

pub use path::{share, PathDetail, PathMeasures, PathState, PathSummary};

use super::mptcp::summary::MptcpSummary;
use super::quic::summary::QuicSummary;
use super::tcp::summary::TcpDetail;
use serde::Serialize;

/// The part of a flow's record its transport fills. Every key is always written (null when it
/// does not apply), so all flows have one shape.
#[derive(Clone, Debug, Default, Serialize)]
pub struct TransportPart {
    /// Retransmission totals (and TCP's details); null for UDP. Written under the key `tcp`
    /// (its name since the first summaries).
    #[serde(rename = "tcp")]
    pub retransmits: Option<RetransmitTotals>,
    /// The packet scheduler of a transport with paths; null for TCP and UDP.
    pub scheduler: Option<&'static str>,
    /// One record per path (MPTCP subflows, QUIC paths); null for TCP and UDP.
    pub paths: Option<Vec<PathSummary>>,
    /// MPTCP's connection-level metrics (seed 001); null for other transports.
    pub mptcp: Option<MptcpSummary>,
    /// QUIC's connection-level details; null for other transports.
    pub quic: Option<QuicSummary>,
}

/// The `tcp` key of a flow: retransmissions and timer expiries summed over its paths, and for
/// a TCP flow its own details.
#[derive(Clone, Debug, Serialize)]
pub struct RetransmitTotals {
    pub retransmissions: u64,
    pub rto_count: u64,
    #[serde(flatten)]
    pub detail: Option<TcpDetail>,
}

impl TransportPart {
    /// Sums of the paths' retransmissions and RTOs, as a multipath flow's `tcp` key.
    pub fn totals_of(paths: &[PathSummary]) -> RetransmitTotals {
        RetransmitTotals {
            retransmissions: paths.iter().map(|p| p.retransmissions).sum(),
            rto_count: paths.iter().map(|p| p.rto_count).sum(),
            detail: None,
        }
    }
}
