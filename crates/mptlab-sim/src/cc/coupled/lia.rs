//! LIA, the Linked Increases Algorithm: MPTCP's coupled congestion avoidance.
//!
//! Source: RFC 6356 ("Coupled Congestion Control for Multipath Transport Protocols") §3; Linux
//! out-of-tree MPTCP `net/mptcp/mptcp_coupled.c` (the reference implementation).
//!
//! RFC 6356 §3: "For each ACK received on subflow i, increase cwnd_i by
//!
//! ```text
//!                alpha * bytes_acked * MSS_i   bytes_acked * MSS_i
//!          min ( --------------------------- , ------------------- )  (1)
//!                       cwnd_total                   cwnd_i
//! ```
//!
//! [...] The formula to compute alpha is:
//!
//! ```text
//!                                cwnd_i
//!                           max --------
//!                            i         2
//!                               rtt_i
//!      alpha = cwnd_total * -------------------------           (2)
//!                           /      cwnd_i \ 2
//!                           | sum ---------|
//!                           \  i   rtt_i  /
//! ```
//!
//! cwnd_total is the sum of the subflows' windows. Only the increase of congestion avoidance is
//! coupled: §3 keeps slow start, fast retransmit, fast recovery and the multiplicative decrease
//! of standard TCP (RFC 5681), so those are `cc/reno.rs`'s (`Window`, see `mod.rs`).
//!
//! Equation (1) as a byte counter: min(alpha/cwnd_total, 1/cwnd_i) · MSS_i per byte acked is
//! one MSS_i per max(cwnd_total/alpha, cwnd_i) bytes acknowledged (`bytes_per_increase`). That
//! is the form of Linux `mptcp_fc_cong_avoid` (`snd_cwnd_cnt >= max(tot_cwnd/alpha,
//! snd_cwnd)`) and of Reno's RFC 3465 counter (one MSS per cwnd bytes), which it becomes
//! whenever the Reno term of (1) is the smaller one: the increase is capped at Reno's.
//!
//! Interpretations:
//! - The sums of (2) run over the subflows that count (active, with an RTT sample: Linux
//!   `mptcp_ccc_sk_can_send`), cwnd_total included; rtt_i is the smoothed RTT. alpha is
//!   recomputed at every ACK from the peers' views of the last coupling and this subflow's
//!   current window (Linux recomputes it on some events only, in fixed point).
//! - Uncoupled (no peer counts, or no RTT sample yet) the counter is Reno's exactly: with one
//!   subflow alpha = 1 and (1) is Reno's increase (RFC 6356 §2's goals: no more than a single
//!   TCP flow), and the window trajectory is `cc/reno.rs`'s ACK for ACK (tested).
//! - cwnd_total/alpha is rounded to the nearest byte (in f64 it carries rounding errors of
//!   1e-16 relative, which rounding up would turn into a whole byte).

use super::{Peers, SubflowCcView, Window};
use crate::cc::{AckEvent, CcParams, CongestionControl, LossEvent};

#[derive(Clone, Debug)]
pub struct Lia {
    w: Window,
}

impl Lia {
    pub fn new(p: CcParams) -> Self {
        Lia { w: Window::new(p) }
    }

    /// RFC 6356 eq. (2) over this subflow and its peers; None while uncoupled.
    pub fn alpha(&self) -> Option<f64> {
        let (me, peers) = self.w.coupled()?;
        let total = me.w + peers.sum_w;
        let max = me.w_over_rtt2().max(peers.max_w_over_rtt2);
        let sum = me.x() + peers.sum_x;
        Some(total * max / (sum * sum))
    }

    /// Bytes acknowledged per MSS of increase: max(cwnd_total/alpha, cwnd_i), eq. (1); cwnd_i
    /// (Reno) while uncoupled.
    pub fn bytes_per_increase(&self) -> u64 {
        let cwnd = self.w.cwnd;
        let coupled = self.alpha().map_or(cwnd, |alpha| ((cwnd as f64 + self.w.peers.sum_w) / alpha).round() as u64);
        coupled.max(cwnd)
    }

    pub fn in_slow_start(&self) -> bool {
        self.w.in_slow_start()
    }

    pub fn peers(&self) -> &Peers {
        &self.w.peers
    }
}

impl CongestionControl for Lia {
    fn reads_rate_samples(&self) -> bool {
        false
    }
    window_answers!();
    reno_window_hooks!();
    halving_on_loss!();

    fn on_ack(&mut self, ev: &AckEvent) {
        if !self.w.on_ack(ev) {
            return;
        }
        if self.w.in_slow_start() {
            self.w.slow_start(ev.bytes_acked);
        } else {
            let per = self.bytes_per_increase();
            self.w.count_bytes(ev.bytes_acked, per);
        }
    }

    fn couple(&mut self, views: &[SubflowCcView], me: usize) {
        self.w.peers = Peers::of(views, me);
    }
}
