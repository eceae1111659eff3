//! `SchedConfig`: a scheduler's registry name plus its typed options (STYLE: "config is the
//! factory; names map to configs"), as `cc::CcConfig` for controllers. The scenario layer (or
//! the MPTCP connection's builder) makes one from `scheduler` and `scheduler_options`; `build`
//! turns it into the statically dispatched `AnyScheduler`. The enum and its per-scheduler
//! methods are generated from the registry (`schedulers!` in `sched/mod.rs`); here are the
//! lookup by user-given name, the scheduler properties the connection asks about and the
//! serialisation.

use super::registry::SCHEDULERS;
use super::{AnyScheduler, SchedConfig};
use crate::cc::registry::{names, resolve};
use serde::ser::{Serialize, SerializeMap, Serializer};

impl Serialize for SchedConfig {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("scheduler", self.name())?;
        self.serialize_options(&mut m)?;
        m.end()
    }
}

impl SchedConfig {
    /// The default configuration of a user-given name (case-insensitive, aliases allowed);
    /// an unknown name is an error that quotes it and lists the known ones.
    pub fn from_name(name: &str) -> Result<Self, String> {
        resolve(SCHEDULERS, name)
            .and_then(Self::default_for)
            .ok_or_else(|| format!("unknown scheduler `{name}`; valid: {}", names(SCHEDULERS).join(", ")))
    }

    /// Whether this scheduler may name a path without space that can queue the chunk (OTIAS,
    /// `default` in its kernel model or with `queue = true`); the others name only paths with
    /// `has_space`.
    pub fn may_queue(&self) -> bool {
        match self {
            SchedConfig::Otias => true,
            SchedConfig::Default(c) => c.kernel || c.queue,
            _ => false,
        }
    }

    /// Whether the scheduler, given exactly one path that can send now and no other usable
    /// non-backup path with space, always sends on it and keeps no state that the decision
    /// changes: the connection may then skip asking it (a fast path, same decisions). Round
    /// robin (cursor), BLEST and ECF (may wait, keep estimates) and OTIAS (queues) must be asked.
    pub fn picks_only_choice(&self) -> bool {
        matches!(self, SchedConfig::MinRtt | SchedConfig::Default(_) | SchedConfig::Redundant | SchedConfig::Cpf(_)) && !self.may_queue()
    }

    /// A fresh scheduler (its state, a cursor or an estimate, starts anew), with seed 0 for the
    /// schedulers that draw random numbers (`build_seeded`).
    pub fn build(&self) -> AnyScheduler {
        self.build_seeded(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::options::OptValue;
    use crate::sched::ecf::EcfConfig;
    use crate::sched::roundrobin::RoundRobinConfig;

    #[test]
    fn every_registry_name_has_a_config_that_builds() {
        for name in names(SCHEDULERS) {
            let cfg = SchedConfig::default_for(name).unwrap_or_else(|| panic!("{name} has no config"));
            assert_eq!(cfg.name(), name);
            assert_eq!(cfg.build().name(), name);
        }
    }

    #[test]
    fn names_resolve_case_insensitively_and_through_aliases() {
        assert_eq!(SchedConfig::from_name("SRTT").unwrap(), SchedConfig::MinRtt);
        assert_eq!(SchedConfig::from_name("Ecf").unwrap().name(), "ecf");
    }

    #[test]
    fn an_unknown_name_is_quoted_with_the_known_ones() {
        let e = SchedConfig::from_name("fastest").unwrap_err();
        assert!(e.contains("`fastest`") && e.contains("minrtt") && e.contains("otias"), "{e}");
    }

    #[test]
    fn unknown_options_are_rejected() {
        let mut c = SchedConfig::default_for("minrtt").unwrap();
        assert!(c.set("beta", OptValue::Num(0.5)).is_err());
        let mut c = SchedConfig::default_for("ecf").unwrap();
        assert!(c.set("lambda", OptValue::Num(0.5)).is_err());
    }

    #[test]
    fn options_are_typed_and_range_checked() {
        let mut c = SchedConfig::default_for("ecf").unwrap();
        c.set("beta", OptValue::Num(0.5)).unwrap();
        assert_eq!(c, SchedConfig::Ecf(EcfConfig { beta: 0.5 }));
        assert!(c.set("beta", OptValue::Bool(true)).is_err());
        assert!(c.set("beta", OptValue::Num(-1.0)).is_err());
        let mut c = SchedConfig::default_for("roundrobin").unwrap();
        assert!(c.set("segments", OptValue::Num(1.5)).is_err());
        c.set("segments", OptValue::Num(3.0)).unwrap();
        assert_eq!(c, SchedConfig::RoundRobin(RoundRobinConfig { segments: 3 }));
    }

    #[test]
    fn config_serializes_as_scenario_keys() {
        let v = serde_json::to_value(SchedConfig::default_for("minrtt").unwrap()).unwrap();
        assert_eq!(v, serde_json::json!({"scheduler": "minrtt"}));
        let v = serde_json::to_value(SchedConfig::default_for("ecf").unwrap()).unwrap();
        assert_eq!(v, serde_json::json!({"scheduler": "ecf", "scheduler_options": {"beta": 0.25}}));
    }
}
