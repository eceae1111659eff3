//! QUIC and multipath QUIC flows' results: the glue handing the simulation's per-path
//! measurements to `transport::quic::summary`.

use super::Simulation;
use crate::results::TransportPart;
use crate::spec::QuicSpec;
use crate::transport::quic::{self, QuicConn};

impl Simulation {
    /// The transport part of QUIC flow `f`'s record.
    pub(super) fn quic_part(&self, f: usize, spec: &QuicSpec, cli: &QuicConn, srv: &QuicConn) -> TransportPart {
        let measured = self.path_measures(f, &spec.paths);
        quic::summary::part(cli, srv, &measured, &spec.quic, spec.scheduler.name(), self.flows[f].start)
    }
}
