//! Per-frame loss models of one emulated link direction, decided when the frame is received.
//!
//! The JSON accepted is exactly the resolved `loss` of a link direction (docs/resolve.md,
//! `links[].loss`): `{"model":"none"}`, `{"model":"bernoulli","p"}` or
//! `{"model":"gilbert_elliott","p_good_to_bad","p_bad_to_good","loss_good","loss_bad"}`, all
//! probabilities per packet. The meaning is the simulator's (crates/mptlab-sim/src/net/loss.rs):
//!
//! - Bernoulli: each frame is lost independently with probability p.
//! - Gilbert–Elliott (Gilbert 1960, Elliott 1963): a two-state Markov chain advanced once per
//!   frame, starting in the good state. The state transition is drawn *before* the loss decision,
//!   so the frame right after a transition already sees the new state; the frame is then lost with
//!   the loss probability of its state. Stationary loss = π_bad·loss_bad + π_good·loss_good with
//!   π_bad = p_gb / (p_gb + p_bg).
//!
//! The random numbers are this program's own (xoshiro256++ seeded from `--seed`, one stream per
//! direction, the second one 2^128 steps after the first), not the simulator's streams: the same
//! model, not the same draws.

use rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::Deserialize;

/// A resolved loss model, as docs/resolve.md spells it.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(tag = "model", rename_all = "snake_case", deny_unknown_fields)]
pub enum LossSpec {
    None,
    Bernoulli { p: f64 },
    GilbertElliott { p_good_to_bad: f64, p_bad_to_good: f64, loss_good: f64, loss_bad: f64 },
}

impl LossSpec {
    /// Parse and check a loss model; the error names the offending field.
    pub fn parse(json: &str) -> Result<Self, String> {
        let spec: LossSpec = serde_json::from_str(json).map_err(|e| format!("not a loss model ({e}); expected {{\"model\":\"none\"}}, {{\"model\":\"bernoulli\",\"p\":..}} or {{\"model\":\"gilbert_elliott\",\"p_good_to_bad\":..,\"p_bad_to_good\":..,\"loss_good\":..,\"loss_bad\":..}}"))?;
        let fields: &[(&str, f64)] = match &spec {
            LossSpec::None => &[],
            LossSpec::Bernoulli { p } => &[("p", *p)],
            LossSpec::GilbertElliott { p_good_to_bad, p_bad_to_good, loss_good, loss_bad } => {
                &[("p_good_to_bad", *p_good_to_bad), ("p_bad_to_good", *p_bad_to_good), ("loss_good", *loss_good), ("loss_bad", *loss_bad)]
            }
        };
        for (name, v) in fields {
            if !(0.0..=1.0).contains(v) {
                return Err(format!("{name} = {v} is not a probability in [0, 1]"));
            }
        }
        Ok(spec)
    }

    /// The long-run fraction of frames lost.
    #[cfg(test)]
    pub fn mean_loss(&self) -> f64 {
        match *self {
            LossSpec::None => 0.0,
            LossSpec::Bernoulli { p } => p,
            LossSpec::GilbertElliott { p_good_to_bad, p_bad_to_good, loss_good, loss_bad } => {
                let total = p_good_to_bad + p_bad_to_good;
                // A chain that never moves stays in its starting (good) state.
                let pi_bad = if total > 0.0 { p_good_to_bad / total } else { 0.0 };
                pi_bad * loss_bad + (1.0 - pi_bad) * loss_good
            }
        }
    }
}

/// The seeded random stream of one direction: 0 for a→b, 1 for b→a.
pub fn direction_rng(seed: u64, direction: u32) -> Xoshiro256PlusPlus {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    for _ in 0..direction {
        rng.jump();
    }
    rng
}

/// A uniform draw in [0, 1) with 53 random bits.
fn uniform(rng: &mut Xoshiro256PlusPlus) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// The loss decision of one direction: its model, its chain state and its random stream.
pub struct Loss {
    spec: LossSpec,
    bad: bool,
    rng: Xoshiro256PlusPlus,
}

impl Loss {
    pub fn new(spec: LossSpec, rng: Xoshiro256PlusPlus) -> Self {
        Self { spec, bad: false, rng }
    }

    /// Decide whether the next frame is lost. A lossless model draws nothing.
    pub fn lose(&mut self) -> bool {
        match self.spec {
            LossSpec::None => false,
            LossSpec::Bernoulli { p } => uniform(&mut self.rng) < p,
            LossSpec::GilbertElliott { p_good_to_bad, p_bad_to_good, loss_good, loss_bad } => {
                let flip = if self.bad { p_bad_to_good } else { p_good_to_bad };
                if uniform(&mut self.rng) < flip {
                    self.bad = !self.bad;
                }
                uniform(&mut self.rng) < if self.bad { loss_bad } else { loss_good }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn losses(spec: LossSpec, seed: u64, n: usize) -> usize {
        let mut l = Loss::new(spec, direction_rng(seed, 0));
        (0..n).filter(|_| l.lose()).count()
    }

    #[test]
    fn parses_every_resolved_model_and_rejects_bad_ones() {
        assert_eq!(LossSpec::parse(r#"{"model":"none"}"#), Ok(LossSpec::None));
        assert_eq!(LossSpec::parse(r#"{"model":"bernoulli","p":0.01}"#), Ok(LossSpec::Bernoulli { p: 0.01 }));
        let ge = r#"{"model":"gilbert_elliott","p_good_to_bad":0.01,"p_bad_to_good":0.1,"loss_good":0,"loss_bad":0.5}"#;
        assert_eq!(
            LossSpec::parse(ge),
            Ok(LossSpec::GilbertElliott { p_good_to_bad: 0.01, p_bad_to_good: 0.1, loss_good: 0.0, loss_bad: 0.5 })
        );
        assert!(LossSpec::parse(r#"{"model":"bernoulli","p":1.5}"#).unwrap_err().contains("p = 1.5"));
        assert!(LossSpec::parse(r#"{"model":"bernoulli"}"#).is_err());
        assert!(LossSpec::parse(r#"{"model":"bernoulli","p":0.1,"q":1}"#).is_err());
        assert!(LossSpec::parse(r#"{"model":"uniform"}"#).is_err());
        assert!(LossSpec::parse("0.01").is_err());
    }

    #[test]
    fn bernoulli_loss_count_is_in_the_binomial_999_band() {
        // n = 1e5, p = 0.05: mean 5000, sd = sqrt(n p (1-p)) = 68.9; the two-sided 99.9% normal
        // band is ±3.2905 sd = ±226.8 (the binomial is close to normal at this n).
        let (n, p) = (100_000, 0.05);
        let sd = (n as f64 * p * (1.0 - p)).sqrt();
        for seed in [1, 2, 3] {
            let k = losses(LossSpec::Bernoulli { p }, seed, n) as f64;
            assert!((k - n as f64 * p).abs() <= 3.2905 * sd, "seed {seed}: {k} losses");
        }
    }

    #[test]
    fn gilbert_elliott_loss_matches_the_stationary_distribution() {
        // pi_bad = 0.01/0.11 = 0.0909; mean loss = 0.0909*0.5 + 0.9091*0.001 = 0.04636. Losses
        // come in bursts, so the count's variance exceeds the binomial one. Renewal estimate over
        // n = 1e6 frames: a good+bad cycle lasts 110 frames on average (variance 9900 + 90), so
        // there are N ≈ 9,091 bad sojourns with Var(N) ≈ n·9990/110³ ≈ 7,500; a sojourn loses
        // L/2 frames (L geometric, mean 10, variance 90), mean 5, variance 25. Var(count) ≈
        // 9,091·25 + 5²·7,500 ≈ 4.2e5, sd ≈ 650 frames = 6.5e-4 in rate; ±0.003 is 4.6 sd.
        let spec = LossSpec::GilbertElliott { p_good_to_bad: 0.01, p_bad_to_good: 0.1, loss_good: 0.001, loss_bad: 0.5 };
        let expected = spec.mean_loss();
        assert!((expected - 0.046364).abs() < 1e-5, "{expected}");
        for seed in [7, 8] {
            let rate = losses(spec, seed, 1_000_000) as f64 / 1e6;
            assert!((rate - expected).abs() < 0.003, "seed {seed}: {rate} vs {expected}");
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_draws_and_directions_differ() {
        let spec = LossSpec::Bernoulli { p: 0.3 };
        let run = |seed, dir| {
            let mut l = Loss::new(spec, direction_rng(seed, dir));
            (0..1000).map(|_| l.lose()).collect::<Vec<bool>>()
        };
        assert_eq!(run(42, 0), run(42, 0));
        assert_eq!(run(42, 1), run(42, 1));
        assert_ne!(run(42, 0), run(42, 1));
        assert_ne!(run(42, 0), run(43, 0));
    }

    #[test]
    fn degenerate_models_never_or_always_lose() {
        assert_eq!(losses(LossSpec::None, 1, 1000), 0);
        assert_eq!(losses(LossSpec::Bernoulli { p: 0.0 }, 1, 1000), 0);
        assert_eq!(losses(LossSpec::Bernoulli { p: 1.0 }, 1, 1000), 1000);
        // Never leaving the good state: only loss_good matters.
        let stuck = LossSpec::GilbertElliott { p_good_to_bad: 0.0, p_bad_to_good: 0.0, loss_good: 0.0, loss_bad: 1.0 };
        assert_eq!(losses(stuck, 1, 1000), 0);
        assert_eq!(stuck.mean_loss(), 0.0);
    }
}
