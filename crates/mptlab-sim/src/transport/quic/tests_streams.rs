//! Scripted exchanges against RFC 9000 §2–§4 (streams, final size, flow control), then a
//! model-based fuzz of `SendStreams` and `RecvStreams` over a lossy, reordering, duplicating
//! network driven by a seeded `RngStream`.
//!
//! Frames carry no payload: a byte is identified by (stream, offset), so "delivered exactly once
//! in order" means each stream's delivered prefix grows by exactly the bytes `on_frame` reports
//! and ends at the final size.

use super::*;
use mptlab_engine::{RngStream, StreamId};
use std::collections::BTreeMap;

const A: u64 = 0;
const B: u64 = 4;
const C: u64 = 8;

fn frame(stream: u64, offset: u64, len: u64, fin: bool) -> StreamFrame {
    StreamFrame { stream, offset, len, fin }
}

fn recv(max_data: u64, max_stream_data: u64) -> RecvStreams {
    RecvStreams::new(RecvConfig { max_data, max_stream_data, auto_read: true })
}

fn drain(s: &mut SendStreams, max_len: u64) -> Vec<StreamFrame> {
    std::iter::from_fn(|| s.next_chunk(max_len)).collect()
}

// ---------------------------------------------------------------------------------------------
// RangeSet

#[test]
fn range_set_merges_touching_ranges_and_splits_on_removal() {
    let mut r = RangeSet::new();
    r.insert(10, 20);
    r.insert(30, 40);
    r.insert(20, 30);
    assert_eq!(r.ranges(), &[(10, 40)]);
    r.remove(15, 25);
    assert_eq!(r.ranges(), &[(10, 15), (25, 40)]);
    r.insert(0, 5);
    r.remove(3, 38);
    assert_eq!(r.ranges(), &[(0, 3), (38, 40)]);
    assert!(r.covers(0, 3) && !r.covers(2, 4) && r.covers(7, 7));
    assert_eq!(r.bytes(), 5);
}

proptest::proptest! {
    /// Any sequence of inserts, removals and front pops leaves the ranges sorted, disjoint,
    /// non-adjacent, equal to a byte-by-byte model, and the cached total equal to the model's size.
    #[test]
    fn range_set_matches_a_byte_model(ops in proptest::collection::vec((0u8..5, 0u64..200, 0u64..40), 1..120)) {
        let mut r = RangeSet::new();
        let mut model = std::collections::BTreeSet::new();
        for (op, s, len) in ops {
            match op {
                0 | 1 => {
                    r.insert(s, s + len);
                    model.extend(s..s + len);
                }
                2 | 3 => {
                    r.remove(s, s + len);
                    for b in s..s + len {
                        model.remove(&b);
                    }
                }
                _ => {
                    // The model's runs of consecutive bytes, from the front, while they start at
                    // or before the point reached so far.
                    let mut hi = s;
                    while let Some(&a) = model.first() {
                        if a > hi {
                            break;
                        }
                        let mut b = a;
                        while model.remove(&b) {
                            b += 1;
                        }
                        hi = hi.max(b);
                    }
                    proptest::prop_assert_eq!(r.pop_front_through(s), hi);
                }
            }
            let bytes: Vec<u64> = r.ranges().iter().flat_map(|&(a, b)| a..b).collect();
            proptest::prop_assert_eq!(&bytes, &model.iter().copied().collect::<Vec<_>>());
            proptest::prop_assert!(r.ranges().windows(2).all(|w| w[0].1 < w[1].0));
            proptest::prop_assert_eq!(r.bytes(), model.len() as u64);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Receive side: reassembly per stream

#[test]
fn loss_on_stream_a_does_not_delay_in_order_delivery_on_stream_b() {
    let mut r = recv(1 << 20, 1 << 16);
    // A's first frame is lost; its second arrives and waits.
    assert_eq!(r.on_frame(&frame(A, 1000, 1000, false)), Ok(0));
    // B's frames are delivered at once, in order, while A has a hole.
    assert_eq!(r.on_frame(&frame(B, 0, 1000, false)), Ok(1000));
    assert_eq!(r.on_frame(&frame(B, 1000, 500, true)), Ok(500));
    assert!(r.stream(B).unwrap().is_complete());
    assert_eq!(r.stream(A).unwrap().delivered(), 0);
    // A's retransmission fills the hole and releases both frames.
    assert_eq!(r.on_frame(&frame(A, 0, 1000, false)), Ok(2000));
    assert_eq!(r.stream(A).unwrap().delivered(), 2000);
    assert!(r.stream(A).unwrap().out_of_order().is_empty());
}

#[test]
fn duplicate_and_overlapping_frames_deliver_each_byte_once() {
    let mut r = recv(1 << 20, 1 << 16);
    assert_eq!(r.on_frame(&frame(A, 200, 100, false)), Ok(0));
    assert_eq!(r.on_frame(&frame(A, 400, 100, false)), Ok(0));
    assert_eq!(r.on_frame(&frame(A, 250, 50, false)), Ok(0)); // inside a held range
    assert_eq!(r.stats.duplicate_frames, 1);
    // [0, 450) overlaps both held ranges: delivered up to 500, each byte once.
    assert_eq!(r.on_frame(&frame(A, 0, 450, false)), Ok(500));
    assert_eq!(r.on_frame(&frame(A, 100, 300, false)), Ok(0));
    assert_eq!(r.on_frame(&frame(A, 450, 100, false)), Ok(50));
    assert_eq!(r.stats.bytes_delivered, 550);
    assert_eq!(r.stats.duplicate_frames, 2);
}

#[test]
fn stream_is_complete_at_the_final_size_whatever_the_arrival_order() {
    let mut r = recv(1 << 20, 1 << 16);
    assert_eq!(r.on_frame(&frame(A, 500, 0, true)), Ok(0)); // FIN alone, first
    assert_eq!(r.stream(A).unwrap().final_size(), Some(500));
    assert_eq!(r.on_frame(&frame(A, 250, 250, false)), Ok(0));
    assert!(!r.stream(A).unwrap().is_complete());
    assert_eq!(r.on_frame(&frame(A, 0, 250, false)), Ok(500));
    assert!(r.stream(A).unwrap().is_complete());
    // A repeated FIN with the same final size is fine.
    assert_eq!(r.on_frame(&frame(A, 400, 100, true)), Ok(0));
}

#[test]
fn final_size_changes_and_data_beyond_it_are_final_size_errors() {
    let mut r = recv(1 << 20, 1 << 16);
    r.on_frame(&frame(A, 0, 100, true)).unwrap();
    let e = r.on_frame(&frame(A, 100, 20, false)).unwrap_err();
    assert_eq!(e, StreamError::FinalSize { stream: A, final_size: 100, end: 120 });
    assert_eq!(e.code(), FINAL_SIZE_ERROR);
    assert!(matches!(r.on_frame(&frame(A, 50, 40, true)), Err(StreamError::FinalSize { final_size: 100, end: 90, .. })));
    // A FIN below data already received.
    r.on_frame(&frame(B, 0, 300, false)).unwrap();
    assert!(matches!(r.on_frame(&frame(B, 0, 200, true)), Err(StreamError::FinalSize { stream: B, final_size: 200, end: 300 })));
    // Nothing changed on B.
    assert_eq!(r.stream(B).unwrap().final_size(), None);
}

// ---------------------------------------------------------------------------------------------
// Send side: retransmission, acks, FIN

#[test]
fn retransmission_of_a_lost_range_goes_before_new_data() {
    let mut s = SendStreams::new(1 << 20, 1 << 20);
    s.write(A, 3000);
    let f: Vec<_> = (0..2).map(|_| s.next_chunk(1000).unwrap()).collect();
    assert_eq!(f, [frame(A, 0, 1000, false), frame(A, 1000, 1000, false)]);
    s.on_lost(&f[0]);
    assert!(s.has_retransmissions());
    // The lost range first, split to max_len, then new data from where it stopped.
    assert_eq!(s.next_chunk(600), Some(frame(A, 0, 600, false)));
    assert_eq!(s.next_chunk(600), Some(frame(A, 600, 400, false)));
    assert_eq!(s.next_chunk(600), Some(frame(A, 2000, 600, false)));
    assert_eq!(s.stats.retransmitted_bytes, 1000);
}

#[test]
fn retransmission_of_one_stream_goes_before_new_data_of_another() {
    let mut s = SendStreams::new(1 << 20, 1 << 20);
    s.write(A, 1000);
    s.write(B, 5000);
    let a = s.next_chunk(1000).unwrap();
    assert_eq!(a.stream, A);
    s.on_lost(&a);
    assert_eq!(s.next_chunk(1000), Some(a));
}

#[test]
fn acked_ranges_are_never_resent() {
    let mut s = SendStreams::new(1 << 20, 1 << 20);
    s.write(A, 3000);
    let f = drain(&mut s, 1000);
    // Bytes [500, 1500) were acked through a retransmission in another packet; the original
    // [0, 1000) and [1000, 2000) packets are then declared lost: only the unacked parts return.
    s.on_acked(&frame(A, 500, 1000, false));
    s.on_lost(&f[0]);
    s.on_lost(&f[1]);
    assert_eq!(s.stream(A).unwrap().lost().ranges(), &[(0, 500), (1500, 2000)]);
    // An ack of a range already queued again (spurious loss) removes it from the queue.
    s.on_acked(&frame(A, 1500, 500, false));
    assert_eq!(drain(&mut s, 1000), [frame(A, 0, 500, false)]);
    // A loss declared after the ack resends nothing.
    s.on_lost(&frame(A, 1500, 500, false));
    assert_eq!(s.next_chunk(1000), None);
}

#[test]
fn fin_goes_with_the_last_chunk_and_stream_is_done_only_when_all_bytes_and_fin_are_acked() {
    let mut s = SendStreams::new(1 << 20, 1 << 20);
    s.write(A, 1500);
    s.finish(A);
    let f = drain(&mut s, 1000);
    assert_eq!(f, [frame(A, 0, 1000, false), frame(A, 1000, 500, true)]);
    s.on_acked(&f[1]);
    assert!(!s.is_done(A));
    s.on_acked(&f[0]);
    assert!(s.is_done(A) && s.all_done());
}

#[test]
fn fin_after_the_data_went_out_is_sent_alone_and_resent_alone_when_lost() {
    let mut s = SendStreams::new(1 << 20, 1 << 20);
    s.write(A, 800);
    let d = s.next_chunk(1000).unwrap();
    assert_eq!(d, frame(A, 0, 800, false));
    s.finish(A);
    let fin = s.next_chunk(1000).unwrap();
    assert_eq!(fin, frame(A, 800, 0, true));
    assert_eq!(s.next_chunk(1000), None);
    s.on_acked(&d);
    s.on_lost(&fin);
    assert_eq!(s.next_chunk(1000), Some(fin));
    s.on_acked(&fin);
    assert!(s.is_done(A));
}

#[test]
fn lost_fin_rides_on_the_retransmission_that_reaches_the_final_size() {
    let mut s = SendStreams::new(1 << 20, 1 << 20);
    s.write(A, 1500);
    s.finish(A);
    let f = drain(&mut s, 1000);
    s.on_lost(&f[1]);
    assert_eq!(drain(&mut s, 300), [frame(A, 1000, 300, false), frame(A, 1300, 200, true)]);
}

#[test]
fn streams_with_data_are_served_round_robin_one_frame_each() {
    let mut s = SendStreams::new(1 << 20, 1 << 20);
    s.write(B, 3000);
    s.write(A, 3000);
    s.write(C, 1000);
    let order: Vec<u64> = drain(&mut s, 1000).iter().map(|f| f.stream).collect();
    assert_eq!(order, [A, B, C, A, B, A, B]);
}

// ---------------------------------------------------------------------------------------------
// Flow control

#[test]
fn stream_credit_blocks_the_sender_at_exactly_the_limit_and_an_update_releases_it() {
    let mut s = SendStreams::new(1 << 20, 2500);
    s.write(A, 10_000);
    assert_eq!(drain(&mut s, 1000), [frame(A, 0, 1000, false), frame(A, 1000, 1000, false), frame(A, 2000, 500, false)]);
    assert_eq!(s.stream(A).unwrap().credit().used(), 2500);
    assert!(!s.can_send());
    // STREAM_DATA_BLOCKED at the limit, once.
    let mut blocked = Vec::new();
    s.take_stream_data_blocked(&mut blocked);
    assert_eq!(blocked, [(A, 2500)]);
    assert_eq!(s.next_chunk(1000), None);
    s.take_stream_data_blocked(&mut blocked);
    assert_eq!(blocked.len(), 1);
    // A smaller or equal MAX_STREAM_DATA is ignored; a larger one releases exactly its credit.
    assert!(!s.on_max_stream_data(A, 2000));
    assert!(s.on_max_stream_data(A, 3100));
    assert_eq!(drain(&mut s, 1000), [frame(A, 2500, 600, false)]);
    s.take_stream_data_blocked(&mut blocked);
    assert_eq!(blocked, [(A, 2500), (A, 3100)]);
}

#[test]
fn connection_credit_is_shared_by_all_streams_and_blocks_them_together() {
    let mut s = SendStreams::new(1500, 1 << 20);
    s.write(A, 1000);
    s.write(B, 1000);
    assert_eq!(drain(&mut s, 1000), [frame(A, 0, 1000, false), frame(B, 0, 500, false)]);
    assert_eq!(s.take_data_blocked(), Some(1500));
    assert_eq!(s.take_data_blocked(), None);
    // Retransmissions need no credit.
    s.on_lost(&frame(A, 0, 1000, false));
    assert_eq!(s.next_chunk(1000), Some(frame(A, 0, 1000, false)));
    assert_eq!(s.next_chunk(1000), None);
    s.on_max_data(2000);
    assert_eq!(drain(&mut s, 1000), [frame(B, 500, 500, false)]);
    assert_eq!(s.conn_credit().used(), 2000);
}

#[test]
fn receiver_issues_updates_at_the_half_window_point() {
    let mut r = RecvStreams::new(RecvConfig { max_data: 4000, max_stream_data: 2000, auto_read: false });
    let mut msd = Vec::new();
    r.on_frame(&frame(A, 0, 2000, false)).unwrap();
    // 999 bytes consumed: below half of either window, no update.
    assert_eq!(r.read(A, 999), 999);
    r.take_max_stream_data(&mut msd);
    assert!(msd.is_empty() && r.take_max_data().is_none());
    // The 1000th byte is half the stream window: MAX_STREAM_DATA = consumed + window.
    r.read(A, 1);
    r.take_max_stream_data(&mut msd);
    assert_eq!(msd, [(A, 3000)]);
    assert!(r.take_max_data().is_none());
    r.on_frame(&frame(B, 0, 1000, false)).unwrap();
    // 2000 of 4000 consumed on the connection: MAX_DATA = 2000 + 4000.
    r.read(B, 1000);
    assert_eq!(r.take_max_data(), Some(6000));
    msd.clear();
    r.take_max_stream_data(&mut msd);
    assert_eq!(msd, [(B, 3000)]);
    assert_eq!(r.take_max_data(), None);
    // A lost update is repeated while current, not once superseded.
    r.on_max_data_lost(6000);
    assert_eq!(r.take_max_data(), Some(6000));
    r.read(A, 1000);
    r.on_max_stream_data_lost(A, 3000);
    msd.clear();
    r.take_max_stream_data(&mut msd);
    assert_eq!(msd, [(A, 4000)]);
}

#[test]
fn data_beyond_the_stream_limit_is_a_flow_control_error_and_changes_nothing() {
    let mut r = RecvStreams::new(RecvConfig { max_data: 1 << 20, max_stream_data: 1000, auto_read: false });
    r.on_frame(&frame(A, 0, 1000, false)).unwrap();
    let e = r.on_frame(&frame(A, 900, 101, false)).unwrap_err();
    assert_eq!(e, StreamError::StreamFlowControl { stream: A, err: FlowControlError { limit: 1000, attempted: 1001 } });
    assert_eq!(e.code(), FLOW_CONTROL_ERROR);
    assert_eq!(r.stream(A).unwrap().highest(), 1000);
    assert_eq!(r.conn_window().received(), 1000);
}

#[test]
fn data_beyond_the_connection_limit_is_a_flow_control_error_counting_largest_offsets() {
    let mut r = RecvStreams::new(RecvConfig { max_data: 2500, max_stream_data: 2000, auto_read: false });
    r.on_frame(&frame(A, 1000, 1000, false)).unwrap(); // counts up to 2000, hole or not
    r.on_frame(&frame(A, 0, 1000, false)).unwrap(); // below the largest offset: counts nothing
    assert_eq!(r.conn_window().received(), 2000);
    r.on_frame(&frame(B, 0, 500, false)).unwrap(); // exactly at the limit
    let e = r.on_frame(&frame(B, 500, 1, false)).unwrap_err();
    assert_eq!(e, StreamError::ConnectionFlowControl { stream: B, err: FlowControlError { limit: 2500, attempted: 2501 } });
    assert_eq!(r.stream(B).unwrap().highest(), 500);
}

// ---------------------------------------------------------------------------------------------
// Model-based fuzz

struct Packet {
    id: u64,
    frames: Vec<StreamFrame>,
}

enum Control {
    MaxData(u64),
    MaxStreamData(u64, u64),
}

fn fuzz_one(seed: u64) {
    let mut rng = RngStream::new(seed, StreamId::new(0x9000, 2));
    let rand = |rng: &mut RngStream, n: u64| rng.next_u64() % n;
    let cfg = RecvConfig {
        max_data: 2000 + rand(&mut rng, 20_000),
        max_stream_data: 500 + rand(&mut rng, 8000),
        auto_read: rand(&mut rng, 2) == 0,
    };
    let ids = [A, B, C];
    let mut tx = SendStreams::new(cfg.max_data, cfg.max_stream_data);
    let mut rx = RecvStreams::new(cfg);
    let total: Vec<u64> = ids.iter().map(|_| rand(&mut rng, 30_000)).collect();
    let mut written = [0u64; 3];
    let mut delivered = [0u64; 3];
    let (p_loss, p_dup, p_spurious) = (rand(&mut rng, 30), rand(&mut rng, 20), rand(&mut rng, 10));

    let mut next_pn = 0u64;
    let mut net: Vec<Packet> = Vec::new();
    let mut ctl: Vec<Control> = Vec::new();
    // Packets sent and not yet acked or declared lost, by packet id.
    let mut outstanding: BTreeMap<u64, Vec<StreamFrame>> = BTreeMap::new();
    // Packets dropped by the network: the sender learns of it later.
    let mut dropped: Vec<u64> = Vec::new();
    let mut updates = Vec::new();

    let mut step = 0u64;
    while !(tx.all_done() && written == *total.as_slice() && ids.iter().all(|&i| tx.stream(i).is_some_and(|s| s.is_finished()))) {
        step += 1;
        assert!(step < 2_000_000, "seed {seed}: no progress; {:?}", tx.streams());
        match rand(&mut rng, 8) {
            0 => {
                let k = rand(&mut rng, 3) as usize;
                let n = rand(&mut rng, 4000).min(total[k] - written[k]);
                if n > 0 {
                    tx.write(ids[k], n);
                    written[k] += n;
                } else if written[k] == total[k] && !tx.stream(ids[k]).is_some_and(|s| s.is_finished()) {
                    tx.finish(ids[k]);
                }
            }
            1 | 2 => {
                let mut frames = Vec::new();
                for _ in 0..1 + rand(&mut rng, 3) {
                    match tx.next_chunk(rand(&mut rng, 1400)) {
                        Some(f) => frames.push(f),
                        None => break,
                    }
                }
                if frames.is_empty() {
                    continue;
                }
                outstanding.insert(next_pn, frames.clone());
                net.push(Packet { id: next_pn, frames });
                next_pn += 1;
                assert!(tx.conn_credit().used() <= rx.conn_window().limit(), "seed {seed}: connection credit overrun");
            }
            3 | 4 if !net.is_empty() => {
                // Random pick = reordering; a copy may stay behind = duplication.
                let i = rand(&mut rng, net.len() as u64) as usize;
                let p =
                    if rand(&mut rng, 100) < p_dup { Packet { id: net[i].id, frames: net[i].frames.clone() } } else { net.swap_remove(i) };
                if rand(&mut rng, 100) < p_loss {
                    dropped.push(p.id);
                    continue;
                }
                for f in &p.frames {
                    let k = ids.iter().position(|&x| x == f.stream).unwrap();
                    let before = rx.stream(f.stream).map_or(0, |s| s.delivered());
                    let n = rx.on_frame(f).unwrap_or_else(|e| panic!("seed {seed}: {e:?} on {f:?}"));
                    let s = rx.stream(f.stream).unwrap();
                    assert_eq!(s.delivered(), before + n, "seed {seed}: delivery not in order");
                    delivered[k] += n;
                    assert!(delivered[k] <= tx.stream(f.stream).unwrap().sent());
                }
                // The packet's ACK reaches the sender (also after a spurious loss: acks are idempotent).
                if let Some(frames) = outstanding.remove(&p.id) {
                    frames.iter().for_each(|f| tx.on_acked(f));
                } else {
                    p.frames.iter().for_each(|f| tx.on_acked(f));
                }
            }
            5 => {
                // Loss detection: packets the network dropped, and now and then a spurious loss.
                for id in dropped.drain(..) {
                    if let Some(frames) = outstanding.remove(&id) {
                        frames.iter().for_each(|f| tx.on_lost(f));
                    }
                }
                if rand(&mut rng, 100) < p_spurious && !net.is_empty() {
                    let id = net[rand(&mut rng, net.len() as u64) as usize].id;
                    if let Some(frames) = outstanding.remove(&id) {
                        frames.iter().for_each(|f| tx.on_lost(f));
                    }
                }
            }
            6 => {
                if !cfg.auto_read {
                    let k = rand(&mut rng, 3) as usize;
                    rx.read(ids[k], rand(&mut rng, 5000));
                }
                if let Some(l) = rx.take_max_data() {
                    ctl.push(Control::MaxData(l));
                }
                updates.clear();
                rx.take_max_stream_data(&mut updates);
                ctl.extend(updates.iter().map(|&(id, l)| Control::MaxStreamData(id, l)));
                while tx.take_data_blocked().is_some() {}
                updates.clear();
                tx.take_stream_data_blocked(&mut updates);
                for &(id, l) in &updates {
                    assert_eq!(tx.stream(id).unwrap().credit().limit(), l);
                }
            }
            _ if !ctl.is_empty() => {
                let c = ctl.swap_remove(rand(&mut rng, ctl.len() as u64) as usize);
                let lost = rand(&mut rng, 100) < p_loss;
                match c {
                    Control::MaxData(l) if lost => rx.on_max_data_lost(l),
                    Control::MaxData(l) => {
                        tx.on_max_data(l);
                    }
                    Control::MaxStreamData(id, l) if lost => rx.on_max_stream_data_lost(id, l),
                    Control::MaxStreamData(id, l) => {
                        tx.on_max_stream_data(id, l);
                    }
                }
            }
            _ => {}
        }
        // Flow-control limits as the sender sees them never exceed what the receiver granted.
        assert!(tx.conn_credit().limit() <= rx.conn_window().limit());
        for &id in &ids {
            if let (Some(t), Some(r)) = (tx.stream(id), rx.stream(id)) {
                assert!(t.credit().used() <= r.window().limit().max(t.credit().limit()));
                assert!(r.highest() <= t.sent());
            }
        }
    }
    // Every stream's bytes delivered exactly once, in order, up to the final size.
    for (k, &id) in ids.iter().enumerate() {
        assert_eq!(delivered[k], total[k], "seed {seed}: stream {id}");
        if total[k] > 0 || tx.stream(id).unwrap().sent() > 0 || rx.stream(id).is_some() {
            let r = rx.stream(id).unwrap_or_else(|| panic!("seed {seed}: stream {id} never received"));
            assert!(r.is_complete(), "seed {seed}: stream {id} incomplete");
            assert_eq!(r.final_size(), Some(total[k]));
        }
    }
    assert_eq!(rx.stats.bytes_delivered, total.iter().sum::<u64>());
}

#[test]
fn fuzz_streams_deliver_every_byte_once_in_order_within_flow_control() {
    for seed in 0..300 {
        fuzz_one(seed);
    }
}
