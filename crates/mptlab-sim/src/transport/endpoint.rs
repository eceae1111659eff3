//! The one interface between the simulation and every transport: a flow's pair of endpoints as
//! a sans-IO state machine, in the style of quinn-proto's `Connection`
//! (<https://docs.rs/quinn-proto>: `handle_event`, `poll_transmit`, `poll_timeout`,
//! `handle_timeout`). The endpoint never sees the event queue, a link or a clock: the simulation
//! hands it packets, timeouts, interface changes and the application's writes, then drains what
//! it produced from an `Outbox` it owns and reuses (no allocation per packet).
//!
//! The contract, for one flow (both of its ends live in one value, since a study moves data
//! one way: the `Sender` end's application writes, the `Receiver` end's application reads):
//! - Every input (`start`, `write`, `on_packet`, `on_timeout`, `on_open_path`, `on_interface`)
//!   may queue output. After each input, the simulation calls `poll_transmit` until it returns
//!   `None` and puts each packet on the route of its path and direction; the call that returns
//!   `None` appends to `Outbox::wakes` what the simulation must schedule, which it then applies
//!   in order: timer deadlines per slot (`None` cancels) and path openings at a future time. `finish` queues nothing and is not
//!   followed by a drain. This order (packets, then path openings, then timers) is the order in
//!   which the simulation schedules events, which the golden summaries pin down.
//! - Timer slots: `SLOTS_PER_PATH` per path, `SLOT_SENDER` (retransmission/persist, or the
//!   whole sending end's timer), `SLOT_RECEIVER` (delayed ACK, or the receiving end's timer) and
//!   `SLOT_PACER` (pacing), at `SLOTS_PER_PATH · path + slot`; then `CONN_SLOTS` for the whole
//!   connection at `conn_slot(paths)` (the scheduler's wake-up).
//! - A packet's frames that do not fit the fixed `Packet` are written by `poll_transmit` into
//!   `Bodies` under the handle the packet is about to get (`next`); the simulation inserts the
//!   packet right away, before anything else can take that handle.
//! - The simulation counts a transmit as data when `Packet::is_data` says so, and records the
//!   bytes `on_packet` returns as delivered in order to the receiving application.

use super::bodies::Bodies;
use super::flow_metrics::FlowMetrics;
use super::mptcp::{MpSeg, MAX_SUBFLOWS};
use super::segment::TcpHeader;
use crate::net::Packet;
use crate::transport::part::{PathMeasures, TransportPart};
use crate::transport::spec::TransportSpec;
use mptlab_engine::{Handle, Time};

/// The two ends of a flow: where the application writes and where it reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum End {
    #[default]
    Sender,
    Receiver,
}

/// Timer slot of the sending end (retransmission, persist, or its only timer).
pub const SLOT_SENDER: usize = 0;
/// Timer slot of the receiving end (delayed ACK, or its only timer).
pub const SLOT_RECEIVER: usize = 1;
/// Timer slot of the sending end's pacing wait.
pub const SLOT_PACER: usize = 2;
/// Timer slots per path.
pub const SLOTS_PER_PATH: usize = 3;
/// Timer slots of the whole connection, after the paths' (`conn_slot`): a multipath
/// connection's scheduler wake-up (`Scheduler::wake_at`).
pub const CONN_SLOTS: usize = 1;
/// Timer slots a flow may use (the widest endpoint: one set per MPTCP subflow, plus the
/// connection's).
pub const MAX_TIMER_SLOTS: usize = SLOTS_PER_PATH * MAX_SUBFLOWS + CONN_SLOTS;

/// The connection-level timer slot of a flow with `paths` paths (the first after theirs).
#[inline]
pub const fn conn_slot(paths: usize) -> usize {
    SLOTS_PER_PATH * paths
}
/// Path managers react to an interface change in passes, one per kind, so that the flows of
/// one kind all react before those of the next (the order the events were always scheduled in).
pub const PATH_MANAGER_PASSES: usize = 2;

/// A packet an endpoint wants on the wire: the path it takes and the end that sends it (data
/// from the sender travels on the path's forward route, the rest on its reverse route). The
/// simulation fills in `packet.route` and `packet.hop`.
#[derive(Clone, Copy, Debug)]
pub struct Transmit {
    pub path: u16,
    pub from: End,
    pub packet: Packet,
}

/// Something the simulation must schedule for the endpoint after a drain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wake {
    /// Align timer `slot` with this deadline (`None`: cancel).
    Timer { slot: usize, deadline: Option<Time> },
    /// Call `on_open_path(path)` at `at`.
    OpenPath { path: u16, at: Time },
}

/// The application's first write, handed to `start`.
#[derive(Clone, Copy, Debug)]
pub struct AppStart {
    /// A greedy application: the sender always has data.
    pub bulk: bool,
    /// Bytes written now.
    pub bytes: u64,
    /// The application is a file transfer: it ends with what it writes now.
    pub file: bool,
}

/// Output buffers shared by every endpoint of a run (one call's output at a time), reused so
/// that steady state allocates nothing. Only endpoints read the header buffers; the simulation
/// reads `wakes`.
#[derive(Default)]
pub struct Outbox {
    /// Segments produced by a single-connection end (`from`, `path`), drained from `next_header`.
    pub(crate) headers: Vec<TcpHeader>,
    pub(crate) next_header: usize,
    pub(crate) from: End,
    pub(crate) path: u16,
    /// Segments tagged with their subflow, drained from `next_seg`.
    pub(crate) segs: Vec<MpSeg>,
    pub(crate) next_seg: usize,
    /// Wakes appended by the last `poll_transmit` of a drain, applied and cleared by the simulation.
    pub wakes: Vec<Wake>,
}

impl Outbox {
    pub fn with_capacity(n: usize) -> Self {
        Self { headers: Vec::with_capacity(n), segs: Vec::with_capacity(n), wakes: Vec::with_capacity(n), ..Default::default() }
    }

    /// Headers about to be produced by end `from` of path `path`.
    #[inline]
    pub(crate) fn headers_from(&mut self, from: End, path: usize) -> &mut Vec<TcpHeader> {
        self.from = from;
        self.path = path as u16;
        &mut self.headers
    }

    /// The next undrained header, in the order produced; empties the buffer when done.
    /// Borrowed, not copied: a copy reads the header in 8-byte words, and the word holding its
    /// narrow fields (length, flags, SACK count), written a moment before by separate narrow
    /// stores, then cannot be forwarded from the store buffer and stalls the load.
    #[inline]
    pub(crate) fn next_header(&mut self) -> Option<&TcpHeader> {
        let i = self.next_header;
        if i < self.headers.len() {
            self.next_header += 1;
            Some(&self.headers[i])
        } else {
            self.headers.clear();
            self.next_header = 0;
            None
        }
    }

    /// The next undrained subflow segment, in the order produced; empties the buffer when done.
    #[inline]
    pub(crate) fn next_seg(&mut self) -> Option<MpSeg> {
        match self.segs.get(self.next_seg) {
            Some(s) => {
                self.next_seg += 1;
                Some(*s)
            }
            None => {
                self.segs.clear();
                self.next_seg = 0;
                None
            }
        }
    }
}

/// What the simulation knows about a flow at the end of a run, handed to its endpoint's
/// `summary`: its spec, its metrics and what it measured on each path.
pub struct SummaryInput<'a> {
    pub spec: &'a TransportSpec,
    pub metrics: &'a FlowMetrics,
    pub paths: PathMeasures<'a>,
    /// When the flow started, and the end of the run.
    pub start: Time,
    pub end: Time,
}

/// A flow's two endpoints behind one sans-IO interface (see the module comment for the order
/// of calls). Implemented by each transport's connection type; `AnyEndpoint` dispatches to them
/// statically on the packet path.
pub trait Endpoint {
    /// Paths the flow may use (route pairs, timer sets).
    fn paths(&self) -> usize;

    /// Open the connection at `now` with the application's first write; returns the bytes the
    /// sender accepted (the rest waits for room in its buffer).
    fn start(&mut self, now: Time, app: AppStart, out: &mut Outbox) -> u64;

    /// The sending application writes `bytes`; returns the bytes accepted.
    fn write(&mut self, now: Time, bytes: u64, out: &mut Outbox) -> u64;

    /// The sending application stops writing (nothing is sent until the next input).
    fn finish(&mut self);

    /// Packet `p` (with handle `h`, already freed; its body is still in `bodies`) reached end
    /// `at` over `path`. Returns the bytes newly delivered in order to the receiving application.
    #[allow(clippy::too_many_arguments)]
    fn on_packet(&mut self, now: Time, at: End, path: usize, p: &Packet, bodies: &Bodies, h: Handle, out: &mut Outbox) -> u64;

    /// Timer `slot` expired.
    fn on_timeout(&mut self, now: Time, slot: usize, out: &mut Outbox);

    /// A path opening this endpoint asked for (`Wake::OpenPath`) is due.
    fn on_open_path(&mut self, now: Time, path: usize, out: &mut Outbox);

    /// The path manager: link `link` at one of the hosts went down or came up, offered for
    /// each path in turn and in each of `PATH_MANAGER_PASSES` passes. Returns whether the
    /// endpoint reacted (then the simulation drains its output).
    fn on_interface(&mut self, now: Time, pass: usize, path: usize, link: u32, up: bool, out: &mut Outbox) -> bool;

    /// The next packet to send now, if any (`next` is the handle it will get). The call that
    /// returns `None` appends the wakes (timer deadlines, path openings) the last input calls
    /// for to `out.wakes`.
    fn poll_transmit(&mut self, now: Time, out: &mut Outbox, bodies: &mut Bodies, next: Handle) -> Option<Transmit>;

    /// A periodic sample of windows and RTTs into the flow's metrics.
    fn sample(&mut self, now: Time, m: &mut FlowMetrics);

    /// Whether the run measures this flow in detail (`metrics.detail_flows`: sampled traces
    /// and per-packet distributions); called once, before `start`. An endpoint that is not
    /// keeps none of the per-packet state only those read (MPTCP: its protocol delays and
    /// reassembly wait). Endpoints start detailed; most keep nothing of the kind.
    fn set_detailed(&mut self, _detailed: bool) {}

    /// The transport's part of the flow's summary record (`transport/<name>/summary.rs`).
    fn summary(&self, input: &SummaryInput) -> TransportPart;

    /// Bytes held by the flow's growable containers, by length (`transport::footprint`): its
    /// memory beyond the fixed-size structs, which must not grow with run length.
    fn memory_footprint(&self) -> usize;
}
