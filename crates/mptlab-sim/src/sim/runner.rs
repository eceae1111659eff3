//! The engine a run asks for: the sequential one, or the parallel one (`run.partitions` > 1).

use super::parallel::PhaseTimes;
use super::{PacketCounts, Partitioned, Simulation};
use crate::spec::RunSpec;
use mptlab_engine::Time;

/// Threads of a parallel run: `MPTLAB_THREADS` if set, else the machine's cores. Results do
/// not depend on it.
pub fn threads_from_env() -> usize {
    std::env::var("MPTLAB_THREADS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// A run on either engine; once a parallel run has finished, its partitions are merged into one
/// `Simulation` for the results.
pub struct Runner {
    engine: Option<Engine>,
    /// A parallel run's phase times and window count, kept when its partitions merge.
    phase_times: Option<(PhaseTimes, u64)>,
}

enum Engine {
    Sequential(Box<Simulation>),
    Parallel(Partitioned),
}

impl Runner {
    pub fn new(spec: RunSpec) -> Self {
        Self::with_threads(spec, threads_from_env())
    }

    pub fn with_threads(spec: RunSpec, threads: usize) -> Self {
        let engine = if spec.partitions > 1 {
            Engine::Parallel(Partitioned::new(spec, threads))
        } else {
            Engine::Sequential(Box::new(Simulation::new(spec)))
        };
        Runner { engine: Some(engine), phase_times: None }
    }

    fn engine(&self) -> &Engine {
        self.engine.as_ref().expect("a runner always holds an engine")
    }

    /// Run until simulated time `until` (capped at the run's duration).
    pub fn advance(&mut self, until: Time) {
        match self.engine.as_mut().expect("a runner always holds an engine") {
            Engine::Sequential(s) => s.advance(until),
            Engine::Parallel(p) => {
                p.advance(until);
                self.phase_times = Some(p.phase_times());
                if p.is_done() {
                    let Some(Engine::Parallel(p)) = self.engine.take() else { unreachable!() };
                    self.engine = Some(Engine::Sequential(Box::new(p.finish())));
                }
            }
        }
    }

    pub fn run_to_end(&mut self) {
        self.advance(self.duration());
    }

    pub fn now(&self) -> Time {
        match self.engine() {
            Engine::Sequential(s) => s.now(),
            Engine::Parallel(p) => p.now(),
        }
    }

    pub fn duration(&self) -> Time {
        match self.engine() {
            Engine::Sequential(s) => s.duration(),
            Engine::Parallel(p) => p.duration(),
        }
    }

    pub fn is_done(&self) -> bool {
        match self.engine() {
            Engine::Sequential(s) => s.is_done(),
            Engine::Parallel(p) => p.is_done(),
        }
    }

    pub fn seed(&self) -> u64 {
        match self.engine() {
            Engine::Sequential(s) => s.spec.seed,
            Engine::Parallel(p) => p.spec().seed,
        }
    }

    pub fn events_processed(&self) -> u64 {
        match self.engine() {
            Engine::Sequential(s) => s.events_processed(),
            Engine::Parallel(p) => p.events_processed(),
        }
    }

    pub fn delivered_data(&self) -> u64 {
        match self.engine() {
            Engine::Sequential(s) => s.counts.delivered_data,
            Engine::Parallel(p) => p.delivered_data(),
        }
    }

    /// Packets created, delivered and dropped so far.
    pub fn counts(&self) -> PacketCounts {
        match self.engine() {
            Engine::Sequential(s) => s.counts,
            Engine::Parallel(p) => p.counts(),
        }
    }

    /// Packets held anywhere in the network.
    pub fn packets_live(&self) -> usize {
        match self.engine() {
            Engine::Sequential(s) => s.packets_live(),
            Engine::Parallel(p) => p.packets_live(),
        }
    }

    /// A parallel run's threads' time per phase and its windows so far (`None` for a sequential
    /// run).
    pub fn phase_times(&self) -> Option<(PhaseTimes, u64)> {
        self.phase_times
    }

    /// The run, for its results: a parallel run only once it has run to its end.
    pub fn sim(&self) -> &Simulation {
        match self.engine() {
            Engine::Sequential(s) => s,
            Engine::Parallel(_) => panic!("a parallel run's results exist once it has run to its end"),
        }
    }
}
