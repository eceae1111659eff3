//! Scenario link events (down, up, rate change) and capacity models at run time.
//!
//! `schedule_link_events` (called once when the run is built) attaches each link direction's
//! capacity model, with its own RNG stream derived from (run seed, `STREAM_CAPACITY`, link
//! direction name) so that its rate sequence depends on nothing else, applies the model's rate
//! at time 0, and schedules the model's next step and every event of `RunSpec::events`. The
//! engine's FIFO order among equal times keeps events at the same time in file order.
//! Semantics of each action on a link: `net/link.rs`; of the models: `net/capacity.rs`.

use super::{Ev, Simulation};
use crate::net::CapacityProcess;
use crate::spec::{LinkAction, LinkId};
use crate::transport::endpoint::{Endpoint, PATH_MANAGER_PASSES};
use mptlab_engine::{RngStream, StreamId, Time};
use std::sync::Arc;

/// RNG stream kind of capacity models, apart from the kinds `build.rs` uses (links 1, apps 2):
/// a link direction's loss stream and its capacity stream never coincide.
const STREAM_CAPACITY: u64 = 0x6361_7061; // "capa"

impl Simulation {
    /// Attach capacity models and schedule their first steps and the scenario's link events.
    pub(super) fn schedule_link_events(&mut self) {
        let (seed, duration) = (self.spec.seed, self.spec.duration);
        let spec = Arc::clone(&self.spec);
        // `l` indexes this build's links (all of them, or a partition's: `parallel`).
        for l in 0..self.hops.len() {
            let ls = &spec.links[self.link_id(l)];
            let Some(model) = &ls.capacity else { continue };
            let rng = RngStream::new(seed, StreamId::named(STREAM_CAPACITY, &ls.name));
            if let Some(t) = self.hops[l].attach_capacity(CapacityProcess::new(model, rng)) {
                if t < duration {
                    self.queue.schedule(t, Ev::Capacity(l as u32));
                }
            }
        }
        for (i, e) in self.spec.events.iter().enumerate() {
            if e.at < duration {
                self.queue.schedule(e.at, Ev::LinkEvent(i as u32));
            }
        }
    }

    /// Scenario link event `i` (index into `spec.events`) is due.
    pub(super) fn on_link_event(&mut self, now: Time, i: u32) {
        let e = self.spec.events[i as usize];
        let l = e.link as usize;
        let up = match e.action {
            LinkAction::Rate { rate_bps } => return self.hops[l].set_rate(now, rate_bps),
            LinkAction::Down => false,
            LinkAction::Up => true,
        };
        if self.hops[l].is_up() == up {
            return;
        }
        let packets = &self.packets;
        // Packets lost inside the link leave through the pipe as lost arrivals, due now; the
        // arrival handler frees them with `drop_packet`, like channel losses.
        if let Some(t) = self.hops[l].set_up(now, up, |h| {
            let p = packets.get(h);
            (p.proto, p.group)
        }) {
            self.queue.schedule(t, Ev::Arrival(e.link));
        }
        self.on_link_state_change(now, e.link, up);
    }

    /// Link `l`'s capacity model changes its rate now; schedule its next step.
    pub(super) fn on_capacity_step(&mut self, now: Time, l: u32) {
        if let Some(t) = self.hops[l as usize].on_capacity_step(now) {
            if t < self.spec.duration {
                self.queue.schedule(t, Ev::Capacity(l));
            }
        }
    }

    /// Link direction `link` just went down (`up = false`) or came back up, at `now`. Called
    /// after the link has changed state (packets inside it are already marked lost), once per
    /// direction and only on an actual change. Each flow's path manager (`Endpoint::on_interface`)
    /// is offered every path, pass by pass; the transports otherwise only see the losses.
    pub(super) fn on_link_state_change(&mut self, now: Time, link: LinkId, up: bool) {
        for pass in 0..PATH_MANAGER_PASSES {
            for f in 0..self.flows.len() {
                for path in 0..self.flows[f].endpoint.paths() {
                    if self.flows[f].endpoint.on_interface(now, pass, path, link, up, &mut self.outbox) {
                        self.flush(now, f);
                    }
                }
            }
        }
    }
}
