//! What each kind of event costs (cargo feature `event-profile`, off in every normal build): the
//! simulation reads a clock around each event's dispatch and adds the difference to the event's
//! class, so a run can say where its time goes by event, protocol and end, in and out of cache.
//! The clock is the time-stamp counter on x86_64 (ticks are TSC cycles) and `Instant` elsewhere
//! (ticks are nanoseconds). Results are unchanged: the profile only reads the clock. An event
//! counts once, in the class of the last packet it delivered if it delivered any (a Wi-Fi
//! medium event can deliver several).
//!
//! `cargo run --release -p mptlab-sim --features event-profile --example run_scenario -- FILE`
//! prints the table after the summary (docs/architecture.md, "Scale").

use crate::sim::AnyEndpoint;
use crate::transport::endpoint::End;

/// An event's class: what it was and, for a packet or a tick, whose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// A packet reached the end of a link and went on to the next.
    Hop,
    /// A packet reached a flow's end: the protocol and the end.
    Delivery(Proto, End),
    /// A packet reached a tunnel or a packet was lost on arrival.
    OtherArrival,
    /// An application tick that wrote (by protocol) or found its writer still blocked.
    Write(Proto),
    BlockedTick,
    Timer,
    Other,
}

/// The transport of a flow's endpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Proto {
    Tcp,
    Udp,
    Mptcp,
    Quic,
}

impl Proto {
    pub fn of(e: &AnyEndpoint) -> Self {
        match e {
            AnyEndpoint::Tcp(_) => Proto::Tcp,
            AnyEndpoint::Udp(_) => Proto::Udp,
            AnyEndpoint::Mptcp(_) => Proto::Mptcp,
            AnyEndpoint::Quic(_) => Proto::Quic,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Proto::Tcp => "tcp",
            Proto::Udp => "udp",
            Proto::Mptcp => "mptcp",
            Proto::Quic => "quic",
        }
    }

    const ALL: [Proto; 4] = [Proto::Tcp, Proto::Udp, Proto::Mptcp, Proto::Quic];
}

impl Class {
    fn index(self) -> usize {
        match self {
            Class::Hop => 0,
            Class::OtherArrival => 1,
            Class::BlockedTick => 2,
            Class::Timer => 3,
            Class::Other => 4,
            Class::Delivery(p, End::Sender) => 5 + p as usize,
            Class::Delivery(p, End::Receiver) => 9 + p as usize,
            Class::Write(p) => 13 + p as usize,
        }
    }

    fn all() -> impl Iterator<Item = Class> {
        let fixed = [Class::Hop, Class::OtherArrival, Class::BlockedTick, Class::Timer, Class::Other];
        let per_proto =
            Proto::ALL.into_iter().flat_map(|p| [Class::Delivery(p, End::Sender), Class::Delivery(p, End::Receiver), Class::Write(p)]);
        fixed.into_iter().chain(per_proto)
    }

    /// The row's name in the table.
    pub fn name(self) -> String {
        match self {
            Class::Hop => "hop arrival".into(),
            Class::OtherArrival => "other arrival (tunnel, loss)".into(),
            Class::BlockedTick => "tick, writer blocked".into(),
            Class::Timer => "timer".into(),
            Class::Other => "other".into(),
            Class::Delivery(p, End::Sender) => format!("{} packet at the sender (ACK)", p.name()),
            Class::Delivery(p, End::Receiver) => format!("{} packet at the receiver (data)", p.name()),
            Class::Write(p) => format!("{} write", p.name()),
        }
    }
}

const CLASSES: usize = 17;

/// Events and clock ticks per class, and the class of the event being dispatched.
#[derive(Debug)]
pub struct EventProfile {
    count: [u64; CLASSES],
    ticks: [u64; CLASSES],
    /// Set from the event before dispatch; a delivery or a blocked tick refines it.
    pub current: Class,
}

impl Default for EventProfile {
    fn default() -> Self {
        Self { count: [0; CLASSES], ticks: [0; CLASSES], current: Class::Other }
    }
}

/// The clock, in ticks.
#[inline(always)]
pub fn now_ticks() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: RDTSC has no preconditions; it only reads the time-stamp counter.
        unsafe { core::arch::x86_64::_rdtsc() }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        use std::sync::OnceLock;
        static START: OnceLock<std::time::Instant> = OnceLock::new();
        START.get_or_init(std::time::Instant::now).elapsed().as_nanos() as u64
    }
}

impl EventProfile {
    /// The event of class `current` took `ticks`.
    #[inline]
    pub fn add(&mut self, ticks: u64) {
        let i = self.current.index();
        self.count[i] += 1;
        self.ticks[i] += ticks;
    }

    /// (class, events, ticks in all) of every class that had events.
    pub fn rows(&self) -> Vec<(Class, u64, u64)> {
        Class::all().map(|c| (c, self.count[c.index()], self.ticks[c.index()])).filter(|r| r.1 > 0).collect()
    }

    /// The table: class, events, mean ticks per event, share of all ticks.
    pub fn table(&self) -> String {
        let total: u64 = self.ticks.iter().sum();
        let unit = if cfg!(target_arch = "x86_64") { "TSC cycles" } else { "ns" };
        let mut s = format!("{:<36} {:>12} {:>16} {:>7}\n", "event", "events", format!("{unit}/event"), "share");
        for (c, n, t) in self.rows() {
            s += &format!("{:<36} {:>12} {:>16} {:>6.1}%\n", c.name(), n, t / n, 100.0 * t as f64 / total.max(1) as f64);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use crate::scenario;
    use crate::sim::Simulation;

    /// Every event lands in one class, and the deliveries to flows in theirs.
    #[test]
    fn every_event_is_counted_once_in_its_class() {
        let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/mptcp-two-paths.toml")).unwrap();
        let loaded = scenario::load(&text, &[("run.duration".into(), "3s".into())], None).unwrap();
        let mut sim = Simulation::new(loaded.spec);
        sim.run_to_end();
        let rows = sim.event_profile().rows();
        let events: u64 = rows.iter().map(|r| r.1).sum();
        assert_eq!(events, sim.events_processed());
        let delivered: u64 = rows.iter().filter(|r| matches!(r.0, super::Class::Delivery(..))).map(|r| r.1).sum();
        assert_eq!(delivered, sim.counts.delivered);
        let data =
            rows.iter().find(|r| r.0 == super::Class::Delivery(super::Proto::Mptcp, crate::transport::endpoint::End::Receiver)).unwrap();
        assert!(data.1 > 0 && data.2 > 0, "{rows:?}");
    }
}
