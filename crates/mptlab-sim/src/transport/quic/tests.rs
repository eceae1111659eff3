//! Scripted exchanges against RFC 9002 (sender) and RFC 9000 §13.2 (receiver), then a model-based
//! fuzz of `LossRecovery` and `AckManager` driven by a seeded `RngStream`.
//!
//! Packets are 1200 bytes and carry their own packet number as payload (`F = u64`), so every
//! report can be checked against what was sent. max_ack_delay is the default 25 ms.

use super::*;
use mptlab_engine::time::MILLISECOND as MS;
use mptlab_engine::{RngStream, StreamId, Time};
use std::collections::{BTreeMap, BTreeSet};

const SIZE: u32 = 1200;
const MAD: Time = 25 * MS;

fn recovery() -> LossRecovery<u64> {
    LossRecovery::new(RecoveryConfig::default())
}

fn send(r: &mut LossRecovery<u64>, now: Time, pn: u64) {
    r.on_packet_sent(now, pn, SIZE, true, true, pn);
}

fn ack(r: &mut LossRecovery<u64>, now: Time, ranges: &[(u64, u64)], ack_delay: Time) -> RecoveryOutcome<u64> {
    let mut out = RecoveryOutcome::new();
    r.on_ack_received(now, ranges, ack_delay, &mut out).expect("valid ACK");
    out
}

fn timeout(r: &mut LossRecovery<u64>, now: Time) -> (Timeout, RecoveryOutcome<u64>) {
    let mut out = RecoveryOutcome::new();
    let t = r.on_loss_detection_timeout(now, &mut out);
    (t, out)
}

fn pns(v: &[SentPacket<u64>]) -> Vec<u64> {
    v.iter().map(|p| p.pn).collect()
}

/// Packet 0 sent at 0 and acknowledged at 100 ms: smoothed_rtt 100 ms, rttvar 50 ms.
fn warmed_up() -> LossRecovery<u64> {
    let mut r = recovery();
    send(&mut r, 0, 0);
    ack(&mut r, 100 * MS, &[(0, 0)], 0);
    assert_eq!((r.rtt().smoothed_rtt(), r.rtt().rttvar()), (100 * MS, 50 * MS));
    r
}

// ---------------------------------------------------------------- loss detection (§6.1)

#[test]
fn packet_threshold_declares_packets_three_below_the_largest_acked_lost() {
    let mut r = recovery();
    for pn in 1..=5 {
        send(&mut r, 0, pn);
    }
    let out = ack(&mut r, 100 * MS, &[(5, 5)], 0);
    assert_eq!(pns(&out.acked), [5]);
    // §6.1.1: 5 ≥ 1 + 3 and 5 ≥ 2 + 3; packets 3 and 4 are within the reordering threshold.
    assert_eq!(pns(&out.lost), [1, 2]);
    assert_eq!(out.bytes_lost, 2 * SIZE as u64);
    assert_eq!(out.largest_lost_sent_time, Some(0));
    assert_eq!(r.bytes_in_flight(), 2 * SIZE as u64);
    // Packets 3 and 4 wait for the time threshold: 9/8 · 100 ms after they were sent.
    assert_eq!(r.loss_detection_timer(), Some((112_500_000, TimerKind::LossTime)));
}

#[test]
fn time_threshold_loses_a_packet_older_than_nine_eighths_rtt_when_the_timer_fires() {
    let mut r = recovery();
    send(&mut r, 0, 1);
    send(&mut r, 10 * MS, 2);
    // Packet 2 acknowledged at 110 ms: latest_rtt = smoothed_rtt = 100 ms, loss delay 112.5 ms.
    let out = ack(&mut r, 110 * MS, &[(2, 2)], 0);
    assert_eq!(out.rtt_sample, Some(100 * MS));
    assert!(out.lost.is_empty(), "packet 1 is only 110 ms old");
    assert_eq!(r.loss_time(), Some(112_500_000));
    assert_eq!(r.loss_detection_deadline(), Some(112_500_000));
    // Early (stale) timer events do nothing.
    assert_eq!(timeout(&mut r, 112_499_999).0, Timeout::NotDue);
    assert_eq!(r.bytes_in_flight(), SIZE as u64);
    let (t, out) = timeout(&mut r, 112_500_000);
    assert_eq!(t, Timeout::Lost);
    assert_eq!(pns(&out.lost), [1]);
    assert_eq!(out.prior_in_flight, SIZE as u64);
    assert_eq!(r.bytes_in_flight(), 0);
    assert_eq!(r.loss_detection_timer(), None, "nothing in flight: no timer");
    assert_eq!(r.pto_count(), 0, "a time-threshold loss is not a PTO");
}

#[test]
fn time_threshold_loses_an_old_packet_at_once_when_a_later_one_is_acked() {
    let mut r = recovery();
    send(&mut r, 0, 1);
    send(&mut r, 200 * MS, 2);
    let out = ack(&mut r, 300 * MS, &[(2, 2)], 0);
    // Loss delay 112.5 ms; packet 1 was sent 300 ms ago.
    assert_eq!(pns(&out.lost), [1]);
    assert_eq!(r.loss_time(), None);
}

#[test]
fn loss_delay_uses_latest_rtt_when_it_exceeds_smoothed_rtt() {
    let mut r = warmed_up(); // srtt 100 ms
    send(&mut r, 200 * MS, 1);
    send(&mut r, 210 * MS, 2);
    // latest_rtt 300 ms: srtt = 7/8·100 + 1/8·300 = 125 ms; loss delay 9/8 · 300 = 337.5 ms.
    ack(&mut r, 510 * MS, &[(2, 2)], 0);
    assert_eq!(r.rtt().smoothed_rtt(), 125 * MS);
    assert_eq!(r.loss_time(), Some(200 * MS + 337_500_000));
}

#[test]
fn a_packet_declared_lost_is_not_reported_acked_by_a_late_ack() {
    let mut r = recovery();
    for pn in 1..=5 {
        send(&mut r, 0, pn);
    }
    ack(&mut r, 100 * MS, &[(5, 5)], 0);
    let out = ack(&mut r, 101 * MS, &[(1, 5)], 0);
    assert_eq!(pns(&out.acked), [3, 4]);
    assert!(out.lost.is_empty());
    assert_eq!(r.bytes_in_flight(), 0);
}

// ---------------------------------------------------------------- RTT samples (§5)

#[test]
fn rtt_sample_needs_the_largest_acked_to_be_newly_acked() {
    let mut r = recovery();
    send(&mut r, 0, 1);
    send(&mut r, 10 * MS, 2);
    assert_eq!(ack(&mut r, 110 * MS, &[(2, 2)], 0).rtt_sample, Some(100 * MS));
    // Packet 1 is newly acked but the largest (2) is not: no sample.
    let out = ack(&mut r, 111 * MS, &[(1, 2)], 0);
    assert_eq!(pns(&out.acked), [1]);
    assert_eq!(out.rtt_sample, None);
    assert_eq!(r.rtt().latest_rtt(), 100 * MS);
}

#[test]
fn rtt_sample_needs_a_newly_acked_ack_eliciting_packet() {
    let mut r = recovery();
    r.on_packet_sent(0, 1, 50, false, false, 1); // an ACK-only packet
    let out = ack(&mut r, 100 * MS, &[(1, 1)], 0);
    assert_eq!(pns(&out.acked), [1]);
    assert_eq!(out.rtt_sample, None);
    assert!(!r.rtt().has_sample());
    // A non-ack-eliciting largest with an ack-eliciting packet below it gives a sample (§5.1),
    // measured from the largest.
    send(&mut r, 200 * MS, 2);
    r.on_packet_sent(210 * MS, 3, 50, false, false, 3);
    assert_eq!(ack(&mut r, 300 * MS, &[(2, 3)], 0).rtt_sample, Some(90 * MS));
}

#[test]
fn ack_delay_is_subtracted_from_a_sample_that_stays_above_min_rtt() {
    let mut r = recovery();
    send(&mut r, 0, 1);
    ack(&mut r, 90 * MS, &[(1, 1)], 0); // min_rtt 90
    send(&mut r, 200 * MS, 2);
    ack(&mut r, 320 * MS, &[(2, 2)], 20 * MS); // 120 − 20 = 100
    assert_eq!(r.rtt().latest_rtt(), 120 * MS);
    assert_eq!(r.rtt().smoothed_rtt(), 91_250_000, "7/8·90 + 1/8·100");
    assert_eq!(r.rtt().rttvar(), 36_250_000, "3/4·45 + 1/4·10");
}

#[test]
fn ack_delay_is_not_subtracted_when_the_sample_would_fall_below_min_rtt() {
    let mut r = recovery();
    send(&mut r, 0, 1);
    ack(&mut r, 110 * MS, &[(1, 1)], 0); // min_rtt 110
    send(&mut r, 200 * MS, 2);
    ack(&mut r, 320 * MS, &[(2, 2)], 20 * MS); // 120 < 110 + 20: use 120
    assert_eq!(r.rtt().smoothed_rtt(), 111_250_000, "7/8·110 + 1/8·120");
}

#[test]
fn ack_delay_above_max_ack_delay_is_capped_once_the_handshake_is_confirmed() {
    for (confirmed, srtt) in [(true, 59_375_000), (false, 50 * MS)] {
        let mut r = LossRecovery::new(RecoveryConfig { handshake_confirmed: confirmed, ..RecoveryConfig::default() });
        send(&mut r, 0, 1);
        ack(&mut r, 50 * MS, &[(1, 1)], 0);
        send(&mut r, 100 * MS, 2);
        // Sample 150 ms with a reported delay of 100 ms (min_rtt 50). Capped to 25: 150 ≥ 75,
        // adjusted 125, srtt = 7/8·50 + 1/8·125 = 59.375. Uncapped: 150 ≥ 150, adjusted 50.
        ack(&mut r, 250 * MS, &[(2, 2)], 100 * MS);
        assert_eq!(r.rtt().smoothed_rtt(), srtt, "handshake confirmed: {confirmed}");
    }
}

// ---------------------------------------------------------------- PTO (§6.2)

#[test]
fn pto_before_any_rtt_sample_uses_the_initial_rtt() {
    let mut r = recovery();
    send(&mut r, 0, 1);
    // 333 + max(4 · 166.5, 1) + 25 ms.
    assert_eq!(r.loss_detection_timer(), Some((1024 * MS, TimerKind::Pto)));
}

#[test]
fn pto_fires_at_srtt_plus_four_rttvar_plus_max_ack_delay_and_doubles() {
    let mut r = warmed_up();
    send(&mut r, 200 * MS, 1);
    // 200 + 100 + 4·50 + 25 = 525 ms.
    assert_eq!(r.loss_detection_timer(), Some((525 * MS, TimerKind::Pto)));
    assert_eq!(timeout(&mut r, 524 * MS).0, Timeout::NotDue);
    let (t, out) = timeout(&mut r, 525 * MS);
    assert_eq!(t, Timeout::Probe(2));
    assert!(out.lost.is_empty(), "a PTO declares nothing lost");
    assert_eq!(r.pto_count(), 1);
    assert_eq!(r.bytes_in_flight(), SIZE as u64);
    // Backed off: measured from the last ack-eliciting packet, twice the period.
    assert_eq!(r.loss_detection_deadline(), Some(200 * MS + 650 * MS));
    // The probe re-arms the timer from its own send time.
    send(&mut r, 525 * MS, 2);
    assert_eq!(r.loss_detection_deadline(), Some(525 * MS + 650 * MS));
    assert_eq!(timeout(&mut r, 1175 * MS).0, Timeout::Probe(2));
    assert_eq!(r.pto_count(), 2);
    send(&mut r, 1175 * MS, 3);
    assert_eq!(r.loss_detection_deadline(), Some(1175 * MS + 1300 * MS));
}

#[test]
fn an_ack_resets_the_pto_backoff() {
    let mut r = warmed_up();
    send(&mut r, 200 * MS, 1);
    timeout(&mut r, 525 * MS);
    timeout(&mut r, 850 * MS);
    assert_eq!(r.pto_count(), 2);
    send(&mut r, 850 * MS, 2);
    send(&mut r, 850 * MS, 3);
    let out = ack(&mut r, 950 * MS, &[(2, 2)], 0);
    assert_eq!(out.rtt_sample, Some(100 * MS));
    assert_eq!(r.pto_count(), 0);
    // Packet 1 (750 ms old) is lost by the time threshold; 3 is in flight with the base PTO.
    assert_eq!(pns(&out.lost), [1]);
    let base = r.rtt().pto_base(MAD);
    assert_eq!(r.loss_detection_timer(), Some((850 * MS + base, TimerKind::Pto)));
}

#[test]
fn an_ack_that_acknowledges_nothing_new_keeps_the_backoff() {
    let mut r = warmed_up();
    send(&mut r, 200 * MS, 1);
    timeout(&mut r, 525 * MS);
    let out = ack(&mut r, 600 * MS, &[(0, 0)], 0);
    assert!(out.acked.is_empty());
    assert_eq!(r.pto_count(), 1);
}

#[test]
fn no_timer_without_ack_eliciting_packets_in_flight() {
    let mut r = recovery();
    r.on_packet_sent(0, 1, 50, false, false, 1);
    assert_eq!(r.loss_detection_timer(), None);
    assert_eq!(r.bytes_in_flight(), 0);
    assert_eq!(timeout(&mut r, 10 * 1000 * MS).0, Timeout::NotDue);
}

#[test]
fn pto_probe_count_follows_the_config() {
    let mut r = LossRecovery::new(RecoveryConfig { pto_probe_packets: 1, ..RecoveryConfig::default() });
    send(&mut r, 0, 1);
    assert_eq!(timeout(&mut r, 1024 * MS).0, Timeout::Probe(1));
}

// ---------------------------------------------------------------- persistent congestion (§7.6)

/// After `warmed_up`, packets sent at `t1` (pn 1) and `t2` (pn 2), then 3, 4, 5 at `t2`, and an
/// ACK of `acked` at t2 + 100 ms: latest_rtt 100 ms, rttvar 37.5 ms, so the persistent congestion
/// duration is (100 + 150 + 25) · 3 = 825 ms.
fn two_losses(t1: Time, t2: Time, extra_acked: Option<u64>) -> RecoveryOutcome<u64> {
    let mut r = warmed_up();
    send(&mut r, t1, 1);
    if let Some(pn) = extra_acked {
        send(&mut r, (t1 + t2) / 2, pn);
    }
    let base = if extra_acked.is_some() { 3 } else { 2 };
    for pn in base..base + 4 {
        send(&mut r, t2, pn);
    }
    let largest = base + 3;
    let mut ranges = vec![(largest, largest)];
    if let Some(pn) = extra_acked {
        ranges.push((pn, pn));
    }
    let out = ack(&mut r, t2 + 100 * MS, &ranges, 0);
    assert_eq!(r.rtt().smoothed_rtt(), 100 * MS);
    assert_eq!(r.rtt().rttvar(), 37_500_000);
    out
}

#[test]
fn persistent_congestion_is_declared_for_losses_further_apart_than_three_ptos() {
    let out = two_losses(200 * MS, 1100 * MS, None); // 900 ms > 825 ms
    assert_eq!(pns(&out.lost), [1, 2]);
    assert!(out.persistent_congestion);
}

#[test]
fn persistent_congestion_is_not_declared_for_a_shorter_gap() {
    let out = two_losses(200 * MS, 1000 * MS, None); // 800 ms < 825 ms
    assert_eq!(pns(&out.lost), [1, 2]);
    assert!(!out.persistent_congestion);
}

#[test]
fn persistent_congestion_is_not_declared_when_a_packet_between_was_acked() {
    let out = two_losses(200 * MS, 1100 * MS, Some(2));
    assert_eq!(pns(&out.acked), [2, 6]);
    assert_eq!(pns(&out.lost), [1, 3]);
    assert!(!out.persistent_congestion);
}

#[test]
fn persistent_congestion_ignores_packets_sent_before_the_first_rtt_sample() {
    let mut r = recovery();
    send(&mut r, 0, 1);
    for pn in 2..=5 {
        send(&mut r, 1100 * MS, pn);
    }
    let out = ack(&mut r, 1200 * MS, &[(5, 5)], 0);
    assert_eq!(pns(&out.lost), [1, 2]);
    assert!(!out.persistent_congestion);
}

#[test]
fn persistent_congestion_resets_min_rtt_to_the_latest_sample() {
    let mut r = warmed_up();
    send(&mut r, 200 * MS, 1);
    for pn in 2..=5 {
        send(&mut r, 2300 * MS, pn);
    }
    // latest_rtt 300 ms: srtt 125, rttvar 3/4·50 + 1/4·200 = 87.5, duration (125 + 350 + 25)·3 =
    // 1500 ms < 2100 ms.
    let out = ack(&mut r, 2600 * MS, &[(5, 5)], 0);
    assert!(out.persistent_congestion);
    assert_eq!(r.rtt().min_rtt(), 300 * MS);
}

#[test]
fn persistent_congestion_needs_ack_eliciting_losses() {
    let mut r = warmed_up();
    r.on_packet_sent(200 * MS, 1, SIZE, false, true, 1); // PADDING only: in flight, not eliciting
    for pn in 2..=5 {
        send(&mut r, 1300 * MS, pn);
    }
    let out = ack(&mut r, 1400 * MS, &[(5, 5)], 0);
    assert_eq!(pns(&out.lost), [1, 2]);
    assert!(!out.persistent_congestion);
}

// ---------------------------------------------------------------- invalid input, bookkeeping

#[test]
fn invalid_ack_frames_are_rejected_without_changing_state() {
    let mut r = recovery();
    send(&mut r, 0, 1);
    send(&mut r, 0, 2);
    let mut out = RecoveryOutcome::new();
    assert_eq!(r.on_ack_received(MS, &[], 0, &mut out), Err(AckError::Empty));
    assert_eq!(r.on_ack_received(MS, &[(3, 3)], 0, &mut out), Err(AckError::UnsentPacket(3)));
    assert_eq!(r.on_ack_received(MS, &[(2, 1)], 0, &mut out), Err(AckError::Malformed));
    assert_eq!(r.on_ack_received(MS, &[(1, 1), (2, 2)], 0, &mut out), Err(AckError::Malformed));
    assert_eq!(r.bytes_in_flight(), 2 * SIZE as u64);
    assert_eq!(r.largest_acked(), None);
    assert!(!r.rtt().has_sample());
}

#[test]
fn bytes_in_flight_counts_only_in_flight_packets() {
    let mut r = recovery();
    send(&mut r, 0, 1);
    r.on_packet_sent(0, 2, 40, false, false, 2);
    r.on_packet_sent(0, 4, 700, false, true, 4); // skipped number 3
    assert_eq!(r.bytes_in_flight(), SIZE as u64 + 700);
    assert_eq!(r.ack_eliciting_in_flight(), 1);
    let out = ack(&mut r, 50 * MS, &[(4, 4), (1, 2)], 0);
    assert_eq!(pns(&out.acked), [1, 2, 4]);
    assert_eq!(out.bytes_acked, SIZE as u64 + 700);
    assert_eq!(r.bytes_in_flight(), 0);
    assert_eq!(r.acked_total(), SIZE as u64 + 700);
}

#[test]
fn discarding_a_path_returns_its_outstanding_packets_without_losses() {
    let mut r = recovery();
    for pn in 0..4 {
        send(&mut r, 0, pn);
    }
    ack(&mut r, 100 * MS, &[(1, 1)], 0);
    let mut frames = Vec::new();
    r.discard(&mut frames);
    assert_eq!(pns(&frames), [0, 2, 3]);
    assert_eq!(r.bytes_in_flight(), 0);
    assert_eq!(r.lost_total(), 0);
    assert_eq!(r.loss_detection_timer(), None);
}

// ---------------------------------------------------------------- receiver (RFC 9000 §13.2)

fn frame(a: &AckManager, now: Time) -> AckFrame {
    let mut f = AckFrame::default();
    a.ack_frame(now, &mut f);
    f
}

#[test]
fn receiver_acks_every_second_ack_eliciting_packet() {
    let mut a = AckManager::default();
    assert_eq!(a.on_packet_received(0, 0, true), Received::New);
    assert_eq!(a.deadline(), Some(MAD));
    a.on_packet_received(3 * MS, 1, true);
    assert_eq!(a.deadline(), Some(3 * MS), "second ack-eliciting packet: ACK now");
    let f = frame(&a, 3 * MS);
    assert_eq!(f.ranges[..], [(0, 1)]);
    assert_eq!(f.ack_delay, 0);
    a.on_ack_sent();
    assert_eq!(a.deadline(), None);
    a.on_packet_received(4 * MS, 2, true);
    assert_eq!(a.deadline(), Some(4 * MS + MAD), "the count restarts after an ACK");
}

#[test]
fn receiver_acks_a_lone_packet_after_max_ack_delay() {
    let mut a = AckManager::default();
    a.on_packet_received(10 * MS, 0, true);
    assert_eq!(a.deadline(), Some(35 * MS));
    let f = frame(&a, 35 * MS);
    assert_eq!((f.ranges.as_slice(), f.ack_delay), (&[(0, 0)][..], 25 * MS));
}

#[test]
fn receiver_never_makes_an_ack_due_for_non_ack_eliciting_packets() {
    let mut a = AckManager::default();
    a.on_packet_received(0, 0, false);
    a.on_packet_received(MS, 1, false);
    a.on_packet_received(2 * MS, 5, false);
    assert_eq!(a.deadline(), None);
    assert!(a.has_new());
    assert_eq!(frame(&a, 3 * MS).ranges[..], [(5, 5), (0, 1)], "but they are acknowledged when an ACK goes out");
}

#[test]
fn receiver_acks_at_once_a_packet_above_a_gap_and_one_below_the_largest() {
    let cfg = AckConfig { ack_eliciting_threshold: 10, ..AckConfig::default() };
    let mut a = AckManager::new(cfg);
    a.on_packet_received(0, 0, true);
    assert_eq!(a.deadline(), Some(MAD));
    a.on_packet_received(MS, 2, true); // packet 1 missing
    assert_eq!(a.deadline(), Some(MS));
    a.on_ack_sent();
    a.on_packet_received(2 * MS, 1, true); // below the largest ack-eliciting (2)
    assert_eq!(a.deadline(), Some(2 * MS));
    a.on_ack_sent();
    // A non-ack-eliciting packet fills the space: 3 then 4 arrive in order, no immediate ACK.
    a.on_packet_received(3 * MS, 3, false);
    a.on_packet_received(4 * MS, 4, true);
    assert_eq!(a.deadline(), Some(4 * MS + MAD));
    assert_eq!(a.ranges(), [(0, 4)]);
}

#[test]
fn receiver_does_not_treat_a_gap_before_the_first_ack_eliciting_packet_as_reordering() {
    let mut a = AckManager::default();
    a.on_packet_received(0, 3, true);
    assert_eq!(a.deadline(), Some(MAD));
}

#[test]
fn receiver_reports_ranges_largest_first_after_gaps_and_limits_their_number() {
    let mut a = AckManager::new(AckConfig { max_ack_ranges: 2, ..AckConfig::default() });
    for pn in [0, 1, 2, 5, 6, 9] {
        a.on_packet_received(pn * MS, pn, true);
    }
    assert_eq!(a.ranges(), [(0, 2), (5, 6), (9, 9)]);
    let f = frame(&a, 12 * MS);
    assert_eq!(f.ranges[..], [(9, 9), (5, 6)]);
    assert_eq!(f.ack_delay, 3 * MS, "since the largest (9) arrived");
    // Filling the holes merges the ranges.
    for pn in [4, 3, 8, 7] {
        a.on_packet_received(20 * MS, pn, true);
    }
    assert_eq!(a.ranges(), [(0, 9)]);
    // ACK Delay stays measured from the largest packet number, not the latest arrival.
    assert_eq!(frame(&a, 20 * MS).ack_delay, 11 * MS);
}

#[test]
fn receiver_stops_reporting_packets_below_an_acknowledged_ack_frame() {
    // RFC 9000 §13.2.4: once a packet carrying an ACK frame is acknowledged, packets at or
    // below that frame's Largest Acknowledged need not be acknowledged again.
    let mut a = AckManager::default();
    for pn in [0, 1, 2, 4, 5, 6, 8, 9, 10] {
        a.on_packet_received(0, pn, true);
    }
    assert_eq!(frame(&a, 0).ranges[..], [(8, 10), (4, 6), (0, 2)]);
    a.on_ack_frame_acked(5);
    assert_eq!(frame(&a, 0).ranges[..], [(8, 10), (6, 6)], "a range across the floor is cut");
    a.on_ack_frame_acked(3);
    assert_eq!(frame(&a, 0).ranges[..], [(8, 10), (6, 6)], "an older ACK of an ACK changes nothing");
    a.on_ack_frame_acked(10);
    assert_eq!(frame(&a, 0).ranges[..], [(8, 10)], "the largest range is always reported");
    assert_eq!(a.on_packet_received(0, 1, true), Received::Duplicate, "old ranges still catch duplicates");
    a.on_packet_received(0, 12, true);
    assert_eq!(frame(&a, 0).ranges[..], [(12, 12)]);
}

#[test]
fn receiver_detects_duplicates_and_ignores_them() {
    let mut a = AckManager::default();
    a.on_packet_received(0, 5, true);
    assert_eq!(a.on_packet_received(MS, 5, true), Received::Duplicate);
    assert_eq!(a.deadline(), Some(MAD), "a duplicate does not count towards the ACK threshold");
    assert_eq!(a.ranges(), [(5, 5)]);
}

#[test]
fn receiver_refuses_packets_below_the_oldest_tracked_range() {
    let mut a = AckManager::new(AckConfig { max_tracked_ranges: 2, ..AckConfig::default() });
    for pn in [0, 2, 4] {
        a.on_packet_received(0, pn, false);
    }
    // (0, 0) was dropped: 0 is refused from now on, 1 (never received) is still accepted.
    assert_eq!(a.ranges(), [(2, 2), (4, 4)]);
    assert_eq!(a.on_packet_received(0, 0, true), Received::Duplicate);
    assert_eq!(a.on_packet_received(0, 1, true), Received::New);
    assert_eq!(a.ranges(), [(1, 2), (4, 4)]);
}

// ---------------------------------------------------------------- sender and receiver together

#[test]
fn lossless_exchange_acks_every_packet_with_an_ack_per_two_packets() {
    // One packet every 10 ms, one-way delay 50 ms, ACKs delivered after 50 ms.
    let mut r = recovery();
    let mut a = AckManager::default();
    let mut acks_in_flight: Vec<(Time, AckFrame)> = Vec::new();
    let mut acks_sent = 0;
    let mut f = AckFrame::default();
    for pn in 0..100u64 {
        let t = pn * 10 * MS;
        for (at, fr) in std::mem::take(&mut acks_in_flight) {
            if at <= t {
                let out = ack(&mut r, at, &fr.ranges, fr.ack_delay);
                assert!(out.lost.is_empty());
            } else {
                acks_in_flight.push((at, fr));
            }
        }
        send(&mut r, t, pn);
        a.on_packet_received(t + 50 * MS, pn, true);
        if a.deadline().is_some_and(|d| d <= t + 50 * MS) {
            a.ack_frame(t + 50 * MS, &mut f);
            a.on_ack_sent();
            acks_sent += 1;
            acks_in_flight.push((t + 100 * MS, f.clone()));
        }
    }
    for (at, fr) in acks_in_flight {
        ack(&mut r, at, &fr.ranges, fr.ack_delay);
    }
    assert_eq!(acks_sent, 50);
    assert_eq!(r.bytes_in_flight(), 0);
    assert_eq!(r.acked_total(), 100 * SIZE as u64);
    assert_eq!(r.lost_total(), 0);
    // Every sample is from the second packet of a pair, acked without delay: exactly 100 ms.
    assert_eq!(r.rtt().smoothed_rtt(), 100 * MS);
    assert_eq!(r.rtt().min_rtt(), 100 * MS);
}

// ---------------------------------------------------------------- fuzz

/// The model of what was sent: pn → (size, ack-eliciting, in flight), the packets still
/// outstanding and the verdicts given.
#[derive(Default)]
struct Model {
    sent: BTreeMap<u64, (u32, bool, bool)>,
    outstanding: BTreeMap<u64, (u32, bool, bool)>,
    acked: BTreeSet<u64>,
    lost: BTreeSet<u64>,
}

impl Model {
    fn on_sent(&mut self, pn: u64, v: (u32, bool, bool)) {
        self.sent.insert(pn, v);
        self.outstanding.insert(pn, v);
    }

    fn check(&mut self, r: &LossRecovery<u64>, out: &RecoveryOutcome<u64>, now: Time, ranges: &[(u64, u64)]) {
        for p in &out.acked {
            let &(size, eliciting, in_flight) = self.sent.get(&p.pn).expect("acked packet was sent");
            assert_eq!((p.size, p.ack_eliciting, p.in_flight, p.frames), (size, eliciting, in_flight, p.pn));
            assert!(ranges.iter().any(|&(lo, hi)| lo <= p.pn && p.pn <= hi), "acked {} outside the ranges", p.pn);
            assert!(!self.lost.contains(&p.pn), "packet {} acked after being declared lost", p.pn);
            assert!(self.acked.insert(p.pn), "packet {} acked twice", p.pn);
            self.outstanding.remove(&p.pn);
        }
        for p in &out.lost {
            let &(size, _, _) = self.sent.get(&p.pn).expect("lost packet was sent");
            assert_eq!((p.size, p.frames), (size, p.pn));
            assert!(r.largest_acked().is_some_and(|l| p.pn <= l), "lost packet {} above the largest acked", p.pn);
            assert!(!self.acked.contains(&p.pn), "packet {} declared lost after being acked", p.pn);
            assert!(self.lost.insert(p.pn), "packet {} declared lost twice", p.pn);
            self.outstanding.remove(&p.pn);
        }
        let in_flight: u64 = self.outstanding.iter().filter(|(_, v)| v.2).map(|(_, v)| v.0 as u64).sum();
        assert_eq!(r.bytes_in_flight(), in_flight, "bytes_in_flight");
        let eliciting = self.outstanding.iter().filter(|(_, v)| v.1 && v.2).count();
        assert_eq!(r.ack_eliciting_in_flight(), eliciting);
        if let Some(t) = r.loss_time() {
            assert!(t > now, "loss time {t} not after now {now}");
        }
        if r.ack_eliciting_in_flight() == 0 {
            assert_eq!(r.pto_deadline(), None);
        }
    }
}

/// Random sends (skipped numbers, non-ack-eliciting and padding-only packets), ACK frames with
/// random ranges and delays (some naming unsent packets), and timers fired when due or early.
/// Returns how often each path was taken: [acked, lost on ACK, lost on timer, probes,
/// persistent congestion, rejected ACKs].
fn fuzz_recovery(seed: u64, steps: usize) -> [u64; 6] {
    let mut seen = [0u64; 6];
    let mut rng = RngStream::new(seed, StreamId::new(0x9002, 0));
    let mut r = recovery();
    let mut m = Model::default();
    let mut out = RecoveryOutcome::new();
    let mut now: Time = 0;
    // Time of the last event processed: timers that fell due earlier fire now (never back in time).
    let mut last: Time = 0;
    let mut next_pn: u64 = 0;
    let rand = |rng: &mut RngStream, n: u64| rng.next_u64() % n;
    for _ in 0..steps {
        // Mostly short steps, sometimes a silence of up to 3 s (PTOs, persistent congestion).
        now += if rand(&mut rng, 40) == 0 { rand(&mut rng, 3000 * MS) } else { rand(&mut rng, 30 * MS) };
        // Fire every timer that fell due before this step, as an event loop would.
        while let Some(d) = r.loss_detection_deadline() {
            if d > now {
                break;
            }
            let at = d.max(last);
            last = at;
            let t = r.on_loss_detection_timeout(at, &mut out);
            assert_ne!(t, Timeout::NotDue);
            m.check(&r, &out, at, &[]);
            match t {
                Timeout::Lost => {
                    assert!(!out.lost.is_empty());
                    seen[2] += 1;
                }
                Timeout::Probe(_) => {
                    seen[3] += 1;
                    // Send one probe, as the transport would.
                    next_pn += 1;
                    r.on_packet_sent(at, next_pn - 1, 1200, true, true, next_pn - 1);
                    m.on_sent(next_pn - 1, (1200, true, true));
                }
                Timeout::NotDue => {}
            }
            if r.pto_count() > 20 {
                break;
            }
        }
        last = now;
        match rand(&mut rng, 10) {
            0..=4 => {
                next_pn += if rand(&mut rng, 20) == 0 { 2 } else { 1 };
                let pn = next_pn - 1;
                let size = 40 + rand(&mut rng, 1460) as u32;
                let eliciting = rand(&mut rng, 10) != 0;
                let in_flight = eliciting || rand(&mut rng, 2) == 0;
                r.on_packet_sent(now, pn, size, eliciting, in_flight, pn);
                m.on_sent(pn, (size, eliciting, in_flight));
                m.check(&r, &RecoveryOutcome::new(), now, &[]);
            }
            5..=8 => {
                if next_pn == 0 {
                    continue;
                }
                // Descending disjoint ranges below a random largest (sometimes one never sent).
                let mut hi = rand(&mut rng, next_pn + 1);
                let mut ranges = Vec::new();
                loop {
                    let lo = hi.saturating_sub(rand(&mut rng, 6));
                    ranges.push((lo, hi));
                    let gap = 2 + rand(&mut rng, 4);
                    if lo < gap || rand(&mut rng, 3) == 0 {
                        break;
                    }
                    hi = lo - gap;
                }
                let delay = rand(&mut rng, 40 * MS);
                let before = (r.bytes_in_flight(), r.largest_acked());
                match r.on_ack_received(now, &ranges, delay, &mut out) {
                    Ok(()) => {
                        m.check(&r, &out, now, &ranges);
                        seen[0] += out.acked.len() as u64;
                        seen[1] += out.lost.len() as u64;
                        seen[4] += out.persistent_congestion as u64;
                        if !out.acked.is_empty() {
                            assert_eq!(r.pto_count(), 0);
                        }
                    }
                    Err(e) => {
                        seen[5] += 1;
                        assert_eq!(e, AckError::UnsentPacket(ranges[0].1));
                        assert!(r.largest_sent().is_none_or(|s| ranges[0].1 > s));
                        assert_eq!((r.bytes_in_flight(), r.largest_acked()), before);
                    }
                }
            }
            _ => {
                // A stale or early timer event.
                let t = r.on_loss_detection_timeout(now, &mut out);
                if r.loss_detection_deadline().is_some_and(|d| d > now) && t == Timeout::NotDue {
                    assert!(out.lost.is_empty());
                }
                m.check(&r, &out, now, &[]);
            }
        }
    }
    seen
}

#[test]
fn fuzz_recovery_keeps_its_invariants() {
    let mut seen = [0u64; 6];
    for seed in 0..64 {
        for (s, n) in seen.iter_mut().zip(fuzz_recovery(seed, 3000)) {
            *s += n;
        }
    }
    // Every path was exercised.
    assert!(seen.iter().all(|&n| n > 0), "acked, lost on ACK, lost on timer, probes, persistent congestion, rejected: {seen:?}");
}

/// Random receptions with duplicates and reordering against a set model.
#[test]
fn fuzz_receiver_ranges_match_the_received_set() {
    for seed in 0..64 {
        let mut rng = RngStream::new(seed, StreamId::new(0x9000, 1));
        // Enough tracked ranges that none is dropped (dropping has its own test).
        let mut a = AckManager::new(AckConfig { max_ack_ranges: 8, max_tracked_ranges: 1 << 20, ..AckConfig::default() });
        let mut model = BTreeSet::new();
        let mut now = 0;
        let mut f = AckFrame::default();
        for i in 0..2000u64 {
            now += rng.next_u64() % (5 * MS);
            let pn = (i + rng.next_u64() % 8).saturating_sub(4);
            let eliciting = !rng.next_u64().is_multiple_of(4);
            let before = a.deadline();
            let got = a.on_packet_received(now, pn, eliciting);
            assert_eq!(got == Received::New, model.insert(pn), "pn {pn}");
            if got == Received::Duplicate {
                assert_eq!(a.deadline(), before);
            }
            if eliciting && got == Received::New {
                let d = a.deadline().expect("an ack-eliciting packet makes an ACK due");
                assert!(d <= now + MAD);
            }
            // The ranges are exactly the model, merged (checked every 50 packets and at the end).
            if i % 50 == 0 || i == 1999 {
                let mut expect: Vec<(u64, u64)> = Vec::new();
                for &p in &model {
                    match expect.last_mut() {
                        Some(r) if r.1 + 1 == p => r.1 = p,
                        _ => expect.push((p, p)),
                    }
                }
                assert_eq!(a.ranges(), expect.as_slice());
            }
            if a.deadline().is_some_and(|d| d <= now) {
                assert!(a.ack_frame(now, &mut f));
                assert!(f.ranges.len() <= 8);
                assert!(f.ranges.windows(2).all(|w| w[1].1 + 1 < w[0].0), "descending, disjoint, gaps between");
                assert_eq!(f.largest(), model.last().copied());
                a.on_ack_sent();
            }
        }
    }
}
