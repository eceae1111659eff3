//! Time-varying link capacity: a process that yields the rate changes of one link direction,
//! lazily, one step at a time (a long run never holds a precomputed series).
//!
//! Models (`CapacitySpec`):
//!
//! - `Lte`: a log-normal first-order autoregressive (AR(1), discrete Gauss–Markov) process, one
//!   value per `step` (default 100 ms). With X = ln(rate):
//!
//!   X_0 ~ N(μ, σ²),   X_{k+1} = μ + ρ·(X_k − μ) + σ·√(1 − ρ²)·ε_k,   ε_k ~ N(0, 1) i.i.d.,
//!
//!   so X is stationary from the first step on (no warm-up transient), and the rate e^X is
//!   log-normal with σ² = ln(1 + cv²) and μ = ln(mean) − σ²/2, i.e. E[rate] = mean and
//!   std/mean = cv exactly. `correlation` is the lag-1 (one-step) autocorrelation of the *rate*
//!   (what one measures on a throughput trace), not of its logarithm: for a log-normal AR(1),
//!   corr(R_k, R_{k+1}) = (e^{ρσ²} − 1)/(e^{σ²} − 1), hence ρ = ln(1 + correlation·cv²) / σ².
//!   After n steps the autocorrelation is (e^{ρⁿσ²} − 1)/(e^{σ²} − 1) ≈ correlationⁿ: a
//!   correlation time of about −step / ln(correlation) (0.95 s with the defaults).
//!   Each rate is rounded to whole bit/s and clamped to [min, max] (defaults 0.1·mean and
//!   3·mean); with the default cv = 0.3 the clamp is reached with probability < 10⁻⁴ per step,
//!   so it leaves mean and correlation unchanged in practice; a large cv with a tight clamp
//!   lowers both (documented in docs/scenarios.md).
//!
//!   Why this shape. Measurement studies of commercial LTE agree on the facts the model
//!   reproduces, not on a closed-form model: link speeds "change dramatically with time" and
//!   drive standing queues of seconds (Winstein, Sivaraman, Balakrishnan, "Stochastic Forecasts
//!   Achieve High Throughput and Low Delay over Cellular Networks", NSDI 2013, on traces of
//!   four commercial LTE and 3G networks); nearly every live-network study reports strong
//!   throughput variation in time, largely from cell load (Raida, Svoboda, Lerch, Rupp,
//!   "Repeatability for Spatiotemporal Throughput Measurements in LTE", VTC 2019-Spring); yet
//!   throughput is correlated enough to be forecast over short horizons — sub-second windows
//!   (Xu, Mehrotra, Mao, Li, "PROTEUS", MobiSys 2013, 0.5 s windows) up to seconds (Raca et al.,
//!   "Back to the Future: Throughput Prediction for Cellular Networks using Radio KPIs",
//!   HotWireless 2017: median error under 15 % for mobile users at horizons up to 8 s). A
//!   positive, right-skewed marginal (log-normal) with an exponentially decaying
//!   autocorrelation (AR(1)) is the simplest process with those three properties and two
//!   interpretable knobs (cv, correlation). The defaults are illustrative, not fitted to a
//!   data set: fit mean, cv and correlation to a trace (or use the `Trace` model) when a
//!   specific network matters.
//!
//! - `Trace`: explicit piecewise-constant rates: `rates[i]` from `times[i]` on; with a `period`
//!   the whole pattern repeats, change k·period + times[i] for k = 0, 1, 2, …  Before the first
//!   change the link runs at its configured rate.
//!
//! Randomness: the `Lte` process draws from its own `RngStream` (the caller derives it from the
//! run seed and the link direction's name), two uniforms per step (Box–Muller), so its sequence
//! is a pure function of (seed, link name, parameters).

use mptlab_engine::{RngStream, Time};
use serde::Serialize;

/// A link direction's capacity model, fully resolved.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "model", rename_all = "lowercase")]
pub enum CapacitySpec {
    /// Log-normal AR(1) around `mean_bps`; see the module documentation.
    Lte { mean_bps: u64, cv: f64, correlation: f64, min_bps: u64, max_bps: u64, step: Time },
    /// `rates_bps[i]` from `times[i]` on (strictly increasing); with `period`, repeated every
    /// `period` (> the last time).
    Trace { times: Vec<Time>, rates_bps: Vec<u64>, period: Option<Time> },
}

enum State {
    Lte {
        rng: RngStream,
        step: Time,
        k: u64,
        /// ln(rate) of the last step.
        x: f64,
        mu: f64,
        sigma: f64,
        rho: f64,
        innovation: f64,
        min: u64,
        max: u64,
    },
    Trace {
        times: Vec<Time>,
        rates: Vec<u64>,
        period: Option<Time>,
        cycle: u64,
        i: usize,
    },
}

/// The rate changes of one link direction, as an iterator of (time, rate in bit/s) in strictly
/// increasing time. `Lte` never ends (it stops only when time would overflow); `Trace` ends
/// after its last change unless it repeats.
pub struct CapacityProcess {
    state: State,
}

/// A standard normal deviate (Box–Muller, cosine branch) from two uniforms of `rng`.
fn normal(rng: &mut RngStream) -> f64 {
    let u1 = 1.0 - rng.uniform(); // (0, 1]: ln is finite
    let u2 = rng.uniform();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

impl CapacityProcess {
    pub fn new(spec: &CapacitySpec, rng: RngStream) -> Self {
        let state = match *spec {
            CapacitySpec::Lte { mean_bps, cv, correlation, min_bps, max_bps, step } => {
                let s2 = (1.0 + cv * cv).ln();
                let rho = if s2 > 0.0 { ((1.0 + correlation * cv * cv).ln() / s2).clamp(0.0, 1.0) } else { 0.0 };
                let sigma = s2.sqrt();
                State::Lte {
                    rng,
                    step,
                    k: 0,
                    x: 0.0,
                    mu: (mean_bps as f64).ln() - s2 / 2.0,
                    sigma,
                    rho,
                    innovation: sigma * (1.0 - rho * rho).sqrt(),
                    min: min_bps.max(1),
                    max: max_bps.max(min_bps.max(1)),
                }
            }
            CapacitySpec::Trace { ref times, ref rates_bps, period } => {
                State::Trace { times: times.clone(), rates: rates_bps.clone(), period, cycle: 0, i: 0 }
            }
        };
        Self { state }
    }
}

impl Iterator for CapacityProcess {
    type Item = (Time, u64);

    fn next(&mut self) -> Option<(Time, u64)> {
        match &mut self.state {
            State::Lte { rng, step, k, x, mu, sigma, rho, innovation, min, max } => {
                let t = k.checked_mul(*step)?;
                let z = normal(rng);
                *x = if *k == 0 { *mu + *sigma * z } else { *mu + *rho * (*x - *mu) + *innovation * z };
                *k += 1;
                // `as` saturates (and maps NaN to 0, which the clamp lifts to `min`).
                Some((t, (x.exp().round() as u64).clamp(*min, *max)))
            }
            State::Trace { times, rates, period, cycle, i } => {
                if *i == times.len() {
                    if period.is_none() {
                        return None;
                    }
                    *cycle += 1;
                    *i = 0;
                }
                let offset = match *period {
                    Some(p) => cycle.checked_mul(p)?,
                    None => 0,
                };
                let t = times[*i].checked_add(offset)?;
                let r = rates[*i];
                *i += 1;
                Some((t, r))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mptlab_engine::time::{MILLISECOND, SECOND};
    use mptlab_engine::StreamId;

    const MBPS: u64 = 1_000_000;

    fn lte(mean: u64, cv: f64, correlation: f64) -> CapacitySpec {
        CapacitySpec::Lte { mean_bps: mean, cv, correlation, min_bps: mean / 10, max_bps: 3 * mean, step: 100 * MILLISECOND }
    }

    fn process(spec: &CapacitySpec, seed: u64, name: &str) -> CapacityProcess {
        CapacityProcess::new(spec, RngStream::new(seed, StreamId::named(99, name)))
    }

    fn rates(spec: &CapacitySpec, seed: u64, name: &str, n: usize) -> Vec<f64> {
        process(spec, seed, name).take(n).map(|(_, r)| r as f64).collect()
    }

    fn mean(xs: &[f64]) -> f64 {
        xs.iter().sum::<f64>() / xs.len() as f64
    }

    fn lag1(xs: &[f64]) -> f64 {
        let m = mean(xs);
        let var: f64 = xs.iter().map(|x| (x - m).powi(2)).sum();
        let cov: f64 = xs.windows(2).map(|w| (w[0] - m) * (w[1] - m)).sum();
        cov / var
    }

    #[test]
    fn lte_mean_cv_and_correlation_match_the_parameters() {
        // 200 000 steps = 5.6 h of simulated time at 100 ms; effective sample size ≈ n(1-ρ)/(1+ρ).
        let spec = lte(10 * MBPS, 0.3, 0.9);
        let xs = rates(&spec, 1, "lte", 200_000);
        let m = mean(&xs);
        assert!((m / (10.0 * MBPS as f64) - 1.0).abs() < 0.02, "mean {m}");
        let sd = (xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / xs.len() as f64).sqrt();
        assert!((sd / m - 0.3).abs() < 0.02, "cv {}", sd / m);
        let r = lag1(&xs);
        assert!((r - 0.9).abs() < 0.015, "lag-1 autocorrelation {r}");
        // A weaker correlation is honoured too.
        let r = lag1(&rates(&lte(10 * MBPS, 0.3, 0.5), 2, "lte", 200_000));
        assert!((r - 0.5).abs() < 0.02, "lag-1 autocorrelation {r}");
    }

    #[test]
    fn lte_values_stay_within_min_and_max() {
        // A wide process with a tight clamp hits both bounds and never leaves them.
        let spec = CapacitySpec::Lte {
            mean_bps: 10 * MBPS,
            cv: 1.5,
            correlation: 0.5,
            min_bps: 5 * MBPS,
            max_bps: 15 * MBPS,
            step: 10 * MILLISECOND,
        };
        let xs = rates(&spec, 3, "x", 50_000);
        assert!(xs.iter().all(|&r| (5e6..=15e6).contains(&r)));
        assert!(xs.contains(&5e6) && xs.contains(&15e6));
    }

    #[test]
    fn lte_steps_are_evenly_spaced_from_zero() {
        let ts: Vec<Time> = process(&lte(MBPS, 0.3, 0.9), 1, "x").take(4).map(|(t, _)| t).collect();
        assert_eq!(ts, [0, 100 * MILLISECOND, 200 * MILLISECOND, 300 * MILLISECOND]);
    }

    #[test]
    fn the_sequence_is_a_pure_function_of_seed_and_name() {
        let spec = lte(10 * MBPS, 0.3, 0.9);
        let a = rates(&spec, 7, "cell", 1000);
        assert_eq!(a, rates(&spec, 7, "cell", 1000));
        assert_ne!(a, rates(&spec, 7, "cell.rev", 1000));
        assert_ne!(a, rates(&spec, 8, "cell", 1000));
    }

    #[test]
    fn zero_cv_is_a_constant_rate() {
        let xs = rates(&lte(10 * MBPS, 0.0, 0.9), 1, "x", 100);
        assert!(xs.iter().all(|&r| r == 1e7), "{:?}", &xs[..5]);
    }

    #[test]
    fn a_trace_without_period_ends_after_its_last_change() {
        let spec = CapacitySpec::Trace { times: vec![0, 2 * SECOND], rates_bps: vec![MBPS, 2 * MBPS], period: None };
        let v: Vec<_> = process(&spec, 1, "x").collect();
        assert_eq!(v, [(0, MBPS), (2 * SECOND, 2 * MBPS)]);
    }

    #[test]
    fn a_trace_with_a_period_repeats() {
        let spec = CapacitySpec::Trace { times: vec![SECOND, 2 * SECOND], rates_bps: vec![MBPS, 2 * MBPS], period: Some(5 * SECOND) };
        let v: Vec<_> = process(&spec, 1, "x").take(5).collect();
        assert_eq!(v, [(SECOND, MBPS), (2 * SECOND, 2 * MBPS), (6 * SECOND, MBPS), (7 * SECOND, 2 * MBPS), (11 * SECOND, MBPS)]);
    }
}
