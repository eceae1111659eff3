//! Limits on what one run may ask for, checked before anything runs (docs/scenarios.md,
//! "Limits"). Each bounds work or memory that would otherwise grow without a clear error: a
//! time so large that sums of times overflow simulated time's u64 nanoseconds, interval bins or
//! traces sized by run length over a tiny interval, a repeating capacity trace with a tiny
//! period. A refusal is one `ScenarioError` naming the key, the value and the limit.

use super::errors::{fail, join, Result};
use super::raw::{Capacity, Direction, Scenario};
use super::units::Dur;
use crate::spec::RunSpec;
use mptlab_engine::time::SECOND;

/// Largest time any key may hold: 10⁷ s (about 115 days). Sums of up to 1,800 such times fit
/// in u64 nanoseconds, so a route's delays, a start plus the run's duration or an event time
/// plus a delay cannot wrap.
pub const MAX_TIME: Dur = Dur(10_000_000 * SECOND);

/// Most interval bins (`run.duration / metrics.interval`, rounded up) and trace samples
/// (`run.duration / metrics.trace_interval`) one series may have: 10⁷, 80 MB per series.
pub const MAX_BINS: u64 = 10_000_000;

/// Most rate changes a repeating capacity trace may make over the run
/// (`⌈run.duration / period⌉ · len(times)`).
pub const MAX_TRACE_STEPS: u64 = 10_000_000;

/// Largest estimated memory for a run's flows, links and their metric buffers: 8 GiB.
pub const MAX_MEMORY_ESTIMATE: u64 = 8 << 30;
/// Estimate per flow and per two link directions (a group member's access link), fixed part:
/// measured (2026-11-25, `scenarios/groups.toml`) at build as 46 KB (UDP) to 65 KB (MPTCP) with
/// 5,000 members, and 15 KB more while the summary is built (50,000 UDP members: 3.2 GB built,
/// 4.7 GB at the summary's peak); 80 KiB keeps the estimate above every protocol.
const EST_FIXED: u64 = 80 << 10;
/// Estimate per flow and per two link directions, per trace sample and interval bin: measured
/// 26-38 B; 40 B.
const EST_PER_SAMPLE: u64 = 40;

/// A time read from a scenario: refused above `MAX_TIME`.
pub fn time(key: &str, text: &str, d: Dur) -> Result<Dur> {
    if d.0 > MAX_TIME.0 {
        return fail(key, format!("`{}` is too large (limit: {}, about 115 days)", text.trim(), MAX_TIME.canonical()));
    }
    Ok(d)
}

/// The limits that need the whole scenario (run length against intervals and trace periods).
pub fn check(s: &Scenario) -> Result<()> {
    let duration = s.run.duration.0;
    for (key, interval) in [("metrics.interval", s.metrics.interval), ("metrics.trace_interval", s.metrics.trace_interval)] {
        let bins = duration.div_ceil(interval.0);
        if bins > MAX_BINS {
            return fail(
                key,
                format!(
                    "{} over run.duration {} is {bins} samples, above the limit of {MAX_BINS} (use a longer interval or a shorter run)",
                    interval.canonical(),
                    s.run.duration.canonical()
                ),
            );
        }
    }
    let links = s.links.iter().map(|(name, l)| (format!("links.{name}"), &l.fwd, &l.reverse));
    let access = s.groups.iter().filter_map(|(name, g)| g.link.as_ref().map(|l| (format!("groups.{name}.link"), &l.fwd, &l.reverse)));
    for (key, fwd, rev) in links.chain(access) {
        trace_steps(&key, fwd, duration)?;
        trace_steps(&join(&key, "reverse"), rev, duration)?;
    }
    Ok(())
}

/// The resolved run's estimated memory (flows, links and their duration-sized metric buffers)
/// may not exceed `MAX_MEMORY_ESTIMATE`: 10⁶ group members once built until the kernel's OOM
/// killer stopped them. The estimate is conservative (about twice what was measured).
pub fn check_spec(spec: &RunSpec) -> Result<()> {
    let samples = spec.duration.div_ceil(spec.metrics.trace_interval) + spec.duration.div_ceil(spec.metrics.interval);
    let units = spec.flows.len() as u64 + (spec.links.len() as u64).div_ceil(2);
    let estimate = units.saturating_mul(EST_FIXED.saturating_add(EST_PER_SAMPLE.saturating_mul(samples)));
    if estimate > MAX_MEMORY_ESTIMATE {
        return fail(
            "flows",
            format!(
                "{} flows and {} link directions over run.duration {} need about {:.1} GB for their state and metric buffers (estimate), above the limit of {} GiB (use fewer flows, a shorter run or longer metrics intervals)",
                spec.flows.len(),
                spec.links.len(),
                Dur(spec.duration).canonical(),
                estimate as f64 / 1e9,
                MAX_MEMORY_ESTIMATE >> 30
            ),
        );
    }
    Ok(())
}

/// A repeating capacity trace may not make more than `MAX_TRACE_STEPS` changes over the run.
fn trace_steps(key: &str, dir: &Direction, duration: u64) -> Result<()> {
    let Some(Capacity::Trace { times, repeat: true, period: Some(period), .. }) = &dir.capacity else {
        return Ok(());
    };
    let cycles = duration.div_ceil(period.0);
    let steps = cycles.saturating_mul(times.len() as u64);
    if steps > MAX_TRACE_STEPS {
        return fail(
            join(key, "capacity.period"),
            format!(
                "a period of {} repeats the trace {cycles} times over run.duration {}: {steps} rate changes, above the limit of {MAX_TRACE_STEPS}",
                period.canonical(),
                Dur(duration).canonical()
            ),
        );
    }
    Ok(())
}
