//! One path as the multipath core sees it, and the user's preferences per path.
//!
//! Preferences follow RFC 8684 §3.3.8 (MP_PRIO's backup flag: a backup path carries data only
//! when no other path is usable) and the priority order of CPF (lower first); the multipath
//! QUIC draft's PATH_STATUS (available / backup, draft-ietf-quic-multipath-19 §3.3) has the
//! same meaning, so both transports take them from the scenario's path specs alike.

use crate::cc::SubflowCcView;

/// The user's preferences for one path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct PathPrefs {
    /// Scheduler preference, lower first (CPF).
    pub priority: u32,
    /// A backup path: scheduled only when no non-backup path is usable.
    pub backup: bool,
}

impl PathPrefs {
    /// Path `i`'s preferences when the scenario gives none: its index as priority, not a backup.
    pub fn default_for(i: usize) -> Self {
        Self { priority: i as u32, backup: false }
    }

    /// Path `i`'s preferences from per-path lists (missing entries take `default_for`).
    pub fn from_lists(i: usize, priorities: &[u32], backups: &[bool]) -> Self {
        let d = Self::default_for(i);
        Self { priority: priorities.get(i).copied().unwrap_or(d.priority), backup: backups.get(i).copied().unwrap_or(d.backup) }
    }
}

/// What the core needs of one path of a transport (a subflow, a QUIC path, a tunnel path).
pub trait MultipathPath {
    /// Data may be scheduled on it: open, established or validated, not potentially failed.
    fn usable(&self) -> bool;
    /// Its preferences.
    fn prefs(&self) -> PathPrefs;
    /// Its controller's state as coupled controllers see it (None for uncoupled ones).
    fn coupled_view(&self) -> Option<SubflowCcView>;
    /// Hand every path's view (`views[me]` is this path's) to its controller.
    fn couple(&mut self, views: &[SubflowCcView], me: usize);
}
