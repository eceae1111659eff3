//! Scripted exchanges between a `TcpSender` and a `TcpReceiver`, in the style of smoltcp's
//! socket tests: a `Pair` joins the two halves with one in-flight queue per direction and a fixed
//! one-way delay (`DELAY`, so the RTT is 100 ms and there is no queueing), and the test steps the
//! exchange by hand — deliver the next segment, drop it, fire a timer at a given time — and
//! asserts on the exact headers and on the sender's state. `Pair::run` drives the exchange
//! event by event when only the end result and invariants matter.
//!
//! Segments are numbered by index: `seg(i)` is the full-sized data segment at byte `i·MSS`.

use super::config::DelayedAck;
use super::receiver::TcpReceiver;
use super::sender::{Phase, TcpSender};
use super::{RtoFormula, TcpConfig};
use crate::cc::CcParams;
use crate::transport::segment::{SackBlock, TcpHeader, FLAG_ACK, FLAG_PROBE, FLAG_SYN, MAX_SACK_BLOCKS};
use mptlab_engine::time::{MILLISECOND as MS, SECOND};
use mptlab_engine::Time;
use std::collections::VecDeque;

const MSS: u32 = 1000;
const M: u64 = MSS as u64;
/// One-way delay of both directions.
const DELAY: Time = 50 * MS;
const RTT: Time = 2 * DELAY;
const BIG_BUFFER: u64 = 1_000_000;

fn delayed_ack(enabled: bool) -> DelayedAck {
    DelayedAck { enabled, every: 2, timeout: 40 * MS }
}

/// MSS 1000, no handshake, SACK, IW 10, delayed ACKs off (one ACK per segment).
fn config() -> TcpConfig {
    TcpConfig {
        mss: MSS,
        handshake: false,
        sack: true,
        initial_cwnd_segments: 10,
        delayed_ack: delayed_ack(false),
        recv_buffer: BIG_BUFFER,
        ..TcpConfig::default()
    }
}

/// Full-sized data segment number `i`, as the sender emits it.
fn seg(i: u64) -> TcpHeader {
    TcpHeader { flags: FLAG_ACK, seq: i * M, len: MSS, ..Default::default() }
}

/// An ACK as the receiver emits it; SACK blocks in bytes, most recent first.
fn ack(ack: u64, wnd: u64, blocks: &[(u64, u64)]) -> TcpHeader {
    assert!(blocks.len() <= MAX_SACK_BLOCKS);
    let mut h = TcpHeader { flags: FLAG_ACK, ack, wnd, nsack: blocks.len() as u8, ..Default::default() };
    for (k, &(start, end)) in blocks.iter().enumerate() {
        h.sack[k] = SackBlock { start, end };
    }
    h
}

fn syn() -> TcpHeader {
    TcpHeader { flags: FLAG_SYN, ..Default::default() }
}

fn probe(seq: u64) -> TcpHeader {
    TcpHeader { flags: FLAG_ACK | FLAG_PROBE, seq, ..Default::default() }
}

fn seqs(hs: &[TcpHeader]) -> Vec<u64> {
    hs.iter().map(|h| h.seq).collect()
}

/// RFC 6298 §2 as a reference, in nanoseconds: returns (SRTT, RTTVAR, RTO) after sample `r`.
fn rfc6298(prev: Option<(Time, Time)>, r: Time, min_rto: Time) -> (Time, Time, Time) {
    let (srtt, rttvar) = match prev {
        None => (r, r / 2),                                             // (2.2)
        Some((s, v)) => ((7 * s + r) / 8, (3 * v + s.abs_diff(r)) / 4), // (2.3)
    };
    (srtt, rttvar, (srtt + MS.max(4 * rttvar)).max(min_rto)) // (2.3)/(2.4), G = 1 ms
}

/// Linux's RTO (`tcp_rtt_estimator`, `__tcp_set_rto`) as the simulator approximates it (see
/// rtt.rs): the same SRTT and RTTVAR, RTO = SRTT + max(4·RTTVAR, min_rto).
fn linux_rto(prev: Option<(Time, Time)>, r: Time, min_rto: Time) -> (Time, Time, Time) {
    let (srtt, rttvar, _) = rfc6298(prev, r, min_rto);
    (srtt, rttvar, srtt + min_rto.max(4 * rttvar))
}

/// The test configuration with RFC 6298's RTO formula (floored at `min_rto`).
fn rfc_config() -> TcpConfig {
    TcpConfig { rto: RtoFormula::Rfc6298, ..config() }
}

/// A slow application on the receiving side: reads `bytes` every `period`.
struct Reader {
    next: Time,
    period: Time,
    bytes: u64,
}

struct Pair {
    now: Time,
    snd: TcpSender,
    rcv: TcpReceiver,
    /// (arrival time, header), in arrival order (the delay is fixed).
    to_rcv: VecDeque<(Time, TcpHeader)>,
    to_snd: VecDeque<(Time, TcpHeader)>,
    /// Every header the sender emitted: (send time, header, right edge of the window the sender
    /// had been advertised when it sent it).
    sent: Vec<(Time, TcpHeader, u64)>,
    /// Every header the receiver emitted: (send time, header).
    acked: Vec<(Time, TcpHeader)>,
    /// ack + wnd of the last ACK delivered to the sender (initially the receiver's buffer).
    right_edge: u64,
    reader: Option<Reader>,
}

impl Pair {
    fn new(cfg: TcpConfig, cc_name: &str, rcv_buffer: u64) -> Self {
        let cc = crate::cc::CcConfig::default_for(cc_name)
            .ok_or("unknown controller")
            .map(|c| c.build(CcParams { mss: cfg.mss, initial_cwnd_segments: cfg.initial_cwnd_segments }))
            .expect("known controller");
        Self {
            now: 0,
            snd: TcpSender::new(cfg, cc),
            rcv: TcpReceiver::new(cfg.sack, cfg.delayed_ack, cfg.mss, rcv_buffer, !cfg.handshake),
            to_rcv: VecDeque::new(),
            to_snd: VecDeque::new(),
            sent: Vec::new(),
            acked: Vec::new(),
            right_edge: rcv_buffer,
            reader: None,
        }
    }

    fn deliver_to_receiver(&mut self, out: &[TcpHeader]) {
        for h in out {
            self.to_rcv.push_back((self.now + DELAY, *h));
            self.sent.push((self.now, *h, self.right_edge));
        }
    }

    fn deliver_to_sender(&mut self, out: &[TcpHeader]) {
        for h in out {
            self.to_snd.push_back((self.now + DELAY, *h));
            self.acked.push((self.now, *h));
        }
    }

    fn advance_to(&mut self, t: Time) {
        assert!(t >= self.now, "time runs backwards: {t} < {}", self.now);
        self.now = t;
    }

    fn start(&mut self) -> Vec<TcpHeader> {
        let mut out = vec![];
        self.snd.start(self.now, &mut out);
        self.deliver_to_receiver(&out);
        out
    }

    /// Deliver the next segment in flight to the receiver (at its arrival time); returns it and
    /// the receiver's answer.
    #[track_caller]
    fn recv_data(&mut self) -> (TcpHeader, Vec<TcpHeader>) {
        let (t, h) = self.to_rcv.pop_front().expect("no segment in flight to the receiver");
        self.advance_to(self.now.max(t));
        let mut out = vec![];
        self.rcv.on_segment(self.now, &h, &mut out);
        self.deliver_to_sender(&out);
        (h, out)
    }

    /// Deliver the next `n` segments; returns the receiver's ACKs.
    #[track_caller]
    fn recv_data_n(&mut self, n: usize) -> Vec<TcpHeader> {
        (0..n).flat_map(|_| self.recv_data().1).collect()
    }

    #[track_caller]
    fn drop_data(&mut self) -> TcpHeader {
        self.to_rcv.pop_front().expect("no segment in flight to the receiver").1
    }

    /// Deliver the next ACK to the sender at its arrival time; returns it and what the sender sent.
    #[track_caller]
    fn recv_ack(&mut self) -> (TcpHeader, Vec<TcpHeader>) {
        let t = self.to_snd.front().expect("no ACK in flight to the sender").0;
        self.recv_ack_at(t.max(self.now))
    }

    /// Deliver the next ACK to the sender at time `t` (no earlier than its arrival: a late ACK).
    #[track_caller]
    fn recv_ack_at(&mut self, t: Time) -> (TcpHeader, Vec<TcpHeader>) {
        let (arrival, h) = self.to_snd.pop_front().expect("no ACK in flight to the sender");
        assert!(t >= arrival, "ACK delivered before it arrives");
        self.advance_to(t);
        self.right_edge = h.ack + h.wnd;
        let mut out = vec![];
        self.snd.on_ack(self.now, &h, &mut out);
        self.deliver_to_receiver(&out);
        (h, out)
    }

    /// Deliver the next `n` ACKs; returns everything the sender sent in response.
    #[track_caller]
    fn recv_ack_n(&mut self, n: usize) -> Vec<TcpHeader> {
        (0..n).flat_map(|_| self.recv_ack().1).collect()
    }

    #[track_caller]
    fn drop_ack(&mut self) -> TcpHeader {
        self.to_snd.pop_front().expect("no ACK in flight to the sender").1
    }

    /// Call the sender's timer handler at time `t` (whether or not a timer is due).
    fn sender_timer_at(&mut self, t: Time) -> Vec<TcpHeader> {
        self.advance_to(t);
        let mut out = vec![];
        self.snd.on_timer(self.now, &mut out);
        self.deliver_to_receiver(&out);
        out
    }

    /// Fire the sender's earliest timer at its deadline.
    #[track_caller]
    fn sender_timer(&mut self) -> Vec<TcpHeader> {
        let t = self.snd.deadline().expect("sender has no timer armed");
        self.sender_timer_at(t)
    }

    fn receiver_timer_at(&mut self, t: Time) -> Vec<TcpHeader> {
        self.advance_to(t);
        let mut out = vec![];
        self.rcv.on_timer(self.now, &mut out);
        self.deliver_to_sender(&out);
        out
    }

    #[track_caller]
    fn receiver_timer(&mut self) -> Vec<TcpHeader> {
        let t = self.rcv.deadline().expect("receiver has no timer armed");
        self.receiver_timer_at(t)
    }

    /// The receiving application reads up to `bytes` now; returns the receiver's window update.
    fn read(&mut self, bytes: u64) -> Vec<TcpHeader> {
        let mut out = vec![];
        self.rcv.read(bytes, &mut out);
        self.deliver_to_sender(&out);
        out
    }

    /// Process the earliest pending event (ties: data, then ACKs, then the receiver's timer,
    /// the sender's timer, the reader). Returns false when nothing is pending.
    fn step(&mut self, drop_data: &mut dyn FnMut(&TcpHeader) -> bool) -> bool {
        let d = self.to_rcv.front().map(|x| x.0);
        let a = self.to_snd.front().map(|x| x.0);
        let rt = self.rcv.deadline();
        let st = self.snd.deadline();
        let rd = self.reader.as_ref().map(|r| r.next);
        let Some(t) = [d, a, rt, st, rd].into_iter().flatten().min() else { return false };
        if d == Some(t) {
            let h = self.to_rcv.front().expect("front").1;
            if drop_data(&h) {
                self.drop_data();
            } else {
                self.recv_data();
            }
        } else if a == Some(t) {
            self.recv_ack();
        } else if rt == Some(t) {
            self.receiver_timer();
        } else if st == Some(t) {
            self.sender_timer();
        } else {
            let r = self.reader.as_mut().expect("reader");
            let bytes = r.bytes;
            r.next += r.period;
            self.advance_to(t);
            self.read(bytes);
        }
        true
    }

    /// Run until everything written is acknowledged and nothing is in flight; panics after `limit`.
    #[track_caller]
    fn run(&mut self, limit: Time, mut drop_data: impl FnMut(&TcpHeader) -> bool) {
        while !(self.snd.all_acked() && self.to_rcv.is_empty() && self.to_snd.is_empty()) {
            assert!(self.step(&mut drop_data), "stalled at {} ns with data unacknowledged", self.now);
            assert!(self.now <= limit, "transfer not finished by {limit} ns");
        }
    }

    /// Times at which the sender (re)transmitted the segment starting at `seq`.
    fn transmissions_of(&self, seq: u64) -> Vec<Time> {
        self.sent.iter().filter(|(_, h, _)| h.len > 0 && h.seq == seq).map(|(t, _, _)| *t).collect()
    }
}

// ----- 1. handshake ------------------------------------------------------------------------

/// RFC 9293 §3.5 (three-way handshake): SYN, SYN-ACK, then data within the advertised window;
/// RFC 6298 (2.1)/(2.2): the RTO is 1 s until the SYN-ACK gives the first sample.
#[test]
fn handshake_syn_then_synack_then_data() {
    let mut p = Pair::new(TcpConfig { handshake: true, ..config() }, "newreno", 64_000);
    assert_eq!(p.snd.write(3 * M), 3 * M);

    assert_eq!(p.start(), vec![syn()]);
    assert!(!p.snd.is_established());
    assert_eq!(p.snd.deadline(), Some(SECOND), "initial RTO is 1 s (RFC 6298 (2.1))");

    let (_, synack) = p.recv_data();
    assert_eq!(synack, vec![TcpHeader { flags: FLAG_SYN | FLAG_ACK, ack: 0, wnd: 64_000, ..Default::default() }]);

    let (_, out) = p.recv_ack();
    assert_eq!(p.now, RTT);
    assert!(p.snd.is_established());
    assert_eq!(p.snd.stats.established_at, Some(RTT));
    assert_eq!(p.snd.stats.syns_sent, 1);
    assert_eq!(p.snd.snd_wnd(), 64_000, "send window taken from the SYN-ACK");
    assert_eq!(out, vec![seg(0), seg(1), seg(2)]);
    // RFC 6298 (2.2): R = 100 ms from the (never retransmitted) SYN: SRTT = R, RTTVAR = R/2,
    // RTO = SRTT + 4·RTTVAR = 300 ms; the timer is armed by the first data segment (5.1).
    assert_eq!(p.snd.rtt().srtt(), Some(RTT));
    assert_eq!(p.snd.rtt().rttvar(), RTT / 2);
    assert_eq!(p.snd.rtt().rto(), 300 * MS);
    assert_eq!(p.snd.rto_deadline(), Some(RTT + 300 * MS));
    // RFC 8985 §7.2: the loss probe comes first, 2·SRTT after the data.
    assert_eq!(p.snd.deadline(), Some(RTT + 2 * RTT));

    let acks = p.recv_data_n(3);
    assert_eq!(acks, vec![ack(M, 64_000, &[]), ack(2 * M, 64_000, &[]), ack(3 * M, 64_000, &[])]);
    assert!(p.recv_ack_n(3).is_empty());
    assert!(p.snd.all_acked());
    assert_eq!(p.snd.deadline(), None, "RTO timer stopped once all data is acknowledged (RFC 6298 (5.2))");
}

/// RFC 6298 (2.1) initial RTO of 1 s and (5.5) exponential backoff, applied to the SYN; Karn's
/// rule (RFC 6298 §3): no RTT sample from the SYN-ACK of a retransmitted SYN; the first valid
/// sample (from data) clears the backoff (RFC 6298 §5, note after (5.7)).
#[test]
fn lost_syn_is_retransmitted_after_1s_then_2s() {
    let mut p = Pair::new(TcpConfig { handshake: true, ..config() }, "newreno", 64_000);
    p.snd.write(2 * M);
    assert_eq!(p.start(), vec![syn()]);
    p.drop_data();

    assert_eq!(p.sender_timer_at(SECOND - 1), vec![], "nothing before the initial RTO");
    assert_eq!(p.sender_timer_at(SECOND), vec![syn()], "first retransmission after 1 s");
    assert_eq!(p.snd.deadline(), Some(3 * SECOND), "backed off: next after 2 s");
    p.drop_data();

    assert_eq!(p.sender_timer_at(3 * SECOND - 1), vec![]);
    assert_eq!(p.sender_timer_at(3 * SECOND), vec![syn()], "second retransmission 2 s later");
    assert_eq!(p.snd.deadline(), Some(7 * SECOND), "backed off again: 4 s");
    assert_eq!(p.snd.stats.syns_sent, 3);

    p.recv_data();
    let (_, out) = p.recv_ack();
    assert_eq!(p.now, 3 * SECOND + RTT);
    assert!(p.snd.is_established());
    assert_eq!(out, vec![seg(0), seg(1)]);
    assert_eq!(p.snd.rtt().srtt(), None, "Karn: no sample from a retransmitted SYN");

    assert_eq!(p.snd.rtt().rto(), 3 * SECOND, "RFC 6298 (5.7): re-initialised to 3 s, not the backed-off 4 s");
    // The first data ACK is a valid sample (100 ms): the backoff is gone, RTO = 300 ms.
    p.recv_data_n(2);
    p.recv_ack();
    assert_eq!(p.snd.rtt().srtt(), Some(RTT));
    assert_eq!(p.snd.rtt().rto(), rfc6298(None, RTT, 200 * MS).2);
    assert_eq!(p.snd.rtt().rto(), 300 * MS);
    p.recv_ack();
    assert!(p.snd.all_acked());
}

/// Karn's rule (RFC 6298 §3): the SYN-ACK answering the *original* SYN arrives after the SYN
/// was retransmitted; timing it from the retransmission would give 50 ms instead of the true
/// 1.05 s, so the sender must take no sample at all.
#[test]
fn synack_after_syn_retransmission_gives_no_rtt_sample() {
    let mut p = Pair::new(TcpConfig { handshake: true, ..config() }, "newreno", 64_000);
    p.snd.write(M);
    p.start();
    let (_, synack) = p.recv_data(); // the original SYN arrives; its SYN-ACK is slow
    assert_eq!(synack.len(), 1);
    assert_eq!(p.sender_timer_at(SECOND), vec![syn()]);
    let (_, out) = p.recv_ack_at(SECOND + DELAY);
    assert_eq!(out, vec![seg(0)]);
    assert_eq!(p.snd.rtt().srtt(), None);
    assert_eq!(p.snd.rtt().latest(), 0, "no sample recorded");
}

/// RFC 6298 (5.7): "If the timer expires awaiting the ACK of a SYN segment and the TCP
/// implementation is using an RTO less than 3 seconds, the RTO MUST be re-initialized to
/// 3 seconds when data transmission begins." One SYN timeout, then the handshake completes
/// without an RTT sample: the first data segment's retransmission timer is 3 s.
#[test]
fn rto_is_reinitialised_to_3s_after_a_syn_timeout() {
    let mut p = Pair::new(TcpConfig { handshake: true, ..config() }, "newreno", 64_000);
    p.snd.write(M);
    p.start();
    p.drop_data();
    assert_eq!(p.sender_timer_at(SECOND), vec![syn()]);
    p.recv_data();
    let (_, out) = p.recv_ack();
    assert_eq!(out, vec![seg(0)]);
    assert_eq!(p.now, SECOND + RTT);
    assert_eq!(p.snd.deadline(), Some(p.now + 3 * SECOND), "RTO of the first data segment");
}

// ----- 2. fast retransmit and recovery without SACK -------------------------------------------

/// The script shared by the non-SACK tests: IW 10, segments 3 and 6 lost; the receiver ACKs
/// 0–2 and sends five duplicate ACKs (for 4, 5, 7, 8, 9). At 100 ms the sender processes the
/// three new ACKs (slow start: two new segments each, 10–15), then the duplicate ACKs.
fn two_holes_without_sack(cc_name: &str) -> Pair {
    let mut p = Pair::new(TcpConfig { sack: false, ..config() }, cc_name, BIG_BUFFER);
    p.snd.write(40 * M);
    assert_eq!(seqs(&p.start()), (0..10).map(|i| i * M).collect::<Vec<_>>());
    let mut acks = vec![];
    for i in 0..10 {
        if i == 3 || i == 6 {
            p.drop_data();
        } else {
            acks.extend(p.recv_data().1);
        }
    }
    // No SACK option without SACK; each segment above the hole gives a duplicate of ACK 3000.
    let w = BIG_BUFFER;
    assert_eq!(
        acks,
        vec![
            ack(M, w, &[]),
            ack(2 * M, w, &[]),
            ack(3 * M, w, &[]),
            ack(3 * M, w, &[]),
            ack(3 * M, w, &[]),
            ack(3 * M, w, &[]),
            ack(3 * M, w, &[]),
            ack(3 * M, w, &[])
        ]
    );
    assert_eq!(p.recv_ack().1, vec![seg(10), seg(11)]);
    assert_eq!(p.recv_ack().1, vec![seg(12), seg(13)]);
    assert_eq!(p.recv_ack().1, vec![seg(14), seg(15)]);
    assert_eq!(p.snd.cwnd(), 13 * M);
    p
}

/// RFC 5681 §3.2 (fast retransmit on the third duplicate ACK; step 2: ssthresh per eq. (4)
/// without the limited-transmit data; cwnd = ssthresh, the inflation of step 3 being done by
/// pipe as described in sender.rs) and RFC 3042 (limited transmit: one new segment on each of
/// the first two duplicate ACKs, cwnd unchanged).
#[test]
fn third_dupack_triggers_fast_retransmit_without_sack() {
    let mut p = two_holes_without_sack("newreno");

    let (a, out) = p.recv_ack();
    assert_eq!(a.ack, 3 * M);
    assert_eq!(out, vec![seg(16)], "limited transmit on the 1st duplicate ACK");
    assert_eq!(p.snd.phase(), Phase::Open);
    let (_, out) = p.recv_ack();
    assert_eq!(out, vec![seg(17)], "limited transmit on the 2nd duplicate ACK");
    assert_eq!(p.snd.cwnd(), 13 * M, "limited transmit does not change cwnd");
    assert_eq!(p.snd.stats.retransmissions, 0);

    let (_, out) = p.recv_ack();
    assert_eq!(out, vec![seg(3)], "third duplicate ACK: the segment at SND.UNA is retransmitted");
    assert_eq!(p.snd.phase(), Phase::Recovery);
    assert_eq!(p.snd.stats.fast_recoveries, 1);
    assert_eq!(p.snd.stats.retransmissions, 1);
    // Step 2: ssthresh = max(FlightSize/2, 2·SMSS), where "additional data sent in limited
    // transmit MUST NOT be included": FlightSize = 15 outstanding − 2 limited-transmit = 13.
    assert_eq!(p.snd.ssthresh(), (13 * M / 2).max(2 * M));
    assert_eq!(p.snd.cwnd(), p.snd.ssthresh());
    assert_eq!(p.snd.snd_una(), 3 * M);

    // Duplicate ACKs 4 and 5: nothing may leave (flight far above the reduced window).
    assert!(p.recv_ack_n(2).is_empty());
}

/// Same rule with SACK, RFC 6675 §5 (4.2): "[RFC5681] requires that any segments sent as part
/// of the Limited Transmit mechanism not be counted in FlightSize". IW 20, segment 3 lost: ACKs
/// 1000–3000 release 20–25, the first two SACKed duplicates release 26 and 27 (limited
/// transmit), the third enters recovery with FlightSize 23 segments excluding those two.
#[test]
fn sack_recovery_ssthresh_excludes_limited_transmit_segments() {
    let mut p = Pair::new(TcpConfig { initial_cwnd_segments: 20, ..config() }, "newreno", BIG_BUFFER);
    p.snd.write(60 * M);
    p.start();
    for i in 0..20 {
        if i == 3 {
            p.drop_data();
        } else {
            p.recv_data();
        }
    }
    assert_eq!(p.recv_ack_n(3).len(), 6);
    assert_eq!(p.recv_ack_n(2), vec![seg(26), seg(27)]);
    assert_eq!(p.recv_ack().1.first(), Some(&seg(3)));
    assert_eq!(p.snd.phase(), Phase::Recovery);
    assert_eq!(p.snd.ssthresh(), 23 * M / 2);
}

/// Continues `two_holes_without_sack` up to the partial ACK: the fast retransmission of 3 and
/// the last two duplicates at 100 ms; at 150 ms the receiver gets 10–17 (eight more duplicates)
/// and the retransmitted 3, which fills the first hole (ACK 6000); at 200 ms the sender
/// processes the eight duplicates. Returns the pair with ACK 6000 next in line.
fn up_to_partial_ack(cc_name: &str) -> Pair {
    let mut p = two_holes_without_sack(cc_name);
    assert_eq!(p.recv_ack_n(3), vec![seg(16), seg(17), seg(3)]);
    assert!(p.recv_ack_n(2).is_empty());
    let acks = p.recv_data_n(9);
    assert_eq!(acks.iter().map(|h| h.ack).collect::<Vec<_>>(), [vec![3 * M; 8], vec![6 * M]].concat());
    for _ in 0..8 {
        let (a, out) = p.recv_ack();
        assert_eq!(a.ack, 3 * M);
        // RFC 6582 step 4 / RFC 5681 §3.2 step 4: each further duplicate ACK lets at most one
        // new segment out; NewReno retransmits on partial ACKs only.
        assert!(out.len() <= 1 && out.iter().all(|h| h.seq >= 18 * M), "{out:?}");
    }
    assert_eq!(p.snd.stats.retransmissions, 1);
    assert_eq!(p.to_snd.front().map(|x| x.1.ack), Some(6 * M));
    p
}

/// RFC 6582 §3.2 step 5: a partial ACK (new data acknowledged, recovery point not reached)
/// retransmits the first unacknowledged segment at once and stays in fast recovery.
#[test]
fn newreno_partial_ack_retransmits_next_hole_and_stays_in_recovery() {
    let mut p = up_to_partial_ack("newreno");
    let ssthresh = p.snd.ssthresh();
    let (a, out) = p.recv_ack();
    assert_eq!(a.ack, 6 * M);
    assert_eq!(out.first(), Some(&seg(6)), "partial ACK: the next hole goes out at once");
    assert_eq!(p.snd.phase(), Phase::Recovery, "a partial ACK does not end NewReno recovery");
    assert_eq!(p.snd.snd_una(), 6 * M);
    assert_eq!(p.snd.stats.retransmissions, 2);
    assert_eq!(p.snd.stats.fast_recoveries, 1);
    assert_eq!(p.snd.ssthresh(), ssthresh);

    p.run(10 * SECOND, |_| false);
    assert_eq!(p.snd.stats.rto_count, 0);
    assert_eq!(p.snd.stats.fast_recoveries, 1, "one recovery episode for both holes");
    assert_eq!(p.snd.stats.retransmissions, 2);
}

/// RFC 6582 §3.2 step 6: the ACK of the recovery point ends fast recovery and sets cwnd to
/// ssthresh (option 2) or min(ssthresh, max(FlightSize, SMSS) + SMSS) (option 1); both are
/// ssthresh here. Window growth resumes with the following ACKs, not with the bytes of the
/// full ACK itself (they were delivered during recovery, when growth is suspended).
#[test]
fn newreno_full_ack_exits_recovery_with_cwnd_at_ssthresh() {
    let mut p = up_to_partial_ack("newreno");
    let recovery_point = 18 * M;
    let ssthresh = p.snd.ssthresh();
    p.recv_ack();
    // At 250 ms the receiver gets the new segments sent during recovery (duplicates of 6000),
    // then the retransmitted 6: its ACK covers the recovery point.
    let n = p.to_rcv.len();
    let acks = p.recv_data_n(n);
    assert!(acks.iter().any(|h| h.ack >= recovery_point));
    let full = loop {
        let (a, _) = p.recv_ack();
        if a.ack >= recovery_point {
            break a.ack;
        }
        assert_eq!(a.ack, 6 * M);
        assert_eq!(p.snd.phase(), Phase::Recovery);
    };
    assert_eq!(p.snd.phase(), Phase::Open, "the full ACK ends recovery");
    let flight = p.snd.snd_nxt() - p.snd.snd_una();
    assert!(flight + M >= ssthresh, "options 1 and 2 coincide");
    assert_eq!(p.snd.cwnd(), ssthresh, "cwnd after the full ACK {full}");
}

/// RFC 5681 §3.2 step 6 (classic Reno): the first ACK of new data ends fast recovery and
/// deflates cwnd to ssthresh, even if it is a partial ACK; the second hole is not retransmitted
/// by it and needs a second fast retransmit.
#[test]
fn reno_partial_ack_ends_recovery() {
    let mut p = up_to_partial_ack("reno");
    let ssthresh = p.snd.ssthresh();

    let (a, out) = p.recv_ack();
    assert_eq!(a.ack, 6 * M);
    assert_eq!(p.snd.phase(), Phase::Open, "Reno leaves recovery on the partial ACK");
    assert!(!out.contains(&seg(6)), "no retransmission on the partial ACK: {out:?}");
    assert_eq!(p.snd.cwnd(), ssthresh);
    assert_eq!(p.snd.stats.retransmissions, 1);

    p.run(20 * SECOND, |_| false);
    assert_eq!(p.snd.stats.fast_recoveries, 2, "the second hole needs its own fast retransmit");
    assert_eq!(p.snd.stats.rto_count, 0);
    assert_eq!(p.transmissions_of(6 * M).len(), 2);
}

// ----- 3. SACK recovery -----------------------------------------------------------------------

/// RFC 2018 §4: the first block holds the segment that triggered the ACK; the others repeat the
/// most recently reported blocks, "as many distinct SACK blocks as possible", at most 3 here.
/// 20 segments, 3, 8 and 13 lost.
#[test]
fn receiver_reports_distinct_sack_blocks_most_recent_first() {
    let mut p = Pair::new(TcpConfig { initial_cwnd_segments: 20, ..config() }, "newreno", BIG_BUFFER);
    p.snd.write(20 * M);
    p.start();
    let mut acks = vec![];
    for i in 0..20 {
        if [3, 8, 13].contains(&i) {
            p.drop_data();
        } else {
            acks.extend(p.recv_data().1);
        }
    }
    let w = BIG_BUFFER;
    let k = |i: u64| i * M;
    let mut expected = vec![ack(k(1), w, &[]), ack(k(2), w, &[]), ack(k(3), w, &[])];
    for e in 5..=8 {
        expected.push(ack(k(3), w, &[(k(4), k(e))])); // segments 4–7
    }
    for e in 10..=13 {
        expected.push(ack(k(3), w, &[(k(9), k(e)), (k(4), k(8))])); // segments 9–12
    }
    for e in 15..=20 {
        expected.push(ack(k(3), w, &[(k(14), k(e)), (k(9), k(13)), (k(4), k(8))]));
        // 14–19
    }
    for (n, (got, want)) in acks.iter().zip(&expected).enumerate() {
        assert_eq!(got.sack_blocks(), want.sack_blocks(), "ACK #{n}");
    }
    assert_eq!(acks, expected);
}

/// RFC 6675 §5: with SACK, several holes of one window are repaired in the same round trip —
/// (4.3) the first lost segment at once on entering recovery, then NextSeg rule 1 (IsLost, §4)
/// as pipe allows — without an RTO; the scoreboard counters stay consistent.
#[test]
fn sack_recovers_three_holes_in_one_round_trip() {
    let mut p = Pair::new(TcpConfig { initial_cwnd_segments: 20, ..config() }, "newreno", BIG_BUFFER);
    p.snd.write(60 * M);
    p.start();
    for i in 0..20 {
        if [3, 8, 13].contains(&i) {
            p.drop_data();
        } else {
            p.recv_data();
        }
    }
    // Every ACK: at most 3 blocks, disjoint, above the cumulative ACK, the first one holding
    // the segment that triggered it (RFC 2018 §4).
    for (_, h) in &p.acked {
        assert!(h.nsack as usize <= MAX_SACK_BLOCKS);
        for (i, b) in h.sack_blocks().iter().enumerate() {
            assert!(b.start > h.ack && b.end > b.start, "{h:?}");
            for c in &h.sack_blocks()[i + 1..] {
                assert!(b.end < c.start || c.end < b.start, "overlapping blocks {h:?}");
            }
        }
    }

    // The sender processes the 17 ACKs at 100 ms.
    let mut entered_at = None;
    let mut retransmitted = vec![];
    let mut recovery_point = 0;
    while let Some(&(t, _)) = p.to_snd.front() {
        if t > RTT {
            break;
        }
        let (_, out) = p.recv_ack();
        assert!(p.snd.scoreboard().check_counters());
        if entered_at.is_none() && p.snd.phase() == Phase::Recovery {
            entered_at = Some(p.now);
            recovery_point = p.snd.snd_nxt();
        }
        retransmitted.extend(out.iter().filter(|h| h.seq < 20 * M).map(|h| h.seq));
    }
    assert_eq!(entered_at, Some(RTT));
    assert_eq!(p.snd.stats.fast_recoveries, 1);
    assert_eq!(retransmitted, vec![3 * M, 8 * M, 13 * M], "all three holes retransmitted at once");
    assert!(p.snd.snd_una() < recovery_point, "before any ACK covers the recovery point");
    assert_eq!(p.snd.snd_una(), 3 * M);

    // Rest of the transfer: each hole retransmitted exactly once, no RTO.
    p.run(10 * SECOND, |_| false);
    assert_eq!(p.snd.stats.retransmissions, 3);
    for s in [3, 8, 13] {
        assert_eq!(p.transmissions_of(s * M), vec![0, RTT]);
    }
    assert_eq!(p.snd.stats.rto_count, 0);
    assert_eq!(p.snd.phase(), Phase::Open);
    assert!(p.snd.scoreboard().check_counters());
    assert!(p.snd.scoreboard().is_empty());
}

// ----- 4. retransmission timeout ----------------------------------------------------------------

/// RFC 6298 §2 (RTO = SRTT + max(G, 4·RTTVAR), floored at min_rto), (5.4)–(5.6) (retransmit the
/// earliest unacknowledged segment, back off ×2, restart), Karn's rule (§3) and the backoff
/// cleared by the next valid sample; RFC 5681 §3.1 (ssthresh = max(FlightSize/2, 2·SMSS) on the
/// first timeout, held constant on the next, cwnd = LW = 1 SMSS).
#[test]
fn rto_fires_at_rfc6298_value_and_backs_off() {
    // Tail loss probes off: this is the timeout on its own (see the TLP tests below).
    let cfg = TcpConfig { initial_cwnd_segments: 4, delayed_ack: delayed_ack(true), tlp: false, ..rfc_config() };
    let min_rto = cfg.min_rto;
    let mut p = Pair::new(cfg, "newreno", BIG_BUFFER);
    p.snd.write(20 * M);
    assert_eq!(p.start(), vec![seg(0), seg(1), seg(2), seg(3)]);
    let acks = p.recv_data_n(4);
    assert_eq!(acks, vec![ack(2 * M, BIG_BUFFER, &[]), ack(4 * M, BIG_BUFFER, &[])], "every 2nd segment");

    // Sample 1: ACK 2000 after 100 ms. Sample 2: ACK 4000 held until 200 ms.
    let (_, out) = p.recv_ack();
    assert_eq!(out, vec![seg(4), seg(5), seg(6), seg(7)]);
    let est = rfc6298(None, 100 * MS, min_rto);
    assert_eq!(p.snd.rtt().rto(), est.2);
    assert_eq!(est.2, 300 * MS);
    for _ in 0..4 {
        p.drop_data(); // everything from here on is lost
    }
    let (_, out) = p.recv_ack_at(200 * MS);
    assert_eq!(out, vec![seg(8), seg(9), seg(10), seg(11)]);
    for _ in 0..4 {
        p.drop_data();
    }
    let est = rfc6298(Some((est.0, est.1)), 200 * MS, min_rto);
    assert_eq!((est.0, est.1, est.2), (112_500_000, 62_500_000, 362_500_000));
    assert_eq!(p.snd.rtt().srtt(), Some(est.0));
    assert_eq!(p.snd.rtt().rttvar(), est.1);
    let rto = est.2;
    // (5.3): the timer restarts on the ACK of new data.
    assert_eq!(p.snd.deadline(), Some(200 * MS + rto));
    let cwnd_before = p.snd.cwnd();
    assert_eq!(cwnd_before, 8 * M);

    // First timeout.
    assert_eq!(p.sender_timer_at(200 * MS + rto - 1), vec![]);
    let t1 = 200 * MS + rto;
    assert_eq!(p.sender_timer_at(t1), vec![seg(4)], "earliest unacknowledged segment");
    assert_eq!(p.snd.stats.rto_count, 1);
    assert_eq!(p.snd.phase(), Phase::Loss);
    assert_eq!(p.snd.cwnd(), M, "loss window of one segment");
    let flight = 8 * M;
    assert_eq!(p.snd.ssthresh(), (flight / 2).max(2 * M));
    assert_eq!(p.snd.deadline(), Some(t1 + 2 * rto), "backed off (5.5)");
    p.drop_data();

    // Second timeout, twice the interval.
    assert_eq!(p.sender_timer_at(t1 + 2 * rto - 1), vec![]);
    let t2 = t1 + 2 * rto;
    assert_eq!(p.sender_timer_at(t2), vec![seg(4)]);
    assert_eq!(p.snd.stats.rto_count, 2);
    assert_eq!(p.snd.cwnd(), M);
    assert_eq!(p.snd.ssthresh(), (flight / 2).max(2 * M), "held constant on a repeated timeout");
    assert_eq!(p.snd.deadline(), Some(t2 + 4 * rto));

    // This retransmission gets through (ACKed by the delayed-ACK timer).
    let (_, out) = p.recv_data();
    assert!(out.is_empty());
    assert_eq!(p.receiver_timer(), vec![ack(5 * M, BIG_BUFFER, &[])]);
    let (_, out) = p.recv_ack();
    assert_eq!(p.snd.rtt().srtt(), Some(est.0), "Karn: no sample from a retransmission");
    assert_eq!(p.snd.rtt().rto(), 4 * rto, "the backoff stays until a valid sample");
    assert_eq!(p.snd.deadline(), Some(p.now + 4 * rto));
    assert_eq!(out, vec![seg(5), seg(6)], "slow start from 1 segment, go-back-N");

    // Go on until the first ACK of data never retransmitted (segment 12 and above).
    while p.snd.rtt().srtt() == Some(est.0) {
        assert!(p.step(&mut |_| false), "transfer stalled");
    }
    let acked_to = p.snd.snd_una();
    assert!(acked_to > 12 * M);
    let newest = p
        .sent
        .iter()
        .filter(|(_, h, _)| h.len > 0 && h.seq >= 12 * M && h.seq + h.len as u64 <= acked_to)
        .map(|(t, _, _)| *t)
        .max()
        .expect("a new segment acknowledged");
    let r = p.now - newest;
    let next = rfc6298(Some((est.0, est.1)), r, min_rto);
    assert_eq!(p.snd.rtt().srtt(), Some(next.0));
    assert_eq!(p.snd.rtt().rto(), next.2, "valid sample: backoff cleared");
    assert!(next.2 < 2 * rto);
    p.run(20 * SECOND, |_| false);
    assert_eq!(p.snd.stats.rto_count, 2);
    assert_eq!(p.snd.phase(), Phase::Open);
}

/// The two RTO formulas on a path with a constant 100 ms RTT, where RTTVAR decays to 0 (every
/// ACK is a 100 ms sample): Linux's (`tcp_set_rto`: SRTT + max(4·RTTVAR, min_rto)) ends at
/// SRTT + min_rto, RFC 6298's (SRTT + max(G, 4·RTTVAR), floored) at SRTT + G = 101 ms or the
/// floor.
#[test]
fn rto_formulas_on_a_constant_rtt_path() {
    for (rto, min_rto, expected) in [
        (RtoFormula::Linux, 200 * MS, 300 * MS),
        (RtoFormula::Linux, SECOND, 1100 * MS),
        (RtoFormula::Rfc6298, 200 * MS, 200 * MS),
        (RtoFormula::Rfc6298, MS, 101 * MS),
        (RtoFormula::Rfc6298, SECOND, SECOND),
    ] {
        let mut p = Pair::new(TcpConfig { rto, min_rto, ..config() }, "newreno", BIG_BUFFER);
        p.snd.write(300 * M);
        p.start();
        p.run(20 * SECOND, |_| false);
        assert!(p.snd.all_acked());
        assert_eq!(p.snd.rtt().srtt(), Some(RTT));
        assert_eq!(p.snd.rtt().rttvar(), 0, "{rto:?}");
        assert_eq!(p.snd.rtt().rto(), expected, "{rto:?}, min_rto {min_rto}");
        assert_eq!((p.snd.stats.rto_count, p.snd.stats.retransmissions), (0, 0));
    }
}

/// The same tail drop, without loss probes, under both formulas: eight 100 ms samples (one per
/// ACK) leave RTTVAR = 50·(3/4)⁷ ≈ 6.7 ms, so RFC 6298 gives 100 + 26.7 ms, floored at 200 ms,
/// and Linux 100 + 200 ms. The timer runs from the last ACK (at 100 ms).
#[test]
fn tail_drop_times_out_after_the_formulas_rto() {
    let (mut rfc, mut linux) = (None, None);
    for _ in 0..8 {
        rfc = Some(rfc6298(rfc.map(|(s, v, _)| (s, v)), RTT, 200 * MS));
        linux = Some(linux_rto(linux.map(|(s, v, _)| (s, v)), RTT, 200 * MS));
    }
    let ((srtt, rttvar, rfc), (_, _, linux)) = (rfc.unwrap(), linux.unwrap());
    assert_eq!((srtt, rttvar / 100_000), (RTT, 66), "RTTVAR 6.67 ms");
    assert_eq!((rfc, linux), (200 * MS, 300 * MS));
    for (rto, expected) in [(RtoFormula::Rfc6298, rfc), (RtoFormula::Linux, linux)] {
        let mut p = tail_drop(TcpConfig { tlp: false, rto, ..config() }, 2);
        assert_eq!((p.snd.rtt().srtt(), p.snd.rtt().rttvar()), (Some(srtt), rttvar), "{rto:?}");
        assert_eq!(p.snd.rtt().rto(), expected, "{rto:?}");
        assert_eq!(p.snd.deadline(), Some(RTT + expected));
        p.run(10 * SECOND, |_| false);
        assert_eq!(p.transmissions_of(8 * M), vec![0, RTT + expected], "{rto:?}");
        assert_eq!(p.snd.stats.rto_count, 1);
    }
}

// ----- 5. delayed ACKs --------------------------------------------------------------------------

fn receiver(delayed: bool) -> TcpReceiver {
    TcpReceiver::new(true, delayed_ack(delayed), MSS, BIG_BUFFER, true)
}

/// RFC 5681 §4.2 / RFC 1122 §4.2.3.2: an ACK at least for every second full-sized segment.
#[test]
fn delayed_ack_acks_every_second_full_segment_at_once() {
    let mut r = receiver(true);
    let mut out = vec![];
    assert_eq!(r.on_segment(0, &seg(0), &mut out), M);
    assert!(out.is_empty());
    assert_eq!(r.deadline(), Some(40 * MS));
    r.on_segment(MS, &seg(1), &mut out);
    assert_eq!(out, vec![ack(2 * M, BIG_BUFFER, &[])]);
    assert_eq!(r.deadline(), None, "the ACK cancels the timer");
    out.clear();
    r.on_segment(2 * MS, &seg(2), &mut out);
    assert!(out.is_empty());
    r.on_segment(3 * MS, &seg(3), &mut out);
    assert_eq!(out, vec![ack(4 * M, BIG_BUFFER, &[])]);
    assert_eq!(r.stats.acks_sent, 2);
}

/// RFC 5681 §4.2: a lone segment is ACKed when the delayed-ACK timer (40 ms here, < 500 ms)
/// expires.
#[test]
fn delayed_ack_timer_acks_a_lone_segment_after_40ms() {
    let mut r = receiver(true);
    let mut out = vec![];
    r.on_segment(10 * MS, &seg(0), &mut out);
    assert!(out.is_empty());
    assert_eq!(r.deadline(), Some(50 * MS));
    r.on_timer(50 * MS - 1, &mut out);
    assert!(out.is_empty(), "not before the timer");
    r.on_timer(50 * MS, &mut out);
    assert_eq!(out, vec![ack(M, BIG_BUFFER, &[])]);
    assert_eq!(r.deadline(), None);

    // Seen from the sender, the delay is part of the RTT sample.
    let mut p = Pair::new(TcpConfig { delayed_ack: delayed_ack(true), ..config() }, "newreno", BIG_BUFFER);
    p.snd.write(M);
    p.start();
    p.recv_data();
    p.receiver_timer();
    p.recv_ack();
    assert_eq!(p.snd.rtt().srtt(), Some(RTT + 40 * MS));
}

/// RFC 5681 §4.2 / RFC 2018 §4: an out-of-order segment is ACKed at once, with a SACK block
/// for it; the segment filling the gap is ACKed at once too.
#[test]
fn out_of_order_segment_is_acked_at_once_with_sack() {
    let mut r = receiver(true);
    let mut out = vec![];
    r.on_segment(0, &seg(0), &mut out);
    assert!(out.is_empty());
    r.on_segment(MS, &seg(2), &mut out);
    assert_eq!(out, vec![ack(M, BIG_BUFFER, &[(2 * M, 3 * M)])]);
    assert_eq!(r.deadline(), None, "the pending delayed ACK went out with it");
    out.clear();
    assert_eq!(r.on_segment(2 * MS, &seg(1), &mut out), 2 * M);
    assert_eq!(out, vec![ack(3 * M, BIG_BUFFER, &[])], "gap filled: immediate ACK, no block left");
    out.clear();
    // A duplicate is ACKed at once as well.
    r.on_segment(3 * MS, &seg(1), &mut out);
    assert_eq!(out, vec![ack(3 * M, BIG_BUFFER, &[])]);
    assert_eq!(r.stats.duplicate_segments, 1);
}

/// Delayed ACKs disabled: every segment is ACKed immediately and no timer is armed.
#[test]
fn without_delayed_ack_every_segment_is_acked() {
    let mut r = receiver(false);
    for i in 0..4 {
        let mut out = vec![];
        r.on_segment(i * MS, &seg(i), &mut out);
        assert_eq!(out, vec![ack((i + 1) * M, BIG_BUFFER, &[])]);
        assert_eq!(r.deadline(), None);
    }
}

// ----- 6. zero window and persist timer -------------------------------------------------------------

/// A sender that has filled a 10-segment receive buffer the application does not read: at
/// 100 ms the last ACK closes the window (ACK 10000, window 0). RFC 6298's RTO formula, so that
/// the persist interval starts at the 200 ms floor.
fn filled_receiver() -> Pair {
    let cfg = TcpConfig { recv_buffer: 10 * M, delayed_ack: delayed_ack(true), ..rfc_config() };
    let mut p = Pair::new(cfg, "newreno", 10 * M);
    p.rcv.set_auto_read(false);
    p.snd.write(30 * M);
    assert_eq!(p.start().len(), 10);
    let acks = p.recv_data_n(10);
    let expected: Vec<_> = (1..=5).map(|k| ack(2 * k * M, 10 * M - 2 * k * M, &[])).collect();
    assert_eq!(acks, expected, "the window shrinks as unread data accumulates");
    assert!(p.recv_ack_n(5).is_empty(), "no room in the window");
    assert_eq!(p.snd.snd_wnd(), 0);
    assert!(!p.snd.all_acked() && p.snd.snd_una() == 10 * M);
    p
}

/// RFC 9293 §3.8.6.1: with a zero window the sender probes after an RTO and backs the interval
/// off exponentially; the receiver answers every probe with its window (0 here).
fn probe_three_times(p: &mut Pair) {
    let rto = p.snd.rtt().rto();
    assert_eq!(rto, 200 * MS, "five 100 ms samples: RTO at the 200 ms floor");
    assert_eq!(p.snd.deadline(), Some(RTT + rto), "persist timer armed, RTO timer stopped");
    let mut at = RTT + rto;
    for k in 0..3 {
        assert_eq!(p.sender_timer_at(at - 1), vec![]);
        assert_eq!(p.sender_timer_at(at), vec![probe(10 * M - 1)], "probe #{k}");
        let next = at + (rto << (k + 1));
        assert_eq!(p.snd.deadline(), Some(next), "probe interval doubles");
        let (_, answer) = p.recv_data();
        assert_eq!(answer, vec![ack(10 * M, 0, &[])]);
        assert!(p.recv_ack().1.is_empty(), "still a zero window: nothing sent");
        assert_eq!(p.snd.deadline(), Some(next), "the answer does not reset the backoff");
        at = next;
    }
    assert_eq!(p.snd.stats.probes_sent, 3);
    assert_eq!(p.rcv.stats.probes_answered, 3);
    assert_eq!(p.snd.stats.segments_sent, 10, "probes carry no data");
}

#[test]
fn zero_window_probes_back_off_and_window_update_resumes_transfer() {
    let mut p = filled_receiver();
    probe_three_times(&mut p);

    // The application reads everything: window update (RFC 1122 §4.2.3.3), data resumes.
    p.advance_to(1600 * MS);
    assert_eq!(p.read(10 * M), vec![ack(10 * M, 10 * M, &[])]);
    let (_, out) = p.recv_ack();
    assert_eq!(out, (10..20).map(seg).collect::<Vec<_>>());
    assert_eq!(p.snd.deadline(), Some(p.now + p.snd.rtt().rto()), "persist off, RTO on");

    p.rcv.set_auto_read(true);
    p.run(10 * SECOND, |_| false);
    assert_eq!(p.rcv.stats.bytes_delivered, 30 * M);
    assert_eq!(p.snd.stats.probes_sent, 3);
    assert_eq!(p.snd.stats.rto_count, 0);
}

/// RFC 9293 §3.8.6.1: the window update is lost; the next probe's answer carries the open
/// window and the transfer completes (no deadlock).
#[test]
fn lost_window_update_is_recovered_by_the_next_probe() {
    let mut p = filled_receiver();
    probe_three_times(&mut p);
    let next_probe = p.snd.deadline().expect("persist timer");
    assert_eq!(next_probe, 1500 * MS + 1600 * MS);

    p.advance_to(1600 * MS);
    assert_eq!(p.read(10 * M), vec![ack(10 * M, 10 * M, &[])]);
    p.drop_ack();
    assert_eq!(p.sender_timer(), vec![probe(10 * M - 1)]);
    assert_eq!(p.now, next_probe);
    let (_, answer) = p.recv_data();
    assert_eq!(answer, vec![ack(10 * M, 10 * M, &[])]);
    let (_, out) = p.recv_ack();
    assert_eq!(out, (10..20).map(seg).collect::<Vec<_>>());

    p.rcv.set_auto_read(true);
    p.run(20 * SECOND, |_| false);
    assert_eq!(p.rcv.stats.bytes_delivered, 30 * M);
    assert_eq!(p.snd.stats.probes_sent, 4);
}

// ----- 7. flow control ---------------------------------------------------------------------------

/// RFC 9293 §3.8.6 / RFC 5681 §2: the sender never has more data outstanding than the receiver
/// advertised (here a 5-segment buffer drained by a slow reader, window learnt from the SYN-ACK
/// although the sender's own configuration assumes a large buffer).
#[test]
fn sender_never_exceeds_advertised_window() {
    let cfg = TcpConfig { handshake: true, delayed_ack: delayed_ack(true), ..config() };
    let mut p = Pair::new(cfg, "newreno", 5 * M);
    p.rcv.set_auto_read(false);
    p.reader = Some(Reader { next: 0, period: 30 * MS, bytes: M });
    p.snd.write(100 * M);
    p.start();
    let mut max_outstanding = 0;
    let mut no_drop = |_: &TcpHeader| false;
    while !(p.snd.all_acked() && p.to_rcv.is_empty() && p.to_snd.is_empty()) {
        assert!(p.step(&mut no_drop));
        assert!(p.now < 60 * SECOND);
        let outstanding = p.snd.snd_nxt() - p.snd.snd_una();
        assert!(outstanding <= p.snd.snd_wnd(), "at {}: {outstanding} outstanding, window {}", p.now, p.snd.snd_wnd());
        max_outstanding = max_outstanding.max(outstanding);
    }
    for (t, h, edge) in &p.sent {
        assert!(h.seq + h.len as u64 <= *edge, "at {t}: {h:?} beyond the advertised right edge {edge}");
    }
    assert_eq!(max_outstanding, 5 * M, "the window was the limit");
    assert_eq!(p.rcv.stats.dropped_beyond_window, 0);
    assert_eq!(p.rcv.stats.bytes_delivered, 100 * M);
    assert_eq!(p.snd.stats.retransmissions, 0);
    assert_eq!(p.snd.stats.rto_count, 0);
}

// ----- 8. lost retransmissions --------------------------------------------------------------------

/// sender.rs "Interpretations" (RFC 8985 §6.2 applied to retransmissions): a fast retransmission
/// that is itself lost is sent again once a segment sent more than min_RTT/4 after it is
/// SACKed, without waiting for the RTO. RFC 6298 (2.4)'s 1 s floor keeps the RTO out of the
/// way: the point is that no timeout is needed.
#[test]
fn lost_retransmission_is_resent_when_later_data_is_sacked() {
    let cfg = TcpConfig { initial_cwnd_segments: 20, min_rto: SECOND, ..rfc_config() };
    let mut p = Pair::new(cfg, "newreno", BIG_BUFFER);
    p.snd.write(80 * M);
    p.start();
    let mut dropped = 0;
    let mut drop = |h: &TcpHeader| {
        if h.seq == 3 * M && h.len > 0 && dropped < 2 {
            dropped += 1;
            true
        } else {
            false
        }
    };
    while !(p.snd.all_acked() && p.to_rcv.is_empty() && p.to_snd.is_empty()) {
        assert!(p.step(&mut drop));
        assert!(p.now < 10 * SECOND);
        assert!(p.snd.scoreboard().check_counters(), "at {}", p.now);
    }
    // Original at 0, fast retransmission at 100 ms (lost), then at 300 ms: the ACKs of the
    // segments sent at 200 ms (> 100 ms + min_RTT/4) SACK data sent after the retransmission.
    assert_eq!(p.transmissions_of(3 * M), vec![0, RTT, 3 * RTT]);
    assert_eq!(p.snd.stats.rto_count, 0);
    assert_eq!(p.snd.stats.retransmissions, 2);
    assert_eq!(p.snd.stats.fast_recoveries, 1);
    assert_eq!(p.snd.phase(), Phase::Open);
    assert!(p.snd.scoreboard().is_empty());
}

// ----- 9. tail loss probes (RFC 8985 §7) -----------------------------------------------------------

/// RFC 6298 (2.4)'s 1 s floor (rto = rfc6298, min_rto = 1 s) keeps the RTO well after the PTO
/// (2·SRTT = 200 ms here).
fn tlp_config() -> TcpConfig {
    TcpConfig { min_rto: SECOND, ..rfc_config() }
}

/// Ten segments, the last `lost` of them dropped, the other ACKs processed at 100 ms.
fn tail_drop(cfg: TcpConfig, lost: usize) -> Pair {
    let mut p = Pair::new(cfg, "newreno", BIG_BUFFER);
    p.snd.write(10 * M);
    assert_eq!(p.start().len(), 10);
    p.recv_data_n(10 - lost);
    for _ in 0..lost {
        p.drop_data();
    }
    assert!(p.recv_ack_n(10 - lost).is_empty(), "nothing new to send");
    assert_eq!(p.now, RTT);
    p
}

/// RFC 8985 §7.2–7.4: the last two segments of a flight are lost, so no ACK comes back to
/// reveal them. 2·SRTT after the last ACK the sender retransmits the highest segment as a
/// probe; its SACK marks the other one lost (RACK's rule applied to the probe) and fast
/// recovery repairs it, well before the RTO.
#[test]
fn tail_drop_is_repaired_by_a_probe_after_two_srtt_not_by_an_rto() {
    let mut p = tail_drop(tlp_config(), 2);
    assert_eq!(p.snd.rtt().srtt(), Some(RTT));
    assert_eq!(p.snd.pto_deadline(), Some(RTT + 2 * RTT), "PTO = 2·SRTT after the ACK of new data");
    assert_eq!(p.snd.rto_deadline(), Some(RTT + SECOND));
    assert_eq!(p.sender_timer(), vec![seg(9)], "no new data: the highest segment is the probe");
    assert_eq!(p.now, 3 * RTT);
    assert_eq!(p.snd.stats.tlp_probes, 1);
    assert_eq!(p.snd.rto_deadline(), Some(3 * RTT + SECOND), "RTO re-armed after the probe (§7.3)");
    assert_eq!(p.snd.deadline(), p.snd.rto_deadline(), "no second PTO while the probe is out");
    let (_, sack) = p.recv_data();
    assert_eq!(sack, vec![ack(8 * M, BIG_BUFFER, &[(9 * M, 10 * M)])]);
    let (_, out) = p.recv_ack();
    assert_eq!(out, vec![seg(8)], "the probe's SACK starts fast recovery at once");
    assert_eq!(p.snd.phase(), Phase::Recovery);
    p.run(10 * SECOND, |_| false);
    assert_eq!(p.transmissions_of(8 * M), vec![0, 4 * RTT]);
    assert_eq!(p.transmissions_of(9 * M), vec![0, 3 * RTT]);
    assert_eq!((p.snd.stats.rto_count, p.snd.stats.tlp_probes, p.snd.stats.fast_recoveries), (0, 1, 1));
    assert!(p.snd.scoreboard().check_counters() && p.snd.scoreboard().is_empty());
}

/// Without TLP the same tail drop waits for the RTO (1 s after the last ACK).
#[test]
fn without_tlp_the_same_tail_drop_takes_an_rto() {
    let mut p = tail_drop(TcpConfig { tlp: false, ..tlp_config() }, 2);
    assert_eq!(p.snd.pto_deadline(), None);
    assert_eq!(p.snd.deadline(), Some(RTT + SECOND));
    p.run(10 * SECOND, |_| false);
    assert_eq!(p.transmissions_of(8 * M), vec![0, RTT + SECOND]);
    assert_eq!((p.snd.stats.rto_count, p.snd.stats.tlp_probes), (1, 0));
}

/// §7.3: with unsent data that the window does not let out, the probe is one new segment
/// (cwnd is exceeded by it); its SACK reveals the whole lost flight.
#[test]
fn probe_sends_new_data_when_there_is_some() {
    let cfg = TcpConfig { handshake: true, initial_cwnd_segments: 4, ..tlp_config() };
    let mut p = Pair::new(cfg, "newreno", BIG_BUFFER);
    p.snd.write(20 * M);
    p.start();
    p.recv_data();
    assert_eq!(p.recv_ack().1, vec![seg(0), seg(1), seg(2), seg(3)]);
    for _ in 0..4 {
        p.drop_data(); // the whole first flight
    }
    assert_eq!(p.snd.deadline(), Some(RTT + 2 * RTT), "SRTT from the SYN: 100 ms");
    assert_eq!(p.sender_timer(), vec![seg(4)], "new data, beyond cwnd");
    assert_eq!(p.snd.in_flight(), 5 * M);
    p.recv_data();
    let (_, out) = p.recv_ack();
    assert_eq!(p.snd.phase(), Phase::Recovery, "segments 0–3 sent 200 ms before the SACKed probe are lost");
    assert_eq!(out.first(), Some(&seg(0)));
    p.run(10 * SECOND, |_| false);
    assert_eq!(p.transmissions_of(4 * M), vec![3 * RTT], "the probe was new data, never retransmitted");
    assert_eq!((p.snd.stats.rto_count, p.snd.stats.tlp_probes), (0, 1));
}

/// §7.3: at most one probe outstanding. A lost probe is followed by the RTO, not by another probe.
#[test]
fn a_lost_probe_is_followed_by_the_rto_not_a_second_probe() {
    let mut p = tail_drop(tlp_config(), 2);
    assert_eq!(p.sender_timer(), vec![seg(9)]);
    p.drop_data();
    let t = p.now + SECOND;
    assert_eq!(p.snd.deadline(), Some(t));
    for _ in 0..20 {
        // Asking the sender at any time before the RTO sends nothing.
        let at = p.now + 45 * MS;
        assert!(p.sender_timer_at(at).is_empty());
    }
    assert_eq!(p.sender_timer_at(t), vec![seg(8)]);
    assert_eq!((p.snd.stats.rto_count, p.snd.stats.tlp_probes), (1, 1));
    p.run(20 * SECOND, |_| false);
    assert_eq!(p.snd.stats.tlp_probes, 1);
}

/// §7.2: the PTO is capped so that it never fires later than the RTO would. Here one segment
/// is outstanding (PTO = 2·SRTT + 200 ms = 400 ms) and the RTO is SRTT + min_rto = 300 ms
/// (Linux's formula): the probe goes out at the RTO's deadline instead of the RTO. Over a
/// lossy transfer the PTO is never later than the RTO.
#[test]
fn the_probe_never_fires_later_than_the_rto() {
    let mut p = tail_drop(config(), 1);
    assert_eq!(p.snd.rtt().rto(), 300 * MS);
    assert_eq!(p.snd.pto_deadline(), Some(RTT + 300 * MS));
    assert_eq!(p.snd.pto_deadline(), p.snd.rto_deadline());
    assert_eq!(p.sender_timer(), vec![seg(9)]);
    assert_eq!((p.snd.stats.rto_count, p.snd.stats.tlp_probes), (0, 1));

    let mut p = Pair::new(TcpConfig { initial_cwnd_segments: 20, ..config() }, "cubic", BIG_BUFFER);
    p.snd.write(400 * M);
    p.start();
    // Scattered losses, and the first copy of the last three segments (a tail loss).
    let mut n = 0u64;
    let mut tail_dropped = std::collections::HashSet::new();
    let mut drop = |h: &TcpHeader| {
        n += 1;
        h.len > 0 && (n.is_multiple_of(23) || n % 37 < 3 || (h.seq >= 397 * M && tail_dropped.insert(h.seq)))
    };
    while !(p.snd.all_acked() && p.to_rcv.is_empty() && p.to_snd.is_empty()) {
        assert!(p.step(&mut drop));
        assert!(p.now < 60 * SECOND);
        if let (Some(pto), Some(rto)) = (p.snd.pto_deadline(), p.snd.rto_deadline()) {
            assert!(pto <= rto, "PTO {pto} after RTO {rto} at {}", p.now);
        }
    }
    assert!(p.snd.stats.tlp_probes > 0);
}

/// §7.4: a retransmitted probe that is the only copy to arrive repaired a loss; the ACK beyond
/// it tells, and the controller reduces its window once (Linux: CWR entered and left).
#[test]
fn a_loss_repaired_by_the_probe_reduces_the_window() {
    let mut p = tail_drop(tlp_config(), 1);
    let cwnd = p.snd.cwnd();
    // One segment outstanding: PTO = 2·SRTT + TLP.max_ack_delay.
    assert_eq!(p.snd.pto_deadline(), Some(RTT + 2 * RTT + 200 * MS));
    assert_eq!(p.sender_timer(), vec![seg(9)]);
    p.recv_data();
    assert!(p.recv_ack().1.is_empty());
    assert_eq!(p.snd.stats.tlp_recoveries, 0, "the probe's own ACK cannot tell whether the original arrived");
    p.snd.write(5 * M);
    let mut out = vec![];
    p.snd.try_send(p.now, &mut out);
    p.deliver_to_receiver(&out);
    assert_eq!(out.len(), 5);
    p.recv_data();
    p.recv_ack();
    assert_eq!(p.snd.stats.tlp_recoveries, 1);
    assert!(p.snd.cwnd() < cwnd && p.snd.cwnd() == p.snd.ssthresh(), "{} vs {cwnd}", p.snd.cwnd());
    assert_eq!(p.snd.phase(), Phase::Open);
    p.run(10 * SECOND, |_| false);
    assert_eq!((p.snd.stats.rto_count, p.snd.stats.fast_recoveries, p.snd.stats.tlp_recoveries), (0, 0, 1));
}

/// §7.4: when the original arrives too (its ACK was only late), the receiver answers the
/// probe with a duplicate ACK; the episode ends without a window reduction.
#[test]
fn a_spurious_probe_does_not_reduce_the_window() {
    let mut p = Pair::new(tlp_config(), "newreno", BIG_BUFFER);
    p.snd.write(10 * M);
    p.start();
    p.recv_data_n(10);
    p.recv_ack_n(9);
    let cwnd = p.snd.cwnd();
    let pto = p.snd.pto_deadline().expect("PTO armed");
    assert_eq!(p.sender_timer_at(pto), vec![seg(9)]);
    p.recv_ack(); // the late ACK of the original
    p.recv_data(); // the probe: a duplicate
    let (dup, _) = p.recv_ack();
    assert_eq!(dup, ack(10 * M, BIG_BUFFER, &[]));
    assert_eq!(p.snd.stats.tlp_recoveries, 0);
    assert_eq!(p.snd.cwnd(), cwnd);
    p.snd.write(5 * M);
    let mut out = vec![];
    p.snd.try_send(p.now, &mut out);
    p.deliver_to_receiver(&out);
    p.run(10 * SECOND, |_| false);
    assert_eq!((p.snd.stats.tlp_recoveries, p.snd.stats.rto_count), (0, 0));
}
