//! DRAIN (the draft §4.3.3, Linux `bbr_check_drain`): STARTUP ends with up to 2/ln 2 − 1
//! ≈ 1.9 BDP queued at the bottleneck. DRAIN paces at the inverse gain, ln 2/2 ≈ 0.35, keeping
//! STARTUP's cwnd gain, until the data in flight is back to one BDP (plus the quantization
//! budget), then enters PROBE_BW. The check also runs on the ACK that ends STARTUP, so a
//! sender already at or below one BDP goes straight through.

use super::{Bbr, Mode, GAIN_UNIT};
use crate::cc::AckEvent;

impl Bbr {
    /// The draft's BBRCheckDrain.
    pub(super) fn check_drain(&mut self, ev: &AckEvent) {
        if self.mode == Mode::Startup && self.full_pipe.reached {
            self.transition_to(Mode::Drain);
            // Linux reports the 1·BDP target as ssthresh from here on; never below 2 MSS (with a
            // huge MSS the 1 ms send quantum is less than a segment and the target can fall
            // just short of 2 MSS, below RFC 5681's floor that the fuzz harness checks).
            self.ssthresh = self.inflight(self.btl_bw.get(), GAIN_UNIT).max(2 * self.mss);
        }
        if self.mode == Mode::Drain && ev.in_flight <= self.inflight(self.btl_bw.get(), GAIN_UNIT) {
            self.enter_probe_bw(ev.now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::super::{Mode, DRAIN_GAIN, GAIN_UNIT, HIGH_GAIN};
    use crate::cc::CongestionControl;
    use mptlab_engine::time::MILLISECOND as MS;

    fn in_drain() -> Path {
        let mut p = Path::new(12_500_000, 20 * MS);
        p.rounds(1, 3_000_000);
        p.rounds(1, 6_000_000);
        p.rounds(4, 12_500_000);
        assert_eq!(p.bbr.mode(), Mode::Drain);
        p
    }

    #[test]
    fn drain_paces_at_the_inverse_of_the_startup_gain_and_keeps_its_cwnd_gain() {
        let p = in_drain();
        assert_eq!((p.bbr.pacing_gain(), p.bbr.cwnd_gain()), (DRAIN_GAIN, HIGH_GAIN));
        let product = DRAIN_GAIN as f64 * HIGH_GAIN as f64 / 1e6;
        assert!((0.998..=1.001).contains(&product), "drain gain ≈ 1/high gain: {product}");
        let bw = p.bbr.btl_bw();
        assert_eq!(p.bbr.pacing_rate(), Some(pace(bw, DRAIN_GAIN)));
    }

    #[test]
    fn drain_lasts_while_inflight_exceeds_one_bdp() {
        let mut p = in_drain();
        for _ in 0..20 {
            let limit = p.bbr.inflight(p.bbr.btl_bw(), GAIN_UNIT);
            p.ack(Ack { dt: MS, bytes: 12_500, in_flight: limit + 1, ..p.default_ack() });
            assert_eq!(p.bbr.state_name(), "drain");
        }
    }

    #[test]
    fn drain_exits_to_probe_bw_when_inflight_reaches_one_bdp() {
        let mut p = in_drain();
        let bdp = p.bbr.btl_bw() * 20 / 1000;
        assert_eq!(bdp, 250_000);
        let limit = p.bbr.inflight(p.bbr.btl_bw(), GAIN_UNIT);
        assert_eq!(limit, bdp + 3 * p.bbr.send_quantum().unwrap(), "one BDP plus the quantization budget");
        p.ack(Ack { dt: MS, bytes: 12_500, in_flight: limit, ..p.default_ack() });
        assert_eq!(p.bbr.state_name(), "probe_bw");
        assert_eq!(p.bbr.cwnd_gain(), 2 * GAIN_UNIT);
    }

    #[test]
    fn a_sender_already_below_one_bdp_goes_from_startup_straight_to_probe_bw() {
        let mut p = Path::new(12_500_000, 20 * MS);
        p.rounds(3, 12_500_000);
        p.ack(Ack { dt: 20 * MS, bytes: 250_000, rate: Some(12_500_000), in_flight: 10_000, new_round: true, ..p.default_ack() });
        assert_eq!(p.bbr.state_name(), "probe_bw");
    }

    #[test]
    fn drain_sets_ssthresh_to_the_bdp_target() {
        let p = in_drain();
        assert!(p.bbr.ssthresh() < u64::MAX);
        assert!(p.bbr.ssthresh() >= 250_000);
    }
}
