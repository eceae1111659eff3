//! Link directions of the run spec, with queue limits resolved: BDP multiples and times become
//! bytes, using the rate of the direction and the round trips of the flows that cross it.

use super::defaults as d;
use super::errors::{fail, join, Result};
use super::events;
use super::raw::{Loss, Queue};
use super::topology::Topology;
use super::units::Limit;
use crate::spec::{FlowSpec, LinkId, LinkSpec, LossSpec, QueueLimit, QueueSpec};
use mptlab_engine::time::SECOND;

/// Link directions with queue limits resolved. The BDP of a direction is its rate times the
/// largest round-trip propagation delay of the flows crossing it (data or ACK direction), or
/// twice its own delay (at least `IDLE_BDP_RTT`) when no flow crosses it.
pub fn links(topo: &Topology, flows: &[FlowSpec], tunnel_routes: &[(&[LinkId], &[LinkId])]) -> Result<Vec<LinkSpec>> {
    let mut rtt = vec![0u64; topo.dirs.len()];
    let mut used = vec![false; topo.dirs.len()];
    for (fwd, rev) in flows.iter().flat_map(|f| f.route_pairs()).chain(tunnel_routes.iter().copied()) {
        {
            // Saturating: each delay is at most bounds::MAX_TIME, but a long enough chain of them
            // could still pass u64 (a queue limit from a saturated RTT is then refused as too large).
            let r = fwd.iter().chain(rev).fold(0u64, |a, &e| a.saturating_add(topo.dirs[e as usize].params.delay.0));
            for &e in fwd.iter().chain(rev) {
                rtt[e as usize] = rtt[e as usize].max(r);
                used[e as usize] = true;
            }
        }
    }
    topo.dirs
        .iter()
        .enumerate()
        .map(|(i, dir)| {
            let p = &dir.params;
            let r = if used[i] {
                rtt[i]
            } else {
                match 2 * p.delay.0 {
                    0 => d::IDLE_BDP_RTT.0,
                    r => r,
                }
            };
            let queue_key = if dir.name.ends_with(".rev") { join(&dir.origin, "reverse.queue") } else { join(&dir.origin, "queue") };
            let sized = |field: &str, l: Limit| resolve_limit(&join(&queue_key, field), l, p.rate.0, r);
            let limit = |l: Limit| sized("limit", l);
            let queue = match p.queue {
                Queue::DropTail { limit: l } => QueueSpec::DropTail { limit: limit(l)? },
                Queue::CoDel { limit: l, target, interval } => {
                    QueueSpec::CoDel { limit: limit(l)?, target: target.0, interval: interval.0 }
                }
                Queue::Red { limit: l, min, max, max_p, weight, gentle } => {
                    let (min, max) = red_thresholds(&queue_key, sized("min", min)?, sized("max", max)?)?;
                    QueueSpec::Red { limit: limit(l)?, min, max, max_p, weight, gentle }
                }
            };
            let loss = match p.loss {
                Loss::None => LossSpec::None,
                Loss::Bernoulli { p } => LossSpec::Bernoulli { p },
                Loss::GilbertElliott { p_good_to_bad, p_bad_to_good, loss_good, loss_bad } => {
                    LossSpec::GilbertElliott { p_good_to_bad, p_bad_to_good, loss_good, loss_bad }
                }
            };
            Ok(LinkSpec {
                name: dir.name.clone(),
                from: dir.from,
                to: dir.to,
                rate_bps: p.rate.0,
                delay: p.delay.0,
                queue,
                loss,
                capacity: events::capacity_spec(p.capacity.as_ref()),
                wifi: dir.wifi,
            })
        })
        .collect()
}

/// RED's thresholds, resolved: both in packets or both in bytes (BDP multiples and times are
/// bytes), and min below max.
fn red_thresholds(queue_key: &str, min: QueueLimit, max: QueueLimit) -> Result<(QueueLimit, QueueLimit)> {
    match (min, max) {
        (QueueLimit::Packets(a), QueueLimit::Packets(b)) | (QueueLimit::Bytes(a), QueueLimit::Bytes(b)) if a < b => Ok((min, max)),
        (QueueLimit::Packets(_), QueueLimit::Packets(_)) | (QueueLimit::Bytes(_), QueueLimit::Bytes(_)) => {
            fail(join(queue_key, "max"), "RED's max threshold must be above its min threshold")
        }
        _ => fail(
            join(queue_key, "max"),
            "RED's min and max thresholds must both be packets or both be bytes (bdp and time thresholds resolve to bytes)",
        ),
    }
}

/// Bytes a direction of `rate_bps` sends in `t` ns.
fn bytes_in(rate_bps: u64, t: u64) -> f64 {
    rate_bps as f64 * t as f64 / (8.0 * SECOND as f64)
}

fn resolve_limit(key: &str, l: Limit, rate_bps: u64, rtt: u64) -> Result<QueueLimit> {
    let derived = |bytes: f64| {
        if bytes > u64::MAX as f64 / 2.0 {
            return fail(key, "queue limit is too large");
        }
        Ok(QueueLimit::Bytes((bytes.round() as u64).max(d::MIN_DERIVED_LIMIT)))
    };
    match l {
        Limit::Packets(n) => Ok(QueueLimit::Packets(n)),
        Limit::Bytes(b) => Ok(QueueLimit::Bytes(b)),
        Limit::Bdp(x) => derived(x * bytes_in(rate_bps, rtt)),
        Limit::Time(t) => derived(bytes_in(rate_bps, t)),
    }
}
