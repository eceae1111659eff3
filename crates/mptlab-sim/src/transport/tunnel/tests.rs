//! Scripted exchanges of one DCCP-like path (`dccp.rs`): packet-counted windows, loss after
//! three later packets (RFC 4341 §5, NUMDUPACK), at most one reduction per round trip, the RTO
//! to one packet without retransmission, and the receiver's acknowledgments.

use super::dccp::{DccpReceiver, DccpSender, INITIAL_RTO, MIN_RTO_VAR};
use crate::cc::CcConfig;
use crate::transport::multipath::PathPrefs;
use crate::wire::{SackBlock, TcpHeader};
use mptlab_engine::time::MILLISECOND as MS;
use mptlab_engine::Time;

const MSS: u32 = 1552;

fn sender(cc: &str) -> DccpSender {
    DccpSender::new(&CcConfig::default_for(cc).unwrap(), MSS, PathPrefs::default_for(0))
}

/// An acknowledgment of the inclusive ranges `ranges` (largest first).
fn ack(ranges: &[(u64, u64)]) -> TcpHeader {
    let mut h = TcpHeader::default();
    for (i, &(lo, hi)) in ranges.iter().enumerate() {
        h.sack[i] = SackBlock { start: lo, end: hi };
    }
    h.nsack = ranges.len() as u8;
    h
}

/// Send until the window is full at `now`; returns the sequence numbers sent.
fn fill(s: &mut DccpSender, now: Time) -> Vec<u64> {
    let mut out = vec![];
    while s.window_open() {
        out.push(s.on_send(now, MSS));
    }
    out
}

fn cwnd_packets(s: &DccpSender) -> u64 {
    s.cwnd() / MSS as u64
}

#[test]
fn the_window_counts_packets_whatever_their_size() {
    let mut s = sender("ccid2");
    // RFC 3390 in packets: 4380 / 1552 = 2 (at least 2).
    assert_eq!(cwnd_packets(&s), 2);
    // Tiny packets are charged a whole packet each.
    assert_eq!(s.on_send(0, 60), 0);
    assert_eq!(s.on_send(0, 60), 1);
    assert!(!s.window_open());
    assert_eq!(s.in_flight(), 2 * MSS as u64);
}

#[test]
fn a_packet_is_lost_once_three_later_ones_are_acknowledged_and_never_resent() {
    let mut s = sender("ccid2");
    let mut t = 0;
    // Grow the window to at least 6 packets with loss-free rounds.
    while cwnd_packets(&s) < 6 {
        let sent = fill(&mut s, t);
        t += 10 * MS;
        s.on_ack(t, &ack(&[(0, *sent.last().unwrap())]));
    }
    let before = *s.counters();
    let sent = fill(&mut s, t);
    let (a, b) = (sent[0], sent[1]);
    t += 10 * MS;
    // `a` is missing; two later packets acknowledged: not yet lost.
    s.on_ack(t, &ack(&[(b, b + 1), (0, a - 1)]));
    assert_eq!(s.counters().packets_lost, before.packets_lost);
    // The third later packet: `a` is lost.
    s.on_ack(t, &ack(&[(b, b + 2), (0, a - 1)]));
    assert_eq!(s.counters().packets_lost, before.packets_lost + 1);
    assert_eq!(s.congestion_events(), 1);
    // Nothing was sent again.
    assert_eq!(s.counters().packets_sent, before.packets_sent + sent.len() as u64);
}

#[test]
fn losses_of_one_window_halve_it_once() {
    let mut s = sender("ccid2");
    let mut t = 0;
    while cwnd_packets(&s) < 10 {
        let sent = fill(&mut s, t);
        t += 10 * MS;
        s.on_ack(t, &ack(&[(0, *sent.last().unwrap())]));
    }
    let w = cwnd_packets(&s);
    let sent = fill(&mut s, t);
    let (first, last) = (sent[0], *sent.last().unwrap());
    t += 10 * MS;
    // Two packets of the same window lost: one reduction (RFC 4341 §5).
    s.on_ack(t, &ack(&[(first + 4, last), (first + 2, first + 2), (0, first - 1)]));
    assert_eq!(s.counters().packets_lost, 3);
    assert_eq!(s.congestion_events(), 1);
    assert_eq!(cwnd_packets(&s), (w / 2).max(1));
}

#[test]
fn a_timeout_gives_up_everything_outstanding_and_drops_the_window_to_one_packet() {
    let mut s = sender("ccid2");
    let mut t = 0;
    while cwnd_packets(&s) < 8 {
        let sent = fill(&mut s, t);
        t += 10 * MS;
        s.on_ack(t, &ack(&[(0, *sent.last().unwrap())]));
    }
    let sent = fill(&mut s, t).len() as u64;
    let deadline = s.rto_deadline().expect("armed while packets are outstanding");
    // RTO = SRTT + max(4·RTTVAR, 200 ms) after 10 ms samples.
    assert!(deadline - t >= MIN_RTO_VAR && deadline - t < MIN_RTO_VAR + 20 * MS, "{}", deadline - t);
    s.on_timeout(deadline - 1);
    assert_eq!(s.counters().timeouts, 0, "a call before the deadline does nothing");
    s.on_timeout(deadline);
    assert_eq!(s.counters().timeouts, 1);
    assert_eq!(s.counters().packets_lost, sent);
    assert_eq!(s.in_flight(), 0);
    assert_eq!(cwnd_packets(&s), 1);
    // The next timeout is twice as long (backoff) until a new sample.
    let again = s.on_send(deadline, MSS);
    assert_eq!(again, s.counters().packets_sent - 1);
    let second = s.rto_deadline().unwrap() - deadline;
    assert!(second >= 2 * MIN_RTO_VAR, "{second}");
}

#[test]
fn before_any_sample_the_timeout_is_one_second() {
    let mut s = sender("ccid5");
    s.on_send(0, MSS);
    assert_eq!(s.rto_deadline(), Some(INITIAL_RTO));
}

#[test]
fn ccid5_paces_and_its_window_stays_whole_packets() {
    let mut s = sender("ccid5");
    assert!(s.pacing_rate().is_some());
    let mut t = 0;
    // A few rounds of STARTUP (nothing limits its growth here).
    for _ in 0..8 {
        let sent = fill(&mut s, t);
        t += 20 * MS;
        if let Some(&last) = sent.last() {
            s.on_ack(t, &ack(&[(0, last)]));
        }
        assert_eq!(s.cwnd() % MSS as u64, 0, "window {} is not whole packets", s.cwnd());
    }
}

#[test]
fn the_receiver_acknowledges_every_second_packet_and_at_once_out_of_order() {
    let mut r = DccpReceiver::new();
    let mut h = TcpHeader::default();
    assert!(r.on_data(0, 0));
    assert!(!r.poll_ack(0, &mut h), "one packet: the ACK waits (Ack Ratio 2)");
    assert_eq!(r.ack_deadline(), Some(25 * MS));
    assert!(r.on_data(MS, 1));
    assert!(r.poll_ack(MS, &mut h));
    assert_eq!((h.len, h.nsack), (0, 1));
    assert_eq!((h.sack[0].start, h.sack[0].end), (0, 1));
    // Packet 3 before 2: acknowledged at once, with both ranges.
    assert!(r.on_data(2 * MS, 3));
    assert!(r.poll_ack(2 * MS, &mut h));
    assert_eq!(h.nsack, 2);
    assert_eq!((h.sack[0].start, h.sack[0].end, h.sack[1].start, h.sack[1].end), (3, 3, 0, 1));
    assert!(!r.on_data(3 * MS, 3), "a duplicate");
}
