//! The engine's event type for a simulation: small, `Copy`, dispatched by one `match`.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ev {
    /// The head of a link's pipe arrives at the far end.
    Arrival(u32),
    /// A CoDel link's transmitter finishes a packet and dequeues the next.
    LinkTx(u32),
    /// An endpoint timer (endpoint = 2·flow + role) with its lazy-cancellation generation.
    Timer { ep: u32, generation: u32 },
    /// An application's next write.
    App(u32),
    Start(u32),
    Stop(u32),
    /// Periodic sampling of cwnd, SRTT and queues.
    Sample,
}
