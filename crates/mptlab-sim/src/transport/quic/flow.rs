//! QUIC flow control, RFC 9000 §4: the sender's credit and the receiver's window, one of each per
//! stream (MAX_STREAM_DATA) and per connection (MAX_DATA). Sans-IO: the caller puts the frames
//! these types ask for (MAX_DATA, MAX_STREAM_DATA, DATA_BLOCKED, STREAM_DATA_BLOCKED) into packets.
//!
//! - Credit counts offsets, not bytes in flight (§4.1): a stream uses up to the largest offset it
//!   has sent; the connection uses the sum of those over all streams. Retransmissions use none.
//! - The sender ignores limits that do not increase (§4.1: "A sender MUST ignore any MAX_STREAM_DATA
//!   or MAX_DATA frames that do not increase flow control limits").
//! - Blocked (§4.1, §19.12, §19.13): when data waits only for credit, a DATA_BLOCKED /
//!   STREAM_DATA_BLOCKED frame carrying the limit is due, once per limit value.
//! - Receive-side limit enforcement (§4.1): data beyond the advertised limit is a
//!   FLOW_CONTROL_ERROR; `RecvWindow::on_received` returns it and changes nothing.
//!
//! Interpretations:
//! - Auto-increase (§4.2 leaves the policy open): the limit moves to `consumed + window` once the
//!   application has consumed at least `update_threshold` bytes since the last advertisement.
//!   The default threshold is half the window, as Linux TCP does for window updates
//!   (`__tcp_cleanup_rbuf`: the window would at least double); quinn uses an eighth
//!   (`stream_receive_window / 8` in `Recv::max_stream_data`), available through
//!   `RecvWindow::with_update_threshold`. Windows never grow (no receive-window autotuning).
//! - A lost MAX_DATA / MAX_STREAM_DATA frame is repeated only if it still carries the current
//!   limit (§13.3: "the most recent MAX_DATA ... frame"); a newer one supersedes it.

/// Transport error code FLOW_CONTROL_ERROR (RFC 9000 §20.1).
pub const FLOW_CONTROL_ERROR: u64 = 0x03;

/// Data would end at `attempted`, beyond the advertised `limit` (both in bytes of offset).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowControlError {
    pub limit: u64,
    pub attempted: u64,
}

/// The sender's side of one flow-control limit: the peer's MAX_DATA or MAX_STREAM_DATA.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SendCredit {
    limit: u64,
    used: u64,
    /// The limit a BLOCKED frame is due for.
    blocked_due: Option<u64>,
    /// The limit a BLOCKED frame was last handed out for (never repeated for the same limit).
    blocked_sent: Option<u64>,
}

impl SendCredit {
    /// `initial_limit` is the peer's initial_max_data / initial_max_stream_data_* (§18.2).
    pub fn new(initial_limit: u64) -> Self {
        Self { limit: initial_limit, used: 0, blocked_due: None, blocked_sent: None }
    }

    pub fn limit(&self) -> u64 {
        self.limit
    }

    pub fn used(&self) -> u64 {
        self.used
    }

    pub fn available(&self) -> u64 {
        self.limit - self.used
    }

    pub fn is_blocked(&self) -> bool {
        self.used >= self.limit
    }

    /// Spend `n` bytes of credit on new data.
    pub fn consume(&mut self, n: u64) {
        debug_assert!(n <= self.available(), "flow control: spending {n} with {} available", self.available());
        self.used += n;
    }

    /// A MAX_DATA / MAX_STREAM_DATA frame arrived. Returns true if the limit rose.
    pub fn on_max(&mut self, limit: u64) -> bool {
        if limit <= self.limit {
            return false;
        }
        self.limit = limit;
        self.blocked_due = None;
        true
    }

    /// Data is waiting for this credit: a BLOCKED frame becomes due unless one was already
    /// handed out for the current limit.
    pub fn note_blocked(&mut self) {
        if self.is_blocked() && self.blocked_sent != Some(self.limit) {
            self.blocked_due = Some(self.limit);
        }
    }

    /// The limit to put in a DATA_BLOCKED / STREAM_DATA_BLOCKED frame, if one is due.
    pub fn take_blocked(&mut self) -> Option<u64> {
        let l = self.blocked_due.take()?;
        self.blocked_sent = Some(l);
        Some(l)
    }
}

/// The receiver's side of one flow-control limit, with the auto-increase policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecvWindow {
    window: u64,
    update_threshold: u64,
    /// The limit advertised (or due to be): the peer may send up to here.
    limit: u64,
    /// Largest offset (stream) or sum of largest offsets (connection) received.
    received: u64,
    /// Bytes the application has consumed.
    consumed: u64,
    update_due: bool,
}

impl RecvWindow {
    /// A window of `window` bytes, updated at the half-window point.
    pub fn new(window: u64) -> Self {
        Self::with_update_threshold(window, window.div_ceil(2))
    }

    /// Send an update once `threshold` bytes (at least 1) were consumed since the last one.
    pub fn with_update_threshold(window: u64, threshold: u64) -> Self {
        Self { window, update_threshold: threshold.max(1), limit: window, received: 0, consumed: 0, update_due: false }
    }

    pub fn window(&self) -> u64 {
        self.window
    }

    pub fn limit(&self) -> u64 {
        self.limit
    }

    pub fn received(&self) -> u64 {
        self.received
    }

    pub fn consumed(&self) -> u64 {
        self.consumed
    }

    /// Would data up to `total` be within the limit? Changes nothing.
    pub fn check(&self, total: u64) -> Result<(), FlowControlError> {
        if total > self.limit {
            return Err(FlowControlError { limit: self.limit, attempted: total });
        }
        Ok(())
    }

    /// Data up to `total` arrived; beyond the limit it is a FLOW_CONTROL_ERROR and nothing changes.
    pub fn on_received(&mut self, total: u64) -> Result<(), FlowControlError> {
        self.check(total)?;
        self.received = self.received.max(total);
        Ok(())
    }

    /// The application consumed `n` more bytes. Returns true if that made an update due.
    pub fn on_consumed(&mut self, n: u64) -> bool {
        self.consumed += n;
        debug_assert!(self.consumed <= self.received, "consumed {} > received {}", self.consumed, self.received);
        // The last advertisement was at consumed = limit − window.
        let since_update = self.consumed + self.window - self.limit;
        if since_update >= self.update_threshold {
            self.limit = self.consumed + self.window;
            self.update_due = true;
            return true;
        }
        false
    }

    pub fn update_due(&self) -> bool {
        self.update_due
    }

    /// The limit to put in a MAX_DATA / MAX_STREAM_DATA frame, if one is due.
    pub fn take_update(&mut self) -> Option<u64> {
        std::mem::take(&mut self.update_due).then_some(self.limit)
    }

    /// A packet carrying an update with `limit` was lost: repeat it if nothing newer superseded it.
    pub fn on_update_lost(&mut self, limit: u64) {
        if limit == self.limit && limit > self.window {
            self.update_due = true;
        }
    }

    /// Forget a pending update (a stream whose final size is known needs no more credit).
    pub fn cancel_update(&mut self) {
        self.update_due = false;
    }
}
