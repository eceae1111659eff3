//! The engine's event type for a simulation: small, `Copy`, dispatched by one `match`.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ev {
    /// The head of a link's pipe arrives at the far end.
    Arrival(u32),
    /// A CoDel link's transmitter finishes a packet and dequeues the next.
    LinkTx(u32),
    /// An endpoint timer (`ep` = flow · MAX_TIMER_SLOTS + slot, see `transport::endpoint`)
    /// with its lazy-cancellation generation.
    Timer {
        ep: u32,
        generation: u32,
    },
    /// A tunnel timer (`ep` = tunnel · MAX_TUNNEL_SLOTS + slot, see `transport::tunnel`).
    TunnelTimer {
        ep: u32,
        generation: u32,
    },
    /// An application's next write.
    App(u32),
    Start(u32),
    Stop(u32),
    /// Periodic sampling of cwnd, SRTT and queues.
    Sample,
    /// A path opening an endpoint asked for (flow, path), e.g. a subflow's join.
    OpenPath(u32, u16),
    /// Scenario link event i (index into `RunSpec::events`).
    LinkEvent(u32),
    /// Link l's capacity model changes its rate (the next step).
    Capacity(u32),
    /// Wi-Fi channel `channel`'s medium has an event due (lazily cancelled, `sim/wifi.rs`).
    Wifi {
        channel: u32,
        generation: u32,
    },
    /// A packet handed over from another partition of a parallel run (its handle here) enters
    /// the network at its position (`parallel`).
    Import(u32),
}
