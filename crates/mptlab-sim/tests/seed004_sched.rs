//! Seed 004's Fig. 1 end to end: MPTCP over a one-hop and a two-hop path, w_1 = w_2 = 1, no
//! loss. P-MPTCP (`lossaware` + `newreno5`) relaxes P_1's window (CR) and puts packet 3 on P_1
//! inside the period (P_2's round); MinRTT + NewReno (C-MPTCP) doubles P_1's window and starts a
//! 2-packet round that ends after the period.
//!
//! The paths are point-to-point links whose times stand in for the idle-channel Wi-Fi times of
//! Sec. III: 40 Mbit/s access links (a 1068 B data packet takes 213.6 µs, a 52 B ACK 10.4 µs,
//! the 10 Gbit/s second hop 0.854 µs and 0.042 µs), one-way delays of 50 µs (P_1) and 240 µs
//! (P_2). Per path, the RTT-model terms are then DTT = delay + 214.454 µs, ATT = delay +
//! 10.442 µs, per_frame 213.6 µs (eq. (10): the next packet of a batch one serialisation
//! later), ack_dc 10.4 µs: RTT_1 = 324.896 µs, RTT_2 = 704.896 µs. P_1's period is RTT_2: its
//! first round (case 4) leaves 380 µs, less than a 2-packet round (538.5 µs) but more than a
//! 1-packet one: case 2, w* = 1.

mod common;

use common::*;
use mptlab_sim::cc::CongestionControl;
use mptlab_sim::engine::Time;
use mptlab_sim::sched::PathModel;
use mptlab_sim::sim::Simulation;
use mptlab_sim::spec::TransportSpec;
use mptlab_sim::transport::mptcp::MptcpConn;
use mptlab_sim::transport::AnyEndpoint;

const NS: Time = 1;
const US: Time = 1000 * NS;

fn model(delay_ns: Time) -> PathModel {
    PathModel { dtt: delay_ns + 214_454, att: delay_ns + 10_442, per_frame: 213_600, ack_dc: 10_400, hops: 1 }
}

fn fig1(cc: &str, scheduler: &str) -> Simulation {
    let flow = format!(
        "cc = \"{cc}\"\nscheduler = \"{scheduler}\"\napp = \"bulk\"\n\
         tcp = {{ handshake = false, mss = \"1000B\", initial_cwnd = 1, delayed_ack = {{ enabled = false }} }}"
    );
    let toml = two_path_scenario("mptcp", "40Mbps", "50us", "40Mbps", "240us", &flow, "20ms");
    let mut l = load(&toml, None);
    let TransportSpec::Mptcp(m) = &mut l.spec.flows[0].transport else { panic!("an MPTCP flow") };
    m.path_models = vec![model(50 * US), model(240 * US)];
    let mut sim = Simulation::new(l.spec);
    conn_mut(&mut sim).snd.subs.iter_mut().for_each(|s| s.snd.keep_cc_history());
    sim
}

fn conn(sim: &Simulation) -> &MptcpConn {
    match &sim.flows[0].endpoint {
        AnyEndpoint::Mptcp(c) => c,
        _ => panic!("an MPTCP flow"),
    }
}

fn conn_mut(sim: &mut Simulation) -> &mut MptcpConn {
    match &mut sim.flows[0].endpoint {
        AnyEndpoint::Mptcp(c) => c,
        _ => panic!("an MPTCP flow"),
    }
}

/// (segments sent, bytes acknowledged) of each path.
fn progress(sim: &Simulation) -> [(u64, u64); 2] {
    let s = &conn(sim).snd.subs;
    [0, 1].map(|i| (s[i].snd.stats.segments_sent, s[i].snd.snd_una()))
}

/// RTT_2 = the period: 704.896 µs.
const PERIOD: Time = 704_896;

#[test]
fn fig1_lossaware_with_newreno5_puts_packet_3_on_the_one_hop_path_within_the_period() {
    let mut sim = fig1("newreno5", "lossaware");
    // Just before P_1's first ACK (324.896 µs): packet 1 on P_1, packet 2 on P_2, then waiting.
    sim.advance(324 * US);
    assert_eq!(progress(&sim), [(1, 0), (1, 0)]);
    // Just before the period ends: packet 3 went on P_1 at RTT_1 and is already acknowledged
    // (2·RTT_1 = 649.8 µs); P_2's packet is not yet.
    sim.advance(PERIOD - 1);
    assert_eq!(progress(&sim), [(2, 2000), (1, 0)]);
    // P_1's controller went SS → CR (w* = 1) at RTT_1 (324.897 µs: the 1 ns is the 10 Gbit/s
    // hop's rounding), then grew again from 1 (SS) at 2·RTT_1.
    let p1 = &conn(&sim).snd.subs[0].snd;
    let states: Vec<_> = p1.cc_state_changes().iter().map(|&(t, s)| (t, s)).collect();
    assert!(states.iter().any(|&(t, s)| s == "cr" && t == 324_897), "P_1 states {states:?}");
    assert_eq!((p1.cwnd(), p1.cc().state_name()), (2000, "ss"));
    // The scheduler's wake-up at the period's end starts the next period without waiting for
    // an ACK of P_2 first: P_1 sends again right at the period's end.
    sim.advance(PERIOD);
    assert!(progress(&sim)[0].0 > 2, "{:?}", progress(&sim));
}

#[test]
fn fig1_minrtt_with_newreno_starts_a_two_packet_round_that_overruns_the_period() {
    let mut sim = fig1("newreno", "minrtt");
    sim.advance(PERIOD - 1);
    let [(sent1, acked1), (sent2, _)] = progress(&sim);
    // At RTT_1 the window doubled and both packets of the round went out at once (3 on P_1 by
    // then, plus what the ACK of packet 3 released); the round's second packet is acknowledged
    // only at RTT_1 + 538.5 µs = 863.4 µs, after the period.
    assert_eq!(sent2, 1);
    assert!(sent1 >= 3, "P_1 sent {sent1}");
    assert!(acked1 < 3000, "P_1 acknowledged {acked1} B by the period's end");
    sim.advance(864 * US);
    assert!(progress(&sim)[0].1 >= 3000);
}
