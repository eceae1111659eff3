//! Unit tests: BBRv3 driven by synthetic ACKs. `Path` is a tiny deterministic one-flow network
//! (a FIFO bottleneck of fixed payload rate, fixed propagation RTT, one ACK per segment, no
//! loss) that produces AckEvents with draft-cheng rate samples; `inject` adds hand-made ACKs
//! (losses, low rates) on top of it to reach specific branches.

use super::*;
use crate::cc::{AckEvent, CcParams, CongestionControl, LossEvent, RateSample};
use mptlab_engine::time::{MILLISECOND as MS, SECOND};
use std::collections::VecDeque;

const MSS: u64 = 1000;

fn params() -> CcParams {
    CcParams { mss: MSS as u32, initial_cwnd_segments: 10 }
}

struct Seg {
    sent: Time,
    delivered: u64,
    delivered_time: Time,
    first_sent_time: Time,
    tx_in_flight: u64,
    lost: u64,
    ack_at: Time,
}

struct Path {
    bbr: Bbr2,
    /// Bottleneck rate, payload bytes per second.
    rate: u64,
    rtt: Time,
    now: Time,
    out: VecDeque<Seg>,
    delivered: u64,
    delivered_time: Time,
    first_sent_time: Time,
    lost: u64,
    pace_at: Time,
    link_free_at: Time,
    min_rtt: Time,
    states: Vec<(Time, &'static str)>,
    acks: u64,
}

impl Path {
    fn new(rate_bps: u64, rtt: Time, cfg: &Bbr2Config) -> Self {
        let bbr = Bbr2::new(params(), cfg);
        let states = vec![(0, bbr.state_name())];
        Path {
            bbr,
            rate: rate_bps / 8,
            rtt,
            now: 0,
            out: VecDeque::new(),
            delivered: 0,
            delivered_time: 0,
            first_sent_time: 0,
            lost: 0,
            pace_at: 0,
            link_free_at: 0,
            min_rtt: Time::MAX,
            states,
            acks: 0,
        }
    }

    fn in_flight(&self) -> u64 {
        self.out.len() as u64 * MSS
    }

    fn state(&self) -> State {
        self.bbr.state()
    }

    fn send(&mut self) {
        if self.out.is_empty() {
            self.first_sent_time = self.now;
            self.delivered_time = self.now;
        }
        let arrive = self.now + self.rtt / 2;
        let depart = arrive.max(self.link_free_at) + MSS * SECOND / self.rate;
        self.link_free_at = depart;
        let tx_in_flight = self.in_flight() + MSS;
        self.out.push_back(Seg {
            sent: self.now,
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_sent_time: self.first_sent_time,
            tx_in_flight,
            lost: self.lost,
            ack_at: depart + self.rtt / 2,
        });
        self.bbr.on_packet_sent(self.now, MSS as u32, tx_in_flight);
        // The sender charges payload bytes against the pacing rate.
        let rate = self.bbr.pacing_rate().expect("BBR paces");
        self.pace_at = self.pace_at.max(self.now) + MSS * SECOND / rate;
    }

    fn try_send(&mut self) {
        while self.in_flight() + MSS <= self.bbr.window() && self.pace_at <= self.now {
            self.send();
        }
    }

    fn ack_front(&mut self) {
        let prior_in_flight = self.in_flight();
        let s = self.out.pop_front().unwrap();
        self.delivered += MSS;
        self.delivered_time = self.now;
        self.first_sent_time = s.sent;
        let rtt = self.now - s.sent;
        self.min_rtt = self.min_rtt.min(rtt);
        let interval = (s.sent - s.first_sent_time).max(self.now - s.delivered_time);
        let delivered = self.delivered - s.delivered;
        let rs = RateSample {
            prior_delivered: s.delivered,
            delivered,
            interval,
            delivery_rate: (interval > 0 && interval >= self.min_rtt).then(|| delivered * SECOND / interval),
            is_app_limited: false,
            tx_in_flight: s.tx_in_flight,
            lost: self.lost - s.lost,
            rtt,
        };
        let window = self.bbr.window();
        let ev = AckEvent {
            now: self.now,
            bytes_acked: MSS,
            bytes_delivered: MSS,
            rtt_sample: Some(rtt),
            srtt: rtt,
            min_rtt: self.min_rtt,
            prior_in_flight,
            in_flight: self.in_flight(),
            in_recovery: false,
            cwnd_limited: prior_in_flight + MSS > window,
            mss: MSS as u32,
            bytes_lost: 0,
            delivered_total: self.delivered,
            lost_total: self.lost,
            rate: Some(rs),
            prior_delivered: Some(rs.prior_delivered),
        };
        self.on_ack(&ev);
    }

    fn on_ack(&mut self, ev: &AckEvent) {
        self.bbr.on_ack(ev);
        self.acks += 1;
        let name = self.bbr.state_name();
        if self.states.last().is_none_or(|(_, s)| *s != name) {
            self.states.push((self.now, name));
        }
        // Invariants after every ACK.
        let w = self.bbr.window();
        assert!(w >= MSS, "window {w} below one segment at {}", self.now);
        let p = self.bbr.pacing_rate().unwrap();
        assert!(p > 0 && p < u64::MAX, "pacing rate {p}");
        if self.bbr.state() == State::ProbeRtt && !self.bbr.in_loss_recovery() {
            assert!(w >= 4 * MSS, "PROBE_RTT window {w} below 4 segments");
        }
    }

    /// Run the path until `t_end`.
    fn run_until(&mut self, t_end: Time) {
        loop {
            self.try_send();
            let next_ack = self.out.front().map(|s| s.ack_at);
            let can_send = self.in_flight() + MSS <= self.bbr.window();
            let next_send = can_send.then(|| self.pace_at.max(self.now));
            let Some(next) = [next_ack, next_send].into_iter().flatten().min() else { break };
            if next > t_end {
                self.now = t_end;
                break;
            }
            self.now = next;
            while self.out.front().is_some_and(|s| s.ack_at <= self.now) {
                self.ack_front();
            }
        }
    }

    /// Run until the controller is in `state` (panics after `limit`).
    fn run_until_state(&mut self, state: State, limit: Time) {
        while self.state() != state {
            assert!(self.now < limit, "{state:?} not reached by {limit} ns; states: {:?}", self.states);
            let t = self.now + MS / 10;
            // Stop at the ACK that changes state.
            loop {
                self.try_send();
                let Some(at) = self.out.front().map(|s| s.ack_at) else {
                    self.run_until(t);
                    break;
                };
                if at > t {
                    self.run_until(t);
                    break;
                }
                self.run_until(at);
                if self.state() == state {
                    return;
                }
            }
        }
    }

    /// A hand-made ACK delivering one segment, built from the path's current state; `f` edits
    /// it. It does not consume a segment of the path.
    fn inject(&mut self, f: impl FnOnce(&mut AckEvent, &Self)) {
        let bw = self.bbr.max_bw;
        let mut ev = AckEvent {
            now: self.now,
            bytes_acked: MSS,
            bytes_delivered: MSS,
            rtt_sample: None,
            srtt: self.min_rtt,
            min_rtt: self.min_rtt,
            prior_in_flight: self.in_flight(),
            in_flight: self.in_flight(),
            in_recovery: false,
            cwnd_limited: false,
            mss: MSS as u32,
            bytes_lost: 0,
            delivered_total: self.delivered + MSS,
            lost_total: self.lost,
            rate: Some(RateSample {
                // An old segment: no round starts unless a test says so.
                prior_delivered: self.delivered.saturating_sub(self.in_flight() + MSS),
                delivered: MSS,
                interval: self.min_rtt,
                delivery_rate: Some(bw),
                is_app_limited: false,
                tx_in_flight: self.in_flight(),
                lost: 0,
                rtt: self.min_rtt,
            }),
            prior_delivered: None,
        };
        f(&mut ev, self);
        ev.prior_delivered = ev.rate.map(|r| r.prior_delivered);
        self.delivered = ev.delivered_total;
        self.lost = ev.lost_total;
        self.on_ack(&ev);
    }

    fn names(&self) -> Vec<&'static str> {
        self.states.iter().map(|(_, s)| *s).collect()
    }
}

fn default_path() -> Path {
    // 10 Mbit/s, 40 ms: BDP = 50 000 B = 50 segments of 1000 B.
    Path::new(10_000_000, 40 * MS, &Bbr2Config::default())
}

#[test]
fn a_new_controller_starts_in_startup_with_initial_window_and_positive_pacing() {
    let b = Bbr2::new(params(), &Bbr2Config::default());
    assert_eq!(b.state_name(), "startup");
    assert_eq!(b.window(), 10 * MSS);
    let p = b.pacing_rate().unwrap();
    // 2.77 · 10 000 B / 1 ms, in payload bytes.
    assert_eq!(p, 27_700_000);
    assert!(b.send_quantum().unwrap() >= 2 * MSS);
}

#[test]
fn startup_exits_on_bandwidth_plateau_then_drains_into_probe_bw() {
    let mut p = default_path();
    p.run_until(3 * SECOND);
    let names = p.names();
    // DRAIN ends when inflight <= BDP, which is also DOWN's exit test, so DOWN -> CRUISE
    // follows within the same ACK: the recorded third state is CRUISE.
    assert_eq!(&names[..3], &["startup", "drain", "probe_bw_cruise"], "{:?}", p.states);
    assert!(p.bbr.full_bw_reached);
    // max_bw within 5 % of the 1.25 MB/s bottleneck; min_rtt = propagation + one transmission.
    let bw = p.bbr.max_bw as f64;
    assert!((bw / 1.25e6 - 1.0).abs() < 0.05, "max_bw {bw}");
    assert_eq!(p.bbr.min_rtt, 40 * MS + MSS * SECOND / p.rate);
    // STARTUP lasted a handful of rounds (log2 of 50 segments / 10, plus three plateau rounds).
    let drain_at = p.states[1].0;
    assert!(drain_at < 800 * MS, "STARTUP ended at {drain_at}");
    assert_recorded_transitions_are_legal(&p.states);
}

/// Recorded neighbours must be joined by one edge, or by two through PROBE_BW_DOWN (DRAIN,
/// PROBE_RTT or UP -> DOWN -> CRUISE within one ACK); the debug assertion checks every step.
fn assert_recorded_transitions_are_legal(states: &[(Time, &'static str)]) {
    for w in states.windows(2) {
        let (from, to) = (name_state(w[0].1), name_state(w[1].1));
        let via_down = is_legal_transition(from, State::ProbeBwDown) && is_legal_transition(State::ProbeBwDown, to);
        assert!(is_legal_transition(from, to) || via_down, "{from:?} -> {to:?} at {}", w[1].0);
    }
}

fn name_state(n: &str) -> State {
    use State::*;
    [Startup, Drain, ProbeBwDown, ProbeBwCruise, ProbeBwRefill, ProbeBwUp, ProbeRtt].into_iter().find(|s| s.name() == n).unwrap()
}

#[test]
fn probe_bw_cycles_down_cruise_refill_up_down() {
    let mut p = default_path();
    p.run_until(12 * SECOND);
    let names = p.names();
    let cycle = ["probe_bw_down", "probe_bw_cruise", "probe_bw_refill", "probe_bw_up", "probe_bw_down"];
    let at = names.windows(5).position(|w| w == cycle).unwrap_or_else(|| panic!("no full cycle in {:?}", p.states));
    // The wait from DOWN to REFILL is min(2–3 s, Reno rounds = 50 at 40 ms ≈ 2.0 s).
    let down = p.states[at].0;
    let refill = p.states[at + 2].0;
    assert!(refill - down <= 3 * SECOND + 50 * MS, "DOWN at {down}, REFILL at {refill}");
    assert!(refill - down >= SECOND, "DOWN at {down}, REFILL at {refill}");
    // REFILL lasts one round, UP a few (until the delivery rate stops growing).
    let up = p.states[at + 3].0;
    let down2 = p.states[at + 4].0;
    assert!(up - refill <= 100 * MS, "REFILL {refill} -> UP {up}");
    assert!(down2 - up <= 400 * MS, "UP {up} -> DOWN {down2}");
    // Without loss nothing bounded the volume.
    assert_eq!(p.bbr.inflight_hi, INF);
    assert_recorded_transitions_are_legal(&p.states);
}

#[test]
fn probe_rtt_after_5s_without_a_lower_rtt_sample_and_window_stays_at_least_4_segments() {
    let mut p = default_path();
    p.run_until(12 * SECOND);
    let entries: Vec<Time> = p.states.iter().filter(|(_, s)| *s == "probe_rtt").map(|(t, _)| *t).collect();
    // The first RTT sample arrives after ~41 ms; the fixed-delay path never beats it, so the
    // ProbeRTT clock expires 5 s later (strictly after), then again 5 s after the exit.
    assert!(entries.len() >= 2, "{:?}", p.states);
    assert!(entries[0] > 5 * SECOND && entries[0] < 5 * SECOND + 200 * MS, "first PROBE_RTT at {}", entries[0]);
    let exit = p.states.iter().find(|(t, s)| *t > entries[0] && *s != "probe_rtt").unwrap().0;
    assert!(exit - entries[0] >= 200 * MS && exit - entries[0] < 400 * MS, "PROBE_RTT {} .. {exit}", entries[0]);
    assert!(entries[1] > exit + 5 * SECOND && entries[1] < exit + 5 * SECOND + 200 * MS);
    // After PROBE_RTT the cycle resumes in CRUISE (DOWN then at once CRUISE).
    let after = p.states.iter().find(|(t, _)| *t == exit).unwrap().1;
    assert_eq!(after, "probe_bw_cruise");
}

#[test]
fn probe_rtt_window_is_four_segments_when_half_the_bdp_is_smaller() {
    // 1 Mbit/s, 4 ms: BDP = 500 B, half of it is far below BBRMinPipeCwnd.
    let mut p = Path::new(1_000_000, 4 * MS, &Bbr2Config::default());
    p.run_until_state(State::ProbeRtt, 7 * SECOND);
    p.run_until(p.now + 50 * MS);
    assert_eq!(p.state(), State::ProbeRtt);
    assert_eq!(p.bbr.window(), 4 * MSS);
    p.run_until(8 * SECOND); // the invariants of `Path::on_ack` hold throughout
    assert_ne!(p.state(), State::ProbeRtt);
}

/// Drive a default path into PROBE_BW_UP and inject an ACK whose segment saw 5 % loss.
fn lossy_ack_in_up(cfg: &Bbr2Config) -> (Path, u64) {
    let mut p = Path::new(10_000_000, 40 * MS, cfg);
    p.run_until_state(State::ProbeBwUp, 10 * SECOND);
    assert!(p.bbr.bw_probe_samples);
    let tx = p.in_flight() + 10 * MSS;
    p.inject(|ev, _| {
        ev.bytes_lost = MSS;
        let rs = ev.rate.as_mut().unwrap();
        rs.tx_in_flight = tx;
        rs.lost = tx / 20; // 5 % > 2 %
    });
    (p, tx)
}

#[test]
fn a_round_with_more_than_2pct_loss_sets_inflight_hi_to_tx_in_flight() {
    let (p, tx) = lossy_ack_in_up(&Bbr2Config::default());
    // inflight_hi = max(tx_in_flight, β · min(bdp, cwnd)) = tx_in_flight here.
    assert!(p.bbr.bdp_of(p.bbr.bw) * 7 / 10 < tx);
    assert_eq!(p.bbr.inflight_hi, tx);
    // Loss ends the probe: UP -> DOWN, and on to CRUISE within the same ACK when inflight is
    // already at most the BDP and below inflight_hi's headroom.
    assert!(matches!(p.state(), State::ProbeBwDown | State::ProbeBwCruise), "{:?}", p.state());
    assert!(!p.bbr.bw_probe_samples, "one reaction per probe");
    assert!(p.bbr.window() <= tx);
}

#[test]
fn the_same_loss_under_a_raised_loss_threshold_leaves_inflight_hi_unset() {
    let (p, _) = lossy_ack_in_up(&Bbr2Config { loss_threshold: 0.1, ..Default::default() });
    assert_eq!(p.bbr.inflight_hi, INF);
    assert_eq!(p.state(), State::ProbeBwUp);
}

#[test]
fn beta_cuts_bw_lo_and_inflight_lo_to_0_7_per_lossy_round() {
    let mut p = default_path();
    p.run_until_state(State::ProbeBwCruise, 5 * SECOND);
    let max_bw = p.bbr.max_bw;
    let low = max_bw / 10;
    // A loss round whose delivery signals are all low: bw_latest and inflight_latest stay below
    // 0.7 × the model, so β decides.
    let lossy_round = |p: &mut Path| {
        p.inject(|ev, p| {
            let rs = ev.rate.as_mut().unwrap();
            rs.prior_delivered = p.delivered; // a new segment: a loss round starts
            rs.delivery_rate = Some(low);
        });
        p.inject(|ev, _| {
            ev.bytes_lost = MSS;
            ev.rate.as_mut().unwrap().delivery_rate = Some(low);
        });
        let cwnd = p.bbr.window();
        p.inject(|ev, p| {
            let rs = ev.rate.as_mut().unwrap();
            rs.prior_delivered = p.delivered;
            rs.delivery_rate = Some(low);
        });
        cwnd
    };
    let cwnd = lossy_round(&mut p);
    assert_eq!(p.state(), State::ProbeBwCruise);
    assert_eq!(p.bbr.bw_lo, (max_bw as f64 * 0.7) as u64);
    assert_eq!(p.bbr.inflight_lo, (cwnd as f64 * 0.7) as u64);
    assert_eq!(p.bbr.bw, p.bbr.bw_lo, "bw = min(max_bw, bw_lo)");
    assert!(p.bbr.window() <= p.bbr.inflight_lo);
    let expected = p.bbr.bw_lo as f64 * 0.99;
    assert!((p.bbr.pacing_rate().unwrap() as f64 / expected - 1.0).abs() < 1e-6);
    let (bw_lo, inflight_lo) = (p.bbr.bw_lo, p.bbr.inflight_lo);
    lossy_round(&mut p);
    assert_eq!(p.bbr.bw_lo, (bw_lo as f64 * 0.7) as u64);
    assert_eq!(p.bbr.inflight_lo, (inflight_lo as f64 * 0.7) as u64);
    assert_eq!(p.bbr.max_bw, max_bw, "the long-term model is untouched");
}

#[test]
fn startup_exits_on_excessive_loss_and_bounds_inflight_hi() {
    for (events, exits) in [(7, true), (4, false)] {
        let mut p = default_path();
        p.run_until(250 * MS);
        assert_eq!(p.state(), State::Startup);
        p.bbr.on_congestion_event(&LossEvent { now: p.now, flight_size: p.in_flight(), mss: MSS as u32, during_recovery: false });
        for _ in 0..events - 1 {
            p.inject(|ev, _| {
                ev.bytes_lost = MSS;
                ev.in_recovery = true;
                ev.rate.as_mut().unwrap().delivery_rate = None;
            });
        }
        let latest = p.bbr.inflight_latest;
        p.inject(|ev, p| {
            ev.bytes_lost = MSS;
            ev.in_recovery = true;
            let rs = ev.rate.as_mut().unwrap();
            rs.prior_delivered = p.delivered; // the loss round ends
            rs.delivery_rate = None;
            rs.lost = rs.tx_in_flight / 10;
        });
        assert_eq!(p.bbr.full_bw_reached, exits, "{events} loss events");
        if exits {
            assert!(matches!(p.state(), State::Drain | State::ProbeBwDown));
            let bdp = p.bbr.bdp_multiple(p.bbr.max_bw, 1.0);
            assert_eq!(p.bbr.inflight_hi, bdp.max(latest.max(MSS)));
        } else {
            assert_eq!(p.state(), State::Startup);
            assert_eq!(p.bbr.inflight_hi, INF);
        }
    }
}

#[test]
fn fast_recovery_conserves_packets_for_a_round_then_restores_the_window() {
    let mut p = default_path();
    p.run_until_state(State::ProbeBwCruise, 5 * SECOND);
    let before = p.bbr.window();
    p.bbr.on_congestion_event(&LossEvent { now: p.now, flight_size: p.in_flight(), mss: MSS as u32, during_recovery: false });
    let pipe = p.in_flight() - 3 * MSS;
    p.inject(|ev, _| {
        ev.bytes_lost = 3 * MSS;
        ev.in_flight = pipe;
        ev.in_recovery = true;
    });
    // cwnd = pipe + max(newly_acked, 1 MSS), then less the newly lost, but ≥ pipe + acked.
    assert_eq!(p.bbr.window(), pipe + MSS);
    assert!(p.bbr.packet_conservation);
    assert_eq!(p.bbr.prior_cwnd, before);
    p.bbr.on_recovery_exit(p.now);
    p.inject(|_, _| {});
    assert!(!p.bbr.packet_conservation);
    // Restored, then grown by this ACK's delivery as usual (and bounded by the model).
    assert_eq!(p.bbr.inflight_lo, INF);
    assert_eq!(p.bbr.window(), (before + MSS).min(p.bbr.max_inflight));
}

#[test]
fn rto_cuts_the_window_to_one_segment_and_restores_it_once_the_flight_is_cumulatively_acked() {
    let mut p = default_path();
    p.run_until_state(State::ProbeBwCruise, 5 * SECOND);
    let before = p.bbr.window();
    let flight = p.in_flight();
    p.bbr.on_rto(&LossEvent { now: p.now, flight_size: flight, mss: MSS as u32, during_recovery: false });
    assert_eq!(p.bbr.window(), MSS);
    assert!(p.bbr.pacing_rate().unwrap() > 0);
    let mut n = 0;
    while p.bbr.rto_recovery_left.is_some() {
        p.inject(|ev, _| ev.in_flight = MSS);
        n += 1;
        assert!(p.bbr.window() >= MSS);
    }
    assert_eq!(n, flight / MSS);
    assert!(p.bbr.window() >= before.min(p.bbr.max_inflight).min(p.bbr.inflight_lo));
}

#[test]
fn probe_wait_is_a_deterministic_draw_between_2_and_3_seconds() {
    let (lo, hi) = probe_bw::probe_wait_bounds();
    let mut b = Bbr2::new(params(), &Bbr2Config::default());
    let mut waits = vec![];
    for i in 0..64 {
        b.delivered = i * 1_460_000;
        b.pick_probe_wait();
        assert!(b.bw_probe_wait >= lo && b.bw_probe_wait < hi);
        assert!(b.rounds_since_bw_probe <= 1);
        waits.push((b.bw_probe_wait, b.rounds_since_bw_probe));
    }
    let mut c = Bbr2::new(params(), &Bbr2Config::default());
    for (i, w) in waits.iter().enumerate() {
        c.delivered = i as u64 * 1_460_000;
        c.pick_probe_wait();
        assert_eq!((c.bw_probe_wait, c.rounds_since_bw_probe), *w, "same state, same draw");
    }
    let spread = waits.iter().map(|w| w.0).max().unwrap() - waits.iter().map(|w| w.0).min().unwrap();
    assert!(spread > SECOND / 2, "draws cover the interval");
    assert!(waits.iter().any(|w| w.1 == 0) && waits.iter().any(|w| w.1 == 1));
}

#[test]
fn only_the_edges_of_the_state_diagram_are_legal() {
    use State::*;
    assert!(is_legal_transition(Startup, Drain));
    assert!(is_legal_transition(ProbeBwUp, ProbeBwDown));
    assert!(is_legal_transition(ProbeRtt, ProbeBwDown));
    assert!(!is_legal_transition(Startup, ProbeBwUp));
    assert!(!is_legal_transition(ProbeBwCruise, ProbeBwUp));
    assert!(!is_legal_transition(Drain, Startup));
    assert!(!is_legal_transition(ProbeBwUp, ProbeBwCruise));
}

#[cfg(debug_assertions)]
#[test]
#[should_panic(expected = "illegal transition")]
fn an_illegal_transition_panics_in_debug_builds() {
    let mut b = Bbr2::new(params(), &Bbr2Config::default());
    b.transition_to(State::ProbeBwUp);
}

#[test]
fn pacing_is_finite_and_positive_and_the_window_never_zero_in_a_long_run() {
    // The invariants are checked on every ACK by `Path::on_ack`; three paths, 15 s each.
    for (rate, rtt) in [(1_000_000, 4 * MS), (10_000_000, 40 * MS), (100_000_000, 100 * MS)] {
        let mut p = Path::new(rate, rtt, &Bbr2Config::default());
        p.run_until(15 * SECOND);
        assert!(p.acks > 1000);
        let payload = p.bbr.pacing_rate().unwrap() as f64;
        assert!(payload < 2.0 * (rate / 8) as f64, "pacing {payload} B/s on a {rate} bit/s path");
    }
}
