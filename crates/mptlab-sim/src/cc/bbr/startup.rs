//! STARTUP (the draft §4.3.2, Linux `bbr_check_full_bw_reached`): pace and size cwnd at
//! 2/ln 2 of the model so that the delivery rate doubles every round, until the bandwidth
//! estimate stops growing: three consecutive rounds without 25 % growth, counting only rounds
//! that end with a sample not limited by the application (an application-limited plateau says
//! nothing about the path). Why three (tcp_bbr.c): one round for the receiver's window to
//! grow, one to fill it, one to see the higher delivery rate.

use super::{Bbr, Sample};

/// A round must raise the bandwidth estimate by 25 % to count as growth (BBRStartupGrowthTarget
/// 1.25, Linux `bbr_full_bw_thresh`); a doubling pacing rate would give 100 %.
const GROWTH_PERCENT: u64 = 125;

/// Rounds without growth after which the pipe is full (Linux `bbr_full_bw_cnt`).
const ROUNDS_WITHOUT_GROWTH: u32 = 3;

/// The draft's BBR.filled_pipe / full_bw / full_bw_count.
#[derive(Clone, Copy, Debug, Default)]
pub struct FullPipe {
    /// The pipe has been filled (once set, stays set for the connection).
    pub reached: bool,
    /// The bandwidth estimate at the last round that grew it by 25 % (bytes/s).
    pub bw: u64,
    /// Rounds since then.
    pub rounds_without_growth: u32,
}

impl Bbr {
    /// The draft's BBRCheckFullPipe, once per round.
    pub(super) fn check_full_pipe(&mut self, s: Option<Sample>) {
        let app_limited = s.is_none_or(|s| s.app_limited);
        if self.full_pipe.reached || !self.rounds.start || app_limited {
            return;
        }
        let max_bw = self.btl_bw.get();
        let fp = &mut self.full_pipe;
        if max_bw as u128 * 100 >= fp.bw as u128 * GROWTH_PERCENT as u128 {
            fp.bw = max_bw;
            fp.rounds_without_growth = 0;
            return;
        }
        fp.rounds_without_growth += 1;
        fp.reached = fp.rounds_without_growth >= ROUNDS_WITHOUT_GROWTH;
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::super::{Mode, HIGH_GAIN};
    use crate::cc::CongestionControl;
    use mptlab_engine::time::MILLISECOND as MS;

    #[test]
    fn startup_paces_and_sizes_cwnd_at_high_gain() {
        let mut p = Path::new(12_500_000, 20 * MS);
        p.rounds(1, 1_000_000);
        assert_eq!(p.bbr.mode(), Mode::Startup);
        assert_eq!((p.bbr.pacing_gain(), p.bbr.cwnd_gain()), (HIGH_GAIN, HIGH_GAIN));
        assert!((2.884..2.887).contains(&(HIGH_GAIN as f64 / 1000.0)), "2/ln 2");
    }

    #[test]
    fn startup_exits_to_drain_after_three_rounds_without_growth() {
        let mut p = Path::new(12_500_000, 20 * MS);
        for rate in [1_000_000, 2_000_000, 4_000_000, 8_000_000] {
            p.rounds(1, rate);
            assert_eq!(p.bbr.state_name(), "startup");
        }
        p.rounds(2, 8_000_000);
        assert_eq!(p.bbr.state_name(), "startup", "two flat rounds are not enough");
        assert!(!p.bbr.filled_pipe());
        p.rounds(1, 8_000_000);
        assert!(p.bbr.filled_pipe());
        assert_eq!(p.bbr.state_name(), "drain", "the third flat round ends STARTUP");
    }

    #[test]
    fn growth_below_25_percent_per_round_counts_as_a_plateau() {
        let mut p = Path::new(12_500_000, 20 * MS);
        p.rounds(1, 4_000_000);
        for rate in [4_800_000, 4_900_000, 4_990_000] {
            // +20 %, +22.5 %, +24.75 % over the 4 MB/s reference
            p.rounds(1, rate);
        }
        assert_eq!(p.bbr.state_name(), "drain");
    }

    #[test]
    fn growth_of_25_percent_resets_the_count() {
        let mut p = Path::new(12_500_000, 20 * MS);
        p.rounds(3, 4_000_000);
        p.rounds(1, 5_000_000); // exactly +25 %
        p.rounds(2, 5_000_000);
        assert_eq!(p.bbr.state_name(), "startup");
        p.rounds(1, 5_000_000);
        assert_eq!(p.bbr.state_name(), "drain");
    }

    #[test]
    fn application_limited_rounds_do_not_count_toward_the_plateau() {
        let mut p = Path::new(12_500_000, 20 * MS);
        p.rounds(1, 4_000_000);
        for _ in 0..20 {
            let a = Ack { dt: 20 * MS, bytes: 80_000, rate: Some(4_000_000), app_limited: true, new_round: true, ..p.default_ack() };
            p.ack(a);
        }
        assert_eq!(p.bbr.state_name(), "startup");
        assert!(!p.bbr.filled_pipe());
        p.rounds(3, 4_000_000);
        assert_eq!(p.bbr.state_name(), "drain");
    }

    #[test]
    fn samples_within_a_round_do_not_count_as_rounds() {
        let mut p = Path::new(12_500_000, 20 * MS);
        p.rounds(1, 4_000_000);
        for _ in 0..50 {
            p.ack(Ack { dt: MS, bytes: 4_000, rate: Some(4_000_000), new_round: false, ..p.default_ack() });
        }
        assert_eq!(p.bbr.state_name(), "startup");
        assert_eq!(p.bbr.round_count(), 1);
    }

    #[test]
    fn startup_pacing_rate_never_falls_before_the_pipe_is_full() {
        let mut p = Path::new(12_500_000, 20 * MS);
        p.rounds(1, 8_000_000);
        let r = p.bbr.pacing_rate().unwrap();
        // A low sample cannot lower the estimate (max filter) nor the rate.
        p.rounds(1, 1_000_000);
        assert_eq!(p.bbr.pacing_rate().unwrap(), r);
    }

    #[test]
    fn startup_cwnd_grows_by_what_is_delivered() {
        let mut p = Path::new(12_500_000, 20 * MS);
        let w0 = p.bbr.window();
        p.ack(Ack { dt: 20 * MS, bytes: 10 * MSS, rate: Some(500_000), new_round: true, ..p.default_ack() });
        assert_eq!(p.bbr.window(), w0 + 10 * MSS, "slow-start-like doubling");
    }
}
