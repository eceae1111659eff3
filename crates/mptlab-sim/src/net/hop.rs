//! A hop: one element a packet crosses between two nodes of its route. Kinds are variants of
//! one enum (static dispatch on the packet path). The point-to-point link is the only kind
//! built today; a shared medium (802.11 DCF, issue 23) becomes another variant with its own
//! events and random stream, reusing the queue disciplines of `net::queue` through
//! `PacketQueue`.
//!
//! The API is the one the simulation uses on `Link`: offer a packet (`enqueue`), take the
//! packets that reach the far end (`pop_arrival`), run the transmitter's event (`on_tx_event`),
//! read the backlog, counters, wire bins, queue statistics and rate, and drive rate changes,
//! down/up and capacity models.

use super::capacity::CapacityProcess;
use super::config::LinkSpec;
use super::link::{Arrival, Enqueued, Link, LinkCounters};
use super::packet::Proto;
use super::wifi::{MacCounters, WifiDirection};
use crate::metrics::{LinkGroups, QueueStats, WireMeter};
use mptlab_engine::{Handle, RngStream, Time};
use std::borrow::Cow;

// The point-to-point link stays inline: it is the packet path of every wired hop (one
// indirection per packet per hop otherwise); the Wi-Fi direction, accounting only, is boxed.
// `repr(u8)` puts the tag on the link's first cache line: left to itself the compiler kept it
// in a niche of `Link`'s last field, 1.4 KB further, so every offer to a link that had left
// the cache (W5's 24,000 access-link directions) cost one more miss just to read the kind.
#[allow(clippy::large_enum_variant)]
#[repr(u8)]
pub enum Hop {
    PointToPoint(Link),
    /// A direction of a Wi-Fi channel: accounting only; the simulation hands its packets to the
    /// channel's medium (`sim/wifi.rs`), so the packet-path methods below are never called on it.
    Wifi(Box<WifiDirection>),
}

impl Hop {
    /// A point-to-point link direction; `rng` is its channel's random stream.
    /// `detailed`: keep the link's time series and, with `groups` > 0, per-group counters
    /// (`Link::new`).
    pub fn point_to_point(spec: &LinkSpec, rng: RngStream, interval: Time, duration: Time, detailed: bool, groups: usize) -> Self {
        Hop::PointToPoint(Link::new(spec, rng, interval, duration, detailed, groups))
    }

    /// The link, when the hop is one.
    pub fn as_link(&self) -> Option<&Link> {
        match self {
            Hop::PointToPoint(l) => Some(l),
            Hop::Wifi(_) => None,
        }
    }

    /// The Wi-Fi direction, when the hop is one.
    #[inline]
    pub fn as_wifi_mut(&mut self) -> Option<&mut WifiDirection> {
        match self {
            Hop::Wifi(w) => Some(w),
            Hop::PointToPoint(_) => None,
        }
    }

    /// MAC transmission counters of a Wi-Fi direction.
    pub fn mac(&self) -> Option<&MacCounters> {
        match self {
            Hop::Wifi(w) => Some(&w.mac),
            Hop::PointToPoint(_) => None,
        }
    }

    /// The packet reaching the far end by `now`, if any, and the next arrival event;
    /// `group_of` gives a lost packet's flow group.
    #[inline]
    pub fn pop_arrival(&mut self, now: Time, group_of: impl Fn(Handle) -> u16) -> Option<Arrival> {
        match self {
            Hop::PointToPoint(l) => l.pop_arrival(now, group_of),
            Hop::Wifi(_) => None,
        }
    }

    /// The hop's transmitter event; packets its queue drops are appended to `dropped`.
    /// `class_of` gives a packet's protocol and flow group.
    #[inline]
    pub fn on_tx_event(&mut self, now: Time, dropped: &mut Vec<(Handle, u32)>, class_of: impl Fn(Handle) -> (Proto, u16)) -> Enqueued {
        match self {
            Hop::PointToPoint(l) => l.on_tx_event(now, dropped, class_of),
            Hop::Wifi(_) => Enqueued::default(),
        }
    }

    /// Packets and bytes waiting for the transmitter at `now`.
    pub fn backlog(&mut self, now: Time) -> (u64, u64) {
        match self {
            Hop::PointToPoint(l) => l.backlog(now),
            Hop::Wifi(_) => (0, 0),
        }
    }

    /// Packets inside the hop (queued, being transmitted or propagating).
    pub fn packets_inside(&self) -> usize {
        match self {
            Hop::PointToPoint(l) => l.packets_inside(),
            Hop::Wifi(w) => w.packets_inside(),
        }
    }

    pub fn counters(&self) -> &LinkCounters {
        match self {
            Hop::PointToPoint(l) => &l.counters,
            Hop::Wifi(w) => &w.counters,
        }
    }

    /// Per-group counters and wire bins, on a detailed link of a run with flow groups
    /// (`Link::group_view`).
    pub fn groups(&self) -> Option<Cow<'_, LinkGroups>> {
        match self {
            Hop::PointToPoint(l) => l.group_view(),
            Hop::Wifi(_) => None,
        }
    }

    /// Wire bytes per interval, per protocol (index `Proto::index`).
    pub fn wire(&self) -> &WireMeter {
        match self {
            Hop::PointToPoint(l) => &l.wire,
            Hop::Wifi(w) => &w.wire,
        }
    }

    pub fn stats(&self) -> &QueueStats {
        match self {
            Hop::PointToPoint(l) => &l.stats,
            Hop::Wifi(w) => &w.stats,
        }
    }

    /// The transmission rate in force.
    pub fn rate_bps(&self) -> u64 {
        match self {
            Hop::PointToPoint(l) => l.rate_bps(),
            Hop::Wifi(w) => w.rate_bps(),
        }
    }

    /// Time-average capacity over [0, end].
    pub fn mean_rate_bps(&self, end: Time) -> f64 {
        match self {
            Hop::PointToPoint(l) => l.mean_rate_bps(end),
            Hop::Wifi(w) => w.rate_bps() as f64,
        }
    }

    pub fn is_up(&self) -> bool {
        match self {
            Hop::PointToPoint(l) => l.is_up(),
            Hop::Wifi(_) => true,
        }
    }

    pub fn set_rate(&mut self, now: Time, rate_bps: u64) {
        match self {
            Hop::PointToPoint(l) => l.set_rate(now, rate_bps),
            Hop::Wifi(_) => {}
        }
    }

    /// Take the hop down or up at `now`; returns when to schedule the arrival event of the
    /// packets lost inside it, if any.
    pub fn set_up(&mut self, now: Time, up: bool, class_of: impl Fn(Handle) -> (Proto, u16)) -> Option<Time> {
        match self {
            Hop::PointToPoint(l) => l.set_up(now, up, class_of),
            Hop::Wifi(_) => None,
        }
    }

    pub fn attach_capacity(&mut self, process: CapacityProcess) -> Option<Time> {
        match self {
            Hop::PointToPoint(l) => l.attach_capacity(process),
            Hop::Wifi(_) => None,
        }
    }

    pub fn on_capacity_step(&mut self, now: Time) -> Option<Time> {
        match self {
            Hop::PointToPoint(l) => l.on_capacity_step(now),
            Hop::Wifi(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::config::{LossSpec, QueueLimit, QueueSpec};
    use mptlab_engine::time::{MILLISECOND as MS, SECOND};
    use mptlab_engine::StreamId;

    fn spec(queue: QueueSpec) -> LinkSpec {
        LinkSpec {
            name: "l".into(),
            from: 0,
            to: 1,
            rate_bps: 12_000_000,
            delay: 10 * MS,
            queue,
            loss: LossSpec::None,
            capacity: None,
            wifi: None,
        }
    }

    fn hop(queue: QueueSpec) -> Hop {
        Hop::point_to_point(&spec(queue), RngStream::new(1, StreamId::new(1, 1)), SECOND, 10 * SECOND, true, 1)
    }

    /// Drive a hop with `n` back-to-back 1500 B packets at t = 0 and run its events to the end;
    /// returns (delivered handles in order, dropped count).
    fn run_burst(h: &mut Hop, n: u32) -> (Vec<u32>, u64) {
        let mut events: Vec<(Time, bool)> = Vec::new(); // (time, is_tx)
        let mut dropped = 0;
        for i in 0..n {
            let Hop::PointToPoint(l) = h else { unreachable!("a point-to-point hop") };
            let r = l.enqueue(0, Handle(i), 1500, Proto::Tcp, 0);
            dropped += r.dropped as u64;
            events.extend(r.arrival_wake.map(|t| (t, false)));
            events.extend(r.tx_wake.map(|t| (t, true)));
        }
        let mut delivered = vec![];
        let mut scratch = vec![];
        while let Some(i) = events.iter().enumerate().min_by_key(|(_, e)| e.0).map(|(i, _)| i) {
            let (t, is_tx) = events.swap_remove(i);
            if is_tx {
                let r = h.on_tx_event(t, &mut scratch, |_| (Proto::Tcp, 0));
                dropped += scratch.drain(..).count() as u64;
                events.extend(r.arrival_wake.map(|t| (t, false)));
                events.extend(r.tx_wake.map(|t| (t, true)));
            } else if let Some(a) = h.pop_arrival(t, |_| 0) {
                if a.lost {
                    dropped += 1;
                } else {
                    delivered.push(a.handle.0);
                }
                events.extend(a.next_wake.map(|t| (t, false)));
            }
        }
        (delivered, dropped)
    }

    #[test]
    fn every_queue_kind_conserves_packets_and_keeps_fifo_order() {
        let limit = QueueLimit::Packets(20);
        for q in [
            QueueSpec::DropTail { limit },
            QueueSpec::CoDel { limit, target: 5 * MS, interval: 100 * MS },
            QueueSpec::Red { limit, min: QueueLimit::Packets(3), max: QueueLimit::Packets(9), max_p: 0.1, weight: 0.2, gentle: true },
        ] {
            let mut h = hop(q.clone());
            let (delivered, dropped) = run_burst(&mut h, 50);
            let c = *h.counters();
            assert_eq!(c.offered, 50, "{q:?}");
            assert_eq!(delivered.len() as u64 + dropped, 50, "{q:?}");
            assert_eq!(c.delivered, delivered.len() as u64, "{q:?}");
            assert_eq!(c.queue_drops, dropped, "{q:?}");
            assert!(delivered.windows(2).all(|w| w[0] < w[1]), "{q:?}: FIFO order");
            assert_eq!(h.packets_inside(), 0);
            assert_eq!(h.backlog(10 * SECOND), (0, 0));
        }
    }

    #[test]
    fn red_drops_early_where_droptail_fills_its_limit() {
        let limit = QueueLimit::Packets(20);
        let mut dt = hop(QueueSpec::DropTail { limit });
        let (_, dt_drops) = run_burst(&mut dt, 50);
        // The packet in transmission plus 20 waiting are accepted.
        assert_eq!(dt_drops, 29);
        assert_eq!(dt.counters().aqm_drops, 0);
        let mut red =
            hop(QueueSpec::Red { limit, min: QueueLimit::Packets(3), max: QueueLimit::Packets(9), max_p: 0.1, weight: 0.2, gentle: true });
        let (_, red_drops) = run_burst(&mut red, 50);
        let c = *red.counters();
        assert!(c.aqm_drops > 0 && c.aqm_drops == c.queue_drops, "{c:?}");
        assert!(red_drops > dt_drops, "RED keeps the queue short: {red_drops} vs {dt_drops}");
        assert!(red.stats().max_len_packets() < 20);
    }
}
