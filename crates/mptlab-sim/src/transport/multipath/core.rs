//! The scheduler of a multipath connection and the reading of its decisions (`sched/mod.rs`
//! explains the scheduler interface; the per-scheduler sources are in `sched/`).
//!
//! One decision per chunk (MPTCP: at most one MSS of connection data; QUIC: one packet of
//! STREAM data). Before asking, the connection may take a shortcut: when no path can send
//! there is nothing to ask, and when exactly one (non-backup) path can send and the scheduler
//! is one that always takes the only choice (`SchedConfig::picks_only_choice`: it never waits
//! and keeps no state the choice would change), that path is the answer.

use super::coupling::Coupling;
use super::paths::MultipathPath;
use super::views::PathViews;
use crate::sched::{AnyScheduler, ConnView, Decision, PathView, Scheduler, WindowCap};
use mptlab_engine::Time;

/// The answer of `MultipathCore::shortcut`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shortcut {
    /// No usable path can send now: the scheduler need not be asked.
    Nowhere,
    /// Only this path can send and the scheduler would pick it.
    Only(usize),
    /// The scheduler must be asked.
    Ask,
}

/// Where a decision puts the chunk, after checking that the paths it names can take it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// Nowhere (the scheduler waits, or named paths that cannot take it).
    Nowhere,
    /// On this path.
    One(usize),
    /// A copy on every path whose bit is set (bit i = path i; at least one bit).
    Copies(u64),
}

impl Placement {
    /// The lowest-numbered path of the placement, for a transport that sends one copy only
    /// (QUIC retransmits by frame: a second copy of a STREAM frame would be duplicate data).
    #[inline]
    pub fn first(self) -> Option<usize> {
        match self {
            Placement::Nowhere => None,
            Placement::One(i) => Some(i),
            Placement::Copies(mask) => Some(mask.trailing_zeros() as usize),
        }
    }
}

/// A connection's scheduler, its path views and its controllers' coupling.
pub struct MultipathCore {
    sched: AnyScheduler,
    /// The scheduler always picks the only path that can send (`Shortcut::Only` applies).
    picks_only_choice: bool,
    /// The scheduler has a wake-up or window caps (`Scheduler::has_period_hooks`).
    period_hooks: bool,
    coupling: Coupling,
    views: PathViews,
}

impl MultipathCore {
    /// `paths`: the path count (buffers are sized for it); `coupled`: the paths' controller is
    /// a coupled one; `picks_only_choice`: see `Shortcut::Only`.
    pub fn new(sched: AnyScheduler, picks_only_choice: bool, coupled: bool, paths: usize) -> Self {
        let period_hooks = sched.has_period_hooks();
        Self { sched, picks_only_choice, period_hooks, coupling: Coupling::new(coupled, paths), views: PathViews::with_capacity(paths) }
    }

    /// The scheduler (its state and summary, e.g. BLP's learned threshold).
    pub fn scheduler(&self) -> &AnyScheduler {
        &self.sched
    }

    pub fn scheduler_mut(&mut self) -> &mut AnyScheduler {
        &mut self.sched
    }

    pub fn is_coupled(&self) -> bool {
        self.coupling.is_coupled()
    }

    /// Hand every path's view to path `i`'s controller (coupled controllers only).
    #[inline]
    pub fn couple<P: MultipathPath>(&mut self, paths: &mut [P], i: usize) {
        self.coupling.couple(paths, i);
    }

    /// Whether the scheduler must be asked, given which usable paths `can_send` now. A backup
    /// path that is the only one with room is not a shortcut: the scheduler may prefer to wait
    /// for a non-backup path.
    #[inline]
    pub fn shortcut<P: MultipathPath>(&self, paths: &[P], mut can_send: impl FnMut(&P) -> bool) -> Shortcut {
        let mut only = None;
        for (i, p) in paths.iter().enumerate() {
            if p.usable() && can_send(p) {
                if only.is_some() || !self.picks_only_choice || p.prefs().backup {
                    return Shortcut::Ask;
                }
                only = Some(i);
            }
        }
        match only {
            None => Shortcut::Nowhere,
            Some(i) => Shortcut::Only(i),
        }
    }

    /// Rebuild the path views (`PathViews::fill`) without asking the scheduler.
    #[inline]
    pub fn fill_views<P: MultipathPath>(&mut self, paths: &[P], measure: impl FnMut(&P, bool) -> PathView) -> &[PathView] {
        self.views.fill(paths, measure);
        self.views.as_slice()
    }

    /// Ask the scheduler about the next chunk, with fresh views of `paths`.
    #[inline]
    pub fn select<P: MultipathPath>(&mut self, conn: &ConnView, paths: &[P], measure: impl FnMut(&P, bool) -> PathView) -> Decision {
        self.views.fill(paths, measure);
        self.sched.select(conn, self.views.as_slice())
    }

    /// Whether the scheduler plans periods from the paths' RTT model (`Scheduler::has_period_hooks`):
    /// only then do the views carry ssthresh, RTO and the model.
    #[inline]
    pub fn has_period_hooks(&self) -> bool {
        self.period_hooks
    }

    /// The scheduler's next window cap for a path's controller (`Scheduler::take_window_cap`);
    /// the transport drains them after every `select` and forwards each to the path's controller.
    #[inline]
    pub fn take_window_cap(&mut self) -> Option<WindowCap> {
        if !self.period_hooks {
            return None;
        }
        self.sched.take_window_cap()
    }

    /// When the scheduler wants to be asked again (`Scheduler::wake_at`), if after `now`.
    #[inline]
    pub fn wake_at(&self, now: Time) -> Option<Time> {
        if !self.period_hooks {
            return None;
        }
        self.sched.wake_at().filter(|&t| t > now)
    }

    /// Where `decision` puts the chunk among `paths` paths, given which paths can take it now
    /// (`placeable`, asked only for the paths the decision names; a path out of range never is).
    #[inline]
    pub fn placement(decision: Decision, paths: usize, mut placeable: impl FnMut(usize) -> bool) -> Placement {
        match decision {
            Decision::Send(i) if i < paths && placeable(i) => Placement::One(i),
            Decision::Redundant(mask) => {
                let mut copies = 0u64;
                for i in 0..paths.min(64) {
                    if mask & (1 << i) != 0 && placeable(i) {
                        copies |= 1 << i;
                    }
                }
                if copies == 0 {
                    Placement::Nowhere
                } else {
                    Placement::Copies(copies)
                }
            }
            _ => Placement::Nowhere,
        }
    }
}
