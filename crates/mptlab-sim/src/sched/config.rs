//! `SchedConfig`: a scheduler's registry name plus its typed options (STYLE: "config is the
//! factory; names map to configs"), as `cc::CcConfig` for controllers. The scenario layer (or
//! the MPTCP connection's builder) makes one from `scheduler` and `scheduler_options`; `build`
//! turns it into the statically dispatched `AnyScheduler`.

use super::blest::{Blest, BlestConfig};
use super::blp::{Blp, BlpConfig};
use super::cpf::{Cpf, CpfConfig};
use super::ecf::{Ecf, EcfConfig};
use super::linger::{Linger, LingerConfig};
use super::minrtt::MinRtt;
use super::otias::Otias;
use super::peekaboo::{Peekaboo, PeekabooConfig};
use super::redundant::Redundant;
use super::roundrobin::{RoundRobin, RoundRobinConfig};
use super::AnyScheduler;
use crate::cc::options::OptValue;
use crate::cc::registry::{names, resolve, SCHEDULERS};
use crate::cc::Options;
use serde::ser::{Serialize, SerializeMap, Serializer};

/// Serialises like the scenario keys it came from: `{"scheduler": name, "scheduler_options":
/// {...}}`, the options table present only for schedulers that have options.
#[derive(Clone, Debug, PartialEq)]
pub enum SchedConfig {
    MinRtt,
    Default(LingerConfig),
    RoundRobin(RoundRobinConfig),
    Redundant,
    Blest(BlestConfig),
    Ecf(EcfConfig),
    Cpf(CpfConfig),
    Otias,
    Blp(BlpConfig),
    Peekaboo(PeekabooConfig),
}

impl Serialize for SchedConfig {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("scheduler", self.name())?;
        match self {
            SchedConfig::MinRtt | SchedConfig::Redundant | SchedConfig::Otias => {}
            SchedConfig::Default(c) => m.serialize_entry("scheduler_options", c)?,
            SchedConfig::RoundRobin(c) => m.serialize_entry("scheduler_options", c)?,
            SchedConfig::Blest(c) => m.serialize_entry("scheduler_options", c)?,
            SchedConfig::Ecf(c) => m.serialize_entry("scheduler_options", c)?,
            SchedConfig::Cpf(c) => m.serialize_entry("scheduler_options", c)?,
            SchedConfig::Blp(c) => m.serialize_entry("scheduler_options", c)?,
            SchedConfig::Peekaboo(c) => m.serialize_entry("scheduler_options", c)?,
        }
        m.end()
    }
}

impl SchedConfig {
    /// The default configuration of a canonical registry name.
    pub fn default_for(name: &str) -> Option<Self> {
        Some(match name {
            "minrtt" => SchedConfig::MinRtt,
            "default" => SchedConfig::Default(Default::default()),
            "roundrobin" => SchedConfig::RoundRobin(Default::default()),
            "redundant" => SchedConfig::Redundant,
            "blest" => SchedConfig::Blest(Default::default()),
            "ecf" => SchedConfig::Ecf(Default::default()),
            "cpf" => SchedConfig::Cpf(Default::default()),
            "otias" => SchedConfig::Otias,
            "blp" => SchedConfig::Blp(Default::default()),
            "peekaboo" => SchedConfig::Peekaboo(Default::default()),
            _ => return None,
        })
    }

    /// The default configuration of a user-given name (case-insensitive, aliases allowed);
    /// an unknown name is an error that quotes it and lists the known ones.
    pub fn from_name(name: &str) -> Result<Self, String> {
        resolve(SCHEDULERS, name)
            .and_then(Self::default_for)
            .ok_or_else(|| format!("unknown scheduler `{name}`; valid: {}", names(SCHEDULERS).join(", ")))
    }

    pub fn name(&self) -> &'static str {
        match self {
            SchedConfig::MinRtt => "minrtt",
            SchedConfig::Default(_) => "default",
            SchedConfig::RoundRobin(_) => "roundrobin",
            SchedConfig::Redundant => "redundant",
            SchedConfig::Blest(_) => "blest",
            SchedConfig::Ecf(_) => "ecf",
            SchedConfig::Cpf(_) => "cpf",
            SchedConfig::Otias => "otias",
            SchedConfig::Blp(_) => "blp",
            SchedConfig::Peekaboo(_) => "peekaboo",
        }
    }

    /// Option names this scheduler accepts.
    pub fn option_names(&self) -> &'static [&'static str] {
        match self {
            SchedConfig::MinRtt | SchedConfig::Redundant | SchedConfig::Otias => &[],
            SchedConfig::Default(_) => LingerConfig::NAMES,
            SchedConfig::RoundRobin(_) => RoundRobinConfig::NAMES,
            SchedConfig::Blest(_) => BlestConfig::NAMES,
            SchedConfig::Ecf(_) => EcfConfig::NAMES,
            SchedConfig::Cpf(_) => CpfConfig::NAMES,
            SchedConfig::Blp(_) => BlpConfig::NAMES,
            SchedConfig::Peekaboo(_) => PeekabooConfig::NAMES,
        }
    }

    /// Set one option; the error is the reason only (the caller knows the key path).
    pub fn set(&mut self, key: &str, value: OptValue) -> Result<(), String> {
        if !self.option_names().contains(&key) {
            return Err(format!("unknown option for `{}`", self.name()));
        }
        match self {
            SchedConfig::MinRtt | SchedConfig::Redundant | SchedConfig::Otias => {
                unreachable!("no options")
            }
            SchedConfig::Default(c) => c.set(key, value),
            SchedConfig::RoundRobin(c) => c.set(key, value),
            SchedConfig::Blest(c) => c.set(key, value),
            SchedConfig::Ecf(c) => c.set(key, value),
            SchedConfig::Cpf(c) => c.set(key, value),
            SchedConfig::Blp(c) => c.set(key, value),
            SchedConfig::Peekaboo(c) => c.set(key, value),
        }
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

    /// A fresh scheduler whose random draws (BLP's `randomized` blocking, Peekaboo's
    /// exploration) come from its own stream seeded with `seed`: same seed, same decisions.
    /// The others ignore the seed.
    pub fn build_seeded(&self, seed: u64) -> AnyScheduler {
        match self {
            SchedConfig::MinRtt => AnyScheduler::MinRtt(MinRtt::new()),
            SchedConfig::Default(c) => AnyScheduler::Linger(Linger::new(c)),
            SchedConfig::RoundRobin(c) => AnyScheduler::RoundRobin(RoundRobin::new(c)),
            SchedConfig::Redundant => AnyScheduler::Redundant(Redundant::new()),
            SchedConfig::Blest(c) => AnyScheduler::Blest(Blest::new(c)),
            SchedConfig::Ecf(c) => AnyScheduler::Ecf(Ecf::new(c)),
            SchedConfig::Cpf(c) => AnyScheduler::Cpf(Cpf::new(c)),
            SchedConfig::Otias => AnyScheduler::Otias(Otias::new()),
            SchedConfig::Blp(c) => AnyScheduler::Blp(Blp::new(c, seed)),
            SchedConfig::Peekaboo(c) => AnyScheduler::Peekaboo(Peekaboo::new(c, seed)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
