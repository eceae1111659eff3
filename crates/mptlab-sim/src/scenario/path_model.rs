//! Idle-channel RTT-model terms of an MPTCP path (`sched::PathModel`), from the hops the path
//! crosses: seed 004 Sec. V eqs. (6), (8) and (9), Sec. VI eq. (10); study notes §4.
//!
//! Per Wi-Fi hop (eq. (6), immediate access on an idle channel): DIFS + the frame's air time +
//! SIFS + the MAC ACK, with the channel's PHY timing (`net::dcf::phy`); with RTS/CTS also
//! RTS + SIFS + CTS + SIFS. Per point-to-point hop (eq. (8) for the 5G hop: T_q + |Data|/B, with
//! T_q = 0 on an idle path, plus the link's propagation delay, which eq. (8) leaves out): the
//! serialisation time plus the delay. DTT sums a data segment's hop times forward; ATT a pure
//! ACK's backward (eq. (9)); `per_frame` = SIFS + |Data| air time on the first hop (eq. (10),
//! B_i^D); `ack_dc` = the ACK's air (or serialisation) time on the path's last hop, the DC's
//! interface (B_i^DC). Sizes: a full segment (MSS + 40 B TCP/IPv4 + the 28 B DSS option) and a
//! pure ACK (40 B + the 12 B DSS option), as the MPTCP sender puts them on the wire.
//! Paths with no Wi-Fi hop get no model (the scheduler measures instead).

use super::topology::Topology;
use crate::net::dcf::PhyParams;
use crate::sched::PathModel;
use crate::spec::LinkId;
use crate::transport::mptcp::config::{DSS_ACK_BYTES, DSS_DATA_BYTES};
use crate::wire::tcp::TCP_HEADER_BYTES;
use mptlab_engine::time::SECOND;
use mptlab_engine::Time;

/// The models of a flow's paths (forward routes), or none when no path crosses Wi-Fi.
pub fn models(topo: &Topology, paths: &[Vec<LinkId>], mss: u32) -> Vec<PathModel> {
    if !paths.iter().flatten().any(|&e| topo.dirs[e as usize].wifi.is_some()) {
        return Vec::new();
    }
    let data = mss + TCP_HEADER_BYTES + DSS_DATA_BYTES;
    let ack = TCP_HEADER_BYTES + DSS_ACK_BYTES;
    paths.iter().map(|fwd| model(topo, fwd, data, ack)).collect()
}

fn model(topo: &Topology, fwd: &[LinkId], data: u32, ack: u32) -> PathModel {
    let dtt = fwd.iter().map(|&e| hop_time(topo, e, data)).sum();
    // The ACK crosses the opposite directions (e ^ 1), last hop first.
    let att = fwd.iter().rev().map(|&e| hop_time(topo, e ^ 1, ack)).sum();
    let first = fwd[0];
    let per_frame = match phy_of(topo, first) {
        Some(p) => p.sifs + p.frame_time(data),
        None => serialisation(topo, first, data),
    };
    let last = *fwd.last().expect("a route has a hop") ^ 1;
    let ack_dc = match phy_of(topo, last) {
        Some(p) => p.frame_time(ack),
        None => serialisation(topo, last, ack),
    };
    PathModel { dtt, att, per_frame, ack_dc, hops: fwd.len() as u32 }
}

/// The PHY of a Wi-Fi direction.
fn phy_of(topo: &Topology, e: LinkId) -> Option<PhyParams> {
    let w = topo.dirs[e as usize].wifi?;
    Some(PhyParams::of(topo.wifi[w.channel as usize].phy))
}

/// One packet of `bytes` across hop `e` on an idle channel.
fn hop_time(topo: &Topology, e: LinkId, bytes: u32) -> Time {
    match (phy_of(topo, e), topo.dirs[e as usize].wifi) {
        (Some(p), Some(w)) => {
            let rts = if topo.wifi[w.channel as usize].rts_cts { p.rts_time() + p.sifs + p.cts_time() + p.sifs } else { 0 };
            p.difs + rts + p.frame_time(bytes) + p.prop_delay + p.sifs + p.ack_time() + p.prop_delay
        }
        _ => serialisation(topo, e, bytes) + topo.dirs[e as usize].params.delay.0,
    }
}

fn serialisation(topo: &Topology, e: LinkId, bytes: u32) -> Time {
    (bytes as u128 * 8 * SECOND as u128 / topo.dirs[e as usize].params.rate.0.max(1) as u128) as Time
}
