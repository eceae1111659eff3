//! The endpoint interface as the simulation drives it (`endpoint.rs`): inputs, then transmits
//! drained in order, then wakes. Transport behaviour itself is tested in each transport's tests;
//! these check the contract: which end and path each transmit leaves from, which timer slots
//! an input realigns, and which path manager reacts to which interface in which pass.

use super::bodies::Bodies;
use super::endpoint::{AppStart, End, Endpoint, Outbox, Transmit, Wake, SLOT_PACER, SLOT_RECEIVER, SLOT_SENDER};
use super::tcp::{TcpConfig, TcpConn};
use super::udp::UdpConn;
use super::AnyEndpoint;
use crate::cc::{CcConfig, CcParams};
use crate::net::Packet;
use crate::spec::RunSpec;
use mptlab_engine::{Handle, Time};

/// Drain an endpoint as the simulation does: every transmit, then the wakes.
fn drain(ep: &mut impl Endpoint, now: Time, out: &mut Outbox, bodies: &mut Bodies) -> (Vec<Transmit>, Vec<Wake>) {
    let mut sent = Vec::new();
    while let Some(t) = ep.poll_transmit(now, out, bodies, Handle(sent.len() as u32)) {
        sent.push(t);
    }
    (sent, std::mem::take(&mut out.wakes))
}

fn slots(wakes: &[Wake]) -> Vec<usize> {
    wakes
        .iter()
        .filter_map(|w| match w {
            Wake::Timer { slot, .. } => Some(*slot),
            Wake::OpenPath { .. } => None,
        })
        .collect()
}

fn spec(toml: &str) -> RunSpec {
    crate::scenario::load(toml, &[], None).expect("a valid scenario").spec
}

#[test]
fn udp_write_leaves_as_numbered_datagrams_without_timers() {
    let (mut out, mut bodies) = (Outbox::default(), Bodies::default());
    let mut ep = UdpConn::new(1000);
    assert_eq!(ep.write(0, 2500, &mut out), 2500, "datagrams are never blocked");
    let (sent, wakes) = drain(&mut ep, 0, &mut out, &mut bodies);
    let got: Vec<_> = sent.iter().map(|t| (t.path, t.from, t.packet.seq, t.packet.len, t.packet.size)).collect();
    assert_eq!(got, vec![(0, End::Sender, 0, 1000, 1028), (0, End::Sender, 1, 1000, 1028), (0, End::Sender, 2, 500, 528)]);
    assert!(wakes.is_empty());
    let p = sent[2].packet;
    assert_eq!(ep.on_packet(1, End::Receiver, 0, &p, &bodies, Handle(0), &mut out), 500);
    assert_eq!((ep.rcv.datagrams, ep.rcv.bytes), (1, 500));
}

#[test]
fn tcp_sender_output_arms_sender_slots_and_receiver_output_the_receiver_slot() {
    let (mut out, mut bodies) = (Outbox::default(), Bodies::default());
    let cfg = TcpConfig { handshake: false, ..TcpConfig::default() };
    let cc = CcConfig::default_for("newreno")
        .expect("newreno")
        .build(CcParams { mss: cfg.mss, initial_cwnd_segments: cfg.initial_cwnd_segments });
    let mut ep = TcpConn::new(cfg, cc);
    let accepted = ep.start(0, AppStart { bulk: false, bytes: 3 * cfg.mss as u64, file: false }, &mut out);
    assert_eq!(accepted, 3 * cfg.mss as u64);
    let (sent, wakes) = drain(&mut ep, 0, &mut out, &mut bodies);
    assert_eq!(sent.len(), 3, "three segments within the initial window");
    assert!(sent.iter().all(|t| t.from == End::Sender && t.path == 0 && t.packet.is_data() && t.packet.size == t.packet.len + 40));
    assert_eq!(slots(&wakes), vec![SLOT_SENDER, SLOT_PACER]);
    assert!(matches!(wakes[0], Wake::Timer { deadline: Some(_), .. }), "the RTO runs while data is in flight");

    let first: Packet = sent[0].packet;
    let delivered = ep.on_packet(5, End::Receiver, 0, &first, &bodies, Handle(0), &mut out);
    assert_eq!(delivered, first.len as u64, "in-order data reaches the application");
    let (acks, wakes) = drain(&mut ep, 5, &mut out, &mut bodies);
    assert!(acks.iter().all(|t| t.from == End::Receiver && !t.packet.is_data()));
    assert_eq!(slots(&wakes), vec![SLOT_RECEIVER]);
}

#[test]
fn mptcp_path_manager_reacts_in_its_pass_on_the_paths_of_the_interface() {
    let spec = spec(include_str!("../../../../scenarios/mptcp-two-paths.toml"));
    let f = &spec.flows[0];
    let mut ep = AnyEndpoint::build(&f.transport, f.app.unit_write(), 7).endpoint;
    let (mut out, mut bodies) = (Outbox::default(), Bodies::default());
    ep.start(0, AppStart { bulk: true, bytes: 0, file: false }, &mut out);
    drain(&mut ep, 0, &mut out, &mut bodies);
    let first_link = f.route_pairs()[0].0[0];
    assert_eq!(ep.paths(), 2);
    assert!(!ep.on_interface(1, 1, 0, first_link, false, &mut out), "MPTCP reacts in the first pass");
    assert!(!ep.on_interface(1, 0, 1, first_link, false, &mut out), "the other path does not use that interface");
    assert!(ep.on_interface(1, 0, 0, first_link, false, &mut out));
    let (_, wakes) = drain(&mut ep, 1, &mut out, &mut bodies);
    assert_eq!(slots(&wakes).last(), Some(&SLOT_RECEIVER), "the closed subflow's receiver timer is realigned last");
    assert!(ep.on_interface(2, 0, 0, first_link, true, &mut out));
    let (_, wakes) = drain(&mut ep, 2, &mut out, &mut bodies);
    let crate::spec::TransportSpec::Mptcp(m) = &f.transport else { unreachable!("an mptcp flow") };
    assert_eq!(wakes, vec![Wake::OpenPath { path: 0, at: 2 + m.mptcp.join_delay }], "the re-created subflow joins after the join delay");
}

#[test]
fn quic_path_manager_reacts_in_the_second_pass_and_polls_the_client() {
    let spec = spec(include_str!("../../../../scenarios/mpquic-two-paths.toml"));
    let f = &spec.flows[0];
    let mut ep = AnyEndpoint::build(&f.transport, f.app.unit_write(), 7).endpoint;
    let (mut out, mut bodies) = (Outbox::default(), Bodies::default());
    ep.start(0, AppStart { bulk: true, bytes: 0, file: false }, &mut out);
    let (sent, wakes) = drain(&mut ep, 0, &mut out, &mut bodies);
    assert!(!sent.is_empty() && sent.iter().all(|t| t.from == End::Sender), "the client opens the connection");
    assert_eq!(slots(&wakes), vec![SLOT_SENDER], "one timer per QUIC endpoint: the client's");
    let link = f.route_pairs()[1].0[0];
    assert!(!ep.on_interface(1, 0, 1, link, false, &mut out), "QUIC reacts in the second pass");
    assert!(!ep.on_interface(1, 1, 0, link, false, &mut out));
    assert!(ep.on_interface(1, 1, 1, link, false, &mut out));
    let (_, wakes) = drain(&mut ep, 1, &mut out, &mut bodies);
    assert_eq!(slots(&wakes), vec![SLOT_SENDER], "the client is polled after the change");
}

/// `Vec<Flow>` holds every endpoint inline, each as large as the largest variant: a field added
/// to a variant's inline part would spread every single-path TCP flow (issue 20's hot/cold
/// layout; the state each packet touches beyond a few pointers is boxed).
#[test]
fn every_endpoint_variant_stays_within_single_path_tcps_size_class() {
    use super::any::AnyEndpoint;
    use super::mptcp::MptcpConn;
    use super::quic::QuicPair;
    use super::tcp::TcpConn;
    use super::udp::UdpConn;
    use std::mem::size_of;
    let sizes = [size_of::<TcpConn>(), size_of::<UdpConn>(), size_of::<MptcpConn>(), size_of::<QuicPair>()];
    assert!(sizes.iter().all(|&s| s <= 32), "inline sizes {sizes:?} (TCP, UDP, MPTCP, QUIC)");
    assert!(size_of::<AnyEndpoint>() <= 40, "AnyEndpoint is {} B", size_of::<AnyEndpoint>());
}

/// The scheduler's wake-up (`Scheduler::wake_at`) arms the connection-level slot after the
/// paths' slots, and its expiry offers data again without any ACK: `lossaware` gives the fast
/// path a budget below its window (seed 004 eq. (10) case 2), waits, and at the period's end
/// plans the next period.
#[test]
fn mptcp_scheduler_wake_up_arms_the_connection_slot_and_resumes_sending() {
    use crate::sched::{PathModel, SchedConfig};
    use crate::transport::endpoint::conn_slot;
    let mut spec = spec(include_str!("../../../../scenarios/mptcp-two-paths.toml"));
    let crate::spec::TransportSpec::Mptcp(m) = &mut spec.flows[0].transport else { unreachable!("an mptcp flow") };
    m.scheduler = SchedConfig::from_name("lossaware").unwrap();
    m.cc = CcConfig::default_for("newreno").unwrap();
    m.config.handshake = false;
    m.config.initial_cwnd_segments = 10;
    // Sec. III's idle-channel 802.11a hops (µs): one hop, two hops.
    let us = 1000;
    let hop = |h: Time| PathModel { dtt: h * 258 * us, att: h * 110 * us, per_frame: 196 * us, ack_dc: 32 * us, hops: h as u32 };
    m.path_models = vec![hop(1), hop(2)];
    let f = &spec.flows[0];
    let mut ep = AnyEndpoint::build(&f.transport, f.app.unit_write(), 7).endpoint;
    let (mut out, mut bodies) = (Outbox::default(), Bodies::default());
    ep.start(0, AppStart { bulk: true, bytes: 0, file: false }, &mut out);
    let (sent, wakes) = drain(&mut ep, 0, &mut out, &mut bodies);
    let on = |sent: &[Transmit], p: u16| sent.iter().filter(|t| t.path == p && t.packet.is_data()).count();
    // Path 1 (two hops, the slowest) takes its window of 10; path 0 gets 2 (case 2: 2 packets
    // of T^j + ATT = 368 + 196 (j − 1) µs fit in path 1's 736 µs one-packet round).
    assert_eq!((on(&sent, 0), on(&sent, 1)), (2, 10));
    // The period is path 1's round of 10: T^10 + ATT = 516 + 9·196 + 220 = 2500 µs.
    let slot = conn_slot(2);
    assert!(wakes.contains(&Wake::Timer { slot, deadline: Some(2500 * us) }), "{wakes:?}");
    // No ACK comes; the wake-up alone starts the next period: 2 more on path 0.
    ep.on_timeout(2500 * us, slot, &mut out);
    let (sent, _) = drain(&mut ep, 2500 * us, &mut out, &mut bodies);
    assert_eq!(on(&sent, 0), 2);
}
