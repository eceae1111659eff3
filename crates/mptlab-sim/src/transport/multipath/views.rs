//! The scheduler's view of every path (`sched::PathView`), built into one buffer reused from
//! decision to decision. The transport measures a path (window, RTT, rates: what they mean
//! depends on its wire protocol); the core fills in what is the same for every transport: the
//! path's index, whether it is usable, its preferences, and no space or queue on a path that is
//! not usable.

use super::paths::MultipathPath;
use crate::sched::PathView;

pub struct PathViews {
    views: Vec<PathView>,
}

impl PathViews {
    pub fn with_capacity(paths: usize) -> Self {
        Self { views: Vec::with_capacity(paths) }
    }

    /// Rebuild the views of `paths`. `measure(path, usable)` gives the transport's measurements
    /// of one path (its `id`, `usable`, `priority` and `backup` are overwritten here; it may skip
    /// the space test of a path that is not usable).
    #[inline]
    pub fn fill<P: MultipathPath>(&mut self, paths: &[P], mut measure: impl FnMut(&P, bool) -> PathView) {
        self.views.clear();
        for (i, p) in paths.iter().enumerate() {
            let usable = p.usable();
            let prefs = p.prefs();
            let mut v = measure(p, usable);
            v.id = i;
            v.usable = usable;
            v.has_space &= usable;
            v.can_queue &= usable;
            v.priority = prefs.priority;
            v.backup = prefs.backup;
            self.views.push(v);
        }
    }

    /// The views of the last `fill`.
    #[inline]
    pub fn as_slice(&self) -> &[PathView] {
        &self.views
    }
}
