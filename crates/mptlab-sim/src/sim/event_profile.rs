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

use crate::spec::FlowSpec;
use crate::transport::endpoint::End;

/// An event's class: what it was and, for a packet reaching a flow or a tick, whose flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// A packet reached the end of a link and went on to the next.
    Hop,
    /// A packet reached a tunnel or a packet was lost on arrival.
    OtherArrival,
    /// An application tick that found its writer still blocked.
    BlockedTick,
    Timer,
    Other,
    /// A packet reached end `End` of flow `u32`.
    Delivery(u32, End),
    /// An application tick of flow `u32` that wrote.
    Write(u32),
}

/// The classes every run has, in table order; then three per protocol (`per_protocol`).
const FIXED: [&str; 5] = ["hop arrival", "other arrival (tunnel, loss)", "tick, writer blocked", "timer", "other"];

/// The rows of protocol `p`: a packet at the sender, at the receiver, a write.
fn per_protocol(p: &str) -> [String; 3] {
    [format!("{p} packet at the sender (ACK)"), format!("{p} packet at the receiver (data)"), format!("{p} write")]
}

/// One row of the table.
#[derive(Clone, Debug)]
pub struct Row {
    pub name: String,
    /// A packet delivered to a flow's end.
    pub delivery: bool,
    pub events: u64,
    pub ticks: u64,
}

/// Events and clock ticks per class, and the class of the event being dispatched.
#[derive(Debug)]
pub struct EventProfile {
    /// The protocols of the run's flows as the scenario names them
    /// (`TransportSpec::protocol_name`), in first-seen order, and each flow's index into them.
    protocols: Vec<&'static str>,
    flow_protocol: Vec<u8>,
    /// Events and ticks per class: `FIXED`, then three per protocol.
    count: Vec<u64>,
    ticks: Vec<u64>,
    /// Set from the event before dispatch; a delivery or a tick refines it.
    pub current: Class,
}

impl EventProfile {
    pub fn new(flows: &[FlowSpec]) -> Self {
        let mut protocols: Vec<&'static str> = Vec::new();
        let flow_protocol = flows
            .iter()
            .map(|f| {
                let name = f.transport.protocol_name();
                let i = protocols.iter().position(|&p| p == name).unwrap_or_else(|| {
                    protocols.push(name);
                    protocols.len() - 1
                });
                i as u8
            })
            .collect();
        let classes = FIXED.len() + 3 * protocols.len();
        Self { protocols, flow_protocol, count: vec![0; classes], ticks: vec![0; classes], current: Class::Other }
    }

    fn index(&self, c: Class) -> usize {
        let row = |f: u32, k: usize| FIXED.len() + 3 * self.flow_protocol[f as usize] as usize + k;
        match c {
            Class::Hop => 0,
            Class::OtherArrival => 1,
            Class::BlockedTick => 2,
            Class::Timer => 3,
            Class::Other => 4,
            Class::Delivery(f, End::Sender) => row(f, 0),
            Class::Delivery(f, End::Receiver) => row(f, 1),
            Class::Write(f) => row(f, 2),
        }
    }

    /// The event of class `current` took `ticks`.
    #[inline]
    pub fn add(&mut self, ticks: u64) {
        let i = self.index(self.current);
        self.count[i] += 1;
        self.ticks[i] += ticks;
    }

    /// Every class that had events, in table order.
    pub fn rows(&self) -> Vec<Row> {
        let names = FIXED.iter().map(|n| (n.to_string(), false));
        let names = names.chain(self.protocols.iter().flat_map(|p| per_protocol(p).into_iter().zip([true, true, false])));
        names
            .zip(self.count.iter().zip(&self.ticks))
            .map(|((name, delivery), (&events, &ticks))| Row { name, delivery, events, ticks })
            .filter(|r| r.events > 0)
            .collect()
    }

    /// The table: class, events, mean ticks per event, share of all ticks.
    pub fn table(&self) -> String {
        let total: u64 = self.ticks.iter().sum();
        let unit = if cfg!(target_arch = "x86_64") { "TSC cycles" } else { "ns" };
        let mut s = format!("{:<36} {:>12} {:>16} {:>7}\n", "event", "events", format!("{unit}/event"), "share");
        for r in self.rows() {
            let share = 100.0 * r.ticks as f64 / total.max(1) as f64;
            s += &format!("{:<36} {:>12} {:>16} {:>6.1}%\n", r.name, r.events, r.ticks / r.events, share);
        }
        s
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
        let events: u64 = rows.iter().map(|r| r.events).sum();
        assert_eq!(events, sim.events_processed());
        let delivered: u64 = rows.iter().filter(|r| r.delivery).map(|r| r.events).sum();
        assert_eq!(delivered, sim.counts.delivered);
        let data = rows.iter().find(|r| r.name == "mptcp packet at the receiver (data)").unwrap();
        assert!(data.events > 0 && data.ticks > 0, "{rows:?}");
    }
}
