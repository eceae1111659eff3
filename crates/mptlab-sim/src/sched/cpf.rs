//! CPF, cheapest path first: a strict-priority scheduler.
//!
//! Source: seed 003 (Pieska, Kassler, Brunstrom, Rakocevic, Amend, "Performance Impact of
//! Nested Congestion Control on Transport-Layer Multipath Tunneling", Future Internet 16(7),
//! 2024), §2.3: "CPF prioritizes available paths based on user-defined preferences ... a path
//! is considered available if its path congestion window (CWND) has sufficient room to send a
//! packet. Consequently, CPF always schedules packets over the highest priority path if it has
//! available capacity and only schedules packets to the next available path once the CWND of
//! the highest priority path is filled up." The strict-priority scheduler of
//! draft-bonaventure-iccrg-schedulers; implemented in MP-DCCP as `sched_cpf.c`.
//!
//! Interpretations:
//! - Preference is `PathView::priority`, lower first (the connection's default is the path
//!   index). MP-DCCP stores it the other way round (a higher `mpdccp_prio` wins).
//! - Ties between equal priorities go to the lower id; with `ties_by_srtt = true` to the lower
//!   SRTT first, as MP-DCCP's `sched_cpf.c` does (then the lower id).
//! - Backup status overrides priority: a backup path is used only when no non-backup path is
//!   usable (`eligible`), whatever its priority.
//! - The first path in priority order with `has_space` is chosen; when none has space, `Wait`
//!   (never a queue on a full path: "only ... once the CWND ... is filled up").

use super::{eligible, ConnView, Decision, PathView, Scheduler};
use crate::cc::options::OptValue;
use crate::cc::Options;
use serde::Serialize;

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CpfConfig {
    /// Break ties between equal priorities by SRTT (MP-DCCP) instead of by id.
    pub ties_by_srtt: bool,
}

impl Options for CpfConfig {
    const NAMES: &'static [&'static str] = &["ties_by_srtt"];
    fn set(&mut self, key: &str, v: OptValue) -> Result<(), String> {
        match key {
            "ties_by_srtt" => self.ties_by_srtt = v.boolean()?,
            _ => unreachable!("checked against NAMES"),
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct Cpf {
    ties_by_srtt: bool,
}

impl Cpf {
    pub fn new(cfg: &CpfConfig) -> Self {
        Self { ties_by_srtt: cfg.ties_by_srtt }
    }
}

impl Scheduler for Cpf {
    fn select(&mut self, _conn: &ConnView, paths: &[PathView]) -> Decision {
        let srtt = self.ties_by_srtt;
        eligible(paths)
            .filter(|p| p.has_space)
            .min_by_key(|p| (p.priority, if srtt { p.srtt } else { 0 }, p.id))
            .map_or(Decision::Wait, |p| Decision::Send(p.id))
    }
}
