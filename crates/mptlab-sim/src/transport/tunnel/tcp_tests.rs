//! Scripted exchanges of reliable TCP tunnel paths (`tcp.rs`): records in the byte stream are
//! released at the egress only when whole and in order (study notes A10 (b)), a lost segment
//! holds back the records behind it until TCP repairs it, the scheduler's availability counts
//! the window only (seed 003 §2.3, A7 (a)), and a whole tunnel over lossy paths loses nothing
//! but what its scheduler buffer drops.

use super::buffer::Held;
use super::config::{TunnelKind, TunnelPathSpec, TunnelSpec};
use super::conn::{Tunnel, TunnelOutput};
use super::tcp::{Record, TcpPath, TUNNEL_HEADER};
use crate::cc::CcConfig;
use crate::net::{Packet, QueueLimit};
use crate::sched::SchedConfig;
use crate::transport::bodies::Bodies;
use crate::transport::endpoint::End;
use crate::transport::multipath::PathPrefs;
use crate::transport::reorder::ReorderConfig;
use crate::transport::segment::TcpHeader;
use crate::transport::tcp::TcpConfig;
use mptlab_engine::time::MILLISECOND as MS;
use mptlab_engine::{Handle, Time};

const INNER: u32 = 1500;
const RECORD: u32 = INNER + TUNNEL_HEADER;

fn cfg(mss: u32) -> TcpConfig {
    TcpConfig { mss, handshake: false, ..TcpConfig::DEFAULT }
}

fn path(cc: &str, mss: u32) -> TcpPath {
    let mut p = TcpPath::new(cfg(mss), &CcConfig::default_for(cc).unwrap(), PathPrefs::default_for(0));
    p.start(0);
    p
}

fn held(n: u64, size: u32, at: Time) -> Held {
    Held { handle: Handle(100 + n as u32), size, since: 0, global: n, placed_at: at }
}

fn segments(p: &mut TcpPath) -> Vec<TcpHeader> {
    std::iter::from_fn(|| p.pop_data()).collect()
}

/// Deliver `h` to the receiver; returns the records it completed.
fn deliver(p: &mut TcpPath, now: Time, h: &TcpHeader) -> Vec<Record> {
    let mut out = vec![];
    p.on_data(now, h, |r| out.push(r));
    out
}

/// Feed every pending receiver ACK to the sender at `now`.
fn acks_back(p: &mut TcpPath, now: Time) -> usize {
    let acks: Vec<TcpHeader> = std::iter::from_fn(|| p.pop_ack()).collect();
    for a in &acks {
        p.on_ack(now, a);
    }
    acks.len()
}

#[test]
fn a_record_split_across_segments_is_released_only_when_whole() {
    // MSS 1000 B: a 1516 B record takes two segments.
    let mut p = path("newreno", 1000);
    p.assign(held(7, INNER, 3 * MS));
    p.push(3 * MS);
    let segs = segments(&mut p);
    assert_eq!(segs.iter().map(|h| (h.seq, h.len)).collect::<Vec<_>>(), vec![(0, 1000), (1000, 516)]);
    assert!(deliver(&mut p, 10 * MS, &segs[0]).is_empty(), "the record is not whole yet");
    assert_eq!(p.records_held(), 1);
    let r = deliver(&mut p, 11 * MS, &segs[1]);
    assert_eq!(r, vec![Record { end: 1516, handle: Handle(107), size: INNER, global: 7, path_seq: 0, placed_at: 3 * MS }]);
    assert_eq!(p.records_held(), 0);
    assert_eq!(p.counters().records_delivered, 1);
}

#[test]
fn records_placed_in_one_round_share_full_segments() {
    // Three 100 B inner packets (116 B records) and a full one, pushed together: 1864 B of
    // stream in one 1516 B segment and a 348 B one; the full record spans both.
    let mut p = path("newreno", RECORD);
    for n in 0..3 {
        p.assign(held(n, 100, 0));
    }
    p.assign(held(3, INNER, 0));
    p.push(0);
    let segs = segments(&mut p);
    assert_eq!(segs.iter().map(|h| (h.seq, h.len)).collect::<Vec<_>>(), vec![(0, 1516), (1516, 348)]);
    let first: Vec<u64> = deliver(&mut p, MS, &segs[0]).iter().map(|r| r.global).collect();
    assert_eq!(first, vec![0, 1, 2]);
    let second: Vec<(u64, u64)> = deliver(&mut p, MS, &segs[1]).iter().map(|r| (r.global, r.end)).collect();
    assert_eq!(second, vec![(3, 3 * 116 + 1516)]);
}

#[test]
fn a_lost_segment_holds_back_the_records_behind_it_which_then_come_in_order() {
    let mut p = path("newreno", RECORD);
    for n in 0..6 {
        p.assign(held(n, INNER, 0));
    }
    p.push(0);
    let segs = segments(&mut p);
    assert_eq!(segs.len(), 6, "one record per segment");
    let mut t = 20 * MS;
    assert_eq!(deliver(&mut p, t, &segs[0]).iter().map(|r| r.global).collect::<Vec<_>>(), vec![0]);
    // Segment 1 is lost; 2..5 arrive and release nothing.
    for s in &segs[2..] {
        t += MS;
        assert!(deliver(&mut p, t, s).is_empty(), "record behind the hole released");
    }
    assert_eq!(p.records_held(), 5);
    // Their SACKs reach the sender: three segments above the hole mark it lost (RFC 6675) and
    // it is sent again, alone.
    assert_eq!(acks_back(&mut p, t + 20 * MS), 4);
    let again = segments(&mut p);
    assert_eq!(again.iter().map(|h| (h.seq, h.len)).collect::<Vec<_>>(), vec![(1516, 1516)]);
    assert_eq!(p.sender().stats.retransmissions, 1);
    let released: Vec<(u64, u64)> = deliver(&mut p, t + 40 * MS, &again[0]).iter().map(|r| (r.global, r.path_seq)).collect();
    assert_eq!(released, vec![(1, 1), (2, 2), (3, 3), (4, 4), (5, 5)]);
    assert_eq!(p.records_held(), 0);
}

#[test]
fn availability_counts_bytes_in_flight_and_queued_against_the_window_not_the_pacer() {
    // Initial window 10 × 1516 B: nine queued records and one more fit, ten do not.
    let mut p = path("newreno", RECORD);
    assert_eq!(p.sender().cwnd(), 10 * RECORD as u64);
    for n in 0..9 {
        assert!(p.window_open(RECORD));
        p.assign(held(n, INNER, 0));
    }
    assert!(p.window_open(RECORD));
    p.assign(held(9, INNER, 0));
    assert!(!p.window_open(RECORD));
    assert!(p.window_open(0), "an empty record still fits exactly");
    // Sending moves the bytes from queued to in flight: still no room.
    p.push(0);
    assert_eq!(segments(&mut p).len(), 10);
    assert!(!p.window_open(RECORD));
    // Small records count their bytes: 116 B records fill the same window 130 at a time.
    let mut q = path("newreno", RECORD);
    let mut n = 0;
    while q.window_open(116) {
        q.assign(held(n, 100, 0));
        n += 1;
    }
    assert_eq!(n, 10 * RECORD as u64 / 116);
    // A paced path (BBR) is available while its pacer holds segments back.
    let mut b = path("bbr", RECORD);
    for n in 0..4 {
        b.assign(held(n, INNER, 0));
    }
    b.push(0);
    let sent = segments(&mut b).len();
    assert!(b.window_open(RECORD), "window room with {sent} sent and the rest waiting for the pacer");
}

#[test]
fn a_path_opens_only_after_its_handshake_when_one_is_asked_for() {
    let mut p =
        TcpPath::new(TcpConfig { handshake: true, ..cfg(RECORD) }, &CcConfig::default_for("cubic").unwrap(), PathPrefs::default_for(0));
    assert!(!p.window_open(RECORD));
    p.start(0);
    let syn = segments(&mut p);
    assert_eq!(syn.len(), 1);
    assert!(!p.window_open(RECORD), "not established before the SYN-ACK");
    assert!(deliver(&mut p, 10 * MS, &syn[0]).is_empty());
    assert_eq!(acks_back(&mut p, 20 * MS), 1);
    assert!(p.window_open(RECORD));
}

// ----- a whole tunnel ----------------------------------------------------------------------

fn spec(paths: usize, buffer: u64) -> TunnelSpec {
    TunnelSpec {
        name: "t".into(),
        ingress: 0,
        egress: 1,
        kind: TunnelKind::Tcp,
        tcp: Some(cfg(RECORD)),
        cc: CcConfig::default_for("newreno").unwrap(),
        scheduler: SchedConfig::default_for("roundrobin").unwrap(),
        buffer: QueueLimit::Packets(buffer),
        overhead: TUNNEL_HEADER + 40,
        ack_size: 40,
        inner_mtu: INNER,
        reorder: ReorderConfig::default(),
        paths: (0..paths).map(|i| TunnelPathSpec { fwd_route: vec![], rev_route: vec![], priority: i as u32, backup: false }).collect(),
    }
}

/// A tiny network: every outer packet takes `delay` (path i: `delay · (i + 1)`), and data
/// segments whose running number is a multiple of `lose_every` are lost.
struct Net {
    queue: Vec<(Time, u64, usize, End, Packet, TcpHeader)>,
    order: u64,
    data_sent: u64,
    lost: u64,
}

impl Net {
    fn drain(&mut self, now: Time, t: &mut Tunnel, bodies: &mut Bodies, delay: Time, lose_every: u64) {
        while let Some(tx) = t.poll_transmit(now, bodies, Handle(0)) {
            let path = tx.path as usize;
            if tx.from == End::Sender && tx.packet.len > 0 {
                self.data_sent += 1;
                if self.data_sent.is_multiple_of(lose_every) {
                    self.lost += 1;
                    continue;
                }
            }
            let to = if tx.from == End::Sender { End::Receiver } else { End::Sender };
            self.order += 1;
            // Every packet gets handle 0: its header (SACK blocks included) is taken at once.
            let hdr = tx.packet.tcp_header(bodies, Handle(0));
            self.queue.push((now + delay * (path as Time + 1), self.order, path, to, tx.packet, hdr));
        }
    }
}

#[test]
fn a_tcp_tunnel_over_lossy_paths_delivers_every_buffered_packet_exactly_once() {
    let mut t = Tunnel::new(&spec(2, 50), 1);
    let mut bodies = Bodies::new();
    let mut net = Net { queue: vec![], order: 0, data_sent: 0, lost: 0 };
    let mut out = TunnelOutput::default();
    let mut released = vec![];
    let (mut accepted, mut refused) = (0u32, 0u32);
    let mut deadlines = vec![];
    let delay = 5 * MS;
    // 400 inner packets, one every 0.1 ms (120 Mbit/s): more than the paths carry at first,
    // so the buffer overflows.
    let mut next_inner = 0u32;
    let mut now: Time = 0;
    let mut steps = 0;
    while now < 20_000 * MS {
        steps += 1;
        assert!(steps < 1_000_000, "the loop does not advance");
        // The next event: an inner packet, an outer packet, or a timer.
        deadlines.clear();
        t.deadlines(&mut deadlines);
        let timer = deadlines.iter().filter_map(|&(slot, d)| d.map(|d| (d, slot))).min();
        let arrival = net.queue.iter().map(|e| (e.0, e.1)).min();
        let inner_at = (next_inner < 400).then(|| next_inner as Time * MS / 10);
        let candidates = [inner_at, arrival.map(|a| a.0), timer.map(|x| x.0)];
        let Some(at) = candidates.into_iter().flatten().min() else { break };
        now = at.max(now);
        if inner_at == Some(at) {
            if t.on_inner(now, Handle(1000 + next_inner), INNER) {
                accepted += 1;
            } else {
                refused += 1;
            }
            next_inner += 1;
        } else if arrival.is_some_and(|a| a.0 == at) {
            let i = net.queue.iter().position(|e| (e.0, e.1) == arrival.unwrap()).unwrap();
            let (_, _, path, to, p, hdr) = net.queue.swap_remove(i);
            t.on_packet(now, to, path, &p, || hdr, None, &mut out);
        } else {
            let (_, slot) = timer.unwrap();
            t.on_timeout(now, slot, &mut out);
        }
        released.append(&mut out.released);
        assert!(out.dropped.is_empty(), "the egress dropped a packet");
        net.drain(now, &mut t, &mut bodies, delay, 13);
    }
    assert_eq!(accepted + refused, 400);
    assert!(refused > 0, "the scheduler buffer overflowed");
    assert!(net.lost > 0, "segments were lost");
    // Every accepted inner packet came out once; the refused ones are the buffer's drops.
    let mut ids: Vec<u32> = released.iter().map(|h| h.0).collect();
    assert_eq!(ids.len(), accepted as usize);
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), accepted as usize, "an inner packet came out twice");
    assert_eq!(t.buffer().counters().dropped, refused as u64);
    assert_eq!(t.packets_held(), 0);
    assert_eq!(t.egress().arrived, accepted as u64);
}
