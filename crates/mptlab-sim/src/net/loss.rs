//! Channel loss models applied per packet as it is transmitted on a link.
//!
//! - Bernoulli: i.i.d. loss with probability p.
//! - Gilbert–Elliott (Gilbert 1960, Elliott 1963): a two-state Markov chain advanced once per
//!   packet; the packet is lost with the loss probability of the state it is sent in. The state
//!   transition is drawn *before* the loss decision, so a packet sent right after a transition
//!   already sees the new state. Mean loss = (π_b·loss_bad + π_g·loss_good) with
//!   π_b = p_gb/(p_gb+p_bg).

use super::config::LossSpec;
use mptlab_engine::RngStream;

pub struct LossModel {
    spec: LossSpec,
    bad: bool,
}

impl LossModel {
    pub fn new(spec: LossSpec) -> Self {
        Self { spec, bad: false }
    }

    pub fn is_lossless(&self) -> bool {
        matches!(self.spec, LossSpec::None)
    }

    /// Decide whether the next packet is lost.
    #[inline]
    pub fn lose(&mut self, rng: &mut RngStream) -> bool {
        match self.spec {
            LossSpec::None => false,
            LossSpec::Bernoulli { p } => rng.bernoulli(p),
            LossSpec::GilbertElliott { p_good_to_bad, p_bad_to_good, loss_good, loss_bad } => {
                let flip = if self.bad { p_bad_to_good } else { p_good_to_bad };
                if rng.bernoulli(flip) {
                    self.bad = !self.bad;
                }
                rng.bernoulli(if self.bad { loss_bad } else { loss_good })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mptlab_engine::StreamId;

    fn loss_rate(spec: LossSpec, n: usize) -> f64 {
        let mut m = LossModel::new(spec);
        let mut rng = RngStream::new(3, StreamId::new(1, 1));
        (0..n).filter(|_| m.lose(&mut rng)).count() as f64 / n as f64
    }

    #[test]
    fn bernoulli_loss_rate_matches_p() {
        let r = loss_rate(LossSpec::Bernoulli { p: 0.02 }, 500_000);
        assert!((r - 0.02).abs() < 0.001, "{r}");
    }

    #[test]
    fn gilbert_elliott_mean_loss_matches_stationary_distribution() {
        let (gb, bg) = (0.01, 0.1);
        let r = loss_rate(LossSpec::GilbertElliott { p_good_to_bad: gb, p_bad_to_good: bg, loss_good: 0.0, loss_bad: 0.5 }, 1_000_000);
        let expected = gb / (gb + bg) * 0.5;
        assert!((r - expected).abs() < 0.004, "{r} vs {expected}");
    }

    #[test]
    fn gilbert_elliott_losses_are_bursty() {
        // Mean burst length of consecutive losses exceeds the i.i.d. value 1/(1-p).
        let mut m = LossModel::new(LossSpec::GilbertElliott { p_good_to_bad: 0.01, p_bad_to_good: 0.2, loss_good: 0.0, loss_bad: 0.9 });
        let mut rng = RngStream::new(5, StreamId::new(1, 1));
        let (mut bursts, mut losses, mut prev) = (0u64, 0u64, false);
        for _ in 0..1_000_000 {
            let l = m.lose(&mut rng);
            if l {
                losses += 1;
                if !prev {
                    bursts += 1;
                }
            }
            prev = l;
        }
        let mean_burst = losses as f64 / bursts as f64;
        let p = losses as f64 / 1e6;
        assert!(mean_burst > 2.0 / (1.0 - p), "mean burst {mean_burst}");
    }
}
