//! Tail loss probe (TLP), RFC 8985 §7: when the ACKs stop while data is outstanding, send one
//! probe after about two round trips instead of waiting for the retransmission timeout, so that
//! the probe's ACK (or SACK) reveals a loss at the tail of a flight that no duplicate ACK could.
//!
//! - §7.2 scheduling: the probe timeout PTO = 2·SRTT, plus `MAX_ACK_DELAY` when FlightSize is
//!   one segment (a lone segment's ACK may be delayed), 1 s without an SRTT, and never later
//!   than the pending RTO. It is (re)armed after new data is sent (not by a probe) and on an
//!   ACK that cumulatively acknowledges new data, only with SACK, in the Open phase (not in fast
//!   recovery or after an RTO) and with nothing SACKed (RACK.segs_sacked = 0).
//! - §7.3 on expiry: one new segment if there is unsent data and the receive window allows
//!   (cwnd may be exceeded by that one segment), else a retransmission of the highest-sequence
//!   segment; TLP.end_seq = SND.NXT. The RTO is then re-armed from now (§7.3's "re-arm the RTO
//!   timer"); the PTO is not re-armed.
//! - §7.4 detection: the probe's ACK ends the episode. A probe of new data, or one whose
//!   retransmission turns out to be spurious (a pure duplicate ACK at TLP.end_seq: the original
//!   and the probe both arrived), means no loss. An ACK beyond TLP.end_seq after a
//!   retransmitted probe means the probe repaired a loss: the controller reduces its window as
//!   for one congestion event (Linux `tcp_process_tlp_ack`: enter and leave CWR at once).
//!   Entering recovery or an RTO ends the episode too.
//!
//! Interpretations:
//! - `MAX_ACK_DELAY` (RFC 8985's TLP.max_ack_delay, "implementation specific") is 200 ms, the
//!   draft's recommended WCDelAckT and Linux's (TCP_RTO_MIN). No 2 ms slack is added for larger
//!   flights (Linux's TCP_TIMEOUT_MIN): simulated ACK paths have no jitter.
//! - §7.3's two conditions (no probe outstanding; an RTT sample since the last probe or the
//!   start) are checked when the PTO is scheduled as well as when it fires: a PTO that could not
//!   send a probe is not armed, so that it never replaces the RTO for nothing.
//! - The simulated receivers send no D-SACK, so a spurious probe is recognised as Linux does
//!   without one: by the pure duplicate ACK the receiver sends for the duplicate segment.
//! - §7.4.1 relies on RACK (§6.2) to mark the segments below a SACKed probe lost; the sender has
//!   RFC 6675 loss detection, which needs DupThresh segments SACKed above a hole. So RACK's rule
//!   is applied to the probe alone: when an ACK SACKs the probe, every un-SACKed segment sent
//!   more than the reordering window (min_RTT/4) before it is lost, and fast recovery starts.
//! - Linux re-arms the RTO after a probe from the send time of the oldest outstanding segment;
//!   the RFC says only "re-arm", read here as RFC 6298 (5.1): now + RTO.

use mptlab_engine::time::{MILLISECOND, SECOND};
use mptlab_engine::Time;

/// RFC 8985 TLP.max_ack_delay: what a probe allows for a lone segment's delayed ACK.
pub const MAX_ACK_DELAY: Time = 200 * MILLISECOND;

/// What an ACK told the loss-probe episode (§7.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProbeOutcome {
    /// No probe outstanding, or not yet decided.
    Pending,
    /// The episode ended without a loss.
    NoLoss,
    /// The retransmitted probe repaired a loss: the controller must respond.
    Repaired,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct Tlp {
    /// When the PTO expires (None: not armed; the RTO governs).
    pub at: Option<Time>,
    /// TLP.end_seq: SND.NXT after the outstanding probe (None: no probe outstanding).
    end_seq: Option<u64>,
    /// TLP.is_retrans: the outstanding probe retransmitted the highest segment.
    is_retrans: bool,
    /// First byte and send time of the outstanding probe.
    probe_seq: u64,
    probe_sent_at: Time,
    /// An RTT sample was taken since the last probe (or the start).
    rtt_sampled: bool,
}

impl Tlp {
    /// §7.2 TLP_calc_PTO, without the RTO cap.
    #[inline]
    pub fn pto(srtt: Option<Time>, flight: u64, mss: u64) -> Time {
        match srtt {
            Some(s) if flight <= mss => 2 * s + MAX_ACK_DELAY,
            Some(s) => 2 * s,
            None => SECOND,
        }
    }

    /// §7.3's conditions for sending a probe: none outstanding, an RTT sample since the last.
    #[inline]
    pub fn may_probe(&self) -> bool {
        self.end_seq.is_none() && self.rtt_sampled
    }

    /// Arm the PTO at now + PTO, capped at the RTO deadline (§7.2).
    #[inline]
    pub fn arm(&mut self, now: Time, pto: Time, rto_at: Option<Time>) {
        let at = now + pto;
        self.at = Some(rto_at.map_or(at, |r| at.min(r)));
    }

    #[inline]
    pub fn on_rtt_sample(&mut self) {
        self.rtt_sampled = true;
    }

    pub fn on_probe_sent(&mut self, now: Time, seq: u64, snd_nxt: u64, is_retrans: bool) {
        self.at = None;
        self.end_seq = Some(snd_nxt);
        self.is_retrans = is_retrans;
        self.probe_seq = seq;
        self.probe_sent_at = now;
        self.rtt_sampled = false;
    }

    /// The probe still outstanding, as (first byte, send time), if any.
    pub fn outstanding_probe(&self) -> Option<(u64, Time)> {
        self.end_seq.map(|_| (self.probe_seq, self.probe_sent_at))
    }

    /// Recovery or an RTO took over: the episode ends and the PTO is disarmed.
    pub fn reset(&mut self) {
        self.at = None;
        self.end_seq = None;
    }

    /// §7.4 (as Linux `tcp_process_tlp_ack`), on every ACK while a probe is outstanding.
    /// `pure_dup`: the ACK neither advanced SND.UNA nor SACKed new data nor carried data or a
    /// window update.
    pub fn on_ack(&mut self, ack: u64, pure_dup: bool) -> ProbeOutcome {
        let Some(end) = self.end_seq else { return ProbeOutcome::Pending };
        if ack < end {
            return ProbeOutcome::Pending;
        }
        if !self.is_retrans || (ack == end && pure_dup) {
            self.end_seq = None;
            ProbeOutcome::NoLoss
        } else if ack > end {
            self.end_seq = None;
            ProbeOutcome::Repaired
        } else {
            ProbeOutcome::Pending
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const MS: Time = MILLISECOND;

    #[test]
    fn pto_is_two_srtt_plus_the_ack_delay_for_a_lone_segment_and_capped_by_the_rto() {
        assert_eq!(Tlp::pto(Some(50 * MS), 3000, 1000), 100 * MS);
        assert_eq!(Tlp::pto(Some(50 * MS), 1000, 1000), 300 * MS);
        assert_eq!(Tlp::pto(None, 3000, 1000), SECOND);
        let mut t = Tlp::default();
        t.arm(10 * MS, 100 * MS, Some(500 * MS));
        assert_eq!(t.at, Some(110 * MS));
        t.arm(10 * MS, 600 * MS, Some(500 * MS));
        assert_eq!(t.at, Some(500 * MS), "never later than the RTO");
    }

    #[test]
    fn episode_outcomes_follow_rfc8985_section_7_4() {
        let mut t = Tlp { rtt_sampled: true, ..Default::default() };
        assert!(t.may_probe());
        t.on_probe_sent(0, 9000, 10_000, true);
        assert!(!t.may_probe(), "at most one probe outstanding");
        assert_eq!(t.on_ack(9000, false), ProbeOutcome::Pending);
        assert_eq!(t.on_ack(10_000, false), ProbeOutcome::Pending, "the probe's own ACK decides nothing yet");
        assert_eq!(t.on_ack(11_000, false), ProbeOutcome::Repaired);
        assert!(!t.may_probe(), "no RTT sample since the probe");
        t.on_rtt_sample();
        assert!(t.may_probe());

        t.on_probe_sent(0, 9000, 10_000, true);
        assert_eq!(t.on_ack(10_000, false), ProbeOutcome::Pending);
        assert_eq!(t.on_ack(10_000, true), ProbeOutcome::NoLoss, "duplicate ACK: original and probe arrived");

        t.on_probe_sent(0, 10_000, 11_000, false);
        assert_eq!(t.on_ack(11_000, false), ProbeOutcome::NoLoss, "a probe of new data repaired nothing");
    }
}
