//! Connection-level scripted exchanges: two `QuicConn` endpoints joined by a tiny network of
//! per-path delays and serialisation rates, with packet filters to script losses.

use super::config::QuicConfig;
use super::conn::{QuicConn, Role, Transmit};
use super::path::PathState;
use super::wire::{long_header_len, short_header_len, WirePacket, AEAD_TAG_BYTES, MIN_INITIAL_UDP_PAYLOAD};
use crate::cc::CcConfig;
use crate::sched::SchedConfig;
use crate::transport::multipath::PathPrefs;
use mptlab_engine::time::MILLISECOND;
use mptlab_engine::Time;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

const MS: Time = MILLISECOND;

struct InFlight {
    at: Time,
    seq: u64,
    to_server: bool,
    slot: usize,
    pkt: WirePacket,
}

impl PartialEq for InFlight {
    fn eq(&self, o: &Self) -> bool {
        (self.at, self.seq) == (o.at, o.seq)
    }
}
impl Eq for InFlight {}
impl PartialOrd for InFlight {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for InFlight {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (self.at, self.seq).cmp(&(o.at, o.seq))
    }
}

/// Decides whether a packet is lost: (to_server, slot, packet, now) → drop?
type Filter = Box<dyn FnMut(bool, usize, &WirePacket, Time) -> bool>;

struct Net {
    cli: QuicConn,
    srv: QuicConn,
    now: Time,
    seq: u64,
    q: BinaryHeap<Reverse<InFlight>>,
    /// One-way delay and rate (bytes per second) per slot; the same both ways.
    delay: Vec<Time>,
    rate: Vec<u64>,
    busy: Vec<[Time; 2]>,
    filter: Filter,
    /// Stream bytes delivered to the server's application, with the time of each delivery.
    delivered: Vec<(Time, u64)>,
    dropped: u64,
}

impl Net {
    fn new(cfg: QuicConfig, paths: &[(Time, u64)], sched: &str) -> Self {
        Self::with_cc(cfg, paths, sched, "newreno")
    }

    fn with_cc(cfg: QuicConfig, paths: &[(Time, u64)], sched: &str, cc: &str) -> Self {
        let cc = CcConfig::default_for(cc).unwrap();
        let sc = SchedConfig::default_for(sched).unwrap();
        let n = paths.len();
        let mut cli = QuicConn::new(Role::Client, cfg.clone(), &cc, &sc, n, 1);
        let srv = QuicConn::new(Role::Server, cfg, &cc, &sc, n, 2);
        cli.start(0);
        Self {
            cli,
            srv,
            now: 0,
            seq: 0,
            q: BinaryHeap::new(),
            delay: paths.iter().map(|p| p.0).collect(),
            rate: paths.iter().map(|p| p.1).collect(),
            busy: vec![[0; 2]; n],
            filter: Box::new(|_, _, _, _| false),
            delivered: Vec::new(),
            dropped: 0,
        }
    }

    fn pump(&mut self) {
        for to_server in [true, false] {
            loop {
                let mut pkt = WirePacket::default();
                let ep = if to_server { &mut self.cli } else { &mut self.srv };
                let Some(slot) = ep.poll_transmit(self.now, &mut pkt) else { break };
                assert!(pkt.udp_payload <= 1472, "UDP payload {} over the maximum", pkt.udp_payload);
                assert_size_is_header_frames_and_tag(&pkt, ep.config());
                if (self.filter)(to_server, slot, &pkt, self.now) {
                    self.dropped += 1;
                    continue;
                }
                let dir = to_server as usize;
                let tx = pkt.wire_size() as u64 * 1_000_000_000 / self.rate[slot];
                let start = self.busy[slot][dir].max(self.now);
                self.busy[slot][dir] = start + tx;
                self.seq += 1;
                let at = start + tx + self.delay[slot];
                self.q.push(Reverse(InFlight { at, seq: self.seq, to_server, slot, pkt }));
            }
        }
    }

    /// Run until `end` or until nothing is left to do.
    fn run(&mut self, end: Time) {
        self.pump();
        loop {
            let next_pkt = self.q.peek().map(|r| r.0.at);
            let dl = [self.cli.deadline(self.now), self.srv.deadline(self.now)];
            let next_timer = dl.iter().flatten().min().copied();
            let Some(t) = [next_pkt, next_timer].into_iter().flatten().min() else { break };
            if t > end {
                break;
            }
            self.now = self.now.max(t);
            if next_pkt == Some(t) {
                let f = self.q.pop().unwrap().0;
                if f.to_server {
                    let n = self.srv.on_packet(self.now, f.slot, &f.pkt);
                    if n > 0 {
                        self.delivered.push((self.now, n));
                    }
                } else {
                    self.cli.on_packet(self.now, f.slot, &f.pkt);
                }
            } else {
                if dl[0].is_some_and(|d| d <= self.now) {
                    self.cli.on_timeout(self.now);
                }
                if dl[1].is_some_and(|d| d <= self.now) {
                    self.srv.on_timeout(self.now);
                }
            }
            self.pump();
            if self.cli.all_acked() && self.q.is_empty() {
                break;
            }
        }
    }

    fn delivered_bytes(&self) -> u64 {
        self.delivered.iter().map(|d| d.1).sum()
    }
}

/// A packet's UDP payload is its header (packet number of 1 to 4 bytes, RFC 9000 §17.1), its
/// frames and the AEAD tag, or 1200 B when it is padded (§14.1, §8.2.1).
fn assert_size_is_header_frames_and_tag(pkt: &WirePacket, cfg: &QuicConfig) {
    let content = pkt.frames_len(cfg.multipath) + AEAD_TAG_BYTES;
    let header = |pn_len| if pkt.long_header { long_header_len(cfg.cid_len, pn_len) } else { short_header_len(cfg.cid_len, pn_len) };
    let exact = (1..=4).any(|pn_len| header(pn_len) + content == pkt.udp_payload);
    let padded = pkt.udp_payload == MIN_INITIAL_UDP_PAYLOAD && header(1) + content <= MIN_INITIAL_UDP_PAYLOAD;
    assert!(exact || padded, "UDP payload {} B is not a header + {content} B of frames and tag: {pkt:?}", pkt.udp_payload);
}

fn cfg() -> QuicConfig {
    QuicConfig::default()
}

fn mp_cfg() -> QuicConfig {
    QuicConfig { multipath: true, ..QuicConfig::default() }
}

const FAST: u64 = 1_250_000_000; // 10 Gbit/s: serialisation negligible

#[test]
fn the_handshake_takes_one_round_trip_before_data() {
    let mut net = Net::new(cfg(), &[(10 * MS, FAST)], "minrtt");
    net.cli.write(10_000);
    net.cli.finish();
    net.run(2_000 * MS);
    // RFC 9000 §7: the client has 1-RTT keys after one round trip, its Finished and first data
    // reach the server half a round trip later, HANDSHAKE_DONE confirms at the client at 2 RTT.
    let c = net.cli.stats;
    let s = net.srv.stats;
    assert!(c.handshake_complete_at.unwrap().abs_diff(20 * MS) < MS, "{c:?}");
    assert!(s.handshake_complete_at.unwrap().abs_diff(30 * MS) < MS, "{s:?}");
    assert!(c.handshake_confirmed_at.unwrap().abs_diff(40 * MS) < MS, "{c:?}");
    assert!(net.delivered[0].0.abs_diff(30 * MS) < MS, "first data at {:?}", net.delivered[0]);
    assert_eq!(net.delivered_bytes(), 10_000);
    assert!(net.cli.all_acked());
}

#[test]
fn the_client_initial_is_padded_and_the_server_respects_amplification() {
    let mut net = Net::new(cfg(), &[(10 * MS, FAST)], "minrtt");
    let mut sizes = Vec::new();
    let mut pkt = WirePacket::default();
    while let Some(slot) = net.cli.poll_transmit(0, &mut pkt) {
        sizes.push((slot, pkt.udp_payload, pkt.long_header));
    }
    assert_eq!(sizes, vec![(0, 1200, true)], "one Initial, padded to 1200 B (RFC 9000 §14.1)");
    // Deliver it: the server may send at most 3 × 1200 B before the client's address is validated.
    let mut initial = WirePacket::default();
    let mut net2 = Net::new(cfg(), &[(10 * MS, FAST)], "minrtt");
    net2.cli.poll_transmit(0, &mut initial).unwrap();
    net2.srv.on_packet(10 * MS, 0, &initial);
    let mut sent = 0;
    while net2.srv.poll_transmit(10 * MS, &mut pkt).is_some() {
        sent += pkt.udp_payload as u64;
        assert!(pkt.acks().iter().any(|a| a.frame.largest() == Some(0)) || sent > 1472, "the first server packet acknowledges the Initial");
    }
    assert!(sent <= 3 * 1200, "server sent {sent} B before validation");
    assert!(sent >= 3000, "the whole server flight fits: {sent}");
}

#[test]
fn every_byte_arrives_once_under_random_loss() {
    let mut net = Net::new(QuicConfig { streams: 3, ..cfg() }, &[(20 * MS, 2_500_000)], "minrtt");
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    net.filter = Box::new(move |_, _, _, _| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % 100 < 3 // 3% loss both ways, handshake included
    });
    net.cli.write(2_000_000);
    net.cli.finish();
    net.run(120_000 * MS);
    assert!(net.dropped > 50, "losses happened: {}", net.dropped);
    assert!(net.cli.all_acked(), "transfer finished");
    assert_eq!(net.delivered_bytes(), 2_000_000, "every byte delivered exactly once");
    for k in 0..3u64 {
        let s = net.srv.recv.stream(4 * k).unwrap();
        assert_eq!(s.delivered(), net.cli.send.stream(4 * k).unwrap().written());
        assert_eq!(s.final_size(), Some(s.delivered()));
    }
    let lost: u64 = net.cli.paths[0].stats.packets_lost;
    assert!(lost > 0 && net.cli.stats.stream_bytes_retransmitted > 0);
}

#[test]
fn a_receiver_pings_once_per_round_trip_and_stops_reporting_acknowledged_ranges() {
    // Every 100th data packet is lost: without RFC 9000 §13.2.4 each ACK would list every
    // gap since the start (up to 32 ranges); with the receiver's PINGs acknowledged, ACK
    // frames list only the gaps of the last round trips. The 8 MB are written at once: the
    // send buffer holds them all.
    let mut net = Net::new(QuicConfig { send_buffer: 8_000_000, ..cfg() }, &[(20 * MS, 2_500_000)], "minrtt");
    let (widest, pings) = (std::rc::Rc::new(std::cell::Cell::new(0usize)), std::rc::Rc::new(std::cell::Cell::new(0u64)));
    let (w, p, mut n) = (widest.clone(), pings.clone(), 0u64);
    net.filter = Box::new(move |to_server, _, pkt, _| {
        if !to_server {
            w.set(w.get().max(pkt.acks().iter().map(|a| a.frame.ranges.len()).max().unwrap_or(0)));
            p.set(p.get() + pkt.frames.ping as u64);
            return false;
        }
        n += !pkt.frames.stream.is_empty() as u64;
        !pkt.frames.stream.is_empty() && n % 100 == 0
    });
    net.cli.write(8_000_000);
    net.cli.finish();
    net.run(120_000 * MS);
    assert!(net.cli.all_acked());
    assert_eq!(net.delivered_bytes(), 8_000_000);
    assert!(net.dropped > 50, "{} losses", net.dropped);
    let srv = &net.srv.paths[0];
    let round_trips = net.now / srv.srtt();
    assert!(pings.get() > round_trips / 2 && pings.get() <= round_trips + 1, "{} PINGs in {round_trips} round trips", pings.get());
    assert_eq!(net.srv.stats.invalid_acks, 0, "ACKs of ACK-only packets are valid");
    assert!(widest.get() <= 4, "ACK frames carried up to {} ranges", widest.get());
}

#[test]
fn a_loss_on_one_stream_does_not_delay_the_other() {
    let mut net = Net::new(QuicConfig { streams: 2, handshake: false, ..cfg() }, &[(20 * MS, FAST)], "minrtt");
    // Drop the first packet that carries stream 0's first bytes.
    let mut done = false;
    net.filter = Box::new(move |to_server, _, p, _| {
        let hit = !done && to_server && p.frames.stream.iter().any(|f| f.stream == 0 && f.offset == 0);
        done |= hit;
        hit
    });
    net.cli.write(12_000); // both streams fit in the initial window
    net.cli.finish();
    net.run(21 * MS);
    // One delay later stream 4 is delivered in full, stream 0 only after the loss is repaired.
    let s4 = net.srv.recv.stream(4).map_or(0, |s| s.delivered());
    let s0 = net.srv.recv.stream(0).map_or(0, |s| s.delivered());
    assert_eq!(s4, 6_000, "stream 4 delivered in order at once");
    assert_eq!(s0, 0, "stream 0 waits for its first bytes");
    net.run(5_000 * MS);
    assert_eq!(net.srv.recv.stream(0).unwrap().delivered(), 6_000);
}

#[test]
fn two_paths_are_validated_and_both_carry_data() {
    let mut net = Net::new(mp_cfg(), &[(10 * MS, 1_250_000), (10 * MS, 1_250_000)], "minrtt");
    net.cli.write(3_000_000);
    net.cli.finish();
    net.run(30_000 * MS);
    assert!(net.cli.all_acked());
    assert_eq!(net.delivered_bytes(), 3_000_000);
    let p1 = &net.cli.paths[1];
    assert_eq!(p1.state, PathState::Active);
    // Validated one round trip after the handshake was confirmed (2 RTT): at 3 RTT, plus the
    // serialisation of the 1200 B handshake and validation datagrams at 10 Mbit/s.
    let v = p1.validated_at.unwrap();
    assert!((60 * MS..70 * MS).contains(&v), "{v}");
    let (a, b) = (net.cli.paths[0].stats.stream_bytes_sent, p1.stats.stream_bytes_sent);
    assert!(a > 1_000_000 && b > 1_000_000, "both paths carried data: {a} {b}");
}

#[test]
fn an_ack_for_one_path_is_accepted_on_another() {
    let mut net = Net::new(QuicConfig { handshake: false, ..mp_cfg() }, &[(10 * MS, FAST), (10 * MS, FAST)], "roundrobin");
    net.cli.write(200_000);
    net.cli.finish();
    // Keep everything the server sends on path 1 back, and deliver its ACKs on path 0 instead.
    let held = std::rc::Rc::new(std::cell::RefCell::new(Vec::<WirePacket>::new()));
    let h = held.clone();
    net.filter = Box::new(move |to_server, slot, p, _| {
        let hold = !to_server && slot == 1 && !p.acks().is_empty() && !p.is_ack_eliciting();
        if hold {
            h.borrow_mut().push(p.clone());
        }
        hold
    });
    net.run(45 * MS);
    let before = net.cli.paths[1].recovery.bytes_in_flight();
    assert!(before > 0, "path 1 has data in flight");
    let mut pkt = held.borrow()[0].clone();
    assert!(pkt.acks().iter().all(|a| a.path_id == 1));
    // The same PATH_ACK frames, in a packet of path 0 (a packet number the client has not seen).
    pkt.path_id = net.cli.paths[0].id;
    pkt.pn = 1 << 20;
    let now = net.now;
    net.cli.on_packet(now, 0, &pkt);
    assert!(net.cli.paths[1].recovery.bytes_in_flight() < before, "path 1's packets acknowledged via path 0");
    assert!(net.cli.paths[1].recovery.rtt().has_sample());
}

#[test]
fn a_silent_path_failure_moves_its_data_to_the_other_path() {
    let mut net = Net::new(mp_cfg(), &[(10 * MS, 1_250_000), (15 * MS, 1_250_000)], "minrtt");
    // From 300 ms on, path 1 loses everything in both directions (a link inside the path).
    net.filter = Box::new(|_, slot, _, now| slot == 1 && now >= 300 * MS);
    net.cli.write(4_000_000);
    net.cli.finish();
    net.run(60_000 * MS);
    assert!(net.cli.all_acked(), "the transfer completes on path 0");
    assert_eq!(net.delivered_bytes(), 4_000_000, "every byte once");
    let p1 = &net.cli.paths[1].stats;
    assert!(p1.failures >= 1 && p1.bytes_requeued > 0, "{p1:?}");
    assert_eq!(net.srv.recv.stream(0).unwrap().delivered(), 4_000_000, "in order");
}

#[test]
fn an_abandoned_path_hands_its_frames_over_and_tells_the_peer() {
    let mut net = Net::new(mp_cfg(), &[(10 * MS, 1_250_000), (10 * MS, 1_250_000)], "roundrobin");
    net.cli.write(4_000_000);
    net.run(500 * MS);
    assert!(net.cli.paths[1].recovery.bytes_in_flight() > 0);
    net.filter = Box::new(|_, slot, _, _| slot == 1);
    net.cli.path_down(1);
    assert_eq!(net.cli.paths[1].state, PathState::Abandoned);
    assert_eq!(net.cli.paths[1].recovery.bytes_in_flight(), 0);
    net.run(60_000 * MS);
    assert_eq!(net.delivered_bytes(), 4_000_000);
    assert_eq!(net.srv.paths[1].state, PathState::Abandoned, "PATH_ABANDON reached the server on path 0");
    // The interface comes back: a new Path ID is validated on the slot and used again.
    net.filter = Box::new(|_, _, _, _| false);
    let mut net2 = net;
    net2.cli.path_up(net2.now, 1);
    net2.cli.write(1_000_000);
    net2.run(net2.now + 10_000 * MS);
    assert_eq!(net2.delivered_bytes(), 5_000_000);
    assert_eq!(net2.cli.paths[1].state, PathState::Active);
    assert!(net2.cli.paths[1].stats.stream_bytes_sent > 0);
    assert!(net2.cli.paths[1].id >= 2, "a new Path ID");
    assert_eq!(net2.srv.paths[1].id, net2.cli.paths[1].id);
}

#[test]
fn a_backup_path_carries_data_only_when_the_regular_path_is_gone() {
    let mut net = Net::new(mp_cfg(), &[(10 * MS, 1_250_000), (10 * MS, 1_250_000)], "minrtt");
    let prefs = [PathPrefs { priority: 0, backup: false }, PathPrefs { priority: 1, backup: true }];
    net.cli.set_path_prefs(&prefs);
    net.cli.write(2_000_000);
    net.run(3_000 * MS);
    let p1 = &net.cli.paths[1];
    assert_eq!(p1.state, PathState::Active, "the backup path is validated");
    assert_eq!(p1.stats.stream_bytes_sent, 0, "and carries no data while path 0 is usable");
    assert!(net.cli.paths[0].stats.stream_bytes_sent >= 2_000_000);
    // Path 0's interface goes down: the backup path takes over.
    net.filter = Box::new(|_, slot, _, _| slot == 0);
    net.cli.path_down(0);
    net.cli.write(1_000_000);
    net.cli.finish();
    net.run(net.now + 30_000 * MS);
    assert!(net.cli.all_acked());
    assert_eq!(net.delivered_bytes(), 3_000_000, "every byte once");
    assert!(net.cli.paths[1].stats.stream_bytes_sent >= 1_000_000);
    assert_eq!(net.cli.paths[1].prefs, prefs[1], "the slot keeps its preferences");
}

#[test]
fn without_preferences_both_paths_share_the_data() {
    // The same exchange as above without a backup: path 1 carries data from the start.
    let mut net = Net::new(mp_cfg(), &[(10 * MS, 1_250_000), (10 * MS, 1_250_000)], "minrtt");
    assert_eq!(net.cli.paths[1].prefs, PathPrefs { priority: 1, backup: false });
    net.cli.write(2_000_000);
    net.run(3_000 * MS);
    assert!(net.cli.paths[1].stats.stream_bytes_sent > 500_000);
}

/// Everything a connection pair hands out while an application writes `write` bytes every
/// `every` over two narrow paths (so that most polls after a write find no room), with the
/// first `lost_first` packets and every 29th lost and path 1 abandoned at 1.5 s: each packet
/// with its time and slot, and the deadline of each poll that found nothing. `quiet`: polls
/// may skip the work (`QuicConn::quiet_poll`). Returns the trace and the client's polls that did.
fn cbr_trace(cc: &str, sched: &str, (every, write): (Time, u64), lost_first: u64, quiet: bool) -> (Vec<String>, u64) {
    let mut net = Net::with_cc(mp_cfg(), &[(10 * MS, 250_000), (15 * MS, 200_000)], sched, cc);
    if !quiet {
        net.cli.disable_quiet_polls();
        net.srv.disable_quiet_polls();
    }
    let (mut log, mut sent) = (Vec::new(), 0u64);
    let (mut next_write, mut deadlines, mut down) = (0, [None, None], false);
    let end = 3_000 * MS;
    loop {
        for to_server in [true, false] {
            loop {
                let mut pkt = WirePacket::default();
                let ep = if to_server { &mut net.cli } else { &mut net.srv };
                let slot = match ep.poll(net.now, &mut pkt) {
                    Transmit::Packet(slot) => slot,
                    Transmit::Idle(d) => {
                        log.push(format!("{} {to_server} idle {d:?}", net.now));
                        deadlines[to_server as usize] = d;
                        break;
                    }
                };
                log.push(format!("{} {to_server} {slot} {pkt:?}", net.now));
                sent += 1;
                if sent <= lost_first || sent % 29 == 0 {
                    continue;
                }
                let dir = to_server as usize;
                let start = net.busy[slot][dir].max(net.now);
                net.busy[slot][dir] = start + pkt.wire_size() as u64 * 1_000_000_000 / net.rate[slot];
                net.seq += 1;
                let at = net.busy[slot][dir] + net.delay[slot];
                net.q.push(Reverse(InFlight { at, seq: net.seq, to_server, slot, pkt }));
            }
        }
        let next_pkt = net.q.peek().map(|r| r.0.at);
        let t = [next_pkt, deadlines[0], deadlines[1], Some(next_write)].into_iter().flatten().min().unwrap();
        if t > end {
            break;
        }
        net.now = net.now.max(t);
        if !down && net.now >= 1_500 * MS {
            down = true;
            net.cli.path_down(1);
        }
        if next_pkt == Some(t) {
            let f = net.q.pop().unwrap().0;
            if f.to_server {
                net.srv.on_packet(net.now, f.slot, &f.pkt);
            } else {
                net.cli.on_packet(net.now, f.slot, &f.pkt);
            }
        } else if next_write == t {
            net.cli.write(write);
            next_write += every;
        } else {
            for (i, d) in deadlines.iter().enumerate() {
                if d.is_some_and(|d| d <= net.now) {
                    if i == 0 { &mut net.srv } else { &mut net.cli }.on_timeout(net.now);
                }
            }
        }
    }
    let totals = format!("{} {} {:?}", net.cli.send.stats.retransmitted_bytes, net.srv.recv.stats.bytes_delivered, net.cli.stats);
    log.push(totals);
    (log, net.cli.quiet_polls)
}

#[test]
fn polls_that_skip_the_work_hand_out_what_full_polls_do() {
    // Window- and pacing-limited writers, and a handshake slowed by the loss of the Initial
    // (a PTO) with writes waiting for 1-RTT keys.
    let cases = [
        ("bbr", "minrtt", (MS, 400), 0),
        ("newreno", "roundrobin", (2 * MS, 900), 0),
        ("cubic", "minrtt", (8 * MS, 100), 1),
        ("bbr", "minrtt", (4 * MS, 1000), 1),
    ];
    for (cc, sched, app, lost_first) in cases {
        let (full, none) = cbr_trace(cc, sched, app, lost_first, false);
        let (quiet, hits) = cbr_trace(cc, sched, app, lost_first, true);
        assert_eq!(none, 0);
        assert!(hits > 100, "{cc}: only {hits} polls took the shortcut");
        assert_eq!(full.len(), quiet.len(), "{cc}");
        for (a, b) in full.iter().zip(&quiet) {
            assert_eq!(a, b, "{cc}");
        }
    }
}
