//! PROBE_RTT (the draft §4.3.5, Linux `bbr_update_min_rtt`, `bbr_check_probe_rtt_done`): when
//! RTprop has not been matched or lowered for 10 s, the queue BBR itself keeps (up to one BDP
//! in PROBE_BW) may be hiding the propagation delay. Cut cwnd to 4 segments until the flight
//! is that small, hold it for max(200 ms, one round trip) so that every flow sharing the
//! bottleneck is likely to overlap, then restore the saved cwnd and go back to PROBE_BW (or to
//! STARTUP if the pipe was never filled). 200 ms per 10 s bounds the cost to about 2 %.
//!
//! While probing, the sender is deliberately slow; its rate samples would drag the bandwidth
//! estimate down. Linux marks the connection application-limited on every PROBE_RTT ACK
//! (C.app_limited = delivered + inflight); samples of segments sent until that much has been
//! delivered are then ignored unless they raise the estimate. The transport's mark is not
//! reachable from here, so `ProbeRtt` keeps the equivalent range of `delivered` counts.

use super::{Bbr, Mode, MIN_PIPE_CWND_SEGMENTS};
use crate::cc::AckEvent;
use mptlab_engine::time::MILLISECOND;
use mptlab_engine::Time;

/// ProbeRTTDuration: 200 ms at 4 segments; long enough to overlap other flows' probes and to
/// see the empty queue, short enough to cost about 2 % of the 10 s window.
pub const PROBE_RTT_DURATION: Time = 200 * MILLISECOND;

#[derive(Clone, Copy, Debug, Default)]
pub struct ProbeRtt {
    /// When the 200 ms at minimum flight will have passed (None until the flight is down).
    done_stamp: Option<Time>,
    /// A round trip has passed since the flight came down.
    round_done: bool,
    /// The application-limited mark: samples of segments sent while C.delivered was in
    /// [from, until] are application-limited.
    mark: Option<(u64, u64)>,
}

impl ProbeRtt {
    /// The sample of a segment sent when `prior_delivered` bytes had been delivered falls under
    /// PROBE_RTT's application-limited mark.
    pub fn marks(&self, prior_delivered: u64) -> bool {
        self.mark.is_some_and(|(from, until)| prior_delivered >= from && prior_delivered <= until)
    }
}

impl Bbr {
    /// The draft's BBRUpdateRTprop and BBRCheckProbeRTT.
    pub(super) fn update_rtprop_and_probe_rtt(&mut self, ev: &AckEvent) {
        // The first estimate is the transport's minimum, which includes the handshake's RTT
        // (Linux `bbr_init`: min_rtt_us = tcp_min_rtt(tp)).
        let sample = match ev.rtt_sample {
            _ if self.rtprop.get().is_none() && ev.min_rtt > 0 && ev.min_rtt < Time::MAX => Some(ev.min_rtt),
            r => r,
        };
        if let Some(r) = sample {
            self.seed_rng(r);
        }
        // The mark ends once the connection has delivered past it.
        if self.mode != Mode::ProbeRtt && self.probe_rtt.mark.is_some_and(|(_, until)| ev.delivered_total > until) {
            self.probe_rtt.mark = None;
        }
        let expired = self.rtprop.update(ev.now, sample);
        if expired && !self.idle_restart && self.mode != Mode::ProbeRtt {
            self.transition_to(Mode::ProbeRtt);
            let (cwnd, mode) = (self.cwnd, self.mode);
            self.recovery.save_cwnd(cwnd, mode);
            self.probe_rtt.done_stamp = None;
            self.probe_rtt.mark = Some((ev.delivered_total, ev.delivered_total));
        }
        if self.mode == Mode::ProbeRtt {
            self.handle_probe_rtt(ev);
        }
        if ev.bytes_delivered > 0 {
            self.idle_restart = false;
        }
    }

    /// The draft's BBRHandleProbeRTT.
    fn handle_probe_rtt(&mut self, ev: &AckEvent) {
        if let Some((from, until)) = self.probe_rtt.mark {
            self.probe_rtt.mark = Some((from, until.max(ev.delivered_total + ev.in_flight)));
        }
        let min_flight = MIN_PIPE_CWND_SEGMENTS * self.mss;
        match self.probe_rtt.done_stamp {
            None if ev.in_flight <= min_flight => {
                self.probe_rtt.done_stamp = Some(ev.now + PROBE_RTT_DURATION);
                self.probe_rtt.round_done = false;
                // A round trip at the minimum flight starts now.
                self.rounds.next_round_delivered = ev.delivered_total;
            }
            None => {}
            Some(_) => {
                if self.rounds.start {
                    self.probe_rtt.round_done = true;
                }
                if self.probe_rtt.round_done {
                    self.check_probe_rtt_done(ev.now);
                }
            }
        }
    }

    /// Linux `bbr_check_probe_rtt_done`: after the 200 ms, refresh RTprop's stamp (the queue
    /// has been drained: what was measured is the propagation delay), restore cwnd and resume.
    fn check_probe_rtt_done(&mut self, now: Time) {
        if self.probe_rtt.done_stamp.is_none_or(|done| now <= done) {
            return;
        }
        self.rtprop.refresh(now);
        self.cwnd = self.cwnd.max(self.recovery.prior_cwnd());
        self.reset_mode(now);
    }

    /// A transmission restarted an idle connection (Linux `bbr_cwnd_event`, CA_EVENT_TX_START):
    /// no need to probe at 1.25 into an empty pipe, and a PROBE_RTT whose time is up may end
    /// now (an idle pipe has drained the queue).
    pub(super) fn on_idle_restart(&mut self, now: Time) {
        self.idle_restart = true;
        match self.mode {
            Mode::ProbeBw => {
                let rate = Self::pacing_rate_for(self.btl_bw.get(), super::GAIN_UNIT);
                if rate > 0 {
                    self.pacing_rate = rate;
                }
            }
            Mode::ProbeRtt => self.check_probe_rtt_done(now),
            Mode::Startup | Mode::Drain => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::filters::MIN_RTT_WINDOW;
    use super::super::testing::*;
    use super::super::{Mode, GAIN_UNIT};
    use super::*;
    use crate::cc::CongestionControl;
    use mptlab_engine::time::{MILLISECOND as MS, SECOND};

    /// Steps of `dt` with RTT samples above RTprop until PROBE_RTT starts; returns the time.
    fn until_probe_rtt(p: &mut Path, dt: Time) -> Time {
        let rtt = p.rtt;
        for _ in 0..100_000 {
            p.ack(Ack { dt, bytes: p.bw * dt / 1_000_000_000, rtt: Some(rtt + 5 * MS), new_round: p.round_due(), ..p.default_ack() });
            if p.bbr.mode() == Mode::ProbeRtt {
                return p.now;
            }
        }
        panic!("no PROBE_RTT");
    }

    #[test]
    fn probe_rtt_starts_when_min_rtt_has_not_been_refreshed_for_ten_seconds() {
        let rtt = 20 * MS;
        let mut p = Path::new(12_500_000, rtt);
        p.fill_pipe();
        let stamp = p.bbr.rtprop.stamp();
        let began = until_probe_rtt(&mut p, 5 * MS);
        assert!(began > stamp + MIN_RTT_WINDOW && began <= stamp + MIN_RTT_WINDOW + 5 * MS, "entered at {began}, stamp {stamp}");
        assert_eq!(p.bbr.window(), 4 * MSS, "cwnd = 4 segments");
        assert_eq!((p.bbr.pacing_gain(), p.bbr.cwnd_gain()), (GAIN_UNIT, GAIN_UNIT));
        assert_eq!(p.bbr.rtprop(), Some(rtt + 5 * MS), "the expired filter took the new sample");
    }

    #[test]
    fn probe_rtt_holds_four_segments_for_200_ms_and_a_round_then_returns_to_probe_bw() {
        let rtt = 20 * MS;
        let mut p = Path::new(12_500_000, rtt);
        p.fill_pipe();
        p.run_for(1000 * MS, 5 * MS);
        let cwnd_before = p.bbr.window();
        let bw_before = p.bbr.btl_bw();
        until_probe_rtt(&mut p, 5 * MS);
        // The flight drains over some ACKs; PROBE_RTT's clock starts when it is down to 4.
        p.ack(Ack { dt: 5 * MS, bytes: 5_000, in_flight: 50_000, ..p.default_ack() });
        p.ack(Ack { dt: 5 * MS, bytes: 5_000, in_flight: 4 * MSS, ..p.default_ack() });
        let low_since = p.now;
        let mut left = None;
        while p.now < low_since + 2000 * MS {
            // One small-rate sample per 5 ms: the slow rate of PROBE_RTT itself.
            let a = Ack { dt: 5 * MS, bytes: 1_000, rate: Some(200_000), in_flight: 4 * MSS, new_round: p.round_due(), ..p.default_ack() };
            p.ack(a);
            if p.bbr.mode() == Mode::ProbeRtt {
                assert_eq!(p.bbr.window(), 4 * MSS);
            } else {
                left = Some(p.now);
                break;
            }
        }
        let left = left.expect("PROBE_RTT ended");
        assert!(left - low_since > PROBE_RTT_DURATION, "held {} ms", (left - low_since) / MS);
        assert!(left - low_since <= PROBE_RTT_DURATION + rtt + 5 * MS);
        assert_eq!(p.bbr.state_name(), "probe_bw");
        assert!(p.bbr.window() >= cwnd_before.min(p.bbr.target()), "cwnd restored: {} vs {}", p.bbr.window(), cwnd_before);
        assert_eq!(p.bbr.btl_bw(), bw_before, "PROBE_RTT's own slow samples are ignored");
        assert_eq!(p.bbr.rtprop.stamp(), left, "RTprop's stamp refreshed: next PROBE_RTT in 10 s");
    }

    #[test]
    fn probe_rtt_waits_a_round_trip_even_after_200_ms() {
        let rtt = 500 * MS;
        let mut p = Path::new(1_250_000, rtt);
        p.fill_pipe();
        until_probe_rtt(&mut p, 10 * MS);
        p.ack(Ack { dt: MS, bytes: 1_000, in_flight: 4 * MSS, new_round: false, ..p.default_ack() });
        let low_since = p.now;
        // 300 ms with no round completed: still probing.
        for _ in 0..30 {
            p.ack(Ack { dt: 10 * MS, bytes: 1_000, in_flight: 4 * MSS, new_round: false, ..p.default_ack() });
        }
        assert_eq!(p.bbr.mode(), Mode::ProbeRtt);
        assert!(p.now - low_since > PROBE_RTT_DURATION);
        // The round ends; the next ACK past the 200 ms leaves.
        p.ack(Ack { dt: 10 * MS, bytes: 1_000, in_flight: 4 * MSS, new_round: true, ..p.default_ack() });
        assert_eq!(p.bbr.mode(), Mode::ProbeBw);
    }

    #[test]
    fn probe_rtt_returns_to_startup_if_the_pipe_was_never_filled() {
        let rtt = 20 * MS;
        let mut p = Path::new(12_500_000, rtt);
        // Application-limited the whole time: STARTUP never sees a plateau.
        let mut seen_probe_rtt = false;
        for i in 0..3000 {
            let r = if i == 0 { rtt } else { rtt + MS };
            let a = Ack {
                dt: 5 * MS,
                bytes: 2_000,
                rate: Some(400_000),
                app_limited: true,
                rtt: Some(r),
                in_flight: 2 * MSS,
                new_round: p.round_due(),
                ..p.default_ack()
            };
            p.ack(a);
            seen_probe_rtt |= p.bbr.mode() == Mode::ProbeRtt;
            if seen_probe_rtt && p.bbr.mode() != Mode::ProbeRtt {
                break;
            }
        }
        assert!(seen_probe_rtt);
        assert_eq!(p.bbr.state_name(), "startup");
        assert!(!p.bbr.filled_pipe());
    }

    #[test]
    fn a_new_minimum_rtt_postpones_probe_rtt() {
        let rtt = 20 * MS;
        let mut p = Path::new(12_500_000, rtt);
        p.fill_pipe();
        // RTT samples above RTprop, except one 1 µs below it after 8 s.
        let start = p.now;
        while p.now < start + 15 * SECOND {
            let r = if p.now >= start + 8 * SECOND && p.bbr.rtprop() == Some(rtt) { rtt - 1_000 } else { rtt + MS };
            p.ack(Ack { dt: 5 * MS, bytes: 62_500, rtt: Some(r), new_round: p.round_due(), ..p.default_ack() });
            assert_eq!(p.bbr.mode(), Mode::ProbeBw, "at {} ms", (p.now - start) / MS);
        }
    }

    #[test]
    fn probe_rtt_recurs_every_ten_seconds_while_rtprop_is_only_matched() {
        let rtt = 20 * MS;
        let mut p = Path::new(12_500_000, rtt);
        p.fill_pipe();
        // Every sample equals RTprop (a noiseless path with an empty queue): ties do not restart
        // the window, so PROBE_RTT comes 10 s after the last one ended (see mod.rs).
        let mut entries = vec![];
        let mut exits = vec![];
        let mut mode = p.bbr.mode();
        let start = p.now;
        while p.now < start + 35 * SECOND {
            p.step(5 * MS);
            if p.bbr.mode() != mode {
                if p.bbr.mode() == Mode::ProbeRtt {
                    entries.push(p.now)
                } else {
                    exits.push(p.now)
                }
                mode = p.bbr.mode();
            }
        }
        assert_eq!(entries.len(), 3, "{entries:?}");
        for (exit, next) in exits.iter().zip(&entries[1..]) {
            assert!(*next > exit + MIN_RTT_WINDOW && *next <= exit + MIN_RTT_WINDOW + 5 * MS);
        }
    }

    #[test]
    fn the_mark_covers_segments_sent_in_probe_rtt_and_until_its_flight_is_delivered() {
        let mut pr = ProbeRtt { mark: Some((1_000, 5_000)), ..Default::default() };
        assert!(!pr.marks(999), "sent before PROBE_RTT");
        assert!(pr.marks(1_000) && pr.marks(5_000));
        assert!(!pr.marks(5_001));
        pr.mark = None;
        assert!(!pr.marks(3_000));
    }
}
