//! The engine's event type for a simulation: small, `Copy`, dispatched by one `match`.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ev {
    /// The head of a link's pipe arrives at the far end.
    Arrival(u32),
    /// A CoDel link's transmitter finishes a packet and dequeues the next.
    LinkTx(u32),
    /// An endpoint timer (`ep` = flow · TIMER_STRIDE + 3 · path + slot) with its
    /// lazy-cancellation generation.
    Timer {
        ep: u32,
        generation: u32,
    },
    /// An application's next write.
    App(u32),
    Start(u32),
    Stop(u32),
    /// Periodic sampling of cwnd, SRTT and queues.
    Sample,
    /// An MPTCP subflow's MP_JOIN (flow, subflow).
    Join(u32, u16),
    /// Scenario link event i (index into `RunSpec::events`).
    LinkEvent(u32),
    /// Link l's capacity model changes its rate (the next step).
    Capacity(u32),
}
